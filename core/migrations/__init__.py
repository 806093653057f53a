"""Alembic migration scripts for Suikou's tables (run via :func:`core.db.migrate`)."""
