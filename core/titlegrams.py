"""Title n-gram index: keyword search as an index lookup instead of a scan of the user's titles.

Keyword search is a case-insensitive literal substring match, ``title LIKE '%kw%'`` on SQLite
and ``ILIKE`` (or ``LIKE`` for a keyword without cased characters) on PostgreSQL; see
``core.store._keyword_condition``. No B-tree can seek a substring, and trigram indexes (FTS5
trigram, pg_trgm) can't answer the 1- and 2-character keywords that Chinese titles mostly need.
So ``task_title_grams`` (:class:`core.models.TaskTitleGram`) holds, per task, the distinct
unigrams and bigrams of its normalised title, and a keyword becomes "the task has these grams" —
posting lists read from the primary key ``(user_id, gram, task_id)``. The caller ANDs that
condition with the LIKE/ILIKE it already has, which stays the arbiter: the candidates only need
to be a *superset* of the matches, on every backend.

Normalisation (the same for titles and keywords)
------------------------------------------------
Each character is replaced by the representative (*key*) of its case class; combining marks
(category M*) are dropped; whitespace separates runs, and no gram spans or contains it. Grams
are the distinct keys (unigrams) and the distinct adjacent key pairs within a run (bigrams).

*Case class*: characters connected by Python's single-character ``lower``/``upper``/
``casefold``/``title`` mappings (so K, k and the Kelvin sign K; Σ, σ and final ς), plus the
first character of a multi-character lowercase mapping (İ → i̇, so İ joins i), plus the
language-specific lowercasings of Unicode's SpecialCasing (Lithuanian Ì Í Ĩ → i + marks;
Turkish I → ı is already a class edge). Why that gives a superset on every backend: each
backend's comparison is "lower(kw) is a substring of lower(title)" for some lowercasing —
identity (PostgreSQL ``LIKE``), ASCII only (SQLite ``LIKE``, PostgreSQL ``ILIKE`` in the C
locale), per-character simple mapping (``ILIKE`` in a libc locale such as C.UTF-8), or full,
context-dependent mapping (``ILIKE`` under an ICU collation: İ → i + U+0307, final sigma, the
Turkish and Lithuanian tailorings). Each maps a character to a string whose first non-mark
character has the character's key and whose other characters are marks (or to nothing: the
Turkish dot above after I). So dropping marks and keying turns lower(s) into the same key
sequence as s itself; a substring stays a substring under that map, and every gram of the
keyword's key sequence is a gram of the title's.

What this Python's Unicode database doesn't know: a character it lists as unassigned may be a
cased letter to a newer PostgreSQL/ICU. A title with one gets the marker gram ``""`` and is a
candidate for every keyword; a keyword with one is not looked up (the caller scans). The keys
depend on :data:`unicodedata.unidata_version`: after a Python upgrade that changes case classes,
rebuild the index with :func:`reindex_all`.

Lookup or scan
--------------
A posting list can't stop early, a scan can: the page (``ORDER BY deadline LIMIT n``) walks the
deadline index and stops after n matches, and the count stops at its cap. For a common keyword
the scan is therefore the cheaper plan (reading 10k postings of '报告' costs more than finding
the first 1000 matches), for a rare one the lookup wins by far (0.1 ms instead of 6–13 ms at
100k tasks), and neither planner can tell them apart (SQLite keeps no per-value statistics).
:func:`plan_keyword` decides with one cheap statement, :func:`posting_counts`: the user's
posting counts of the keyword's grams, each capped just above :data:`MAX_POSTINGS`. If the
rarest gram has at most that many postings, every match is among them and the lookup reads at
most that many rows; the plan requires the rarest gram, and the second rarest when it is also
that rare. Otherwise ``None``: scan.

Writes
------
The index is maintained by the application, not by the database: :func:`reindex_task` after a
task is created or its title changes (deletes cascade from ``tasks``), :func:`reindex_all` after
bulk-loading tasks with raw SQL (benchmarks) and in migration ``0003_title_grams``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session
from sqlmodel import col

from core.models import Task
from core.textkeys import _runs, match_key

MARKER = ""  # the gram of titles that hold a character this Python's Unicode database doesn't know
MAX_PROBED_GRAMS = 3  # grams of a keyword whose posting counts are looked at (first, middle, last)
MAX_POSTINGS = 1000  # look up only through a gram this rare for the user; else scan
MAX_PLAN_GRAMS = 2  # grams a lookup requires at most (the LIKE verifies the rest)
REINDEX_BATCH = 2000  # tasks per batch in reindex_all

# Lightweight table clauses, not the model classes: reindex_all runs inside migration 0003, which
# must keep working when the models grow columns later.
_GRAMS = sa.table(
    "task_title_grams",
    sa.column("user_id", sa.Integer),
    sa.column("gram", sa.Text),
    sa.column("task_id", sa.Integer),
)
_TASKS = sa.table("tasks", sa.column("id", sa.Integer), sa.column("user_id", sa.Integer), sa.column("title", sa.Text))
_PG_INSERT = sa.text(
    "INSERT INTO task_title_grams (user_id, gram, task_id) "
    "SELECT * FROM unnest(CAST(:user_ids AS integer[]), CAST(:grams AS text[]), CAST(:task_ids AS integer[]))"
)
_PG_REINDEX = sa.text(
    "WITH lost AS (DELETE FROM task_title_grams"
    " WHERE task_id = :task_id AND NOT (gram = ANY (CAST(:grams AS text[]))))"
    " INSERT INTO task_title_grams (user_id, gram, task_id)"
    " SELECT :user_id, gram, :task_id FROM unnest(CAST(:grams AS text[])) AS gram"
    " ON CONFLICT DO NOTHING"
)
_PG_COPY = "COPY task_title_grams (user_id, gram, task_id) FROM STDIN"
_SQLITE_INSERT = "INSERT INTO task_title_grams (user_id, gram, task_id) VALUES (?, ?, ?)"

# ---------------------------------------------------------------------------------------------
# grams


def _bigrams(runs: list[list[str]]) -> list[str]:
    """Distinct bigrams in order of first occurrence."""
    return list(dict.fromkeys(a + b for run in runs for a, b in itertools.pairwise(run)))


def title_grams(title: str) -> set[str]:
    """The grams indexed for ``title``: distinct unigrams and bigrams of its key sequence, and
    :data:`MARKER` when it holds a character this Python's Unicode database doesn't know."""
    runs, unknown = _runs(title)
    grams = {k for run in runs for k in run}
    grams.update(_bigrams(runs))
    if unknown:
        grams.add(MARKER)
    return grams


def keyword_grams(keyword: str, *, limit: int | None = MAX_PROBED_GRAMS) -> list[str] | None:
    """Grams that every title containing ``keyword`` has: its distinct bigrams, or its unigrams if
    no run has two characters; with ``limit``, at most that many (the first, the last and evenly
    spaced ones between). ``None``: nothing to look up (only whitespace and combining marks, or
    a character this Python's Unicode database doesn't know)."""
    runs, unknown = _runs(keyword)
    if unknown or not runs:
        return None
    grams = _bigrams(runs) or list(dict.fromkeys(k for run in runs for k in run))
    if limit is not None and len(grams) > limit:
        last = len(grams) - 1
        picks = sorted({round(i * last / (limit - 1)) for i in range(limit)}) if limit > 1 else [0]
        grams = [grams[i] for i in picks]
    return grams


# ---------------------------------------------------------------------------------------------
# writes


def _triples(user_id: int, task_id: int, title: str) -> list[tuple[int, str, int]]:
    return [(user_id, g, task_id) for g in sorted(title_grams(title))]


def index_rows(user_id: int, task_id: int, title: str) -> list[dict[str, Any]]:
    """The ``task_title_grams`` rows of one task."""
    return [{"user_id": u, "gram": g, "task_id": t} for u, g, t in _triples(user_id, task_id, title)]


def _insert(conn: sa.Connection, rows: list[tuple[int, str, int]], *, bulk: bool = False) -> None:
    """Insert (user_id, gram, task_id) rows. PostgreSQL: ``COPY`` when ``bulk`` (psycopg), else
    one statement (arrays through ``unnest``); SQLite: the driver's executemany. Each is several
    times faster than Core's executemany for the backfill."""
    if not rows:
        return
    dialect = conn.dialect.name
    if dialect == "postgresql":
        raw = conn.connection.driver_connection
        if bulk and conn.dialect.driver == "psycopg" and raw is not None:
            with raw.cursor() as cursor, cursor.copy(_PG_COPY) as copy:
                for row in rows:
                    copy.write_row(row)
            return
        user_ids, grams, task_ids = (list(column) for column in zip(*rows, strict=True))
        conn.execute(_PG_INSERT, {"user_ids": user_ids, "grams": grams, "task_ids": task_ids})
    elif dialect == "sqlite":
        conn.exec_driver_sql(_SQLITE_INSERT, rows)
    else:  # pragma: no cover - only SQLite and PostgreSQL are supported backends
        conn.execute(sa.insert(_GRAMS), [{"user_id": u, "gram": g, "task_id": t} for u, g, t in rows])


