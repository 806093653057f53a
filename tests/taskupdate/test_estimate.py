"""Setting, changing and clearing a task's estimate by chat (issue 27, FDR 0040): "写周报大概要两个小时",
"把写周报的预计时间改成3小时", "写周报不用估时间了", "the report will take about 2 hours" go through the
correction action (the one write path: logged, undoable). Questions ("写周报大概要多久") stay queries,
notes ("记一下写周报，大概一个小时") stay notes.

NOW is Monday 2026-11-30 10:00 Asia/Shanghai (see support.harness).
"""

from __future__ import annotations

import pytest

from app.explain import explain
from core.estimates import minutes_of
from core.llm import ModelHub
from core.turn import HistoryTurn, TurnConfig
from support.harness import Answer, Harness
from taskupdate.offline import focused_title, offline_signal, read_correction

# --- reading the words, without a database -----------------------------------------------------------

# (sentence, the task's words or None, the minutes, or None to clear)
SET_OR_CLEAR = [
    ("写周报大概要两个小时", "写周报", 120),
    ("写周报估计要半小时", "写周报", 30),
    ("把写周报的预计时间改成3小时", "写周报", 180),
    ("写周报预计用时改为90分钟", "写周报", 90),
    ("交方案要花一天", "交方案", 480),
    ("给写周报加个预计时间：一小时", "写周报", 60),
    ("整理发票差不多要四十分钟", "整理发票", 40),
    ("做PPT得花一个半小时左右", "做PPT", 90),
    ("帮我把写周报的预计用时调成45分钟", "写周报", 45),
    ("写周报一般一刻钟就能搞定", "写周报", 15),
    ("写周报要一天半", "写周报", 720),
    ("写周报大概要1小时30分钟", "写周报", 90),
    ("写周报要两个小时左右吧", "写周报", 120),
    ("写周报耗时两小时", "写周报", 120),
    ("预计用时改成两小时", None, 120),
    ("这个大概要一个小时", None, 60),
    ("不对，是两个小时", None, 120),
    ("改成三个小时", None, 180),
    ("写周报不用估时间了", "写周报", None),
    ("去掉写周报的预计用时", "写周报", None),
    ("把写周报的预计用时删掉", "写周报", None),
    ("写周报的预计时间不要了", "写周报", None),
    ("the report will take about 2 hours", "report", 120),
    ("set the estimate for write report to 45 min", "write report", 45),
    ("write report takes an hour and a half", "write report", 90),
    ("estimate the budget review at 3 hours", "budget review", 180),
    ("the tax return should take two days", "tax return", 960),
    ("it'll take about 20 minutes", None, 20),
    ("make it 2 hours", None, 120),
    ("clear the estimate on write report", "write report", None),
    ("remove the estimate from the budget review", "budget review", None),
    ("write report doesn't need an estimate", "write report", None),
]


@pytest.mark.parametrize(("sentence", "words", "minutes"), SET_OR_CLEAR)
def test_an_estimate_is_read_with_its_task_and_amount(sentence: str, words: str | None, minutes: int | None) -> None:
    found = read_correction(sentence)
    assert found is not None and found.field == "estimate", found
    assert found.words == words
    if minutes is None:
        assert found.clear and found.value == ""
    else:
        assert not found.clear and minutes_of(found.value) == minutes


@pytest.mark.parametrize(
    "sentence",
    [
        "写周报大概要多久",  # a question: the query answers it
        "写周报要几个小时",
        "写周报要两个小时？",  # does it?
        "写周报要一个小时吗",
        "记一下写周报，大概一个小时",  # a new note with its estimate
        "明天开会要两个小时",  # a day said first: a note of that day
        "周五的周报要两个小时",
        "还要一个小时",  # time left, not the estimate
        "写周报还要一个小时",
        "写周报已经花了两个小时",  # time spent
        "我要花两个小时",
        "how long will the report take",
        "remind me to call mom, it'll take an hour",
        "把交报告改到周五",  # a deadline, as before
        "推迟到两个小时后",
    ],
)
def test_look_alikes_are_no_estimate(sentence: str) -> None:
    found = read_correction(sentence)
    assert found is None or found.field != "estimate", found


def test_an_amount_without_a_number_is_still_read_then_left_to_the_handler() -> None:
    found = read_correction("写周报要好几个小时")
    assert found is not None and (found.field, found.value, found.words) == ("estimate", "好几个小时", "写周报")


