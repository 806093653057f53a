"""How the product names priority groups and shows times to a person."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

GROUP_LABELS: dict[int, str] = {
    1: "重要且紧急",
    2: "重要不紧急",
    3: "简单不重要",
    4: "不简单不重要",
}

_WEEKDAYS = "一二三四五六日"


def group_label(group: int) -> str:
    return GROUP_LABELS.get(group, f"第 {group} 组")


def format_when(moment: datetime, tz: str, now: datetime | None = None) -> str:
    """'12月1日 周二 15:00' in the user's timezone; the year only when it is not the current one."""
    local = moment.astimezone(ZoneInfo(tz))
    year = ""
    if now is not None and now.astimezone(ZoneInfo(tz)).year != local.year:
        year = f"{local.year}年"
    return f"{year}{local.month}月{local.day}日 周{_WEEKDAYS[local.weekday()]} {local:%H:%M}"
