"""Held-out-style probes: colloquial time phrases inside task questions, at several `now`s.

Conventions (the peer set's): a day is 00:00..23:59:59, a week is Mon..Sun, "X之前" is
[now, end of X], spans run from now; a window starting at `now` also matches an expected start
at today's midnight; 2-minute tolerance; `alt` lists other readings of a genuinely ambiguous
phrase. Cases with `want=None` are traps: no window at all.

Notation for the expected times: "now"; "MM-DD" / "YYYY-MM-DD" (that day's 00:00, the year of
`now` when omitted); a leading "e" means 23:59:59 of that day; " HH:MM[:SS]" adds a clock time.
"""

from __future__ import annotations

import statistics
import time
from datetime import datetime, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

import pytest

from core.timeanchor import resolve_time

SH = ZoneInfo("Asia/Shanghai")
TOL = timedelta(minutes=2)

NOWS = {
    "A": datetime(2026, 11, 30, 10, 0, tzinfo=SH),  # Monday, last day of a month
    "B": datetime(2026, 12, 6, 21, 30, tzinfo=SH),  # Sunday, late evening
    "C": datetime(2026, 12, 31, 23, 0, tzinfo=SH),  # Thursday, Dec 31, late evening
    "D": datetime(2028, 2, 27, 9, 0, tzinfo=SH),  # Sunday, February of a leap year
    "F": datetime(2027, 2, 20, 15, 0, tzinfo=SH),  # Saturday, February of a non-leap year
    "G": datetime(2026, 7, 15, 14, 0, tzinfo=SH),  # Wednesday, mid-month
    "H": datetime(2026, 3, 31, 18, 0, tzinfo=SH),  # Tuesday, last day of a quarter
}

W = tuple[str | None, str | None]


class Probe(NamedTuple):
    sentence: str
    now: str
    want: W | None
    alt: tuple[W, ...] = ()
    prefer: str = "future"
    miss: str = ""  # a known miss: why (the case is a strict xfail)


def P(
    sentence: str, now: str, start: str | None, end: str | None, *alt: W, prefer: str = "future", miss: str = ""
) -> Probe:
    return Probe(sentence, now, (start, end), tuple(alt), prefer, miss)


def PAST(sentence: str, now: str, start: str | None, end: str | None, *alt: W) -> Probe:
    return P(sentence, now, start, end, *alt, prefer="past")


def TRAP(sentence: str, now: str = "A", prefer: str = "future") -> Probe:
    return Probe(sentence, now, None, (), prefer)


