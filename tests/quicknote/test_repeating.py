"""Repeating notes through the full pipeline (offline): each phrase family becomes one task with its
rule, the title keeps no repetition words, the confirmation names the rule and the next dates, an
unreadable repetition is said, and a retry writes one series.

Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

import pytest

from core import recurrence, series
from support.harness import Harness, local

# (message, title, first deadline (local), the rule's parts that must hold, words in the answer)
FAMILIES = [
    ("每周三晚上7点上吉他课", "上吉他课", "2026-12-02 19:00", {"FREQ": "WEEKLY", "BYDAY": "WE"}, "每周三 19:00"),
    ("天天晚上十点记账", "记账", "2026-11-30 22:00", {"FREQ": "DAILY"}, "每天 22:00"),
    ("每周二四六练口语", "练口语", "2026-12-01 23:59:59", {"BYDAY": "TU,TH,SA"}, "接下来：12月1日、12月3日、12月5日"),
    ("每隔一周的周四开读书会", "开读书会", "2026-12-03 23:59:59", {"INTERVAL": "2", "BYDAY": "TH"}, "12月17日"),
    ("每5天换一次滤芯", "换滤芯", "2026-11-30 23:59:59", {"FREQ": "DAILY", "INTERVAL": "5"}, "12月5日"),
    ("每月10号还房贷", "还房贷", "2026-12-10 23:59:59", {"FREQ": "MONTHLY", "BYMONTHDAY": "10"}, "每月10号"),
    ("每月最后一天整理账单", "整理账单", "2026-11-30 23:59:59", {"BYMONTHDAY": "-1"}, "12月31日"),
    ("每个工作日下午六点写日报", "写日报", "2026-11-30 18:00", {"X-DAYS": "CN-WORKDAY"}, "每个工作日 18:00"),
    ("每年5月20日给老婆买花", "给老婆买花", "2027-05-20 23:59:59", {"FREQ": "YEARLY", "BYMONTH": "5"}, "2027年5月20日"),
    ("每个月农历十五去寺里上香", "去寺里上香", "2026-12-23 23:59:59", {"RSCALE": "CHINESE"}, "每月农历十五"),
    ("每年中秋给外婆寄月饼", "给外婆寄月饼", "2027-09-15 23:59:59", {"RSCALE": "CHINESE", "BYMONTH": "8"}, "农历八月十五"),
    ("every Tuesday at 6pm take out the recycling", "take out the recycling", "2026-12-01 18:00", {"BYDAY": "TU"}, "next: Dec 1, Dec 8"),
]  # fmt: skip


@pytest.mark.parametrize(("message", "title", "due", "parts", "said"), FAMILIES, ids=[f[1] for f in FAMILIES])
async def test_each_family_is_one_repeating_task(
    harness: Harness, message: str, title: str, due: str, parts: dict[str, str], said: str
) -> None:
    answer = await harness.ask(message)
    assert answer.action == "quick_note_create", answer.visible
    assert said in answer.visible, answer.visible
    [task] = harness.tasks()
    assert task.title == title
    assert task.deadline_at == local(due)
    rule = series.rule_of(task)
    assert rule is not None
    assert parts.items() <= rule.parts().items()
    # The deadline is an occurrence of the stored rule (the first from now).
    assert recurrence.next_after(rule, harness.now, inclusive=True) == task.deadline_at


@pytest.mark.parametrize(
    ("message", "title", "said"),
    [
        ("每两周去一次超市", "去超市", "每两周"),  # the once of the period is not the task's
        ("每礼拜三倒一趟垃圾", "倒垃圾", "每周三"),
        ("每半年体检一次", "体检", "每6个月"),
        ("以后每周日晚上给家里打电话", "给家里打电话", "每周日"),  # "from now on" goes with the rule
        ("我今后每天都要早起", "早起", "每天"),
        ("周二周四上午九点去健身房，每周都去", "去健身房", "每周二四 09:00"),  # a restating clause goes too
        ("周一和周三晚上练琴，每周如此", "练琴", "每周一三"),
        ("每周五下午交周报", "交周报", "每周五下午"),  # a part of day is named, not shown as 17:59
        ("每天早上跑步", "跑步", "每天早上"),
    ],
)
async def test_the_title_keeps_nothing_of_the_repetition(harness: Harness, message: str, title: str, said: str) -> None:
    answer = await harness.ask(message)
    [task] = harness.tasks()
    assert (task.title, task.recurrence is not None) == (title, True), answer.visible
    assert said in answer.visible, answer.visible


def test_a_once_that_is_not_the_period_stays() -> None:
    from quicknote.steps import _after_repeat

    assert _after_repeat("第一次去看牙医") == "第一次去看牙医"
    assert _after_repeat("再一次确认一次性餐具") == "再一次确认一次性餐具"


async def test_the_confirmation_states_rule_and_next_three_dates(harness: Harness) -> None:
    answer = await harness.ask("每周一上午九点交周计划")
    # The group follows the first occurrence (a week ahead), not the words' clock today (past).
    assert answer.visible.startswith(
        "好，已记下：交周计划（重要不紧急；截止 12月7日 周一 09:00；每周一 09:00，接下来：12月7日、12月14日、12月21日）"
    ), answer.visible


async def test_an_unreadable_repetition_is_said_not_a_quiet_one_off(harness: Harness) -> None:
    answer = await harness.ask("每逢单数日给鱼换水")
    assert answer.action == "quick_note_create"
    assert "「每逢单数日」我还不会按规律重复，先记成了一次性的" in answer.visible
    [task] = harness.tasks()
    assert task.recurrence is None and "每逢" not in task.title


async def test_bounds_until_and_count(harness: Harness) -> None:
    await harness.ask("每周四练瑜伽，到年底为止")
    await harness.ask("每周五复盘连续两周")
    by_title = {t.title: t for t in harness.tasks()}
    yoga, review = series.rule_of(by_title["练瑜伽"]), series.rule_of(by_title["复盘"])
    assert yoga is not None and review is not None
    assert [d.date().isoformat() for d in recurrence.occurrences(yoga, after=harness.now, limit=10)][-1] == "2026-12-31"
    assert len(recurrence.occurrences(review, after=harness.now, limit=10)) == 2


async def test_a_retried_note_writes_one_series(harness: Harness) -> None:
    first = await harness.ask("每周日晚上八点给奶奶打视频", client_message_id="n-rep-1")
    again = await harness.ask("每周日晚上八点给奶奶打视频", client_message_id="n-rep-1")
    assert again.visible.startswith("这条消息刚才已经记下了，没有重复创建：给奶奶打视频")
    assert again.visible.split("：", 1)[1] == first.visible.split("：", 1)[1]  # the same task, rule and dates
    assert len(harness.tasks()) == 1


async def test_a_question_with_a_repetition_word_is_not_a_note(harness: Harness) -> None:
    answer = await harness.ask("每周一都有什么要做的？")
    assert answer.action != "quick_note_create"
    assert harness.tasks() == []


async def test_explain_reports_the_rule_or_the_unread_words(harness: Harness) -> None:
    from app.explain import explain
    from core.turn import TurnConfig

    async def run(sentence: str) -> dict[str, object]:
        state = harness.state
        return await explain(
            state.pipeline, state.hub, sentence, now=harness.now, tz="Asia/Shanghai", config=TurnConfig()
        )

    weekly = await run("每周五下午四点交考勤表")
    assert weekly["action"] == "quick_note_create"
    assert weekly["note"]["recurrence"] == {"rule": "FREQ=WEEKLY;BYDAY=FR", "text": "每周五 16:00"}  # type: ignore[index]
    assert weekly["note"]["deadline_at"] == "2026-12-04T16:00:00+08:00"  # type: ignore[index]
    unread = await run("每逢单数日擦窗户")
    assert unread["note"]["recurrence"] is None and unread["note"]["repeat_unread"] == "每逢单数日"  # type: ignore[index]
    plain = await run("明天擦窗户")
    assert plain["note"]["recurrence"] is None and "repeat_unread" not in plain["note"]  # type: ignore[operator,index]


async def test_a_misbehaving_model_cannot_change_the_rule_or_the_first_date(database_url: str) -> None:
    # The model sees only the sentence without its repetition; it proposes a wrong clock, a wrong
    # absolute deadline and a title with the repetition in it. Code reads the rule and the date.
    from core.llm import ModelHub, offline_model
    from quicknote.draft import NoteDraft
    from support.harness import make_harness

    wrong = NoteDraft(
        title="每周四交周报", time_text="明天", deadline_at=local("2030-01-01 08:00"), priority_group=1,
        priority_reason="模型说的",
    )  # fmt: skip
    h = make_harness(database_url, hub=ModelHub(injected={"extract": offline_model(lambda: wrong, name="wrong")}))
    try:
        await h.ask("每周四下午四点交周报")
        [task] = h.tasks()
        rule = series.rule_of(task)
        assert rule is not None and rule.parts()["BYDAY"] == "TH"
        assert task.deadline_at == local("2026-12-03 16:00")
        assert "每周" not in task.title
    finally:
        h.state.engine.dispose()
