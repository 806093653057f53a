"""The `task_update` action: "不对，是下周三", "优先级调高", "标题改成交季度报告" correct a task.

**Which task.** The one the previous write of the conversation touched: the newest carried ``w1``
record (:func:`core.changes.last_written`), read back from the user's own write log (ids that are
not theirs read as missing). A record of several tasks (a multi-capture) → it asks which, unless
the message names one of them. No record (or a forged one), and the message names a task ("把交报告
改到周五") → the user's open tasks are matched by title (:mod:`core.matching`). The task is gone →
said. Nothing to correct → said; nothing is written either way.

**What changes.**

* deadline — the time phrase is anchored by :mod:`core.timeanchor`; a day without a clock ("下周三")
  keeps the old deadline's time of day. A group 2/4 task whose urgency threshold was set gets it
  moved with the deadline (24 h before, as notes do); none set → none set.
* priority — mapping onto the groups (1 重要且紧急, 2 重要不紧急, 3 简单不重要, 4 不简单不重要):
  an explicit group ("改成第一象限") wins; 调高 → 2→1, 3→1, 4→2 (1 stays); 调低 → 1→2, 2→4, 3→4
  (4 stays); otherwise words: urgent (紧急/急) → 1, or 3 when also said unimportant; important
  (重要) → 2 for a group 3/4 task (1/2 stay); unimportant (不重要) → 4 (3 when said easy) for a 1/2
  task; not urgent (不急) → 1→2, others stay.
* title — the new words, re-indexed.
* estimate — the amount read by :func:`core.estimates.minutes_of` ("两个小时" → 120; a day is 8 hours of
  work), or none ("写周报不用估时间了"). An amount without a keepable number ("好几个小时") writes nothing
  and says so. Without a named task it is the one just written, or the one the previous answer showed
  alone (a one-line list, "「写周报」还没有预计用时。"; :func:`taskupdate.offline.focused_title`), when that
  answer wrote nothing. Said back as "好，「写周报」预计用时改为2小时。".

**Writing.** One transaction in a worker thread: the attempt is claimed first (:mod:`core.attempts`),
the task is read under a row lock (two corrections at once never lose one), then
``core.store.update_task`` and a ``kind="update"`` change with the fields it touched; the answer
carries its id (``w1``), so "撤销" restores the old values. A copy of the same attempt (a retry, a
double click, the same request on another replica) finds the attempt claimed and repeats the first
copy's answer, writing nothing: "优先级调低" sent twice lowers the group once.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

import anyio.to_thread
from pydantic import ValidationError
from sqlmodel import Session

from core import carry, changes, estimates, listnames, lists, reminderspec, remindwords, resolve, writes
from core.display import format_when, group_label, task_record
from core.lexicon import priority_signals
from core.locale import Locale
from core.models import Task, TaskChange, TaskUpdate
from core.store import get_task, task_row
from core.timeanchor import day_before, deadline_of, resolve_time
from core.turn import Answer, Turn
from taskupdate.offline import Correction, read_correction, shown_titles

__all__ = ["CLARIFY", "DESCRIPTION", "explain_update", "handle_update", "new_group"]

DESCRIPTION = (
    "改: the user CORRECTS a task — usually the one just written ('不对，是下周三', '改成明天下午', "
    "'优先级调高', '不急', '标题改成交季度报告', 'no, make it next Wednesday', 'rename it to …') or one "
    "they name ('把交报告改到周五'), including how long it takes ('写周报大概要两个小时', '写周报不用估时间了', "
    "'the report will take about 2 hours'), its list ('把给猫剪指甲放到家务清单', 'move the report to my work "
    "list') and its labels ('给交方案加个#紧急标签', '去掉交方案的工作标签'). Writes data. A how-to question ('怎么改优先级') is chat; "
    "'写周报大概要多久' asks (a query)."
)

CLARIFY: dict[Locale, str] = {
    "zh": "你是想改刚才那条任务吗？说一下要改什么，例如「不对，是下周三」或「优先级调高」。这次什么都没有改动。",
    "en": 'Do you want to correct the task just written? Say what to change, e.g. "no, make it next '
    'Wednesday" or "rename it to …". Nothing was changed.',
}

SHOWN_CANDIDATES = 5
_FIELD_NAMES = {
    "deadline": "deadline_at",
    "priority": "priority_group",
    "title": "title",
    "estimate": "estimate_minutes",
    "list": "list_name",
    "labels": "labels",
}

Kind = Literal[
    "written", "again", "same", "ask", "gone", "none", "nothing", "unreadable", "no_deadline", "passed", "near_list"
]


@dataclass
class _Outcome:
    kind: Kind
    task: dict[str, Any] | None = None
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    candidates: list[tuple[str, datetime | None]] = field(default_factory=list)
    change_id: int | None = None
    title: str = ""


# --- the new values ----------------------------------------------------------------------------


def new_group(current: int, correction: Correction) -> int:
    """The group after a priority correction (see the module docstring for the mapping)."""
    if correction.direction == "up":
        return {1: 1, 2: 1, 3: 1, 4: 2}.get(current, current)
    if correction.direction == "down":
        return {1: 2, 2: 4, 3: 4, 4: 4}.get(current, current)
    words = correction.value
    low = words.lower()
    if low in ("urgent", "very urgent", "more urgent", "high"):
        return 1
    if low in ("important", "more important"):
        return 2 if current in (3, 4) else current
    if low in ("not important", "unimportant", "low"):
        return 4 if current in (1, 2) else current
    if low in ("not urgent", "no rush"):
        return 2 if current == 1 else current
    s = priority_signals(words)
    if s.explicit_group is not None and 1 <= s.explicit_group <= 4:
        return s.explicit_group
    if s.urgent and not s.not_urgent:
        return 3 if s.unimportant else 1
    if s.unimportant:
        return (3 if s.easy else 4) if current in (1, 2) else current
    if s.important:
        return 2 if current in (3, 4) else current
    if s.not_urgent:
        return 2 if current == 1 else current
    return current


def _new_deadline(value: str, old: datetime | None, turn: Turn) -> datetime | None:
    window = resolve_time(value, turn.now, turn.tz)
    if window is None:
        return None
    deadline = deadline_of(window)
    if deadline is None:
        return None
    zone = ZoneInfo(turn.tz)
    if not window.has_clock_time and old is not None and window.granularity == "day":
        # "下周三" after "周三 18:00": the day changes, the time of day stays.
        old_local = old.astimezone(zone)
        day = deadline.astimezone(zone)
        deadline = day.replace(hour=old_local.hour, minute=old_local.minute, second=old_local.second)
    return deadline


def _reminder_said(value: str) -> remindwords.Said:
    """The reminder a correction's value names: "" (at the deadline), a lead, at the deadline, a time."""
    if not value.strip():
        return remindwords.Said("implicit", value)
    lead = remindwords.lead_of(value)
    if lead is not None:
        return remindwords.Said("lead", value, lead=lead)
    if re.fullmatch(r"(?:到点|准时|按时|到时候?|截止时|when it'?s due|on time|at the deadline)", value.strip(), re.I):
        return remindwords.Said("due", value, lead=timedelta(0))
    return remindwords.Said("at", value, at_text=value)


