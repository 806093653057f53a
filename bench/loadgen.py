"""A tiny keep-alive HTTP/1.1 load generator on raw asyncio streams (cheap per request, so the client
is not what limits the measurement). A copy of the team's shared tool, so that bench/http_throughput.py
depends on nothing outside this repository; only this docstring, ruff's formatting and a redundant int()
in pct() differ.

run_load(port, bodies, path=..., conc=16, max_n=..., max_t=...) -> dict with per-request latency
(time to last byte) and time to first body byte, status counts, bytes, client CPU.
Bounded in count (max_n) and time (max_t)."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import time


def request_bytes(port: int, path: str, body: dict) -> bytes:
    raw = json.dumps(body, ensure_ascii=False).encode()
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(raw)}\r\nConnection: keep-alive\r\n\r\n"
    ).encode()
    return head + raw


async def _one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, req: bytes) -> tuple[int, float, int, bytes]:
    t0 = time.perf_counter()
    writer.write(req)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    lower = head.lower()
    ttfb = None
    body = bytearray()
    if b"transfer-encoding: chunked" in lower:
        while True:
            line = await reader.readuntil(b"\r\n")
            size = int(line.strip().split(b";")[0], 16)
            if ttfb is None:
                ttfb = time.perf_counter() - t0
            if size == 0:
                await reader.readuntil(b"\r\n")
                break
            data = await reader.readexactly(size + 2)
            body += data[:-2]
    else:
        i = lower.find(b"content-length:")
        n = int(lower[i + 15 : lower.find(b"\r\n", i)].strip())
        body += await reader.readexactly(n)
        ttfb = time.perf_counter() - t0
    return status, ttfb or 0.0, len(body), bytes(body)


async def _worker(port, reqs, state, out, keep_bodies):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while True:
            i = state["next"]
            if i >= state["max_n"] or time.perf_counter() > state["deadline"]:
                return
            state["next"] = i + 1
            req = reqs[i % len(reqs)]
            t0 = time.perf_counter()
            try:
                status, ttfb, nbytes, body = await _one(reader, writer, req)
            except (asyncio.IncompleteReadError, ConnectionError) as exc:
                out.append((time.perf_counter() - t0, 0.0, -1, 0, repr(exc).encode()))
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                continue
            out.append((time.perf_counter() - t0, ttfb, status, nbytes, body if keep_bodies else b""))
    finally:
        writer.close()


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))]


async def run_load_async(
    port, bodies, *, path="/v1/chat/completions", conc=16, max_n=2000, max_t=20.0, keep_bodies=False
):
    reqs = [request_bytes(port, path, b) for b in bodies]
    out: list = []
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    state = {"next": 0, "max_n": max_n, "deadline": time.perf_counter() + max_t}
    t0 = time.perf_counter()
    await asyncio.gather(*[_worker(port, reqs, state, out, keep_bodies) for _ in range(conc)])
    wall = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    ok = [o for o in out if o[2] == 200]
    lat = [o[0] * 1000 for o in ok]
    ttfb = [o[1] * 1000 for o in ok]
    return {
        "n": len(out),
        "ok": len(ok),
        "errors": len(out) - len(ok),
        "wall_s": wall,
        "rps": len(ok) / wall if wall else 0.0,
        "p50_ms": pct(lat, 50) if lat else None,
        "p99_ms": pct(lat, 99) if lat else None,
        "ttfb_p50_ms": pct(ttfb, 50) if ttfb else None,
        "mean_bytes": statistics.mean(o[3] for o in ok) if ok else 0,
        "client_cpu_ms_per_req": ((ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime))
        * 1000
        / max(1, len(out)),
        "bodies": [o[4] for o in out] if keep_bodies else None,
    }


def run_load(port, bodies, **kw):
    return asyncio.run(run_load_async(port, bodies, **kw))


def proc_cpu_s(pid: int) -> float:
    """utime+stime of a process (all threads), seconds."""
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(parts[11]) + int(parts[12])) / tick


def proc_mem_kb(pid: int) -> dict[str, int]:
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                k, v = line.split(":")
                out[k] = int(v.split()[0])
    return out
