"""Which task a write is about: the one resolver of complete, update and delete.

The words a message names a task by ("交报告", "the dentist task") are matched against all of the
user's tasks, open and done (:mod:`core.matching`'s tiers: exact, contains, similar). The best tier
found in either state decides: one task there → that task; several → the action asks which and
changes nothing. Done tasks count: "把报告标记为完成", said while 交报告 is already done and 写周报告 is
open, names two tasks — it must ask, not silently pick the open one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from sqlmodel import Session, col, select

from core.matching import Tier, find_matches
from core.models import Task, TaskChange

__all__ = ["Resolved", "resolve", "target"]

_RANK: dict[Tier, int] = {"exact": 0, "contains": 1, "similar": 2, "none": 3}


@dataclass(frozen=True)
class Resolved:
    """``one``: ``tasks`` is the task. ``several``: the candidates (open ones first), nothing to
    pick without asking. ``none``: no task matches the words. ``gone``: the task just written no
    longer exists (``title`` says which it was). ``nothing``: no words and no write to point at."""

    kind: Literal["one", "several", "none", "gone", "nothing"]
    tasks: list[Task] = field(default_factory=list)
    tier: Tier = "none"
    title: str = ""

    @property
    def task(self) -> Task:
        assert self.kind == "one"
        return self.tasks[0]


def resolve(session: Session, user_id: int, words: str) -> Resolved:
    """The user's task(s) ``words`` names, open or done (see the module docstring)."""
    open_ = find_matches(session, user_id, words, completed=False)
    # A done task that is only alike can't beat an open one the words contain: no scoring scan then.
    done = find_matches(session, user_id, words, completed=True, similar=open_.tier in ("similar", "none"))
    best = min(_RANK[open_.tier], _RANK[done.tier])
    if best == _RANK["none"]:
        return Resolved("none")
    tier = open_.tier if _RANK[open_.tier] == best else done.tier
    tasks = [t for match in (open_, done) if _RANK[match.tier] == best for t in match.tasks]
    return Resolved("one" if len(tasks) == 1 else "several", tasks, tier)


def _named(title: str, words: str) -> bool:
    return " ".join(words.split()).lower() in " ".join(title.split()).lower()


def target(session: Session, user_id: int, words: str | None, last: Sequence[int] | None) -> Resolved:
    """The task a write is about: one the last write touched (``last``: its change ids, from the
    carried record), the one among them the words name, else what the words name (see above)."""
    rows = []
    if last:
        stmt = select(TaskChange).where(col(TaskChange.user_id) == user_id, col(TaskChange.id).in_(list(last)))
        rows = list(session.exec(stmt.order_by(col(TaskChange.id).desc())))
    if not rows:
        return resolve(session, user_id, words) if words else Resolved("nothing")
    task_ids = list(dict.fromkeys(r.task_id for r in rows if r.task_id is not None))
    found = {
        t.id: t for t in session.exec(select(Task).where(col(Task.user_id) == user_id, col(Task.id).in_(task_ids)))
    }
    tasks = [found[i] for i in task_ids if i in found]
    if words:
        picked = [t for t in tasks if _named(t.title, words)]
        if len(picked) == 1:
            return Resolved("one", picked)
        if not picked:
            return resolve(session, user_id, words)
    if len(tasks) == 1:
        return Resolved("one", tasks)
    if tasks:
        return Resolved("several", tasks)
    after = json.loads(rows[0].after) if len(rows) == 1 else {}
    return Resolved("gone", title=str(after.get("title", "")))
