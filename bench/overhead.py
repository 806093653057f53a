"""Benchmark: where a task query's CPU goes outside the store, in-process.

    .venv/bin/python bench/overhead.py                    # ~0.5 s per component, ~30 s in all
    .venv/bin/python bench/overhead.py --seconds 1 --profile 2000

What it answers: of one non-streaming task query ("这周有什么要交的", offline model, a fixed
``now``, SQLite with 2,000 tasks for the keyless user, seeded as bench/http_throughput.py does),
how many microseconds go to each layer: FastAPI and Suikou's middleware and dependencies, the
chat pipeline (aux check, router, the task-query graph), the store, pydantic-graph's own
machinery, thread hops, the request's JSON log line and the JSON encoding of the response.
Everything runs in this process, on one asyncio loop, with no socket: requests go through the
ASGI interface directly (a scope, ``receive`` and ``send`` built here, as uvicorn's h11 protocol
builds them), so neither an HTTP client nor uvicorn's parsing and access log are in the numbers
(bench/http_throughput.py measures those).

Each component is called repeatedly for ``--seconds`` after a warm-up, in batches of ~10 ms; the
tables show the median over batches of the wall time per call (``time.perf_counter``) and of the
process CPU time per call (``time.process_time``: all threads of this process, so the store's
worker thread counts), and the share of the whole request's CPU time (the first row; CPU
rather than wall because other processes on the machine inflate wall time, not this process's
CPU). Indented rows are parts of the row above them; "derived" rows are differences of measured
rows; "+ make_job" marks rows that build a fresh turn per call (a few µs, the row of its own).
Logging is configured as ``suikou serve`` configures it (INFO, one JSON line per chat request),
writing to /dev/null.

How the parts are isolated:

- pydantic-graph: the task-query graph's own node classes driven by a plain ``while`` loop
  (``node = await node.run(ctx)`` until ``End``; checked to give the same answer) against
  ``handle_task_query``; and, as a cross-check and for the per-node/per-run cost, trivial graphs
  built with the same ``GraphBuilder`` API as taskquery/graph.py (a start step, then no-op
  ``BaseNode`` classes chained through their ``run`` return annotations) against awaiting as
  many no-op coroutines.
- FastAPI: a one-route app (``GET /ping`` returning a dict) against a bare ASGI callable; the same
  route with two sync or two async dependencies (FastAPI runs a sync dependency on a worker
  thread); a route shaped like Suikou's chat route (its middleware, dependencies and headers)
  that answers canned bytes, with Suikou's dependencies and with async copies of them; Suikou's
  ``/healthz``. The thread hops of one real task query are counted (by wrapping
  ``anyio.to_thread.run_sync`` for one request) and named.
- The log line and the response's JSON: ``app.turns.log_request`` on a finished turn, with INFO
  enabled and disabled, ``json.dumps`` of its record alone, and ``JSONResponse`` of the body.

``--profile N``: cProfile of N whole requests through the ASGI call: the top 25 functions by
tottime, tottime by package, and Suikou's own functions by cumulative time.

This is a benchmark, not a test: it prints numbers and asserts only that the requests succeed.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import io
import json
import logging
import os
import platform
import pstats
import statistics
import sys
import tempfile
import time
import types
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Annotated, Any

import anyio
import anyio.to_thread
from fastapi import Depends, FastAPI, Header, Request
from fastapi.responses import Response

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.deps import (  # noqa: E402
    CurrentUser,
    StateDep,
    TimezoneDep,
)
from bench.http_throughput import QUERY, seed_database  # noqa: E402

NOW = datetime(2026, 3, 10, 1, 0, tzinfo=UTC)  # a Tuesday, 09:00 in Shanghai
TZ = "Asia/Shanghai"
TASKS = 2000
CHAT_PATH = "/v1/chat/completions"
BODY = json.dumps({"model": "suikou", "messages": [{"role": "user", "content": QUERY}]}, ensure_ascii=False).encode()
STREAM_BODY = json.dumps(
    {"model": "suikou", "messages": [{"role": "user", "content": QUERY}], "stream": True}, ensure_ascii=False
).encode()
QUERY_GRAPH_NODES = 5  # plan, quadrant, time_anchor, tool_query, reflect (plus the start step)
GRAPH_SIZES = (1, QUERY_GRAPH_NODES, 20)


# ---------------------------------------------------------------------------------------------
# timing


@dataclass
class Measured:
    wall_us: float  # median over batches of the mean wall time per call
    cpu_us: float  # median over batches of the mean process CPU time per call
    calls: int


Call = Callable[[], Any]


async def measure(fn: Call, *, is_async: bool, seconds: float) -> Measured:
    """Call ``fn`` (awaiting it when ``is_async``) in batches of ~10 ms for about ``seconds``."""

    async def batch(k: int) -> tuple[float, float]:
        c0, t0 = time.process_time(), time.perf_counter()
        if is_async:
            for _ in range(k):
                await fn()
        else:
            for _ in range(k):
                fn()
        return time.perf_counter() - t0, time.process_time() - c0

    gc.collect()
    one, _ = await batch(1)  # warm-up
    one, _ = await batch(3)
    k = max(1, int(0.010 / max(one / 3, 1e-7)))
    walls: list[float] = []
    cpus: list[float] = []
    started = time.perf_counter()
    while len(walls) < 5 or time.perf_counter() - started < seconds:
        wall, cpu = await batch(k)
        walls.append(wall / k * 1e6)
        cpus.append(cpu / k * 1e6)
    return Measured(statistics.median(walls), statistics.median(cpus), k * len(walls))


@dataclass
class Row:
    name: str
    depth: int
    wall_us: float
    cpu_us: float
    note: str = ""
    derived: bool = False


@dataclass
class Table:
    rows: list[Row] = field(default_factory=list)

    def add(self, name: str, depth: int, m: Measured, note: str = "") -> Measured:
        self.rows.append(Row(name, depth, m.wall_us, m.cpu_us, note))
        print(f"  measured {name.strip():<70} {m.wall_us:>9.1f} µs  ({m.calls} calls)", flush=True)
        return m

    def derive(self, name: str, depth: int, wall_us: float, cpu_us: float, note: str = "") -> None:
        self.rows.append(Row(name, depth, wall_us, cpu_us, note, derived=True))

    def diff(
        self, name: str, depth: int, a: Measured, *minus: Measured, scale: float = 1.0, note: str = ""
    ) -> Measured:
        """A derived row: ``(a - sum(minus)) * scale``; returned as a Measured (calls 0)."""
        wall = (a.wall_us - sum(x.wall_us for x in minus)) * scale
        cpu = (a.cpu_us - sum(x.cpu_us for x in minus)) * scale
        self.derive(name, depth, wall, cpu, note)
        return Measured(wall, cpu, 0)

    def print(self, whole: Measured, title: str) -> None:
        print(f"\n{title}")
        width = max(len("  " * r.depth + r.name) for r in self.rows) + 2
        print(f"{'component':<{width}}{'wall µs':>10}{'CPU µs':>10}{'share':>8}  note (share: of the CPU time)")
        for r in self.rows:
            label = "  " * r.depth + r.name
            share = f"{100 * r.cpu_us / whole.cpu_us:.1f}%"
            note = ("derived; " if r.derived else "") + r.note
            print(f"{label:<{width}}{r.wall_us:>10.1f}{r.cpu_us:>10.1f}{share:>8}  {note}".rstrip())


# ---------------------------------------------------------------------------------------------
# direct ASGI calls


def http_scope(method: str, path: str, body: bytes) -> dict[str, Any]:
    """The scope uvicorn's h11 protocol builds for such a request (without the socket)."""
    headers = [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"bench"), (b"accept", b"*/*")]
    if body:
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "scheme": "http",
        "method": method,
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": headers,
        "state": {},
    }


