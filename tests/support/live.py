"""The app served for real: uvicorn on 127.0.0.1 (a free port) in a background thread."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from app.main import create_app


def free_port() -> int:
    """A port nothing listens on now (bound and released): for a server to start on, or to stand
    for a service that is down."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve(state: Any) -> Iterator[str]:
    """Serve ``state``'s app until the block ends; yields the OpenAI base URL (``…/v1``)."""
    app = create_app(state.settings, state=state)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_config=None, log_level="warning", ws="none", lifespan="on", access_log=False)
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert thread.is_alive(), "uvicorn stopped during startup"
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        srv.should_exit = True
        thread.join(timeout=20)
        sock.close()
        assert not thread.is_alive(), "uvicorn did not stop"