def _reminders(correction: Correction, task: Task, turn: Turn) -> dict[str, Any] | str:
    """The task's reminders after the correction, or why they can't be ("no_deadline", "passed", "unreadable")."""
    said = _reminder_said(correction.value)
    kept = remindwords.keep(said, deadline=task.deadline_at, recurrence=task.recurrence, now=turn.now, tz=turn.tz)
    if kept.spec is None:
        return (
            "no_deadline"
            if kept.needs_deadline or (task.deadline_at is None and said.kind != "at")
            else ("passed" if kept.passed is not None else "unreadable")
        )
    specs = [*reminderspec.specs_of(task.reminders), kept.spec] if correction.add else [kept.spec]
    return {"reminders": reminderspec.stored(specs)}


def _labels(correction: Correction, task: Task) -> dict[str, Any]:
    """The task's labels with the one said added or taken off (as they were when it had or lacked it)."""
    held = listnames.label_list(task.labels)
    key = listnames.key(correction.value)
    kept = [name for name in held if listnames.key(name) != key]
    return {"labels": kept if correction.clear else [*held, correction.value] if len(kept) == len(held) else held}


def _placed(session: Session, correction: Correction, task: Task, turn: Turn) -> dict[str, Any] | _Outcome:
    """A list or labels proposal; a near miss of one of the user's lists is asked about instead."""
    if correction.field == "labels":
        return _labels(correction, task)
    if correction.clear:
        return {"list_name": None}
    found = lists.resolve_list(session, turn.user_id, correction.value)
    if found.name is None:
        return _Outcome("near_list", title=task.title, candidates=[(name, None) for name in found.near])
    return {"list_name": found.name}


