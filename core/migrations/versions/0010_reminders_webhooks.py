"""Reminders and webhooks: task_reminders, webhooks, events (the outbox) and deliveries.

Revision ID: 0010_reminders_webhooks
Revises: 0009_task_occurrences
Create Date: 2026-12-05 06:00:00

A reminder fires from ``task_reminders.next_at`` (kept by core.reminders with every write to its
task); a write or a firing adds an ``events`` row and one ``deliveries`` row per webhook that takes
it, in the same transaction (a transactional outbox); workers claim due deliveries with a lease
(docs/fdr/0038). Nothing existing is rewritten: every table starts empty.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_reminders_webhooks"
down_revision: str | None = "0009_task_occurrences"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _dt() -> sa.DateTime:
    # core.models.UTCDateTime is a TypeDecorator over exactly this type.
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("tasks", sa.Column("reminders", sa.Text(), nullable=True))
    op.create_table(
        "task_reminders",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("task_id", sa.Integer(), sa.ForeignKey("tasks.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("before_s", sa.Integer(), nullable=True),
        sa.Column("at", _dt(), nullable=True),
        sa.Column("next_at", _dt(), nullable=True),
        sa.Column("fired_for", _dt(), nullable=True),
        sa.Column("created_at", _dt(), nullable=False),
    )
    op.create_index("ix_task_reminders_task_id", "task_reminders", ["task_id"])
    op.create_index("ix_task_reminders_next_at", "task_reminders", ["next_at"])
    op.create_table(
        "webhooks",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("events", sa.Text(), nullable=False),
        sa.Column("secret", sa.Text(), nullable=True),
        sa.Column("locale", sa.String(length=8), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("created_at", _dt(), nullable=False),
    )
    op.create_index("ix_webhooks_user_id", "webhooks", ["user_id"])
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("created_at", _dt(), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
    )
    op.create_index("ix_events_user_id_id", "events", ["user_id", "id"])
    op.create_table(
        "deliveries",
        sa.Column("id", sa.String(length=40), primary_key=True),
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id", ondelete="CASCADE"), nullable=False),
        sa.Column("webhook_id", sa.Integer(), sa.ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", _dt(), nullable=True),
        sa.Column("lease_until", _dt(), nullable=True),
        sa.Column("lease_token", sa.String(length=40), nullable=True),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("late", sa.Boolean(), nullable=False),
        sa.Column("created_at", _dt(), nullable=False),
        sa.Column("delivered_at", _dt(), nullable=True),
    )
    op.create_index("ix_deliveries_event_id", "deliveries", ["event_id"])
    op.create_index("ix_deliveries_due", "deliveries", ["status", "next_attempt_at"])
    op.create_index("ix_deliveries_webhook", "deliveries", ["webhook_id", "created_at"])


def downgrade() -> None:
    op.drop_table("deliveries")
    op.drop_table("events")
    op.drop_table("webhooks")
    op.drop_table("task_reminders")
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("reminders")
