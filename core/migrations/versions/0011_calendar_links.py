"""Calendar subscribe links: calendar_links.

Revision ID: 0011_calendar_links
Revises: 0010_reminders_webhooks
Create Date: 2026-12-05 12:00:00

A calendar app that can't send a header subscribes to ``/calendar/<token>.ics``; the table keeps the
token's SHA-256 (never the token), its owner and the zone the feed is shown in (docs/fdr/0039).
Revoking deletes the row. Nothing existing is rewritten.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_calendar_links"
down_revision: str | None = "0010_reminders_webhooks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "calendar_links",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("events", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_calendar_links_user_id", "calendar_links", ["user_id"])
    op.create_index("ux_calendar_links_token_hash", "calendar_links", ["token_hash"], unique=True)


def downgrade() -> None:
    op.drop_table("calendar_links")
