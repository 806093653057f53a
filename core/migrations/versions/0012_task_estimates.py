"""Estimates: tasks.estimate_minutes.

Revision ID: 0012_task_estimates
Revises: 0011_calendar_links
Create Date: 2026-12-05 23:30:00

How long a task takes, in minutes ("写周报，大概一个小时"); NULL where it was not said. Nothing existing
is rewritten.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_task_estimates"
down_revision: str | None = "0011_calendar_links"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("tasks", sa.Column("estimate_minutes", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("tasks", "estimate_minutes")
