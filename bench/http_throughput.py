"""Benchmark: HTTP throughput of a task query through Suikou vs. a bare FastAPI endpoint.

    .venv/bin/python bench/http_throughput.py                       # 16 clients, 3 rounds x 5 s
    .venv/bin/python bench/http_throughput.py --duration 10 --concurrency 32 --rounds 5

What it answers: how much of a request's cost is Suikou (auth, the routing pipeline, the SQL query,
rendering, SSE framing) and how much is the HTTP stack every FastAPI service pays anyway.

How:

1. A temporary SQLite database is seeded with ``--tasks`` (2,000) tasks for ``local``, the user of
   keyless mode, with deadlines spread around today (so "这周有什么要交的" matches some).
2. Suikou is started the way it is deployed: ``suikou serve`` (one uvicorn worker, offline model,
   the system clock) on 127.0.0.1, in a subprocess whose working directory is the temporary one
   (so no ``.env`` is read).
3. One non-streaming and one streaming answer to the query are captured from Suikou, and a bare
   FastAPI app is started in a second subprocess (this same file, ``--serve-bare``). For
   ``POST /v1/chat/completions`` it parses the JSON body and returns those exact bytes with the same
   headers (the stream event by event, from an async generator, as Suikou yields it). It runs on the
   same uvicorn, with the same log level (so both pay for the access log). Its replies are checked
   against the capture before measuring.
4. Both are driven by ``bench/loadgen.py``: N keep-alive connections on raw asyncio sockets, one
   request in flight per connection. An httpx (or aiohttp) client spends more CPU per request than a
   bare endpoint does, so with it the client saturates first and the "bare" number measures the
   client; the raw-socket generator costs a fraction of the server's work per request (its CPU per
   request is printed, to check). Client and servers share the machine: on 2 cores, the generator
   and the one-worker server each get about one.
5. Rounds alternate (non-streaming then streaming; Suikou first in odd rounds, the bare app first in
   even ones) so drift of the machine hits both alike. Per run: requests/s, p50/p99 latency (to the
   last byte), p50 time to the first body byte (streaming), the server's CPU seconds per request
   (utime+stime of the server process from /proc/<pid>/stat, all threads, before/after the run) and
   its RSS.
6. A burst: ``--burst`` (200) streaming queries opened at once, one per connection, against both:
   did every one get a 200 and a complete stream ending in ``[DONE]``, and p50/p99.

This is a benchmark, not a test: it prints numbers and asserts nothing about time. All traffic is
on 127.0.0.1; every loop is bounded; the subprocesses are stopped on exit, also on Ctrl-C, SIGTERM
or an error (and, on Linux, die with this process if it is killed outright).
"""

from __future__ import annotations

import argparse
import ctypes
import http.client
import json
import os
import platform
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request  # module level: FastAPI resolves the route's annotations here
from fastapi.responses import Response, StreamingResponse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.loadgen import proc_cpu_s, proc_mem_kb, run_load  # noqa: E402

CHAT_PATH = "/v1/chat/completions"
QUERY = "这周有什么要交的"
PLAIN_BODY = {"model": "suikou", "messages": [{"role": "user", "content": QUERY}]}
STREAM_BODY = {**PLAIN_BODY, "stream": True}
MODES: dict[str, dict[str, Any]] = {"non-streaming": PLAIN_BODY, "streaming": STREAM_BODY}
# Headers the server writes for itself; everything else in Suikou's reply is replayed.
OWN_HEADERS = {"date", "server", "content-length", "transfer-encoding", "connection", "keep-alive"}
STARTUP_TIMEOUT_S = 60.0
MAX_REQUESTS_PER_RUN = 1_000_000  # a bound; the run's duration is what ends it
TITLES = [
    "交季度报告",
    "回复合同审核意见",
    "体检预约",
    "写年度总结",
    "买猫粮",
    "报销打车票",
    "更新简历",
    "deploy",
    "invoice",
]


# ---------------------------------------------------------------------------------------------
# data


