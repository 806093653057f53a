"""The `undo` action: takes back the last write of this conversation.

Which write: the change ids the most recent assistant answer carries (a signed ``w1`` record, see
:mod:`core.changes`), so the service stays stateless. Reverting is :func:`core.changes.undo`, in one
transaction on a worker thread: idempotent (a repeated "撤销" says it is already undone and changes
nothing), exactly-once per attempt (a copy of the same request — a retry, a double click — answers
what the first copy did, :mod:`core.attempts`) and scoped to the caller (a record naming another
user's changes finds nothing). Each change is reverted field by field: a field changed again since
keeps its later value, and the answer says so. The undo answer carries no record of its own: a
later "撤销" still points at the same write and reads as already undone (there is no redo).
"""

from __future__ import annotations

from typing import Any

import anyio

from core import changes, writes
from core.locale import Locale
from core.turn import Answer, Turn

DESCRIPTION = (
    "撤销: the user wants to UNDO / take back what Suikou just did in this conversation — the task "
    "it just saved, completed or changed ('撤销', '撤回', '刚才那条不要了', '刚才记的删掉', 'undo that', "
    "'never mind, delete that'). Not questions about undoing something else ('撤销订单怎么操作'). Writes data."
)

CLARIFY: dict[Locale, str] = {
    "zh": "你是想撤销我刚才记下或改动的任务吗？要撤销的话，直接说「撤销」。",
    "en": 'Do you want me to undo the task I just saved or changed? If so, just say "undo".',
}

# The frame around the changes; how each change is told is its kind's (core.kinds).
_TEXTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "done": "已撤销：{items}",
        "all_kept": "没有改动，都已经被后来的修改覆盖：{items}",
        "already": "这一步已经撤销过了，没有再改动：{items}",
        "nothing": "没有可以撤销的操作：这段对话里我还没有替你记下或改动任务。",
        "not_found": "没有找到可以撤销的改动，什么都没有改。",
        "joiner": "；",
    },
    "en": {
        "done": "Undone: {items}",
        "all_kept": "Nothing changed, later edits replaced all of it: {items}",
        "already": "Already undone, nothing changed: {items}",
        "nothing": "There's nothing to undo: I haven't saved or changed any task in this conversation.",
        "not_found": "I couldn't find a change to undo, so nothing was changed.",
        "joiner": "; ",
    },
}


def render(result: changes.Undone | None, turn: Turn) -> str:
    locale = turn.locale
    text = _TEXTS[locale]
    if result is None:
        return text["nothing"]
    if not result.changes:
        return text["not_found"]
    telling = changes.Telling(locale, turn.tz, turn.now)
    oldest_first = sorted(result.changes, key=lambda c: c.id)
    items = text["joiner"].join(changes.tell(c, telling) for c in oldest_first)
    if result.already:
        return text["already"].format(items=items)
    every_kept = all(c.effect == "kept" for c in result.changes)
    return text["all_kept" if every_kept else "done"].format(items=items)


def _revert(turn: Turn, target: list[int]) -> changes.Undone:
    """Undoes ``target`` once per attempt: a copy of this request answers what the first copy did."""
    with writes.writing(turn.sessions, writes.chat_author(turn)) as w:
        if w.copy:
            return changes.Undone.from_dict(w.prior)
        return w.revert(target)


async def handle_undo(turn: Turn) -> Answer:
    target = changes.last_written(turn.messages, turn.seal)
    result: changes.Undone | None = None
    with turn.trace.node("undo", "撤销上一步") as span:
        if target is None:
            span.done("这段对话里没有可撤销的写入")
        else:
            found = target
            result = await anyio.to_thread.run_sync(lambda: _revert(turn, found))
            if result.already:
                span.done("已经撤销过了，没有再改动", changes=[c.id for c in result.changes])
            elif result.changes:
                span.done(f"撤销了 {len(result.changes)} 处改动", changes=[c.id for c in result.changes])
            else:
                span.done("没有找到可撤销的改动", target=target)
    answer = render(result, turn)
    data: dict[str, Any] = {
        "undone": [c.as_dict() for c in result.changes] if result is not None else [],
        "already": bool(result is not None and result.already),
    }
    return Answer(answer, data, outcome=_outcome(result))


def _outcome(result: changes.Undone | None) -> str:
    if result is None:
        return "nothing"
    if not result.changes:
        return "not_found"
    return "already" if result.already else "undone"


async def explain_undo(turn: Turn) -> dict[str, Any]:
    """``{"undo": {"target": [change ids] | None}}``: what "撤销" would revert, without writing."""
    return {"undo": {"target": changes.last_written(turn.messages, turn.seal)}}
