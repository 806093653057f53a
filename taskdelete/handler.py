"""The `task_delete` action: "把取快递删了" deletes that task; "删掉所有已完成的" asks first, then deletes them.

Which task: the one resolver of writes (:mod:`core.resolve`) — the task the conversation's last
write touched when the message points at it ("把它删了", "delete that"), else what the words name,
open or done; a time in the words ("取消周三的会议") narrows to tasks due then. Several match → it
asks which and deletes nothing; none → it says so. Cancellation phrasing never writes a new task.

Several at once ("把上周的都删了"): the answer lists how many and a sample and asks; it carries their
ids as a signed ``d1`` record, and a yes deletes exactly those (still the user's, still there) in
one write, which "撤销" restores whole. A client that drops the record gets the question's tasks
read again.

Deleting goes through :mod:`core.writes` (exactly once per attempt, logged whole): undo puts the
task back exactly — the same id, fields and history.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import anyio.to_thread
from pydantic import BaseModel, Field, ValidationError
from sqlmodel import Session, col, select

from core import carry, changes, resolve, writes
from core.display import format_when, task_record
from core.locale import Locale
from core.models import Task, TaskChange, TaskUpdate
from core.store import TaskFilter, query_tasks, task_row
from core.timeanchor import TimeWindow, resolve_time
from core.turn import Answer, Turn
from taskdelete.offline import CONFIRM_RE, DeleteRequest, read_delete

__all__ = ["CLARIFY", "DESCRIPTION", "OUTCOMES", "explain_delete", "handle_delete"]

DESCRIPTION = (
    "删除: the user wants to DELETE one of their tasks, or several ('把取快递删了', '删掉交报告那个任务', "
    "'取消周三的会议', '删掉所有已完成的', 'remove the dentist task', 'delete that'), or confirms a delete "
    "Suikou just asked about. Writes data. A question about deleting ('怎么删除任务？') is chat; taking back "
    "what Suikou just did ('撤销') is undo."
)

CLARIFY: dict[Locale, str] = {
    "zh": "你是想删除某个任务吗？说一下任务名，例如「把取快递删了」。这次什么都没有删除。",
    "en": 'Do you want to delete a task? Tell me which, e.g. "delete the dentist task". Nothing was deleted.',
}

KIND = "d1"  # the carried record of a bulk delete that waits for a yes
MAX_BULK = changes.MAX_CARRIED_CHANGES  # what one answer's write record can carry
SAMPLE = 5
SHOWN_CANDIDATES = 5
OUTCOMES = ("deleted", "again", "ask", "none", "confirm", "too_many", "nothing", "unreminded", "no_reminder")
_GENERIC = re.compile(
    r"(?:提醒|事件|任务|日程|安排|事情|事儿|事|待办|活动|reminders?|events?|tasks?|items?|appointments?)", re.I
)
_NEXT = re.compile(
    r"^(?:下一个|下个|接下来的|最近的|next)\s*(?:事件|任务|提醒|日程|安排|事|event|task|reminder)?$", re.I
)

Kind = Literal["deleted", "again", "ask", "none", "confirm", "too_many", "nothing", "unreminded", "no_reminder"]


class PendingDelete(BaseModel):
    """What a bulk-delete question carries for its yes: the tasks it listed (checked like any input)."""

    ids: list[int] = Field(min_length=1, max_length=MAX_BULK)


@dataclass
class _Outcome:
    kind: Kind
    tasks: list[dict[str, Any]] = field(default_factory=list)  # task_record, plus "title"/"deadline_at" rows
    total: int = 0
    change_ids: list[int] = field(default_factory=list)
    words: str = ""
    pending: list[int] = field(default_factory=list)


# --- which tasks ---------------------------------------------------------------------------------


def _records(tasks: Sequence[Task], now: datetime) -> list[dict[str, Any]]:
    return [task_record(task_row(t, now=now), now) for t in tasks]


def _window(words: str, turn: Turn) -> tuple[TimeWindow | None, str]:
    """The time the words name ("周三" in "周三的会议") and what is left of them ("会议")."""
    window = resolve_time(words, turn.now, turn.tz)
    if window is None or not window.phrase:
        return None, words
    rest = words.replace(window.phrase, "", 1).strip(" 的之前后里内，,")
    return window, rest


def _due_in(session: Session, turn: Turn, window: TimeWindow, *, completed: bool = False) -> list[Task]:
    """The user's tasks due in the window (all of them, up to a page past the bulk cap)."""
    flt = TaskFilter(
        time_field="completed" if completed else "deadline",
        time_after=window.start,
        time_before=window.end,
        include_completed=not completed,
        limit=MAX_BULK + 1,
    )
    return _load(session, turn.user_id, [r.id for r in query_tasks(session, turn.user_id, flt, now=turn.now).items])


