"""Peer-style probes (a Recognizers-Text-like set): spans with a count, ranges, alternatives, open bounds.

The notation and shared conventions are in support/timeprobe.py. This table's own conventions:

* 下N天/周/个月/年 (also 后N…) = the N whole units after the current one: 下三天 = [tomorrow 00:00,
  end of today+3]; 下两周 = next Monday .. the Sunday two weeks on; 下三个月 = the 1st of next month ..
  the last day of the third month. 上N… (also 前N周/月/年 in the existing reading) mirrors it backwards:
  上两周 = the two weeks before this one. Hours and minutes have no whole unit here: 下个小时 = [now,
  now+1h], 上个小时 = [now-1h, now]. 未来/接下来/今后N… run from now (existing future_span).
* 还剩/只剩N… = [now, end of that many units ahead] (like N天内; hours/minutes exact).
* A range "X到Y" / "X和Y之间" / "在X到Y之间" is [start of X, end of Y]; a clock range whose end is
  earlier than its start runs across midnight; a clock range still under way today is today's.
* "X或Y" (two dates) is the window covering both.
* "X或之后 / X及以后" = [start of X, open]; "X或之前 / X及以前" = _before(X) (open or now .. end of X).
"""

from __future__ import annotations

import pytest

from support.timeprobe import PAST, TRAP, P, Probe, params, probe_ok, report

