"""How the product names priority groups and shows times to a person."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from core.locale import Locale
from core.models import is_overdue, public_recurrence

if TYPE_CHECKING:
    from core.store import TaskRow

GROUP_LABELS: dict[Locale, dict[int, str]] = {
    "zh": {1: "重要且紧急", 2: "重要不紧急", 3: "简单不重要", 4: "不简单不重要"},
    "en": {1: "important & urgent", 2: "important, not urgent", 3: "easy, not important", 4: "not easy, not important"},
}
_UNKNOWN_GROUP: dict[Locale, str] = {"zh": "第 {group} 组", "en": "group {group}"}

# Fixed names rather than strftime's %a/%b, which follow the process locale.
_WEEKDAYS: dict[Locale, tuple[str, ...]] = {
    "zh": ("周一", "周二", "周三", "周四", "周五", "周六", "周日"),
    "en": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
}
_MONTHS: dict[Locale, tuple[str, ...]] = {
    "zh": tuple(f"{n}月" for n in range(1, 13)),
    "en": ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
}
# (this year, another year)
_WHEN_FORMS: dict[Locale, tuple[str, str]] = {
    "zh": ("{month}{day}日 {weekday} {time}", "{year}年{month}{day}日 {weekday} {time}"),
    "en": ("{weekday} {month} {day}, {time}", "{weekday} {month} {day} {year}, {time}"),
}


# A numbered line of a rendered task list ("3. 交周报（重要且紧急；…" / "3. Pay rent (important & urgent; …"),
# in either language: how a list is recognised in the history, where records are already stripped.
TASK_LINE_RE = re.compile(
    r"^\d+\. .+[（(](?:"
    + "|".join(re.escape(label) for labels in GROUP_LABELS.values() for label in labels.values())
    + r")",
    re.M,
)


def group_label(group: int, locale: Locale = "zh") -> str:
    return GROUP_LABELS[locale].get(group) or _UNKNOWN_GROUP[locale].format(group=group)


def format_when(moment: datetime, tz: str, now: datetime | None = None, locale: Locale = "zh") -> str:
    """'12月1日 周二 15:00' / 'Tue Dec 1, 15:00' in the user's timezone; the year only when it is not
    the current one."""
    zone = ZoneInfo(tz)
    try:
        local = moment.astimezone(zone)
    except (OverflowError, ValueError):
        # A moment at the edge of Python's range (stored by an older release, before the year
        # bounds): shown as stored, in UTC, rather than failing every list it is in.
        return moment.isoformat()
    other_year = now is not None and now.astimezone(zone).year != local.year
    return _WHEN_FORMS[locale][other_year].format(
        year=local.year,
        month=_MONTHS[locale][local.month - 1],
        day=local.day,
        weekday=_WEEKDAYS[locale][local.weekday()],
        time=f"{local:%H:%M}",
    )


def task_record(row: TaskRow, now: datetime, locale: Locale = "zh") -> dict[str, Any]:
    """One task as structured data (an action's ``Answer.data``): JSON-ready, times in RFC 3339;
    ``recurrence`` is ``{"rule", "text"}`` for a repeating task (text in ``locale``), else None."""
    rule = public_recurrence(row.recurrence, locale)
    return {
        "id": row.id,
        "title": row.title,
        "priority_group": row.priority_group,
        "effective_group": row.effective_group,
        "promoted": row.promoted,
        "deadline_at": row.deadline_at.isoformat() if row.deadline_at else None,
        "overdue": is_overdue(row.deadline_at, row.is_completed, now),
        "is_completed": row.is_completed,
        "recurrence": rule.model_dump() if rule is not None else None,
        "estimate_minutes": row.estimate_minutes,
    }
