"""`suikou explain`: the router's action plus the plan or note it would produce (brief §9)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from core.llm import ModelHub
from core.turn import ChatText, TurnConfig, new_turn
from route.pipeline import Pipeline


def _no_database() -> Session:
    raise RuntimeError("explain never touches the database")


async def explain(
    pipeline: Pipeline, hub: ModelHub, sentence: str, *, now: datetime, tz: str, config: TurnConfig
) -> dict[str, Any]:
    turn = new_turn(
        [ChatText("user", sentence)],
        user_id=0,
        now=now,
        tz=tz,
        hub=hub,
        sessions=_no_database,
        config=config,
        turn_key="explain",
    )
    decision = await pipeline.router.decide(turn)
    # An abstention names what it asks about, and says what that action would do (issue 21).
    shown = decision.proposed or decision.action
    out: dict[str, Any] = {"action": "clarify", "proposed": shown} if decision.proposed else {"action": shown}
    explainer = pipeline.registry[shown].explain
    if explainer is not None:
        out.update(await explainer(turn))
    return out
