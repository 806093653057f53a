"""What a new user meets on the command line: `suikou serve`'s own start-up lines (where the
playground is, who may use it) and the --help texts. uvicorn is replaced by a recorder: nothing
listens."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from app.cli import SERVE_DEFAULTS, cli
from app.settings import Settings, get_settings


@pytest.fixture
def configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    """A fresh SQLite file, no .env; uvicorn.run records its calls. SUIKOU_HOST and SUIKOU_PORT,
    which serve sets for its workers, are put back afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SUIKOU_DATABASE_URL", f"sqlite:///{tmp_path / 'suikou.db'}")
    for name in ("SUIKOU_HOST", "SUIKOU_PORT", "SUIKOU_WORKERS"):
        monkeypatch.delenv(name, raising=False)
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: calls.append({"app": app, **kw}))
    get_settings.cache_clear()
    yield calls
    monkeypatch.delenv("SUIKOU_HOST", raising=False)
    get_settings.cache_clear()


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_serve_names_the_playground_and_keyless_mode(configured: list[dict[str, Any]]) -> None:
    result = run("serve", "--port", "8123")

    assert result.exit_code == 0, result.output
    assert [call["port"] for call in configured] == [8123]
    lines = result.stderr.splitlines()
    assert (
        lines[-2]
        == "Suikou: playground at http://127.0.0.1:8123/playground, chat API at http://127.0.0.1:8123/v1 (model 'suikou')"
    )
    assert lines[-1].startswith("Keyless mode: no API keys exist, so anyone on this machine can use it as user 'local'")


def test_serve_says_a_key_is_needed_once_keys_exist(configured: list[dict[str, Any]]) -> None:
    assert run("apikey", "create", "--user", "alice").exit_code == 0

    result = run("serve", "--host", "0.0.0.0")

    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    # A wildcard bind is reached from this machine's browser on loopback.
    assert lines[-2].startswith("Suikou: playground at http://127.0.0.1:8000/playground,")
    assert lines[-1] == (
        "API keys exist: every request needs 'Authorization: Bearer <key>' (the playground asks for it)."
    )
    assert "Keyless" not in result.stderr


def test_serve_refusal_prints_no_banner(configured: list[dict[str, Any]]) -> None:
    result = run("serve", "--host", "0.0.0.0")  # no keys: refused before anything starts
    assert result.exit_code == 2
    assert "playground at" not in result.output
    assert configured == []


def test_serve_banner_brackets_an_ipv6_address() -> None:
    from app.cli import _serve_banner

    assert _serve_banner("::1", 9000, keyed=True)[0].startswith("Suikou: playground at http://[::1]:9000/playground,")


COMMANDS = [
    [],
    ["serve"],
    ["migrate"],
    ["ask"],
    ["doctor"],
    ["explain"],
    ["demo"],
    ["mcp"],
    ["apikey"],
    ["apikey", "create"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "suikou")
def test_help_never_labels_a_flag_with_a_value_type(command: list[str]) -> None:
    result = run(*command, "--help")
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    assert "--help " in result.output


def test_serve_help_shows_the_flags_defaults_and_the_playground() -> None:
    text = " ".join(run("serve", "--help").output.split())  # click wraps lines
    assert "--migrate Migrate" in text  # a plain flag: no value after it
    assert "--reload / --no-reload" in text
    assert "--host <str> Bind address (default: SUIKOU_HOST, else 127.0.0.1)." in text
    assert "--port <int> Port (default: SUIKOU_PORT, else 8000)." in text
    assert "(default: SUIKOU_WORKERS, else 1)" in text
    assert "the playground at http://HOST:PORT/playground" in text


def test_serve_help_defaults_are_the_settings_defaults() -> None:
    fields = Settings.model_fields
    assert {name: fields[name].default for name in SERVE_DEFAULTS} == SERVE_DEFAULTS
