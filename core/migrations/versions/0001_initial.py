"""Initial schema: users, api_keys, tasks.

Revision ID: 0001_initial
Revises:
Create Date: 2025-01-01 00:00:00

Hand-written to match :mod:`core.models` exactly (``tests/core/test_migrations.py`` compares the
migrated schema with the models). Index choices are explained in :mod:`core.models`.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _dt() -> sa.DateTime:
    # core.models.UTCDateTime is a TypeDecorator over exactly this type.
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", _dt(), nullable=False),
        sa.UniqueConstraint("name", name="uq_users_name"),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("prefix", sa.String(length=16), nullable=False),
        sa.Column("created_at", _dt(), nullable=False),
        sa.Column("revoked_at", _dt(), nullable=True),
        sa.UniqueConstraint("key_hash", name="uq_api_keys_key_hash"),
    )
    op.create_index("ix_api_keys_user_id", "api_keys", ["user_id"])
    op.create_table(
        "tasks",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("priority_group", sa.Integer(), nullable=False),
        sa.Column("deadline_at", _dt(), nullable=True),
        sa.Column("urgency_threshold_at", _dt(), nullable=True),
        sa.Column("is_completed", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("completed_at", _dt(), nullable=True),
        sa.Column("created_at", _dt(), nullable=False),
        sa.Column("updated_at", _dt(), nullable=False),
        sa.Column("source_key", sa.String(length=128), nullable=True),
        sa.CheckConstraint("priority_group BETWEEN 1 AND 4", name="ck_tasks_priority_group"),
        sa.UniqueConstraint("user_id", "source_key", name="uq_tasks_user_source_key"),
    )
    op.create_index(
        "ix_tasks_user_open_deadline",
        "tasks",
        ["user_id", "is_completed", "deadline_at", "priority_group", "urgency_threshold_at"],
    )
    op.create_index("ix_tasks_user_completed_at", "tasks", ["user_id", "completed_at"])
    op.create_index("ix_tasks_user_created_at", "tasks", ["user_id", "created_at"])


def downgrade() -> None:
    op.drop_table("tasks")
    op.drop_table("api_keys")
    op.drop_table("users")
