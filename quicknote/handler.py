"""The `quick_note_create` action."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from core import changes, recurrence, series
from core.display import format_when
from core.estimates import minutes_of
from core.graphrun import run_nodes
from core.locale import Locale
from core.turn import Answer, Turn
from quicknote import steps
from quicknote.graph import Extract, quick_note_graph
from quicknote.multi import capture_parts, records, write_and_confirm
from quicknote.offline import offline_extract_note
from quicknote.pending import answers_warning, is_no, is_yes, pending_capture
from quicknote.placement import NOWHERE, Place, read_placement, settle, split_items
from quicknote.rendering import NEAR_LIST, confirmation, list_confirmation
from quicknote.split import split_note
from quicknote.state import NoteDeps, NoteState

DESCRIPTION = (
    "随口记: the user wants to CAPTURE one or more new tasks or reminders ('帮我记一下明天下午三点交报告', "
    "'提醒我周五交报告', '添加待办：洗车', '明天买牛奶，周五交报告'), or says yes to adding a task "
    "Suikou just warned already exists ('要', 'yes, add it'), or no to it ('算了', 'no thanks'). Writes data."
)


async def handle_quick_note(turn: Turn) -> Answer:
    existing = await steps.existing_tasks(turn)
    if existing is not None:
        # The same turn again (client retry, regenerate, duplicate send): same answer, no new task.
        task_ids = [t.id for t in existing.tasks]
        turn.trace.emit("persist", "info", "这一轮已经记过了，返回原来的确认", {"task_ids": task_ids})
        answer, data = _again(turn, existing)
    else:
        answer, data = await _capture(turn)
    outcome, tally = _counted(data)
    return Answer(answer, data, change_ids=tuple(data.get("change_ids", ())), outcome=outcome, tally=tally)


OUTCOMES = ("written", "again", "asked_duplicate", "declined", "clarify")
TALLIES = ("notes_written", "notes_deduplicated", "near_duplicates")


def _counted(data: dict[str, Any]) -> tuple[str, dict[str, int]]:
    """What the answer did, for metrics: its outcome, and how many notes were written or not again."""
    tasks = data.get("tasks") or ([data["task"]] if "task" in data else [])
    if tasks:
        fresh = bool(data.get("created"))
        return ("written", {"notes_written": len(tasks)}) if fresh else ("again", {"notes_deduplicated": len(tasks)})
    if "duplicate_of" in data:
        return "asked_duplicate", {"near_duplicates": 1}
    if data.get("declined"):
        return "declined", {}
    return "clarify", {}


def _said_estimates(turn: Turn, count: int) -> list[str | None]:
    """The estimate each part of the message said, read again by the rules (no model call), so a
    retry names what was not saved as the first answer did; none when the parts no longer line up."""
    parts = split_note(turn.text, turn.now, turn.tz)
    if len(parts) != count:
        return [None] * count
    return [offline_extract_note(part, turn.now, turn.tz).estimate_text for part in parts]


def _again(turn: Turn, existing: steps.Written) -> tuple[str, dict[str, Any]]:
    tasks = existing.tasks
    estimates = _said_estimates(turn, len(tasks))
    if len(tasks) == 1:
        answer = confirmation(tasks[0], turn.tz, turn.now, turn.locale, again=True, estimate=estimates[0])
        data: dict[str, Any] = {"task": records(tasks, turn)[0], "created": False}
    else:
        answer = list_confirmation(tasks, turn.tz, turn.now, turn.locale, again=True, estimates=estimates)
        data = {"tasks": records(tasks, turn), "created": False}
    # A regenerate replaces the first answer: carry the same write record, so "撤销" still finds it.
    if existing.change_ids:
        answer = changes.marker(answer, existing.change_ids, turn.seal)
        data["change_ids"] = existing.change_ids
    return answer, data


# The answer to "算了" after a near-duplicate warning: nothing added, the task that exists kept.
DECLINED: dict[Locale, str] = {
    "zh": "好的，没有再记，已有的那条保持不变。",
    "en": "OK, nothing was added; the task you already have is unchanged.",
}


async def _capture(turn: Turn) -> tuple[str, dict[str, Any]]:
    sentence, check = turn.text, turn.config.near_duplicates == "ask"
    if is_no(turn.text) and answers_warning(turn.messages):
        turn.trace.emit("duplicate", "info", "你决定不再记，什么都没有写入", {"declined": True})
        return DECLINED[turn.locale], {"declined": True, "created": False}
    if is_yes(turn.text):
        pending, asked = pending_capture(turn.messages, turn.seal)
        if pending is not None:
            # "要" after "已有「交电费」…还要再记一条吗？": write what the warning carried, no model call.
            turn.trace.emit("duplicate", "info", "你确认要再记，按上一轮的内容写入", {"notes": len(pending.notes)})
            outcome = await write_and_confirm(turn, pending.task_data(), pending.shown_estimates())
            return outcome.text, outcome.data
        if asked is not None:
            # The warning's record is gone (a client that drops it): read that message again.
            sentence, check = asked, False
    placement = read_placement(sentence)
    place = NOWHERE
    if placement.placed:
        settled = await turn.read(lambda session: settle(session, turn.user_id, placement))
        if not isinstance(settled, Place):  # a near miss of a list the user has: asked, nothing written
            near = settled.near[0]
            turn.trace.emit("clarify", "info", f"「{placement.list_name}」像是「{near}」，先问清楚", {"near": near})
            text = NEAR_LIST[turn.locale].format(near=near, said=placement.list_name, rest=placement.rest)
            return text, {}
        sentence, place = placement.rest, settled
    parts = split_note(sentence, turn.now, turn.tz)
    if len(parts) == 1 and place.list_name:  # "记到购物清单：牛奶、鸡蛋": a list's items, one task each
        parts = split_items(sentence)
    if len(parts) > 1:
        outcome = await capture_parts(turn, parts, check_duplicates=check, place=place)
        return outcome.text, outcome.data
    state = NoteState(sentence=sentence, now=turn.now, tz=turn.tz, locale=turn.locale)
    state.list_name, state.labels = place.list_name, list(place.labels)
    answer = await run_nodes(quick_note_graph(), Extract(), state=state, deps=NoteDeps(turn, check))
    data: dict[str, Any] = {}
    if state.task is not None:
        data = {"task": records([state.task], turn)[0], "created": state.created, "change_ids": state.change_ids}
    elif state.duplicate_of is not None:
        data = {"duplicate_of": records([state.duplicate_of], turn)[0], "created": False}
    return answer, data


async def explain_note(turn: Turn) -> dict[str, Any]:
    """``{"note": …}``: extract → time_anchor → priority without writing anything (brief §9).

    A message naming several tasks also gets ``"notes"``: every part (``note`` is the first). A list
    or labels the message names are shown as said (``list``, ``labels``; a topic as ``topic``), before
    they are read against the user's lists."""
    placement = read_placement(turn.text)
    parts = split_note(placement.rest, turn.now, turn.tz)
    if len(parts) == 1 and placement.list_name:
        parts = split_items(placement.rest)
    said = {"list": placement.list_name, "labels": list(placement.labels), "topic": placement.topic}
    placed = {k: v for k, v in said.items() if v}
    notes = [{**await _explain_part(part, turn), **placed} for part in parts]
    out: dict[str, Any] = {"note": notes[0]}
    if len(notes) > 1:
        out["notes"] = notes
    return out


