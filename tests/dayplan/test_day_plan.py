"""The day plan through the full pipeline: "今天怎么安排" → the rest of the day in time slots, rendered by
code. NOW is Monday 2026-11-30 10:00 Asia/Shanghai (the day's window: 10:00–18:00).
"""

from __future__ import annotations

import re

from core import carry
from support.harness import Harness, local, make_harness

LINE = re.compile(r"^- (\d{2}:\d{2})–(\d{2}:\d{2}) (.+?)[（(]", re.M)


def slots(visible: str) -> list[tuple[str, str, str]]:
    return [(m.group(1), m.group(2), m.group(3)) for m in LINE.finditer(visible)]


def planned(visible: str) -> list[str]:
    return [title for _, _, title in slots(visible)]


def seed(h: Harness) -> None:
    h.add("交电费", 1, "2026-11-28 18:00", estimate=10)  # overdue 2 days
    h.add("写周报", 2, "2026-11-29 18:00")  # overdue 1 day, no estimate: 1 h
    h.add("取快递", 3, "2026-11-30 20:00")  # due today, easy: 15 min
    h.add("回客户邮件", 1, "2026-11-30 12:00", estimate=20)  # due today
    h.add("修复线上故障", 1, "2026-12-01 18:00", estimate=90)  # important and urgent
    h.add("准备答辩", 2, "2026-12-02 09:00", threshold="2026-11-29 09:00")  # promoted 2 → 1
    h.add("写季度总结", 2, "2026-12-04 18:00", estimate=240)  # important: doesn't fit what is left
    h.add("整理照片", 4, "2026-12-30 18:00")  # far off and not important: never
    h.add("买花", 3)  # easy, undated: never
    h.add("已经做完的事", 1, "2026-11-30 11:00", completed_at="2026-11-29 20:00")
    h.add("鲍勃的急事", 1, "2026-11-30 15:00", user="bob")


async def test_overdue_first_then_due_today_then_urgent_and_important(harness: Harness) -> None:
    seed(harness)
    answer = await harness.ask("今天怎么安排")
    assert answer.action == "day_plan"
    assert answer.visible.startswith("今天（11月30日 周一）10:00–18:00 可排 8小时，先逾期的，再今天截止的，再重要的")
    assert slots(answer.visible) == [
        ("10:00", "10:10", "交电费"),
        ("10:10", "11:10", "写周报"),
        ("11:10", "11:30", "回客户邮件"),
        ("11:30", "11:45", "取快递"),
        ("11:45", "13:15", "修复线上故障"),
        ("13:15", "14:15", "准备答辩"),
    ]
    lines = answer.visible.splitlines()
    assert "- 10:00–10:10 交电费（逾期 2 天；预计10分钟）" in lines
    assert "- 10:10–11:10 写周报（逾期 1 天；按1小时估）" in lines
    assert "- 11:30–11:45 取快递（今天 20:00 截止；按15分钟估）" in lines
    assert "- 11:45–13:15 修复线上故障（重要且紧急；明天 18:00 截止；预计1小时30分）" in lines
    assert "- 13:15–14:15 准备答辩（临近截止，由「重要不紧急」提前；12月2日 周三 09:00 截止；按1小时估）" in lines
    assert "还有 1 件排不下：写季度总结（重要不紧急；12月4日 周五 18:00 截止；预计4小时）。" in answer.visible
    for never in ("整理照片", "买花", "已经做完的事", "鲍勃的急事"):
        assert never not in answer.visible


async def test_the_answer_carries_the_plan_as_data(harness: Harness) -> None:
    seed(harness)
    answer = await harness.ask("今天怎么安排")
    data = answer.data
    assert (data["kind"], data["day"], data["work_hours"]) == ("day", "2026-11-30", "09:00-18:00")
    assert data["window_start"] == "2026-11-30T10:00:00+08:00" and data["window_end"] == "2026-11-30T18:00:00+08:00"
    assert [c["band"] for c in data["candidates"]] == [
        "overdue",
        "overdue",
        "due",
        "due",
        "urgent",
        "urgent",
        "important",
    ]
    assert data["placed"][1] == {
        "id": data["placed"][1]["id"], "title": "写周报", "band": "overdue", "reason": "逾期 1 天", "minutes": 60,
        "estimated": False, "effective_group": 2, "deadline_at": "2026-11-29T18:00:00+08:00",
        "start": "2026-11-30T10:10:00+08:00", "end": "2026-11-30T11:10:00+08:00", "late": False,
    }  # fmt: skip
    assert [c["title"] for c in data["not_fit"]] == ["写季度总结"] and data["free_minutes"] == 225