def _connection(conn: sa.Connection | Session) -> sa.Connection:
    return conn.connection() if isinstance(conn, Session) else conn


def reindex_task(conn: sa.Connection | Session, user_id: int, task_id: int, title: str) -> None:
    """Make the task's grams those of ``title``: after it is inserted (flushed: the row must
    exist) or after its title changed. Runs in the caller's transaction; nothing is committed.

    PostgreSQL: one statement (a round trip costs more than the work) that deletes the grams the
    title lost and inserts the ones it gained; SQLite: delete all, insert all."""
    connection = _connection(conn)
    triples = _triples(user_id, task_id, title)
    if connection.dialect.name == "postgresql":
        grams = [g for _u, g, _t in triples]
        connection.execute(_PG_REINDEX, {"user_id": user_id, "task_id": task_id, "grams": grams})
        return
    connection.execute(sa.delete(_GRAMS).where(_GRAMS.c.task_id == task_id))
    _insert(connection, triples)


def reindex_all(conn: sa.Connection, *, batch_size: int = REINDEX_BATCH) -> int:
    """Rebuild the whole index from ``tasks``, reading ``batch_size`` tasks at a time (keyset
    paged by id); returns the number of tasks indexed. Runs in the caller's transaction."""
    conn.execute(sa.delete(_GRAMS))
    done = 0
    last_id: int | None = None
    while True:
        stmt = sa.select(_TASKS.c.id, _TASKS.c.user_id, _TASKS.c.title).order_by(_TASKS.c.id).limit(batch_size)
        if last_id is not None:
            stmt = stmt.where(_TASKS.c.id > last_id)
        tasks = conn.execute(stmt).all()
        if not tasks:
            return done
        _insert(
            conn, [row for task_id, user_id, title in tasks for row in _triples(user_id, task_id, title)], bulk=True
        )
        done += len(tasks)
        last_id = tasks[-1][0]


