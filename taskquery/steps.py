"""The task-query steps as plain functions over (state, turn); graph nodes call them in order.

Keeping the logic here, outside the node classes, lets `explain` run plan → quadrant →
time_anchor without a database, and lets tests drive one step at a time.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from functools import cache

import anyio
from pydantic_ai import Agent

from core.grounding import claims_write
from core.llm import run_structured
from core.locale import Locale, detect_locale
from core.store import TaskFilter, TaskPage, query_tasks
from core.timeanchor import TimeWindow, resolve_time
from route.turn import Turn
from taskquery.boundary import Grounds, settle_plan
from taskquery.carried import MAX_WORDS, CarriedQuery, carried_query
from taskquery.countlock import extract_count
from taskquery.followup import find_followup, looks_like_followup
from taskquery.offline import MORE_RE, merge_followup, offline_plan, offline_plan_followup
from taskquery.plan import QueryPlan, prefer_for
from taskquery.prompts import PLAN_INSTRUCTIONS, REFLECT_INSTRUCTIONS, context_lines, plan_prompt, reflect_prompt
from taskquery.reflection import Reflection, apply_patch
from taskquery.rendering import PREFIXES, RELAXED_JOINER, RELAXED_LABELS, clean_prefix
from taskquery.state import QueryState


@cache
def plan_agent() -> Agent[None, QueryPlan]:
    return Agent(None, output_type=QueryPlan, instructions=PLAN_INSTRUCTIONS, name="plan")


@cache
def reflect_agent() -> Agent[None, Reflection]:
    return Agent(None, output_type=Reflection, instructions=REFLECT_INSTRUCTIONS, name="reflect")


# --- plan -------------------------------------------------------------------------------------


def _reading(state: QueryState, turn: Turn) -> tuple[QueryPlan, str, int, str | None]:
    """The rules' plan, the words it rests on, the page offset, and what a follow-up continued.

    A follow-up continues the previous query: from the record the previous answer carries when
    there is one (every filter of a chain survives, paging counts what was really shown), else
    from the prose of the previous list and its question.
    """
    sentence, now, tz = state.sentence, state.now, state.tz
    if looks_like_followup(sentence):
        carried = carried_query(turn.messages, within=turn.config.history_turns)
        if carried is not None:
            offset = carried.next_offset if MORE_RE.search(sentence) else 0
            return merge_followup(carried.plan, sentence, now, tz), f"{sentence}\n{carried.words}", offset, "carried"
        followup = find_followup(sentence, turn.history)
        if followup is not None:
            rules = offline_plan_followup(sentence, followup.previous_question, now, tz)
            offset = followup.shown if followup.wants_more else 0
            return rules, f"{sentence}\n{followup.previous_question}", offset, "prose"
    return offline_plan(sentence, now, tz), sentence, 0, None


async def plan_step(state: QueryState, turn: Turn) -> str:
    """One model call proposes the plan; code reads the count and settles the plan against the words."""
    state.lock = extract_count(state.sentence)
    rules, state.words, state.offset, state.continued = _reading(state, turn)
    state.grounds = Grounds(state.words, rules, state.lock, state.now, state.tz)
    history = [(h.role, h.text) for h in turn.history]
    proposed = await run_structured(
        plan_agent(),
        plan_prompt(state.sentence, history),
        node="plan",
        hub=turn.hub,
        trace=turn.trace,
        offline=lambda: rules,
        instructions=context_lines(state.now, state.tz, state.locale),
    )
    settled = settle_plan(proposed, state.grounds)
    state.plan, state.time_source, state.overridden = settled.plan, settled.time_source, settled.overridden
    if state.lock.explicit is not None:
        return f"计划完成，条数锁定为 {state.lock.explicit}"
    return "计划完成"


def carried(state: QueryState) -> CarriedQuery:
    """What this answer carries for the next turn: the plan in force and the page shown."""
    assert state.plan is not None and state.page is not None
    count = state.lock.explicit if state.lock.explicit is not None else state.plan.limit
    return CarriedQuery(
        plan=state.plan.model_copy(update={"limit": count}),
        words=state.words[:MAX_WORDS],
        offset=state.offset,
        shown=len(state.page.items),
        total=state.page.total,
    )


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


def anchor_window(plan: QueryPlan, now: datetime, tz: str) -> TimeWindow | None:
    """The settled plan's phrase resolved in code; its bounds only where code cannot resolve it."""
    if plan.time_text:
        window = resolve_time(plan.time_text, now, tz, prefer=prefer_for(plan.time_field))
        if window is not None:
            return window
    if plan.time_after is None and plan.time_before is None:
        return None
    return TimeWindow(
        start=plan.time_after,
        end=plan.time_before,
        phrase=plan.time_text or "",
        granularity="span",
        has_clock_time=False,
    )


