"""Model selection and the one way every node calls a model.

`ModelHub` decides, per node, between the offline rules and a real OpenAI-compatible
chat-completions endpoint. `run_structured` runs a typed pydantic-ai agent on that model and, when
a real provider fails (HTTP error, timeout, invalid output), records a `fallback` stage and answers
with the node's offline rules instead — so a flaky provider degrades the answer, never the request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_ai import Agent, capture_run_messages
from pydantic_ai.exceptions import AgentRunError
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.settings import ModelSettings

from core.trace import Trace

OutputT = TypeVar("OutputT")

OFFLINE = "offline"

# Errors after which a node falls back to its offline rules. Programming errors are not caught.
FALLBACK_ERRORS: tuple[type[BaseException], ...] = (AgentRunError, TimeoutError, OSError)


@dataclass(frozen=True)
class ProviderConfig:
    """An OpenAI-compatible chat-completions endpoint and the model name to ask for."""

    model: str
    base_url: str | None = None
    api_key: str | None = None


@dataclass
class ModelHub:
    """Per-node model choice.

    `default` and `per_node` name models: "offline" or a model name served by `base_url`.
    `injected` holds ready model objects (tests pass pydantic-ai `FunctionModel`s here).
    """

    default: str = OFFLINE
    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 20.0
    output_retries: int = 1
    per_node: Mapping[str, str] = field(default_factory=dict)
    injected: Mapping[str, Model] = field(default_factory=dict)
    _cache: dict[str, Model] = field(default_factory=dict, repr=False)

    def name_for(self, node: str) -> str:
        if node in self.injected:
            return self.injected[node].model_name
        return self.per_node.get(node, self.default)

    def is_offline(self, node: str) -> bool:
        return node not in self.injected and self.name_for(node) == OFFLINE

    def model_for(self, node: str) -> Model:
        """The real (non-offline) model configured for `node`."""
        if node in self.injected:
            return self.injected[node]
        name = self.name_for(node)
        if name not in self._cache:
            self._cache[name] = self._build(name)
        return self._cache[name]

    def settings(self) -> ModelSettings:
        # One attempt per call: the OpenAI SDK's own retries would multiply the timeout unseen.
        return ModelSettings(timeout=self.timeout_s, request_timeout=self.timeout_s)

    async def aclose(self) -> None:
        """Closes the HTTP clients of the provider models this hub built (idempotent)."""
        models, self._cache = list(self._cache.values()), {}
        for model in models:
            client = getattr(model, "client", None)
            if client is not None:
                await client.close()

    def _build(self, name: str) -> Model:
        from openai import AsyncOpenAI
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        client = AsyncOpenAI(
            base_url=self.base_url,
            api_key=self.api_key or "not-needed",
            max_retries=0,
            timeout=self.timeout_s,
        )
        return OpenAIChatModel(name, provider=OpenAIProvider(openai_client=client))


def offline_model(answer: Callable[[], BaseModel | str], *, name: str = OFFLINE) -> FunctionModel:
    """A pydantic-ai model that answers with what `answer()` computes, through the normal agent path."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        out = answer()
        if isinstance(out, str):
            return ModelResponse(parts=[TextPart(out)])
        tool = info.output_tools[0].name
        return ModelResponse(parts=[ToolCallPart(tool, out.model_dump(mode="json"))])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        out = answer()
        if isinstance(out, str):
            # Word-sized pieces so offline chat streams like a real model.
            for piece in _pieces(out):
                yield piece
        else:
            yield {0: DeltaToolCall(name=info.output_tools[0].name, json_args=out.model_dump_json())}

    return FunctionModel(respond, stream_function=stream, model_name=name)


