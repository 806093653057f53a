"""The task-query steps as plain functions over (state, turn); graph nodes call them in order.

Keeping the logic here, outside the node classes, lets `explain` run plan → quadrant →
time_anchor without a database, and lets tests drive one step at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal, TypeVar

from pydantic import ValidationError

from core import estimates
from core.countlock import extract_count
from core.grounding import claims_write
from core.llm import NodeSpec, run_structured
from core.locale import Locale, detect_locale
from core.store import TaskFacts, TaskFilter, TaskPage, query_tasks, task_facts
from core.timeanchor import TimeWindow, resolve_time
from core.timeanchor.missing import missing_day
from core.turn import Turn
from taskquery.boundary import Grounds, settle_plan
from taskquery.carried import MAX_WORDS, CarriedPlan, CarriedQuery, carried_query
from taskquery.followup import find_followup, looks_like_followup
from taskquery.offers import accepted_offer
from taskquery.offline import MORE_RE, merge_followup, offline_plan, offline_plan_followup
from taskquery.plan import QueryPlan, prefer_for
from taskquery.prompts import PLAN_INSTRUCTIONS, REFLECT_INSTRUCTIONS, context_lines, plan_prompt, reflect_prompt
from taskquery.reflection import Reflection, apply_patch
from taskquery.rendering import (
    EMPTY_FACTS,
    EMPTY_OFFERS,
    PREFIXES,
    RELAXED_JOINER,
    RELAXED_LABELS,
    clean_prefix,
    format_day,
)
from taskquery.scope import SCOPE_PREFIX, Scope, resolve_scope
from taskquery.state import QueryState
from taskquery.verdict import asks_how_long, asks_if_done, how_long, one_series, verdict

T = TypeVar("T")
PLAN = NodeSpec("plan", QueryPlan, PLAN_INSTRUCTIONS)
REFLECT = NodeSpec("reflect", Reflection, REFLECT_INSTRUCTIONS)


# --- plan -------------------------------------------------------------------------------------


def _reading(state: QueryState, turn: Turn) -> tuple[QueryPlan, str, int, str | None]:
    """The rules' plan, the words it rests on, the page offset, and what a follow-up continued.

    A follow-up continues the previous query: from the record the previous answer carries when
    there is one (every filter of a chain survives, paging counts what was really shown), else
    from the prose of the previous list and its question.
    """
    sentence, now, tz = state.sentence, state.now, state.tz
    if looks_like_followup(sentence):
        carried = carried_query(turn.messages, turn.seal, within=turn.config.history_turns)
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
    """One model call proposes the plan; code reads the count and settles the plan against the words.

    A bare yes to the follow-up the previous (empty) answer offered is the offered question, in
    the offer's language: every step after this one reads that question, as if the user had typed it.
    """
    offer = accepted_offer(state.sentence, turn.history)
    if offer is not None:
        state.sentence, state.locale = offer.question, offer.locale
    state.lock = extract_count(state.sentence)
    rules, state.words, state.offset, state.continued = _reading(state, turn)
    if offer is not None:
        state.continued = "offer"
    state.grounds = Grounds(state.words, rules, state.lock, state.now, state.tz)
    history = [(h.role, h.text) for h in turn.history]
    proposed = await run_structured(
        PLAN,
        lambda: plan_prompt(state.sentence, history),
        node="plan",
        hub=turn.hub,
        trace=turn.trace,
        offline=lambda: rules,
        instructions=lambda: context_lines(state.now, state.tz, state.locale),
    )
    settled = settle_plan(proposed, state.grounds)
    state.plan, state.time_source, state.overridden = settled.plan, settled.time_source, settled.overridden
    if state.lock.explicit is not None:
        return f"计划完成，条数锁定为 {state.lock.explicit}"
    return "计划完成"


def carried(state: QueryState) -> CarriedQuery | None:
    """What this answer carries for the next turn: the plan in force and the page shown. None when
    the plan falls outside what a record may hold (an over-long phrase): follow-ups then read the
    visible list, as for a client that drops the record."""
    assert state.plan is not None and state.page is not None
    count = state.lock.explicit if state.lock.explicit is not None else state.plan.limit
    try:
        return CarriedQuery(
            plan=CarriedPlan.model_validate(state.plan.model_copy(update={"limit": count}).model_dump()),
            words=state.words[:MAX_WORDS],
            offset=state.offset,
            shown=len(state.page.items),
            total=state.page.total,
        )
    except ValidationError:
        return None


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
        no_deadline=plan.no_deadline,
        repeating=plan.repeating,
        fits_minutes=plan.fits_minutes,
        keyword=(plan.keyword or "").strip() or None,
        sort_by=plan.sort_by,
        order=plan.order,
        limit=effective_limit(state, turn),
        offset=state.offset,
    )
    if window is not None:
        if window.overdue:
            flt = flt.model_copy(update={"only_overdue": True, "time_before": state.now, "include_completed": False})
        elif _is_today(window, state.now) and flt.time_field == "deadline" and not flt.include_completed:
            # What is left to do today includes what should have been done before and still isn't.
            flt = flt.model_copy(update={"time_after": window.start, "time_before": window.end, "with_overdue": True})
        else:
            flt = flt.model_copy(update={"time_after": window.start, "time_before": window.end})
    return flt


def _is_today(window: TimeWindow, now: datetime) -> bool:
    """The whole of today ("今天", "today"), not a part of it ("今晚") nor a span that starts today."""
    if window.start is None or window.end is None:
        return False
    start_of_day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return window.start == start_of_day and window.end.date() == now.date()


def no_such_day(state: QueryState) -> str | None:
    """The answer when the question names a day its month does not have ("2019年2月29日完成了什么"):
    said, not a list with the date silently dropped."""
    plan = state.plan
    if state.window is not None or plan is None or not plan.time_text:
        return None
    gone = missing_day(plan.time_text, whole=True)
    if gone is None:
        return None
    texts = PREFIXES[state.locale]
    month_has = texts["month_any" if gone.year is None else "month_of"].format(
        year=gone.year, month=gone.month, days=gone.days
    )
    return texts["no_such_day"].format(phrase=gone.phrase, month_has=month_has)


def time_anchor_step(state: QueryState, turn: Turn) -> str:
    assert state.plan is not None
    state.window = anchor_window(state.plan, state.now, state.tz)
    state.filter = build_filter(state, turn)
    if state.window is None and (said := no_such_day(state)) is not None:
        return said
    if state.window is None:
        return "只看没有截止时间的任务" if state.filter.no_deadline else "没有时间限制"
    if state.window.overdue:
        return "逾期：截止时间早于现在且未完成"
    start = state.window.start.isoformat() if state.window.start else "不限"
    end = state.window.end.isoformat() if state.window.end else "不限"
    source = "（采用模型给出的时间）" if state.time_source == "model_bounds" else ""
    rule = f"；{state.window.note}" if state.window.note else ""  # the calendar rule used, if any
    return f"「{state.window.phrase}」→ {start} ~ {end}{source}{rule}"


# --- tool_query -------------------------------------------------------------------------------


async def _read(turn: Turn, read: Callable[[Any], T]) -> T:
    """One read on a session of the turn's user (:meth:`core.turn.Turn.read`)."""
    return await turn.read(read)