PROBES: list[Probe] = [
    # -- spans with a count ---------------------------------------------------------------------
    P("下三天有什么要做的", "A", "12-01", "e12-03", kind="span_count"),
    P("下两天要交的东西", "C", "2027-01-01", "e2027-01-02", kind="span_count"),
    P("下三天的任务", "D", "2028-02-28", "e2028-03-01", kind="span_count"),
    P("下两周有什么安排", "B", "12-07", "e12-20", kind="span_count"),
    P("下三个月的计划有哪些", "A", "12-01", "e2027-02-28", kind="span_count"),
    P("下两个月要做的", "C", "2027-01-01", "e2027-02-28", kind="span_count"),
    P("下一年有什么目标", "G", "2027-01-01", "e2027-12-31", kind="span_count"),
    P("后1年要做的事", "A", "2027-01-01", "e2027-12-31", kind="span_count"),
    P("后两天有什么要交的", "G", "07-16", "e07-17", kind="span_count"),
    P("下个小时有什么要做", "A", "now", "11-30 11:00", ("11-30 11:00", "11-30 11:59:59"), kind="span_count"),
    P("之后5分钟要做的", "A", "now", "11-30 10:05", kind="span_count"),
    P("还剩3小时要交的有哪些", "A", "now", "11-30 13:00", kind="span_count"),
    P("还剩两天要交的", "A", "now", "e12-02", kind="span_count"),
    P("接下来的两周要做的", "A", "now", "12-14 10:00", ("now", "e12-14"), kind="span_count"),
    P("接下来三天要干嘛", "F", "now", "02-23 15:00", ("now", "e02-23"), kind="span_count"),
    P("今后三年有什么规划", "A", "now", "e2029-11-29", ("now", "e2029-11-30"), kind="span_count"),
    PAST("上两周完成了什么", "A", "11-16", "e11-29", kind="span_count"),
    PAST("上三天做了哪些", "D", "2028-02-24", "e2028-02-26", kind="span_count"),
    PAST("上两个月做完的", "H", "01-01", "e02-28", kind="span_count"),
    PAST("上两年完成的", "A", "2024-01-01", "e2025-12-31", kind="span_count"),
    PAST("上个小时完成了什么", "A", "11-30 09:00", "now", kind="span_count"),
    PAST("前三天完成了什么", "A", "11-27", "now", ("11-27", "e11-29"), kind="span_count"),
    PAST("最近三个月完成了什么", "A", "08-30", "now", ("09-01", "now"), kind="span_count"),
    PAST("过去的半年完成了什么", "A", "05-30", "now", kind="span_count"),
    P("下两周内把报告写完", "A", "12-07", "e12-20", kind="span_count"),
    P("后三天每天跑步", "H", "04-01", "e04-03", kind="span_count"),
    PAST("上三个月完成的", "C", "09-01", "e11-30", kind="span_count"),
    # -- day ranges -----------------------------------------------------------------------------
    P("21号到23号有什么", "A", "12-21", "e12-23", kind="range_day"),
    P("3月5日至8日的任务", "A", "2027-03-05", "e2027-03-08", kind="range_day"),
    P("周三和周五之间有什么要做的", "A", "12-02", "e12-04", kind="range_day"),
    P("在12月3号到12月8号之间要交的", "A", "12-03", "e12-08", kind="range_day"),
    P("12月3号与12月8号之间要交的", "A", "12-03", "e12-08", kind="range_day"),
    P("12月28号到1月3号的安排", "A", "12-28", "e2027-01-03", kind="range_day"),
    P("1号到5号的任务", "C", "2027-01-01", "e2027-01-05", kind="range_day"),
    P("2月27号到3月1号的任务", "D", "2028-02-27", "e2028-03-01", kind="range_day"),
    P("这周五到下周二要做的", "A", "12-04", "e12-08", kind="range_day"),
    P("明天到后天要做的", "G", "07-16", "e07-17", kind="range_day"),
    P("下个礼拜一到礼拜三有什么", "A", "12-07", "e12-09", kind="range_day"),
    PAST("上周三和上周五之间完成了什么", "A", "11-25", "e11-27", kind="range_day"),
    P("what's due between Friday and Sunday", "A", "12-04", "e12-06", kind="range_day"),
    P("what's due from Monday to Wednesday", "B", "12-07", "e12-09", kind="range_day"),
    P("what's due Dec 3 - Dec 5", "A", "12-03", "e12-05", kind="range_day"),
    # -- month and year ranges ------------------------------------------------------------------
    P("5月-10月的任务", "A", "2027-05-01", "e2027-10-31", kind="range_month_year"),
    P("5到10月有什么", "A", "2027-05-01", "e2027-10-31", kind="range_month_year"),
    P("5月和8月之间的任务", "A", "2027-05-01", "e2027-08-31", kind="range_month_year"),
    P("3月到5月的计划", "G", "2027-03-01", "e2027-05-31", kind="range_month_year"),
    P("11月到明年2月的计划", "G", "11-01", "e2027-02-28", kind="range_month_year"),
    P("12月到2月有什么", "A", "12-01", "e2027-02-28", kind="range_month_year"),
    P("7月-9月有什么要交的", "D", "2028-07-01", "e2028-09-30", kind="range_month_year"),
    PAST("1995-1997年完成了什么", "A", "1995-01-01", "e1997-12-31", kind="range_month_year"),
    PAST("2015年到2017年完成了什么", "A", "2015-01-01", "e2017-12-31", kind="range_month_year"),
    PAST("2019年与2021年之间完成的", "A", "2019-01-01", "e2021-12-31", kind="range_month_year"),
    P("2027年到2028年的规划", "A", "2027-01-01", "e2028-12-31", kind="range_month_year"),
    P("2026-2027年的计划", "A", "2026-01-01", "e2027-12-31", kind="range_month_year"),
    P("今年到明年的计划", "A", "2026-01-01", "e2027-12-31", ("now", "e2027-12-31"), kind="range_month_year"),
    # -- clock ranges ---------------------------------------------------------------------------
    P("晚上11点~凌晨2点有什么", "A", "11-30 23:00", "12-01 02:00", kind="range_clock"),
    P("6点30pm-11点pm有什么", "A", "11-30 18:30", "11-30 23:00", kind="range_clock"),
    P("2点-明天4点有什么", "A", "11-30 14:00", "12-01 16:00", ("11-30 14:00", "12-01 04:00"), kind="range_clock"),
    P("下午3点到5点有什么", "A", "11-30 15:00", "11-30 17:00", kind="range_clock"),
    P("从早上8点到晚上10点有什么", "A", "11-30 08:00", "11-30 22:00", kind="range_clock"),
    P("今晚10点到明早6点要做的", "A", "11-30 22:00", "12-01 06:00", kind="range_clock"),
    P("明天上午9点到11点有什么会", "A", "12-01 09:00", "12-01 11:00", kind="range_clock"),
    P("晚上8点到10点有什么", "C", "2027-01-01 20:00", "2027-01-01 22:00", kind="range_clock"),
    P("晚上10点到凌晨1点有什么", "C", "12-31 22:00", "2027-01-01 01:00", kind="range_clock"),
    P("9:00-11:30有什么会", "A", "11-30 09:00", "11-30 11:30", kind="range_clock"),
    P("下午2点至4点半的会", "G", "07-15 14:00", "07-15 16:30", kind="range_clock"),
    P("周六晚上7点到11点有什么", "A", "12-05 19:00", "12-05 23:00", kind="range_clock"),
    P("晚上11点到凌晨2点值班", "B", "12-06 23:00", "12-07 02:00", kind="range_clock"),
    P("晚上11点到1点加班", "G", "07-15 23:00", "07-16 01:00", kind="range_clock"),
    P("上午9点到1点有什么安排", "H", "2026-04-01 09:00", "2026-04-01 13:00", kind="range_clock"),
    P("what's due 10pm-2am", "A", "11-30 22:00", "12-01 02:00", kind="range_clock"),
    P("tomorrow from 9am to 5pm what's due", "A", "12-01 09:00", "12-01 17:00", kind="range_clock"),
    # -- alternatives ---------------------------------------------------------------------------
    P("明天或者后天有什么要交的", "A", "12-01", "e12-02", kind="alternative"),
    P("周三或周四有什么", "A", "12-02", "e12-03", kind="alternative"),
    P("这周六或者周日有空做什么", "A", "12-05", "e12-06", kind="alternative"),
    P("明天或后天要交的", "C", "2027-01-01", "e2027-01-02", kind="alternative"),
    P("3号或5号有什么", "A", "12-03", "e12-05", kind="alternative"),
    P("周五或周六去取快递", "G", "07-17", "e07-18", kind="alternative"),
    P("what's due tomorrow or Wednesday", "A", "12-01", "e12-02", kind="alternative"),
    # -- open bounds ----------------------------------------------------------------------------
    P("2027年1月1日或之后要做的", "A", "2027-01-01", None, kind="open_bound"),
    PAST("2015年1月1日或之后完成的", "A", "2015-01-01", None, ("2015-01-01", "now"), kind="open_bound"),
    PAST("2015年1月1日或之前完成的", "A", None, "e2015-01-01", kind="open_bound"),
    PAST("2013年及以前的任务", "A", None, "e2013-12-31", kind="open_bound"),
    PAST("2024年及之前完成的", "A", None, "e2024-12-31", kind="open_bound"),
    P("2020年以后的任务", "A", "2020-01-01", None, kind="open_bound"),
    P("3月之前要做的", "A", "now", "e2027-03-31", kind="open_bound"),
    PAST("从2019年开始完成的", "A", "2019-01-01", "now", kind="open_bound"),
    P("从下周一开始要做的", "A", "12-07", None, kind="open_bound"),
    P("12月10号及以后的任务", "A", "12-10", None, kind="open_bound"),
    P("12月10号或以后要交的", "A", "12-10", None, kind="open_bound"),
    P("下周三或之前要交的", "A", "now", "e12-09", kind="open_bound"),
    P("1月15日以后要做的", "C", "2027-01-15", None, kind="open_bound"),
    P("2月29号或之后的安排", "D", "2028-02-29", None, kind="open_bound"),
    P("明年3月及以后的计划", "A", "2027-03-01", None, kind="open_bound"),
    P("2027年5月及以后的计划", "C", "2027-05-01", None, kind="open_bound"),
    # -- traps: not time expressions ------------------------------------------------------------
    TRAP("第3到5章要复习", kind="trap"),
    TRAP("下三个台阶就到了", kind="trap"),
    TRAP("上两个视频剪完了吗", prefer="past", kind="trap"),
    TRAP("还剩3个任务没做", kind="trap"),
    TRAP("1995-1997的数据整理一下", kind="trap"),
    TRAP("5到10个人参加", kind="trap"),
    TRAP("打3到5局游戏", kind="trap"),
    TRAP("之后再说吧", kind="trap"),
    TRAP("下两层楼拿快递", kind="trap"),
    TRAP("之间的差距有多大", kind="trap"),
    TRAP("前三个任务给我看看", prefer="past", kind="trap"),
    TRAP("上三天班休一天", kind="trap"),
    TRAP("记下三天的开销", kind="trap"),
    TRAP("和与或的用法", kind="trap"),
]


@pytest.mark.parametrize("probe", params(PROBES))
def test_probe(probe: Probe) -> None:
    ok, why = probe_ok(probe)
    assert ok, why


def test_probe_ids_are_unique() -> None:
    keys = [(p.now, p.sentence, p.prefer) for p in PROBES]
    assert len(keys) == len(set(keys))


def test_every_probe_has_a_kind() -> None:
    assert all(p.kind for p in PROBES)


if __name__ == "__main__":  # PYTHONPATH=tests .venv/bin/python tests/core/test_timeanchor_peer_ranges.py
    report(PROBES)