@dataclass
class Reply:
    status: int = 0
    body: bytearray = field(default_factory=bytearray)


def asgi_caller(app: Any, method: str, path: str, body: bytes = b"") -> Callable[[], Awaitable[Reply]]:
    """A no-argument coroutine function: one request through ``app``'s ASGI interface."""
    template = http_scope(method, path, body)

    async def call() -> Reply:
        scope = dict(template, headers=list(template["headers"]), state={})
        reply = Reply()
        done = asyncio.Event()
        sent_body = False

        async def receive() -> dict[str, Any]:
            nonlocal sent_body
            if not sent_body:
                sent_body = True
                return {"type": "http.request", "body": body, "more_body": False}
            await done.wait()  # as a server does: the disconnect comes only after the response
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                reply.status = message["status"]
            elif message["type"] == "http.response.body":
                reply.body += message.get("body", b"")
                if not message.get("more_body", False):
                    done.set()

        await app(scope, receive, send)
        return reply

    return call


async def floor_app(scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send: Callable[..., Any]) -> None:
    """The cheapest ASGI app: the cost of the harness itself."""
    await receive()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b'{"status":"ok"}'})


def _sync_dep() -> str:
    return "ok"


async def _async_dep() -> str:
    return "ok"


def bare_app() -> FastAPI:
    """One-route FastAPI app, plus the same route with two sync or two async dependencies."""
    app = FastAPI()

    @app.get("/ping")
    async def ping() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/sync-deps")
    async def sync_deps(
        a: Annotated[str, Depends(_sync_dep)], b: Annotated[str, Depends(_sync_dep, use_cache=False)]
    ) -> dict[str, str]:
        return {"status": a + b}

    @app.get("/async-deps")
    async def async_deps(
        a: Annotated[str, Depends(_async_dep)], b: Annotated[str, Depends(_async_dep, use_cache=False)]
    ) -> dict[str, str]:
        return {"status": a + b}

    return app


