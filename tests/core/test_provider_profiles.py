"""Provider profiles (issue 14): `provider:model` refs, per-provider settings, the request shape each
tested provider gets over HTTP, and output-mode fallback when a provider rejects a shape.

The HTTP tests talk to the fake chat-completions server on 127.0.0.1 (tests/support), reached
through each provider's own pydantic-ai class so its profile shapes the request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pydantic_ai.models
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel
from pydantic_ai.models.openai import OpenAIChatModel

from app.settings import Settings
from app.state import hub_from_settings
from core import llm
from core.llm import ModelHub, NodeSpec, run_structured
from core.providers import GENERIC, KINDS, ModelRef, ProviderConfig, parse_ref, resolve_providers
from core.trace import Trace
from support.fake_openai import FakeOpenAI, RejectShape, Reply, shape_of


class City(BaseModel):
    """A city."""

    name: str
    country: str


CITY = NodeSpec("city", City, "Name a city.")
PARIS = City(name="Paris", country="FR")
LYON = {"name": "Lyon", "country": "FR"}


# --- refs and settings -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("deepseek:deepseek-chat", ModelRef("deepseek", "deepseek-chat")),
        ("ollama:qwen2.5:7b", ModelRef("ollama", "qwen2.5:7b")),
        ("openai:gpt-4o-mini", ModelRef("openai", "gpt-4o-mini")),
        ("openai-chat:gpt-4o-mini", ModelRef("openai", "gpt-4o-mini")),
        ("dashscope:qwen-plus", ModelRef("alibaba", "qwen-plus")),
        ("openrouter:deepseek/deepseek-chat", ModelRef("openrouter", "deepseek/deepseek-chat")),
        ("openai-compatible:my-model@http://host:8080/v1", ModelRef(GENERIC, "my-model", "http://host:8080/v1")),
        ("gpt-x", ModelRef(GENERIC, "gpt-x")),  # the old bare form: a model at SUIKOU_MODEL_BASE_URL
        ("qwen2.5:7b", ModelRef(GENERIC, "qwen2.5:7b")),  # unknown prefix: still the old form
    ],
)
def test_parse_ref(ref: str, expected: ModelRef) -> None:
    assert parse_ref(ref) == expected


def test_providers_take_vendor_env_vars_then_settings_override_them() -> None:
    env = {"DEEPSEEK_API_KEY": "sk-env", "DASHSCOPE_API_KEY": "sk-qw", "OLLAMA_BASE_URL": "http://gpu:11434/v1"}
    resolved = resolve_providers(
        {"deepseek": ProviderConfig(api_key="sk-set")}, env, legacy_base_url="http://old/v1", legacy_key="sk-old"
    )
    assert resolved["deepseek"] == ProviderConfig("https://api.deepseek.com", "sk-set")
    assert resolved["alibaba"].api_key == "sk-qw"
    assert resolved["ollama"].base_url == "http://gpu:11434/v1"
    assert resolved["openrouter"].api_key is None
    assert resolved[GENERIC] == ProviderConfig("http://old/v1", "sk-old")


def test_settings_nested_env_and_legacy_settings_build_the_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUIKOU_PROVIDERS__DEEPSEEK__BASE_URL", "http://ds.local/v1")
    monkeypatch.setenv("SUIKOU_PROVIDERS__OPENAI_COMPATIBLE__STRICT_TOOLS", "false")
    settings = Settings(_env_file=None, model="gpt-x", model_base_url="http://old/v1", model_api_key="sk-old")  # type: ignore[call-arg]
    hub = hub_from_settings(settings, env={"DEEPSEEK_API_KEY": "sk-ds"})
    assert hub.providers["deepseek"] == ProviderConfig("http://ds.local/v1", "sk-ds")
    generic = hub.config_for(parse_ref("gpt-x"))
    assert (generic.base_url, generic.api_key, generic.strict_tools) == ("http://old/v1", "sk-old", False)


@pytest.mark.parametrize(
    ("ref", "provider_name", "json_schema"),
    [
        ("openai:gpt-4o-mini", "openai", True),
        ("deepseek:deepseek-chat", "deepseek", False),
        ("alibaba:qwen-plus", "alibaba", False),
        ("ollama:qwen3:8b", "ollama", True),
        ("openrouter:deepseek/deepseek-chat", "openrouter", False),
        ("gpt-x", GENERIC, True),
    ],
)
def test_models_are_chat_completions_through_the_providers_class(
    ref: str, provider_name: str, json_schema: bool
) -> None:
    hub = ModelHub(default=ref, base_url="http://127.0.0.1:9/v1", api_key="sk", timeout_s=1.5)
    model = hub.model_for("plan")
    assert isinstance(model, OpenAIChatModel)  # Chat Completions, `openai:` included (not Responses)
    assert model.system == provider_name
    assert bool(model.profile.get("supports_json_schema_output")) is json_schema
    assert (model.client.max_retries, model.client.timeout) == (0, 1.5)  # no hidden SDK retries


def test_unconfigured_provider_uses_its_vendors_host() -> None:
    model = ModelHub(default="deepseek:deepseek-chat").model_for("route")
    assert str(model.client.base_url).rstrip("/") == "https://api.deepseek.com"


def test_profile_overrides_apply_to_the_generic_provider() -> None:
    hub = ModelHub(
        default="gpt-x",
        base_url="http://127.0.0.1:9/v1",
        providers={GENERIC: ProviderConfig(strict_tools=False, forced_tool_choice=False, output_mode="prompted")},
    )
    profile = hub.model_for("plan").profile
    assert profile.get("openai_supports_strict_tool_definition") is False
    assert profile.get("supports_forced_tool_choice") is False
    assert profile.get("default_structured_output_mode") == "prompted"


# --- the compatibility matrix over HTTP ------------------------------------------------------------


@pytest.fixture
async def hubs(fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[list[ModelHub]]:
    """Hubs made by the test; closed after it. Model requests go to 127.0.0.1 only."""
    fake.reset()
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    monkeypatch.setattr(llm, "REJECTED_MODES", set())  # each test starts a fresh process memory
    made: list[ModelHub] = []
    yield made
    for hub in made:
        await hub.aclose()


def hub_for(fake: FakeOpenAI, ref: str, made: list[ModelHub], **overrides: Any) -> ModelHub:
    provider = parse_ref(ref).provider
    cfg = ProviderConfig(base_url=fake.base_url, api_key=f"sk-{provider}", **overrides)
    hub = ModelHub(default=ref, timeout_s=3.0, providers={provider: cfg})
    made.append(hub)
    return hub


# ref, whether tools carry "strict", tool_choice, reasoning style of the reply
MATRIX = [
    pytest.param("openai:gpt-4o-mini", True, "required", None, id="openai"),
    pytest.param("deepseek:deepseek-chat", True, "required", "先想想", id="deepseek"),
    pytest.param("deepseek:deepseek-reasoner", True, "auto", "思考中", id="deepseek-reasoner"),
    pytest.param("alibaba:qwen-plus", True, "required", "qwen thinks", id="dashscope"),
    pytest.param("ollama:qwen3:8b", False, "required", "hmm", id="ollama"),
    pytest.param("openrouter:deepseek/deepseek-chat", True, "required", "r", id="openrouter"),
    pytest.param("openai-compatible:my-model", True, "required", None, id="generic"),
]


@pytest.mark.parametrize(("ref", "strict", "tool_choice", "reasoning"), MATRIX)
async def test_matrix_request_shape_and_reply(
    fake: FakeOpenAI, hubs: list[ModelHub], ref: str, strict: bool, tool_choice: str, reasoning: str | None
) -> None:
    hub = hub_for(fake, ref, hubs)
    fake.queue(Reply(LYON, reasoning=reasoning))
    trace = Trace()
    out = await run_structured(CITY, "a French city", node="plan", hub=hub, trace=trace, offline=lambda: PARIS)

    assert out == City(**LYON)  # reasoning_content does not disturb the structured output
    [body] = fake.requests  # exactly one request: no hidden SDK retry, no fallback
    assert fake.auths == [f"Bearer sk-{parse_ref(ref).provider}"]
    assert body["model"] == parse_ref(ref).model
    assert shape_of(body) == {"tools"}  # tool output: no response_format
    [tool] = body["tools"]
    assert ("strict" in tool["function"]) is strict
    assert body["tool_choice"] == tool_choice
    assert body["messages"][0] == {"role": "system", "content": "Name a city."}
    assert trace.usage.requests == 1


async def test_generic_strict_override_drops_strict(fake: FakeOpenAI, hubs: list[ModelHub]) -> None:
    hub = hub_for(fake, "openai-compatible:my-model", hubs, strict_tools=False, forced_tool_choice=False)
    fake.queue(Reply(LYON))
    await run_structured(CITY, "x", node="plan", hub=hub, trace=Trace(), offline=lambda: PARIS)
    [body] = fake.requests
    assert "strict" not in body["tools"][0]["function"]
    assert body["tool_choice"] == "auto"


@pytest.mark.parametrize(("ref", "json_object"), [("openai:gpt-4o-mini", True), ("alibaba:qwen-plus", False)])
async def test_prompted_mode_sends_the_schema_in_the_prompt(
    fake: FakeOpenAI, hubs: list[ModelHub], ref: str, json_object: bool
) -> None:
    hub = hub_for(fake, ref, hubs, output_mode="prompted")
    fake.queue(Reply(LYON, reasoning="thinking"))
    out = await run_structured(CITY, "x", node="plan", hub=hub, trace=Trace(), offline=lambda: PARIS)
    assert out == City(**LYON)
    [body] = fake.requests
    assert "tools" not in body
    assert (shape_of(body) == {"json_object"}) is json_object


# --- output-mode fallback --------------------------------------------------------------------------


async def test_rejected_native_mode_falls_back_to_tools_once_per_process(
    fake: FakeOpenAI, hubs: list[ModelHub]
) -> None:
    hub = hub_for(fake, "openai-compatible:picky", hubs, output_mode="native")
    fake.on_model("picky", RejectShape("json_schema", then=Reply(LYON)))

    trace = Trace()
    out = await run_structured(CITY, "x", node="plan", hub=hub, trace=trace, offline=lambda: PARIS)

    assert out == City(**LYON)
    assert [sorted(shape_of(b)) for b in fake.requests] == [["json_schema"], ["tools"]]
    [event] = [e for e in trace.events if e.stage == "output_mode"]
    assert event.data == {
        "node": "plan",
        "model": "openai-compatible:picky",
        "mode": "native",
        "status": 400,
        "error": "ModelRequestRejectedError",
    }
    assert trace.usage.requests == 2  # the rejected request counts against the budget
    assert not [e for e in trace.events if e.stage == "fallback"]

    fake.reset_requests()
    trace = Trace()
    assert await run_structured(CITY, "x", node="plan", hub=hub, trace=trace, offline=lambda: PARIS) == City(**LYON)
    assert [sorted(shape_of(b)) for b in fake.requests] == [["tools"]]  # remembered: native is not sent again
    assert not [e for e in trace.events if e.stage == "output_mode"]


async def test_rejection_then_bad_output_ends_offline_without_looping(fake: FakeOpenAI, hubs: list[ModelHub]) -> None:
    hub = hub_for(fake, "openai:gpt-4o-mini", hubs)
    fake.on_model("gpt-4o-mini", RejectShape("tools", then=Reply("not json at all")))
    trace = Trace()
    out = await run_structured(CITY, "x", node="plan", hub=hub, trace=trace, offline=lambda: PARIS)
    assert out == PARIS
    # tool: 400; native: invalid output and its one retry; then the rules. Prompted is not tried:
    # bad output is the model failing, not the provider refusing a shape.
    assert [sorted(shape_of(b)) for b in fake.requests] == [["tools"], ["json_schema"], ["json_schema"]]
    assert [e.data["mode"] for e in trace.events if e.stage == "output_mode"] == ["tool"]
    assert [e.data["error"] for e in trace.events if e.stage == "fallback"] == ["UnexpectedModelBehavior"]
    assert trace.usage.requests == 3


async def test_profile_refusing_a_mode_never_escapes(fake: FakeOpenAI, hubs: list[ModelHub]) -> None:
    """DeepSeek's profile has no json_schema: forcing native skips it (no UserError, nothing sent)."""
    hub = hub_for(fake, "deepseek:deepseek-chat", hubs, output_mode="native")
    fake.queue(Reply(LYON))
    out = await run_structured(CITY, "x", node="plan", hub=hub, trace=Trace(), offline=lambda: PARIS)
    assert out == City(**LYON)
    [body] = fake.requests
    assert "json_schema" not in shape_of(body)


@given(
    provider=st.sampled_from(sorted(KINDS)),
    model=st.text(st.characters(blacklist_characters="@", blacklist_categories=("Cs",)), min_size=1, max_size=30),
)
def test_known_prefix_always_splits_at_the_first_colon(provider: str, model: str) -> None:
    """Whatever the model part holds (colons included), a known prefix is the provider."""
    assert parse_ref(f"{provider}:{model}") == ModelRef(provider, model)
