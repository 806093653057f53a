"""Follow-up chains continue from the record the previous answer carries, not from its prose.

Each turn sends the whole conversation back, as chat clients do. Filters the user did not change
survive every step; paging counts what was really shown; 「全部」 keeps the filters.
"""

from __future__ import annotations

from typing import Any

from core import carry
from core.turn import ChatText
from support.harness import Answer, Harness
from taskquery.carried import CarriedPlan, CarriedQuery, attach_query, carried_query

SEAL = carry.Seal(b"test secret", user_id=1)


def seed(h: Harness) -> Harness:
    # This week (Mon Nov 30 – Sun Dec 6) and next week (Dec 7 – 13), important and not.
    h.add("本周重要一", 1, "2026-12-01 10:00")
    h.add("本周重要二", 2, "2026-12-03 10:00")
    h.add("本周小事", 3, "2026-12-02 10:00")
    for day in range(7, 12):
        h.add(f"下周重要{day}", 1, f"2026-12-{day:02d} 10:00")
        h.add(f"下周小事{day}", 3, f"2026-12-{day:02d} 12:00")
    return h


def titles(answer: Answer) -> list[str]:
    return [line.split(". ", 1)[1].split("（")[0] for line in answer.visible.splitlines() if line[:1].isdigit()]


def numbers(answer: Answer) -> list[int]:
    return [int(line.split(".", 1)[0]) for line in answer.visible.splitlines() if line[:1].isdigit()]


def plan_event(answer: Answer) -> dict[str, Any]:
    [event] = [e for e in answer.events if e.stage == "plan" and e.status == "end"]
    return event.data


async def test_time_switch_then_more_continues_the_switched_list(harness: Harness) -> None:
    seed(harness)
    this_week, next_week, more = await harness.converse("这周的任务", "那下周的呢", "再来两个")
    assert set(titles(this_week)) == {"本周重要一", "本周重要二", "本周小事"}
    assert all(t.startswith("下周") for t in titles(next_week)) and len(titles(next_week)) == 5
    assert all(t.startswith("下周") for t in titles(more))  # next week's list goes on, not this week's
    assert numbers(more) == [6, 7]
    assert plan_event(more)["continued"] == "carried"


async def test_a_chain_keeps_every_filter_the_user_did_not_change(harness: Harness) -> None:
    seed(harness)
    *_, important_next, more, everything = await harness.converse("这周重要的任务", "那下周的呢", "再来两个", "全部")
    assert set(titles(important_next)) == {"下周重要7", "下周重要8", "下周重要9", "下周重要10", "下周重要11"}
    assert titles(more) == []  # five important ones next week: all shown already
    assert "这些就是全部了" in more.visible
    # 「全部」 lists the whole match from the top, with the filters: important, next week.
    assert titles(everything) == [f"下周重要{d}" for d in range(7, 12)]
    assert numbers(everything) == [1, 2, 3, 4, 5]


async def test_a_switch_of_groups_keeps_the_time(harness: Harness) -> None:
    seed(harness)
    *_, small = await harness.converse("下周的任务", "换成简单的呢")
    assert set(titles(small)) == {f"下周小事{d}" for d in range(7, 12)}


async def test_more_after_a_full_page_repeats_nothing(harness: Harness) -> None:
    for i in range(1, 26):
        harness.add(f"任务{i:02d}", 2, f"2026-12-{(i % 28) + 1:02d} 09:00")
    page, more = await harness.converse("全部任务", "再来两个")
    assert numbers(page) == list(range(1, 21))
    assert len(page.visible) > 600  # longer than the history a model sees: the record carries it
    assert numbers(more) == [21, 22]
    assert not set(titles(more)) & set(titles(page))


async def test_without_a_record_the_prose_still_works(harness: Harness) -> None:
    seed(harness)
    first = await harness.ask("这周的任务")
    history = [("user", "这周的任务"), ("assistant", carry.strip(first.content))]  # a client that lost it
    more = await harness.ask("再来两个", history=history)
    assert plan_event(more)["continued"] == "prose"
    assert numbers(more) == []  # three this week, all shown: "这些就是全部了"
    assert "这些就是全部了" in more.visible


async def test_a_damaged_record_falls_back_to_the_prose(harness: Harness) -> None:
    seed(harness)
    first = await harness.ask("这周的任务")
    damaged = first.visible + '\n\n[suikou]: # "q1.eyJwbGFuIjogN30"'  # {"plan": 7}
    more = await harness.ask("还有吗", history=[("user", "这周的任务"), ("assistant", damaged)])
    assert plan_event(more)["continued"] == "prose"


def test_the_record_round_trips() -> None:
    query = CarriedQuery(
        plan=CarriedPlan(quadrants=[1, 2], time_text="下周", keyword="合同", limit=3),
        words="那下周的呢\n重要的合同",
        offset=5,
        shown=3,
        total=9,
    )
    text = attach_query("给你整理了 3 条任务（共 9 条匹配）：", query, SEAL)
    messages = [ChatText("user", "重要的合同"), ChatText("assistant", text), ChatText("user", "再来两个")]
    assert carried_query(messages, SEAL) == query
    assert carried_query(messages[:2], SEAL) is None  # only answers before the last user message count


async def test_models_never_see_the_record(harness: Harness) -> None:
    seed(harness)
    first = await harness.ask("这周的任务")
    assert first.carried is not None
    from core.turn import Turn  # the history the router and the plan prompt are built from

    turn: Turn = harness_turn(harness, [("user", "这周的任务"), ("assistant", first.content), ("user", "再来两个")])
    assert all("[suikou]" not in h.text for h in turn.history)


def harness_turn(harness: Harness, messages: list[tuple[str, str]]) -> Any:
    from app.turns import make_job
    from app.wire import ChatRequest

    chat = [ChatText(role, text) for role, text in messages]
    request = ChatRequest(model="suikou", messages=[{"role": r, "content": t} for r, t in messages])
    return make_job(
        harness.state, request, chat, user_id=harness.user(), tz="Asia/Shanghai", client_message_id=None
    ).turn
