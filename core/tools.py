"""Tools an action offers to tool-calling clients (MCP), declared in the action's own package.

A :class:`ToolSpec` is surface-neutral: its ``run`` is an ``async`` function whose first parameter
is a :class:`ToolContext` and whose other parameters are the tool's arguments (annotated, with
``pydantic.Field`` descriptions: their types are the tool's input schema); it returns a
:class:`ToolOutput` whose ``data`` is an instance of ``output`` (the output schema). The app
(app/mcp_server.py) publishes every registered action's tools and runs them for the caller; a
:class:`ToolProblem` is a message for the calling model, never a traceback.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated

import anyio.to_thread
from pydantic import BaseModel, Field, PrivateAttr
from sqlmodel import Session

from core import writes
from core.models import RecurrencePublic, Task, TaskPublic
from core.turn import Turn
from core.writes import Writer

__all__ = [
    "INT32_MAX",
    "TaskIdArg",
    "TaskItem",
    "ToolContext",
    "ToolOutput",
    "ToolProblem",
    "ToolSpec",
    "WriteResult",
    "not_found",
]

INT32_MAX = 2**31 - 1
TaskIdArg = Annotated[int, Field(ge=1, le=INT32_MAX, description="A task id from another tool's result.")]


class ToolProblem(Exception):
    """Something the calling model should read and fix (an unknown id, nothing to change)."""


@dataclass(frozen=True)
class ToolContext:
    """What a tool may use: who calls, their zone and clock, the database, and a chat turn to run an
    action's handler with (the chat endpoint's checks on the text included)."""

    user_id: int
    tz: str
    clock: Callable[[], datetime]
    sessions: Callable[[], Session]
    # (the user's words, a client message id, an IANA zone or None) → a turn, checked as chat checks it
    turn: Callable[[str, str | None, str | None], Turn]


@dataclass(frozen=True)
class ToolOutput:
    text: str  # a short line for clients that show text only
    data: BaseModel  # the structured result, an instance of the spec's `output`


@dataclass(frozen=True)
class ToolSpec:
    """One tool: name, title, description (for the calling model), its function and its promises."""

    name: str
    title: str
    description: str
    run: Callable[..., Awaitable[ToolOutput]]
    output: type[BaseModel]
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    # Runs a turn of an action (a model may be asked): counted against the model rate limit.
    uses_model: bool = False


class TaskItem(BaseModel):
    """One task as the actions report it (`core.display.task_record`)."""

    id: int
    title: str
    priority_group: int = Field(description="The group the user set, 1..4.")
    effective_group: int = Field(description="The group now: raised when the deadline is near.")
    promoted: bool
    deadline_at: str | None = Field(description="RFC 3339, or null when the task has no deadline.")
    overdue: bool
    is_completed: bool
    recurrence: RecurrencePublic | None = Field(
        default=None, description="A repeating task's rule and its words; null for a one-off."
    )
    estimate_minutes: int | None = Field(default=None, description="How long it takes, in minutes; null: not said.")


class WriteResult(BaseModel):
    task: TaskPublic
    change_id: int | None = Field(description="Pass [change_id] to undo; null when nothing changed.")
    changed: bool = Field(description="False when the task already was as asked: nothing was written.")
    # The task as it was, for a surface that says what changed (before → after); not in the schema.
    _before: TaskPublic | None = PrivateAttr(default=None)

    @property
    def before(self) -> TaskPublic | None:
        return self._before


def not_found(task_id: int) -> ToolProblem:
    return ToolProblem(f"task {task_id} not found")


async def write_one(ctx: ToolContext, task_id: int, write: Callable[[Writer, Task], int | None]) -> WriteResult:
    """One task's write by id, through the write path, on a worker thread: ``write(writer, task)``
    returns its change id (None: nothing changed); a task that is not the caller's is not found."""

    def work() -> WriteResult:
        now = ctx.clock()
        with writes.writing(ctx.sessions, writes.author(ctx.user_id, now, "mcp")) as w:
            task = w.lock(task_id)
            if task is None:
                raise not_found(task_id)
            before = TaskPublic.from_task(task, now=now)
            change_id = write(w, task)
        result = WriteResult(
            task=TaskPublic.from_task(task, now=now), change_id=change_id, changed=change_id is not None
        )
        result._before = before
        return result

    return await anyio.to_thread.run_sync(work)
