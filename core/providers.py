"""Which provider serves a node's model, and how to reach it (docs/fdr/0020-provider-profiles.md).

A node's model is written `provider:model` (`deepseek:deepseek-chat`, `ollama:qwen2.5:7b`,
`openai-compatible:my-model@http://host/v1`); a name without a known provider prefix is the old
form: a model at `SUIKOU_MODEL_BASE_URL` (the generic OpenAI-compatible provider). Every model is
built through pydantic-ai's own provider class so that the provider's *profile* (strict tools,
json_schema support, thinking fields, ...) shapes the request — always on an `AsyncOpenAI` client
Suikou makes itself, with the SDK's hidden retries off and Suikou's timeout. pydantic-ai and the
SDK are imported only when a model is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pydantic_ai.models import Model

OutputMode = Literal["tool", "native", "prompted"]
GENERIC = "openai-compatible"


@dataclass(frozen=True)
class ProviderKind:
    """A provider Suikou knows: pydantic-ai's class for it and where its settings usually live."""

    cls: str | None  # "module.Class" under pydantic_ai.providers; None = the generic provider
    key_env: tuple[str, ...] = ()
    base_env: str | None = None
    base_url: str | None = None


# The tested providers (README "Providers"). Env names are the ones each vendor documents.
KINDS: dict[str, ProviderKind] = {
    "openai": ProviderKind(
        "openai.OpenAIProvider", ("OPENAI_API_KEY",), "OPENAI_BASE_URL", "https://api.openai.com/v1"
    ),
    "deepseek": ProviderKind("deepseek.DeepSeekProvider", ("DEEPSEEK_API_KEY",), None, "https://api.deepseek.com"),
    "alibaba": ProviderKind(
        "alibaba.AlibabaProvider",
        ("ALIBABA_API_KEY", "DASHSCOPE_API_KEY"),
        None,
        "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    ),
    "ollama": ProviderKind(
        "ollama.OllamaProvider", ("OLLAMA_API_KEY",), "OLLAMA_BASE_URL", "http://localhost:11434/v1"
    ),
    "openrouter": ProviderKind(
        "openrouter.OpenRouterProvider", ("OPENROUTER_API_KEY",), None, "https://openrouter.ai/api/v1"
    ),
    GENERIC: ProviderKind(None),
}
# Other spellings people use; `openai-chat` is pydantic-ai's name for OpenAI's Chat Completions.
ALIASES: dict[str, str] = {"dashscope": "alibaba", "qwen": "alibaba", "openai-chat": "openai"}


@dataclass(frozen=True)
class ModelRef:
    """A parsed `provider:model[@base_url]`."""

    provider: str
    model: str
    base_url: str | None = None

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


def parse_ref(ref: str) -> ModelRef:
    """`provider:model`, `provider:model@http://host/v1`, or an old bare name (generic provider)."""
    prefix, sep, rest = ref.partition(":")
    provider = ALIASES.get(prefix, prefix)
    if not sep or provider not in KINDS:
        return ModelRef(GENERIC, ref)  # e.g. "gpt-4o-mini" or "qwen2.5:7b" at SUIKOU_MODEL_BASE_URL
    model, at, url = rest.rpartition("@")
    if at and url.startswith(("http://", "https://")):
        return ModelRef(provider, model, url)
    return ModelRef(provider, rest)


@dataclass(frozen=True)
class ProviderConfig:
    """How to reach one provider, plus the profile flags an operator may override (None = the profile's)."""

    base_url: str | None = None
    api_key: str | None = None
    strict_tools: bool | None = None
    forced_tool_choice: bool | None = None
    output_mode: OutputMode | None = None

    def profile_overrides(self) -> dict[str, Any]:
        flags = {
            "openai_supports_strict_tool_definition": self.strict_tools,
            "supports_forced_tool_choice": self.forced_tool_choice,
            "default_structured_output_mode": self.output_mode,
        }
        return {key: value for key, value in flags.items() if value is not None}


def resolve_providers(
    configured: Mapping[str, ProviderConfig],
    env: Mapping[str, str],
    *,
    legacy_base_url: str | None,
    legacy_key: str | None,
) -> dict[str, ProviderConfig]:
    """Every known provider's config: explicit settings first, then the vendor's usual env vars,
    then (generic provider only) the old SUIKOU_MODEL_BASE_URL / SUIKOU_MODEL_API_KEY."""
    out = {}
    for name, kind in KINDS.items():
        cfg = configured.get(name, ProviderConfig())
        key = cfg.api_key or next((env[k] for k in kind.key_env if env.get(k)), None)
        base = cfg.base_url or (env.get(kind.base_env) if kind.base_env else None)
        if name == GENERIC:
            key, base = key or legacy_key, base or legacy_base_url
        out[name] = ProviderConfig(
            base or kind.base_url, key, cfg.strict_tools, cfg.forced_tool_choice, cfg.output_mode
        )
    return out


def key_hint(provider: str) -> str:
    """The env var an operator sets the key of `provider` with (for error messages)."""
    names = KINDS[provider].key_env if provider in KINDS else ()
    return names[0] if names else "SUIKOU_MODEL_API_KEY"


def build_model(ref: ModelRef, cfg: ProviderConfig, *, timeout_s: float) -> Model:
    """An OpenAIChatModel (Chat Completions, also for `openai:`) through the provider's own class."""
    import importlib

    from openai import AsyncOpenAI
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai_compatible import OpenAICompatibleProvider

    kind = KINDS[ref.provider]
    client = AsyncOpenAI(
        # The vendor's own host when nothing was configured: never api.openai.com for DeepSeek.
        base_url=ref.base_url or cfg.base_url or kind.base_url,
        api_key=cfg.api_key or "not-needed",
        max_retries=0,  # one attempt is one request: Suikou's budget counts them
        timeout=timeout_s,
    )
    if kind.cls is None:
        provider: Any = OpenAICompatibleProvider(ref.provider, openai_client=client)
    else:
        module, cls = kind.cls.rsplit(".", 1)
        provider = getattr(importlib.import_module(f"pydantic_ai.providers.{module}"), cls)(openai_client=client)
    overrides = cfg.profile_overrides()
    return OpenAIChatModel(ref.model, provider=provider, profile=overrides or None)  # type: ignore[arg-type]
