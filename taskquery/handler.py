"""The `task_query` action: runs the graph for one turn and streams the rendered answer."""

from __future__ import annotations

from typing import Any

from core import lists
from core.display import task_record
from core.graphrun import run_nodes
from core.turn import Answer, Turn
from taskquery import steps
from taskquery.graph import Plan, task_query_graph
from taskquery.overview import Kind, overview_kind, overview_text
from taskquery.state import QueryDeps, QueryState

DESCRIPTION = (
    "随口问: a question about the user's OWN tasks — what is due, what to do next, counts "
    "('来一个', '前3个'), priorities, time ranges, completed or newly created tasks, follow-ups "
    "like '再来两个'."
)


async def handle_task_query(turn: Turn) -> Answer:
    kind = overview_kind(turn.text)
    if kind is not None:  # "有哪些清单": the lists themselves, not tasks
        return await _overview(turn, kind)
    state = QueryState(sentence=turn.text, now=turn.now, tz=turn.tz, locale=turn.locale)
    answer = await run_nodes(task_query_graph(), Plan(), state=state, deps=QueryDeps(turn))
    turn.trace.notes.update(
        retries=state.retries,
        broadened=state.broadened,
        total=state.page.total if state.page else None,
    )
    outcome = "listed" if state.page is not None and state.page.items else "empty"
    tally = {"broadenings": int(bool(state.broadened)), "reflect_retries": state.retries}
    return Answer(answer, page_data(state), outcome=outcome, tally=tally)


async def _overview(turn: Turn, kind: Kind) -> Answer:
    counts = lists.list_counts if kind == "lists" else lists.label_counts
    named = await turn.read(lambda session: counts(session, turn.user_id))
    turn.trace.emit("overview", "info", f"列出{len(named)}个{'清单' if kind == 'lists' else '标签'}", {"kind": kind})
    data: dict[str, Any] = {kind: [{"name": n.name, "open": n.open, "total": n.total} for n in named]}
    return Answer(overview_text(kind, named, turn.locale), data, outcome="listed" if named else "empty")


def page_data(state: QueryState) -> dict[str, Any]:
    """The page the answer lists, as data: the tasks shown, the true total, the filter that ran."""
    page, flt = state.page, state.filter
    if page is None or flt is None:
        return {}
    return {
        "total": page.total,
        "total_exact": page.total_exact,
        "offset": state.offset,
        "items": [task_record(row, state.now) for row in page.items],
        "filter": flt.model_dump(mode="json", exclude_none=True),
        "broadened": list(state.broadened),
        "explicit_limit": state.lock.explicit,
        "wants_all": state.lock.wants_all,
    }


async def explain_query(turn: Turn) -> dict[str, Any]:
    """``{"plan": …}``: plan → quadrant → time_anchor without a database, as brief §9 specifies."""
    state = QueryState(sentence=turn.text, now=turn.now, tz=turn.tz, locale=turn.locale)
    await steps.plan_step(state, turn)
    steps.quadrant_step(state)
    steps.time_anchor_step(state, turn)
    flt = state.filter
    assert flt is not None
    return {
        "plan": {
            "quadrants": flt.quadrants,
            "time_field": flt.time_field,
            "time_after": flt.time_after.isoformat() if flt.time_after else None,
            "time_before": flt.time_before.isoformat() if flt.time_before else None,
            "include_completed": flt.include_completed,
            "no_deadline": flt.no_deadline,
            "repeating": flt.repeating,
            **({"fits_minutes": flt.fits_minutes} if flt.fits_minutes is not None else {}),  # free time said
            "keyword": flt.keyword,
            "sort_by": flt.sort_by,
            "order": flt.order,
            "limit": flt.limit,
            "explicit_limit": state.lock.explicit,
            "wants_all": state.lock.wants_all,
        }
    }
