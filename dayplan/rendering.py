"""The plan as the user reads it, rendered by code in the turn's language (zh, en).

A plan is a lead (the day, its window, the order, how time was counted), one Markdown list line per
placed task ("- 10:00–11:00 写周报（逾期 2 天；预计1小时）"), then what did not fit and what is left.
Lines are "- " items, not numbered: a numbered line is what a task list looks like
(``core.display.TASK_LINE_RE``), and "再来两个" after a plan is no task-list follow-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from core import series
from core.display import format_when, group_label
from core.estimates import text_of
from core.locale import Locale
from core.store import TaskFacts, TaskRow
from dayplan.plan import Candidate, DayLoad, DayPlan, Slot, overdue_days

__all__ = ["NOT_FIT_SHOWN", "format_day", "reason", "render_plan", "render_week", "slot_line", "span"]

NOT_FIT_SHOWN = 5  # titles named in the "didn't fit" sentence; the rest are counted

_TEXTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "today": "今天",
        "tomorrow": "明天",
        "lead": "{day}（{date}）{window} 可排 {minutes}，{order}：",
        "order": "先逾期的，再{day}截止的，再重要的",
        "defaults": "没写预计用时的，简单的按15分钟、其他按1小时估",
        "lead_defaults": "{day}（{date}）{window} 可排 {minutes}，{order}（{defaults}）：",
        "line": "- {start}–{end} {title}（{facts}）",
        "joiner": "；",
        "estimate": "预计{m}",
        "default": "按{m}估",
        "late": "会晚于截止",
        "overdue_days": "逾期 {n} 天",
        "overdue_hours": "逾期 {n} 小时",
        "overdue_now": "刚逾期",
        "due_day": "{day} {time} 截止",
        "due_when": "{when} 截止",
        "promoted": "临近截止，由「{group}」提前",
        "not_fit": "还有 {n} 件排不下：{items}。",
        "not_fit_more": "还有 {n} 件排不下：{items} 等。",
        "not_fit_item": "{title}（{facts}）",
        "item_joiner": "、",
        "free": "排完还空 {minutes}。",
        "full": "时间排满了。",
        "capped": "要排的任务很多，只看了每类的前 100 件。",
        "moved": "换个排法：把{titles}挪到最后。",
        "moved_title": "「{title}」",
        "moved_more": "等 {n} 件",
        "cycled": "已经轮过一遍，回到最初的排法：",
        "single": "只有一件要排，没有别的排法：",
        "empty": "{day}没有要排的：没有逾期的，没有{day}截止的，也没有重要的任务。",
        "next": "接下来最近的是「{title}」，{when} 截止。",
        "no_next": "之后也没有带截止时间的任务。",
        "over": "今天的工作时间（{window}）已经过了，没有可排的时间。",
        "over_left": "要做的还有 {n} 件：{items}。",
        "over_left_more": "要做的还有 {n} 件：{items} 等。",
        "over_tomorrow": "说「明天怎么安排」可以排到明天。",
        "left_today": "今天截止的 {n} 件留给今天，没有排进来：{titles}。",
        "title": "「{title}」",
    },
    "en": {
        "today": "Today",
        "tomorrow": "Tomorrow",
        "lead": "{day} ({date}), {window}: {minutes} to plan — {order}:",
        "order": "overdue first, then due {day_lower}, then important ones",
        "defaults": "no estimate: 15 min if easy, else 1 h",
        "lead_defaults": "{day} ({date}), {window}: {minutes} to plan — {order} ({defaults}):",
        "line": "- {start}–{end} {title} ({facts})",
        "joiner": "; ",
        "estimate": "about {m}",
        "default": "{m}, assumed",
        "late": "ends after its deadline",
        "overdue_days": "overdue {n} day{s}",
        "overdue_hours": "overdue {n} h",
        "overdue_now": "just overdue",
        "due_day": "due {day_lower} {time}",
        "due_when": "due {when}",
        "promoted": 'due soon, moved up from "{group}"',
        "not_fit": "{n} more {dont} fit: {items}.",
        "not_fit_more": "{n} more {dont} fit: {items}, …",
        "not_fit_item": "{title} ({facts})",
        "item_joiner": ", ",
        "free": "That leaves {minutes} free.",
        "full": "The day is full.",
        "capped": "There are many tasks to plan; only the first 100 of each kind were looked at.",
        "moved": "Another order: {titles} moved to the end.",
        "moved_title": '"{title}"',
        "moved_more": " … ({n} in all)",
        "cycled": "That's every order; back to the first one:",
        "single": "There's only one task to plan, so no other order:",
        "empty": "Nothing to plan {day_lower}: nothing overdue, nothing due {day_lower}, nothing important.",
        "next": 'Next up: "{title}", due {when}.',
        "no_next": "Nothing with a deadline after that either.",
        "over": "Today's working hours ({window}) are over; there's no time left to plan.",
        "over_left": "Still to do: {n} — {items}.",
        "over_left_more": "Still to do: {n} — {items}, …",
        "over_tomorrow": 'Say "plan tomorrow" to plan tomorrow.',
        "left_today": "{n} {tasks} due later today {are} left to today: {titles}.",
        "title": '"{title}"',
    },
}


def _day_name(plan_day: date, today: date, locale: Locale, tz: str) -> str:
    if plan_day == today:
        return _TEXTS[locale]["today"]
    if plan_day == today + timedelta(days=1):
        return _TEXTS[locale]["tomorrow"]
    return format_day(plan_day, tz, locale)


def format_day(day: date, tz: str, locale: Locale, now: datetime | None = None) -> str:
    """ "12月2日 周三" / "Wed Dec 2": ``core.display.format_when`` without the time."""
    noon = datetime.combine(day, time(12), ZoneInfo(tz))
    return format_when(noon, tz, now, locale).rsplit(" ", 1)[0].rstrip(",")


def span(minutes: int, locale: Locale) -> str:
    """A stretch of the clock ("8小时", "1小时5分" / "8 h", "1 h 5 min"): never in working days, which
    is how an estimate of effort is said (``core.estimates.text_of``), not a window or a load."""
    hours, rest = divmod(minutes, 60)
    if locale == "en":
        return " ".join(p for p in (f"{hours} h" if hours else "", f"{rest} min" if rest or not hours else "") if p)
    if not hours:
        return f"{rest}分钟"
    return f"{hours}小时" + (f"{rest}分" if rest else "")


def _clock(moment: datetime, tz: str) -> str:
    return f"{moment.astimezone(ZoneInfo(tz)):%H:%M}"


def _due(deadline: datetime, now: datetime, tz: str, locale: Locale) -> str:
    """ "今天 18:00 截止" / "due tomorrow 15:00" / "12月4日 周五 18:00 截止"."""
    text = _TEXTS[locale]
    zone = ZoneInfo(tz)
    day = deadline.astimezone(zone).date()
    today = now.astimezone(zone).date()
    if day in (today, today + timedelta(days=1)):
        name = text["today"] if day == today else text["tomorrow"]
        return text["due_day"].format(day=name, day_lower=name.lower(), time=_clock(deadline, tz))
    return text["due_when"].format(when=format_when(deadline, tz, now, locale))


def reason(candidate: Candidate, now: datetime, tz: str, locale: Locale) -> str:
    """Why the task is in the plan: how long overdue, when due, or its group (and deadline)."""
    text = _TEXTS[locale]
    task = candidate.task
    deadline = task.deadline_at
    if candidate.band == "overdue" and deadline is not None and deadline < now:
        days, hours = overdue_days(deadline, now, tz)
        if days >= 1:
            return text["overdue_days"].format(n=days, s="s" if days > 1 else "")
        return text["overdue_hours"].format(n=hours) if hours >= 1 else text["overdue_now"]
    if candidate.band in ("overdue", "due") and deadline is not None:
        due = _due(deadline, now, tz, locale)
        rule = series.rule_words(task.recurrence, locale)
        return f"{due}{text['joiner']}{rule}" if rule else due
    label = (
        text["promoted"].format(group=group_label(task.priority_group, locale))
        if task.promoted
        else group_label(task.effective_group, locale)
    )
    if deadline is None:
        return label
    return f"{label}{text['joiner']}{_due(deadline, now, tz, locale)}"


def _minutes(candidate: Candidate, locale: Locale) -> str:
    text = _TEXTS[locale]
    return text["estimate" if candidate.estimated else "default"].format(m=text_of(candidate.minutes, locale))


def _facts(candidate: Candidate, now: datetime, tz: str, locale: Locale, *, late: bool = False) -> str:
    text = _TEXTS[locale]
    facts = [reason(candidate, now, tz, locale), _minutes(candidate, locale)]
    if late:
        facts.append(text["late"])
    return text["joiner"].join(facts)


def slot_line(slot: Slot, now: datetime, tz: str, locale: Locale) -> str:
    return _TEXTS[locale]["line"].format(
        start=_clock(slot.start, tz),
        end=_clock(slot.end, tz),
        title=slot.candidate.task.title,
        facts=_facts(slot.candidate, now, tz, locale, late=slot.late),
    )


def _items(found: Sequence[Candidate], now: datetime, tz: str, locale: Locale) -> str:
    text = _TEXTS[locale]
    return text["item_joiner"].join(
        text["not_fit_item"].format(title=c.task.title, facts=_facts(c, now, tz, locale)) for c in found[:NOT_FIT_SHOWN]
    )


def _lead(plan: DayPlan, now: datetime, tz: str, locale: Locale) -> str:
    text = _TEXTS[locale]
    today = now.astimezone(ZoneInfo(tz)).date()
    day = _day_name(plan.window.day, today, locale, tz)
    values = {
        "day": day,
        "day_lower": day.lower() if locale == "en" else day,
        "date": format_day(plan.window.day, tz, locale, now),
        "window": f"{_clock(plan.window.start, tz)}–{_clock(plan.window.end, tz)}",
        "minutes": span(plan.window.minutes, locale),
        "defaults": text["defaults"],
    }
    values["order"] = text["order"].format(**values)
    return text["lead_defaults" if plan.used_defaults else "lead"].format(**values)


def _turned(plan: DayPlan, locale: Locale) -> str | None:
    """The line that says how "换一个" changed the order (None for a first plan)."""
    if plan.shift <= 0:
        return None
    text = _TEXTS[locale]
    if plan.queue_size <= 1:
        return text["single"]
    if not plan.moved:
        return text["cycled"]
    titles = text["item_joiner"].join(text["moved_title"].format(title=c.task.title) for c in plan.moved[:3])
    if len(plan.moved) > 3:
        titles += text["moved_more"].format(n=len(plan.moved))
    return text["moved"].format(titles=titles)


def _left_today(plan: DayPlan, locale: Locale) -> str | None:
    if not plan.left_today:
        return None
    text = _TEXTS[locale]
    shown = plan.left_today[:NOT_FIT_SHOWN]
    titles = text["item_joiner"].join(text["title"].format(title=t.title) for t in shown)
    if len(plan.left_today) > len(shown):
        titles += " …"
    n = len(plan.left_today)
    return text["left_today"].format(
        n=n, titles=titles, tasks="task" if n == 1 else "tasks", are="is" if n == 1 else "are"
    )


def render_plan(plan: DayPlan, *, now: datetime, tz: str, locale: Locale, next_up: TaskRow | None = None) -> str:
    """The whole answer to "今天怎么安排" (see the module docstring)."""
    text = _TEXTS[locale]
    today = now.astimezone(ZoneInfo(tz)).date()
    day = _day_name(plan.window.day, today, locale, tz)
    day_lower = day.lower() if locale == "en" else day
    queue = [*(s.candidate for s in plan.slots), *plan.not_fit]
    if plan.window.minutes <= 0:  # today after working hours: nothing can be placed
        blocks = [text["over"].format(window=str(plan.hours))]
        if queue:
            key = "over_left_more" if len(queue) > NOT_FIT_SHOWN else "over_left"
            blocks.append(text[key].format(n=len(queue), items=_items(queue, now, tz, locale)))
        blocks.append(text["over_tomorrow"])
        return "\n\n".join(blocks)
    left = _left_today(plan, locale)
    if not queue:
        blocks = [text["empty"].format(day=day, day_lower=day_lower)]
        if next_up is not None and next_up.deadline_at is not None:
            when = format_when(next_up.deadline_at, tz, now, locale)
            blocks.append(text["next"].format(title=next_up.title, when=when))
        elif not left:
            blocks.append(text["no_next"])
        if left:
            blocks.append(left)
        return " ".join(blocks) if locale == "en" else "".join(blocks)
    blocks = []
    if (turned := _turned(plan, locale)) is not None:
        blocks.append(turned)
    blocks.append(_lead(plan, now, tz, locale))
    blocks.append("\n".join(slot_line(s, now, tz, locale) for s in plan.slots))
    tail = []
    if plan.not_fit:
        key = "not_fit_more" if len(plan.not_fit) > NOT_FIT_SHOWN else "not_fit"
        n = len(plan.not_fit)
        dont = "doesn't" if n == 1 else "don't"
        tail.append(text[key].format(n=n, dont=dont, items=_items(plan.not_fit, now, tz, locale)))
    elif plan.free_minutes >= 15:
        tail.append(text["free"].format(minutes=span(plan.free_minutes, locale)))
    else:
        tail.append(text["full"])
    if left:
        tail.append(left)
    if plan.more:
        tail.append(text["capped"])
    blocks.append((" " if locale == "en" else "").join(tail))
    return "\n\n".join(b for b in blocks if b)


# --- the week ---------------------------------------------------------------------------------------

_WEEK_TEXTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "lead_this": "这周剩下的 {n} 天里，最闲的是 {day}{ties}：{load}。",
        "lead_next": "下周 {n} 天里，最闲的是 {day}{ties}：{load}。",
        "ties": "（{days} 也一样）",
        "today": "（今天）",
        "line": "- {day}{today}：{load}",
        "nothing": "没有到期的任务",
        "load": "{count} 件，约{minutes}",
        "at_least": "至少 {count} 件，约{minutes}以上",
        "day_joiner": "、",
        "note": "按截止时间算；没写预计用时的，简单的按15分钟、其他按1小时估",
        "aside": "已逾期的 {overdue} 件和没有截止时间的 {undated} 件不算在哪一天",
        "aside_overdue": "已逾期的 {overdue} 件不算在哪一天",
        "aside_undated": "没有截止时间的 {undated} 件不算在哪一天",
        "note_joiner": "；",
        "end": "。",
    },
    "en": {
        "lead_this": "Of the {n} days left this week, the least busy is {day}{ties}: {load}.",
        "lead_next": "Next week, the least busy day is {day}{ties}: {load}.",
        "ties": " ({days} too)",
        "today": " (today)",
        "line": "- {day}{today}: {load}",
        "nothing": "nothing due",
        "load": "{count} task{s}, about {minutes}",
        "at_least": "at least {count} tasks, over {minutes}",
        "day_joiner": ", ",
        "note": "Counted by deadline; no estimate: 15 min if easy, else 1 h",
        "aside": "{overdue} overdue and {undated} undated tasks belong to no day",
        "aside_overdue": "{overdue} overdue tasks belong to no day",
        "aside_undated": "{undated} undated tasks belong to no day",
        "note_joiner": "; ",
        "end": ".",
    },
}


def _load_words(load: DayLoad, locale: Locale) -> str:
    text = _WEEK_TEXTS[locale]
    if load.count == 0:
        return text["nothing"]
    key = "load" if load.exact else "at_least"
    return text[key].format(count=load.count, s="s" if load.count > 1 else "", minutes=span(load.minutes, locale))


def render_week(
    loads: Sequence[DayLoad], best: Sequence[DayLoad], facts: TaskFacts, *, now: datetime, tz: str, locale: Locale,
    next_week: bool = False,
) -> str:  # fmt: skip
    """ "这周哪天最闲": the lightest day first, then every day's load, then how it was counted."""
    text = _WEEK_TEXTS[locale]
    today = now.astimezone(ZoneInfo(tz)).date()
    first, rest = best[0], best[1:]
    ties = text["ties"].format(days=text["day_joiner"].join(format_day(d.day, tz, locale, now) for d in rest))
    lead = text["lead_next" if next_week else "lead_this"].format(
        n=len(loads),
        day=format_day(first.day, tz, locale, now),
        ties=ties if rest else "",
        load=_load_words(first, locale),
    )
    lines = [
        text["line"].format(
            day=format_day(load.day, tz, locale, now),
            today=text["today"] if load.day == today else "",
            load=_load_words(load, locale),
        )
        for load in loads
    ]
    notes = [text["note"]]
    overdue, undated = facts.label(facts.overdue), facts.label(facts.undated)
    if facts.overdue and facts.undated:
        notes.append(text["aside"].format(overdue=overdue, undated=undated))
    elif facts.overdue:
        notes.append(text["aside_overdue"].format(overdue=overdue))
    elif facts.undated:
        notes.append(text["aside_undated"].format(undated=undated))
    return "\n\n".join([lead, "\n".join(lines), text["note_joiner"].join(notes) + text["end"]])