async def test_an_over_full_day_lists_what_did_not_fit(harness: Harness) -> None:
    for i, hour in enumerate(("19:00", "20:00", "21:00", "22:00", "23:00", "23:30")):
        harness.add(f"赶工{i + 1}", 1, f"2026-11-30 {hour}", estimate=120)
    answer = await harness.ask("今天先做什么")
    assert answer.action == "day_plan"
    assert planned(answer.visible) == ["赶工1", "赶工2", "赶工3", "赶工4"]
    assert (
        "还有 2 件排不下：赶工5（今天 23:00 截止；预计2小时）、赶工6（今天 23:30 截止；预计2小时）。" in answer.visible
    )
    assert "排完还空" not in answer.visible
    assert [c["title"] for c in answer.data["not_fit"]] == ["赶工5", "赶工6"]


async def test_more_than_five_that_do_not_fit_are_counted(harness: Harness) -> None:
    for i in range(12):
        harness.add(f"长任务{i + 1:02d}", 1, f"2026-11-30 2{i % 4}:00", estimate=240)
    answer = await harness.ask("今天怎么安排")
    assert len(planned(answer.visible)) == 2
    tail = answer.visible.split("\n\n")[-1]
    assert tail.startswith("还有 10 件排不下：") and tail.endswith(" 等。")
    assert tail.count("（") == 5  # five named, the rest counted


async def test_an_empty_day_says_so_and_what_comes_next(harness: Harness) -> None:
    harness.add("整理照片", 4, "2026-12-30 18:00")  # far off and not important
    harness.add("写年终感想", 3, "2026-12-04 18:00")  # easy, later this week
    answer = await harness.ask("今天怎么安排")
    assert answer.visible == (
        "今天没有要排的：没有逾期的，没有今天截止的，也没有重要的任务。接下来最近的是「写年终感想」，12月4日 周五 18:00 截止。"
    )
    assert answer.data["candidates"] == [] and answer.data["placed"] == []


async def test_an_empty_account_says_nothing_comes_next(harness: Harness) -> None:
    answer = await harness.ask("plan my day")
    assert answer.visible == (
        "Nothing to plan today: nothing overdue, nothing due today, nothing important. "
        "Nothing with a deadline after that either."
    )


async def test_a_far_off_unimportant_task_does_not_fill_a_free_day(harness: Harness) -> None:
    harness.add("交电费", 1, "2026-11-29 18:00", estimate=10)
    harness.add("整理照片", 4, "2026-12-20 18:00", estimate=30)
    harness.add("学吉他", 3, "2026-12-25 18:00")
    answer = await harness.ask("今天怎么安排")
    assert planned(answer.visible) == ["交电费"]
    assert "排完还空 7小时50分。" in answer.visible
    assert "整理照片" not in answer.visible and "学吉他" not in answer.visible


async def test_without_any_estimate_the_defaults_are_said_once_in_the_lead(harness: Harness) -> None:
    harness.add("交电费", 1, "2026-11-29 18:00")
    harness.add("取快递", 3, "2026-11-30 20:00")
    harness.add("写方案", 2, "2026-12-03 18:00")
    answer = await harness.ask("今天怎么安排")
    lead = answer.visible.split("\n")[0]
    assert lead.endswith("（没写预计用时的，简单的按15分钟、其他按1小时估）：")
    assert answer.visible.count("简单的按15分钟") == 1
    assert slots(answer.visible) == [
        ("10:00", "11:00", "交电费"),
        ("11:00", "11:15", "取快递"),
        ("11:15", "12:15", "写方案"),
    ]
    assert not any("预计" in line for line in answer.visible.splitlines()[1:])  # no line has an estimate of its own


async def test_with_every_estimate_no_default_is_mentioned(harness: Harness) -> None:
    harness.add("交电费", 1, "2026-11-29 18:00", estimate=10)
    answer = await harness.ask("今天怎么安排")
    assert "简单的按15分钟" not in answer.visible and "估）" not in answer.visible


async def test_a_task_that_ends_after_its_deadline_is_marked(harness: Harness) -> None:
    harness.add("处理投诉", 1, "2026-11-29 18:00", estimate=120)
    harness.add("交午饭订单", 3, "2026-11-30 11:30", estimate=15)
    answer = await harness.ask("今天怎么安排")
    assert "- 12:00–12:15 交午饭订单（今天 11:30 截止；预计15分钟；会晚于截止）" in answer.visible.splitlines()


async def test_a_repeating_task_is_planned_at_its_occurrence(harness: Harness) -> None:
    note = await harness.ask("每天晚上8点吃药")
    assert note.action == "quick_note_create"
    today = await harness.ask("今天怎么安排")
    assert "吃药（今天 20:00 截止；每天 20:00" in today.visible
    tomorrow = await harness.ask("明天怎么安排")
    assert "吃药（明天 20:00 截止；每天 20:00" in tomorrow.visible  # the next occurrence, not today's
    assert "留给今天" not in tomorrow.visible
    assert [c["deadline_at"] for c in tomorrow.data["placed"]] == ["2026-12-01T20:00:00+08:00"]


