"""core.titlegrams: gram extraction, the index's writes, the lookup plan, migration 0003, and the
property that matters — (candidates AND the keyword's LIKE/ILIKE) finds exactly what the LIKE/ILIKE
alone finds, on SQLite and PostgreSQL (also under ICU collations there)."""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from sqlmodel import Session, col

from core import titlegrams as tg
from core.db import current_revision, migrate
from core.models import Task, User
from core.prepared import fetch, prepare

NOW = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
UNASSIGNED = "\u0378"  # a gap in the Greek block: unassigned in every Unicode version so far
KELVIN = "\u212a"

# ---------------------------------------------------------------------------------------------
# the scan condition: today's core.store._keyword_condition, copied (the store is being rewritten
# around bind parameters; the SQL it produces is the same)


def _caseless(text: str) -> bool:
    return all(c.lower() == c == c.upper() and not unicodedata.combining(c) for c in text)


def scan_condition(keyword: str, dialect: str, collation: str | None = None) -> sa.ColumnElement[bool]:
    escaped = keyword.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    title: Any = col(Task.title) if collation is None else sa.collate(col(Task.title), collation)
    if dialect == "postgresql" and not _caseless(keyword):
        return title.ilike(pattern, escape="\\")
    return title.like(pattern, escape="\\")


# ---------------------------------------------------------------------------------------------
# grams


def test_grams_of_a_title() -> None:
    assert tg.title_grams("报告 开会 #12") == {"报", "告", "报告", "开", "会", "开会", "#", "1", "2", "#1", "12"}
    assert tg.title_grams("") == set()
    assert tg.title_grams("  \t\u3000 ") == set()


def test_case_classes_fold_together() -> None:
    assert tg.title_grams("ReView") == tg.title_grams("review") == tg.title_grams("REVIEW")
    assert tg.title_grams(f"{KELVIN}m") == tg.title_grams("km") == tg.title_grams("KM")
    assert tg.title_grams("İx") == tg.title_grams("ix") == tg.title_grams("Ix") == tg.title_grams("ıx")
    assert tg.title_grams("ΑΣ") == tg.title_grams("ασ") == tg.title_grams("ας")
    assert tg.title_grams("ẞ") == tg.title_grams("ß")
    assert tg.title_grams("Ì") == tg.title_grams("i")  # Lithuanian lowercases Ì to i + marks
    assert tg.title_grams("ÉCOLE") == tg.title_grams("école")
    assert tg.title_grams("école") != tg.title_grams("ecole")


def test_marks_dropped_whitespace_splits() -> None:
    assert tg.title_grams("e\u0301x") == tg.title_grams("ex")
    assert tg.title_grams("I\u0307x") == tg.title_grams("ix")
    assert not any(c.isspace() for g in tg.title_grams("a b\tc\u3000d  e") for c in g)
    assert tg.title_grams("ab cd") == {"a", "b", "c", "d", "ab", "cd"}
    assert "%_" in tg.title_grams("50%_\\")


def test_unknown_characters_mark_the_title() -> None:
    assert unicodedata.category(UNASSIGNED) == "Cn"
    assert tg.MARKER in tg.title_grams(f"报告{UNASSIGNED}")
    assert tg.MARKER not in tg.title_grams("报告 😀")
    assert tg.keyword_grams(f"报{UNASSIGNED}") is None


def test_keyword_grams() -> None:
    assert tg.keyword_grams("报") == ["报"]
    assert tg.keyword_grams("报告") == ["报告"]
    assert tg.keyword_grams("DePloy", limit=None) == ["de", "ep", "pl", "lo", "oy"]
    assert tg.keyword_grams("deploy") == ["de", "pl", "oy"]  # first, middle, last
    assert tg.keyword_grams("a b") == ["a", "b"]  # no run has two characters: its unigrams
    assert tg.keyword_grams("周报 开会 x") == ["周报", "开会"]
    assert tg.keyword_grams("\u0301") is None
    assert tg.keyword_grams(" ") is None


def test_no_case_mappings_beyond_the_table() -> None:
    """The case table covers the first 0x20000 code points; nothing above has a case mapping."""
    for cp in range(0x20000, 0x110000):
        c = chr(cp)
        assert c.lower() == c.upper() == c.casefold() == c.title() == c, hex(cp)


# Backends' case folds, in Python: the keyword matches iff fold(kw) is a substring of fold(title).
def _ascii_lower(s: str) -> str:
    return "".join(c.lower() if c.isascii() else c for c in s)


def _simple_lower(s: str) -> str:  # per character (libc towlower)
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in s)


def _turkish_lower(s: str) -> str:
    return s.replace("I\u0307", "i").replace("İ", "i").replace("I", "ı").lower()


