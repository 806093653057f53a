"""Exactly-once writes, signed records, one keyword rule: write_attempts, service_secrets, tasks.title_key.

Revision ID: 0005_attempts_secrets_title_key
Revises: 0004_task_changes
Create Date: 2026-12-01 12:00:00

- ``write_attempts`` (:class:`core.models.WriteAttempt`, :mod:`core.attempts`): one row per attempt
  that wrote, unique per ``(user_id, key)``, the arbiter between concurrent copies of one attempt.
  New and empty.
- ``service_secrets`` (:class:`core.models.ServiceSecret`, :mod:`core.service_secrets`): the key that signs
  carried records is made on first use. New and empty.
- ``tasks.title_key`` (:func:`core.titlegrams.match_key`): the folded title keyword search compares
  on every backend. Added with an empty default, then filled for every task in batches (computed in
  Python: the folding is not portable SQL); the title index ``ix_tasks_user_state_title`` is
  replaced by ``ix_tasks_user_state_title_key`` on the new column.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_attempts_secrets_title_key"
down_revision: str | None = "0004_task_changes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INDEX_TAIL = ["priority_group", "urgency_threshold_at"]


def _dt() -> sa.DateTime:
    # core.models.UTCDateTime is a TypeDecorator over exactly this type.
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    from core.titlegrams import refresh_title_keys

    op.create_table(
        "write_attempts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("claimed_at", _dt(), nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
        sa.UniqueConstraint("user_id", "key", name="uq_write_attempts_user_key"),
    )
    op.create_table(
        "service_secrets",
        sa.Column("name", sa.String(length=64), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("created_at", _dt(), nullable=False),
    )
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("title_key", sa.Text(), nullable=False, server_default=""))
    refresh_title_keys(op.get_bind())
    op.drop_index("ix_tasks_user_state_title", table_name="tasks")
    op.create_index("ix_tasks_user_state_title_key", "tasks", ["user_id", "is_completed", "title_key", *_INDEX_TAIL])


def downgrade() -> None:
    op.drop_index("ix_tasks_user_state_title_key", table_name="tasks")
    op.create_index("ix_tasks_user_state_title", "tasks", ["user_id", "is_completed", "title", *_INDEX_TAIL])
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("title_key")
    op.drop_table("service_secrets")
    op.drop_table("write_attempts")
