"""The action registry: one place that says which actions exist and everything about each.

An action declares, in its own package, what the router, the pipeline, `explain`, MCP, metrics
and the change log need to know about it (:class:`core.action.Action`); nothing outside its package
names it, except the one line of the composition root that registers it (``app/actions.py``). The router's prompt and its output type are generated
from here, so an action the model can name always has a handler.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal

from pydantic import BaseModel, Field, create_model

from core.action import Action, Explainer, Handler, OfflineRule, text_answer
from core.changes import register_kind
from core.tools import ToolSpec
from core.turn import Answer, HistoryTurn, OfflineSignal

__all__ = ["Action", "ActionRegistry", "Explainer", "Handler", "OfflineRule", "text_answer"]


class ActionRegistry:
    def __init__(self, fallback: str = "chat") -> None:
        self._actions: dict[str, Action] = {}
        self.fallback = fallback

    def register(self, action: Action) -> None:
        if action.name in self._actions:
            raise ValueError(f"action {action.name!r} registered twice")
        if action.writes and not action.clarify:
            raise ValueError(f"action {action.name!r} writes, so it needs a clarifying reply")
        taken = {t.name for a in self for t in a.tools}
        if clash := taken & {t.name for t in action.tools}:
            raise ValueError(f"action {action.name!r} offers tools another action offers: {sorted(clash)}")
        for kind in action.kinds:
            register_kind(kind)
        self._actions[action.name] = action

    def __getitem__(self, name: str) -> Action:
        return self._actions[name]

    def __contains__(self, name: object) -> bool:
        return name in self._actions

    def __iter__(self) -> Iterator[Action]:
        return iter(self._actions.values())

    def names(self) -> list[str]:
        return list(self._actions)

    def for_intent(self, intent: str) -> str | None:
        """The registered action answering the router's generic offline reading ``intent``."""
        return next((a.name for a in self if a.intent == intent), None)

    def writes(self, name: str) -> bool:
        return name in self._actions and self._actions[name].writes

    def offline_signal(self, text: str, history: Sequence[HistoryTurn]) -> tuple[str, OfflineSignal] | None:
        """The surest registered offline signal for ``text`` (ties: the earlier registration)."""
        best: tuple[str, OfflineSignal] | None = None
        for action in self:
            signal = action.offline(text, history) if action.offline else None
            if signal is not None and (best is None or signal.confidence > best[1].confidence):
                best = (action.name, signal)
        return best

    def decision_model(self) -> type[BaseModel]:
        """The router's structured output type; `action` is a Literal of the registered names."""
        names = tuple(self._actions)
        return create_model(
            "RouteDecision",
            action=(Literal[names], Field(description="Which action handles the latest user message.")),  # type: ignore[arg-type]
            confidence=(float, Field(ge=0, le=1, description="0..1, how sure you are.")),
            reason=(str, Field(max_length=200, description="A few words on why.")),
        )

    def tools(self) -> list[ToolSpec]:
        """Every action's tools, in registration order (what MCP publishes)."""
        return [tool for action in self for tool in action.tools]

    def counted(self, name: str, answer: Answer) -> tuple[str | None, dict[str, int]]:
        """The answer's outcome and tally as far as action ``name`` declares them (metrics labels)."""
        action = self._actions.get(name)
        if action is None:
            return None, {}
        outcome = answer.outcome if answer.outcome in action.outcomes else None
        tally = {k: int(v) for k, v in answer.tally.items() if k in action.tallies and v}
        return outcome, tally

    def prompt_section(self) -> str:
        return "\n".join(f"- {a.name}: {a.description}" for a in self)