def _lithuanian_lower(s: str) -> str:
    for upper, lower in (("Ì", "i\u0307\u0300"), ("Í", "i\u0307\u0301"), ("Ĩ", "i\u0307\u0303")):
        s = s.replace(upper, lower)
    return s.lower()


FOLDS: list[Callable[[str], str]] = [
    lambda s: s,  # PostgreSQL LIKE
    _ascii_lower,  # SQLite LIKE, ILIKE in the C locale
    _simple_lower,  # ILIKE, libc
    str.lower,  # ILIKE, ICU: full mapping, final sigma, İ -> i + U+0307
    _turkish_lower,
    _lithuanian_lower,
]
ALPHABET = "报告周会议aAbBiIkKsS01%_\\ İıßẞΣσςÌ\u0307\u0301" + KELVIN + UNASSIGNED
titles = st.text(alphabet=ALPHABET, max_size=12)


@st.composite
def title_and_keyword(draw: st.DrawFn) -> tuple[str, str]:
    title = draw(titles)
    if title and draw(st.booleans()):
        start = draw(st.integers(0, len(title) - 1))
        end = draw(st.integers(start + 1, len(title)))
        flips = draw(st.lists(st.booleans(), min_size=end - start, max_size=end - start))
        keyword = "".join(c.swapcase() if f else c for c, f in zip(title[start:end], flips, strict=True))
    else:
        keyword = draw(st.text(alphabet=ALPHABET, min_size=1, max_size=4))
    return title, keyword


@settings(max_examples=3000, deadline=None, derandomize=True, database=None)
@given(title_and_keyword())
def test_keyword_grams_are_title_grams_under_every_fold(case: tuple[str, str]) -> None:
    title, keyword = case
    needed = tg.keyword_grams(keyword, limit=None)
    if needed is None:
        return
    have = tg.title_grams(title)
    for fold in FOLDS:
        if fold(keyword) in fold(title):
            assert tg.MARKER in have or set(needed) <= have, (fold, title, keyword)


def test_choose() -> None:
    rare, common = tg.MAX_POSTINGS, tg.MAX_POSTINGS + 1
    assert tg.choose(["ab"], [0, rare]) == tg.KeywordPlan(grams=("ab",), marked=False)
    assert tg.choose(["ab"], [0, common]) is None
    assert tg.choose(["ab", "bc", "cd"], [2, common, 7, 3]) == tg.KeywordPlan(grams=("cd", "bc"), marked=True)
    assert tg.choose(["ab"], [common, 1]) is None
    assert tg.KeywordPlan(grams=("cd", "bc"), marked=True).values() == {"title_gram_0": "cd", "title_gram_1": "bc"}


# ---------------------------------------------------------------------------------------------
# on the databases

_users = itertools.count()


def _user(session: Session) -> int:
    stmt = sa.insert(User).values(name=f"u{next(_users)}", created_at=NOW).returning(col(User.id))
    return int(session.execute(stmt).scalar_one())


def _add(session: Session, user_id: int, title: str, *, index: bool = True) -> int:
    values = {"user_id": user_id, "title": title, "priority_group": 2, "created_at": NOW, "updated_at": NOW}
    task_id = int(session.execute(sa.insert(Task).values(**values).returning(col(Task.id))).scalar_one())
    if index:
        tg.reindex_task(session, user_id, task_id, title)
    return task_id


def _ids(session: Session, user_id: int, *conds: sa.ColumnElement[bool]) -> set[int]:
    return set(session.execute(sa.select(col(Task.id)).where(col(Task.user_id) == user_id, *conds)).scalars())


def _stored(session: Session, task_id: int | None = None) -> set[tuple[int, str, int]]:
    g = tg._GRAMS
    stmt = sa.select(g.c.user_id, g.c.gram, g.c.task_id)
    if task_id is not None:
        stmt = stmt.where(g.c.task_id == task_id)
    return {(int(u), str(gram), int(t)) for u, gram, t in session.execute(stmt)}


def _rows(user_id: int, task_id: int, title: str) -> set[tuple[int, str, int]]:
    return {(r["user_id"], r["gram"], r["task_id"]) for r in tg.index_rows(user_id, task_id, title)}