async def resolve_scope_step(state: QueryState, turn: Turn) -> Scope:
    """The plan's scope read against the user's lists and labels; the filter reads it."""
    assert state.plan is not None and state.plan.scope and state.filter is not None
    said = state.plan.scope
    scope, any_named = await _read(turn, lambda session: resolve_scope(session, turn.user_id, said))
    if scope.kind == "keyword" and state.filter.keyword:
        scope = Scope("keyword", state.filter.keyword)  # the rules' keyword for these words ("和合同相关的" → 合同)
    # A user without lists or labels asked about a word in titles: a keyword search, said as before.
    state.scope = scope if scope.kind != "keyword" or any_named else None
    update = {"keyword": None, _SCOPE_FIELDS[scope.kind]: scope.name}
    state.filter = state.filter.model_copy(update=update)
    return scope


_SCOPE_FIELDS = {"list": "list_name", "label": "label", "keyword": "keyword"}


async def run_query(turn: Turn, flt: TaskFilter, now: datetime) -> TaskPage:
    """The `query_tasks` tool. The user comes from the authenticated turn, never from the model."""
    return await _read(turn, lambda session: query_tasks(session, turn.user_id, flt, now=now))


async def broaden(state: QueryState, turn: Turn) -> None:
    """Once, without a model call, when nothing matched: relax what the user can live without.

    In order: the keyword (said so plainly in the prefix); an empty deadline window is kept as said
    and the nearest tasks outside it are offered instead (after it, else before it); then finished
    tasks. Quadrants and the count are never touched. Counts as one retry.
    """
    assert state.filter is not None and state.plan is not None and state.grounds is not None
    flt, page = state.filter, state.page
    state.retries += 1
    state.dropped_keyword = flt.keyword
    named = asks_if_done(state.sentence) or asks_how_long(state.sentence)
    for name, relaxed in _relaxations(flt, state.now, named=named):
        if state.scope is not None:  # the list, label or word the user named is never dropped
            if name == "keyword":
                continue
            relaxed = relaxed.model_copy(update={_SCOPE_FIELDS[state.scope.kind]: state.scope.name})
        if name not in state.broadened:  # "nearest" may look after the window, then before it
            state.broadened.append(name)
        flt, page = relaxed, await run_query(turn, relaxed, state.now)
        if page.total:
            break
    state.filter, state.page = flt, page
    if "keyword" not in state.broadened:
        state.dropped_keyword = None  # found with the words said: nothing to say about them
    # Keep the plan, and what a retry is settled against, in step with what was relaxed: a later
    # reflect retry rebuilds the filter from them and must start from the broadened query.
    state.plan = _relaxed(state.plan, flt, state.broadened)
    state.grounds = replace(state.grounds, rules=_relaxed(state.grounds.rules, flt, state.broadened))
    if {"time_window", "nearest"} & set(state.broadened):
        state.empty_window = state.window
        state.window, state.time_source = None, None