def _load(session: Session, user_id: int, ids: Sequence[int]) -> list[Task]:
    found = {t.id: t for t in session.exec(select(Task).where(col(Task.user_id) == user_id, col(Task.id).in_(ids)))}
    return [found[i] for i in ids if i in found]


def _shares(words: str, title: str) -> bool:
    """Loosely the same thing ("会议" and "周三开会"): a shared character, or a shared word."""
    if re.search(r"[\u3400-\u9fff]", words):
        return bool(set(re.findall(r"[\u3400-\u9fff]", words)) & set(title))
    return bool(set(words.lower().split()) & set(title.lower().split()))


def _one(session: Session, turn: Turn, words: str | None) -> resolve.Resolved:
    """The task a single delete is about (see the module docstring)."""
    last = changes.last_written(turn.messages, turn.seal)
    if words is None:
        return resolve.target(session, turn.user_id, None, last)
    if _NEXT.match(words):
        flt = TaskFilter(time_after=turn.now, limit=1)
        page = query_tasks(session, turn.user_id, flt, now=turn.now)
        return (
            resolve.Resolved("one", _load(session, turn.user_id, [r.id for r in page.items]))
            if page.items
            else resolve.Resolved("none")
        )
    window, rest = _window(words, turn)
    noun = _GENERIC.sub("", rest).strip(" 的")
    if window is None:
        return resolve.target(session, turn.user_id, noun or words, last)
    due = _due_in(session, turn, window)
    if noun:
        named = resolve.resolve(session, turn.user_id, noun)
        due_ids = {t.id for t in due}
        in_window = [t for t in named.tasks if t.id in due_ids] or [t for t in due if _shares(noun, t.title)]
        due = in_window
    if len(due) == 1:
        return resolve.Resolved("one", due)
    return resolve.Resolved("several", due) if due else resolve.Resolved("none")


def _bulk(session: Session, turn: Turn, req: DeleteRequest) -> list[Task] | None:
    """The tasks a bulk delete names; None when its time can't be read."""
    window = resolve_time(req.time_text, turn.now, turn.tz) if req.time_text else None
    if req.time_text and window is None:
        return None
    if window is not None:
        return _due_in(session, turn, window, completed=req.completed)
    flt = TaskFilter(time_field="completed" if req.completed else "deadline", limit=MAX_BULK + 1)
    return _load(session, turn.user_id, [r.id for r in query_tasks(session, turn.user_id, flt, now=turn.now).items])


# --- the pending bulk delete ---------------------------------------------------------------------


def _pending(turn: Turn) -> tuple[list[int] | None, str | None]:
    """For a yes to a bulk-delete question: the ids its record carries (None when gone or damaged),
    and the user message the question answered."""
    turns = [m for m in turn.messages if m.role in ("user", "assistant")]
    if len(turns) < 2 or turns[-2].role != "assistant" or not CONFIRM_RE.search(carry.strip(turns[-2].text)):
        return None, None
    asked = turns[-3].text if len(turns) >= 3 and turns[-3].role == "user" else None
    payload = carry.read(turns[-2].text, KIND, turn.seal)
    try:
        return (PendingDelete.model_validate(payload).ids if payload is not None else None), asked
    except ValidationError:
        return None, asked


def attach_pending(text: str, ids: Sequence[int], turn: Turn) -> str:
    return carry.attach(text, KIND, {"ids": list(ids)}, turn.seal)


# --- deciding and writing --------------------------------------------------------------------------


def _again(session: Session, turn: Turn, prior: dict[str, Any]) -> _Outcome:
    """The answer of the copy of this attempt that deleted: the tasks as they were, and the changes."""
    ids = [int(i) for i in prior.get("changes", [])]
    rows = session.exec(select(TaskChange).where(col(TaskChange.user_id) == turn.user_id, col(TaskChange.id).in_(ids)))
    found = [changes.change_row(r, None) for r in sorted(rows, key=lambda r: r.id or 0)]
    if found and all(r.kind == "update" for r in found):  # it took a task's reminders away
        after = found[0].after
        record = {"title": after.get("title", ""), "deadline_at": after.get("deadline_at")}
        return _Outcome("unreminded", tasks=[record], total=1, change_ids=ids)
    gone = [r.before or {} for r in found]
    return _Outcome("again", tasks=gone, total=len(gone), change_ids=ids)


