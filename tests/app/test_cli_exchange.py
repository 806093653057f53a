"""`suikou import` and `suikou export`: the CLI face of POST /import and GET /tasks/export
(exchange/): a dry run writes nothing, a second import of a file creates nothing, a malformed file
is exit 1 naming its row and column, and an export reads back into another user."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, func, select
from typer.testing import CliRunner

from app.cli import cli
from app.settings import get_settings
from core.accounts import get_user
from core.db import make_engine
from core.models import Task

DATA = Path(__file__).parent.parent / "data" / "exchange"
TODOIST = DATA / "todoist_template.csv"
TICKTICK = DATA / "ticktick_backup.csv"
TZ = ("--timezone", "Asia/Shanghai")


@pytest.fixture
def db(database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The CLI's settings point at a fresh database; cwd is a temporary directory (no .env)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SUIKOU_DATABASE_URL", database_url)
    get_settings.cache_clear()
    yield database_url
    get_settings.cache_clear()


def invoke(*args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, (result.output, result.exception)
    return result


def titles(url: str, user: str) -> list[str]:
    """The user's task titles by id, read from the database itself ([] for no such user)."""
    engine = make_engine(url)
    try:
        with Session(engine) as session:
            found = get_user(session, user)
            if found is None:
                return []
            stmt = select(Task.title).where(col(Task.user_id) == found.id).order_by(col(Task.id))
            return list(session.exec(stmt))
    finally:
        engine.dispose()


def task_count(url: str) -> int:
    engine = make_engine(url)
    try:
        with Session(engine) as session:
            return session.exec(select(func.count()).select_from(Task)).one()
    finally:
        engine.dispose()


def import_json(path: Path, source: str, user: str, *extra: str) -> dict[str, Any]:
    result = invoke("import", str(path), "--source", source, "--user", user, *TZ, "--json", *extra)
    summary: dict[str, Any] = json.loads(result.stdout)
    return summary


# --- import -------------------------------------------------------------------------------------


def test_dry_run_writes_nothing_and_says_would_import(db: str) -> None:
    invoke("migrate")
    before = task_count(db)
    result = invoke("import", str(TODOIST), "--source", "todoist", "--user", "alice", *TZ, "--dry-run")
    assert result.stdout.startswith("Would import 9 tasks for alice (2 skipped: note 1, section 1).")
    assert "duplicate" not in result.stdout
    assert "Not kept" in result.stdout and "description 1" in result.stdout and "tags" not in result.stdout
    assert "Undo" not in result.stdout  # nothing to undo
    assert task_count(db) == before == 0
    assert titles(db, "alice") == []  # not even the user was created


def test_import_creates_tasks_then_the_same_file_again_creates_none(db: str) -> None:
    first = invoke("import", str(TICKTICK), "--source", "ticktick", "--user", "alice", *TZ)
    assert first.stdout.startswith("Imported 8 tasks for alice (3 skipped: ")
    created = titles(db, "alice")
    assert len(created) == 8 and "Renew passport 护照续签" in created
    assert "Undo: POST /changes/" in first.stdout

    again = import_json(TICKTICK, "ticktick", "alice")
    assert again["created"] == 0
    assert again["by_reason"]["duplicate"] == 8
    assert again["task_ids"] == [] and again["change_ids"] == []
    assert titles(db, "alice") == created


def test_json_summary_matches_the_database(db: str) -> None:
    summary = import_json(TODOIST, "todoist", "alice")
    assert summary["dry_run"] is False
    assert summary["created"] == 9 == len(summary["task_ids"]) == len(titles(db, "alice"))
    assert summary["by_reason"] == {"note": 1, "section": 1}
    assert summary["change_ids"] and summary["sample"][0]["title"] == "Take out the trash 倒垃圾"


def test_a_malformed_file_exits_1_naming_row_and_column_and_writes_nothing(db: str, tmp_path: Path) -> None:
    invoke("migrate")  # the file is refused before the database is opened: give the count its tables
    broken = tmp_path / "broken.csv"
    lines = TODOIST.read_text(encoding="utf-8").splitlines()
    header, good = lines[0], lines[3]
    assert good.startswith("task,Take out the trash") and ",4,1," in good
    broken.write_text("\n".join([header, good, good.replace(",4,1,", ",9,1,")]) + "\n", encoding="utf-8")
    result = invoke("import", str(broken), "--source", "todoist", "--user", "alice", *TZ, code=1)
    assert result.stderr.startswith("error: row 3, column 'PRIORITY': ")
    assert "'9'" in result.stderr and result.stdout == ""
    assert task_count(db) == 0


def test_a_missing_file_is_exit_2(db: str, tmp_path: Path) -> None:
    result = invoke("import", str(tmp_path / "nope.csv"), "--source", "todoist", "--user", "alice", code=2)
    assert "nope.csv" in result.output and "does not exist" in result.output


def test_an_unknown_timezone_is_exit_2(db: str) -> None:
    result = invoke("import", str(TODOIST), "--source", "todoist", "--user", "alice", "--timezone", "Mars/Base", code=2)
    assert "Unknown timezone 'Mars/Base'" in result.stderr


# --- export -------------------------------------------------------------------------------------


def test_export_json_has_every_task_of_the_user(db: str) -> None:
    import_json(TODOIST, "todoist", "alice")
    import_json(TICKTICK, "ticktick", "bob")  # someone else's tasks stay out
    result = invoke("export", "--user", "alice", *TZ)
    doc = json.loads(result.stdout_bytes)
    assert doc["format"] == "suikou-tasks" and doc["timezone"] == "Asia/Shanghai"
    assert [t["title"] for t in doc["tasks"]] == titles(db, "alice")
    assert len(doc["tasks"]) == 9


def test_export_csv_and_ics_to_a_file(db: str, tmp_path: Path) -> None:
    import_json(TICKTICK, "ticktick", "alice")
    csv_file, ics_file = tmp_path / "out.csv", tmp_path / "out.ics"
    assert invoke("export", "--user", "alice", "--format", "csv", "--output", str(csv_file), *TZ).stdout == ""
    rows = csv_file.read_text(encoding="utf-8-sig").splitlines()  # with a BOM, for spreadsheets
    assert rows[0].startswith("id,title,") and len(rows) == 1 + 8
    invoke("export", "--user", "alice", "--format", "ics", "--output", str(ics_file), *TZ)
    calendar = ics_file.read_text(encoding="utf-8")
    assert calendar.startswith("BEGIN:VCALENDAR") and calendar.count("BEGIN:VTODO") == 8
    assert "Renew passport" in calendar


def test_export_of_an_unknown_user_is_exit_1(db: str) -> None:
    result = invoke("export", "--user", "nobody", code=1)
    assert "no user 'nobody'" in result.stderr and result.stdout == ""


def test_round_trip_into_another_user(db: str, tmp_path: Path) -> None:
    import_json(TODOIST, "todoist", "alice")
    import_json(TICKTICK, "ticktick", "alice")
    exported = tmp_path / "alice.json"
    invoke("export", "--user", "alice", "--format", "json", "--output", str(exported), *TZ)
    summary = import_json(exported, "suikou", "bob")
    assert summary["created"] == 17 and summary["skipped"] == 0
    assert titles(db, "bob") == titles(db, "alice") != []


def test_without_user_the_tasks_are_keyless_modes_users(db: str) -> None:
    invoke("import", str(TODOIST), "--source", "todoist", *TZ)
    assert len(titles(db, "local")) == 9
    exported = json.loads(invoke("export", *TZ).stdout)
    assert [t["title"] for t in exported["tasks"]] == titles(db, "local")