AFTER_NOTE = [HistoryTurn("user", "记一下写周报"), HistoryTurn("assistant", "好，已记下：写周报（重要不紧急）")]
AFTER_ONE = [HistoryTurn("user", "写周报大概要多久"), HistoryTurn("assistant", "「写周报」还没有预计用时。")]
AFTER_LIST = [
    HistoryTurn("user", "来一个"),
    HistoryTurn("assistant", "给你挑了一个（共 3 条匹配）：\n\n1. 交方案（重要且紧急；截止 12月2日 周三 17:00）"),
]
AFTER_CHAT = [HistoryTurn("user", "你好"), HistoryTurn("assistant", "你好！有什么可以帮你？")]


def test_the_task_an_answer_shows_alone() -> None:
    assert focused_title("「写周报」还没有预计用时。") == "写周报"
    assert focused_title("还没有，「交报告」12月3日 周四 18:00 截止。") == "交报告"
    assert focused_title('"write report" has no estimate yet.') == "write report"
    assert focused_title(AFTER_LIST[1].text) == "交方案"
    two = "给你整理了 2 条任务：\n\n1. 交方案（重要且紧急）\n2. 写周报（重要不紧急）"
    assert focused_title(two) is None
    assert focused_title("你好！有什么可以帮你？") is None


@pytest.mark.parametrize("history", [AFTER_NOTE, AFTER_ONE, AFTER_LIST])
def test_this_one_is_the_task_just_written_or_shown(history: list[HistoryTurn]) -> None:
    signal = offline_signal("这个大概要一个小时", history)
    assert signal is not None and signal.confidence >= 0.85


def test_a_statement_without_a_task_is_no_estimate_without_one_before() -> None:
    assert offline_signal("这个大概要一个小时", AFTER_CHAT) is None
    assert offline_signal("这个大概要一个小时", []) is None
    asked = offline_signal("预计用时改成两小时", [])  # only a correction: never a note; the handler says so
    assert asked is not None and 0.6 <= asked.confidence < 0.75


@pytest.mark.parametrize(
    "sentence", ["写周报大概要两个小时", "去掉写周报的预计用时", "set the estimate for write report to 45 min"]
)
def test_a_named_task_is_sure_without_history(sentence: str) -> None:
    signal = offline_signal(sentence, AFTER_CHAT)
    assert signal is not None and signal.confidence >= 0.85


# --- end to end ----------------------------------------------------------------------------------------


def estimate_of(h: Harness, task_id: int, user: str = "alice") -> int | None:
    return h.task(task_id, user=user).estimate_minutes


# (message, the task's estimate before, after, the answer); the task is 写周报 (zh) or "write report" (en).
CHANGES = [
    ("写周报大概要两个小时", None, 120, "好，「写周报」预计用时改为2小时。"),
    ("写周报估计要半小时", 60, 30, "好，「写周报」预计用时改为30分钟（原为1小时）。"),
    ("把写周报的预计时间改成3小时", None, 180, "好，「写周报」预计用时改为3小时。"),
    ("写周报预计用时改为90分钟", 30, 90, "好，「写周报」预计用时改为1小时30分（原为30分钟）。"),
    ("写周报要花一天", None, 480, "好，「写周报」预计用时改为1天。"),
    ("给写周报加个预计时间：一小时", None, 60, "好，「写周报」预计用时改为1小时。"),
    ("写周报不用估时间了", 120, None, "好，「写周报」不再有预计用时（原为2小时）。"),
    ("去掉写周报的预计用时", 45, None, "好，「写周报」不再有预计用时（原为45分钟）。"),
    ("the report will take about 2 hours", None, 120, "OK, “write report” now takes about 2 h."),
    ("set the estimate for write report to 45 min", 60, 45, "OK, “write report” now takes about 45 min (was 1 h)."),
    ("clear the estimate on write report", 90, None, "OK, “write report” no longer has an estimate (was 1 h 30 min)."),
]


