"""Indexes for query_tasks: quadrant counts, covering completed/created windows, title scans.

Revision ID: 0002_query_indexes
Revises: 0001_initial
Create Date: 2026-03-10 00:00:00

Adds ``ix_tasks_user_state_group`` and ``ix_tasks_user_state_title``, and replaces
``ix_tasks_user_completed_at (user_id, completed_at)`` and ``ix_tasks_user_created_at (user_id,
created_at)`` by versions with ``is_completed`` second (and, for ``completed_at``, the page's
sort key), so that those windows' counts never visit table rows. Why each index exists is
explained in :mod:`core.models`; ``tests/core/test_migrations.py`` checks that the migrated
schema equals the models.

Plain ``CREATE INDEX`` (not ``CONCURRENTLY``): migrations run in one transaction under an
advisory lock, and building these takes seconds even for large task tables.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002_query_indexes"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NEW = {
    "ix_tasks_user_state_group": ["user_id", "is_completed", "priority_group", "urgency_threshold_at"],
    "ix_tasks_user_state_completed_at": ["user_id", "is_completed", "completed_at", "deadline_at", "priority_group"],
    "ix_tasks_user_state_created_at": ["user_id", "is_completed", "created_at"],
    "ix_tasks_user_state_title": ["user_id", "is_completed", "title", "priority_group", "urgency_threshold_at"],
}
_OLD = {
    "ix_tasks_user_completed_at": ["user_id", "completed_at"],
    "ix_tasks_user_created_at": ["user_id", "created_at"],
}


def upgrade() -> None:
    for name, columns in _NEW.items():
        op.create_index(name, "tasks", columns)
    for name in _OLD:
        op.drop_index(name, table_name="tasks")


def downgrade() -> None:
    for name, columns in _OLD.items():
        op.create_index(name, "tasks", columns)
    for name in _NEW:
        op.drop_index(name, table_name="tasks")