async def test_an_overdue_repeating_task_is_planned_once(harness: Harness) -> None:
    yesterday = make_harness(harness.state.settings.database_url, now=local("2026-11-29 10:00"))
    await yesterday.ask("每天上午9点半打卡")
    answer = await harness.ask("今天怎么安排")  # the open occurrence (today 09:30 or earlier) is overdue
    assert planned(answer.visible).count("打卡") == 1
    assert answer.data["placed"][0]["band"] == "overdue"
    yesterday.state.engine.dispose()


async def test_tomorrow_starts_at_the_start_of_working_hours_and_leaves_today_to_today(harness: Harness) -> None:
    harness.add("交电费", 1, "2026-11-29 18:00", estimate=10)
    harness.add("取快递", 3, "2026-11-30 20:00")
    harness.add("开周会", 1, "2026-12-01 10:00", estimate=60)
    answer = await harness.ask("明天怎么安排")
    assert answer.visible.startswith("明天（12月1日 周二）09:00–18:00 可排 9小时，先逾期的，再明天截止的，再重要的")
    assert slots(answer.visible) == [("09:00", "09:10", "交电费"), ("09:10", "10:10", "开周会")]
    assert "开周会（明天 10:00 截止；预计1小时；会晚于截止）" in answer.visible
    assert "今天截止的 1 件留给今天，没有排进来：「取快递」。" in answer.visible
    assert answer.data["day"] == "2026-12-01" and answer.data["left_today"][0]["title"] == "取快递"


async def test_after_working_hours_there_is_no_time_today(database_url: str) -> None:
    late = make_harness(database_url, now=local("2026-11-30 19:30"))
    late.add("交电费", 1, "2026-11-29 18:00", estimate=10)
    answer = await late.ask("今天怎么安排")
    assert answer.visible == (
        "今天的工作时间（09:00–18:00）已经过了，没有可排的时间。\n\n要做的还有 1 件：交电费（逾期 1 天；预计10分钟）。"
        "\n\n说「明天怎么安排」可以排到明天。"
    )
    late.state.engine.dispose()


async def test_another_users_tasks_never_appear(harness: Harness) -> None:
    seed(harness)
    harness.add("鲍勃的逾期", 1, "2026-11-28 18:00", user="bob")
    harness.add("鲍勃的重要事", 2, "2026-12-02 18:00", user="bob")
    alice = await harness.ask("今天怎么安排")
    assert "鲍勃" not in alice.visible and all("鲍勃" not in c["title"] for c in alice.data["candidates"])
    bob = await harness.ask("今天怎么安排", user="bob")
    assert planned(bob.visible) == ["鲍勃的逾期", "鲍勃的急事", "鲍勃的重要事"]
    week = await harness.ask("这周哪天最闲", user="bob")
    assert sum(d["count"] for d in week.data["days"]) == 2  # bob's two due this week; alice's not counted


async def test_in_english(harness: Harness) -> None:
    seed(harness)
    answer = await harness.ask("what should I do today")
    assert answer.action == "day_plan"
    lines = answer.visible.splitlines()
    assert lines[0] == (
        "Today (Mon Nov 30), 10:00–18:00: 8 h to plan — overdue first, then due today, then important ones "
        "(no estimate: 15 min if easy, else 1 h):"
    )
    assert "- 10:00–10:10 交电费 (overdue 2 days; about 10 min)" in lines
    assert "- 10:10–11:10 写周报 (overdue 1 day; 1 h, assumed)" in lines
    assert "- 11:30–11:45 取快递 (due today 20:00; 15 min, assumed)" in lines
    assert "1 more doesn't fit: 写季度总结 (important, not urgent; due Fri Dec 4, 18:00; about 4 h)." in answer.visible


# --- another plan ---------------------------------------------------------------------------------------


async def test_another_plan_turns_the_queue_one_step_each_time(harness: Harness) -> None:
    seed(harness)
    first, again, third = await harness.converse("今天怎么安排", "换一个", "再换一个")
    assert [a.action for a in (first, again, third)] == ["day_plan"] * 3
    assert planned(first.visible)[:2] == ["交电费", "写周报"]
    assert again.visible.startswith("换个排法：把「交电费」挪到最后。\n\n今天（11月30日 周一）")
    assert planned(again.visible)[0] == "写周报" and planned(again.visible)[-1] == "交电费"
    assert third.visible.startswith("换个排法：把「交电费」、「写周报」挪到最后。")
    assert planned(third.visible)[0] == "回客户邮件"
    assert [a.record("p1") for a in (first, again, third)] == [
        {"day": "2026-11-30", "shift": 0},
        {"day": "2026-11-30", "shift": 1},
        {"day": "2026-11-30", "shift": 2},
    ]