def refresh_title_keys(conn: sa.Connection, *, batch_size: int = REINDEX_BATCH) -> int:
    """Recompute ``tasks.title_key`` (:func:`match_key`) for every task, ``batch_size`` at a time;
    returns the number of tasks read. For migration 0005 and rows bulk-loaded behind the store's
    back (benchmarks). Runs in the caller's transaction."""
    tasks = sa.table("tasks", sa.column("id", sa.Integer), sa.column("title", sa.Text), sa.column("title_key", sa.Text))
    update = sa.update(tasks).where(tasks.c.id == sa.bindparam("task_id")).values(title_key=sa.bindparam("key"))
    done = 0
    last_id = 0
    while True:
        stmt = sa.select(tasks.c.id, tasks.c.title).where(tasks.c.id > last_id).order_by(tasks.c.id).limit(batch_size)
        rows = conn.execute(stmt).all()
        if not rows:
            return done
        conn.execute(update, [{"task_id": task_id, "key": match_key(title)} for task_id, title in rows])
        done += len(rows)
        last_id = rows[-1][0]


# ---------------------------------------------------------------------------------------------
# lookups

UserId = int | sa.BindParameter[int]


def gram_param(i: int) -> str:
    """The name of the bind parameter that carries a statement's ``i``-th gram."""
    return f"title_gram_{i}"


def gram_values(grams: Sequence[str]) -> dict[str, str]:
    """The bind parameter values that carry ``grams`` (see :func:`gram_param`)."""
    return {gram_param(i): g for i, g in enumerate(grams)}


def _gram(i: int, value: str | None) -> sa.BindParameter[str]:
    # Without a value: a placeholder, so that core.prepared can compile the shape once.
    return sa.bindparam(gram_param(i), "" if value is None else value, type_=sa.Text)


def _postings(user_id: UserId, gram: str | sa.BindParameter[str]) -> sa.Select[Any]:
    return sa.select(_GRAMS.c.task_id).where(_GRAMS.c.user_id == user_id, _GRAMS.c.gram == gram)


