"""Runs one chat request through the pipeline, as a whole answer or as an SSE stream."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Iterator
from dataclasses import dataclass
from typing import Any

from app import shutdown
from app.errors import DatabaseUnavailable, ShuttingDown, error_body, mark_logged
from app.state import AppState
from app.wire import ChatRequest, ResponseIds, StageDisplay, StageView, chunk, completion_body, sse, usage_chunk
from core.db import is_outage, outage_summary
from core.trace import StageEvent
from core.turn import ChatText, Turn
from route.pipeline import TurnOutcome

log = logging.getLogger("suikou.request")


@dataclass
class ChatJob:
    """One request, ready to run."""

    state: AppState
    turn: Turn
    request: ChatRequest
    display: StageDisplay = "reasoning"  # where stage lines go (docs/fdr/0021-stage-display.md)

    async def run(self) -> TurnOutcome:
        try:
            outcome = await self.state.pipeline.run(self.turn, request_extras=self.request.extras())
        except Exception as exc:
            log_failure(self.turn, exc)
            raise
        log_request(self.turn, outcome)
        return outcome


def make_job(
    state: AppState,
    request: ChatRequest,
    messages: list[ChatText],
    *,
    user_id: int,
    tz: str,
    client_message_id: str | None,
    display: StageDisplay = "reasoning",
) -> ChatJob:
    turn = state.new_turn(messages, user_id=user_id, tz=tz, client_message_id=client_message_id)
    return ChatJob(state, turn, request, display)


def log_failure(turn: Turn, exc: Exception) -> None:
    """The request's one log line when it failed: how far it got, why, and the traceback. A database
    outage is a warning without the traceback (it says nothing the driver's message does not)."""
    trace = turn.trace
    mark_logged(exc)
    outage = is_outage(exc)
    record: dict[str, Any] = {
        "event": "chat_failed",
        "error": DatabaseUnavailable.code if outage else type(exc).__name__,
        "stages": trace.stages(),
        "nodes_ms": trace.timings_ms,
        "model_calls": trace.usage.requests,
        "offline_steps": trace.usage.offline_steps,
    }
    if outage:
        record["cause"] = outage_summary(exc)
        log.warning(json.dumps(record, ensure_ascii=False))
    else:
        log.error(json.dumps(record, ensure_ascii=False), exc_info=exc)


def failure_event(exc: BaseException) -> dict[str, Any]:
    """The error event a failed stream ends with: the 503's body for an outage, else a generic one."""
    if is_outage(exc):
        return DatabaseUnavailable().body()
    return error_body("The server had an error while answering.", "server_error", None, None)


def log_request(turn: Turn, outcome: TurnOutcome) -> None:
    """The request's one JSON log line (built only when INFO is on)."""
    if log.isEnabledFor(logging.INFO):
        log.info(json.dumps(request_record(turn, outcome), ensure_ascii=False))


def request_record(turn: Turn, outcome: TurnOutcome) -> dict[str, Any]:
    trace = turn.trace
    return {
        "event": "chat",
        "route": outcome.action,
        "aux": outcome.aux_kind,
        "confidence": round(outcome.decision.confidence, 2) if outcome.decision else None,
        "nodes_ms": trace.timings_ms,
        "model_calls": trace.usage.requests,
        "model_calls_by_node": trace.model_calls,
        "offline_steps": trace.usage.offline_steps,
        "offline_by_node": trace.offline_steps,
        "retries": trace.notes.get("retries", 0),
        "broadened": trace.notes.get("broadened", []),
        "fallbacks": [e.data.get("node") for e in trace.events if e.stage == "fallback"],
        "total_ms": round(outcome.elapsed_ms, 2),
    }


async def complete(job: ChatJob, ids: ResponseIds) -> dict[str, Any]:
    outcome = await _before_the_drain_deadline(job.run(), job.state.settings.shutdown_grace_s)
    events = job.turn.trace.events
    reasoning = "".join(e.as_line() for e in events)
    return completion_body(ids, outcome.content, reasoning, events, job.turn.trace.usage, job.display)


async def _before_the_drain_deadline(turn: Awaitable[TurnOutcome], grace_s: float) -> TurnOutcome:
    """The turn's outcome, or `ShuttingDown` (a 503 to retry) once shutdown's drain deadline passes:
    uvicorn would cancel the turn at the grace period and close the connection without an answer.

    The timer cancels this task itself (no second task per request); `uncancel` tells its cancel from
    any other. A note's write runs in a thread in one transaction, and cancelling waits for the
    thread, so the note is whole or absent (a retry is idempotent)."""
    task, loop = asyncio.current_task(), asyncio.get_running_loop()
    assert task is not None
    timer: asyncio.TimerHandle | None = None
    cut = False

    def cut_now() -> None:
        nonlocal cut
        cut = True
        task.cancel()

    def on_drain(_item: Any) -> None:
        nonlocal timer
        if timer is None:
            timer = loop.call_later(shutdown.drain_remaining(grace_s), cut_now)

    unwatch = shutdown.watch(on_drain)
    try:
        return await turn
    except asyncio.CancelledError:
        if cut and task.uncancel() == 0:
            raise ShuttingDown() from None
        raise
    finally:
        unwatch()
        if timer is not None:
            timer.cancel()


_DONE = object()
_CUT = object()  # the drain deadline passed before the turn finished
_CUT_NOTE = {
    "zh": "（服务正在重启，这一轮没来得及答完，请重发一次；已经记下的任务不会重复创建。）",
    "en": "(The server is restarting and could not finish this answer: please send it again; "
    "a task already saved will not be created twice.)",
}


async def _next(queue: asyncio.Queue[Any], deadline: float | None) -> Any:
    """The next item; ``_CUT`` once ``deadline`` (loop time, set when draining began) has passed."""
    if deadline is None:
        return await queue.get()
    try:
        return await asyncio.wait_for(queue.get(), max(0.0, deadline - asyncio.get_running_loop().time()))
    except TimeoutError:
        return _CUT


def _cut_chunks(job: ChatJob, ids: ResponseIds, view: StageView, include_usage: bool) -> Iterator[str]:
    """A stream still open at the drain deadline ends well: a note, finish_reason "length", [DONE]."""
    text = _CUT_NOTE.get(job.turn.locale, _CUT_NOTE["zh"])
    for delta in view.answer(text):
        yield sse(chunk(ids, delta, usage=include_usage))
    yield sse(chunk(ids, view.delta(""), finish_reason="length", usage=include_usage))
    yield sse("[DONE]")


async def stream(job: ChatJob, ids: ResponseIds, *, include_usage: bool) -> AsyncIterator[str]:
    """SSE body: role chunk, stage events (as `job.display` says), the answer as content, finish,
    usage, [DONE].

    Reasoning and content never share a delta; in `reasoning` mode every delta carries the
    `reasoning_content` key (DeepSeek's layout) so DeepSeek-style client loops work too.
    """
    queue: asyncio.Queue[Any] = asyncio.Queue()
    job.turn.trace.sink = queue.put_nowait
    job.turn.on_content = lambda text: queue.put_nowait(("content", text))
    job.turn.streaming = True

    async def produce() -> None:
        try:
            await job.run()
        except Exception as exc:  # logged once by job.run; reported to the client as a final error event
            queue.put_nowait(("error", exc))
        finally:
            queue.put_nowait(_DONE)

    worker = asyncio.create_task(produce())
    unwatch = shutdown.watch(queue.put_nowait)
    deadline: float | None = None
    view = StageView(job.display)
    try:
        yield sse(chunk(ids, view.role(), usage=include_usage))
        while (item := await _next(queue, deadline)) is not _DONE:
            if item is shutdown.DRAINING:  # finish the turn if it can, within the grace period
                if deadline is None:  # a second signal does not extend it
                    budget = shutdown.drain_remaining(job.state.settings.shutdown_grace_s)
                    deadline = asyncio.get_running_loop().time() + budget
            elif item is _CUT:
                for piece in _cut_chunks(job, ids, view, include_usage):
                    yield piece
                return
            elif isinstance(item, StageEvent):
                # Once the answer has begun, an event (a provider cut, a correction) travels only in
                # its structured field: clients show one thinking block, before the answer.
                yield sse(chunk(ids, view.stage(item), usage=include_usage, event=item))
            elif item[0] == "content":
                for delta in view.answer(item[1]) if item[1] else ():
                    yield sse(chunk(ids, delta, usage=include_usage))
            else:
                # A think block left open would swallow the rest of the message in tag-parsing UIs.
                for delta in view.close():
                    yield sse(chunk(ids, delta, usage=include_usage))
                yield sse(failure_event(item[1]))
                yield sse("[DONE]")
                return
        for delta in view.close():  # an answer with no text still closes its think block
            yield sse(chunk(ids, delta, usage=include_usage))
        yield sse(chunk(ids, view.delta(""), finish_reason="stop", usage=include_usage))
        if include_usage:
            yield sse(usage_chunk(ids, job.turn.trace.usage))
        yield sse("[DONE]")
    finally:
        unwatch()
        # A cut turn may be inside a note's write: that runs in a thread in one transaction, and
        # cancelling waits for the thread, so the note is whole or absent (a retry is idempotent).
        if not worker.done():
            worker.cancel()