def seed_database(url: str, n: int, *, now: datetime, seed: int = 7) -> None:
    """A migrated database where the keyless user owns ``n`` tasks around ``now``."""
    import sqlalchemy as sa
    from sqlmodel import Session

    from core.accounts import LOCAL_USER, ensure_user
    from core.db import make_engine, migrate
    from core.models import Task
    from core.titlegrams import reindex_all

    rng = random.Random(seed)
    engine = make_engine(url)
    try:
        migrate(engine)
        with Session(engine) as session:
            user_id = ensure_user(session, LOCAL_USER, now=now).id
            session.commit()
        with engine.begin() as conn:
            conn.execute(sa.insert(Task), [_task_row(rng, user_id, i, now) for i in range(n)])
            reindex_all(conn)  # rows inserted behind the store's back need their title grams
        with engine.connect() as conn:
            conn.exec_driver_sql("ANALYZE")
    finally:
        engine.dispose()


def _task_row(rng: random.Random, user_id: int | None, i: int, now: datetime) -> dict[str, Any]:
    from core.titlegrams import match_key  # the folded title keyword search compares (tasks.title_key)

    group = rng.choices([1, 2, 3, 4], weights=[2, 4, 3, 1])[0]
    created = now - timedelta(minutes=rng.randrange(0, 90 * 24 * 60))
    deadline = now + timedelta(minutes=rng.randrange(-30 * 24 * 60, 60 * 24 * 60)) if rng.random() < 0.8 else None
    threshold = deadline - timedelta(hours=rng.randrange(1, 96)) if deadline and group in (2, 4) else None
    completed = rng.random() < 0.3
    title = f"{rng.choice(TITLES)} #{i}"
    return {
        "user_id": user_id,
        "title": title,
        "title_key": match_key(title),
        "priority_group": group,
        "deadline_at": deadline,
        "urgency_threshold_at": threshold,
        "is_completed": completed,
        "completed_at": created + (now - created) / 2 if completed else None,
        "created_at": created,
        "updated_at": created,
        "source_key": None,
    }


# ---------------------------------------------------------------------------------------------
# subprocesses


@dataclass
class Server:
    name: str
    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def pid(self) -> int:
        return self.proc.pid

    def cpu_s(self) -> float:
        return proc_cpu_s(self.pid)

    def rss_mb(self) -> tuple[float, float]:
        """(current, peak) resident set size, MiB."""
        mem = proc_mem_kb(self.pid)
        return mem["VmRSS"] / 1024, mem["VmHWM"] / 1024

    def log_errors(self) -> int:
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return sum(1 for line in text.splitlines() if "Traceback" in line or " ERROR " in line)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> None:
    """In the child, before exec: get SIGTERM when the benchmark dies (Linux), so nothing leaks."""
    with suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@contextmanager
def spawn(name: str, argv: list[str], *, env: dict[str, str], cwd: Path, port: int) -> Iterator[Server]:
    """Start a server process, wait for GET /healthz, and stop it (TERM, then KILL) on exit."""
    log = cwd / f"{name}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
        )
    server = Server(name, proc, port, log)
    try:
        wait_ready(server)
        yield server
    finally:
        stop(proc)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def wait_ready(server: Server) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"{server.name} exited with {server.proc.returncode}:\n{tail(server.log)}")
        try:
            status, _, _ = http_call(server.port, "GET", "/healthz", None, timeout=2)
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{server.name} did not answer /healthz within {STARTUP_TIMEOUT_S:.0f} s:\n{tail(server.log)}")


def tail(path: Path, lines: int = 30) -> str:
    return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])


def suikou_argv(port: int) -> list[str]:
    script = Path(sys.executable).with_name("suikou")  # the console script of this venv
    head = [str(script)] if script.exists() else [sys.executable, "-c", "from app.cli import main; main()"]
    return [*head, "serve", "--host", "127.0.0.1", "--port", str(port)]