@pytest.mark.parametrize(("message", "before", "after", "said"), CHANGES)
async def test_set_change_or_clear_then_undo(
    harness: Harness, message: str, before: int | None, after: int | None, said: str
) -> None:
    title = "写周报" if "写周报" in said else "write report"
    task = harness.add(title, 2, "2026-12-04 17:00", estimate=before)
    other = harness.add("交方案", 1, "2026-12-02 17:00", estimate=30)

    answer = await harness.ask(message)

    assert answer.action == "task_update", answer.visible
    assert answer.visible == said
    assert estimate_of(harness, task) == after
    assert estimate_of(harness, other) == 30
    [row] = harness.changes("update")
    assert row.task_id == task and answer.record("w1") == {"changes": [row.id]}

    undone = await harness.ask("撤销", history=[("user", message), ("assistant", answer.content)])
    assert undone.action == "undo"
    assert "预计用时改回" in undone.visible or "estimate back to" in undone.visible
    assert estimate_of(harness, task) == before


async def test_the_question_stays_a_question(harness: Harness) -> None:
    report = harness.add("写周报", 2, "2026-12-04 17:00", estimate=90)
    asked = await harness.ask("写周报大概要多久")
    assert (asked.action, asked.visible.splitlines()[0]) == ("task_query", "「写周报」预计1小时30分。")
    asked = await harness.ask("写周报要几个小时？")
    assert asked.action == "task_query"
    assert estimate_of(harness, report) == 90 and harness.changes("update") == []


async def test_a_new_note_stays_a_note(harness: Harness) -> None:
    report = harness.add("写周报", 2, "2026-12-04 17:00", estimate=90)
    noted = await harness.ask("记一下写周报，大概一个小时")
    assert noted.action == "quick_note_create", noted.visible
    assert estimate_of(harness, report) == 90 and harness.changes("update") == []
    [new] = [t for t in harness.tasks() if t.id != report]
    assert new.estimate_minutes == 60


async def test_this_after_a_note(harness: Harness) -> None:
    first, then = await harness.converse("记一下写周报", "这个大概要一个小时")
    assert then.action == "task_update"
    assert then.visible == "好，「写周报」预计用时改为1小时。"
    [task] = harness.tasks()
    assert task.estimate_minutes == 60
    history = [("user", "记一下写周报"), ("assistant", first.content), ("user", "这个大概要一个小时")]
    again = await harness.ask("不对，是三个小时", history=[*history, ("assistant", then.content)])
    assert again.visible == "好，「写周报」预计用时改为3小时（原为1小时）。"
    assert [t.estimate_minutes for t in harness.tasks()] == [180]


async def test_it_after_an_english_note(harness: Harness) -> None:
    _noted, then = await harness.converse("remind me to send the invoice", "it'll take about 20 minutes")
    assert then.action == "task_update"
    assert then.visible == "OK, “send the invoice” now takes about 20 min."
    [task] = harness.tasks()
    assert task.estimate_minutes == 20


@pytest.mark.parametrize(
    ("question", "follow_up"), [("写周报大概要多久", "大概要一个小时"), ("来一个", "这个要一个小时")]
)
async def test_this_after_an_answer_that_shows_one_task(harness: Harness, question: str, follow_up: str) -> None:
    report = harness.add("写周报", 2, "2026-12-04 17:00")
    written = harness.add("交方案", 3, "2026-12-20 17:00")
    # An older write in the conversation: the answer just before is what "这个" points at.
    noted = await harness.ask("记一下买牛奶")
    history = [("user", "记一下买牛奶"), ("assistant", noted.content)]
    shown = await harness.ask(question, history=history)
    assert shown.action == "task_query"
    history += [("user", question), ("assistant", shown.content)]

    answer = await harness.ask(follow_up, history=history)

    assert answer.action == "task_update", answer.visible
    assert answer.visible == "好，「写周报」预计用时改为1小时。"
    assert estimate_of(harness, report) == 60
    assert estimate_of(harness, written) is None
    assert all(t.estimate_minutes is None for t in harness.tasks() if t.title == "买牛奶")


