"""The task-query graph's state and its dependencies."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from core.countlock import CountLock
from core.locale import Locale
from core.store import TaskFacts, TaskFilter, TaskPage
from core.timeanchor import TimeWindow
from core.turn import Turn
from taskquery.boundary import Grounds, TimeSource
from taskquery.plan import QueryPlan
from taskquery.scope import Scope


@dataclass
class QueryState:
    """What the graph knows so far; each node fills in its part."""

    sentence: str
    now: datetime
    tz: str
    lock: CountLock = field(default_factory=lambda: CountLock(explicit=None, wants_all=False))
    plan: QueryPlan | None = None
    quadrants: list[int] | None = None
    window: TimeWindow | None = None
    time_source: TimeSource | None = None  # where the settled time came from
    grounds: Grounds | None = None  # the user's words and the rules' reading: what proposals are settled against
    overridden: list[str] = field(default_factory=list)  # model values the boundary did not take
    locale: Locale = "zh"
    filter: TaskFilter | None = None
    page: TaskPage | None = None
    offset: int = 0  # tasks already shown by the previous answer ("再来两个")
    words: str = ""  # the user's words the plan rests on (this sentence, and what it continues)
    continued: str | None = None  # a follow-up continued the previous query: "carried" | "prose" | "offer"
    retries: int = 0
    broadened: list[str] = field(default_factory=list)
    empty_window: TimeWindow | None = None  # the window the user said, which had nothing (see broaden)
    dropped_keyword: str | None = None
    scope: Scope | None = None  # the list, label or title keyword the question's scope turned out to be
    prefix: str | None = None
    # The empty path only (nothing matched): counts that explain it, the follow-up offered on its
    # own line, and reflect's verdict for the stage stream (see steps.explain_empty).
    facts: TaskFacts | None = None
    hint: str | None = None
    verdict: str | None = None
    patch_notes: list[str] = field(default_factory=list)

    @property
    def limit_locked(self) -> bool:
        return self.lock.explicit is not None


@dataclass(frozen=True)
class QueryDeps:
    """The graph's only way out: the turn (user, clock, models, trace, database)."""

    turn: Turn
