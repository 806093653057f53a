"""The `task_complete` action: "交报告做完了" marks a task done, "交报告还没做完" reopens it.

One match → written (in one transaction, with a write-log entry); several → the candidates are
listed and nothing is written; none → said, nothing written. Completing an already completed
task is a no-op.

Retries: a retried turn must not toggle twice, and every copy of one attempt answers the same. The
write claims its attempt first (:mod:`core.attempts`): a copy that finds the attempt claimed by
another repeats that one's answer, with the same change id, and writes nothing.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import anyio.to_thread
from sqlmodel import Session

from core import changes, recurrence, series, writes
from core.display import format_when, task_record
from core.locale import Locale
from core.models import Task, TaskChange
from core.resolve import resolve, target
from core.store import get_task, task_row
from core.turn import Answer, Turn
from taskcomplete.offline import DoneReading, is_reopen, target_words

__all__ = ["CLARIFY", "DESCRIPTION", "explain_complete", "handle_complete"]

DESCRIPTION = (
    "完成: the user STATES that one of their tasks is done ('交报告做完了', '把交报告标记为完成', "
    "'I finished the report') or not done after all ('交报告还没做完', 'reopen the report task'). "
    "Writes data. A QUESTION whether something is done ('周报交了没', '报告做完了吗') is task_query."
)

CLARIFY: dict[Locale, str] = {
    "zh": "你是想把某个任务标记为完成吗？说一下任务名，例如「交报告做完了」。这次什么都没有改动。",
    "en": 'Do you want to mark a task as done? Tell me which one, e.g. "I finished the report". Nothing was changed.',
}

SHOWN_CANDIDATES = 5

Kind = Literal["written", "again", "already", "ask", "none", "no_words"]


@dataclass
class _Outcome:
    kind: Kind
    task: dict[str, Any] | None = None  # task_record of the task, read inside the session
    title: str = ""
    deadline_at: datetime | None = None
    candidates: list[tuple[dict[str, Any], str, datetime | None]] = field(default_factory=list)
    total: int = 0
    change_ids: list[int] = field(default_factory=list)  # a series' completion: the copy and the move
    next_line: str | None = None  # a series that moved on: where to, in words


def _read_target(turn: Turn) -> tuple[str | None, bool]:
    """(the task words, whether the task should end up completed): what the router's reading holds,
    else read from the message (a model chose this action)."""
    if isinstance(turn.reading, DoneReading):
        return turn.reading.words, turn.reading.completed
    return target_words(turn.text), not is_reopen(turn.text)


def _record(task: Task, now: datetime) -> tuple[dict[str, Any], str, datetime | None]:
    return task_record(task_row(task, now=now), now), task.title, task.deadline_at


def _again(session: Session, turn: Turn, change_ids: list[int]) -> _Outcome:
    """The answer of the copy of this attempt that wrote: its change, the task as it is now."""
    # The last change is the task's own (a series' move comes after its completed copy).
    change = session.get(TaskChange, change_ids[-1]) if change_ids else None
    task = get_task(session, turn.user_id, change.task_id) if change is not None and change.task_id else None
    if task is None:
        return _Outcome("none")
    record, title, deadline = _record(task, turn.now)
    first = session.get(TaskChange, change_ids[0]) if len(change_ids) > 1 else None
    copy = get_task(session, turn.user_id, first.task_id) if first is not None and first.task_id else None
    if copy is not None:  # a series: answer with the occurrence done and where the series went
        deadline, moved = copy.deadline_at, _next_line(task, turn)
        return _Outcome("again", record, title, deadline, change_ids=list(change_ids), next_line=moved)
    return _Outcome("again", record, title, deadline, change_ids=list(change_ids))


def _pick(session: Session, turn: Turn, words: str | None, completed: bool) -> Task | _Outcome:
    """The one task to change, or the outcome that changes nothing (core.resolve: done tasks count).

    No words ("mark it done", "这个做完了", "标记完成") point at the task the conversation's last write
    touched, as update and delete read them; with none to point at, the action asks which task."""
    if words is None:
        found = target(session, turn.user_id, None, changes.last_written(turn.messages, turn.seal))
        if found.kind in ("nothing", "gone"):
            return _Outcome("no_words")
    else:
        found = resolve(session, turn.user_id, words)
    if found.kind == "several" and completed and (series_task := _open_series(found.tasks)) is not None:
        return series_task
    if found.kind == "several":
        cands = [_record(t, turn.now) for t in found.tasks]
        return _Outcome("ask", candidates=cands[:SHOWN_CANDIDATES], total=len(cands))
    if found.kind == "none":
        return _Outcome("none")
    task = found.task
    if bool(task.is_completed) != completed:
        return task
    if found.tier == "similar":  # only alike, and already in that state: not what was named
        return _Outcome("none")
    record, title, deadline = _record(task, turn.now)
    return _Outcome("already", record, title, deadline)


def _open_series(tasks: list[Task]) -> Task | None:
    """The one open repeating task among candidates that are otherwise its completed occurrences
    (same title): completing "交周报" again means this week's, not a past one."""
    open_ = [t for t in tasks if not t.is_completed]
    if len(open_) != 1 or series.rule_of(open_[0]) is None:
        return None
    return open_[0] if all(t.title == open_[0].title for t in tasks) else None