def _proposal(correction: Correction, task: Task, turn: Turn) -> dict[str, Any] | None:
    """The fields to set on ``task``; None when the value cannot be read (e.g. an unknown time)."""
    if correction.field == "reminder":
        found = _reminders(correction, task, turn)
        return found if isinstance(found, dict) else None
    if correction.field == "title":
        return {"title": correction.value}
    if correction.field == "estimate":
        if correction.clear:
            return {"estimate_minutes": None}
        minutes = estimates.minutes_of(correction.value)
        return {"estimate_minutes": minutes} if minutes is not None else None
    if correction.field == "priority":
        group = new_group(task.priority_group, correction)
        data: dict[str, Any] = {"priority_group": group}
        if group in (2, 4) and task.priority_group not in (2, 4) and task.deadline_at is not None:
            data["urgency_threshold_at"] = task.urgency_threshold_at or day_before(task.deadline_at, turn.tz)
        return data
    deadline = _new_deadline(correction.value, task.deadline_at, turn)
    if deadline is None:
        return None
    data = {"deadline_at": deadline}
    if task.priority_group in (2, 4) and task.urgency_threshold_at is not None:
        data["urgency_threshold_at"] = day_before(deadline, turn.tz)
    return data


# --- the target --------------------------------------------------------------------------------


def _shown_before(turn: Turn) -> list[str] | None:
    """The titles of the tasks the previous answer showed (a list, or a sentence about one task, e.g.
    "「写周报」还没有预计用时。"), when that answer wrote nothing; None when it wrote (its ``w1`` record
    names the task) or there is none."""
    previous, seen_user = None, False
    for message in reversed(turn.messages):
        if message.role == "user":
            seen_user = True
        elif seen_user and message.role == "assistant":
            previous = message.text
            break
    if previous is None or carry.read(previous, changes.CARRY_KIND, turn.seal) is not None:
        return None
    return shown_titles(carry.strip(previous))


def _target(session: Session, turn: Turn, correction: Correction) -> Task | _Outcome:
    last = changes.last_written(turn.messages, turn.seal)
    words = correction.words
    shown = _shown_before(turn) if correction.field == "estimate" and words is None else None
    if shown and len(shown) > 1:  # "这个要一个小时" after a list of several: which one?
        found_each = [resolve.resolve(session, turn.user_id, title) for title in shown[:SHOWN_CANDIDATES]]
        tasks = [r.task for r in found_each if r.kind == "one"]
        if len(tasks) > 1:
            return _Outcome("ask", candidates=[(t.title, t.deadline_at) for t in tasks])
        shown = [tasks[0].title] if tasks else None
    if shown:
        words, last = shown[0], None  # "这个大概要一个小时" after "「写周报」还没有预计用时。"
    found = resolve.target(session, turn.user_id, words, last)
    if found.kind == "one":
        return found.task
    if found.kind == "several":
        return _Outcome("ask", candidates=[(t.title, t.deadline_at) for t in found.tasks][:SHOWN_CANDIDATES])
    if found.kind == "none":
        return _Outcome("none", title=words or "")
    return _Outcome(found.kind, title=found.title)


