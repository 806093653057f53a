"""`suikou explain`: the router's action plus the plan or note it would produce (brief §9)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlmodel import Session

from core.llm import ModelHub
from core.trace import Trace
from core.turn import ChatText, Turn, TurnConfig
from quicknote.handler import explain_note
from route.pipeline import Pipeline
from taskquery.handler import explain_query


def _no_database() -> Session:
    raise RuntimeError("explain never touches the database")


async def explain(
    pipeline: Pipeline, hub: ModelHub, sentence: str, *, now: datetime, tz: str, config: TurnConfig
) -> dict[str, Any]:
    turn = Turn(
        user_id=0,
        messages=[ChatText("user", sentence)],
        now=now.astimezone(ZoneInfo(tz)),
        tz=tz,
        turn_key="explain",
        hub=hub,
        trace=Trace(budget=config.budget()),
        sessions=_no_database,
        config=config,
    )
    decision = await pipeline.router.decide(turn)
    out: dict[str, Any] = {"action": decision.action}
    if decision.action == "task_query":
        out["plan"] = await explain_query(turn)
    elif decision.action == "quick_note_create":
        out["note"] = await explain_note(turn)
    return out