def _delete(w: writes.Writer, turn: Turn, tasks: Sequence[Task]) -> _Outcome:
    locked = [t for t in (w.lock(t.id) for t in tasks if t.id is not None) if t is not None]
    if not locked:
        return _Outcome("none")
    records = [{"title": t.title, "deadline_at": t.deadline_at.isoformat() if t.deadline_at else None} for t in locked]
    return _Outcome("deleted", tasks=records, total=len(records), change_ids=w.delete(locked))


def _unremind(w: writes.Writer, task: Task, req: DeleteRequest) -> _Outcome | None:
    """Removes the task's reminders, the task kept; None when a "stop reminding me" request finds
    none (then the task itself is what the words are about, deleted as before)."""
    locked = w.lock(task.id) if task.id is not None else None
    if locked is None:
        return _Outcome("none")
    record = [{"title": locked.title, "deadline_at": locked.deadline_at.isoformat() if locked.deadline_at else None}]
    if not locked.reminders:
        return _Outcome("no_reminder", tasks=record, total=1) if req.reminder == "only" else None
    change = w.update(locked, TaskUpdate(reminders=None))
    return _Outcome("unreminded", tasks=record, total=1, change_ids=[change] if change is not None else [])


def _decide(turn: Turn, req: DeleteRequest) -> _Outcome:
    with writes.writing(turn.sessions, writes.chat_author(turn)) as w:
        if w.copy:
            return _again(w.session, turn, w.prior)
        if req.bulk:
            return _decide_bulk(w, turn, req)
        found = _one(w.session, turn, req.words)
        if found.kind == "one" and req.reminder is not None:
            quiet = _unremind(w, found.tasks[0], req)
            if quiet is not None:
                return quiet
        if found.kind == "one":
            return _delete(w, turn, found.tasks)
        if found.kind == "several":
            return _Outcome(
                "ask", _records(found.tasks[:SHOWN_CANDIDATES], turn.now), len(found.tasks), words=req.words or ""
            )
        return _Outcome("nothing" if found.kind == "nothing" else "none", words=req.words or found.title)


def _decide_bulk(w: writes.Writer, turn: Turn, req: DeleteRequest) -> _Outcome:
    confirming = req.words is None and not req.completed and req.time_text is None
    if confirming:
        ids, asked = _pending(turn)
        if ids is not None:
            return _delete(w, turn, _load(w.session, turn.user_id, ids))
        again = read_delete(asked or "")
        if again is None or not again.bulk:
            return _Outcome("nothing")
        req = again
    tasks = _bulk(w.session, turn, req)
    if not tasks:
        return _Outcome("none", words=req.time_text or "")
    if len(tasks) > MAX_BULK:
        return _Outcome("too_many", total=len(tasks))
    return _Outcome("confirm", _records(tasks, turn.now), len(tasks), pending=[t.id for t in tasks if t.id is not None])


# --- words -----------------------------------------------------------------------------------------


def _when(iso: str | None, turn: Turn) -> str | None:
    return format_when(datetime.fromisoformat(iso), turn.tz, turn.now, turn.locale) if iso else None


def _deleted_line(record: dict[str, Any], turn: Turn) -> str:
    when = _when(record.get("deadline_at"), turn)
    if turn.locale == "en":
        return f'"{record["title"]}"' + (f" (was due {when})" if when else "")
    return f"「{record['title']}」" + (f"（原定 {when} 截止）" if when else "")


def _listed(outcome: _Outcome) -> str:
    titles = [str(t["title"]) for t in outcome.tasks[:SAMPLE]]
    more = outcome.total - len(titles)
    return "、".join(titles) + (f" 等 {outcome.total} 条" if more > 0 else "")