def _collations(session: Session) -> list[str | None]:
    """PostgreSQL: the database's own (e.g. libc C.UTF-8), ASCII-only C, and ICU's full mappings
    (root, Turkish, Lithuanian) where the server has ICU."""
    if session.get_bind().dialect.name != "postgresql":
        return [None]
    icu = ["und-x-icu", "tr-x-icu", "lt-x-icu"]
    found = set(
        session.execute(sa.text("SELECT collname FROM pg_collation WHERE collname = ANY(:n)"), {"n": icu}).scalars()
    )
    return [None, "C", *(c for c in icu if c in found)]


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=st.data(),
    task_titles=st.lists(titles.filter(lambda t: t.strip() != ""), min_size=1, max_size=8),
)
def test_candidates_and_like_equal_like(session: Session, data: st.DataObject, task_titles: list[str]) -> None:
    dialect = session.get_bind().dialect.name
    collations = _collations(session)
    uid = _user(session)
    other = _user(session)
    for title in task_titles:
        _add(session, uid, title)
        _add(session, other, title)  # same titles for another user: never candidates for uid
    keywords = data.draw(
        st.lists(st.one_of(st.sampled_from(task_titles).flatmap(_substring), st.text(ALPHABET, min_size=1)), max_size=6)
    )
    for keyword in (k.strip() for k in keywords):
        if not keyword:
            continue
        grams = tg.keyword_grams(keyword, limit=None)
        conditions = [tg.keyword_candidates(session, uid, keyword)]
        if grams is not None:  # every gram, and the marker whether or not the user has marked titles
            full = tg.KeywordPlan(grams=tuple(grams), marked=True)
            conditions.append(tg.candidates(uid, *full.shape, dialect=dialect, plan=full))
        for collation in collations:
            scan = scan_condition(keyword, dialect, collation)
            expected = _ids(session, uid, scan)
            for cand in conditions:
                if cand is not None:
                    assert _ids(session, uid, cand, scan) == expected, (collation, keyword, task_titles)
    session.rollback()


def _substring(title: str) -> st.SearchStrategy[str]:
    return st.tuples(st.integers(0, len(title)), st.integers(0, len(title)), st.booleans()).map(
        lambda t: (title[min(t[0], t[1]) : max(t[0], t[1]) + 1]).swapcase() if t[2] else title[t[0] : t[1] + 1]
    )


def test_lookup_and_scan_agree_on_ordinary_titles(session: Session) -> None:
    dialect = session.get_bind().dialect.name
    uid = _user(session)
    titles = ["交季度报告", "周报 review", "Deploy v2", "买菜 ¥50", "100%_done", "İstanbul trip", "ΟΔΟΣ"]
    for title in titles:
        _add(session, uid, title)
    for keyword in ["报告", "报", "review", "REVIEW", "deploy", "%_", "50", "istanbul", "οδος", "ς", "x"]:
        plan = tg.plan_keyword(session, uid, keyword)
        assert plan is not None, keyword  # every gram here is rare
        cand = tg.keyword_candidates(session, uid, keyword)
        assert cand is not None
        scan = scan_condition(keyword, dialect)
        assert _ids(session, uid, cand, scan) == _ids(session, uid, scan), keyword


def test_common_grams_mean_scan(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tg, "MAX_POSTINGS", 2)
    uid = _user(session)
    for title in ["报告一", "报告二", "报告三", "周会"]:
        _add(session, uid, title)
    assert tg.plan_keyword(session, uid, "报告") is None  # 3 postings > 2
    assert tg.keyword_candidates(session, uid, "报告") is None
    assert tg.plan_keyword(session, uid, "告三") == tg.KeywordPlan(grams=("告三",), marked=False)
    assert tg.plan_keyword(session, uid, "报告三") == tg.KeywordPlan(grams=("告三",), marked=False)
    assert tg.plan_keyword(session, uid, "会") == tg.KeywordPlan(grams=("会",), marked=False)
    _add(session, uid, f"x{UNASSIGNED}")
    assert tg.plan_keyword(session, uid, "会") == tg.KeywordPlan(grams=("会",), marked=True)
    _add(session, uid, f"y{UNASSIGNED}")
    _add(session, uid, f"z{UNASSIGNED}")
    assert tg.plan_keyword(session, uid, "会") is None  # too many marked titles: the index can't help