def _decide(turn: Turn, words: str | None, completed: bool) -> _Outcome:
    with writes.writing(turn.sessions, writes.chat_author(turn)) as w:
        if w.copy:
            return _again(w.session, turn, w.claim.change_ids if w.claim else [])
        picked = _pick(w.session, turn, words, completed)
        if isinstance(picked, _Outcome):
            return picked  # nothing written: the block rolls back, claim included
        due = picked.deadline_at
        w.complete(picked, completed)
        record, title, _deadline = _record(picked, turn.now)
        moved = _next_line(picked, turn) if completed and not picked.is_completed else None
    return _Outcome("written", record, title, due, change_ids=list(w.change_ids), next_line=moved)


def _next_line(task: Task, turn: Turn) -> str | None:
    """A series moved on by this completion: "下一次：12月14日 周一 09:00（每周一 09:00）"."""
    rule = series.rule_of(task)
    if rule is None or task.deadline_at is None:
        return None
    when, words = format_when(task.deadline_at, turn.tz, turn.now, turn.locale), recurrence.describe(rule, turn.locale)
    return f"Next: {when} ({words})." if turn.locale == "en" else f"下一次：{when}（{words}）。"


# --- words -------------------------------------------------------------------------------------


def _when(deadline: datetime | None, turn: Turn) -> str | None:
    return format_when(deadline, turn.tz, turn.now, turn.locale) if deadline is not None else None


def _done_line(title: str, when: str | None, completed: bool, locale: Locale) -> str:
    if locale == "en":
        if completed:
            return f'Done: "{title}"' + (f" (was due {when})" if when else "")
        return f'Reopened: "{title}"' + (f" (due {when})" if when else "")
    if completed:
        return f"已完成：「{title}」" + (f"（原定 {when} 截止）" if when else "")
    return f"已改回未完成：「{title}」" + (f"（截止 {when}）" if when else "")


def _already_line(title: str, completed: bool, locale: Locale) -> str:
    if locale == "en":
        state = "already done" if completed else "already open"
        return f'"{title}" is {state}; nothing was changed.'
    state = "已经是完成状态" if completed else "本来就是未完成"
    return f"「{title}」{state}，没有改动。"


