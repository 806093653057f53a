"""The task-query steps as plain functions over (state, turn); graph nodes call them in order.

Keeping the logic here, outside the node classes, lets `explain` run plan → quadrant →
time_anchor without a database, and lets tests drive one step at a time.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache

import anyio
from pydantic_ai import Agent

from core.llm import run_structured
from core.store import TaskFilter, TaskPage, query_tasks
from core.timeanchor import TimeWindow, resolve_time
from route.turn import Turn
from taskquery.countlock import extract_count
from taskquery.followup import find_followup
from taskquery.offline import offline_plan, offline_plan_followup
from taskquery.plan import QueryPlan
from taskquery.prompts import PLAN_INSTRUCTIONS, REFLECT_INSTRUCTIONS, plan_prompt, reflect_prompt
from taskquery.reflection import Reflection, apply_patch
from taskquery.rendering import clean_prefix
from taskquery.state import QueryState


@cache
def plan_agent() -> Agent[None, QueryPlan]:
    return Agent(None, output_type=QueryPlan, instructions=PLAN_INSTRUCTIONS, name="plan")


@cache
def reflect_agent() -> Agent[None, Reflection]:
    return Agent(None, output_type=Reflection, instructions=REFLECT_INSTRUCTIONS, name="reflect")


# --- plan -------------------------------------------------------------------------------------


async def plan_step(state: QueryState, turn: Turn) -> str:
    """One model call for the plan; the explicit count is read by code beside it and locked."""
    state.lock = extract_count(state.sentence)
    history = [(h.role, h.text) for h in turn.history]
    followup = find_followup(state.sentence, turn.history)

    def offline() -> QueryPlan:
        if followup is None:
            return offline_plan(state.sentence, state.now, state.tz)
        return offline_plan_followup(state.sentence, followup.previous_question, state.now, state.tz)

    state.plan = await run_structured(
        plan_agent(),
        plan_prompt(state.sentence, state.now, history),
        node="plan",
        hub=turn.hub,
        trace=turn.trace,
        offline=offline,
    )
    if followup is not None and followup.wants_more:
        # "再来两个" continues after the tasks already listed.
        state.offset = followup.shown
    if state.lock.explicit is not None:
        return f"计划完成，条数锁定为 {state.lock.explicit}"
    return "计划完成"


# --- quadrant ---------------------------------------------------------------------------------


def normalise_quadrants(raw: list[int] | None) -> list[int] | None:
    """Drop values outside 1..4, dedupe, sort; all four (or nothing valid) means no filter."""
    if raw is None:
        return None
    groups = sorted({g for g in raw if isinstance(g, int) and 1 <= g <= 4})
    if not groups or groups == [1, 2, 3, 4]:
        return None
    return groups


def quadrant_step(state: QueryState) -> str:
    assert state.plan is not None
    state.quadrants = normalise_quadrants(state.plan.quadrants)
    return f"象限：{state.quadrants or '全部'}"


# --- time_anchor ------------------------------------------------------------------------------


def _prefer(plan: QueryPlan) -> str:
    return "past" if plan.time_field in ("completed", "created") else "future"


def anchor_window(plan: QueryPlan, sentence: str, now: datetime, tz: str) -> tuple[TimeWindow | None, str | None]:
    """Code resolves the phrase; model-given absolute bounds are only the fallback."""
    prefer = _prefer(plan)
    if plan.time_text:
        window = resolve_time(plan.time_text, now, tz, prefer=prefer)  # type: ignore[arg-type]
        if window is not None:
            return window, "anchor"
    if plan.time_after is not None or plan.time_before is not None:
        return (
            TimeWindow(
                start=plan.time_after,
                end=plan.time_before,
                phrase=plan.time_text or "",
                granularity="span",
                has_clock_time=False,
            ),
            "model",
        )
    if plan.time_text:
        # The model's phrase didn't resolve on its own; try it in the user's own words.
        window = resolve_time(sentence, now, tz, prefer=prefer)  # type: ignore[arg-type]
        if window is not None:
            return window, "anchor"
    return None, None


def effective_limit(state: QueryState, turn: Turn) -> int:
    cfg = turn.config
    if state.lock.explicit is not None:
        return max(1, min(state.lock.explicit, cfg.max_limit))
    if state.lock.wants_all:
        return cfg.max_limit
    assert state.plan is not None
    if state.plan.limit is not None and state.plan.limit > 0:
        return min(state.plan.limit, cfg.max_limit)
    return cfg.default_limit


def build_filter(state: QueryState, turn: Turn) -> TaskFilter:
    plan = state.plan
    assert plan is not None
    window = state.window
    include_completed = plan.include_completed or plan.time_field == "completed"
    flt = TaskFilter(
        quadrants=state.quadrants,
        time_field=plan.time_field,
        include_completed=include_completed,
        keyword=(plan.keyword or "").strip() or None,
        sort_by=plan.sort_by,
        order=plan.order,
        limit=effective_limit(state, turn),
        offset=state.offset,
    )
    if window is not None:
        if window.overdue:
            flt = flt.model_copy(update={"only_overdue": True, "time_before": state.now, "include_completed": False})
        else:
            flt = flt.model_copy(update={"time_after": window.start, "time_before": window.end})
    return flt


def time_anchor_step(state: QueryState, turn: Turn) -> str:
    assert state.plan is not None
    state.window, state.window_source = anchor_window(state.plan, state.sentence, state.now, state.tz)
    state.filter = build_filter(state, turn)
    if state.window is None:
        return "没有时间限制"
    if state.window.overdue:
        return "逾期：截止时间早于现在且未完成"
    start = state.window.start.isoformat() if state.window.start else "不限"
    end = state.window.end.isoformat() if state.window.end else "不限"
    source = "" if state.window_source == "anchor" else "（采用模型给出的时间）"
    return f"「{state.window.phrase}」→ {start} ~ {end}{source}"


# --- tool_query -------------------------------------------------------------------------------


async def run_query(turn: Turn, flt: TaskFilter, now: datetime) -> TaskPage:
    """The `query_tasks` tool. The user comes from the authenticated turn, never from the model."""

    def query() -> TaskPage:
        with turn.sessions() as session:
            return query_tasks(session, turn.user_id, flt, now=now)

    return await anyio.to_thread.run_sync(query)


async def broaden(state: QueryState, turn: Turn) -> None:
    """Once, without a model call: drop the keyword, then the time window, then include completed.

    Quadrants and the limit are never touched. Counts as one retry.
    """
    assert state.filter is not None
    flt = state.filter
    relaxations: list[tuple[str, dict[str, object]]] = []
    if flt.keyword:
        relaxations.append(("keyword", {"keyword": None}))
    if flt.time_after or flt.time_before or flt.only_overdue:
        relaxations.append(("time_window", {"time_after": None, "time_before": None, "only_overdue": False}))
    if not flt.include_completed:
        relaxations.append(("include_completed", {"include_completed": True}))
    state.retries += 1
    page = state.page
    for name, update in relaxations:
        flt = flt.model_copy(update=update)
        state.broadened.append(name)
        page = await run_query(turn, flt, state.now)
        if page.total:
            break
    state.filter, state.page = flt, page
    # Keep the plan in step with what was relaxed, so a later reflect retry (which rebuilds the
    # filter from the plan) starts from the broadened query instead of the empty one.
    assert state.plan is not None
    plan_updates: dict[str, object] = {}
    if "keyword" in state.broadened:
        plan_updates["keyword"] = None
    if "time_window" in state.broadened:
        plan_updates.update(time_text=None, time_after=None, time_before=None)
        state.window, state.window_source = None, None
    if "include_completed" in state.broadened:
        plan_updates["include_completed"] = True
    state.plan = state.plan.model_copy(update=plan_updates)


# --- reflect ----------------------------------------------------------------------------------


BROADENED_LABELS = {"keyword": "不限关键词", "time_window": "不限时间", "include_completed": "含已完成"}


def default_prefix(state: QueryState) -> str:
    """A deterministic one-liner used offline and whenever the model's prefix is rejected."""
    page = state.page
    if page is None or page.total == 0:
        return "没有找到符合条件的任务。"
    if not page.items:
        return "没有更多了。"
    if state.broadened:
        relaxed = "、".join(BROADENED_LABELS.get(name, name) for name in state.broadened)
        return f"没有完全符合的，放宽条件（{relaxed}）后找到这些："
    if state.lock.explicit == 1:
        return "给你挑了一个："
    if page.total == 1:
        # Only one match: nothing was picked, so don't say "挑了一个".
        return "只找到这一条："
    phrase = state.window.phrase if state.window and state.window_source == "anchor" else ""
    if phrase and len(phrase) <= 12:
        return f"「{phrase}」的任务在这里："
    return "按你的问题找到这些任务："


def offline_reflection(state: QueryState) -> Reflection:
    return Reflection(satisfied=True, need_retry=False, patch=None, prefix=default_prefix(state))


async def reflect_step(state: QueryState, turn: Turn) -> Reflection:
    assert state.plan is not None and state.page is not None
    reflection = await run_structured(
        reflect_agent(),
        reflect_prompt(state.sentence, state.plan, state.page),
        node="reflect",
        hub=turn.hub,
        trace=turn.trace,
        offline=lambda: offline_reflection(state),
    )
    titles = [item.title for item in state.page.items]
    state.prefix = clean_prefix(reflection.prefix, titles) or default_prefix(state)
    return reflection


def apply_reflection(state: QueryState, reflection: Reflection, turn: Turn) -> list[str]:
    """Applies reflect's patch for a retry; the locked limit survives whatever the patch says."""
    assert state.plan is not None and reflection.patch is not None
    state.plan, notes = apply_patch(state.plan, reflection.patch, limit_locked=state.limit_locked)
    state.quadrants = normalise_quadrants(state.plan.quadrants)
    state.window, state.window_source = anchor_window(state.plan, state.sentence, state.now, state.tz)
    state.filter = build_filter(state, turn)
    state.retries += 1
    return notes