def suikou_env(db_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUIKOU_")}
    env.update(
        SUIKOU_DATABASE_URL=db_url,
        SUIKOU_MODEL="offline",
        SUIKOU_TIMEZONE="Asia/Shanghai",
        PYTHONUNBUFFERED="1",
    )
    return env


def bare_argv(port: int, capture: Path) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--serve-bare", str(capture), "--port", str(port)]


# ---------------------------------------------------------------------------------------------
# capture and replay


def http_call(
    port: int, method: str, path: str, body: dict[str, Any] | None, *, timeout: float = 30
) -> tuple[int, dict[str, str], bytes]:
    """One request on a fresh connection: (status, lower-cased headers, de-chunked body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        raw = json.dumps(body, ensure_ascii=False).encode() if body is not None else None
        conn.request(method, path, body=raw, headers={"Content-Type": "application/json"} if raw else {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def capture_reply(port: int, body: dict[str, Any]) -> dict[str, Any]:
    """Suikou's reply to ``body``: replayable headers, and the body as SSE events or one piece."""
    status, headers, data = http_call(port, "POST", CHAT_PATH, body)
    if status != 200:
        raise RuntimeError(f"Suikou answered {status}: {data[:500]!r}")
    pieces = [data]
    if body.get("stream"):
        parts = data.split(b"\n\n")
        if parts[-1] != b"" or not data.endswith(b"data: [DONE]\n\n"):
            raise RuntimeError(f"unexpected SSE body: {data[-200:]!r}")
        pieces = [p + b"\n\n" for p in parts[:-1]]
    replay_headers = {k: v for k, v in headers.items() if k not in OWN_HEADERS}
    return {"headers": replay_headers, "pieces": [p.decode("utf-8") for p in pieces]}


def check_replay(bare_port: int, capture: dict[str, dict[str, Any]]) -> None:
    """The bare app must give byte-identical bodies and the same content-type."""
    for mode, body in MODES.items():
        status, headers, data = http_call(bare_port, "POST", CHAT_PATH, body)
        want = capture[mode]
        if status != 200 or data != "".join(want["pieces"]).encode("utf-8"):
            raise RuntimeError(f"bare {mode} reply differs from the capture ({status})")
        if headers.get("content-type") != want["headers"].get("content-type"):
            raise RuntimeError(f"bare {mode} content-type {headers.get('content-type')!r} differs")


def answer_text(plain: dict[str, Any]) -> str:
    reply = json.loads("".join(plain["pieces"]))
    return str(reply["choices"][0]["message"]["content"])


def serve_bare(capture_path: Path, port: int) -> None:
    """The bare app: POST /v1/chat/completions replays the captured bytes; GET /healthz."""
    import uvicorn

    capture = json.loads(capture_path.read_text(encoding="utf-8"))
    plain, stream = capture["non-streaming"], capture["streaming"]
    plain_bytes = "".join(plain["pieces"]).encode("utf-8")
    events = [p.encode("utf-8") for p in stream["pieces"]]
    app = FastAPI()

    async def replay() -> AsyncIterator[bytes]:
        for event in events:
            yield event

    @app.post(CHAT_PATH)
    async def chat(request: Request) -> Response:
        body = json.loads(await request.body())
        if body.get("stream"):
            return StreamingResponse(replay(), headers=stream["headers"])
        return Response(plain_bytes, headers=plain["headers"])

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info")  # as `suikou serve` runs it


# ---------------------------------------------------------------------------------------------
# measuring


@dataclass
class Run:
    rps: float
    ok: int
    errors: int
    wall_s: float
    p50_ms: float
    p99_ms: float
    ttfb_p50_ms: float
    server_cpu_s: float
    client_cpu_ms_per_req: float
    mean_bytes: float


@dataclass
class Series:
    runs: list[Run] = field(default_factory=list)

    @property
    def rps(self) -> float:
        return sum(r.ok for r in self.runs) / sum(r.wall_s for r in self.runs)

    @property
    def cpu_ms_per_req(self) -> float:
        return sum(r.server_cpu_s for r in self.runs) * 1000 / max(1, sum(r.ok for r in self.runs))

    def median(self, attr: str) -> float:
        return statistics.median(getattr(r, attr) for r in self.runs)


def measure(server: Server, body: dict[str, Any], *, conc: int, duration: float) -> Run:
    cpu0 = server.cpu_s()
    res = run_load(server.port, [body], path=CHAT_PATH, conc=conc, max_n=MAX_REQUESTS_PER_RUN, max_t=duration)
    cpu = server.cpu_s() - cpu0
    return Run(
        rps=res["rps"],
        ok=res["ok"],
        errors=res["errors"],
        wall_s=res["wall_s"],
        p50_ms=res["p50_ms"] or float("nan"),
        p99_ms=res["p99_ms"] or float("nan"),
        ttfb_p50_ms=res["ttfb_p50_ms"] or float("nan"),
        server_cpu_s=cpu,
        client_cpu_ms_per_req=res["client_cpu_ms_per_req"],
        mean_bytes=res["mean_bytes"],
    )


def run_rounds(servers: list[Server], *, rounds: int, conc: int, duration: float) -> dict[tuple[str, str], Series]:
    results = {(mode, s.name): Series() for mode in MODES for s in servers}
    print(
        f"\n{'round':<6}{'mode':<15}{'server':<8}{'req/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'ttfb p50':>10}"
        f"{'srv CPU ms/req':>16}{'client CPU ms/req':>19}{'errors':>8}{'bytes':>7}"
    )
    for r in range(1, rounds + 1):
        order = servers if r % 2 else servers[::-1]
        for mode, body in MODES.items():
            for server in order:
                run = measure(server, body, conc=conc, duration=duration)
                results[(mode, server.name)].runs.append(run)
                print(
                    f"{r:<6}{mode:<15}{server.name:<8}{run.rps:>8.0f}{run.p50_ms:>9.1f}{run.p99_ms:>9.1f}"
                    f"{run.ttfb_p50_ms:>10.1f}{run.server_cpu_s * 1000 / max(1, run.ok):>16.2f}"
                    f"{run.client_cpu_ms_per_req:>19.3f}{run.errors:>8}{run.mean_bytes:>7.0f}",
                    flush=True,
                )
    return results


def print_summary(results: dict[tuple[str, str], Series], servers: list[Server]) -> None:
    print(
        "\nSummary (req/s: all requests / all wall time; p50, p99, ttfb: median over rounds; "
        "CPU: server CPU seconds / requests, all rounds)"
    )
    print(f"{'mode':<15}{'server':<8}{'req/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'ttfb p50':>10}{'srv CPU ms/req':>16}")
    for mode in MODES:
        for s in servers:
            series = results[(mode, s.name)]
            print(
                f"{mode:<15}{s.name:<8}{series.rps:>8.0f}{series.median('p50_ms'):>9.1f}"
                f"{series.median('p99_ms'):>9.1f}{series.median('ttfb_p50_ms'):>10.1f}{series.cpu_ms_per_req:>16.2f}"
            )
    print("\nSuikou / bare:")
    for mode in MODES:
        suikou, bare = results[(mode, "suikou")], results[(mode, "bare")]
        print(
            f"  {mode:<15} req/s x{suikou.rps / bare.rps:.3f} ({bare.rps / suikou.rps:.1f}x fewer);"
            f"  CPU per request x{suikou.cpu_ms_per_req / bare.cpu_ms_per_req:.1f}"
        )
    print("\nServer memory after the rounds (RSS now / peak):")
    for s in servers:
        now, peak = s.rss_mb()
        print(f"  {s.name:<8}{now:>7.1f} MiB / {peak:.1f} MiB")


def burst(server: Server, n: int) -> None:
    """``n`` streaming queries opened at once, one per connection."""
    cpu0 = server.cpu_s()
    res = run_load(server.port, [STREAM_BODY], path=CHAT_PATH, conc=n, max_n=n, max_t=120.0, keep_bodies=True)
    cpu = server.cpu_s() - cpu0
    complete = sum(1 for b in res["bodies"] if b.endswith(b"data: [DONE]\n\n"))
    verdict = "all succeeded" if res["ok"] == n and complete == n else "NOT all succeeded"
    _, peak = server.rss_mb()
    print(
        f"  {server.name:<8}{verdict}: {res['ok']}/{n} status 200, {complete}/{n} complete streams, "
        f"{res['errors']} errors; wall {res['wall_s']:.2f} s; p50 {res['p50_ms']:.0f} ms, "
        f"p99 {res['p99_ms']:.0f} ms, ttfb p50 {res['ttfb_p50_ms']:.0f} ms; "
        f"server CPU {cpu * 1000 / max(1, res['ok']):.2f} ms/req; peak RSS {peak:.1f} MiB"
    )


def warm_up(servers: list[Server], *, conc: int, seconds: float) -> None:
    for server in servers:
        for body in MODES.values():
            run_load(server.port, [body], path=CHAT_PATH, conc=conc, max_n=MAX_REQUESTS_PER_RUN, max_t=seconds)


# ---------------------------------------------------------------------------------------------
# main


def environment_line(args: argparse.Namespace) -> str:
    import fastapi
    import uvicorn

    loop = "uvloop" if _has("uvloop") else "asyncio"
    parser = "httptools" if _has("httptools") else "h11"
    return (
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, FastAPI {fastapi.__version__}, "
        f"uvicorn {uvicorn.__version__} ({loop} loop, {parser}); {args.concurrency} clients, "
        f"{args.rounds} rounds x {args.duration:g} s per mode and server"
    )


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def benchmark(args: argparse.Namespace, tmp: Path, stack: ExitStack) -> None:
    print(f"Suikou HTTP throughput: {environment_line(args)}", flush=True)
    db_url = f"sqlite:///{tmp / 'bench.db'}"
    seed_database(db_url, args.tasks, now=datetime.now(UTC))
    print(f"Seeded {args.tasks:,} tasks for the keyless user 'local' in a temporary SQLite database")

    port = free_port()
    suikou = stack.enter_context(spawn("suikou", suikou_argv(port), env=suikou_env(db_url), cwd=tmp, port=port))
    capture = {mode: capture_reply(suikou.port, body) for mode, body in MODES.items()}
    capture_path = tmp / "capture.json"
    capture_path.write_text(json.dumps(capture, ensure_ascii=False), encoding="utf-8")
    plain_len = len("".join(capture["non-streaming"]["pieces"]).encode())
    stream_len = len("".join(capture["streaming"]["pieces"]).encode())
    print(
        f"Captured from Suikou: non-streaming {plain_len:,} B ({capture['non-streaming']['headers']['content-type']}), "
        f"streaming {stream_len:,} B in {len(capture['streaming']['pieces'])} events "
        f"({capture['streaming']['headers']['content-type']})"
    )
    print(f"Query {QUERY!r}, answer's first line: {answer_text(capture['non-streaming']).splitlines()[0]!r}")

    port = free_port()
    bare = stack.enter_context(spawn("bare", bare_argv(port, capture_path), env=dict(os.environ), cwd=tmp, port=port))
    check_replay(bare.port, capture)
    print("Bare app replies byte-identical to the capture (body and content-type)", flush=True)

    servers = [suikou, bare]
    warm_up(servers, conc=args.concurrency, seconds=args.warmup)
    results = run_rounds(servers, rounds=args.rounds, conc=args.concurrency, duration=args.duration)
    print_summary(results, servers)

    print(f"\nBurst: {args.burst} streaming queries at once, one connection each")
    for server in servers:
        burst(server, args.burst)
    for server in servers:
        print(f"  {server.name} log: {server.log_errors()} error lines")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per run (default 5)")
    parser.add_argument("--concurrency", type=int, default=16, help="concurrent keep-alive clients (default 16)")
    parser.add_argument("--rounds", type=int, default=3, help="alternated rounds (default 3)")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of warm-up per mode and server")
    parser.add_argument("--tasks", type=int, default=2000, help="tasks to seed (default 2000)")
    parser.add_argument("--burst", type=int, default=200, help="concurrent streaming queries in the burst")
    parser.add_argument("--serve-bare", type=Path, metavar="CAPTURE", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    for name in ("duration", "concurrency", "rounds", "tasks", "burst"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name} must be positive")
    return args


def _terminate(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds through the ExitStack, which stops the servers


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve_bare is not None:
        serve_bare(args.serve_bare, args.port)
        return 0
    signal.signal(signal.SIGTERM, _terminate)
    with tempfile.TemporaryDirectory(prefix="suikou-http-bench-") as tmp, ExitStack() as stack:
        try:
            benchmark(args, Path(tmp), stack)
        except KeyboardInterrupt:
            print("\ninterrupted; stopping the servers", file=sys.stderr)
            return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
