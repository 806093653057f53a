"""Seasons (Recognizers-Text's period specs have them): meteorological months — 春 3-5, 夏 6-8,
秋 9-11, 冬 12 to the end of February — and only with a year or 这个/今/明/去 before them, so "夏天的
衣服" stays words. 这个冬天 said in January or February is the winter already under way."""

from __future__ import annotations

import pytest

from support.timeprobe import PAST, TRAP, P, Probe, params, probe_ok, report

PROBES: list[Probe] = [
    P("今年夏天有什么计划", "G", "06-01", "e08-31", kind="season"),
    P("明年春天要做什么", "A", "2027-03-01", "e2027-05-31", kind="season"),
    P("这个冬天有哪些任务", "A", "12-01", "e2027-02-28", kind="season"),
    P("这个冬天有哪些任务", "F", "2026-12-01", "e2027-02-28", kind="season"),
    P("明年冬天的安排", "D", "2029-12-01", "e2030-02-28", kind="season"),
    P("今年冬天要交什么", "C", "12-01", "e2027-02-28", kind="season"),
    P("2027年秋季有什么安排", "A", "2027-09-01", "e2027-11-30", kind="season"),
    P("2028年冬季的计划", "A", "2028-12-01", "e2029-02-28", kind="season"),
    P("2027年冬季的计划", "A", "2027-12-01", "e2028-02-29", kind="season"),
    P("今夏要完成的", "H", "06-01", "e08-31", kind="season"),
    P("明春要做的事", "G", "2027-03-01", "e2027-05-31", kind="season"),
    PAST("去年秋天完成了什么", "A", "2025-09-01", "e2025-11-30", kind="season"),
    PAST("去年冬天做完了哪些", "H", "2025-12-01", "e2026-02-28", kind="season"),
    TRAP("把夏天的衣服收起来", kind="trap"),
    TRAP("春季学期的作业", kind="trap"),
    TRAP("秋天的童话读后感", kind="trap"),
    TRAP("买冬季运动装备", kind="trap"),
    TRAP("冬天穿什么", kind="trap"),
]


@pytest.mark.parametrize("probe", params(PROBES))
def test_probe(probe: Probe) -> None:
    ok, why = probe_ok(probe)
    assert ok, why


if __name__ == "__main__":
    report(PROBES)