def _relaxations(flt: TaskFilter, now: datetime, *, named: bool = False) -> list[tuple[str, TaskFilter]]:
    """Each step builds on the one before; the first that finds something stops the search.

    ``named``: a yes/no question about a task ("今天药吃了没"): its words name the task, so the time
    goes first (open or done), and the answer is about that task, not about others in the window."""
    steps: list[tuple[str, TaskFilter]] = []
    windowed = flt.time_after is not None or flt.time_before is not None or flt.only_overdue
    if named and flt.keyword and windowed:
        update = {"time_after": None, "time_before": None, "only_overdue": False, "include_completed": True}
        steps.append(("time_window", flt.model_copy(update={**update, "time_field": "deadline"})))
    if flt.keyword:
        flt = flt.model_copy(update={"keyword": None})
        steps.append(("keyword", flt))
    windowed = flt.time_after is not None or flt.time_before is not None or flt.only_overdue
    if windowed and flt.time_field == "deadline":
        # The window stays as said; finished tasks in it are the last resort, below.
        steps += [("nearest", outside) for outside in _nearest_outside(flt, now)]
    elif windowed:
        flt = flt.model_copy(update={"time_after": None, "time_before": None, "only_overdue": False})
        steps.append(("time_window", flt))
    if not flt.include_completed:
        steps.append(("include_completed", flt.model_copy(update={"include_completed": True})))
    return steps


def _nearest_outside(flt: TaskFilter, now: datetime) -> list[TaskFilter]:
    """Deadlines just after an empty window (soonest first), else just before it (latest first)."""
    base = {"only_overdue": False, "sort_by": "deadline"}
    if flt.only_overdue:  # nothing overdue: what is due next
        return [flt.model_copy(update={**base, "time_after": now, "time_before": None, "order": "asc"})]
    out = []
    if flt.time_before is not None:
        out.append(flt.model_copy(update={**base, "time_after": flt.time_before, "time_before": None, "order": "asc"}))
    if flt.time_after is not None:
        out.append(flt.model_copy(update={**base, "time_after": None, "time_before": flt.time_after, "order": "desc"}))
    return out


