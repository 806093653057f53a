"""Whole answers of named plans, snapshotted (syrupy): what a person reads, the stages, the carried record.

Each test also asserts what the plan must mean, so a snapshot that is merely stable can't hide a wrong
answer. NOW is Monday 2026-11-30 10:00 Asia/Shanghai. Update with ``pytest --snapshot-update``.
"""

from __future__ import annotations

from typing import Any

from support.harness import Answer, Harness


def shot(answer: Answer) -> dict[str, Any]:
    return {
        "action": answer.action,
        "content": answer.visible,
        "stages": [f"{e.stage}:{e.status} {e.message}" for e in answer.events],
        "model_requests": answer.requests,
        "record": answer.record("p1"),
    }


def busy_monday(h: Harness) -> None:
    h.add("交电费", 1, "2026-11-28 18:00", estimate=10)
    h.add("写周报", 2, "2026-11-29 18:00")
    h.add("回客户邮件", 1, "2026-11-30 12:00", estimate=20)
    h.add("取快递", 3, "2026-11-30 20:00")
    h.add("修复线上故障", 1, "2026-12-01 18:00", estimate=90)
    h.add("准备答辩", 2, "2026-12-02 09:00", threshold="2026-11-29 09:00")
    h.add("写季度总结", 2, "2026-12-04 18:00", estimate=240)
    h.add("整理照片", 4, "2026-12-30 18:00")


async def test_busy_monday(harness: Harness, snapshot: Any) -> None:
    busy_monday(harness)
    answer = await harness.ask("今天怎么安排")
    assert answer.action == "day_plan" and answer.requests == 0  # offline, no model
    assert "- 10:00–10:10 交电费（逾期 2 天；预计10分钟）" in answer.visible and "整理照片" not in answer.visible
    assert shot(answer) == snapshot


async def test_busy_monday_another_order(harness: Harness, snapshot: Any) -> None:
    busy_monday(harness)
    _, again = await harness.converse("今天先做什么", "换一个")
    assert again.visible.startswith("换个排法：把「交电费」挪到最后。")
    assert shot(again) == snapshot


async def test_tomorrow_in_english(harness: Harness, snapshot: Any) -> None:
    harness.add("Pay rent", 1, "2026-11-29 18:00", estimate=15)
    harness.add("Pick up the parcel", 3, "2026-11-30 20:00")
    harness.add("Team sync", 1, "2026-12-01 10:00", estimate=60)
    harness.add("Draft the proposal", 2, "2026-12-03 18:00", estimate=180)
    harness.add("Learn guitar", 4)
    answer = await harness.ask("plan tomorrow")
    assert answer.visible.startswith("Tomorrow (Tue Dec 1), 09:00–18:00: 9 h to plan")
    assert '1 task due later today is left to today: "Pick up the parcel".' in answer.visible
    assert shot(answer) == snapshot


async def test_the_lightest_day_of_the_week(harness: Harness, snapshot: Any) -> None:
    busy_monday(harness)
    answer = await harness.ask("这周哪天最闲")
    assert "最闲的是 12月3日 周四" in answer.visible.splitlines()[0]
    assert shot(answer) == snapshot
