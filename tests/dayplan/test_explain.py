"""`explain` for the day plan: the window, working hours, order and defaults without a database (as
`suikou explain` runs it), and the candidates with reason and minutes, what was placed and what did not
fit, when the turn can read the user's tasks. NOW is Monday 2026-11-30 10:00 Asia/Shanghai."""

from __future__ import annotations

from app.explain import explain
from core.turn import ChatText, new_turn
from dayplan.handler import explain_plan
from support.harness import NOW, TZ, Harness, local


async def test_explain_without_a_database_shows_the_window_and_rules(harness: Harness) -> None:
    state = harness.state
    out = await explain(state.pipeline, state.hub, "今天怎么安排", now=NOW, tz=TZ, config=state.turn_config())
    assert out["action"] == "day_plan"
    plan = out["day_plan"]
    assert plan["kind"] == "day" and plan["day"] == "2026-11-30" and plan["shift"] == 0
    assert (plan["window_start"], plan["window_end"]) == ("2026-11-30T10:00:00+08:00", "2026-11-30T18:00:00+08:00")
    assert plan["work_hours"] == "09:00-18:00" and plan["minutes"] == 480
    assert plan["order"] == ["overdue", "due", "urgent", "important"]
    assert plan["default_minutes"] == {"1": 60, "2": 60, "3": 15, "4": 60} and plan["far_days"] == 7
    assert plan["candidates"] is None and plan["not_fit"] is None  # no user, no database: not known


async def test_explain_of_tomorrow_and_of_the_week(harness: Harness) -> None:
    state = harness.state
    cfg = state.turn_config()
    tomorrow = await explain(state.pipeline, state.hub, "明天怎么安排", now=NOW, tz=TZ, config=cfg)
    assert tomorrow["day_plan"]["window_start"] == "2026-12-01T09:00:00+08:00"
    assert tomorrow["day_plan"]["reference"] == "2026-12-01T00:00:00+08:00"
    week = await explain(state.pipeline, state.hub, "这周哪天最闲", now=NOW, tz=TZ, config=cfg)
    assert week == {"action": "day_plan", "day_plan": {"kind": "week", "days": [f"2026-{d}" for d in (
        "11-30", "12-01", "12-02", "12-03", "12-04", "12-05", "12-06")]}}  # fmt: skip


async def test_explain_with_the_users_tasks_shows_candidates_and_what_did_not_fit(harness: Harness) -> None:
    harness.add("交电费", 1, "2026-11-28 18:00", estimate=10)
    harness.add("写季度总结", 2, "2026-12-04 18:00", estimate=600)  # longer than the day
    harness.add("取快递", 3, "2026-11-30 20:00")
    state = harness.state
    turn = new_turn(
        [ChatText("user", "今天怎么安排")], user_id=harness.user(), now=NOW, tz=TZ, hub=state.hub,
        sessions=state.session, config=state.turn_config(),
    )  # fmt: skip
    plan = (await explain_plan(turn))["day_plan"]
    assert [(c["title"], c["band"], c["reason"], c["minutes"], c["estimated"]) for c in plan["candidates"]] == [
        ("交电费", "overdue", "逾期 2 天", 10, True),
        ("取快递", "due", "今天 20:00 截止", 15, False),
        ("写季度总结", "important", "重要不紧急；12月4日 周五 18:00 截止", 600, True),
    ]
    assert [p["title"] for p in plan["placed"]] == ["交电费", "取快递"]
    assert [n["title"] for n in plan["not_fit"]] == ["写季度总结"]
    assert plan["window_start"] == "2026-11-30T10:00:00+08:00" and plan["free_minutes"] == 480 - 25
    assert harness.tasks()[0].deadline_at == local("2026-11-28 18:00")  # explain wrote nothing
    assert len(harness.changes()) == 0
