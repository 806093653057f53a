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
  an exact count ("再过三天", "过3天", "再过半小时") → that day / that moment, like "三天后"; "两周后" /
  "三个月后" / "一年后" (and …前) are that day too, not the whole week/month/year ("三个月后" on 11-30 →
  2027-02-28). "去年的今天" / "上个月的今天" / "下周的今天" are today's date in that year/month/week.
* 下/后N天/周/个月/年 → the N whole units after the current one (下三天 = [tomorrow, today+3], today
  not in it, unlike 未来三天); 上N… → the N before it (上两周 = the two weeks before this one); 下个小时
  / 之后5分钟 → [now, now+N], 上个小时 → [now-1h, now]; 还剩3小时 → [now, now+3h] (relative.adjacent_span).
* ranges "X到Y" / "X和Y之间" / "在X到Y之间" / "X或Y" → [start of X, end of Y] (an alternative is the
  window covering both); a clock range ending before it starts crosses midnight ("晚上11点~凌晨2点");
  one still under way is today's ("9:00-11:30" said at 10:00); "1995-1997年"; English "between Friday
  and Sunday", "from Monday to Wednesday", "tomorrow from 9am to 5pm". "X或之后 / X及以后" → [X, open];
  "X或之前 / X及以前" read as "X之前".
* parts of a year or month (point._month_day, point._YEAR_DAY_EDGES): the Nth week is days 7N-6..7N
  of the month or year ("九月的第三周" = 9/15..9/21, "2021年的第一周" = 1/1..1/7), "最后一周" its last 7
  days, "前10天" its first 10; "十月第一个星期一" / "本月最后一个周五" a weekday counted inside the month
  ("第二个周五" alone: this month's, or next month's once passed); "明年第九个月", "第一季度的第一个月",
  "下个月第10天", "明年的第一天"; "年初三个月" / "年底两个月" the first / last N months; 前半年 = 上半年,
  后半年 = 下半年.
* odd dates: "2月29日" without a year is the next Feb 29 there is (the last one, for a past question);
  "2019年2月29日" is no date at all, not the next one (a quick note asks, saying the day does not
  exist); "07年以后" / "零八年以后" are years (2007 on), "3年以后" / "三五年以后" counts; "七月五号晚" /
  "周四晚" that evening. 《…》/「…」/『…』 names are never read as times, nor 今日/明日/昨日 right before
  a noun that makes them a name (patterns._NOUN_AFTER_DAY: 今日头条, 明日方舟, 昨日青空).
* "later today" — 一会儿, 过一会儿, 待会儿, 等会儿, 等一下, 等下, 稍后, 稍晚, 晚点, 晚些时候 → [now,
  max(end of today, now + 2 h)], no clock, so a quick note's deadline is the window's end.
* English: a date and a clock joined by "at"/"on" are one phrase with the clock time ("tomorrow at
  8pm", "at 8pm tomorrow", "next Monday at 10am", "on Dec 5 at 3pm"); a leading "at"/"on" is part of
  the phrase and changes nothing ("on Dec 5" = "Dec 5"), unlike "by" (→ [now, X]).
* English quick-add forms: "tmr"/"tmrw"/"tomorow"; "@" as "at" ("Call Anna @ 15:00", "wed @ 10am");
  a bare ordinal ("Dentist 14th", "on the 3rd", "17th at 10:00") is the next such day of a month
  (today included; a month without that day is skipped); not before a noun or after a possessive
  ("the 3rd floor", "Anna's 30th"). "later this week/month" → [now, its end]; "later next week" is
  next week; "the week/month after next" two ahead; "from the 20th to the 23rd" a range. A weekday
  as a noun's attribute is no day ("sun cream", "sat down", "the Monday report"); English fixed-date
  holidays (Christmas, Christmas Eve, New Year's Eve/Day, Valentine's Day, Halloween; point.HOLIDAYS),
  not before a noun ("Christmas cards").
* numeric dates (numdate.py), one order rule per form: a 4-digit first field is a year (Y-M-D,
  "2021-06-26"); with the year last (4 or 2 digits), a field above 12 is the day ("27/1/2027",
  "06/26/2021"); otherwise dotted → day first ("13.5.2015", "5.6.2027" = 5 June; a dotted date needs a
  4-digit year, "1.2.10" is a version), English text → month first ("1/2/2020" = 2 January, US),
  Chinese text → month first ("3-7-2017" = 7 March). Without a year: "8/1" month first, "27/1" day
  first (27 is no month). Three two-digit fields that also read as Y-M-D ("12-11-10") are truly
  ambiguous: a query takes the reading nearest now; a quick note asks (numdate.ambiguous). A
  two-digit year: numerals.two_digit_year (89 → 1989, 17 → 2017). Not dates: a pair after an English
  word ("Python 3.12", "the 1.2 formula", "chapters 10-12", "room 12.11"; "due 12.25" still is), a
  name ("The 9/11 Report"), a URL path ("/2019/1/"), "v2.1", a score "3-1".
* the Chinese calendar (chinacal.py, docs/fdr/0014): statutory workdays with 调休 ("下个工作日",
  "3个工作日内", "节后第一天", "节前"), lunar dates ("正月初八", "农历八月十五"; a month with 初一..初十,
  "三月初一", is lunar, and after 农历 so is any day, "农历三月三", and the year, "农历2015年十月初一"),
  festivals (元宵 端午 七夕 中秋 重阳 腊八 小年 …), the 24 solar terms, statutory breaks ("国庆假期",
  "五一小长假"); the next occurrence unless a year is said. TimeWindow.note names the rule used.
* no commitment — 改天, 回头, 过阵子, 过段时间, 有空的时候, 以后 → None: no window, no deadline; a quick
  note keeps the words in its title.
"""

from core import hanzi

from . import chinacal, english, numerals
from .resolve import resolve_time
from .window import TimeWindow, day_before, deadline_of


def warm_up() -> None:
    """Load what some phrases need on first use (the traditional → simplified table, dateparser for English month names, cn2an for
    unusual Chinese numerals, chinese-calendar and lunar-python for 工作日/农历/节气/假期 words), so
    that no request pays for it: a server runs this at start, in a background thread. Safe to run
    while requests are served."""
    hanzi.warm()  # the traditional → simplified table: 15–100 ms, 6–10 MB RSS (core/hanzi.py)
    numerals.warm()
    english.warm()
    chinacal.warm()


__all__ = ["TimeWindow", "day_before", "deadline_of", "resolve_time", "warm_up"]