def _render_zh(outcome: _Outcome, turn: Turn) -> str:
    if outcome.kind in ("deleted", "again"):
        if len(outcome.tasks) == 1:
            return "已删除：" + _deleted_line(outcome.tasks[0], turn)
        return f"已删除 {outcome.total} 条任务：" + "、".join(str(t["title"]) for t in outcome.tasks)
    if outcome.kind == "ask":
        lines = [f"{i}. {t['title']}" + (f"（截止 {_when(t['deadline_at'], turn)}）" if t["deadline_at"] else "")
                 for i, t in enumerate(outcome.tasks, 1)]  # fmt: skip
        head = f"有 {outcome.total} 个任务和「{outcome.words}」对得上，要删除哪一个？"
        return "\n".join([head, *lines, "说一下完整的任务名，这次还没有删除。"])
    if outcome.kind == "unreminded":
        title = outcome.tasks[0]["title"]
        return f"好，「{title}」不再提醒了；任务还在，不要了的话说「删掉{title}」。"
    if outcome.kind == "no_reminder":
        return f"「{outcome.tasks[0]['title']}」没有设提醒，什么都没有改动。"
    if outcome.kind == "confirm":
        return f"要删除 {outcome.total} 条任务：{_listed(outcome)}，确定吗？"
    if outcome.kind == "too_many":
        return f"一次最多删除 {MAX_BULK} 条，这次对得上的超过了，说得再具体一点吧。什么都没有删除。"
    if outcome.kind == "none" and outcome.words:
        return f"没有找到和「{outcome.words}」对得上的任务，什么都没有删除。"
    if outcome.kind == "none":
        return "没有对得上的任务，什么都没有删除。"
    return "刚才没有记下或改动任务，不知道要删哪一个。说一下任务名，例如「把取快递删了」。什么都没有删除。"


def _render_en(outcome: _Outcome, turn: Turn) -> str:
    if outcome.kind in ("deleted", "again"):
        if len(outcome.tasks) == 1:
            return "Deleted: " + _deleted_line(outcome.tasks[0], turn)
        return f"Deleted {outcome.total} tasks: " + ", ".join(str(t["title"]) for t in outcome.tasks)
    if outcome.kind == "ask":
        lines = [f"{i}. {t['title']}" for i, t in enumerate(outcome.tasks, 1)]
        head = f'{outcome.total} tasks match "{outcome.words}". Which one should I delete?'
        return "\n".join([head, *lines, "Say its full name; nothing was deleted yet."])
    if outcome.kind == "unreminded":
        title = outcome.tasks[0]["title"]
        return f'OK, no more reminders for "{title}"; the task stays (say "delete {title}" to remove it too).'
    if outcome.kind == "no_reminder":
        return f'"{outcome.tasks[0]["title"]}" has no reminder; nothing was changed.'
    if outcome.kind == "confirm":
        titles = ", ".join(str(t["title"]) for t in outcome.tasks[:SAMPLE])
        more = " …" if outcome.total > SAMPLE else ""
        return f"This deletes {outcome.total} tasks: {titles}{more}. Delete them?"
    if outcome.kind == "too_many":
        return (
            f"I delete at most {MAX_BULK} tasks at once and more match; say which more precisely. Nothing was deleted."
        )
    if outcome.kind == "none":
        named = f' matches "{outcome.words}"' if outcome.words else " matches"
        return f"No task{named}; nothing was deleted."
    return 'Nothing was just written, so I don\'t know which task to delete. Name it, e.g. "delete the dentist task".'


def _render(outcome: _Outcome, turn: Turn) -> Answer:
    text = (_render_en if turn.locale == "en" else _render_zh)(outcome, turn)
    if outcome.change_ids:
        text = changes.marker(text, outcome.change_ids, turn.seal)
    if outcome.pending:
        text = attach_pending(text, outcome.pending, turn)
    data = {"deleted": outcome.tasks if outcome.change_ids else [], "total": outcome.total}
    if outcome.kind in ("ask", "confirm"):
        data["candidates"] = outcome.tasks
    return Answer(text, data, change_ids=tuple(outcome.change_ids), outcome=outcome.kind)


async def handle_delete(turn: Turn) -> Answer:
    # The router's reading when its rule chose this action; read here when a model did.
    read = turn.reading if isinstance(turn.reading, DeleteRequest) else read_delete(turn.text, turn.history)
    req = read or DeleteRequest(0.0, "", turn.text.strip() or None)
    turn.trace.emit("delete", "start", "找要删除的任务", {"words": req.words, "bulk": req.bulk})
    outcome = await anyio.to_thread.run_sync(lambda: _decide(turn, req))
    turn.trace.emit("delete", "end", f"结果：{outcome.kind}", {"outcome": outcome.kind, "total": outcome.total})
    return _render(outcome, turn)


async def explain_delete(turn: Turn) -> dict[str, Any]:
    """``{"delete": {"words": …, "bulk": …, "completed": …, "time_text": …}}``, without the database."""
    req = read_delete(turn.text, turn.history)
    if req is None:
        return {"delete": {"words": None, "bulk": False, "completed": False, "time_text": None}}
    return {"delete": {"words": req.words, "bulk": req.bulk, "completed": req.completed, "time_text": req.time_text}}
