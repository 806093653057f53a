"""The write log of chat turns, for undo: task_changes.

Revision ID: 0004_task_changes
Revises: 0003_title_grams
Create Date: 2026-12-01 00:00:00

Creates ``task_changes`` (:class:`core.models.TaskChange`, written and read by
:mod:`core.changes`): one row per write a chat turn made to a task, with JSON snapshots of the
task before and after. ``task_id`` references ``tasks`` with ``ON DELETE SET NULL`` (undoing a
create deletes the task; its change row stays) and is indexed for that; ``(user_id, id)`` is
indexed for reading a user's changes. A new, empty table: nothing to backfill.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_task_changes"
down_revision: str | None = "0003_title_grams"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "task_changes"


def _dt() -> sa.DateTime:
    # core.models.UTCDateTime is a TypeDecorator over exactly this type.
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("task_id", sa.Integer(), sa.ForeignKey("tasks.id", ondelete="SET NULL"), nullable=True),
        sa.Column("turn_key", sa.String(length=128), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("before", sa.Text(), nullable=True),
        sa.Column("after", sa.Text(), nullable=False),
        sa.Column("created_at", _dt(), nullable=False),
        sa.Column("undone_at", _dt(), nullable=True),
        sa.CheckConstraint("kind IN ('create', 'complete', 'reopen', 'update')", name="ck_task_changes_kind"),
    )
    op.create_index("ix_task_changes_user_id_id", TABLE, ["user_id", "id"])
    op.create_index("ix_task_changes_task_id", TABLE, ["task_id"])


def downgrade() -> None:
    op.drop_index("ix_task_changes_task_id", table_name=TABLE)
    op.drop_index("ix_task_changes_user_id_id", table_name=TABLE)
    op.drop_table(TABLE)