async def _explain_part(sentence: str, turn: Turn) -> dict[str, Any]:
    state = NoteState(sentence=sentence, now=turn.now, tz=turn.tz, locale=turn.locale)
    draft = await steps.extract_step(state, turn)
    steps.anchor_deadline(state)
    steps.priority_step(state)
    zone = ZoneInfo(turn.tz)
    # The estimate's minutes; one said without an amount ("几个小时") is shown as not saved.
    minutes = minutes_of(draft.estimate_text) if draft.estimate_text else None
    unsaved = {"estimate_unsaved": draft.estimate_text} if draft.estimate_text and minutes is None else {}
    if state.unread_repeat:  # said, not readable: the note would be written once, and say so
        unsaved["repeat_unread"] = state.unread_repeat
    rule = series.rule_of_stored(state.recurrence)
    return {
        "title": draft.title,
        "priority_group": state.priority_group,
        "deadline_at": state.deadline_at.astimezone(zone).isoformat() if state.deadline_at else None,
        "urgency_threshold_at": (
            state.urgency_threshold_at.astimezone(zone).isoformat() if state.urgency_threshold_at else None
        ),
        "recurrence": {"rule": rule.rule, "text": recurrence.describe(rule, turn.locale)} if rule else None,
        "estimate_minutes": minutes,
        **unsaved,
    }


async def propose_note(turn: Turn) -> str:
    """The router's question when this message is probably a note: what would be written, and when."""
    note = (await explain_note(turn))["note"]
    title = note["title"] or turn.text.strip()
    deadline = note["deadline_at"]
    when = format_when(datetime.fromisoformat(deadline), turn.tz, turn.now, turn.locale) if deadline else None
    if note.get("recurrence"):  # "（12月9日 周三 23:59，每月农历初一）"
        when = (
            f"{when}，{note['recurrence']['text']}" if turn.locale == "zh" else f"{when}, {note['recurrence']['text']}"
        )
    if turn.locale == "en":
        return f"Shall I note “{title}”" + (f" ({when})?" if when else "?")
    return f"要我记下「{title}」" + (f"（{when}）吗？" if when else "吗？")