def _relaxed(plan: QueryPlan, flt: TaskFilter, broadened: list[str]) -> QueryPlan:
    updates: dict[str, object] = {}
    if "keyword" in broadened:
        updates["keyword"] = None
    if "time_window" in broadened:
        updates.update(time_text=None, time_after=None, time_before=None)
    if "nearest" in broadened:
        # The page continues ("再来两个") with the nearest tasks, not the empty window.
        updates.update(time_text=None, time_after=flt.time_after, time_before=flt.time_before, order=flt.order)
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
        return explain_empty(state).prefix
    if state.broadened:
        return _broadened_prefix(state)
    if not page.items:
        return texts["no_more"]
    if clamped(state):
        assert state.filter is not None
        key = "clamped_next" if state.offset else "clamped"
        return texts[key].format(max=state.filter.limit, shown=len(page.items))
    if state.lock.explicit == 1:
        return texts["picked_one"]
    if state.filter is not None and state.filter.no_deadline and state.filter.time_field == "deadline":
        return texts["undated"]  # says which tasks these are, one or many
    if state.scope is not None:  # says what the words were read as, always
        return SCOPE_PREFIX[state.locale][state.scope.kind].format(name=state.scope.name)
    if state.filter is not None and state.filter.fits_minutes is not None:  # says what it chose by, always
        return texts["fits"].format(amount=estimates.text_of(state.filter.fits_minutes, state.locale))
    if page.total == 1:
        # Only one match: nothing was picked, so don't say "挑了一个".
        return texts["only_one"]
    phrase = state.window.phrase if state.window and state.time_source != "model_bounds" else ""
    if phrase and len(phrase) <= 12:
        return texts["phrase"].format(phrase=phrase)
    return texts["generic"]


def clamped(state: QueryState) -> bool:
    """The user said more than a page holds ("前五十个") and more than the page shows matched."""
    page, flt, said = state.page, state.filter, state.lock.explicit
    if page is None or flt is None or said is None or said <= flt.limit:
        return False
    return not page.total_exact or page.total > state.offset + len(page.items)


def _said(state: QueryState, locale: Locale, window: TimeWindow | None, *, open_only: bool = False) -> list[str]:
    """What the user asked for that found nothing: the keyword, then the time said."""
    texts = PREFIXES[locale]
    said = []
    keyword = _asked_keyword(state)
    if keyword:
        said.append(texts["no_keyword"].format(keyword=keyword))
    if state.filter is not None and state.filter.no_deadline:
        said.append(texts["none_undated"])
    if state.filter is not None and state.filter.fits_minutes is not None:
        said.append(texts["none_fit"].format(amount=estimates.text_of(state.filter.fits_minutes, locale)))
    if window is not None and window.overdue:
        said.append(texts["none_overdue"])
    elif window is not None and window.phrase:
        said.append(texts["none_open_in_window" if open_only else "none_in_window"].format(phrase=window.phrase))
    elif window is not None:
        said.append(texts["none_in_time"])
    return said


def _broadened_prefix(state: QueryState) -> str:
    """Says plainly what the user asked for found nothing, then what is shown instead (its own line).

    The last relaxation is the one that found the page: it decides what "instead" is."""
    texts = PREFIXES[state.locale]
    last = state.broadened[-1]
    # Finished tasks inside the window said: the window had nothing open, rather than nothing.
    inside = last == "include_completed" and "nearest" in state.broadened
    said = _said(state, state.locale, state.empty_window, open_only=inside) or [texts["none_open"]]
    if last == "nearest":
        instead = texts["nearest"]
    elif last == "keyword":
        instead = texts["without_keyword"]
    else:  # "nearest" found nothing, so it does not describe what is shown
        shown = [name for name in state.broadened if name != "nearest"]
        instead = texts["instead"].format(relaxed=relaxed_text(shown, state.locale))
    return "".join(said) + "\n" + instead


# --- the empty answer -------------------------------------------------------------------------

EmptyKind = Literal["deadline", "overdue", "undated", "keyword", "completed", "created"]

# Which facts explain each kind of empty answer, in the order they are said (texts: EMPTY_FACTS).
# A keyword question: how many tasks exist at all; "what did I finish": how many were finished;
# a deadline question: what lies outside the time said (overdue, undated, done, the next deadline).
_FACTS_BY_KIND: dict[EmptyKind, tuple[str, ...]] = {
    "deadline": ("all_done", "overdue", "undated", "done_in_window", "next_deadline"),
    "overdue": ("all_done", "undated", "next_deadline"),
    "undated": ("all_done", "overdue", "next_deadline"),
    "keyword": ("tasks_total",),
    "completed": ("done_total",),
    "created": ("tasks_total",),
}
_HAVE = ("overdue", "undated")  # said together: "你有 2 条逾期，3 条没有截止时间"

