"""One chat turn as every action sees it: who, what, when, and where to report.

Built in one place (``app.state.AppState.new_turn``) for HTTP, the CLI and explain; tests build
them directly."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar
from zoneinfo import ZoneInfo

import anyio.to_thread
from sqlmodel import Session

from core import carry
from core.llm import ModelHub
from core.locale import Locale, detect_locale
from core.timeanchor import numdate
from core.timeanchor.numdate import DateOrder
from core.trace import Budget, Trace

T = TypeVar("T")

_USER_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.S)


@dataclass(frozen=True)
class ChatText:
    """One request message reduced to plain text (text parts joined with "\\n")."""

    role: str  # "system" | "developer" | "user" | "assistant" | "tool"
    text: str


@dataclass(frozen=True)
class HistoryTurn:
    """One earlier message, already reduced to plain text."""

    role: str  # "user" | "assistant" | "system"
    text: str


@dataclass(frozen=True)
class Answer:
    """What an action hands back: the text the user reads, and the same result as data.

    The pipeline delivers ``text`` (an action never writes to the stream itself, unless it
    ``streamed`` its text as it came, as chat does). ``data`` is for channels that are not a chat
    (REST, MCP, a UI): the page shown, the task written. It is JSON-ready (plain dicts, lists,
    strings, numbers). ``change_ids``: the changes this answer made (what its ``w1`` record
    carries). ``outcome`` and ``tally`` are for metrics: one of the outcomes the action declares
    ("written", "asked", …) and counts by the names it declares ({"notes_written": 2})."""

    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    change_ids: tuple[int, ...] = ()
    outcome: str | None = None
    tally: Mapping[str, int] = field(default_factory=dict)
    streamed: bool = False


@dataclass(frozen=True)
class OfflineSignal:
    """An action's own offline reading of a message: "this is mine, this sure", and what it read.

    ``confidence`` is on one scale for every action (docs/fdr/0026): 0.9 a phrase only this action
    uses ("撤销", "mark … as done"); 0.8–0.85 a clear pattern with its object ("把交报告改到周五");
    0.7 a weaker shape that still names this action; below that a guess the router may overrule.
    ``reading`` is the action's own typed result (the task words, the new time, the bulk filter):
    when the router chooses this action, its handler gets it as ``Turn.reading`` instead of parsing
    the sentence again.
    """

    confidence: float
    reason: str
    reading: object | None = None


CLIENT_KEY_PREFIX = "cm:"


@dataclass(frozen=True)
class AttemptKeys:
    """What names one attempt of a write (see :mod:`core.attempts`)."""

    key: str  # the client's message id, or the conversation's hash
    window: timedelta | None  # how long a copy counts as the same attempt; None: the client named it


@dataclass(frozen=True)
class TurnConfig:
    """Tunables the HTTP layer reads from settings and hands to the features."""

    default_limit: int = 5
    max_limit: int = 20
    write_min_confidence: float = 0.6  # what an action that writes needs, unless it declares its own
    # A note whose title and deadline nearly match an open task: ask first, or just write it.
    near_duplicates: Literal["ask", "allow"] = "ask"
    history_turns: int = 6
    history_chars: int = 600
    max_reflect_retries: int = 2
    model_request_budget: int = 5
    turn_time_budget_s: float = 60.0
    note_retry_window_s: float = 600.0  # a resend of the same conversation within this is a retry
    # Run task reads on the event loop instead of a worker thread (SQLite: see docs/fdr/0011).
    reads_inline: bool = False
    work_hours: str = "09:00-18:00"  # what a day plan fills, in the user's timezone (dayplan)
    date_order: DateOrder = "auto"  # numeric dates no field orders (core/timeanchor/numdate.py)

    def budget(self) -> Budget:
        """A fresh per-turn budget; its clock starts now."""
        return Budget(max_requests=self.model_request_budget, seconds=self.turn_time_budget_s)


@dataclass
class Turn:
    """Everything a handler may use. Handlers read only this (no globals, no HTTP)."""

    user_id: int
    messages: Sequence[ChatText]
    now: datetime
    tz: str
    turn_key: str
    hub: ModelHub
    trace: Trace
    sessions: Callable[[], Session]
    config: TurnConfig = field(default_factory=TurnConfig)
    on_content: Callable[[str], None] = lambda _text: None
    streaming: bool = False  # on_content reaches the user as it comes (an SSE client)
    # The deployment's key for carried records (core.service_secrets); a process's own by default.
    record_secret: bytes = carry.EPHEMERAL_SECRET
    # What the chosen action's offline rule read in this message (OfflineSignal.reading), set by the
    # pipeline when the router chose that action; None when a model chose or no rule read it.
    reading: object | None = None

    @property
    def text(self) -> str:
        """The latest user message (the only one that can be a note or a query).

        Open WebUI can wrap the user's words in its retrieval template; the words are what count.
        """
        for message in reversed(self.messages):
            if message.role == "user":
                wrapped = _USER_QUERY.search(message.text)
                return wrapped.group(1).strip() if wrapped else message.text
        return ""

    def attempt_keys(self) -> AttemptKeys:
        """What makes writes of this turn exactly-once per attempt (see `turn_key_for` and
        :mod:`core.attempts`).

        A client message id names the attempt itself. A conversation hash only names the words, so
        a copy counts as the same attempt within `note_retry_window_s` of the first; the same words
        later (a new conversation next week) are a new attempt.
        """
        if self.turn_key.startswith(CLIENT_KEY_PREFIX):
            return AttemptKeys(self.turn_key, None)
        return AttemptKeys(self.turn_key, timedelta(seconds=self.config.note_retry_window_s))

    async def read(self, read: Callable[[Session], T]) -> T:
        """One read on a session of this turn's user.

        On SQLite the read runs on the event loop (``reads_inline``): an indexed, capped read takes
        0.05–2 ms and never waits on a lock in WAL mode, while a worker-thread hop under load costs
        about 1 ms of CPU in GIL hand-offs. Elsewhere (a network round trip) it runs on a thread.
        """

        def run() -> T:
            with self.sessions() as session:
                return read(session)

        if self.config.reads_inline:
            return run()
        return await anyio.to_thread.run_sync(run)

    @property
    def seal(self) -> carry.Seal:
        """Signs and checks the records this user's answers carry (:mod:`core.carry`)."""
        return carry.Seal(self.record_secret, self.user_id)

    @property
    def locale(self) -> Locale:
        """The language answers are rendered in: the latest message's, or the conversation's."""
        return detect_locale(self.text, [h.text for h in self.history if h.role == "user"])

    @property
    def history(self) -> list[HistoryTurn]:
        """A bounded slice of the turns before the latest user message."""
        earlier: list[HistoryTurn] = []
        seen_last_user = False
        for message in reversed(self.messages):
            if message.role not in ("user", "assistant"):
                continue
            if not seen_last_user and message.role == "user":
                seen_last_user = True
                continue
            if seen_last_user:
                # What a person saw: a carried record is for code, not for a model's prompt.
                earlier.append(HistoryTurn(message.role, carry.strip(message.text)[: self.config.history_chars]))
            if len(earlier) >= self.config.history_turns:
                break
        return list(reversed(earlier))


