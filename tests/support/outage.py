"""Databases that are gone, for real, on 127.0.0.1: refused (nothing listens) or silent (a listener that
accepts the TCP connection and never says a word, as a hung server or a black-holed proxy does)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from support.live import free_port

OUTAGES = ["refused", "silent"]


@contextmanager
def silent_port() -> Iterator[int]:
    """A port that accepts connections, reads nothing and answers nothing, until the block ends."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:  # closed: the block ended
                return
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept (close alone does not)
        listener.close()
        thread.join(timeout=5)
        for conn in held:
            conn.close()


@contextmanager
def gone_database(kind: str) -> Iterator[str]:
    """A PostgreSQL URL whose server is gone in the way `kind` says."""
    if kind == "refused":
        yield f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/test"
        return
    with silent_port() as port:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/test"
