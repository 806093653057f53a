""" "这周哪天最闲": each remaining day's load from deadlines and estimates (series at each occurrence), the
lightest named first. NOW is Monday 2026-11-30 10:00 Asia/Shanghai, so the whole week Mon–Sun remains.
"""

from __future__ import annotations

from support.harness import Harness, local, make_harness


def seed(h: Harness) -> None:
    h.add("取快递", 3, "2026-11-30 20:00")  # Mon: 15 min (default)
    h.add("修复线上故障", 1, "2026-12-01 18:00", estimate=90)  # Tue
    h.add("准备答辩", 2, "2026-12-02 09:00")  # Wed: 1 h (default)
    h.add("交材料", 1, "2026-12-02 17:00", estimate=30)  # Wed
    h.add("写季度总结", 2, "2026-12-04 18:00", estimate=240)  # Fri
    h.add("打扫卫生", 4, "2026-12-05 10:00", estimate=45)  # Sat
    h.add("逾期的事", 1, "2026-11-28 18:00")  # overdue: no day
    h.add("学吉他", 3)  # undated: no day
    h.add("下周的事", 2, "2026-12-08 18:00")  # next week
    h.add("早上截止的", 1, "2026-11-30 08:00")  # overdue today: not Monday's load


async def test_the_lightest_day_is_named_and_every_day_shown(harness: Harness) -> None:
    seed(harness)
    answer = await harness.ask("这周哪天最闲")
    assert answer.action == "day_plan"
    assert answer.visible == (
        "这周剩下的 7 天里，最闲的是 12月3日 周四（12月6日 周日 也一样）：没有到期的任务。\n\n"
        "- 11月30日 周一（今天）：1 件，约15分钟\n"
        "- 12月1日 周二：1 件，约1小时30分\n"
        "- 12月2日 周三：2 件，约1小时30分\n"
        "- 12月3日 周四：没有到期的任务\n"
        "- 12月4日 周五：1 件，约4小时\n"
        "- 12月5日 周六：1 件，约45分钟\n"
        "- 12月6日 周日：没有到期的任务\n\n"
        "按截止时间算；没写预计用时的，简单的按15分钟、其他按1小时估；已逾期的 2 件和没有截止时间的 1 件不算在哪一天。"
    )
    assert answer.data["lightest"] == ["2026-12-03", "2026-12-06"]
    assert [d["minutes"] for d in answer.data["days"]] == [15, 90, 90, 0, 240, 45, 0]


async def test_in_english(harness: Harness) -> None:
    seed(harness)
    answer = await harness.ask("which day this week is least busy")
    lines = answer.visible.splitlines()
    assert lines[0] == "Of the 7 days left this week, the least busy is Thu Dec 3 (Sun Dec 6 too): nothing due."
    assert "- Mon Nov 30 (today): 1 task, about 15 min" in lines
    assert "- Wed Dec 2: 2 tasks, about 1 h 30 min" in lines
    assert lines[-1] == (
        "Counted by deadline; no estimate: 15 min if easy, else 1 h; 2 overdue and 1 undated tasks belong to no day."
    )


async def test_a_repeating_task_counts_on_every_day_it_occurs(harness: Harness) -> None:
    note = await harness.ask("每天晚上8点吃药")
    assert note.action == "quick_note_create"
    harness.add("写季度总结", 2, "2026-12-04 18:00", estimate=240)
    answer = await harness.ask("这周哪天最闲")
    counts = [d["count"] for d in answer.data["days"]]
    assert counts == [1, 1, 1, 1, 2, 1, 1]  # the daily series every day, the report on Friday
    assert answer.data["lightest"] == [
        "2026-11-30",
        "2026-12-01",
        "2026-12-02",
        "2026-12-03",
        "2026-12-05",
        "2026-12-06",
    ]


async def test_next_week_and_a_short_week(database_url: str) -> None:
    thursday = make_harness(database_url, now=local("2026-12-03 10:00"))
    thursday.add("下周一开会", 1, "2026-12-07 10:00", estimate=60)
    thursday.add("周五交稿", 2, "2026-12-04 12:00", estimate=120)
    this_week = await thursday.ask("这周哪天最闲")
    assert this_week.visible.startswith("这周剩下的 4 天里，最闲的是 12月3日 周四（12月5日 周六、12月6日 周日 也一样）")
    assert [d["day"] for d in this_week.data["days"]] == ["2026-12-03", "2026-12-04", "2026-12-05", "2026-12-06"]
    next_week = await thursday.ask("下周哪天最闲")
    assert next_week.visible.startswith("下周 7 天里，最闲的是 12月8日 周二")
    assert next_week.data["days"][0] == {"day": "2026-12-07", "count": 1, "minutes": 60, "defaults": 0, "exact": True}
    thursday.state.engine.dispose()