def turn_key_for(user_id: int, messages: Sequence[ChatText], client_message_id: str | None) -> str:
    """Idempotency key of a chat turn.

    A client-provided message id wins. Otherwise a hash of the user and the user/assistant turns up
    to and including the last user message: a retry or regenerate of the same conversation maps to
    the same key, a new turn with the same words does not (its history differs). System messages
    are left out, so a client's pre-request with a different system prompt maps to the same key.
    """
    if client_message_id:
        return CLIENT_KEY_PREFIX + hashlib.sha256(f"{user_id}:{client_message_id}".encode()).hexdigest()[:40]
    convo = [(m.role, m.text) for m in messages if m.role in ("user", "assistant")]
    last_user = max((i for i, (role, _) in enumerate(convo) if role == "user"), default=-1)
    payload = json.dumps([user_id, convo[: last_user + 1]], ensure_ascii=False)
    return "h:" + hashlib.sha256(payload.encode()).hexdigest()[:40]


def new_turn(
    messages: Sequence[ChatText],
    *,
    user_id: int,
    now: datetime,
    tz: str,
    hub: ModelHub,
    sessions: Callable[[], Session],
    config: TurnConfig,
    client_message_id: str | None = None,
    turn_key: str | None = None,
    record_secret: bytes = carry.EPHEMERAL_SECRET,
) -> Turn:
    """The one way a turn is made (HTTP, CLI, explain, tests): ``now`` in the user's zone, a fresh
    trace with the config's budget, and the idempotency key of these messages unless one is given.
    The config's date order applies to every time phrase read in the caller's context from here on."""
    numdate.ORDER.set(config.date_order)
    return Turn(
        user_id=user_id,
        messages=messages,
        now=now.astimezone(ZoneInfo(tz)),
        tz=tz,
        turn_key=turn_key or turn_key_for(user_id, messages, client_message_id),
        hub=hub,
        trace=Trace(budget=config.budget()),
        sessions=sessions,
        config=config,
        record_secret=record_secret,
    )