# A route shaped like Suikou's chat route (the same middleware, dependencies and headers) that
# answers canned bytes: the HTTP layer alone. Module level: FastAPI resolves the annotations here.


async def chat_like_suikou(
    request: Request,
    state: StateDep,
    user: CurrentUser,
    tz: TimezoneDep,
    x_client_message_id: Annotated[str | None, Header()] = None,
) -> Response:
    await request.body()
    return Response(request.app.state.canned, media_type="application/json")


def chat_shaped_app(state: Any, canned: bytes, endpoint: Callable[..., Awaitable[Response]]) -> FastAPI:
    """Suikou's middleware and error handlers around one chat-shaped route that answers ``canned``."""
    from functools import partial

    from app.errors import BodyGate, ErrorBoundary, install_error_handlers
    from app.main import body_limit

    app = FastAPI()
    app.state.suikou = state
    app.state.canned = canned
    install_error_handlers(app)
    app.post(CHAT_PATH, response_model=None)(endpoint)
    app.add_middleware(BodyGate, limit_for=partial(body_limit, state.settings))
    app.add_middleware(ErrorBoundary)
    return app


@contextmanager
def counting_thread_hops() -> Iterator[list[str]]:
    """Records every ``anyio.to_thread.run_sync`` (FastAPI's sync dependencies, the store) by function."""
    hops: list[str] = []
    original = anyio.to_thread.run_sync

    async def counted(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        inner = getattr(func, "func", func)  # functools.partial (Starlette's run_in_threadpool)
        hops.append(f"{getattr(inner, '__module__', '?')}.{getattr(inner, '__qualname__', repr(inner))}")
        return await original(func, *args, **kwargs)

    anyio.to_thread.run_sync = counted  # type: ignore[assignment]
    try:
        yield hops
    finally:
        anyio.to_thread.run_sync = original


# ---------------------------------------------------------------------------------------------
# pydantic-graph


def _noop_run(nxt: type[Any] | None, target: Any) -> Callable[..., Awaitable[Any]]:
    """A node's ``run``: return the next node (or End), annotated so the builder sees the edge."""
    from pydantic_graph import End, GraphRunContext

    async def run(self: Any, ctx: Any) -> Any:
        return End(None) if nxt is None else nxt()

    run.__annotations__ = {"ctx": GraphRunContext[None, None], "return": target}
    return run


def _noop_node(name: str, run: Callable[..., Awaitable[Any]]) -> type[Any]:
    from pydantic_graph import BaseNode

    def body(ns: dict[str, Any]) -> None:
        ns.update(run=run, __module__=__name__)

    return dataclass(types.new_class(name, (BaseNode[None, None, None],), {}, body))


def noop_chain_graph(n: int) -> Any:
    """A start step then ``n`` no-op ``BaseNode`` classes, wired as taskquery/graph.py wires its nodes."""
    from pydantic_graph import End, GraphBuilder, StepContext

    classes: list[type[Any]] = []
    target: Any = End[None]
    nxt: type[Any] | None = None
    for i in reversed(range(n)):
        nxt = _noop_node(f"Noop{i}", _noop_run(nxt, target))
        classes.append(nxt)
        target = nxt
    classes.reverse()
    head = classes[0]

    async def start(ctx: StepContext) -> Any:
        return head()

    start.__annotations__["return"] = head
    g = GraphBuilder(
        name=f"noop_{n}", state_type=type(None), deps_type=type(None), output_type=type(None), auto_instrument=False
    )
    g.add(*[g.node(c) for c in classes], g.edge_from(g.start_node).to(g.step(start)))
    return g.build()


async def noop() -> None:
    return None


def awaits(n: int) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        for _ in range(n + 1):  # the start step and n nodes
            await noop()

    return run


# ---------------------------------------------------------------------------------------------
# the service


@dataclass
class Service:
    app: FastAPI
    state: Any
    user_id: int


def configure_logging() -> Any:
    """As `suikou serve` does (app/cli.py), to /dev/null: the handler formats and writes each line."""
    sink = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - open for the whole run
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sink, force=True)
    return sink


