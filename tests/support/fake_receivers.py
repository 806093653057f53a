"""Local fakes of the services webhooks deliver to, on 127.0.0.1 (a thread each).

Each fake checks a request the way its real service does — a Feishu/Lark custom bot (body
``timestamp``/``sign``: Base64 HMAC-SHA256 keyed by "<timestamp>\\n<secret>" over the empty string,
within an hour), a WeCom group bot (``key`` in the query), a DingTalk custom robot (``timestamp``
in ms and ``sign`` in the query: Base64 HMAC-SHA256 keyed by the secret over
"<timestamp>\\n<secret>"), ntfy (text body, RFC 2047 titles, Bearer token), and a generic receiver
that verifies ``X-Suikou-Signature`` — and answers in that service's own reply shape: a signature
it rejects is its own error code with HTTP 200, as the real ones do. ``script`` makes the next
replies fail (a status, or a hang past the sender's timeout) to test retries.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.header import decode_header, make_header
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["Received", "Receiver", "receiver"]


@dataclass
class Received:
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    kind: str
    secret: str | None
    port: int = 0
    received: list[Received] = field(default_factory=list)
    accepted: list[Received] = field(default_factory=list)  # what the service took
    # next replies: a status, "hang" (no reply for hang_s), or "drip" (a 200 whose body comes a byte
    # every drip_s, so that no single read waits long)
    script: list[int | str] = field(default_factory=list)
    hang_s: float = 3.0
    drip_s: float = 0.2
    delay_s: float = 0.0  # every reply waits this long (a slow receiver)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        path = {"wecom": "/cgi-bin/webhook/send?key=k-123", "dingtalk": "/robot/send?access_token=t-123"}.get(
            self.kind, {"feishu": "/open-apis/bot/v2/hook/h-123", "ntfy": "/suikou-alerts"}.get(self.kind, "/hook")
        )
        return f"http://127.0.0.1:{self.port}{path}"

    def wait(self, n: int, timeout: float = 10.0) -> list[Received]:
        """The first ``n`` requests the service took, waiting for them."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.accepted) >= n:
                    return list(self.accepted)
            time.sleep(0.02)
        raise AssertionError(f"{self.kind}: {len(self.accepted)} of {n} deliveries taken; got {self.received}")

    # --- what each service checks and answers -------------------------------------------------

    def reply(self, got: Received) -> tuple[int, bytes, bool]:
        """(status, body, whether the service took it)."""
        status, body = getattr(self, f"_{self.kind}")(got)
        taken = 200 <= status < 300
        if taken and body.startswith(b"{"):
            reply = json.loads(body)
            taken = reply.get("code", reply.get("errcode", 0)) == 0
        return status, body, taken

    def _generic(self, got: Received) -> tuple[int, bytes]:
        sig = got.headers.get("x-suikou-signature", "")
        parts = dict(p.split("=", 1) for p in sig.split(",") if "=" in p)
        if self.secret is not None:
            expect = hmac.new(self.secret.encode(), f"{parts.get('t', '')}.".encode() + got.body, hashlib.sha256)
            if not hmac.compare_digest(expect.hexdigest(), parts.get("v1", "")):
                return 400, b"bad signature"
        if not got.headers.get("x-suikou-delivery") or not got.headers.get("x-suikou-event"):
            return 400, b"missing headers"
        return 204, b""

    def _feishu(self, got: Received) -> tuple[int, bytes]:
        body = got.json()
        if self.secret is not None:
            ts = body.get("timestamp", "")
            key = f"{ts}\n{self.secret}".encode()
            expect = base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
            if body.get("sign") != expect or abs(time.time() - int(ts or 0)) > 3600:
                return 200, json.dumps({"code": 19021, "data": {}, "msg": "sign match fail"}).encode()
        if body.get("msg_type") != "text" or not body.get("content", {}).get("text"):
            return 200, json.dumps({"code": 9499, "msg": "Bad Request"}).encode()
        return 200, json.dumps({"code": 0, "data": {}, "msg": "success"}).encode()

    def _wecom(self, got: Received) -> tuple[int, bytes]:
        body = got.json()
        if got.query.get("key") != "k-123":
            return 200, json.dumps({"errcode": 93000, "errmsg": "invalid webhook url"}).encode()
        if body.get("msgtype") != "text" or not body.get("text", {}).get("content"):
            return 200, json.dumps({"errcode": 40008, "errmsg": "invalid message type"}).encode()
        return 200, json.dumps({"errcode": 0, "errmsg": "ok"}).encode()

    def _dingtalk(self, got: Received) -> tuple[int, bytes]:
        body = got.json()
        if self.secret is not None:
            ts = got.query.get("timestamp", "")
            digest = hmac.new(self.secret.encode(), f"{ts}\n{self.secret}".encode(), hashlib.sha256).digest()
            if (
                got.query.get("sign") != base64.b64encode(digest).decode()
                or abs(time.time() * 1000 - int(ts or 0)) > 3.6e6
            ):
                return 200, json.dumps({"errcode": 310000, "errmsg": "sign not match"}).encode()
        if body.get("msgtype") != "text" or not body.get("text", {}).get("content"):
            return 200, json.dumps({"errcode": 40035, "errmsg": "缺少参数 json"}).encode()
        return 200, json.dumps({"errcode": 0, "errmsg": "ok"}).encode()

    def _ntfy(self, got: Received) -> tuple[int, bytes]:
        if self.secret is not None and got.headers.get("authorization") != f"Bearer {self.secret}":
            return 403, json.dumps({"code": 40301, "http": 403, "error": "forbidden"}).encode()
        if not got.body:
            return 400, json.dumps({"code": 40001, "http": 400, "error": "empty message"}).encode()
        return 200, json.dumps({"id": "abc", "event": "message", "topic": "suikou-alerts"}).encode()


def title_of(got: Received) -> str:
    """An ntfy Title header as ntfy reads it (RFC 2047 decoded)."""
    return str(make_header(decode_header(got.headers.get("title", ""))))


@contextmanager
def receiver(kind: str, secret: str | None = None) -> Iterator[Receiver]:
    fake = Receiver(kind, secret)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            parts = urlsplit(self.path)
            got = Received(
                parts.path,
                {k: v[0] for k, v in parse_qs(parts.query).items()},
                {k.lower(): v for k, v in self.headers.items()},
                self.rfile.read(length),
                time.time(),
            )
            with fake.lock:
                fake.received.append(got)
                scripted = fake.script.pop(0) if fake.script else None
            if scripted == "hang":
                time.sleep(fake.hang_s)
                return
            if scripted == "drip":
                self._drip(b'{"ok": true, "padding": "' + b"." * 40 + b'"}')
                return
            time.sleep(fake.delay_s)
            if isinstance(scripted, int):
                status, body = scripted, b'{"error": "scripted"}'
            else:
                status, body, taken = fake.reply(got)
                if taken:
                    with fake.lock:
                        fake.accepted.append(got)
            self.send_response(status)
            self.send_header("Content-Type", "application/json" if body.startswith(b"{") else "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _drip(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for i in range(len(body)):
                self.wfile.write(body[i : i + 1])
                self.wfile.flush()
                time.sleep(fake.drip_s)

        def log_message(self, *_args: Any) -> None:
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    fake.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
