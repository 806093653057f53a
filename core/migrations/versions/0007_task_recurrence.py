"""Repeating tasks: tasks.recurrence.

Revision ID: 0007_task_recurrence
Revises: 0006_change_kinds_as_data
Create Date: 2026-12-03 19:00:00

``tasks.recurrence`` (:mod:`core.recurrence`): a repeating task's rule as two iCalendar lines
(``DTSTART;TZID=…`` and ``RRULE:…``); NULL for a one-off, which every existing task is. The
series' own index came next (0008), once a window read them.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_task_recurrence"
down_revision: str | None = "0006_change_kinds_as_data"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("tasks", sa.Column("recurrence", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("recurrence")