def _again(session: Session, turn: Turn, change_ids: list[int]) -> _Outcome:
    """The answer of the copy of this attempt that wrote: its change, the task as it is now."""
    copy = session.get(TaskChange, change_ids[0]) if change_ids else None
    if copy is None:
        return _Outcome("gone")
    before = json.loads(copy.before) if copy.before else {}
    after = json.loads(copy.after)
    full_before = {**after, **before}
    changed = [name for name in changes.SNAPSHOT_FIELDS if full_before.get(name) != after.get(name)]
    task = get_task(session, turn.user_id, copy.task_id) if copy.task_id is not None else None
    record = task_record(task_row(task, now=turn.now), turn.now) if task is not None else None
    return _Outcome("again", record, full_before, after, changed, change_id=copy.id)


def _decide(turn: Turn, correction: Correction) -> _Outcome:
    with writes.writing(turn.sessions, writes.chat_author(turn)) as w:
        if w.copy:
            return _again(w.session, turn, w.claim.change_ids if w.claim else [])
        found = _target(w.session, turn, correction)
        target = w.lock(found.id) if isinstance(found, Task) and found.id is not None else None
        if target is None:
            return found if isinstance(found, _Outcome) else _Outcome("gone")
        if correction.field == "reminder" and isinstance(why := _reminders(correction, target, turn), str):
            return _Outcome(why, title=target.title)  # type: ignore[arg-type]
        if correction.field in ("list", "labels"):
            placed = _placed(w.session, correction, target, turn)
            if isinstance(placed, _Outcome):
                return placed
            proposal: dict[str, Any] | None = placed
        else:
            proposal = _proposal(correction, target, turn)
        if proposal is None:
            return _Outcome("unreadable", title=target.title)
        before = changes.snapshot(target)
        try:
            data = TaskUpdate(**proposal)
        except ValidationError:
            return _Outcome("unreadable", title=target.title)
        change_id = w.update(target, data)
        if change_id is None:
            record = task_record(task_row(target, now=turn.now), turn.now)
            return _Outcome("same", record, before, before, [], title=target.title)
        after = changes.snapshot(target)
        changed = [name for name in changes.SNAPSHOT_FIELDS if before.get(name) != after.get(name)]
        record = task_record(task_row(target, now=turn.now), turn.now)
    return _Outcome("written", record, before, after, changed, change_id=change_id)


# --- words -------------------------------------------------------------------------------------


def _when(iso: Any, turn: Turn) -> str:
    if not iso:
        return "无" if turn.locale == "zh" else "none"
    return format_when(datetime.fromisoformat(str(iso)), turn.tz, turn.now, turn.locale)


def _change_parts(outcome: _Outcome, turn: Turn) -> list[str]:
    en = turn.locale == "en"
    before, after = outcome.before, outcome.after
    parts: list[str] = []
    if "title" in outcome.changed:
        parts.append(f'title → "{after["title"]}"' if en else f"标题 →「{after['title']}」")
    if "deadline_at" in outcome.changed:
        arrow = f"{_when(before.get('deadline_at'), turn)} → {_when(after.get('deadline_at'), turn)}"
        parts.append(f"due {arrow}" if en else f"截止 {arrow}")
    if "reminders" in outcome.changed:
        parts.append(_reminder_part(outcome, turn))
    if "estimate_minutes" in outcome.changed:
        arrow = f"{_estimate(before.get('estimate_minutes'), turn)} → {_estimate(after.get('estimate_minutes'), turn)}"
        parts.append(f"estimate {arrow}" if en else f"预计用时 {arrow}")
    if "list_name" in outcome.changed:
        arrow = f"{_named([before.get('list_name')], turn)} → {_named([after.get('list_name')], turn)}"
        parts.append(f"list {arrow}" if en else f"清单 {arrow}")
    if "labels" in outcome.changed:
        tags = [listnames.label_list(outcome.before.get("labels")), listnames.label_list(after.get("labels"))]
        arrow = " → ".join(_named([f"#{t}" for t in names], turn) for names in tags)
        parts.append(f"labels {arrow}" if en else f"标签 {arrow}")
    if "priority_group" in outcome.changed:
        arrow = (
            f"{group_label(int(before['priority_group']), turn.locale)} → "
            f"{group_label(int(after['priority_group']), turn.locale)}"
        )
        parts.append(f"priority {arrow}" if en else f"优先级 {arrow}")
    return parts