PROBES: list[Probe] = [
    # -- A: Monday 2026-11-30 10:00 ---------------------------------------------------------
    P("下下周三有什么要交的", "A", "12-16", "e12-16"),
    P("这礼拜天要做啥", "A", "12-06", "e12-06"),
    P("周末前要搞定哪些", "A", "now", "e12-06", ("now", "e12-04")),
    P("下个周末有什么安排", "A", "12-12", "e12-13", ("12-05", "e12-06")),
    P("本周末之前要完成的任务", "A", "now", "e12-06"),
    P("这个月剩下的几天还有什么要做", "A", "now", "e11-30"),
    P("今明两天要交什么", "A", "11-30", "e12-01"),
    P("明后天有啥事", "A", "12-01", "e12-02"),
    P("这几天要做的事", "A", "11-30", "e12-02", ("11-30", "e12-03")),
    P("最近几天有什么要交的", "A", "now", "e12-03", ("now", "e12-02")),
    P("未来两周要做的", "A", "now", "12-14 10:00", ("now", "e12-14")),
    P("两周内到期的任务", "A", "now", "e12-14"),
    P("半个月内要完成的", "A", "now", "e12-15", ("now", "e12-14")),
    P("一个月内要交的", "A", "now", "e12-30", ("now", "e12-31")),
    P("下季度有什么计划", "A", "2027-01-01", "e2027-03-31"),
    P("这季度末要交的", "A", "12-01", "e12-31", ("12-25", "e12-31")),
    P("今天之内要做完的", "A", "now", "e11-30"),
    P("今天下午五点前要交的", "A", "now", "11-30 17:00"),
    P("明早八点有什么", "A", "12-01 08:00", "12-01 08:59:59"),
    P("后天晚上有安排吗", "A", "12-02 18:00", "e12-02"),
    P("大后天上午要干嘛", "A", "12-03 07:00", "12-03 11:59:59"),
    P("三天后要交的", "A", "12-03", "e12-03"),
    P("一周后到期的任务", "A", "12-07", "e12-07", ("12-07", "e12-13")),
    P("下周一之前要完成的", "A", "now", "e12-07"),
    P("这周五晚上有什么安排", "A", "12-04 18:00", "e12-04"),
    P("中午之前要做的", "A", "now", "11-30 12:00", ("now", "11-30 13:59:59")),
    P("12点前要交的", "A", "now", "11-30 12:00"),
    P("12号之前要交什么", "A", "now", "e12-12"),
    P("15号到20号的任务", "A", "12-15", "e12-20"),
    P("下个月第一周要做的", "A", "12-01", "e12-07", ("12-07", "e12-13"), ("11-30", "e12-06")),
    P("12.25要交的东西", "A", "12-25", "e12-25"),
    P("12/25有什么事", "A", "12-25", "e12-25"),
    P("十二月二十五号有什么安排", "A", "12-25", "e12-25"),
    P("圣诞节前要完成的", "A", "now", "e12-25", ("now", "e12-24")),
    P("元旦前要交的", "A", "now", "e2027-01-01", ("now", "e12-31")),
    P("周一到周五要做的", "A", "11-30", "e12-04"),
    P("本周工作日有哪些任务", "A", "11-30", "e12-04"),
    P("工作日要做的任务", "A", "11-30", "e12-04"),
    P("年前要完成的事", "A", "now", "e2027-02-05", ("now", "e12-31")),
    P("春节前要做完的", "A", "now", "e2027-02-06", ("now", "e2027-02-05")),
    P("过完年再做的有哪些", "A", "2027-02-06", None, ("2027-02-07", None)),
    P("年后要做的", "A", "2027-02-06", None, ("2027-01-01", None)),
    P("下个月第二周有什么", "A", "12-08", "e12-14", ("12-14", "e12-20")),
    P("这个月前两周的任务", "G", "07-01", "e07-14", ("06-29", "e07-12")),
    P("下礼拜二上午有什么", "A", "12-08 07:00", "12-08 11:59:59"),
    P("这周内要做完的", "A", "now", "e12-06"),
    P("下周内要交的", "A", "12-07", "e12-13"),
    P("本月内到期的", "A", "now", "e11-30"),
    P("十天之内要做的", "A", "now", "e12-10"),
    P("两个月内要完成的", "A", "now", "e2027-01-30", ("now", "e2027-01-31")),
    P("一小时内要做的", "A", "now", "11-30 11:00"),
    P("明天中午有什么", "A", "12-01 11:00", "12-01 13:59:59", ("12-01 12:00", "12-01 12:59:59")),
    P("今天傍晚要做啥", "A", "11-30 17:00", "11-30 19:59:59"),
    P("今晚九点有什么", "A", "11-30 21:00", "11-30 21:59:59"),
    P("明天早上9点半开什么会", "A", "12-01 09:30", "12-01 09:30:59"),
    P("下午两点半有啥", "A", "11-30 14:30", "11-30 14:30:59"),
    P("这周三之前要交的", "A", "now", "e12-02"),
    P("下个月5号有什么", "A", "12-05", "e12-05"),
    P("下月初要交的", "A", "12-01", "e12-05", ("12-01", "e12-10")),
    P("年底之前要完成的", "A", "now", "e12-31"),
    P("明天下班前要交的", "A", "now", "12-01 18:00", ("now", "e12-01")),
    P("礼拜天有什么事", "A", "12-06", "e12-06"),
    P("星期日要做什么", "A", "12-06", "e12-06"),
    P("下周二下午三点的会", "A", "12-08 15:00", "12-08 15:59:59"),
    P("今天有啥要紧的事没", "A", "11-30", "e11-30"),
    P("到周五为止要做完什么", "A", "now", "e12-04"),
    P("这星期还剩什么没做", "A", "11-30", "e12-06"),
    P("下下个月有什么安排", "A", "2027-01-01", "e2027-01-31"),
    P("明年上半年的计划", "A", "2027-01-01", "e2027-06-30"),
    P("周三下午有什么会", "A", "12-02 13:00", "12-02 17:59:59"),
    P("后天之前要做的", "A", "now", "e12-02"),
    P("下周五以前要交什么", "A", "now", "e12-11"),
    P("这周剩下的几天要做什么", "A", "now", "e12-06"),
    P("今年剩下的时间还要完成哪些", "A", "now", "e12-31"),
    P("周五下午三点前要交的", "A", "now", "12-04 15:00"),
    P("午饭前要做完的", "A", "now", "11-30 12:00"),
    P("11.30之前要交的", "A", "now", "e11-30"),
    P("今天晚上十点以后有啥", "A", "11-30 22:00", "e11-30"),
    P("后天早上有什么", "A", "12-02 06:00", "12-02 09:59:59", ("12-02 07:00", "12-02 11:59:59")),
    P("大后天晚上8点的安排", "A", "12-03 20:00", "12-03 20:59:59"),
    P("这个周日有什么", "A", "12-06", "e12-06"),
    P("接下来几天要做的", "A", "now", "12-03 10:00", ("now", "e12-03"), ("now", "e12-02")),
    P("接下来一周有啥", "A", "now", "12-07 10:00", ("now", "e12-07"), ("now", "e12-06")),
    # past questions at A
    PAST("上周末做了什么", "A", "11-28", "e11-29"),
    PAST("前几天新建的任务", "A", "11-27", "now", ("11-27", "e11-29")),
    PAST("这个月初加的任务", "A", "11-01", "e11-05", ("11-01", "e11-10")),
    PAST("上上周五完成的", "A", "11-20", "e11-20"),
    PAST("十月份新建的任务", "A", "10-01", "e10-31"),
    PAST("3号完成了什么", "A", "11-03", "e11-03"),
    PAST("前天晚上做的事", "A", "11-28 18:00", "e11-28"),
    PAST("昨晚完成了啥", "A", "11-29 18:00", "e11-29"),
    PAST("上周三到周五完成的", "A", "11-25", "e11-27"),
    PAST("11月20号以来完成的", "A", "11-20", "now"),
    PAST("从上周一到现在完成了哪些", "A", "11-23", "now"),
    PAST("月初到现在新建的任务", "A", "11-01", "now"),
    PAST("今年以来完成的任务", "A", "2026-01-01", "now"),
    PAST("最近一周完成的", "A", "11-23 10:00", "now", ("11-23", "now")),
    PAST("这几天做了什么", "A", "11-28", "now", ("11-27", "now")),
    PAST("这两天完成的", "A", "11-29", "now"),
    PAST("上半年完成了哪些", "A", "01-01", "e06-30"),
    PAST("本周工作日完成的", "A", "11-30", "e12-04", ("11-30", "now")),
    PAST("上周工作日做了什么", "A", "11-23", "e11-27"),
    # traps at A
    TRAP("给我前3个任务"),
    TRAP("来两个简单的"),
    TRAP("列三个任务看看"),
    TRAP("第一个是什么"),
    TRAP("来点简单一点的"),
    TRAP("给我一些事做"),
    TRAP("随便来俩"),
    TRAP("挑两个不重要的"),
    TRAP("有几个任务没做"),
    TRAP("最重要的一个是啥"),
    TRAP("top3任务"),
    TRAP("十个以内的任务"),
    TRAP("难度低一点的"),
    TRAP("先做哪一个"),
    TRAP("我有三件事要做"),
    TRAP("来五条"),
    TRAP("前两个完成的", prefer="past"),
    TRAP("3.5小时能做完的任务"),
    TRAP("评分4.5以上的"),
    TRAP("v1.2版本相关的任务"),
    TRAP("季度报告相关的任务"),
    TRAP("多年前的老任务"),
    TRAP("剩下的任务有哪些"),
    TRAP("还剩几个没做"),
    TRAP("第一周的任务"),
    # -- B: Sunday 2026-12-06 21:30 ---------------------------------------------------------
    P("下周有什么要做的", "B", "12-07", "e12-13"),
    P("这周还有啥", "B", "11-30", "e12-06"),
    P("周一要交的", "B", "12-07", "e12-07"),
    P("这礼拜天还有什么", "B", "12-06", "e12-06"),
    P("明早八点要干嘛", "B", "12-07 08:00", "12-07 08:59:59"),
    P("今晚还有什么事", "B", "12-06 18:00", "e12-06"),
    P("下个周末有什么", "B", "12-12", "e12-13"),
    P("这几天要忙什么", "B", "12-06", "e12-08"),
    P("明后天要交的", "B", "12-07", "e12-08"),
    P("三天后有什么", "B", "12-09", "e12-09"),
    P("明天上午十点前要交的", "B", "now", "12-07 10:00"),
    P("下周工作日要做的", "B", "12-07", "e12-11"),
    P("周一到周五要做的", "B", "12-07", "e12-11"),
    PAST("上周末做了什么", "B", "11-28", "e11-29", ("12-05", "e12-06")),
    PAST("今天完成的", "B", "12-06", "e12-06"),
    PAST("周末完成了什么", "B", "12-05", "e12-06", ("12-05", "now")),
    PAST("昨天完成的任务", "B", "12-05", "e12-05"),
    PAST("上周完成了哪些", "B", "11-23", "e11-29"),
    # -- C: Thursday 2026-12-31 23:00 -------------------------------------------------------
    P("明天要做什么", "C", "2027-01-01", "e2027-01-01"),
    P("下个月有什么任务", "C", "2027-01-01", "e2027-01-31"),
    P("明年一月份的计划", "C", "2027-01-01", "e2027-01-31"),
    P("下周要交的", "C", "2027-01-04", "e2027-01-10"),
    P("这周末有啥", "C", "2027-01-02", "e2027-01-03"),
    P("今晚还有什么要做的", "C", "12-31 18:00", "e12-31"),
    P("元旦有什么安排", "C", "2027-01-01", "e2027-01-01"),
    P("下周一之前要交的", "C", "now", "e2027-01-04"),
    P("三天内到期的", "C", "now", "e2027-01-03"),
    P("这个月剩下的几天", "C", "now", "e12-31"),
    P("下旬的任务", "C", "12-21", "e12-31"),
    P("下季度的安排", "C", "2027-01-01", "e2027-03-31"),
    P("明年有什么计划", "C", "2027-01-01", "e2027-12-31"),
    P("1月5号要交什么", "C", "2027-01-05", "e2027-01-05"),
    PAST("今天做完的", "C", "12-31", "e12-31"),
    PAST("去年12月完成的", "C", "2025-12-01", "e2025-12-31"),
    PAST("今年完成了多少", "C", "2026-01-01", "e2026-12-31", ("2026-01-01", "now")),
    # -- D: Sunday 2028-02-27 09:00 (leap year) ---------------------------------------------
    P("月底要交的", "D", "02-23", "e02-29"),
    P("这个月最后三天有什么", "D", "02-27", "e02-29"),
    P("下周三要做什么", "D", "03-01", "e03-01"),
    P("这周日有什么", "D", "02-27", "e02-27"),
    P("这礼拜天晚上有事吗", "D", "02-27 18:00", "e02-27"),
    P("后天要交什么", "D", "02-29", "e02-29"),
    P("大后天有什么", "D", "03-01", "e03-01"),
    P("下个月初的任务", "D", "03-01", "e03-05", ("03-01", "e03-10")),
    P("两天后到期的", "D", "02-29", "e02-29"),
    P("29号之前要交的", "D", "now", "e02-29"),
    P("2月29日有什么", "D", "02-29", "e02-29"),
    P("这周末有什么要做的", "D", "02-26", "e02-27", ("02-27", "e02-27")),
    P("下个周末有什么", "D", "03-04", "e03-05"),
    P("月底之前要完成的", "D", "now", "e02-29"),
    PAST("本周工作日完成的", "D", "02-21", "e02-25"),
    PAST("周末做了什么", "D", "02-26", "e02-27", ("02-26", "now")),
    PAST("本月完成的任务", "D", "02-01", "e02-29", ("02-01", "now")),
    # -- F: Saturday 2027-02-20 15:00 (non-leap year) ---------------------------------------
    P("月底之前要交的", "F", "now", "e02-28"),
    P("这周末有什么安排", "F", "02-20", "e02-21"),
    P("明天有什么安排", "F", "02-21", "e02-21"),
    P("周一要做的", "F", "02-22", "e02-22"),
    P("下周末有什么", "F", "02-27", "e02-28"),
    P("下下周要交的", "F", "03-01", "e03-07"),
    P("3月初要做的", "F", "03-01", "e03-05", ("03-01", "e03-10")),
    P("今天下午还有啥", "F", "02-20 13:00", "02-20 17:59:59"),
    P("晚上八点前要做的", "F", "now", "02-20 20:00"),
    P("今天之内要交的", "F", "now", "e02-20"),
    P("这个月最后一周的任务", "F", "02-22", "e02-28"),
    P("下个月第一周要做的", "F", "03-01", "e03-07"),
    PAST("上个月新建的", "F", "01-01", "e01-31"),
    PAST("这个月新加的任务", "F", "02-01", "e02-28", ("02-01", "now")),
    # -- G: Wednesday 2026-07-15 14:00 ------------------------------------------------------
    P("月中要交的报告", "G", "07-11", "e07-20"),
    P("下旬有哪些任务到期", "G", "07-21", "e07-31"),
    P("这周五晚上有什么", "G", "07-17 18:00", "e07-17"),
    P("周末前要做完的", "G", "now", "e07-19", ("now", "e07-17")),
    P("下周一之前要交的", "G", "now", "e07-20"),
    P("未来三天有什么", "G", "now", "07-18 14:00", ("now", "e07-18")),
    P("下午三点到五点有会吗", "G", "07-15 15:00", "07-15 17:00:59"),
    P("八月中旬有什么", "G", "08-11", "e08-20"),
    P("国庆前要完成的", "G", "now", "e10-01", ("now", "e09-30")),
    P("7.20要交的", "G", "07-20", "e07-20"),
    P("8/1之前要做的", "G", "now", "e08-01"),
    P("这季度末要交什么", "G", "09-01", "e09-30", ("09-24", "e09-30")),
    P("下季度有什么", "G", "10-01", "e12-31"),
    P("本季度的任务", "G", "07-01", "e09-30"),
    P("季度末之前要完成的", "G", "now", "e09-30"),
    P("Q4要做的", "G", "10-01", "e12-31"),
    P("今天下午五点前要交的", "G", "now", "07-15 17:00"),
    P("这个月剩下的几天要做什么", "G", "now", "e07-31"),
    P("下半个月要做的", "G", "07-16", "e07-31", ("now", "e07-31")),
    PAST("上旬完成的", "G", "07-01", "e07-10"),
    PAST("最近几天完成的", "G", "07-12 14:00", "now", ("07-12", "now")),
    PAST("上周做了啥", "G", "07-06", "e07-12"),
    # -- H: Tuesday 2026-03-31 18:00 --------------------------------------------------------
    P("明天有什么", "H", "04-01", "e04-01"),
    P("下个月的任务", "H", "04-01", "e04-30"),
    P("这季度末要交的", "H", "03-01", "e03-31", ("03-25", "e03-31")),
    P("下季度的计划", "H", "04-01", "e06-30"),
    P("本周工作日要做的", "H", "03-30", "e04-03"),
    P("下周三有什么", "H", "04-08", "e04-08"),
    P("月底要交的", "H", "03-25", "e03-31"),
    P("月初要做的", "H", "04-01", "e04-05", ("04-01", "e04-10")),
    P("今天之内要完成的", "H", "now", "e03-31"),
    P("后天晚上有事吗", "H", "04-02 18:00", "e04-02"),
    P("这个月剩下的几天", "H", "now", "e03-31"),
    PAST("上个月完成的", "H", "02-01", "e02-28"),
    PAST("这季度完成了哪些", "H", "01-01", "e03-31", ("01-01", "now")),
    # -- English ----------------------------------------------------------------------------
    P("what's due by next Friday", "A", "now", "e12-11"),
    P("anything due this weekend", "A", "12-05", "e12-06"),
    P("tasks for tomorrow morning", "A", "12-01 07:00", "12-01 11:59:59", ("12-01 06:00", "12-01 09:59:59")),
    PAST("what did I finish yesterday", "B", "12-05", "e12-05"),
]


