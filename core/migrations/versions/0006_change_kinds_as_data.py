"""Change kinds are data: drop the CHECK constraint that listed them.

Revision ID: 0006_change_kinds_as_data
Revises: 0005_attempts_secrets_title_key
Create Date: 2026-12-02 00:00:00

``task_changes.kind`` names a kind registered in code (:class:`core.changes.ChangeKind`), so a new
kind (delete now; recurrence, reminders, lists later) needs no migration. SQLite can't drop a
constraint in place: batch mode copies the table (rows, indexes and foreign keys kept) without it.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0006_change_kinds_as_data"
down_revision: str | None = "0005_attempts_secrets_title_key"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHECK = "ck_task_changes_kind"
KINDS_0004 = "kind IN ('create', 'complete', 'reopen', 'update')"


def upgrade() -> None:
    with op.batch_alter_table("task_changes") as batch:
        batch.drop_constraint(CHECK, type_="check")


def downgrade() -> None:
    # Kinds written since (delete, …) would break the old constraint: their rows go first.
    op.execute("DELETE FROM task_changes WHERE kind NOT IN ('create', 'complete', 'reopen', 'update')")
    with op.batch_alter_table("task_changes") as batch:
        batch.create_check_constraint(CHECK, KINDS_0004)
