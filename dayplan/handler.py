"""The `day_plan` action: "今天怎么安排" → the rest of the day in time slots; "这周哪天最闲" → the lightest day.

Everything is code (docs/fdr/0041): the store's reads (:mod:`dayplan.reads`), the plan
(:mod:`dayplan.plan`) and its words (:mod:`dayplan.rendering`). No model is asked: the offline answer
is the whole answer. A plan answer carries a signed ``p1`` record (``core.carry``) of its day and how
its queue was turned, so "换一个" turns it one step further; without the record (a client that drops
it) the day is read from the plan's own words and the queue turned once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from typing import Annotated, Any, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel, Field, Strict, ValidationError
from sqlmodel import Session

from core import carry
from core.estimates import DEFAULT_MINUTES
from core.store import TaskRow
from core.turn import Answer, ChatText, Turn
from dayplan.offline import PlanRequest, read_request
from dayplan.plan import (
    BANDS,
    FAR,
    WORK_HOURS,
    Candidate,
    DayLoad,
    DayPlan,
    Window,
    WorkHours,
    build_plan,
    candidates,
    lightest,
    plan_window,
    week_days,
)
from dayplan.reads import read_day, read_next, read_week
from dayplan.rendering import reason, render_plan, render_week

__all__ = ["DESCRIPTION", "KIND", "OUTCOMES", "explain_plan", "handle_plan"]

DESCRIPTION = (
    "排一天: the user asks Suikou to PLAN a day's time from their own tasks ('今天怎么安排', '今天先做什么', "
    "'帮我把今天的任务排个时间', '明天怎么安排', 'plan my day', 'what should I do today'), which day of the week "
    "is least busy ('这周哪天最闲'), or another plan right after one ('换一个'). Reads only. Listing what is due "
    "('今天有什么任务') is the task query."
)
KIND = "p1"  # the carried record of a plan: its day and how far its queue was turned
OUTCOMES = ("planned", "empty", "no_time", "week")
MAX_SHIFT = 1000

T = TypeVar("T")


class CarriedPlan(BaseModel):
    """What a plan answer carries for "换一个" (client input: checked like any other)."""

    day: date
    shift: Annotated[int, Strict(), Field(ge=0, le=MAX_SHIFT)] = 0


def carried_plan(messages: Sequence[ChatText], seal: carry.Seal) -> CarriedPlan | None:
    """The record of the plan answer right before the last user message, if signed and sound."""
    turns = [m for m in messages if m.role in ("user", "assistant")]
    if len(turns) < 2 or turns[-1].role != "user" or turns[-2].role != "assistant":
        return None
    payload = carry.read(turns[-2].text, KIND, seal)
    if payload is None:
        return None
    try:
        return CarriedPlan.model_validate(payload)
    except ValidationError:
        return None


def _today(turn: Turn) -> date:
    return turn.now.astimezone(ZoneInfo(turn.tz)).date()


def _day_and_shift(turn: Turn, request: PlanRequest) -> tuple[date, int]:
    """Which day to plan and how far to turn its queue."""
    if request.kind != "again":
        return _today(turn) + timedelta(days=request.days_ahead), 0
    found = carried_plan(turn.messages, turn.seal)
    if found is not None:
        return found.day, min(found.shift + 1, MAX_SHIFT)
    # No record: the plan's own words say which day; the queue is turned once.
    before = turn.history[-1].text if turn.history else ""
    tomorrow = re.search(r"^(?:明天（|Tomorrow \()", before, re.M) is not None
    return _today(turn) + timedelta(days=1 if tomorrow else 0), 1


async def _read(turn: Turn, read: Callable[[Session], T]) -> T:
    return await turn.read(read)


def _plan(session: Session, turn: Turn, window: Window, shift: int) -> tuple[DayPlan, TaskRow | None]:
    rows = read_day(session, turn.user_id, window, turn.now)
    queue = candidates(
        rows.overdue.items,
        rows.due.items,
        rows.urgent.items,
        rows.promoted_easy.items,
        rows.important.items,
        window=window,
        now=turn.now,
        rest_of_today=rows.rest_of_today.items,
    )
    plan = build_plan(
        window, queue.items, hours=_hours(turn), shift=shift, more=rows.capped, left_today=queue.left_today
    )
    next_up = read_next(session, turn.user_id, window.day_end, turn.now) if not queue.items else None
    return plan, next_up


def _candidate_data(c: Candidate, turn: Turn) -> dict[str, Any]:
    return {
        "id": c.task.id,
        "title": c.task.title,
        "band": c.band,
        "reason": reason(c, turn.now, turn.tz, turn.locale),
        "minutes": c.minutes,
        "estimated": c.estimated,
        "effective_group": c.task.effective_group,
        "deadline_at": _local(c.task.deadline_at, turn.tz),
    }


def _local(moment: datetime | None, tz: str) -> str | None:
    return moment.astimezone(ZoneInfo(tz)).isoformat() if moment is not None else None


def _hours(turn: Turn) -> WorkHours:
    """The working hours the plan fills (SUIKOU_WORK_HOURS, checked by the settings)."""
    return WorkHours.parse(turn.config.work_hours)


def window_data(window: Window, hours: WorkHours = WORK_HOURS) -> dict[str, Any]:
    """The plan's window as ``explain`` and the answer's data show it (RFC 3339, the user's offset)."""
    return {
        "day": window.day.isoformat(),
        "window_start": window.start.isoformat(),
        "window_end": window.end.isoformat(),
        "minutes": window.minutes,
        "reference": window.ref.isoformat(),
        "work_hours": str(hours).replace("–", "-"),
        "order": list(BANDS),
        "default_minutes": {str(k): v for k, v in DEFAULT_MINUTES.items()},
        "far_days": FAR.days,
    }


def plan_data(plan: DayPlan, turn: Turn) -> dict[str, Any]:
    """The plan as data: its inputs (window, hours, every candidate with reason and minutes) and result."""
    placed = [
        {**_candidate_data(s.candidate, turn), "start": s.start.isoformat(), "end": s.end.isoformat(), "late": s.late}
        for s in plan.slots
    ]
    return {
        "kind": "day",
        **window_data(plan.window, _hours(turn)),
        "shift": plan.shift,
        "candidates": [_candidate_data(c, turn) for c in (*(s.candidate for s in plan.slots), *plan.not_fit)],
        "placed": placed,
        "not_fit": [_candidate_data(c, turn) for c in plan.not_fit],
        "free_minutes": plan.free_minutes,
        "used_defaults": plan.used_defaults,
        "more": plan.more,
        "left_today": [
            {"id": t.id, "title": t.title, "deadline_at": _local(t.deadline_at, turn.tz)} for t in plan.left_today
        ],
    }


def _outcome(plan: DayPlan) -> str:
    if plan.window.minutes <= 0:
        return "no_time"
    return "planned" if plan.queue_size else "empty"


async def handle_plan(turn: Turn) -> Answer:
    # The router's reading when its rule chose this action; read here when a model did.
    request = turn.reading if isinstance(turn.reading, PlanRequest) else read_request(turn.text, turn.history)
    request = request or PlanRequest("day")
    if request.kind == "week":
        return await _week(turn, request)
    day, shift = _day_and_shift(turn, request)
    window = plan_window(turn.now, turn.tz, day, _hours(turn))
    turn.trace.emit("dayplan", "start", _start_words(window), {"day": window.day.isoformat(), "shift": shift})
    plan, next_up = await _read(turn, lambda session: _plan(session, turn, window, shift))
    turn.trace.emit(
        "dayplan",
        "end",
        _end_words(plan),
        {"placed": len(plan.slots), "not_fit": len(plan.not_fit), "free_minutes": plan.free_minutes},
    )
    text = render_plan(plan, now=turn.now, tz=turn.tz, locale=turn.locale, next_up=next_up)
    text = carry.attach(text, KIND, {"day": window.day.isoformat(), "shift": shift}, turn.seal)
    return Answer(text, plan_data(plan, turn), outcome=_outcome(plan))


def _start_words(window: Window) -> str:
    return f"读取 {window.day.isoformat()} 要排的任务，可排时段 {window.start:%H:%M}–{window.end:%H:%M}"


def _end_words(plan: DayPlan) -> str:
    return f"排进 {len(plan.slots)} 件，排不下 {len(plan.not_fit)} 件"


async def _week(turn: Turn, request: PlanRequest) -> Answer:
    days = week_days(turn.now, turn.tz, weeks_ahead=1 if request.days_ahead >= 7 else 0)
    turn.trace.emit("dayplan", "start", "按截止时间算每天要做多久", {"days": [d.isoformat() for d in days]})
    loads, facts = await _read(turn, lambda session: read_week(session, turn.user_id, days, turn.now, turn.tz))
    best = lightest(loads)
    turn.trace.emit(
        "dayplan", "end", f"最闲：{best[0].day.isoformat()}", {"lightest": [d.day.isoformat() for d in best]}
    )
    text = render_week(
        loads, best, facts, now=turn.now, tz=turn.tz, locale=turn.locale, next_week=request.days_ahead >= 7
    )
    return Answer(text, week_data(loads, best), outcome="week")


def week_data(loads: Sequence[DayLoad], best: Sequence[DayLoad]) -> dict[str, Any]:
    return {
        "kind": "week",
        "days": [
            {"day": d.day.isoformat(), "count": d.count, "minutes": d.minutes, "defaults": d.defaults, "exact": d.exact}
            for d in loads
        ],
        "lightest": [d.day.isoformat() for d in best],
        "default_minutes": {str(k): v for k, v in DEFAULT_MINUTES.items()},
    }


async def explain_plan(turn: Turn) -> dict[str, Any]:
    """``{"day_plan": …}``: the window, working hours, order and defaults, computed without the
    database; and, when the turn can read one (not ``suikou explain``, which has no user), the
    candidates with their reason and minutes, what was placed and what did not fit."""
    request = read_request(turn.text, turn.history) or PlanRequest("day")
    if request.kind == "week":
        days = week_days(turn.now, turn.tz, weeks_ahead=1 if request.days_ahead >= 7 else 0)
        return {"day_plan": {"kind": "week", "days": [d.isoformat() for d in days]}}
    day, shift = _day_and_shift(turn, request)
    window = plan_window(turn.now, turn.tz, day, _hours(turn))
    if turn.user_id <= 0:  # `suikou explain`: no user, no database — what needs them is not known
        return {
            "day_plan": {
                "kind": "day",
                **window_data(window, _hours(turn)),
                "shift": shift,
                "candidates": None,
                "not_fit": None,
            }
        }
    plan, _ = await _read(turn, lambda session: _plan(session, turn, window, shift))
    return {"day_plan": plan_data(plan, turn)}