def build_service(tmp: Path) -> Service:
    from sqlmodel import Session

    from app.main import create_app
    from app.settings import Settings
    from app.state import build_state
    from core.accounts import LOCAL_USER, ensure_user

    url = f"sqlite:///{tmp / 'bench.db'}"
    seed_database(url, TASKS, now=NOW)
    settings = Settings(_env_file=None, database_url=url, model="offline", timezone=TZ)  # type: ignore[call-arg]
    state = build_state(settings, clock=lambda: NOW)
    with Session(state.engine) as session:
        user = ensure_user(session, LOCAL_USER)
        session.commit()
        assert user.id is not None
        user_id = user.id
    return Service(create_app(settings, state=state), state, user_id)


async def run(args: argparse.Namespace) -> None:
    import fastapi
    import starlette
    from pydantic_graph import End, GraphRunContext

    from app.turns import complete, log_request, make_job, request_record
    from app.wire import ResponseIds, completion_body, message_texts, parse_chat_request
    from core.store import query_tasks
    from route.aux import classify_aux
    from taskquery import steps
    from taskquery.graph import Plan, task_query_graph
    from taskquery.handler import handle_task_query
    from taskquery.rendering import render_answer
    from taskquery.state import QueryDeps, QueryState

    sink = configure_logging()
    seconds = args.seconds
    with tempfile.TemporaryDirectory(prefix="suikou-overhead-") as tmp:
        svc = build_service(Path(tmp))
        app, state = svc.app, svc.state
        print(
            f"Python {platform.python_version()}, FastAPI {fastapi.__version__}, Starlette {starlette.__version__}, "
            f"pydantic-graph {version('pydantic-graph')}, anyio {version('anyio')}; "
            f"{os.cpu_count()} CPUs; asyncio loop; {TASKS:,} tasks (SQLite); query {QUERY!r}; now {NOW.isoformat()}"
        )
        async with app.router.lifespan_context(app):
            chat = asgi_caller(app, "POST", CHAT_PATH, BODY)
            chat_stream = asgi_caller(app, "POST", CHAT_PATH, STREAM_BODY)
            healthz = asgi_caller(app, "GET", "/healthz")
            bare = bare_app()
            ping = asgi_caller(bare, "GET", "/ping")
            sync_deps = asgi_caller(bare, "GET", "/sync-deps")
            async_deps = asgi_caller(bare, "GET", "/async-deps")
            floor = asgi_caller(floor_app, "GET", "/ping")

            # One of each, checked, before anything is timed.
            checks = [("chat", chat), ("stream", chat_stream), ("healthz", healthz), ("ping", ping)]
            for name, call in [*checks, ("sync-deps", sync_deps), ("async-deps", async_deps)]:
                reply = await call()
                if reply.status != 200:
                    raise SystemExit(f"{name}: status {reply.status}: {bytes(reply.body[:500])!r}")
            reply = await chat()
            content = json.loads(bytes(reply.body))
            answer = content["choices"][0]["message"]["content"]
            request = parse_chat_request("application/json", BODY)
            messages = message_texts(
                request, max_chars=state.settings.max_message_chars, max_messages=state.settings.max_messages
            )

            def new_job() -> Any:
                return make_job(state, request, messages, user_id=svc.user_id, tz=TZ, client_message_id=None)

            outcome = await state.pipeline.run(new_job().turn)
            if outcome.action != "task_query":
                raise SystemExit(f"the query was routed to {outcome.action!r}, not task_query")
            with counting_thread_hops() as hops:
                await chat()
            counted = sorted(set(hops), key=hops.index)
            print(f"Thread hops in one task query: {len(hops)} ({', '.join(f'{hops.count(h)}x {h}' for h in counted)})")
            print(
                f"Response {len(reply.body):,} B, {len(content.get('suikou_events', []))} stage events; route "
                f"{outcome.action}; answer's first line: {answer.splitlines()[0]!r}"
            )

            # The graph's parts, on a state the steps fill in as the graph would.
            async def prepared_state() -> tuple[QueryState, Any]:
                turn = new_job().turn
                st = QueryState(sentence=turn.text, now=turn.now, tz=turn.tz, locale=turn.locale)
                await steps.plan_step(st, turn)
                steps.quadrant_step(st)
                steps.time_anchor_step(st, turn)
                return st, turn

            qstate, _ = await prepared_state()
            flt = qstate.filter
            assert flt is not None
            print(f"Filter: {flt.model_dump(exclude_defaults=True, mode='json')}")

            async def plan_steps() -> None:
                await prepared_state()

            async def run_query() -> None:
                await steps.run_query(new_job().turn, flt, NOW)

            def store_in_thread() -> None:
                with state.session() as session:
                    query_tasks(session, svc.user_id, flt, now=NOW)

            async def thread_hop() -> None:
                await anyio.to_thread.run_sync(noop_sync)

            reflect_state, reflect_turn = await prepared_state()
            reflect_state.page = await steps.run_query(reflect_turn, flt, NOW)

            async def reflect_render() -> None:
                turn = new_job().turn
                await steps.reflect_step(reflect_state, turn)
                assert reflect_state.page is not None and reflect_state.prefix is not None
                render_answer(
                    reflect_state.prefix, reflect_state.page, TZ, offset=0, now=NOW, locale=reflect_state.locale
                )

            async def graph_run() -> None:
                await handle_task_query(new_job().turn)

            async def pipeline_run() -> None:
                await state.pipeline.run(new_job().turn)

            async def router_decide() -> None:
                await state.pipeline.router.decide(new_job().turn)

            def aux() -> None:
                classify_aux(messages, request_extras=request.extras())

            async def complete_call() -> None:
                await complete(new_job(), ResponseIds(request.model))

            def parse() -> None:
                body = parse_chat_request("application/json", BODY)
                message_texts(
                    body, max_chars=state.settings.max_message_chars, max_messages=state.settings.max_messages
                )

            # A finished turn, for the log line and the response body.
            done_job = new_job()
            done_outcome = await state.pipeline.run(done_job.turn)
            done_ids = ResponseIds(request.model)
            trace = done_job.turn.trace

            def log_line() -> None:
                log_request(done_job.turn, done_outcome)

            def log_json_only() -> None:
                json.dumps(request_record(done_job.turn, done_outcome), ensure_ascii=False)

            def body_build() -> dict[str, Any]:
                reasoning = "".join(e.as_line() for e in trace.events)
                return completion_body(done_ids, done_outcome.content, reasoning, trace.events, trace.usage)

            response_body = body_build()

            def encode_response() -> None:
                from fastapi.responses import JSONResponse

                JSONResponse(response_body)

            graphs = {n: noop_chain_graph(n) for n in GRAPH_SIZES}
            for graph in graphs.values():
                await graph.run(state=None, deps=None, inputs=None)

            def graph_call(n: int) -> Callable[[], Awaitable[Any]]:
                graph = graphs[n]

                async def call() -> Any:
                    return await graph.run(state=None, deps=None, inputs=None)

                return call

            task_query_graph()  # built once, cached, as in the service

            async def nodes_loop() -> str:
                """handle_task_query's work with the graph's own nodes run in a plain loop."""
                turn = new_job().turn
                st = QueryState(sentence=turn.text, now=turn.now, tz=turn.tz, locale=turn.locale)
                ctx = GraphRunContext(state=st, deps=QueryDeps(turn))
                node: Any = Plan()
                while not isinstance(node, End):
                    node = await node.run(ctx)
                answer: str = node.data
                turn.trace.notes.update(
                    retries=st.retries, broadened=st.broadened, total=st.page.total if st.page else None
                )
                turn.on_content(answer)
                return answer

            if await nodes_loop() != (await handle_task_query(new_job().turn)).text:
                raise SystemExit("the nodes run in a plain loop answer differently from the graph")

            async def m(fn: Call, is_async: bool = True) -> Measured:
                return await measure(fn, is_async=is_async, seconds=seconds)

            print(f"\nMeasuring (~{seconds:g} s each)...")
            # References first: the main table uses some of them.
            f = Table()
            floor_m = f.add("raw ASGI callable (the harness itself)", 0, await m(floor))
            ping_m = f.add("bare FastAPI, GET /ping -> dict", 0, await m(ping))
            f.diff("FastAPI per request", 1, ping_m, floor_m, note="ping - raw ASGI")
            sd = f.add("bare FastAPI, + 2 sync dependencies", 0, await m(sync_deps))
            ad = f.add("bare FastAPI, + 2 async dependencies", 0, await m(async_deps))
            f.diff("one sync dependency (a thread hop) - one async", 1, sd, ad, scale=0.5)
            canned = bytes(reply.body)
            shaped = asgi_caller(chat_shaped_app(state, canned, chat_like_suikou), "POST", CHAT_PATH, BODY)
            if (await shaped()).status != 200:
                raise SystemExit("the chat-shaped route failed")
            shaped_m = f.add("chat-shaped route: Suikou's middleware + dependencies, canned reply", 0, await m(shaped))
            health_m = f.add("Suikou GET /healthz", 0, await m(healthz))
            f.diff("Suikou's middleware (ErrorBoundary, BodyGate) + response_model", 1, health_m, ping_m)
            f.add(f"POST {CHAT_PATH}, task query, streaming (SSE)", 0, await m(chat_stream))
            per_size = {}
            for n in GRAPH_SIZES:
                per_size[n] = f.add(
                    f"pydantic-graph run: start step + {n} no-op BaseNode(s)", 0, await m(graph_call(n))
                )
                f.add(f"{n + 1} awaited no-op coroutines", 1, await m(awaits(n)))
            lo, hi = GRAPH_SIZES[0], GRAPH_SIZES[-1]
            slope = f.diff(
                f"pydantic-graph per node (slope {lo} -> {hi} nodes)",
                1,
                per_size[hi],
                per_size[lo],
                scale=1 / (hi - lo),
            )
            f.derive(
                "pydantic-graph per run (fixed: start step, end, run setup)",
                1,
                per_size[lo].wall_us - slope.wall_us * lo,
                per_size[lo].cpu_us - slope.cpu_us * lo,
            )

            t = Table()
            whole = t.add(f"POST {CHAT_PATH}, task query (ASGI direct)", 0, await m(chat))
            parse_m = await m(parse, False)
            job_m = await m(new_job, False)
            complete_m = await m(complete_call)
            encode_m = await m(encode_response, False)
            t.diff(
                "HTTP layer: middleware, routing, dependencies, auth cache",
                1,
                whole,
                parse_m,
                job_m,
                complete_m,
                encode_m,
                note="whole - the other rows at this depth",
            )
            t.add(
                "measured alone: chat-shaped route with a canned reply",
                2,
                shaped_m,
                "from the references; includes its Response",
            )
            t.add("parse_chat_request + message_texts", 1, parse_m)
            t.add("make_job (Turn, Trace, turn key)", 1, job_m)
            t.add("complete(job): pipeline, log line, body (the handler's work)", 1, complete_m)
            t.add("pipeline.run(turn)", 2, await m(pipeline_run), "+ make_job")
            t.add("classify_aux", 3, await m(aux, False))
            t.add("router.decide (offline rules)", 3, await m(router_decide), "+ make_job")
            graph_m = t.add("handle_task_query: the task-query graph", 3, await m(graph_run), "+ make_job")
            loop_m = t.add(
                "the same nodes run in a plain loop, no pydantic-graph", 4, await m(nodes_loop), "+ make_job"
            )
            t.add("plan + quadrant + time_anchor steps (offline)", 5, await m(plan_steps), "+ make_job")
            t.add("steps.run_query: the store on a worker thread", 5, await m(run_query), "+ make_job")
            t.add("query_tasks, new Session, in this thread", 6, await m(store_in_thread, False))
            t.add("anyio.to_thread.run_sync(no-op): the thread hop", 6, await m(thread_hop))
            t.add("reflect_step (offline) + render_answer", 5, await m(reflect_render), "+ make_job")
            t.diff("pydantic-graph: the graph - the plain loop", 4, graph_m, loop_m)
            nodes = QUERY_GRAPH_NODES
            t.diff(
                f"cross-check: no-op graph of the same shape - {nodes + 1} awaits",
                5,
                await m(graph_call(nodes)),
                await m(awaits(nodes)),
            )
            t.add("log_request: the JSON log line, to /dev/null", 2, await m(log_line, False))
            t.add("of which json.dumps of the record", 3, await m(log_json_only, False))
            logging.disable(logging.INFO)
            t.add("log_request with INFO disabled", 3, await m(log_line, False), "the record is still built and dumped")
            logging.disable(logging.NOTSET)
            t.add("completion_body (+ reasoning lines, events as dicts)", 2, await m(body_build, False))
            size = len(json.dumps(response_body, ensure_ascii=False).encode())
            t.add(f"JSONResponse: encoding the {size:,} B body", 1, encode_m)

            t.print(whole, "Where one task query's time goes (in-process, no socket):")
            f.print(whole, "References (share: of the whole task query above):")

            if args.profile:
                await profile(chat, args.profile)
    sink.close()


