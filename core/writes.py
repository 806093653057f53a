"""The one write path: every change to a task — from chat, MCP, REST or an import — goes through here.

One :func:`writing` block is one transaction and one attempt::

    with writes.writing(turn.sessions, writes.chat_author(turn)) as w:
        if w.copy:                       # another copy of this attempt wrote already
            return answer_from(w.prior)  # ...answer as it did, write nothing
        task = w.lock(task_id)           # read what to change (a row lock on PostgreSQL)
        w.complete(task, True)           # validate, write, log — in this transaction
    w.change_ids                         # committed: the ids the answer carries

The block claims the attempt first (:mod:`core.attempts`, when the author names one), so copies of
one request write once and read what the first wrote; every write method validates (the task is
the author's; values pass the models' contract), writes through :mod:`core.store`, and logs the
change with the fields it touched (:mod:`core.changes`, kinds in :mod:`core.kinds`). On leaving, a
block that wrote commits (with the attempt's result); one that wrote nothing rolls back, claim
included, so a retry decides afresh; an error rolls everything back. Nothing else writes tasks or
the log: the surfaces (chat actions, MCP tools, REST routes) call this.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from sqlmodel import Session, col, select

from core import attempts, changes, kinds, listnames, lists, outbox, series, store
from core.models import Task, TaskChange, TaskCreate, TaskLabel, TaskListRecord, TaskUpdate
from core.turn import AttemptKeys, Turn

__all__ = ["Author", "Writer", "author", "chat_author", "writing"]

Surface = Literal["chat", "mcp", "rest", "import"]


@dataclass(frozen=True)
class Author:
    """Who writes, when, and which attempt this is (None: each call is an attempt of its own)."""

    user_id: int
    now: datetime
    turn_key: str  # what the log records as the turn: a chat turn's key, or "<surface>:<id>"
    attempt: AttemptKeys | None = None
    # What the attempt's key was given for (a digest of the request): a copy must match it.
    request: str | None = None


def chat_author(turn: Turn) -> Author:
    return Author(turn.user_id, turn.now, turn.turn_key, turn.attempt_keys())


def author(
    user_id: int, now: datetime, surface: Surface, *, attempt: str | None = None, request: str | None = None
) -> Author:
    """An author for a surface that is not a chat turn; ``attempt``: a client's idempotency key,
    ``request``: a digest of the request it was sent with (a copy with another raises KeyReused)."""
    keys = AttemptKeys(attempts.stored_key(f"{surface[:2]}:{attempt}"), None) if attempt else None
    turn_key = f"{surface}:{attempts.stored_key(attempt) if attempt else uuid.uuid4().hex}"
    return Author(user_id, now, turn_key, keys, request if attempt else None)


@dataclass
class Writer:
    """One transaction's writes (see the module docstring). Never used after its block."""

    session: Session
    by: Author
    claim: attempts.Claim | None
    change_ids: list[int] = field(default_factory=list)
    created: list[Task] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)  # more of the result (e.g. an undo's)
    touched_lists: bool = False  # a list made, renamed or deleted (no task's change logs that)

    @property
    def copy(self) -> bool:
        """Another copy of this attempt wrote it: answer from :attr:`prior`, write nothing."""
        return self.claim is not None and not self.claim.owner

    @property
    def prior(self) -> dict[str, Any]:
        return self.claim.result if self.claim is not None else {}

    @property
    def wrote(self) -> bool:
        return bool(self.change_ids) or self.touched_lists

    def _check(self) -> None:
        if self.copy:
            raise RuntimeError("a copy of an attempt that was written must not write again")

    def _log(self, kind: str, task: Task, before: dict[str, Any] | None, after: dict[str, Any] | None = None) -> int:
        by = self.by
        change = changes.record(
            self.session, user_id=by.user_id, turn_key=by.turn_key, kind=kind, task=task, before=before, now=by.now,
            after=after,
        )  # fmt: skip
        self.change_ids.append(change)
        event_type = outbox.CHANGE_EVENTS.get(kind)
        if event_type is not None:  # the outbox row, in this write's transaction
            data: dict[str, Any] = {"task": outbox.task_json(task, now=by.now), "change_id": change}
            if after is not None and "series" in after:
                data["series_id"] = after["series"]
            outbox.emit(self.session, by.user_id, event_type, data, now=by.now)
        return change

    # --- reads for a write --------------------------------------------------------------------

    def lock(self, task_id: int) -> Task | None:
        """The author's task ``task_id``, locked for this transaction; None for another's or none."""
        return changes.locked_task(self.session, self.by.user_id, task_id)

    # --- writes -------------------------------------------------------------------------------

    def create(self, data: TaskCreate, *, part: int | None = None) -> Task:
        """A new task, keyed by this attempt (and its ``part`` of several): a copy finds it."""
        self._check()
        key = self.claim.write_key(part) if self.claim is not None else None
        task, created = store.create_task(self.session, self.by.user_id, data, now=self.by.now, source_key=key)
        if created:
            self._log("create", task, None)
            self.created.append(task)
        return task

    def bring(self, data: TaskCreate, key: str, *, done_at: datetime | None = None) -> Task | None:
        """A task brought from a file (an import), keyed by its row: the same row brought again creates
        nothing (None). ``done_at``: it arrives completed, at that moment."""
        self._check()
        task, created = store.create_task(self.session, self.by.user_id, data, now=self.by.now, source_key=key)
        if not created:
            return None
        if done_at is not None:
            store.apply_completion(self.session, task, True, now=done_at)
            task.updated_at = self.by.now
        self._log("create", task, None)
        self.created.append(task)
        return task

    def update(self, task: Task, data: TaskUpdate) -> int | None:
        """Sets the fields given in ``data``; the change id, or None when nothing changed.

        Setting ``is_completed`` on an open repeating task completes its occurrence, as
        :meth:`complete` does (the other fields are set first): one way to finish, whatever the surface."""
        self._check()
        self._own(task)
        assert task.id is not None
        fields = data.model_dump(exclude_unset=True)
        if fields.get("is_completed") is True and not task.is_completed and series.rule_of(task) is not None:
            rest = {k: v for k, v in fields.items() if k != "is_completed"}
            first = self.update(task, TaskUpdate.model_validate(rest)) if rest else None
            return self.complete(task, True) or first
        before = changes.snapshot(task)
        store.apply_update(self.session, task, data, now=self.by.now)
        if changes.snapshot(task) == before:
            return None
        kind = "update"
        if set(changes.touched(before, changes.snapshot(task))) == {"is_completed", "completed_at"}:
            kind = "complete" if task.is_completed else "reopen"
        return self._log(kind, task, before)

    def complete(self, task: Task, completed: bool = True) -> int | None:
        """Marks the task done (or not done); None when it already was.

        A repeating task's occurrence is completed instead (:meth:`advance`): a completed copy of it
        stays, the series moves on; the last occurrence completes the task itself."""
        self._check()
        self._own(task)
        assert task.id is not None
        if bool(task.is_completed) == completed:
            return None
        if completed and (step := series.next_step(task, now=self.by.now)) and step.deadline_at is not None:
            return self.advance(task, step, done=True)
        before = changes.snapshot(task)
        store.apply_completion(self.session, task, completed, now=self.by.now)
        return self._log("complete" if completed else "reopen", task, before)

    def advance(self, task: Task, step: series.Step, *, done: bool) -> int | None:
        """Moves a series to ``step`` (see :mod:`core.series`); with ``done``, the occurrence it
        leaves is kept as a completed task of its own (logged as an ``occurrence``, which undo
        deletes). The change id of the move."""
        self._check()
        self._own(task)
        if done:
            occurrence = TaskCreate(
                title=task.title, priority_group=task.priority_group, deadline_at=task.deadline_at or self.by.now
            )
            key = self.claim.write_key(f"o{task.id}") if self.claim is not None else None
            copy, created = store.create_task(
                self.session, self.by.user_id, occurrence, now=self.by.now, source_key=key
            )
            if created:
                store.apply_completion(self.session, copy, True, now=self.by.now)
                self._log("occurrence", copy, None, {**changes.snapshot(copy), "series": task.id})
        moved = TaskUpdate(
            deadline_at=step.deadline_at, urgency_threshold_at=step.urgency_threshold_at, recurrence=step.rule
        )
        return self.update(task, moved)

    def delete(self, tasks: Sequence[Task]) -> list[int]:
        """Deletes the tasks, each logged whole (its row and the changes that name it), so undo puts
        it back exactly. Lists and counts never see a deleted task: it is gone from ``tasks``."""
        self._check()
        ids: list[int] = []
        for task in tasks:
            self._own(task)
            history = select(TaskChange.id).where(col(TaskChange.user_id) == self.by.user_id)
            links = list(self.session.exec(history.where(col(TaskChange.task_id) == task.id)))
            after = {**changes.snapshot(task), "links": [int(i) for i in links if i is not None]}
            ids.append(self._log("delete", task, kinds.row_of(task), after))
            self.session.delete(task)
            self.session.flush()
        return ids

    # --- lists and labels: a task's part of each is one of its fields, logged as an update ---------

    def make_list(self, name: str) -> TaskListRecord:
        """The author's list called ``name``, made if new."""
        self._check()
        found = lists.find_list(self.session, self.by.user_id, name)
        if found is not None:
            return found
        self.touched_lists = True
        return lists.ensure_list(self.session, self.by.user_id, name, now=self.by.now)

    def rename_list(self, record: TaskListRecord, name: str) -> int:
        """Renames the author's list and moves its tasks to the new name (each logged); the name
        must not be another list's (the surfaces check and say so). How many tasks it holds."""
        self._check()
        if record.user_id != self.by.user_id:
            raise ValueError("a write takes the author's own list")
        other = lists.find_list(self.session, self.by.user_id, name)
        if other is not None and other.id != record.id:
            raise ValueError(f"another list is called {name!r}")
        old_key, self.touched_lists = record.key, True
        record.name, record.key = name, listnames.key(name)
        self.session.add(record)
        self.session.flush()
        held = self._tasks_where(col(Task.list_key) == old_key)
        for task in held:
            self.update(task, TaskUpdate(list_name=name))
        self.report["list"] = name
        return len(held)

    def delete_list(self, record: TaskListRecord) -> int:
        """Deletes the author's list; its tasks stay, in no list (each logged, so undo puts them
        back, which makes the list again). How many tasks it held."""
        self._check()
        if record.user_id != self.by.user_id:
            raise ValueError("a write takes the author's own list")
        held = self._tasks_where(col(Task.list_key) == record.key)
        self.touched_lists = True
        self.session.delete(record)
        self.session.flush()
        for task in held:
            self.update(task, TaskUpdate(list_name=None))
        self.report["deleted_list"] = record.name
        return len(held)

    def relabel(self, label: str, name: str | None) -> int:
        """Renames the author's label on every task that has it (None: takes it off); how many."""
        self._check()
        key = listnames.key(label)
        tagged = select(TaskLabel.task_id).where(col(TaskLabel.user_id) == self.by.user_id, col(TaskLabel.key) == key)
        held = self._tasks_where(col(Task.id).in_(tagged))
        for task in held:
            names = [n for n in listnames.label_list(task.labels) if listnames.key(n) != key]
            if name is not None:
                at = [listnames.key(n) for n in listnames.label_list(task.labels)].index(key)
                names.insert(min(at, len(names)), name)
            self.update(task, TaskUpdate(labels=listnames.clean_labels(names)))
        return len(held)

    def _tasks_where(self, condition: Any) -> list[Task]:
        stmt = select(Task).where(col(Task.user_id) == self.by.user_id, condition).order_by(col(Task.id))
        return list(self.session.exec(stmt.with_for_update()).all())

    def revert(self, change_ids: Sequence[int]) -> changes.Undone:
        """Undoes the author's changes ``change_ids`` (each by its own kind's inverse)."""
        self._check()
        undone = changes.undo(self.session, user_id=self.by.user_id, change_ids=change_ids, now=self.by.now)
        if undone.changes and not undone.already:
            self.change_ids.extend(c.id for c in undone.changes)
            self.report.update(undone.as_dict())
        return undone

    def _own(self, task: Task) -> None:
        if task.user_id != self.by.user_id or task not in self.session:
            raise ValueError("a write takes the author's own task, read in this transaction")

    def result(self) -> dict[str, Any]:
        request = {"request": self.by.request} if self.by.request is not None else {}
        return {"changes": self.change_ids, "tasks": [t.id for t in self.created], **request, **self.report}