def _named(names: list[str | None], turn: Turn) -> str:
    shown = [n for n in names if n]
    return " ".join(shown) if shown else ("无" if turn.locale == "zh" else "none")


def _reminder_part(outcome: _Outcome, turn: Turn) -> str:
    """ "提醒 → 12月3日 周四 14:00" (the first firing of the reminders now set), or "提醒 → 无"."""
    after = outcome.after
    deadline = datetime.fromisoformat(after["deadline_at"]) if after.get("deadline_at") else None
    moments = [
        m
        for spec in reminderspec.specs_of(after.get("reminders"))
        if (m := remindwords.first_firing(spec, deadline, after.get("recurrence"), turn.now)) is not None
    ]
    when = _when(min(moments).isoformat(), turn) if moments else _when(None, turn)
    return f"reminder → {when}" if turn.locale == "en" else f"提醒 → {when}"


def _estimate(minutes: Any, turn: Turn) -> str:
    if not minutes:
        return "无" if turn.locale == "zh" else "none"
    return estimates.text_of(int(minutes), turn.locale)


def _estimate_text(outcome: _Outcome, turn: Turn) -> str:
    """ "好，「写周报」预计用时改为2小时（原为1小时）。" / "OK, “write report” now takes about 2 h." """
    title = outcome.before.get("title", "")
    was, now = outcome.before.get("estimate_minutes"), outcome.after.get("estimate_minutes")
    if turn.locale == "en":
        said = f"now takes about {_estimate(now, turn)}" if now else "no longer has an estimate"
        return f"OK, “{title}” {said}" + (f" (was {_estimate(was, turn)})." if was else ".")
    said = f"预计用时改为{_estimate(now, turn)}" if now else "不再有预计用时"
    return f"好，「{title}」{said}" + (f"（原为{_estimate(was, turn)}）。" if was else "。")


def _written_text(outcome: _Outcome, turn: Turn) -> str:
    title = outcome.before.get("title", "")
    if outcome.changed == ["estimate_minutes"]:
        return _estimate_text(outcome, turn)
    parts = _change_parts(outcome, turn)
    if turn.locale == "en":
        return f'Updated: "{title}" ' + "; ".join(parts)
    return f"已改好：「{title}」" + "；".join(parts)


def _ask_text(outcome: _Outcome, turn: Turn) -> str:
    en = turn.locale == "en"
    lines = []
    for i, (title, deadline) in enumerate(outcome.candidates, 1):
        when = format_when(deadline, turn.tz, turn.now, turn.locale) if deadline is not None else None
        if en:
            lines.append(f"{i}. {title}" + (f" (due {when})" if when else ""))
        else:
            lines.append(f"{i}. {title}" + (f"（截止 {when}）" if when else ""))
    if en:
        return "\n".join(["Which task should I change?", *lines, "Say its name; nothing was changed yet."])
    return "\n".join(["要改哪一条？", *lines, "说一下任务名，这次还没有改动。"])


