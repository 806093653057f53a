"""TimeWindow.note: one short Chinese line naming the Chinese-calendar rule behind a window.

下个工作日 → 10月10日 周六（调休上班）     重阳节 → 2027年10月8日（农历九月初九）
端午假期 → 6月19日至6月21日（国务院放假安排）  大寒 → 2027年1月20日（二十四节气）
下个工作日 → 2027年1月4日 周一（2027年的放假安排尚未公布，按周一至周五和固定节日推算）
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from . import chinacal
from .point import HOLIDAYS, NTH_WEEKDAY_HOLIDAYS, Point
from .window import UNPUBLISHED

_WEEKDAYS = "一二三四五六日"
_ON_THAT_DAY = re.compile(r"(?:那一?天|那日)$")


def _day(d: date, today: date) -> str:
    return f"{d.month}月{d.day}日" if d.year == today.year else f"{d.year}年{d.month}月{d.day}日"


def _unpublished(year: int, how: str) -> str:
    return f"{year}年的{UNPUBLISHED}，{how}"


def workday_note(label: str, d: date, today: date) -> str:
    head = f"{label} → {_day(d, today)} 周{_WEEKDAYS[d.weekday()]}"
    if not chinacal.schedule_known(d.year):
        return f"{head}（{_unpublished(d.year, '按周一至周五和固定节日推算')}）"
    if d.weekday() >= 5:
        return f"{head}（调休上班）"
    before = chinacal.holiday_key(d - timedelta(days=1))
    return f"{head}（{before}假期后）" if before else f"{head}（法定工作日）"


def _period_note(label: str, a: date, b: date, today: date) -> str:
    span = f"{label} → {_day(a, today)}" + ("" if a == b else f"至{_day(b, a)}")
    if chinacal.schedule_known(a.year):
        return f"{span}（国务院放假安排，共{(b - a).days + 1}天）"
    return f"{span}（{_unpublished(a.year, '按惯例推算')}）"


def _week_note(a: date, b: date, today: date) -> str | None:
    if a.weekday() == 0 and b.weekday() == 4:
        return None  # an ordinary Monday..Friday week says nothing new
    if not chinacal.schedule_known(a.year):
        return f"工作日 → {_day(a, today)}至{_day(b, a)}（{_unpublished(a.year, '按周一至周五和固定节日推算')}）"
    return f"工作日 → {_day(a, today)}至{_day(b, a)}（按放假和调休安排）"


def note_for(p: Point, label: str, a: date, b: date, today: date) -> str | None:
    """The note of a point resolved to the days a..b; `label` is the calendar word as said."""
    if p.pre_holiday:
        return f"节前 → {_day(a, today)}前（下一个放假日的前一天）"
    if p.wd_step is not None or p.post_holiday:
        return workday_note(label if p.wd_step is not None else "节后第一个工作日", a, today)
    if p.workdays:
        return _week_note(a, b, today)
    if p.holiday is not None and p.period:
        return _period_note(label, a, b, today)
    if p.holiday in HOLIDAYS or p.holiday in NTH_WEEKDAY_HOLIDAYS:
        return None  # a Gregorian date: nothing to explain
    if p.holiday in chinacal.SOLAR_TERMS:
        return f"{p.holiday} → {_day(a, today)}（二十四节气）"
    label = _ON_THAT_DAY.sub("", label)
    name = p.holiday if p.holiday is not None else label
    if p.holiday is None and not label.startswith(("农历", "阴历", "旧历")):
        name = "农历" + label
    if p.holiday is None:
        return f"{name} → {_day(a, today)}"
    return f"{name} → {_day(a, today)}（{chinacal.lunar_label(a)}）"
