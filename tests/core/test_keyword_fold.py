"""A keyword finds the same tasks on SQLite and PostgreSQL (tasks.title_key, core.titlegrams.match_key).

SQLite's LIKE folds only ASCII and PostgreSQL's ILIKE follows the collation, so "istanbul" used to
find "İstanbul" on one backend only; now both compare the same folded key, computed in Python.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlmodel import Session

from core.accounts import ensure_user
from core.models import TaskCreate, TaskUpdate
from core.store import TaskFilter, create_task, query_tasks, update_task

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
TITLES = ["İstanbul trip", "ÄRZTE anrufen", "Σύσκεψη ομάδας", "café au lait", "交季度报告", "Straße fegen"]


@pytest.fixture
def alice(session: Session) -> int:
    user = ensure_user(session, "alice", now=NOW)
    for title in TITLES:
        create_task(session, user.id or 0, TaskCreate(title=title), now=NOW)
    session.commit()
    return user.id or 0


def found(session: Session, user_id: int, keyword: str) -> list[str]:
    page = query_tasks(session, user_id, TaskFilter(keyword=keyword, limit=20), now=NOW)
    return sorted(row.title for row in page.items)


@pytest.mark.parametrize(
    ("keyword", "titles"),
    [
        ("istanbul", ["İstanbul trip"]),
        ("İSTANBUL", ["İstanbul trip"]),
        ("ärzte", ["ÄRZTE anrufen"]),
        ("σύσκεψη", ["Σύσκεψη ομάδας"]),
        ("ΣΎΣΚΕΨΗ", ["Σύσκεψη ομάδας"]),
        ("CAFÉ", ["café au lait"]),
        ("季度", ["交季度报告"]),
        ("STRASSE", []),  # no full case folding (ß stays ß), the same on both backends
        ("100%", []),  # LIKE's wildcards are literal
    ],
)
def test_the_same_matches_on_every_backend(session: Session, alice: int, keyword: str, titles: list[str]) -> None:
    assert found(session, alice, keyword) == titles


def test_a_renamed_task_is_found_by_its_new_title(session: Session, alice: int) -> None:
    [row] = query_tasks(session, alice, TaskFilter(keyword="istanbul"), now=NOW).items
    update_task(session, alice, row.id, TaskUpdate(title="Ankara trip"), now=NOW)
    session.commit()
    assert found(session, alice, "istanbul") == []
    assert found(session, alice, "ANKARA") == ["Ankara trip"]