def _render(outcome: _Outcome, correction: Correction | None, turn: Turn) -> Answer:
    en = turn.locale == "en"
    if outcome.kind in ("written", "again"):
        text = _written_text(outcome, turn)
        data: dict[str, Any] = {
            "task": outcome.task,
            "before": {name: outcome.before.get(name) for name in outcome.changed},
            "changed": outcome.changed,
        }
        if outcome.change_id is not None:
            text = changes.marker(text, [outcome.change_id], turn.seal)
            data["change_id"] = outcome.change_id
            data["change_ids"] = [outcome.change_id]
        return Answer(text, data)
    if outcome.kind == "same" and correction is not None and correction.field == "estimate":
        minutes = (outcome.task or {}).get("estimate_minutes") or outcome.before.get("estimate_minutes")
        if en:
            had = f"already takes about {_estimate(minutes, turn)}" if minutes else "has no estimate already"
            text = f"“{outcome.title}” {had}; nothing was changed."
        else:
            had = f"的预计用时本来就是{_estimate(minutes, turn)}" if minutes else "本来就没有预计用时"
            text = f"「{outcome.title}」{had}，没有改动。"
        return Answer(text, {"task": outcome.task, "before": {}, "changed": []})
    if outcome.kind == "near_list":
        near = outcome.candidates[0][0] if outcome.candidates else ""
        said = correction.value if correction is not None else ""
        text = (
            f'Did you mean your list "{near}"? "{outcome.title}" was not moved; say the list\'s name, or quote '
            f'"{said}" to make a new list.'
            if en
            else f"你是说「{near}」吗？「{outcome.title}」还没有移动；说清单的全名，或者给「{said}」加上引号新建一个清单。"
        )
        return Answer(text, {"changed": [], "candidates": [near]})
    if outcome.kind == "same" and correction is not None and correction.field == "labels" and correction.clear:
        text = (
            f'"{outcome.title}" has no #{correction.value} label; nothing was changed.'
            if en
            else f"「{outcome.title}」没有 #{correction.value} 标签，没有改动。"
        )
        return Answer(text, {"task": outcome.task, "before": {}, "changed": []})
    if outcome.kind == "same":
        text = (
            f'"{outcome.title}" already has that; nothing was changed.'
            if en
            else f"「{outcome.title}」本来就是这样，没有改动。"
        )
        return Answer(text, {"task": outcome.task, "before": {}, "changed": []})
    if outcome.kind == "ask":
        titles = [title for title, _deadline in outcome.candidates]
        return Answer(_ask_text(outcome, turn), {"candidates": titles, "changed": []})
    if outcome.kind == "gone":
        name = f"「{outcome.title}」" if outcome.title else "那条任务"
        text = (
            "That task no longer exists; nothing was changed."
            if en
            else f"{name}已经不在了，没有可改的，什么都没有改动。"
        )
        return Answer(text, {"changed": [], "gone": True})
    if outcome.kind == "none":
        text = (
            f'No open task matches "{outcome.title}"; nothing was changed.'
            if en
            else f"没有找到标题含「{outcome.title}」的未完成任务，什么都没有改动。"
        )
        return Answer(text, {"changed": [], "matches": 0})
    if outcome.kind == "unreadable" and correction is not None and correction.field == "estimate":
        return Answer(_estimate_unreadable(correction.value, outcome.title, turn), {"changed": []})
    if outcome.kind == "unreadable":
        value = correction.value if correction is not None else ""
        text = f'I couldn\'t read "{value}"; nothing was changed.' if en else f"没看懂「{value}」，什么都没有改动。"
        return Answer(text, {"changed": []})
    if outcome.kind == "no_deadline":
        text = (
            f'"{outcome.title}" has no deadline to remind you before; set one first.'
            if en
            else f"「{outcome.title}」没有截止时间，提醒没处算；先定个时间，比如「把{outcome.title}改到周五下午」。"
        )
        return Answer(text, {"changed": []})
    if outcome.kind == "passed":
        text = (
            f'That reminder time for "{outcome.title}" has already passed; nothing was changed.'
            if en
            else f"「{outcome.title}」这个提醒时间已经过了，什么都没有改动。"
        )
        return Answer(text, {"changed": []})
    if outcome.kind == "nothing":
        text = (
            'There is nothing to correct: no task was just written. Say which task, e.g. "move the report to Friday".'
            if en
            else "刚才没有记下或改动任务，没有可改的。要改哪条请说任务名，例如「把交报告改到周五」。"
        )
        return Answer(text, {"changed": []})
    return Answer(CLARIFY[turn.locale], {"changed": []})