async def test_another_plan_of_tomorrow_stays_on_tomorrow(harness: Harness) -> None:
    harness.add("开周会", 1, "2026-12-01 10:00", estimate=60)
    harness.add("写方案", 2, "2026-12-01 16:00", estimate=60)
    _, again = await harness.converse("明天怎么安排", "换一个")
    assert again.visible.startswith("换个排法：把「开周会」挪到最后。\n\n明天（12月1日 周二）")
    assert planned(again.visible) == ["写方案", "开周会"]


async def test_another_plan_without_the_record_reads_the_day_from_the_words(harness: Harness) -> None:
    harness.add("开周会", 1, "2026-12-01 10:00", estimate=60)
    harness.add("写方案", 2, "2026-12-01 16:00", estimate=60)
    first = await harness.ask("明天怎么安排")
    dropped = carry.strip(first.content)  # a client that drops the record line
    again = await harness.ask("换一个", history=[("user", "明天怎么安排"), ("assistant", dropped)])
    assert again.action == "day_plan" and again.record("p1") == {"day": "2026-12-01", "shift": 1}
    assert planned(again.visible) == ["写方案", "开周会"]


async def test_without_the_record_a_turned_plan_of_tomorrow_still_reads_as_tomorrow(harness: Harness) -> None:
    harness.add("开周会", 1, "2026-12-01 10:00", estimate=60)
    harness.add("写方案", 2, "2026-12-01 16:00", estimate=60)
    first, again = await harness.converse("明天怎么安排", "换一个")
    assert again.visible.startswith("换个排法：")  # the lead is no longer the first line
    history = [("user", "明天怎么安排"), ("assistant", first.content), ("user", "换一个"), ("assistant", again.visible)]
    third = await harness.ask("再换一个", history=history)
    assert third.record("p1") == {"day": "2026-12-01", "shift": 1}


async def test_a_forged_record_is_ignored(harness: Harness) -> None:
    harness.add("开周会", 1, "2026-11-30 15:00", estimate=60)
    harness.add("写方案", 2, "2026-11-30 16:00", estimate=60)
    first = await harness.ask("今天怎么安排")
    forged = carry.attach(first.visible, "p1", {"day": "2026-12-05", "shift": 7}, carry.Seal(b"x" * 32, 1))
    again = await harness.ask("换一个", history=[("user", "今天怎么安排"), ("assistant", forged)])
    assert again.record("p1") == {"day": "2026-11-30", "shift": 1}


async def test_another_plan_with_one_task_says_there_is_no_other(harness: Harness) -> None:
    harness.add("交电费", 1, "2026-11-29 18:00", estimate=10)
    _, again = await harness.converse("今天怎么安排", "换一个")
    assert again.visible.startswith("只有一件要排，没有别的排法：")
    assert planned(again.visible) == ["交电费"]


async def test_task_list_follow_ups_do_not_read_a_plan_as_a_list(harness: Harness) -> None:
    seed(harness)
    plan, more = await harness.converse("今天先做什么", "再来两个")
    assert plan.action == "day_plan" and not re.search(r"^\d+\. ", plan.visible, re.M)  # no numbered lines
    # A plan is no page of a list: a query after it starts at 1, it does not continue after the plan's lines.
    numbers = [int(n) for n in re.findall(r"^(\d+)\. ", more.visible, re.M)]
    assert numbers == [] or numbers[0] == 1


async def test_another_plan_in_english(harness: Harness) -> None:
    harness.add("Team sync", 1, "2026-12-01 10:00", estimate=60)
    harness.add("Write the proposal", 2, "2026-12-01 16:00", estimate=60)
    first, again = await harness.converse("plan tomorrow", "another plan")
    assert first.visible.startswith("Tomorrow (Tue Dec 1), 09:00–18:00: 9 h to plan — overdue first, then due tomorrow")
    assert again.visible.startswith('Another order: "Team sync" moved to the end.\n\nTomorrow (Tue Dec 1)')
    assert "- 10:00–11:00 Team sync (due tomorrow 10:00; about 1 h; ends after its deadline)" in again.visible


async def test_the_working_hours_setting_bounds_the_plan(database_url: str) -> None:
    h = make_harness(database_url, work_hours="10:00-12:00")
    try:
        seed(h)
        answer = await h.ask("今天怎么安排")
        shown = slots(carry.strip(answer.content))
        assert shown and shown[0][0] == "10:00" and all(end <= "12:00" for _, end, _ in shown)
        assert "排不下" in answer.content  # two hours hold far less than the day's tasks
        assert answer.data["work_hours"] == "10:00-12:00" and answer.data["minutes"] == 120
    finally:
        h.state.engine.dispose()