def noop_sync() -> None:
    return None


async def profile(call: Callable[[], Awaitable[Any]], n: int) -> None:
    """cProfile of ``n`` calls: top 25 by tottime, tottime by package, Suikou's functions by cumtime.

    cProfile counts each resumption of a coroutine as a call: ``ncalls`` of async functions is
    larger than the number of requests. The event loop's ``epoll`` wait is the loop idling while
    a worker thread runs (the worker threads themselves are not profiled).
    """
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        await call()
    prof.disable()
    stats = pstats.Stats(prof, stream=io.StringIO())
    total = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
    print(f"\ncProfile: {n} task queries through the ASGI call ({total / n * 1e6:.0f} µs each under the profiler)")
    out = io.StringIO()
    stats.stream = out  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(25)
    text = out.getvalue().replace(_site_packages(), "").replace(str(ROOT) + "/", "")
    print(text[text.index("   ncalls") :].rstrip())

    by_package: dict[str, float] = defaultdict(float)
    for (filename, _line, _name), row in stats.stats.items():  # type: ignore[attr-defined]
        by_package[_package(filename)] += row[2]
    print("\ntottime by package (share of all profiled time)")
    for name, t in sorted(by_package.items(), key=lambda kv: -kv[1])[:20]:
        print(f"  {name:<28}{t / n * 1e6:>9.0f} µs/request {100 * t / total:>6.1f}%")

    print("\nSuikou's functions by cumulative time (µs per request under the profiler; nested, so they overlap)")
    own = [
        (row[3], row[1], filename, line, name)
        for (filename, line, name), row in stats.stats.items()  # type: ignore[attr-defined]
        if _package(filename).startswith("suikou: ") and "/bench/" not in filename
    ]
    for cum, calls, filename, line, name in sorted(own, reverse=True)[:25]:
        where = f"{Path(filename).relative_to(ROOT)}:{line}({name})"
        print(f"  {cum / n * 1e6:>8.0f} µs  {calls / n:>6.1f} calls/request  {where}")


def _site_packages() -> str:
    return str(Path(anyio.__file__).resolve().parents[1]) + "/"


def _package(filename: str) -> str:
    """A profile row's owner: the installed package, Suikou's top-level package, or the stdlib module."""
    path = Path(filename)
    site = Path(_site_packages())
    if filename.startswith(str(site)):
        return path.relative_to(site).parts[0]
    if filename.startswith(str(ROOT)):
        return "suikou: " + path.relative_to(ROOT).parts[0]
    if filename.startswith("~") or filename.startswith("<"):
        return "builtins (C functions)"
    stdlib = Path(os.__file__).parent
    if filename.startswith(str(stdlib)):
        rel = path.relative_to(stdlib).parts
        return "stdlib: " + (rel[0] if len(rel) > 1 else path.stem)
    return filename


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=0.5, help="seconds per component (default 0.5)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="also profile N whole requests")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
