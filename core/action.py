"""What an action is: the contract every action declares in its own package (docs/fdr/0012, 0025).

An action package builds one :class:`Action` (``<package>.action.ACTION``) and the composition root
registers it (``app/actions.py``, one line); the registry wires it into the router, the pipeline,
``explain``, MCP, metrics and the change log. It lives in core so that action packages, which may
import only core, can declare themselves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from core.changes import ChangeKind
from core.corpus import CorpusSpec
from core.locale import Locale
from core.tools import ToolSpec
from core.turn import Answer, HistoryTurn, OfflineSignal, Turn

__all__ = ["Action", "Explainer", "Handler", "OfflineRule", "Proposer", "ask_about", "text_answer"]

Handler = Callable[[Turn], Awaitable[Answer]]
Explainer = Callable[[Turn], Awaitable[Mapping[str, Any]]]
OfflineRule = Callable[[str, Sequence[HistoryTurn]], OfflineSignal | None]
# The question the router asks when this action is the likely one but not a sure one (docs/fdr/0026).
Proposer = Callable[[Turn], Awaitable[str]]


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
    - ``examples``: messages it handles, in the users' words (docs and help texts).
    - ``corpus``: its training sentences for the router's intent model (``core.corpus``,
      ``scripts/train_intent.py``).
    - ``propose``: the one short question asked when the router thinks the message is probably for
      this action but is not sure ("要我记下「…」吗？"); a yes then runs it on the original message.
    - ``tools``: its tools for tool-calling clients (MCP), with their schemas and promises.
    - ``kinds``: the change kinds its writes log, with their inverses and wording
      (``core.changes.ChangeKind``; the built-in task kinds need no declaring).
    - ``outcomes`` / ``tallies``: the metrics labels its answers may carry (``Answer.outcome``,
      ``Answer.tally``); anything else an answer says is not counted, so labels stay a closed set.
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
    examples: tuple[str, ...] = ()
    corpus: CorpusSpec | None = None
    propose: Proposer | None = None
    tools: tuple[ToolSpec, ...] = ()
    kinds: tuple[ChangeKind, ...] = ()
    outcomes: tuple[str, ...] = ()
    tallies: tuple[str, ...] = ()


def ask_about(zh: str, en: str) -> Proposer:
    """A :data:`Proposer` from one question per language; ``{text}`` is the user's message."""

    async def propose(turn: Turn) -> str:
        template = en if turn.locale == "en" else zh
        return template.format(text=_quoted(turn.text))

    return propose


def _quoted(text: str, limit: int = 40) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def text_answer(handler: Callable[[Turn], Awaitable[str]], *, streamed: bool = False) -> Handler:
    """A handler whose result is only text, as an :data:`Handler` (``streamed``: it sent its text
    to the stream itself, as it came)."""

    async def run(turn: Turn) -> Answer:
        return Answer(await handler(turn), streamed=streamed)

    return run