def _at(spec: str | None, now: datetime) -> datetime | None:
    if spec is None:
        return None
    if spec == "now":
        return now
    end = spec.startswith("e")
    s = spec[1:] if end else spec
    day, _, clock = s.partition(" ")
    if day.count("-") == 1:
        day = f"{now.year}-{day}"
    if end:
        clock = "23:59:59"
    parts = [int(x) for x in (clock or "00:00").split(":")] + [0]
    y, m, d = (int(x) for x in day.split("-"))
    return datetime(y, m, d, parts[0], parts[1], parts[2], tzinfo=SH)


def _same(got: datetime | None, want: datetime | None) -> bool:
    if got is None or want is None:
        return got is None and want is None
    return abs(got - want) <= TOL


def _same_start(got: datetime | None, want: datetime | None, now: datetime) -> bool:
    if _same(got, want):
        return True
    return (
        got is not None
        and want is not None
        and abs(got - now) <= TOL
        and want.date() == now.date()
        and (want.hour, want.minute) == (0, 0)
    )


def probe_ok(p: Probe) -> tuple[bool, str]:
    now = NOWS[p.now]
    w = resolve_time(p.sentence, now, "Asia/Shanghai", prefer=p.prefer)  # type: ignore[arg-type]
    if p.want is None:
        return w is None, "" if w is None else f"trap read as {w.phrase!r}"
    if w is None:
        return False, "no window"
    for s, e in (p.want, *p.alt):
        if _same_start(w.start, _at(s, now), now) and _same(w.end, _at(e, now)):
            return True, ""
    got = (w.start and w.start.isoformat(), w.end and w.end.isoformat())
    return False, f"{w.phrase!r} -> {got}"