def _estimate_unreadable(value: str, title: str, turn: Turn) -> str:
    """An amount that says no number ("好几个小时"), or none at all: asks for one, writes nothing."""
    top = estimates.text_of(estimates.ESTIMATE_MAX, turn.locale)
    name = title or ("这条任务" if turn.locale == "zh" else "the task")
    if turn.locale == "en":
        if not value:
            return f"How long does “{name}” take? Say an amount, e.g. “{name} takes 2 hours”; nothing was changed yet."
        return (
            f"“{value}” is not an amount I can keep (1 min to {top}); the estimate of “{name}” was not changed. "
            f"Say a number, e.g. “{name} takes 2 hours”."
        )
    if not value:
        return f"「{name}」要多久？说个时长，比如「{name}要2小时」；预计用时这次还没有改动。"
    return f"「{value}」不是一个确切的时长（1分钟到{top}），「{name}」的预计用时没有改动。说个数就好，比如「{name}要2小时」。"


async def handle_update(turn: Turn) -> Answer:
    # The router's reading when its rule chose this action; read here when a model did.
    correction = turn.reading if isinstance(turn.reading, Correction) else read_correction(turn.text)
    turn.trace.emit(
        "update",
        "start",
        "找要改的任务",
        {"field": correction.field if correction else None, "value": correction.value if correction else None},
    )
    if correction is None:
        outcome = (
            _Outcome("nothing") if changes.last_written(turn.messages, turn.seal) is None else _Outcome("unreadable")
        )
        if outcome.kind == "unreadable":
            answer = Answer(CLARIFY[turn.locale], {"changed": []})
            turn.trace.emit("update", "end", "没听出要改什么，不改动", {"outcome": "clarify"})
            return dataclasses.replace(answer, outcome="clarify")
    else:
        found = correction
        outcome = await anyio.to_thread.run_sync(lambda: _decide(turn, found))
    turn.trace.emit("update", "end", f"结果：{outcome.kind}", {"outcome": outcome.kind, "changed": outcome.changed})
    answer = _render(outcome, correction, turn)
    ids = (outcome.change_id,) if outcome.change_id is not None else ()
    return dataclasses.replace(answer, change_ids=ids, outcome=outcome.kind)


async def explain_update(turn: Turn) -> dict[str, Any]:
    """``{"update": {"fields": {...}, "words": …}}``: the proposed change, without the database."""
    correction = read_correction(turn.text)
    if correction is None:
        return {"update": {"fields": {}, "words": None}}
    fields: dict[str, Any] = {}
    if correction.field == "title":
        fields["title"] = correction.value
    elif correction.field == "priority":
        fields["priority"] = correction.direction or correction.value
    elif correction.field == "estimate":
        fields["estimate_minutes"] = None if correction.clear else estimates.minutes_of(correction.value)
        fields["estimate_text"] = None if correction.clear else correction.value
    elif correction.field == "list":
        fields["list"] = None if correction.clear else correction.value
    elif correction.field == "labels":
        fields["labels"] = {"remove" if correction.clear else "add": correction.value}
    elif correction.field == "reminder":
        said = _reminder_said(correction.value)
        fields["reminder"] = {"kind": said.kind, "words": said.words, "add": correction.add}
        if said.lead is not None:
            fields["reminder"]["before"] = reminderspec.duration_text(said.lead)
    else:
        deadline = _new_deadline(correction.value, None, turn)
        fields["deadline_at"] = deadline.isoformat() if deadline is not None else None
        fields["time_text"] = correction.value
    return {"update": {"fields": fields, "words": correction.words}}