@contextmanager
def writing(sessions: Callable[[], Session], by: Author) -> Iterator[Writer]:
    """One transaction and one attempt of writes (see the module docstring)."""
    with sessions() as session:
        claim = attempts.claim(session, user_id=by.user_id, keys=by.attempt, now=by.now) if by.attempt else None
        writer = Writer(session, by, claim)
        if writer.copy:
            session.rollback()  # nothing of ours to keep; reads after this see the committed state
            if by.request is not None and writer.prior.get("request", by.request) != by.request:
                raise attempts.KeyReused(by.attempt.key if by.attempt else "")
            yield writer
            return
        try:
            yield writer
        except BaseException:
            session.rollback()
            raise
        if not writer.wrote:
            # Nothing written: no attempt to remember (the claim goes too). The tasks read stay
            # readable as read (a rollback would expire them).
            session.expunge_all()
            session.rollback()
            return
        if claim is not None:
            result = writer.result()
            if "undone" in result:  # an undo's result: its report; a change it reverted is no live write
                result = {k: v for k, v in result.items() if k != "changes"}
            attempts.finish(session, claim, result)
        session.commit()


def task_ids_of(session: Session, user_id: int, change_ids: Sequence[int]) -> list[int]:
    """The tasks the user's changes name (in change order), e.g. what the last write touched."""
    rows = session.exec(
        select(TaskChange.id, TaskChange.task_id).where(
            col(TaskChange.user_id) == user_id, col(TaskChange.id).in_(list(change_ids))
        )
    ).all()
    by_id = {cid: tid for cid, tid in rows}
    return list(dict.fromkeys(by_id[c] for c in change_ids if by_id.get(c) is not None))  # type: ignore[misc]