def posting_counts(user_id: UserId, n: int, *, grams: Sequence[str] | None = None) -> sa.Select[Any]:
    """One row: the user's number of marked titles and of titles with each of ``n`` grams (bind
    parameters :func:`gram_param`\\ (0..n-1), with the values ``grams`` if given), each counted
    up to ``MAX_POSTINGS + 1``: an index range read of at most that many entries."""

    def capped(gram: str | sa.BindParameter[str]) -> sa.ScalarSelect[Any]:
        rows = _postings(user_id, gram).limit(MAX_POSTINGS + 1).subquery()
        return sa.select(sa.func.count()).select_from(rows).scalar_subquery()

    values = list(grams) if grams is not None else [None] * n
    return sa.select(capped(MARKER), *(capped(_gram(i, values[i])) for i in range(n)))


@dataclass(frozen=True)
class KeywordPlan:
    """How to look a keyword up: the grams to require (rarest first) and whether the user has
    marked titles (which are candidates for every keyword)."""

    grams: tuple[str, ...]
    marked: bool

    @property
    def shape(self) -> tuple[int, bool]:
        """What changes the SQL of :func:`candidates`: the number of grams and ``marked``."""
        return len(self.grams), self.marked

    def values(self) -> dict[str, str]:
        """The gram bind parameters of :func:`candidates`."""
        return gram_values(self.grams)


def choose(grams: Sequence[str], counts: Sequence[int]) -> KeywordPlan | None:
    """The plan for a keyword whose grams are ``grams``, given the first row of
    :func:`posting_counts` (marker first); ``None``: scan."""
    marked, *per_gram = counts
    if marked > MAX_POSTINGS:
        return None
    rare = sorted((n, i) for i, n in enumerate(per_gram) if n <= MAX_POSTINGS)
    if not rare:
        return None
    return KeywordPlan(grams=tuple(grams[i] for _n, i in rare[:MAX_PLAN_GRAMS]), marked=marked > 0)


def plan_keyword(conn: sa.Connection | Session, user_id: int, keyword: str) -> KeywordPlan | None:
    """Whether and how to look ``keyword`` up for ``user_id`` (one statement; see the module
    docstring). ``None``: scan."""
    grams = keyword_grams(keyword)
    if grams is None:
        return None
    counts = _connection(conn).execute(posting_counts(user_id, len(grams), grams=grams)).one()
    return choose(grams, [int(n) for n in counts])


def candidates(
    user_id: UserId, n: int, marked: bool, *, dialect: str, plan: KeywordPlan | None = None
) -> sa.ColumnElement[bool]:
    """``tasks.id`` is among the postings of all ``n`` grams (bind parameters
    :func:`gram_param`\\ (0..n-1), with the plan's values if given) or among the marked titles.

    ``user_id`` is a value or a bind parameter, not a column of the outer query (the subquery
    must not be correlated). AND it with the keyword's LIKE/ILIKE.

    On PostgreSQL the ids are an array, ``tasks.id = ANY (ARRAY(...))``: the planner takes that
    for a handful of primary-key lookups, while for ``tasks.id IN (...)`` it trusts its estimate
    of ``title LIKE '%...%'`` (a few rows) and filters all of the user's tasks instead.
    """
    values = list(plan.grams) if plan is not None else [None] * n
    lists = [_postings(user_id, _gram(i, values[i])) for i in range(n)]
    ids: sa.Select[Any] | sa.CompoundSelect = lists[0]
    if n > 1:
        both = sa.intersect(*lists).subquery()  # a subquery: SQLite can't parenthesise compounds
        ids = sa.select(both.c.task_id)
    if marked:
        ids = sa.union_all(ids, _postings(user_id, MARKER))
    task_id = col(Task.id)
    if dialect == "postgresql":
        return task_id == sa.any_(sa.func.array(ids.scalar_subquery()))
    return task_id.in_(ids)


def keyword_candidates(conn: sa.Connection | Session, user_id: int, keyword: str) -> sa.ColumnElement[bool] | None:
    """:func:`plan_keyword` then :func:`candidates` with its values: the condition to AND with the
    keyword's LIKE/ILIKE, or ``None`` to scan."""
    plan = plan_keyword(conn, user_id, keyword)
    if plan is None:
        return None
    return candidates(user_id, *plan.shape, dialect=_connection(conn).dialect.name, plan=plan)


__all__ = [
    "MARKER",
    "MAX_PLAN_GRAMS",
    "MAX_POSTINGS",
    "MAX_PROBED_GRAMS",
    "KeywordPlan",
    "candidates",
    "choose",
    "gram_param",
    "gram_values",
    "index_rows",
    "keyword_candidates",
    "keyword_grams",
    "match_key",
    "plan_keyword",
    "posting_counts",
    "refresh_title_keys",
    "reindex_all",
    "reindex_task",
    "title_grams",
]
