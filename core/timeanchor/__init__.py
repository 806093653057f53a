"""Deterministic time anchoring: Chinese (and simple English/ISO) time phrases → closed windows.

>>> from datetime import datetime
>>> from zoneinfo import ZoneInfo
>>> now = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
>>> w = resolve_time("下周三之前要交的", now)
>>> (w.start.isoformat(), w.end.isoformat(), w.phrase)
('2026-11-30T10:00:00+08:00', '2026-12-09T23:59:59+08:00', '下周三之前')

Everyday and vague phrases (see point.MOMENTS and relative.pass_span / soon_span):

* work-day moments, read as a clock time the user did not say: 上班 09:00, 下班 18:00, 睡/睡觉 23:00.
  "X前" → [now, X] (deadline X: "下班前" → 18:00); "X后" → [X, 23:59:59 that day] (deadline
  23:59:59). Bare, today's, or tomorrow's once it has passed; "下班后" said after 18:00 → [now,
  23:59:59]. Only with 前/后 right after them ("下班了吗", "午睡前", "睡前故事" are not times).
* N天/周/个月/季度/年内 → [now, end of the day N units ahead] ("一年内" on 2026-11-30 10:00 →
  2027-11-30 23:59:59; "半年内" = 6 months, "一个季度内" = 3 months); 年内/今年内 is the rest of
  this year.
* 过两天 / 过几天 / 过两周 (a vague count: 两/俩/几, 几 = 3) → [now, end of the day that far ahead];
  an exact count ("再过三天", "过3天", "再过半小时") → that day / that moment, like "三天后".
* "later today" — 一会儿, 过一会儿, 待会儿, 等会儿, 等一下, 等下, 稍后, 稍晚, 晚点, 晚些时候 → [now,
  max(end of today, now + 2 h)], no clock, so a quick note's deadline is the window's end.
* English: a date and a clock joined by "at"/"on" are one phrase with the clock time ("tomorrow at
  8pm", "at 8pm tomorrow", "next Monday at 10am", "on Dec 5 at 3pm"); a leading "at"/"on" is part of
  the phrase and changes nothing ("on Dec 5" = "Dec 5"), unlike "by" (→ [now, X]).
* the Chinese calendar (chinacal.py, docs/fdr/0014): statutory workdays with 调休 ("下个工作日",
  "3个工作日内", "节后第一天", "节前"), lunar dates ("正月初八", "农历八月十五"), festivals (元宵 端午
  七夕 中秋 重阳 腊八 小年 …), the 24 solar terms, statutory breaks ("国庆假期", "五一小长假"); the
  next occurrence unless a year is said. TimeWindow.note names the rule used.
* no commitment — 改天, 回头, 过阵子, 过段时间, 有空的时候, 以后 → None: no window, no deadline; a quick
  note keeps the words in its title.
"""

from . import chinacal, english, numerals
from .resolve import resolve_time
from .window import TimeWindow, day_before, deadline_of


def warm_up() -> None:
    """Load what some phrases need on first use (dateparser for English month names, cn2an for
    unusual Chinese numerals, chinese-calendar and lunar-python for 工作日/农历/节气/假期 words), so
    that no request pays for it: a server runs this at start, in a background thread. Safe to run
    while requests are served."""
    numerals.warm()
    english.warm()
    chinacal.warm()


__all__ = ["TimeWindow", "day_before", "deadline_of", "resolve_time", "warm_up"]
