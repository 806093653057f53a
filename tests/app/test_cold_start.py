"""Cold start: the `suikou` script (a whole process per `ask`) loads only what its command needs.

Checked by what is imported, never by time: no web app (FastAPI, starlette, uvicorn), no alembic
once the database is at head, no pydantic-ai offline, and dateparser / cn2an only for the phrases
that need them. The script starts with the garbage collector off; every command turns it on again
once its imports are done (app/cli.py `main`, `_started`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

NEVER = ("fastapi", "starlette", "uvicorn", "pydantic_ai", "openai", "httpx")
AT_HEAD = ("alembic", "mako")
ON_DEMAND = ("dateparser", "cn2an")
WATCHED = NEVER + AT_HEAD + ON_DEMAND

# Runs the script's entry point in a fresh interpreter, then reports which watched packages it
# loaded and the collector's state. `serve` gets a uvicorn.run that returns at once.
SCRIPT = f"""
import gc, json, sys
if sys.argv[1] == "serve":
    import uvicorn
    uvicorn.run = lambda *args, **kwargs: None
from app.cli import main
sys.argv[0] = "suikou"
try:
    main()
except SystemExit as exc:
    if exc.code:
        raise
report = {{
    "loaded": sorted({{m.split(".")[0] for m in sys.modules}} & set({list(WATCHED)!r})),
    "gc": gc.isenabled(),
    "frozen": gc.get_freeze_count(),
}}
print(json.dumps(report))
"""


def _run(tmp_path: Path, *args: str) -> tuple[str, dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUIKOU_")}
    env["SUIKOU_DATABASE_URL"] = f"sqlite:///{tmp_path / 'suikou.db'}"
    env["SUIKOU_MODEL"] = "offline"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args],
        cwd=tmp_path,  # no developer .env
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    *output, report = done.stdout.strip().splitlines()
    return "\n".join(output), json.loads(report)


def _ask(tmp_path: Path, text: str) -> tuple[str, set[str]]:
    answer, report = _run(tmp_path, "ask", "--now", "2026-11-30T10:00:00", text)
    assert report["gc"] and report["frozen"] > 0
    return answer, set(report["loaded"])


@pytest.fixture
def migrated(tmp_path: Path) -> Path:
    """A database at head: the first command of a new install migrates it (alembic runs then)."""
    _, loaded = _ask(tmp_path, "你好")
    assert not loaded & set(NEVER)
    return tmp_path


@pytest.mark.parametrize("text", ["来一个简单的任务", "帮我记一下明天下午三点交报告", "下周三之前要交的前两个", "你好"])
def test_ask_loads_no_web_app_no_alembic_no_provider(migrated: Path, text: str) -> None:
    answer, loaded = _ask(migrated, text)
    assert answer
    assert loaded == set(), f"{text!r} loaded {sorted(loaded)}"


def test_dateparser_loads_for_an_english_month_name(migrated: Path) -> None:
    answer, loaded = _ask(migrated, "remind me to renew the passport by Dec 5")
    assert "due Sat Dec 5" in answer
    assert loaded == {"dateparser"}


def test_cn2an_loads_for_an_unusual_numeral(migrated: Path) -> None:
    # "一百十五" is not one of the everyday forms read without cn2an (core/timeanchor/numerals.py).
    _, loaded = _ask(migrated, "一百十五天内要交的")
    assert loaded == {"cn2an"}


@pytest.mark.parametrize(
    "args",
    [["apikey", "list"], ["apikey", "create", "--user", "bob"], ["demo"], ["explain", "下周三之前要交的"], ["serve"]],
)
def test_every_command_turns_the_collector_on_again(migrated: Path, args: list[str]) -> None:
    _, report = _run(migrated, *args)
    assert report["gc"] and report["frozen"] > 0
    if args[0] != "serve":
        assert not set(report["loaded"]) & {"fastapi", "uvicorn", "alembic", "pydantic_ai"}