@pytest.mark.parametrize(
    "probe",
    [pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=p.miss)) if p.miss else p for p in PROBES],
    ids=[f"{p.now}:{p.sentence}" for p in PROBES],
)
def test_probe(probe: Probe) -> None:
    ok, why = probe_ok(probe)
    assert ok, why


def test_probe_ids_are_unique() -> None:
    keys = [(p.now, p.sentence, p.prefer) for p in PROBES]
    assert len(keys) == len(set(keys))


def test_probes_are_fast() -> None:
    """The median resolve_time on a probe sentence stays well under a millisecond."""
    samples = []
    for _ in range(3):
        for p in PROBES:
            t0 = time.perf_counter()
            resolve_time(p.sentence, NOWS[p.now], "Asia/Shanghai", prefer=p.prefer)  # type: ignore[arg-type]
            samples.append(time.perf_counter() - t0)
    assert statistics.median(samples) < 0.001


if __name__ == "__main__":  # a quick report: python -m tests.core.test_timeanchor_probes
    misses = [(p, why) for p in PROBES for ok, why in [probe_ok(p)] if not ok]
    for p, why in misses:
        print(f"MISS {p.now} {p.prefer:6s} {p.sentence}: {why}")
    print(f"{len(PROBES) - len(misses)}/{len(PROBES)} probes right")