def _ask_text(outcome: _Outcome, words: str, completed: bool, turn: Turn) -> str:
    locale = turn.locale
    # All candidates in the state to change: say which state; a mix (some already done): mark those.
    mixed = any(bool(record["is_completed"]) == completed for record, _t, _d in outcome.candidates)
    lines = []
    for i, (record, title, deadline) in enumerate(outcome.candidates, 1):
        when = _when(deadline, turn)
        done = mixed and record["is_completed"]
        if locale == "en":
            notes = [*([f"due {when}"] if when else []), *(["done"] if done else [])]
            lines.append(f"{i}. {title}" + (f" ({', '.join(notes)})" if notes else ""))
        else:
            notes = [*([f"截止 {when}"] if when else []), *(["已完成"] if done else [])]
            lines.append(f"{i}. {title}" + (f"（{'，'.join(notes)}）" if notes else ""))
    more = outcome.total - len(outcome.candidates)
    if locale == "en":
        state = "" if mixed else ("open " if completed else "completed ")
        head = f'{outcome.total} {state}tasks match "{words}". Which one?'
        tail = (f"…and {more} more.\n" if more > 0 else "") + "Say its full name; nothing was changed yet."
    else:
        state = "" if mixed else ("未完成" if completed else "已完成")
        head = f"有 {outcome.total} 个{state}任务和「{words}」对得上，是哪一个？"
        tail = (f"……还有 {more} 个没列出。\n" if more > 0 else "") + "说一下完整的任务名，这次还没有改动。"
    return "\n".join([head, *lines, tail])


def _none_text(words: str, completed: bool, locale: Locale) -> str:
    if locale == "en":
        state = "open" if completed else "completed"
        return f'No {state} task matches "{words}"; nothing was changed.'
    state = "未完成" if completed else "已完成"
    return f"没有找到标题含「{words}」的{state}任务，什么都没有改动。"


def _render(outcome: _Outcome, words: str, completed: bool, turn: Turn) -> Answer:
    locale = turn.locale
    if outcome.kind in ("written", "again"):
        text = _done_line(outcome.title, _when(outcome.deadline_at, turn), completed, locale)
        if outcome.next_line:
            text += "\n" + outcome.next_line
        data: dict[str, Any] = {"task": outcome.task, "completed": completed, "changed": outcome.kind == "written"}
        # A retry repeats the first answer, the carried change id included.
        if outcome.change_ids:
            text = changes.marker(text, outcome.change_ids, turn.seal)
            data["change_id"] = outcome.change_ids[-1]
            data["change_ids"] = outcome.change_ids
        return Answer(text, data)
    if outcome.kind == "already":
        return Answer(
            _already_line(outcome.title, completed, locale),
            {"task": outcome.task, "completed": completed, "changed": False},
        )
    if outcome.kind == "ask":
        records = [record for record, _title, _deadline in outcome.candidates]
        return Answer(_ask_text(outcome, words, completed, turn), {"candidates": records, "total": outcome.total})
    if outcome.kind == "none":
        return Answer(_none_text(words, completed, locale), {"matches": 0, "words": words})
    return Answer(CLARIFY[locale], {"matches": 0, "words": None})


async def handle_complete(turn: Turn) -> Answer:
    words, completed = _read_target(turn)
    verb = "标记完成" if completed else "改回未完成"
    turn.trace.emit("complete", "start", f"找要{verb}的任务", {"words": words, "completed": completed})
    found = words or None
    outcome = await anyio.to_thread.run_sync(lambda: _decide(turn, found, completed))
    messages = {
        "written": f"已{verb}：{outcome.title}",
        "again": f"这一轮已经{verb}过了：{outcome.title}，不再改动",
        "already": f"{outcome.title} 已经是这个状态，不改动",
        "ask": f"{outcome.total} 个任务对得上，先问是哪一个，不改动",
        "none": "没有对得上的任务，不改动",
        "no_words": "没听出是哪个任务，不改动",
    }
    turn.trace.emit("complete", "end", messages[outcome.kind], {"outcome": outcome.kind})
    answer = _render(outcome, words or "", completed, turn)
    return dataclasses.replace(answer, change_ids=tuple(outcome.change_ids), outcome=outcome.kind)


async def explain_complete(turn: Turn) -> dict[str, Any]:
    """``{"target": {"words": …, "completed": …}}``: what would be looked for, without the database."""
    words, completed = _read_target(turn)
    return {"target": {"words": words, "completed": completed}}