@pytest.mark.parametrize("marked", [False, True])
def test_shapes_with_bind_parameters(session: Session, marked: bool) -> None:
    """The statements compile once per shape (as core.store does, with core.prepared); the values
    come as bind parameters."""
    dialect = session.get_bind().dialect
    uid = _user(session)
    wanted = {_add(session, uid, "牙医 复诊")}
    _add(session, uid, "牙刷")
    if marked:
        wanted.add(_add(session, uid, f"牙医{UNASSIGNED}"))
    user = sa.bindparam("user_id", 0, type_=sa.Integer)
    grams = ["牙医", "复诊"]
    conn = session.connection()
    probe = prepare(tg.posting_counts(user, len(grams)), dialect)
    counts = [int(n) for n in fetch(conn, probe, {"user_id": uid, **tg.gram_values(grams)})[0]]
    assert counts == ([1, 2, 1] if marked else [0, 1, 1])
    plan = tg.choose(grams, counts)
    assert plan == tg.KeywordPlan(grams=("复诊", "牙医") if marked else ("牙医", "复诊"), marked=marked)  # rarest first
    cond = tg.candidates(user, *plan.shape, dialect=dialect.name)
    stmt = prepare(sa.select(col(Task.id)).where(col(Task.user_id) == user, cond), dialect)
    assert {r[0] for r in fetch(conn, stmt, {"user_id": uid, **plan.values()})} == wanted
    assert (
        set(session.execute(sa.select(col(Task.id)).where(cond), {"user_id": uid, **plan.values()}).scalars()) == wanted
    )


def test_reindex_task_replaces_and_deletes_cascade(session: Session) -> None:
    uid = _user(session)
    task_id = _add(session, uid, "报告 Review")
    assert _stored(session, task_id) == _rows(uid, task_id, "报告 Review")
    for title in ("报告 周会", "报告 周会"):  # some grams kept, some lost, some gained; then none
        session.execute(sa.update(Task).where(col(Task.id) == task_id).values(title=title))
        tg.reindex_task(session, uid, task_id, title)
        assert _stored(session, task_id) == _rows(uid, task_id, title)
    session.execute(sa.update(Task).where(col(Task.id) == task_id).values(title="体检"))
    tg.reindex_task(session, uid, task_id, "体检")
    assert (
        _stored(session, task_id)
        == _rows(uid, task_id, "体检")
        == {(uid, "体", task_id), (uid, "检", task_id), (uid, "体检", task_id)}
    )
    session.commit()

    session.execute(sa.delete(Task).where(col(Task.id) == task_id))
    session.commit()
    assert _stored(session, task_id) == set()

    kept = _add(session, uid, "周会")
    session.commit()
    session.execute(sa.delete(User).where(col(User.id) == uid))
    session.commit()
    assert _stored(session, kept) == set()


def test_reindex_all_rebuilds_everything(session: Session) -> None:
    alice, bob = _user(session), _user(session)
    tasks = {
        _add(session, alice, "交报告", index=False): (alice, "交报告"),
        _add(session, alice, "Deploy", index=False): (alice, "Deploy"),
        _add(session, bob, "买菜", index=False): (bob, "买菜"),
    }
    stale = _add(session, bob, "旧标题")
    session.execute(sa.update(Task).where(col(Task.id) == stale).values(title="新标题"))
    tasks[stale] = (bob, "新标题")
    connection = session.connection()
    assert tg.reindex_all(connection, batch_size=2) == 4
    assert _stored(session) == set().union(*(_rows(u, t, title) for t, (u, title) in tasks.items()))


# ---------------------------------------------------------------------------------------------
# migration 0003


def _downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    from core.db import alembic_config, lock_for_migration

    with engine.begin() as conn:
        lock_for_migration(conn)
        command.downgrade(alembic_config(conn), revision)


def test_0003_backfills_a_deployed_0002_database(engine_factory: Callable[[], Engine]) -> None:
    engine = engine_factory()
    migrate(engine, "0002_query_indexes")
    titles = ["交报告", "Deploy v2 #7", "İstanbul", "ΟΔΟΣ", f"x{UNASSIGNED}"]
    with engine.begin() as conn:
        uid = conn.execute(
            sa.text("INSERT INTO users (name, created_at) VALUES ('alice', :t) RETURNING id"), {"t": NOW}
        ).scalar_one()
        for title in titles:
            conn.execute(
                sa.text(
                    "INSERT INTO tasks (user_id, title, priority_group, is_completed, created_at, updated_at) "
                    "VALUES (:u, :title, 2, false, :t, :t)"
                ),
                {"u": uid, "title": title, "t": NOW},
            )
    migrate(engine, "0003_title_grams")
    assert current_revision(engine) == "0003_title_grams"
    with Session(engine) as session:
        tasks = session.execute(sa.select(col(Task.id), col(Task.title))).all()
        assert len(tasks) == len(titles)
        assert _stored(session) == set().union(*(_rows(uid, t, title) for t, title in tasks))
        assert tg.MARKER in {g for _u, g, _t in _stored(session)}

    _downgrade(engine, "0002_query_indexes")
    assert current_revision(engine) == "0002_query_indexes"
    assert "task_title_grams" not in sa.inspect(engine).get_table_names()

    migrate(engine)
    with Session(engine) as session:
        assert len(_stored(session)) == sum(len(tg.title_grams(t)) for t in titles)