# The nearest useful follow-up, first that applies (texts: EMPTY_OFFERS); none: the generic hint.
_OFFERS: tuple[tuple[str, Callable[[TaskFacts, EmptyKind], bool]], ...] = (
    ("no_tasks", lambda facts, kind: facts.total == 0),
    ("see_overdue", lambda facts, kind: facts.overdue > 0 and kind in ("deadline", "undated")),
    ("see_undated", lambda facts, kind: facts.undated > 0 and kind in ("deadline", "overdue")),
)


@dataclass(frozen=True)
class EmptyExplanation:
    prefix: str  # what found nothing, and the facts that explain it
    hint: str | None  # the follow-up offered on the next line (None: the generic hint)
    reason: str  # reflect's verdict in the stage stream (always Chinese, like every stage line)


def _asked_keyword(state: QueryState) -> str | None:
    return state.dropped_keyword or (state.filter.keyword if state.filter is not None else None)


def _asked_window(state: QueryState) -> TimeWindow | None:
    """The time the user said: kept aside by broadening, or still in force."""
    return state.empty_window or state.window


def empty_kind(state: QueryState) -> EmptyKind:
    if _asked_keyword(state):
        return "keyword"
    flt = state.filter
    if flt is not None and flt.time_field != "deadline":
        return flt.time_field
    if flt is not None and flt.no_deadline:
        return "undated"
    window = _asked_window(state)
    return "overdue" if window is not None and window.overdue else "deadline"


def facts_window(state: QueryState) -> tuple[datetime | None, datetime | None]:
    """The deadline window "done in it" and "the next deadline after it" refer to."""
    window = _asked_window(state)
    if window is None or empty_kind(state) != "deadline":
        return None, None
    return window.start, window.end


async def read_facts(state: QueryState, turn: Turn) -> TaskFacts:
    start, end = facts_window(state)
    return await _read(
        turn,
        lambda session: task_facts(session, turn.user_id, now=state.now, window_start=start, window_end=end),
    )


def _fact_clauses(state: QueryState, facts: TaskFacts, locale: Locale) -> list[str]:
    texts = EMPTY_FACTS[locale]
    values: dict[str, int | datetime | None] = {
        "all_done": facts.done if facts.open == 0 else 0,
        "overdue": facts.overdue,
        "undated": facts.undated,
        "done_in_window": facts.done_in_window,
        "next_deadline": facts.next_deadline,
        "tasks_total": facts.total,
        "done_total": facts.done,
    }
    clauses: list[str] = []
    have: list[str] = []
    for name in _FACTS_BY_KIND[empty_kind(state)]:
        value = values[name]
        if not value:  # a zero is not worth saying; "no tasks at all" is the offer's to say
            continue
        if isinstance(value, datetime):
            clauses.append(texts[name].format(day=format_day(value, state.tz, state.now, locale)))
            continue
        if name in _HAVE and not have:
            clauses.append("")  # where the shared "have" clause goes, filled in below
        (have if name in _HAVE else clauses).append(texts[name].format(n=facts.label(value)))
    joined = texts["have"].format(items=texts["item_joiner"].join(have))
    return [clause or joined for clause in clauses]


def _empty_line(state: QueryState, locale: Locale) -> str:
    if state.scope is not None:  # what the words were read as, then why nothing is there
        said = SCOPE_PREFIX[locale]["none_" + state.scope.kind].format(name=state.scope.name)
    else:
        said = "".join(_said(state, locale, _asked_window(state))) or PREFIXES[locale]["no_match"]
    clauses = _fact_clauses(state, state.facts, locale) if state.facts is not None else []
    if not clauses:  # no facts read: say nothing more rather than guess
        return said
    texts = EMPTY_FACTS[locale]
    return said.rstrip(" 。.") + texts["joiner"] + texts["joiner"].join(clauses) + texts["end"]


