"""Lists and labels: tasks.list_name/list_key/labels, task_lists, task_labels.

Revision ID: 0013_lists_labels
Revises: 0012_task_estimates
Create Date: 2026-12-06 02:00:00

A task is in at most one list (its name as written and its key, indexed with the open-deadline
columns) and has any labels (a JSON array on the row, indexed by task_labels, written again with
every write to the task). task_lists keeps each user's lists, empty ones included. Nothing existing
is rewritten.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_lists_labels"
down_revision: str | None = "0012_task_estimates"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for name in ("list_name", "list_key", "labels"):
        op.add_column("tasks", sa.Column(name, sa.Text(), nullable=True))
    op.create_index("ix_tasks_user_list", "tasks", ["user_id", "list_key", "is_completed", "deadline_at"])
    op.create_table(
        "task_lists",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("user_id", "key", name="uq_task_lists_user_key"),
    )
    op.create_table(
        "task_labels",
        sa.Column("user_id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("key", sa.Text(), primary_key=True),
        sa.Column(
            "task_id",
            sa.Integer(),
            sa.ForeignKey("tasks.id", ondelete="CASCADE"),
            primary_key=True,
            autoincrement=False,
        ),
        sqlite_with_rowid=False,
    )
    op.create_index("ix_task_labels_task_id", "task_labels", ["task_id"])


def downgrade() -> None:
    op.drop_table("task_labels")
    op.drop_table("task_lists")
    op.drop_index("ix_tasks_user_list", table_name="tasks")
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("labels")
        batch.drop_column("list_key")
        batch.drop_column("list_name")
