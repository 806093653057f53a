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

from datetime import datetime
from typing import Any

import anyio

from core import attempts, changes
from core.display import format_when, group_label
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

_TEXTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "done": "已撤销：{items}",
        "all_kept": "没有改动，都已经被后来的修改覆盖：{items}",
        "already": "这一步已经撤销过了，没有再改动：{items}",
        "nothing": "没有可以撤销的操作：这段对话里我还没有替你记下或改动任务。",
        "not_found": "没有找到可以撤销的改动，什么都没有改。",
        "joiner": "；",
        "create": "新建「{title}」",
        "create_due": "新建「{title}」（{when} 截止）",
        "complete": "把「{title}」标记为完成",
        "reopen": "把「{title}」改回未完成",
        "update": "修改「{title}」",
        "update_detail": "修改「{title}」（{fields}）",
        "field_joiner": "，",
        "title": "标题改回「{value}」",
        "priority_group": "改回{value}",
        "deadline_at": "截止改回 {value}",
        "urgency_threshold_at": "紧急时间改回 {value}",
        "none": "无",
        "gone": "（任务已不在，无需恢复）",
        "kept": "（{fields}）",
        "kept_field": "{name}后来又改过，保留了{value}",
        "kept_names": "标题|优先级|截止时间|紧急时间|完成状态",
        "open": "未完成",
        "done_state": "已完成",
    },
    "en": {
        "done": "Undone: {items}",
        "all_kept": "Nothing changed, later edits replaced all of it: {items}",
        "already": "Already undone, nothing changed: {items}",
        "nothing": "There's nothing to undo: I haven't saved or changed any task in this conversation.",
        "not_found": "I couldn't find a change to undo, so nothing was changed.",
        "joiner": "; ",
        "create": 'created "{title}"',
        "create_due": 'created "{title}" (due {when})',
        "complete": 'marked "{title}" as done',
        "reopen": 'reopened "{title}"',
        "update": 'changed "{title}"',
        "update_detail": 'changed "{title}" ({fields})',
        "field_joiner": ", ",
        "title": 'title back to "{value}"',
        "priority_group": "back to {value}",
        "deadline_at": "deadline back to {value}",
        "urgency_threshold_at": "urgent-from back to {value}",
        "none": "none",
        "gone": " (the task no longer exists)",
        "kept": " ({fields})",
        "kept_field": "{name} was changed again since, kept {value}",
        "kept_names": "the title|the priority|the deadline|the urgent-from time|its completion",
        "open": "not done",
        "done_state": "done",
    },
}


def _when(value: str | None, turn: Turn, locale: Locale) -> str:
    if value is None:
        return _TEXTS[locale]["none"]
    return format_when(datetime.fromisoformat(value), turn.tz, turn.now, locale)


def describe(change: changes.ChangeRow, turn: Turn, locale: Locale) -> str:
    """One change as the user reads it ("新建「买牛奶」（12月1日 周二 18:00 截止）")."""
    text = _TEXTS[locale]
    after, before = change.after, change.before or {}
    if change.kind == "create":
        deadline = after.get("deadline_at")
        out = (
            text["create_due"].format(title=after["title"], when=_when(deadline, turn, locale))
            if deadline
            else text["create"].format(title=after["title"])
        )
    elif change.kind in ("complete", "reopen"):
        out = text[change.kind].format(title=before.get("title", after["title"]))
    else:
        fields = []
        for name in ("title", "priority_group", "deadline_at", "urgency_threshold_at"):
            if name not in before or before[name] == after.get(name) or name in change.kept:
                continue
            value = before.get(name)
            if name == "priority_group":
                shown = group_label(int(value), locale) if value is not None else text["none"]
            elif name == "title":
                shown = str(value)
            else:
                shown = _when(value, turn, locale)
            fields.append(text[name].format(value=shown))
        title = after["title"]
        out = (
            text["update_detail"].format(title=title, fields=text["field_joiner"].join(fields))
            if fields
            else text["update"].format(title=title)
        )
    if change.effect == "gone":
        out += text["gone"]
    if change.kept:
        out += text["kept"].format(fields=text["field_joiner"].join(_kept(change.kept, turn, locale)))
    return out


_KEPT_ORDER = ("title", "priority_group", "deadline_at", "urgency_threshold_at", "is_completed")


def _kept(kept: dict[str, Any], turn: Turn, locale: Locale) -> list[str]:
    """ "截止时间后来又改过，保留了 12月20日 周日 18:00": each field undo left at its later value."""
    text = _TEXTS[locale]
    names = dict(zip(_KEPT_ORDER, text["kept_names"].split("|"), strict=True))
    out = []
    for name in _KEPT_ORDER:
        if name not in kept:
            continue
        value = kept[name]
        if name == "priority_group":
            shown = group_label(int(value), locale)
        elif name == "title":
            shown = f"「{value}」" if locale == "zh" else f'"{value}"'
        elif name == "is_completed":
            shown = text["done_state"] if value else text["open"]
        else:
            shown = _when(value, turn, locale)
        space = " " if locale == "zh" and name in ("deadline_at", "urgency_threshold_at") and value else ""
        out.append(text["kept_field"].format(name=names[name], value=space + shown))
    return out


def render(result: changes.Undone | None, turn: Turn) -> str:
    locale = turn.locale
    text = _TEXTS[locale]
    if result is None:
        return text["nothing"]
    if not result.changes:
        return text["not_found"]
    oldest_first = sorted(result.changes, key=lambda c: c.id)
    items = text["joiner"].join(describe(c, turn, locale) for c in oldest_first)
    if result.already:
        return text["already"].format(items=items)
    every_kept = all(c.effect == "kept" for c in result.changes)
    return text["all_kept" if every_kept else "done"].format(items=items)


def _revert(turn: Turn, target: list[int]) -> changes.Undone:
    """Undoes ``target`` once per attempt: a copy of this request answers what the first copy did."""
    with turn.sessions() as session:
        claim = attempts.claim(session, user_id=turn.user_id, keys=turn.attempt_keys(), now=turn.now)
        if not claim.owner and claim.result:
            session.rollback()
            return changes.Undone.from_dict(claim.result)
        undone = changes.undo(session, user_id=turn.user_id, change_ids=target, now=turn.now)
        if undone.already or not undone.changes or not claim.owner:
            session.rollback()  # nothing reverted now: no attempt to remember (the claim goes too)
            return undone
        attempts.finish(session, claim, undone.as_dict())
        session.commit()
        return undone


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
    turn.on_content(answer)
    data: dict[str, Any] = {
        "undone": [c.as_dict() for c in result.changes] if result is not None else [],
        "already": bool(result is not None and result.already),
    }
    return Answer(answer, data)


async def explain_undo(turn: Turn) -> dict[str, Any]:
    """``{"undo": {"target": [change ids] | None}}``: what "撤销" would revert, without writing."""
    return {"undo": {"target": changes.last_written(turn.messages, turn.seal)}}
