"""`task_complete` end to end: the full pipeline (offline router) on a fresh database.

NOW is Monday 2026-11-30 10:00 Asia/Shanghai (see support.harness).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.explain import explain
from core.llm import ModelHub
from core.turn import TurnConfig
from support.harness import NOW, Harness, local, make_harness


@pytest.fixture
def h(database_url: str) -> Iterator[Harness]:
    harness = make_harness(database_url)  # task_complete is registered in app/actions.py
    yield harness
    harness.state.engine.dispose()


async def test_one_match_is_completed(h: Harness) -> None:
    report = h.add("交报告", 1, "2026-12-01 15:00")
    other = h.add("买牛奶", 3)

    answer = await h.ask("把交报告标记为完成")

    assert answer.action == "task_complete"
    assert answer.visible == "已完成：「交报告」（原定 12月1日 周二 15:00 截止）"
    assert h.task(report).is_completed and h.task(report).completed_at == NOW
    assert not h.task(other).is_completed
    [row] = h.changes()  # one change, carried by the answer
    assert (row.kind, row.task_id) == ("complete", report)
    assert answer.record("w1") == {"changes": [row.id]}
    assert "complete:end" in answer.stages


@pytest.mark.parametrize(
    ("message", "title"),
    [("交报告做完了", "交报告"), ("买牛奶搞定了", "买牛奶"), ("报告已经交了", "交报告"), ("周报写好了", "写周报")],
)
async def test_statements_complete_the_task_they_name(h: Harness, message: str, title: str) -> None:
    ids = {t: h.add(t, 2) for t in ("交报告", "买牛奶", "写周报")}

    answer = await h.ask(message)

    assert (answer.action, answer.visible) == ("task_complete", f"已完成：「{title}」")
    assert {t for t, i in ids.items() if h.task(i).is_completed} == {title}


async def test_english(h: Harness) -> None:
    report = h.add("send the report", 1, "2026-12-01 15:00")
    answer = await h.ask("I finished the report")
    assert (answer.action, answer.visible) == ("task_complete", 'Done: "send the report" (was due Tue Dec 1, 15:00)')
    assert h.task(report).is_completed


async def test_similar_words_find_the_task_when_no_title_contains_them(h: Harness) -> None:
    report = h.add("提交季度报告", 1)
    h.add("买牛奶", 3)
    answer = await h.ask("季度的报告写好了")
    assert answer.visible == "已完成：「提交季度报告」"
    assert h.task(report).is_completed


async def test_several_matches_ask_which_and_write_nothing(h: Harness) -> None:
    a = h.add("交季度报告", 1, "2026-12-01 15:00")
    b = h.add("写周报告", 2)
    answer = await h.ask("报告做完了")

    assert answer.action == "task_complete"
    assert answer.visible == (
        "有 2 个未完成任务和「报告」对得上，是哪一个？\n"
        "1. 交季度报告（截止 12月1日 周二 15:00）\n"
        "2. 写周报告\n"
        "说一下完整的任务名，这次还没有改动。"
    )
    assert not h.task(a).is_completed and not h.task(b).is_completed
    assert h.changes() == []

    # The full name settles it.
    answer = await h.ask("交季度报告做完了")
    assert answer.visible.startswith("已完成：「交季度报告」")
    assert h.task(a).is_completed and not h.task(b).is_completed


async def test_an_exact_title_wins_over_titles_that_contain_it(h: Harness) -> None:
    exact = h.add("交报告", 1)
    longer = h.add("交报告附件", 2)
    answer = await h.ask("交报告做完了")
    assert answer.visible == "已完成：「交报告」"
    assert h.task(exact).is_completed and not h.task(longer).is_completed


async def test_no_match_says_so_and_writes_nothing(h: Harness) -> None:
    kept = h.add("交报告", 1)
    answer = await h.ask("发票做完了")
    assert (answer.action, answer.visible) == ("task_complete", "没有找到标题含「发票」的未完成任务，什么都没有改动。")
    assert not h.task(kept).is_completed and h.changes() == []

    english = await h.ask("done with groceries")
    assert english.visible == 'No open task matches "groceries"; nothing was changed.'


async def test_reopen(h: Harness) -> None:
    report = h.add("交报告", 1, "2026-12-01 15:00", completed_at="2026-11-29 09:00")

    answer = await h.ask("把交报告改回未完成")

    assert (answer.action, answer.visible) == ("task_complete", "已改回未完成：「交报告」（截止 12月1日 周二 15:00）")
    assert not h.task(report).is_completed and h.task(report).completed_at is None
    assert [r.kind for r in h.changes()] == ["reopen"]

    english_task = h.add("send the report", 2, completed_at="2026-11-29 09:00")
    english = await h.ask("reopen the report task")
    assert english.visible == 'Reopened: "send the report"'
    assert not h.task(english_task).is_completed


async def test_reopen_of_an_open_task_and_complete_of_a_done_one_change_nothing(h: Harness) -> None:
    open_task = h.add("交报告", 1)
    done_task = h.add("买牛奶", 3, completed_at="2026-11-20 09:00")

    assert (await h.ask("交报告还没做完")).visible == "「交报告」本来就是未完成，没有改动。"
    assert (await h.ask("买牛奶搞定了")).visible == "「买牛奶」已经是完成状态，没有改动。"
    assert not h.task(open_task).is_completed
    assert h.task(done_task).completed_at == local("2026-11-20 09:00")
    assert h.changes() == []


@pytest.mark.parametrize("question", ["交报告做完了吗", "周报交了没", "报告做完了没有"])
async def test_a_question_is_not_handled_by_task_complete(h: Harness, question: str) -> None:
    report = h.add("交报告", 1, "2026-12-01 15:00")
    weekly = h.add("交周报", 2)
    answer = await h.ask(question)
    assert answer.action == "task_query"
    assert not h.task(report).is_completed and not h.task(weekly).is_completed


async def test_another_users_task_is_never_touched(h: Harness) -> None:
    bobs = h.add("交报告", 1, user="bob")
    answer = await h.ask("交报告做完了")  # alice has no such task
    assert answer.visible == "没有找到标题含「交报告」的未完成任务，什么都没有改动。"
    assert not h.task(bobs, "bob").is_completed

    alices = h.add("交报告", 1)
    await h.ask("交报告做完了", history=[("user", "你好"), ("assistant", "你好！")])
    assert h.task(alices).is_completed and not h.task(bobs, "bob").is_completed

    bobs_done = h.add("买牛奶", 3, user="bob", completed_at="2026-11-29 09:00")
    answer = await h.ask("把买牛奶改回未完成")
    assert answer.visible == "没有找到标题含「买牛奶」的已完成任务，什么都没有改动。"
    assert h.task(bobs_done, "bob").is_completed


async def test_a_retried_turn_does_not_toggle_twice(h: Harness) -> None:
    report = h.add("交报告", 1, "2026-12-01 15:00")
    attachment = h.add("交报告附件", 2)

    first = await h.ask("交报告做完了")
    again = await h.ask("交报告做完了")  # the same conversation resent: the same attempt

    assert first.visible == again.visible == "已完成：「交报告」（原定 12月1日 周二 15:00 截止）"
    assert h.task(report).is_completed and not h.task(attachment).is_completed
    rows = h.changes()
    [row] = rows
    assert again.record("w1") == first.record("w1") == {"changes": [row.id]}


async def test_a_retried_reopen_does_not_toggle_twice(h: Harness) -> None:
    report = h.add("交报告", 1, completed_at="2026-11-29 09:00")
    first = await h.ask("把交报告改回未完成", client_message_id="m-1")
    again = await h.ask("把交报告改回未完成", client_message_id="m-1")
    assert first.visible == again.visible == "已改回未完成：「交报告」"
    assert not h.task(report).is_completed
    assert len(h.changes()) == 1


async def test_explain_reads_the_target_without_a_database(h: Harness) -> None:
    out = await explain(
        h.state.pipeline, ModelHub(), "把交报告标记为完成", now=NOW, tz="Asia/Shanghai", config=TurnConfig()
    )
    assert out == {"action": "task_complete", "target": {"words": "交报告", "completed": True}}
    out = await explain(
        h.state.pipeline, ModelHub(), "reopen the report task", now=NOW, tz="Asia/Shanghai", config=TurnConfig()
    )
    assert out == {"action": "task_complete", "target": {"words": "report", "completed": False}}


async def test_snapshots(h: Harness, snapshot: Any) -> None:
    h.add("交季度报告", 1, "2026-12-01 15:00")
    h.add("写周报告", 2, "2026-12-04 18:00")
    ask = await h.ask("报告做完了")
    done = await h.ask("交季度报告做完了")
    assert {"ask": ask.snapshot(), "done": done.snapshot()} == snapshot