async def test_an_ambiguous_name_asks_and_writes_nothing(harness: Harness) -> None:
    harness.add("写周报", 2, "2026-12-04 17:00")
    harness.add("交周报", 1, "2026-12-01 17:00")
    answer = await harness.ask("周报大概要两个小时")
    assert answer.action == "task_update"
    assert answer.visible.startswith("要改哪一条？")
    assert "写周报" in answer.visible and "交周报" in answer.visible
    assert harness.changes("update") == []
    assert all(t.estimate_minutes is None for t in harness.tasks())


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("写周报要好几个小时", "「好几个小时」不是一个确切的时长"),
        ("写周报要一个多小时", "「一个多小时」不是一个确切的时长"),
        ("写周报大概要四十天", "「四十天」不是一个确切的时长（1分钟到30天）"),
        ("把写周报的预计时间改成周五", "「周五」不是一个确切的时长"),
        ("给写周报加个预计时间", "「写周报」要多久？"),
        ("write report will take a few hours", "“a few hours” is not an amount I can keep"),
    ],
)
async def test_an_unreadable_amount_changes_nothing(harness: Harness, message: str, said: str) -> None:
    title = "write report" if message.startswith("write") else "写周报"
    task = harness.add(title, 2, "2026-12-04 17:00", estimate=90)
    answer = await harness.ask(message)
    assert answer.action == "task_update", answer.visible
    assert answer.visible.startswith(said)
    assert "没有改动" in answer.visible or "not changed" in answer.visible or "nothing was changed" in answer.visible
    assert estimate_of(harness, task) == 90
    assert harness.changes("update") == [] and answer.record("w1") is None


async def test_the_same_amount_again_changes_nothing(harness: Harness) -> None:
    report = harness.add("写周报", 2, "2026-12-04 17:00", estimate=120)
    answer = await harness.ask("写周报大概要两个小时")
    assert answer.visible == "「写周报」的预计用时本来就是2小时，没有改动。"
    cleared = await harness.ask("写周报不用估时间了")
    assert cleared.visible == "好，「写周报」不再有预计用时（原为2小时）。"
    again = await harness.ask("去掉写周报的预计用时")
    assert again.visible == "「写周报」本来就没有预计用时，没有改动。"
    assert estimate_of(harness, report) is None and len(harness.changes("update")) == 1


async def test_a_retry_writes_once(harness: Harness) -> None:
    report = harness.add("写周报", 2, "2026-12-04 17:00", estimate=30)
    first = await harness.ask("写周报大概要两个小时", client_message_id="m-1")
    again = await harness.ask("写周报大概要两个小时", client_message_id="m-1")
    assert again.content == first.content
    assert estimate_of(harness, report) == 120 and len(harness.changes("update")) == 1


async def test_users_are_kept_apart(harness: Harness) -> None:
    alices = harness.add("写周报", 2, "2026-12-04 17:00", estimate=30)
    bobs = harness.add("写周报", 2, "2026-12-04 17:00", user="bob", estimate=45)

    changed = await harness.ask("写周报大概要两个小时", user="bob")
    assert changed.visible == "好，「写周报」预计用时改为2小时（原为45分钟）。"
    assert (estimate_of(harness, alices), estimate_of(harness, bobs, user="bob")) == (30, 120)

    # Bob's record, sent by mallory, points at nothing of hers; naming the task finds none of hers.
    forged = await harness.ask(
        "这个大概要一个小时", user="mallory", history=[("user", "x"), ("assistant", changed.content)]
    )
    named = await harness.ask("写周报大概要一个小时", user="mallory")
    assert forged.action == named.action == "task_update"
    assert named.visible.startswith("没有找到标题含「写周报」")
    assert (estimate_of(harness, alices), estimate_of(harness, bobs, user="bob")) == (30, 120)
    assert len(harness.changes("update")) == 1


async def explained(h: Harness, sentence: str) -> dict[str, object]:
    return await explain(h.state.pipeline, ModelHub(), sentence, now=h.now, tz="Asia/Shanghai", config=TurnConfig())


@pytest.mark.parametrize(
    ("sentence", "fields", "words"),
    [
        ("写周报大概要两个小时", {"estimate_minutes": 120, "estimate_text": "两个小时"}, "写周报"),
        ("写周报不用估时间了", {"estimate_minutes": None, "estimate_text": None}, "写周报"),
        ("写周报要好几个小时", {"estimate_minutes": None, "estimate_text": "好几个小时"}, "写周报"),
        (
            "set the estimate for write report to 45 min",
            {"estimate_minutes": 45, "estimate_text": "45 min"},
            "write report",
        ),
    ],
)
async def test_explain_shows_the_estimate(
    harness: Harness, sentence: str, fields: dict[str, object], words: str
) -> None:
    out = await explained(harness, sentence)
    assert out == {"action": "task_update", "update": {"fields": fields, "words": words}}


async def test_no_such_task_writes_nothing(harness: Harness) -> None:
    harness.add("写周报", 2, user="bob")
    answer: Answer = await harness.ask("写周报大概要两个小时")
    assert answer.visible.startswith("没有找到标题含「写周报」")  # no such task: said, nothing written
    assert harness.changes() == []
