"""Idempotency means "the same attempt", not "the same words".

A resend of one conversation within the retry window (a client retry, a regenerate, a double
click) is the same attempt: one task, and an answer that says so. The same words as the first
message of a new conversation later on are a new note. Through the pipeline, HTTP and the CLI.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select
from typer.testing import CliRunner

from app.cli import cli
from app.main import create_app
from app.settings import get_settings
from core import carry
from core.db import make_engine
from core.models import Task
from support.harness import NOW, Harness, local

NOTE = "帮我记一下明天下午三点交报告"
NOTED = "好，已记下：交报告（重要且紧急；截止 {when}）"
ALREADY = "这条消息刚才已经记下了，没有重复创建：交报告（重要且紧急；截止 {when}）"
DUE = "12月1日 周二 15:00"


def at(h: Harness, moment: datetime) -> None:
    h.state.clock = lambda: moment


def tasks_of(h: Harness) -> list[Task]:
    with h.state.session() as session:
        return list(session.exec(select(Task).order_by(Task.id)).all())  # type: ignore[arg-type]


async def test_a_regenerate_within_the_window_is_the_same_attempt(harness: Harness) -> None:
    first = await harness.ask(NOTE)
    at(harness, NOW + timedelta(minutes=5))
    again = await harness.ask(NOTE)
    assert first.visible == NOTED.format(when=DUE)
    assert again.visible == ALREADY.format(when=DUE)
    assert len(tasks_of(harness)) == 1


async def test_a_retry_across_a_window_boundary_is_still_the_same_attempt(harness: Harness) -> None:
    # NOW (10:00) starts a 10-minute window: one copy just before it, one just after.
    at(harness, NOW - timedelta(seconds=1))
    await harness.ask(NOTE)
    at(harness, NOW + timedelta(seconds=1))
    again = await harness.ask(NOTE)
    assert again.visible == ALREADY.format(when=DUE)
    assert len(tasks_of(harness)) == 1


@pytest.fixture
def allow_duplicates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Saying the same words again on purpose: no near-duplicate question in between (11 minutes
    later the same note is an open task due at the same time; see test_near_duplicates)."""
    monkeypatch.setenv("SUIKOU_NOTE_NEAR_DUPLICATES", "allow")  # read when the harness is built


@pytest.mark.usefixtures("allow_duplicates")
@pytest.mark.parametrize("later", [timedelta(minutes=11), timedelta(days=7)], ids=["past-the-window", "a-week"])
async def test_the_same_words_later_are_a_new_note(harness: Harness, later: timedelta) -> None:
    await harness.ask(NOTE)
    at(harness, NOW + later)
    second = await harness.ask(NOTE)
    assert second.content.startswith("好，已记下：交报告")
    tasks = tasks_of(harness)
    assert len(tasks) == 2
    assert tasks[0].source_key != tasks[1].source_key
    # The new note's deadline is read against its own moment, not copied from the old one.
    assert tasks[1].deadline_at == local("2026-12-01 15:00") + (timedelta(days=7) if later.days else timedelta(0))


async def test_the_retry_answer_shows_the_task_as_it_is_now(harness: Harness) -> None:
    await harness.ask(NOTE, user="local")  # the user keyless HTTP requests act as
    with harness.client() as client:
        [task] = client.get("/tasks").json()["items"]
        assert client.post(f"/tasks/{task['id']}/complete", json={"completed": True}).status_code == 200
        body = {"model": "suikou", "messages": [{"role": "user", "content": NOTE}]}
        at(harness, NOW + timedelta(minutes=2))
        reply = client.post("/v1/chat/completions", json=body).json()
    assert carry.strip(reply["choices"][0]["message"]["content"]) == (
        f"这条消息刚才已经记下了，没有重复创建：交报告（重要且紧急；已完成；截止 {DUE}）"
    )


def test_http_same_words_a_week_later_make_a_second_task(harness: Harness) -> None:
    body = {"model": "suikou", "messages": [{"role": "user", "content": NOTE}]}
    with TestClient(create_app(harness.state.settings, state=harness.state)) as client:
        first = client.post("/v1/chat/completions", json=body).json()
        regenerate = client.post("/v1/chat/completions", json={**body, "stream": True})
        at(harness, NOW + timedelta(days=7))
        week_later = client.post("/v1/chat/completions", json=body).json()
        items = client.get("/tasks").json()["items"]
    assert carry.strip(first["choices"][0]["message"]["content"]) == NOTED.format(when=DUE)
    assert "没有重复创建" in regenerate.text
    assert carry.strip(week_later["choices"][0]["message"]["content"]) == NOTED.format(when="12月8日 周二 15:00")
    assert sorted(item["deadline_at"][:16] for item in items) == ["2026-12-01T07:00", "2026-12-08T07:00"]


@pytest.fixture
def cli_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    monkeypatch.setenv("SUIKOU_DATABASE_URL", url)
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


def test_cli_ask_with_now_retries_then_a_new_note(cli_db: str) -> None:
    runner = CliRunner()

    def ask(now: str) -> str:
        result = runner.invoke(cli, ["ask", NOTE, "--now", now])
        assert result.exit_code == 0, result.output
        return result.stdout.strip()

    assert ask("2026-11-30T10:00:00+08:00") == NOTED.format(when=DUE)
    assert ask("2026-11-30T10:03:00+08:00") == ALREADY.format(when=DUE)
    assert ask("2026-12-07T10:00:00+08:00") == NOTED.format(when="12月8日 周二 15:00")
    engine = make_engine(cli_db)
    try:
        with Session(engine) as session:
            assert len(list(session.exec(select(Task)).all())) == 2
    finally:
        engine.dispose()