def failed_run_usage(messages: Sequence[ModelMessage], history: Sequence[ModelMessage] | None) -> tuple[int, int, int]:
    """(requests, input tokens, output tokens) a failed run spent, from its captured messages.

    Every response received is one request (e.g. invalid output and its retry); a request that was
    sent but got no response (HTTP error, timeout) is one more. A retry request built but never
    sent (pydantic-ai marks it `interrupted`) is not. At least one: the run did try.
    """
    new = list(messages)[len(history or ()) :]
    responses = [m for m in new if isinstance(m, ModelResponse)]
    requests = len(responses)
    last = messages[-1] if messages else None
    if isinstance(last, ModelRequest) and last.state != "interrupted":
        requests += 1
    input_tokens = sum(r.usage.input_tokens for r in responses)
    output_tokens = sum(r.usage.output_tokens for r in responses)
    return max(requests, 1), input_tokens, output_tokens


def _pieces(text: str, size: int = 12) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _report_fallback(trace: Trace, node: str, exc: BaseException, instead: str) -> None:
    trace.emit(
        "fallback",
        "info",
        f"{node} 的模型调用失败（{type(exc).__name__}），{instead}",
        {"node": node, "error": type(exc).__name__, "detail": str(exc)[:200]},
    )


async def run_structured(
    agent: Agent[None, OutputT],
    prompt: str | None,
    *,
    node: str,
    hub: ModelHub,
    trace: Trace,
    offline: Callable[[], Any],
    message_history: Sequence[ModelMessage] | None = None,
    fallback_offline: bool = True,
) -> OutputT:
    """Runs `agent` on the node's model; falls back to the offline answer if the provider fails.

    With `fallback_offline=False` the provider's error is re-raised after being counted, for
    callers (the router) whose documented degradation is something else.
    """
    if not hub.is_offline(node):
        with capture_run_messages() as messages:
            try:
                result = await agent.run(
                    prompt,
                    model=hub.model_for(node),
                    model_settings=hub.settings(),
                    message_history=message_history,
                    retries={"output": hub.output_retries},
                )
            except FALLBACK_ERRORS as exc:
                # The failed run still cost requests (an invalid output and its retry are two);
                # count them all so usage stays honest.
                trace.count_model_call(node, *failed_run_usage(messages, message_history))
                if not fallback_offline:
                    raise
                _report_fallback(trace, node, exc, "改用离线规则")
            else:
                usage = result.usage
                trace.count_model_call(node, usage.requests, usage.input_tokens, usage.output_tokens)
                return result.output
    result = await agent.run(prompt, model=offline_model(offline), message_history=message_history)
    trace.count_model_call(node, result.usage.requests, 0, 0)
    return result.output


async def stream_text(
    agent: Agent[None, str],
    prompt: str | None,
    *,
    node: str,
    hub: ModelHub,
    trace: Trace,
    offline: Callable[[], str],
    on_delta: Callable[[str], None],
    message_history: Sequence[ModelMessage] | None = None,
) -> str:
    """Streams a text answer through `on_delta`; falls back offline if nothing was sent yet."""
    sent: list[str] = []
    if not hub.is_offline(node):
        try:
            async with agent.run_stream(
                prompt,
                model=hub.model_for(node),
                model_settings=hub.settings(),
                message_history=message_history,
            ) as run:
                async for delta in run.stream_text(delta=True, debounce_by=None):
                    sent.append(delta)
                    on_delta(delta)
                usage = run.usage
            trace.count_model_call(node, usage.requests, usage.input_tokens, usage.output_tokens)
            return "".join(sent)
        except FALLBACK_ERRORS as exc:
            trace.count_model_call(node, 1, 0, 0)
            if sent:
                raise
            _report_fallback(trace, node, exc, "改用离线回复")
    async with agent.run_stream(prompt, model=offline_model(offline), message_history=message_history) as run:
        async for delta in run.stream_text(delta=True, debounce_by=None):
            sent.append(delta)
            on_delta(delta)
        requests = run.usage.requests
    trace.count_model_call(node, requests, 0, 0)
    return "".join(sent)
