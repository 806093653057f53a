"""Repeating tasks: a partial index over the series.

Revision ID: 0008_series_index
Revises: 0007_task_recurrence
Create Date: 2026-12-04 20:00:00

A deadline window reads the user's open series due before it (core.store._series_ahead). Through
the deadline index that read visited every open task due before the window and tested its rule
(about 25 ms for a user with 100k tasks and no series at all, measured); this index holds the
series only, so a user without any reads nothing and one with a few reads a few (docs/fdr/0037).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_series_index"
down_revision: str | None = "0007_task_recurrence"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHERE = sa.text("recurrence IS NOT NULL")


def upgrade() -> None:
    op.create_index(
        "ix_tasks_user_series",
        "tasks",
        ["user_id", "is_completed", "deadline_at"],
        sqlite_where=WHERE,
        postgresql_where=WHERE,
    )


def downgrade() -> None:
    op.drop_index("ix_tasks_user_series", table_name="tasks")