def explain_empty(state: QueryState) -> EmptyExplanation:
    """Why nothing matched, from the facts the store counted (``state.facts``), and what to ask next."""
    kind, facts = empty_kind(state), state.facts
    offer = None
    if facts is not None:
        offer = next((name for name, applies in _OFFERS if applies(facts, kind)), None)
    hint = EMPTY_OFFERS[state.locale][offer] if offer else None
    reason = "没有匹配：" + _empty_line(state, "zh").rstrip("。")
    if offer == "no_tasks":
        reason += "；一条任务都还没有"
    return EmptyExplanation(_empty_line(state, state.locale), hint, reason)


def facts_data(facts: TaskFacts) -> dict[str, object]:
    """The facts as stage-event data."""
    data: dict[str, object] = {
        name: getattr(facts, name) for name in ("open", "done", "overdue", "undated", "done_in_window")
    }
    data["next_deadline"] = facts.next_deadline.isoformat() if facts.next_deadline else None
    return data


def offline_reflection(state: QueryState) -> Reflection:
    """The rules' verdict. An empty page is not satisfying, but no patch can fix it (broadening
    already ran, or may not run), so it never asks for a retry; the prefix explains it instead."""
    empty = state.page is None or state.page.total == 0
    return Reflection(satisfied=not empty, need_retry=False, patch=None, prefix=default_prefix(state))


def verdict_line(state: QueryState, reflection: Reflection) -> str:
    """Reflect's line in the stage stream: why nothing matched, when nothing did."""
    if reflection.need_retry:
        return "建议重试"
    return state.verdict or "满意"


async def reflect_step(state: QueryState, turn: Turn) -> Reflection:
    assert state.plan is not None and state.page is not None
    plan, page = state.plan, state.page
    empty = page.total == 0
    # Only here: a normal answer never pays for the facts (and a retry's page drops stale ones).
    state.facts = await read_facts(state, turn) if empty else None
    reflection = await run_structured(
        REFLECT,
        lambda: reflect_prompt(
            state.sentence,
            plan,
            page,
            state.tz,
            earlier_questions=[h.text for h in turn.history if h.role == "user"],
            relaxed=relaxed_text(state.broadened, "en") if state.broadened else None,
        ),
        node="reflect",
        hub=turn.hub,
        trace=turn.trace,
        offline=lambda: offline_reflection(state),
        instructions=lambda: context_lines(state.now, state.tz, state.locale),
    )
    state.hint = state.verdict = None
    if empty:
        # Only code knows the counts that explain it; a model's line could guess a number.
        explanation = explain_empty(state)
        state.prefix, state.hint, state.verdict = explanation.prefix, explanation.hint, explanation.reason
    elif state.broadened or clamped(state):
        # The model's line would describe the original question (or the count said); only code
        # knows what was relaxed, and that the page was cut to its maximum.
        state.prefix = default_prefix(state)
    else:
        titles = [item.title for item in state.page.items]
        prefix = clean_prefix(reflection.prefix, titles)
        if prefix is not None and (detect_locale(prefix) != state.locale or claims_write(prefix)):
            prefix = None  # the user's language, all of it; and no word of a write that did not happen
        state.prefix = prefix or default_prefix(state)
    window = state.window or state.empty_window
    if window is not None and window.caveat:
        state.prefix = f"{window.caveat}。\n{state.prefix}"  # a guessed holiday schedule says so
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


@dataclass(frozen=True)
class Said:
    """The sentence that answers a yes/no question first; ``alone`` when it is the whole answer."""

    text: str
    alone: bool


def done_verdict(state: QueryState) -> Said | None:
    """ "交季度报告做完了吗": yes or no, from the rows found for the task the user named ("写周报大概要多久":
    its estimate). When no title has those words, that is the answer: a list found by dropping them is
    about other tasks."""
    how = asks_how_long(state.sentence)
    if state.page is None or not (how or asks_if_done(state.sentence)):
        return None
    if "keyword" in state.broadened and state.dropped_keyword:
        return Said(PREFIXES[state.locale]["no_keyword"].format(keyword=state.dropped_keyword).strip(), alone=True)
    if state.filter is None or not state.filter.keyword or state.broadened not in ([], ["time_window"]):
        return None  # no task named, or not the rows asked about: no yes or no to give
    text = how_long(state.page, state.locale) if how else verdict(state.page, state.tz, state.now, state.locale)
    if text is None:
        return None
    one = len(state.page.items) == 1 or (not how and one_series(state.page))
    return Said(text, alone=one and state.offset == 0)
