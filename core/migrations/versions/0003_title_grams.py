"""Title n-gram index for keyword search: task_title_grams, backfilled from tasks.

Revision ID: 0003_title_grams
Revises: 0002_query_indexes
Create Date: 2026-03-12 00:00:00

Creates ``task_title_grams (user_id, gram, task_id)`` — primary key in that order, ``WITHOUT
ROWID`` on SQLite, ``task_id`` referencing ``tasks`` with ``ON DELETE CASCADE`` and indexed — and
fills it for every existing task with :func:`core.titlegrams.reindex_all` (tasks read in batches,
grams computed in Python: the normalisation is not expressible in portable SQL). Why and how:
:mod:`core.titlegrams`; the table is :class:`core.models.TaskTitleGram`, and
``tests/core/test_migrations.py`` checks that the migrated schema equals the models.

About 19 rows per task. On PostgreSQL the rows are copied into the bare table and the primary
key, index and foreign key are added afterwards (a sorted index build and one validating join
instead of per-row index inserts and foreign-key triggers: ~3x faster). SQLite can't add a
primary key or foreign key later, so there the table is created whole. All of it runs in the
migration's single transaction.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_title_grams"
down_revision: str | None = "0002_query_indexes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "task_title_grams"
PK = ("user_id", "gram", "task_id")
# PostgreSQL's default names, so the schema is the same as create_table with inline constraints.
PG_PK_NAME = "task_title_grams_pkey"
PG_FK_NAME = "task_title_grams_task_id_fkey"


def _columns(*task_fk: sa.ForeignKey) -> list[sa.Column[int] | sa.Column[str]]:
    return [
        sa.Column("user_id", sa.Integer(), nullable=False, autoincrement=False),
        sa.Column("gram", sa.Text(), nullable=False),
        sa.Column("task_id", sa.Integer(), *task_fk, nullable=False, autoincrement=False),
    ]


def upgrade() -> None:
    from core.titlegrams import reindex_all

    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.create_table(TABLE, *_columns())
        reindex_all(bind)
        op.create_primary_key(PG_PK_NAME, TABLE, list(PK))
        op.create_foreign_key(PG_FK_NAME, TABLE, "tasks", ["task_id"], ["id"], ondelete="CASCADE")
    else:
        fk = sa.ForeignKey("tasks.id", ondelete="CASCADE")
        op.create_table(TABLE, *_columns(fk), sa.PrimaryKeyConstraint(*PK), sqlite_with_rowid=False)
        reindex_all(bind)
    op.create_index("ix_task_title_grams_task_id", TABLE, ["task_id"])


def downgrade() -> None:
    op.drop_index("ix_task_title_grams_task_id", table_name=TABLE)
    op.drop_table(TABLE)