def effective_limit(state: QueryState, turn: Turn) -> int:
    """Only the user's words set the count: this turn's, or the question a bare "还有吗" continues."""
    cfg = turn.config
    if state.lock.explicit is not None:
        return max(1, min(state.lock.explicit, cfg.max_limit))
    if state.lock.wants_all:
        return cfg.max_limit
    inherited = state.grounds.rules.limit if state.grounds is not None else None
    if inherited is not None and inherited > 0:
        return min(inherited, cfg.max_limit)
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
    state.window = anchor_window(state.plan, state.now, state.tz)
    state.filter = build_filter(state, turn)
    if state.window is None:
        return "没有时间限制"
    if state.window.overdue:
        return "逾期：截止时间早于现在且未完成"
    start = state.window.start.isoformat() if state.window.start else "不限"
    end = state.window.end.isoformat() if state.window.end else "不限"
    source = "（采用模型给出的时间）" if state.time_source == "model_bounds" else ""
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
    # Keep the plan, and what a retry is settled against, in step with what was relaxed: a later
    # reflect retry rebuilds the filter from them and must start from the broadened query.
    assert state.plan is not None and state.grounds is not None
    state.plan = _relaxed(state.plan, state.broadened)
    state.grounds = replace(state.grounds, rules=_relaxed(state.grounds.rules, state.broadened))
    if "time_window" in state.broadened:
        state.window, state.time_source = None, None


def _relaxed(plan: QueryPlan, broadened: list[str]) -> QueryPlan:
    updates: dict[str, object] = {}
    if "keyword" in broadened:
        updates["keyword"] = None
    if "time_window" in broadened:
        updates.update(time_text=None, time_after=None, time_before=None)
    if "include_completed" in broadened:
        updates["include_completed"] = True
    return plan.model_copy(update=updates)


# --- reflect ----------------------------------------------------------------------------------


def relaxed_text(broadened: list[str], locale: Locale) -> str:
    labels = RELAXED_LABELS[locale]
    return RELAXED_JOINER[locale].join(labels.get(name, name) for name in broadened)


def default_prefix(state: QueryState) -> str:
    """A deterministic one-liner used offline, after broadening, and whenever the model's is rejected."""
    texts = PREFIXES[state.locale]
    page = state.page
    if page is None or page.total == 0:
        return texts["no_match"]
    if not page.items:
        return texts["no_more"]
    if state.broadened:
        return texts["broadened"].format(relaxed=relaxed_text(state.broadened, state.locale))
    if state.lock.explicit == 1:
        return texts["picked_one"]
    if page.total == 1:
        # Only one match: nothing was picked, so don't say "挑了一个".
        return texts["only_one"]
    phrase = state.window.phrase if state.window and state.time_source != "model_bounds" else ""
    if phrase and len(phrase) <= 12:
        return texts["phrase"].format(phrase=phrase)
    return texts["generic"]


def offline_reflection(state: QueryState) -> Reflection:
    return Reflection(satisfied=True, need_retry=False, patch=None, prefix=default_prefix(state))


async def reflect_step(state: QueryState, turn: Turn) -> Reflection:
    assert state.plan is not None and state.page is not None
    relaxed = relaxed_text(state.broadened, "en") if state.broadened else None
    reflection = await run_structured(
        reflect_agent(),
        reflect_prompt(
            state.sentence,
            state.plan,
            state.page,
            state.tz,
            earlier_questions=[h.text for h in turn.history if h.role == "user"],
            relaxed=relaxed,
        ),
        node="reflect",
        hub=turn.hub,
        trace=turn.trace,
        offline=lambda: offline_reflection(state),
        instructions=context_lines(state.now, state.tz, state.locale),
    )
    if state.broadened:
        # The model's line would describe the original question; only code knows what was relaxed.
        state.prefix = default_prefix(state)
    else:
        titles = [item.title for item in state.page.items]
        prefix = clean_prefix(reflection.prefix, titles)
        if prefix is not None and (detect_locale(prefix) != state.locale or claims_write(prefix)):
            prefix = None  # the user's language, all of it; and no word of a write that did not happen
        state.prefix = prefix or default_prefix(state)
    return reflection


def apply_reflection(state: QueryState, reflection: Reflection, turn: Turn) -> list[str] | None:
    """Reflect's patch, settled like the plan; None when nothing the boundary allows would change.

    The count is never patched; times, filters and priority words the user said stay as said.
    """
    assert state.plan is not None and state.grounds is not None and reflection.patch is not None
    patched, notes = apply_patch(state.plan, reflection.patch)
    settled = settle_plan(patched, state.grounds)
    if settled.plan == state.plan:
        return None
    # Report what really changed, and what was refused; not what the patch merely asked for.
    before, after = state.plan.model_dump(), settled.plan.model_dump()
    changed = [f"{name}→{after[name]}" for name in after if after[name] != before[name]]
    notes = [note for note in notes if "→" not in note] + changed
    state.plan, state.time_source = settled.plan, settled.time_source
    state.quadrants = normalise_quadrants(state.plan.quadrants)
    state.window = anchor_window(state.plan, state.now, state.tz)
    state.filter = build_filter(state, turn)
    state.retries += 1
    return notes + settled.overridden
