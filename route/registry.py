"""The action registry: one place that says which actions exist and everything about each.

An action declares what the router, the pipeline, `explain` and the settings need to know about
it (see :class:`Action`); nothing outside its own package names it, except the composition root
that registers it (``app/actions.py``). The router's prompt and its output type are generated
from here, so an action the model can name always has a handler.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from core.locale import Locale
from core.turn import Answer, HistoryTurn, OfflineSignal, Turn

Handler = Callable[[Turn], Awaitable[Answer]]
Explainer = Callable[[Turn], Awaitable[Mapping[str, Any]]]
OfflineRule = Callable[[str, Sequence[HistoryTurn]], OfflineSignal | None]


@dataclass(frozen=True)
class Action:
    """One thing Suikou can do with a message.

    - ``writes``: it changes the user's data. The router then cross-checks the model against the
      offline rules and needs ``min_confidence`` (None: the configured write threshold); when
      unsure the pipeline answers ``clarify`` in the user's language and writes nothing.
    - ``explain``: what ``suikou explain`` prints for it, merged into ``{"action": name}``
      (brief §9), computed without writing anything.
    - ``offline``: its offline routing signal. Registered signals are read before the router's
      generic rules; the surest one wins.
    - ``intent``: which reading of the generic offline rules (capture, query, chat) it answers.
    """

    name: str
    description: str
    handler: Handler
    writes: bool = False
    min_confidence: float | None = None
    clarify: Mapping[Locale, str] = field(default_factory=dict)
    explain: Explainer | None = None
    offline: OfflineRule | None = None
    intent: Literal["capture", "query", "chat"] | None = None  # the generic offline reading it answers


def text_answer(handler: Callable[[Turn], Awaitable[str]]) -> Handler:
    """A handler whose result is only text, as an :data:`Handler`."""

    async def run(turn: Turn) -> Answer:
        return Answer(await handler(turn))

    return run


class ActionRegistry:
    def __init__(self, fallback: str = "chat") -> None:
        self._actions: dict[str, Action] = {}
        self.fallback = fallback

    def register(self, action: Action) -> None:
        if action.name in self._actions:
            raise ValueError(f"action {action.name!r} registered twice")
        if action.writes and not action.clarify:
            raise ValueError(f"action {action.name!r} writes, so it needs a clarifying reply")
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

    def prompt_section(self) -> str:
        return "\n".join(f"- {a.name}: {a.description}" for a in self)
