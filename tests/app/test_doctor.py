"""`suikou doctor` (issue 14): one tiny request per configured node, a line each, exit 1 when a node
cannot answer. Providers are the fake chat-completions server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pydantic_ai.models
import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.settings import get_settings
from core import llm
from core.llm import ModelHub, probe_node
from core.providers import ProviderConfig
from support.fake_openai import Fail, Ramble, RejectShape, Reply, shape_of
from support.fake_openai import FakeOpenAI as Fake


@pytest.fixture
def env(fake: Fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """No .env, no vendor keys from the machine; model requests allowed (to 127.0.0.1 only)."""
    fake.reset()
    monkeypatch.chdir(tmp_path)
    for name in ("SUIKOU_MODEL", "SUIKOU_NODE_MODELS", "SUIKOU_PROVIDERS", "DEEPSEEK_API_KEY", "OLLAMA_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    monkeypatch.setattr(llm, "REJECTED_MODES", set())
    get_settings.cache_clear()
    yield monkeypatch
    get_settings.cache_clear()


def test_doctor_offline_says_so_and_passes(env: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 0, result.output
    assert "Every node is offline" in result.output


def test_doctor_checks_each_configured_node(env: pytest.MonkeyPatch, fake: Fake) -> None:
    env.setenv("SUIKOU_NODE_MODELS", json.dumps({"route": "deepseek:deepseek-chat", "chat": "ollama:qwen3:8b"}))
    env.setenv("SUIKOU_PROVIDERS__DEEPSEEK__BASE_URL", fake.base_url)
    env.setenv("DEEPSEEK_API_KEY", "sk-ds")
    env.setenv("OLLAMA_BASE_URL", fake.base_url)
    fake.on_model("deepseek-chat", Reply({"ok": True}, reasoning="检查"))

    result = CliRunner().invoke(cli, ["doctor"])

    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("router: deepseek:deepseek-chat — ok in ")
    assert lines[0].endswith("output mode tool")
    assert "plan, reflect, extract: offline — offline rules" in lines  # one line for the nodes that share it
    assert lines[-1].startswith("chat: ollama:qwen3:8b — ok in ")
    assert fake.auths == ["Bearer sk-ds", "Bearer not-needed"]  # one request per node, no retries


def test_doctor_names_the_key_to_fix_and_fails(env: pytest.MonkeyPatch, fake: Fake) -> None:
    env.setenv("SUIKOU_NODE_MODELS", json.dumps({"route": "deepseek:deepseek-chat"}))
    env.setenv("SUIKOU_PROVIDERS", json.dumps({"deepseek": {"base_url": fake.base_url}}))
    env.setenv("DEEPSEEK_API_KEY", "sk-wrong")
    fake.on_model("deepseek-chat", Fail(401, "Authentication Fails", "authentication_error"))

    result = CliRunner().invoke(cli, ["doctor"])

    assert result.exit_code == 1
    assert "router: deepseek:deepseek-chat — 401 unauthorized (check DEEPSEEK_API_KEY)" in result.output
    assert len(fake.requests) == 1  # a 401 is not a shape problem: no other mode is tried


async def test_probe_reports_the_mode_a_picky_provider_accepts(env: pytest.MonkeyPatch, fake: Fake) -> None:
    ticks = iter([10.0, 10.25])
    hub = ModelHub(
        default="openai-compatible:picky",
        providers={"openai-compatible": ProviderConfig(base_url=fake.base_url, output_mode="native")},
    )
    fake.on_model("picky", RejectShape("json_schema", then=Reply({"ok": True})))
    try:
        probe = await probe_node(hub, "plan", clock=lambda: next(ticks))
    finally:
        await hub.aclose()
    assert (probe.ok, probe.mode, probe.seconds) == (True, "tool", 0.25)
    assert [sorted(shape_of(b)) for b in fake.requests] == [["json_schema"], ["tools"]]


def test_doctor_names_a_template_that_ignores_tool_choice_and_the_setting_that_works(
    env: pytest.MonkeyPatch, fake: Fake
) -> None:
    """A local server whose chat template answers tool requests in prose: the line says so and
    names the setting doctor tried and saw work (here: prompted output, no tools at all)."""
    env.setenv("SUIKOU_NODE_MODELS", json.dumps({"route": "openai-compatible:smollm2"}))
    env.setenv("SUIKOU_MODEL_BASE_URL", fake.base_url)
    fake.on_model("smollm2", Ramble(then=Reply({"ok": True})))

    result = CliRunner().invoke(cli, ["doctor"])

    assert result.exit_code == 1  # as configured, the router cannot answer
    [line] = [line for line in result.output.splitlines() if line.startswith("router:")]
    assert "instead of calling the tool" in line and "ignores tool_choice" in line
    assert "works with SUIKOU_PROVIDERS__OPENAI_COMPATIBLE__OUTPUT_MODE=prompted" in line
    # As configured (cut at the ping's max_tokens, not retried), forced_tool_choice=false (tools
    # still sent: prose again), prompted (no tools, JSON asked for: the JSON answer).
    assert [sorted(shape_of(b)) for b in fake.requests] == [["tools"], ["tools"], ["json_object"]]
    assert [b.get("tool_choice") for b in fake.requests] == ["required", "auto", None]
    assert {b.get("max_completion_tokens") or b.get("max_tokens") for b in fake.requests} == {llm.MAX_TOKENS["doctor"]}


async def test_probe_sees_brief_prose_instead_of_a_tool_call_in_one_request(
    env: pytest.MonkeyPatch, fake: Fake
) -> None:
    hub = ModelHub(default="openai-compatible:brief", providers={"openai-compatible": ProviderConfig(fake.base_url)})
    fake.on_model("brief", Ramble(brief=5))  # "Sure! Sure! ..." and stop; without tools "{}", not a Ping
    try:
        probe = await probe_node(hub, "route", clock=lambda: 0.0)
    finally:
        await hub.aclose()
    assert not probe.ok and probe.problem is not None and probe.problem.startswith("answered with text instead")
    # The node's try (prose fails at once), forced_tool_choice=false (prose again), prompted ("{}"
    # and its one validation retry): nothing worked, so both settings are suggested, untested.
    assert (probe.fix_checked, len(fake.requests)) == (False, 4)
    assert probe.line().endswith(
        "; try SUIKOU_PROVIDERS__OPENAI_COMPATIBLE__FORCED_TOOL_CHOICE=false or "
        "SUIKOU_PROVIDERS__OPENAI_COMPATIBLE__OUTPUT_MODE=prompted; this node falls back to its offline rules"
    )


def _closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed): connecting is refused."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_doctor_names_the_unreachable_url_once_for_all_nodes(env: pytest.MonkeyPatch) -> None:
    """Every node on one provider that is down: one line naming the URL tried, the error kind and the
    variable to set, not "Connection error." once per node."""
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    env.setenv("SUIKOU_MODEL", "openai-compatible:qwen3")
    env.setenv("SUIKOU_MODEL_BASE_URL", url)
    env.setenv("SUIKOU_MODEL_API_KEY", "sk-secret-key")

    result = CliRunner().invoke(cli, ["doctor"])

    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "router, plan, reflect, extract, chat: openai-compatible:qwen3 — cannot connect (connection refused;"
        f" set SUIKOU_MODEL_BASE_URL if the server is elsewhere); tried {url};"
        " these nodes fall back to their offline rules"
    ]
    assert "sk-secret" not in result.output


def test_doctor_never_prints_credentials_in_the_url(env: pytest.MonkeyPatch) -> None:
    port = _closed_port()
    env.setenv("SUIKOU_MODEL", "openai-compatible:qwen3")
    env.setenv("SUIKOU_MODEL_BASE_URL", f"http://admin:hunter2@127.0.0.1:{port}/v1?key=sk-in-query")

    result = CliRunner().invoke(cli, ["doctor"])

    assert f"tried http://127.0.0.1:{port}/v1;" in result.output
    assert "hunter2" not in result.output and "sk-in-query" not in result.output and "admin" not in result.output


def test_doctor_names_the_missing_base_url_without_asking(env: pytest.MonkeyPatch) -> None:
    env.setenv("SUIKOU_MODEL", "my-model")  # the generic provider, and no base URL anywhere
    env.delenv("SUIKOU_MODEL_BASE_URL", raising=False)
    env.delenv("OPENAI_BASE_URL", raising=False)

    result = CliRunner().invoke(cli, ["doctor"])

    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "router, plan, reflect, extract, chat: my-model — no base URL (set SUIKOU_MODEL_BASE_URL);"
        " these nodes fall back to their offline rules"
    ]


def test_doctor_names_the_missing_key_and_the_url_it_would_ask(env: pytest.MonkeyPatch, fake: Fake) -> None:
    env.setenv("SUIKOU_NODE_MODELS", json.dumps({"route": "deepseek:deepseek-chat"}))
    env.setenv("SUIKOU_PROVIDERS__DEEPSEEK__BASE_URL", fake.base_url)

    result = CliRunner().invoke(cli, ["doctor"])

    assert result.exit_code == 1
    assert (
        f"router: deepseek:deepseek-chat — no API key (set DEEPSEEK_API_KEY) for {fake.base_url};"
        " this node falls back to its offline rules"
    ) in result.output.splitlines()
    assert fake.requests == []  # no request could have answered: none was sent


def test_doctor_says_a_silent_server_timed_out(env: pytest.MonkeyPatch) -> None:
    """A server that takes the connection and never answers: "no answer in time", not a bare error."""
    import socket

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # connections complete in the backlog; nothing ever reads or answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        env.setenv("SUIKOU_NODE_MODELS", json.dumps({"route": "openai-compatible:slow"}))
        env.setenv("SUIKOU_MODEL_BASE_URL", url)
        env.setenv("SUIKOU_MODEL_TIMEOUT_S", "0.3")

        result = CliRunner().invoke(cli, ["doctor"])

    assert result.exit_code == 1
    assert (
        "router: openai-compatible:slow — no answer in time (timed out; raise SUIKOU_MODEL_TIMEOUT_S for a slow"
        f" server); tried {url}; this node falls back to its offline rules"
    ) in result.output.splitlines()
