"""The action registry: one place that says which actions exist and who handles them.

The router's prompt and its output type are generated from here, so an action the model can name
always has a handler, and adding an action is one `register` call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field, create_model

from core.turn import Turn

Handler = Callable[[Turn], Awaitable[str]]


@dataclass(frozen=True)
class Action:
    name: str
    description: str
    handler: Handler
    side_effects: bool = False


class ActionRegistry:
    def __init__(self, fallback: str = "chat") -> None:
        self._actions: dict[str, Action] = {}
        self.fallback = fallback

    def register(self, action: Action) -> None:
        if action.name in self._actions:
            raise ValueError(f"action {action.name!r} registered twice")
        self._actions[action.name] = action

    def __getitem__(self, name: str) -> Action:
        return self._actions[name]

    def __contains__(self, name: object) -> bool:
        return name in self._actions

    def __iter__(self) -> Iterator[Action]:
        return iter(self._actions.values())

    def names(self) -> list[str]:
        return list(self._actions)

    def decision_model(self) -> type[BaseModel]:
        """The router's structured output type; `action` is a Literal of the registered names."""
        names = tuple(self._actions)
        return create_model(
            "RouteDecision",
            action=(Literal[names], Field(description="Which action handles the latest user message.")),  # type: ignore[arg-type]
            confidence=(float, Field(ge=0, le=1, description="0..1, how sure you are.")),
            reason=(str, Field(max_length=200, description="A few words on why.")),
        )

    def prompt_section(self) -> str:
        return "\n".join(f"- {a.name}: {a.description}" for a in self)
