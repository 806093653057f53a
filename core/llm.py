"""Model selection and the one way every node calls a model.

`ModelHub` decides, per node, between the offline rules and a real OpenAI-compatible
chat-completions endpoint. A node is described by a `NodeSpec` (its output type and
instructions); `run_structured` answers it with the offline rules directly, or runs a typed
pydantic-ai agent built from the spec on the node's provider and, when that fails (HTTP error,
timeout, invalid output), records a `fallback` stage and answers with the rules instead — so a
flaky provider degrades the answer, never the request. pydantic-ai is imported only when a
provider is asked: an offline service never loads it (about 0.4 s of start-up).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import anyio
from pydantic import BaseModel

from core.trace import Trace

if TYPE_CHECKING:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models import Model
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.settings import ModelSettings

OutputT = TypeVar("OutputT")

log = logging.getLogger("suikou.model")

OFFLINE = "offline"


class EmptyReply(Exception):
    """A provider answered, but with nothing to show."""


@dataclass(frozen=True)
class NodeSpec(Generic[OutputT]):
    """What a model-backed node asks for: a typed output (a pydantic model, or `str` for text)."""

    name: str
    output_type: type[OutputT]
    instructions: str | None = None


@cache
def agent_for(spec: NodeSpec[Any]) -> Agent[None, Any]:
    """The pydantic-ai agent for a node, built (and pydantic-ai imported) on first provider use."""
    from pydantic_ai import Agent

    return Agent(None, output_type=spec.output_type, instructions=spec.instructions, name=spec.name)


def fallback_errors() -> tuple[type[BaseException], ...]:
    """Errors after which a node falls back to its offline rules. Programming errors are not caught."""
    from pydantic_ai.exceptions import AgentRunError

    return (AgentRunError, TimeoutError, OSError, EmptyReply)


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
    # pydantic-ai InstrumentationSettings bound by the app when tracing is on: runs then report
    # agent and model spans under the node's span (set per hub, not on the process-wide agents).
    instrumentation: Any = None
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

    def run_model(self, node: str) -> Model:
        """The model a run of `node` uses: `model_for`, instrumented when tracing is on."""
        model = self.model_for(node)
        if self.instrumentation is None:
            return model
        from pydantic_ai.models.instrumented import InstrumentedModel

        return InstrumentedModel(model, self.instrumentation)

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
    """A pydantic-ai model that answers with what `answer()` computes, through the normal agent path
    (for tests that want the rules behind a real agent run)."""
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

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


def failed_run_usage(
    messages: Sequence[ModelMessage], history: Sequence[ModelMessage] | None, *, sent_last: bool = True
) -> tuple[int, int, int]:
    """(requests, input tokens, output tokens) a failed run spent, from its captured messages.

    Every response received is one request (e.g. invalid output and its retry); a request that was
    sent but got no response (HTTP error, timeout) is one more. A retry request built but never
    sent (pydantic-ai marks it `interrupted`, or a usage limit stopped it: `sent_last=False`) is
    not. At least one: the run did try.
    """
    from pydantic_ai.messages import ModelRequest, ModelResponse

    new = list(messages)[len(history or ()) :]
    responses = [m for m in new if isinstance(m, ModelResponse)]
    requests = len(responses)
    last = messages[-1] if messages else None
    if sent_last and isinstance(last, ModelRequest) and last.state != "interrupted":
        requests += 1
    input_tokens = sum(r.usage.input_tokens for r in responses)
    output_tokens = sum(r.usage.output_tokens for r in responses)
    return max(requests, 1), input_tokens, output_tokens


def _pieces(text: str, size: int = 12) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _report_fallback(trace: Trace, node: str, exc: BaseException, instead: str) -> None:
    # The client sees the kind of failure; the provider's own words (which may quote internals)
    # stay in the server log.
    log.warning("provider failed at %s: %s: %s", node, type(exc).__name__, str(exc)[:500])
    trace.emit(
        "fallback",
        "info",
        f"{node} 的模型调用失败（{type(exc).__name__}），{instead}",
        {"node": node, "error": type(exc).__name__},
    )


def _within_budget(node: str, hub: ModelHub, trace: Trace) -> bool:
    """The one place the per-turn budget is enforced: may `node` still ask its provider?

    Past the request count or the wall time, the node answers with its offline rules, visibly.
    """
    if hub.is_offline(node):
        return False
    left, seconds = trace.requests_left(), trace.budget.seconds_left()
    if left >= 1 and seconds > 0:
        return True
    spent = "请求次数" if left < 1 else "时间"
    trace.emit(
        "fallback",
        "info",
        f"本轮的模型{spent}预算已用完，{node} 改用离线规则",
        {"node": node, "error": "budget", "requests": trace.usage.requests, "max_requests": trace.budget.max_requests},
    )
    return False


def _call_settings(hub: ModelHub, trace: Trace) -> tuple[ModelSettings, float]:
    """Per-request timeout capped by the turn's remaining time (the SDK's own retries are off, so
    one attempt is one request); also returned for the run's overall deadline."""
    from pydantic_ai.settings import ModelSettings

    seconds = max(0.01, min(hub.timeout_s, trace.budget.seconds_left()))
    return ModelSettings(timeout=seconds, request_timeout=seconds), seconds


Prompt = str | Callable[[], str] | None  # a callable is built only when a provider is asked


def _text(prompt: Prompt) -> str | None:
    return prompt() if callable(prompt) else prompt


async def run_structured(
    spec: NodeSpec[OutputT],
    prompt: Prompt,
    *,
    node: str,
    hub: ModelHub,
    trace: Trace,
    offline: Callable[[], Any],
    message_history: Sequence[ModelMessage] | None = None,
    instructions: Prompt = None,
) -> OutputT:
    """The node's typed output: from its provider within the turn's budget, else from its rules.

    A provider's output-validation retries are capped so that they fit in the budget too. Every
    provider failure (HTTP error, timeout, invalid output) is counted and reported as a `fallback`
    stage, then the rules answer. `prompt` and `instructions` may be callables: offline, nobody
    reads them.
    """
    if _within_budget(node, hub, trace):
        answered, output = await _ask_provider(spec, prompt, node, hub, trace, message_history, instructions)
        if answered:
            return output
    trace.count_offline(node)
    return _offline_output(spec, offline)


async def _ask_provider(
    spec: NodeSpec[Any],
    prompt: Prompt,
    node: str,
    hub: ModelHub,
    trace: Trace,
    message_history: Sequence[ModelMessage] | None,
    instructions: Prompt,
) -> tuple[bool, Any]:
    """(True, output) from the provider, or (False, None) after a counted, reported failure."""
    from pydantic_ai import capture_run_messages
    from pydantic_ai.exceptions import UsageLimitExceeded
    from pydantic_ai.usage import UsageLimits

    settings, seconds = _call_settings(hub, trace)
    allowed = trace.requests_left()
    retries = max(0, min(hub.output_retries, allowed - 1))
    with capture_run_messages() as messages:
        try:
            with anyio.fail_after(min(seconds * (retries + 1), max(0.01, trace.budget.seconds_left()))):
                result = await agent_for(spec).run(
                    _text(prompt),
                    model=hub.run_model(node),
                    model_settings=settings,
                    message_history=message_history,
                    # One number for every kind of retry (invalid output, text instead of a tool
                    # call, an unknown tool), and a hard cap on the requests themselves.
                    retries=retries,
                    usage_limits=UsageLimits(request_limit=allowed),
                    instructions=_text(instructions),
                )
        except fallback_errors() as exc:
            # The failed run still cost requests (an invalid output and its retry are two); count
            # them all so usage stays honest. A request the limit stopped was not sent.
            sent_last = not isinstance(exc, UsageLimitExceeded)
            trace.count_model_call(node, *failed_run_usage(messages, message_history, sent_last=sent_last))
            _report_fallback(trace, node, exc, "改用离线规则")
            return False, None
    usage = result.usage
    trace.count_model_call(node, usage.requests, usage.input_tokens, usage.output_tokens)
    return True, result.output


def _offline_output(spec: NodeSpec[OutputT], offline: Callable[[], Any]) -> OutputT:
    """The rules' answer, validated as the node's output type — without an agent run, which costs
    10-300x the rules themselves (the answer is the same: the rules are the model)."""
    out = offline()
    if issubclass(spec.output_type, BaseModel):
        # Re-validate: rules may build their answer with model_copy, which skips validation.
        return spec.output_type.model_validate(out.model_dump() if isinstance(out, BaseModel) else out)
    return out


async def stream_text(
    spec: NodeSpec[str],
    prompt: str | None,
    *,
    node: str,
    hub: ModelHub,
    trace: Trace,
    offline: Callable[[], str],
    on_delta: Callable[[str], None],
    live: bool = True,
    message_history: Callable[[], Sequence[ModelMessage]] | None = None,
    instructions: str | None = None,
) -> str:
    """Streams a text answer through `on_delta`; a failing provider never fails the turn.

    `live` says whether deltas reach the user as they come (a streaming client). If the provider
    fails before anything was shown, the offline answer replaces it. If it fails after text was
    shown live, the offline answer follows what was shown, after a `fallback` stage. When not live
    nothing partial is kept: the answer is the offline one, whole. `message_history` is built only
    when a provider is asked.
    """
    sent: list[str] = []
    if _within_budget(node, hub, trace):
        settings, _ = _call_settings(hub, trace)  # the timeout bounds each read of the stream
        try:
            # A reply may stream for longer than one read's timeout, but not past the turn's budget.
            with anyio.fail_after(max(0.01, trace.budget.seconds_left())):
                async with agent_for(spec).run_stream(
                    prompt,
                    model=hub.run_model(node),
                    model_settings=settings,
                    message_history=message_history() if message_history else None,
                    instructions=instructions,
                ) as run:
                    async for delta in run.stream_text(delta=True, debounce_by=None):
                        sent.append(delta)
                        if live:
                            on_delta(delta)
                    usage = run.usage
            trace.count_model_call(node, usage.requests, usage.input_tokens, usage.output_tokens)
            if "".join(sent).strip():
                if not live:
                    on_delta("".join(sent))
                return "".join(sent)
            # A blank reply is no answer: the offline one is (what was shown, if anything, was blank).
            _report_fallback(trace, node, EmptyReply("the provider's reply was blank"), "改用离线回复")
            sent = []
        except fallback_errors() as exc:
            trace.count_model_call(node, 1, 0, 0)
            shown = live and bool(sent)
            _report_fallback(trace, node, exc, "回复中断，用离线回复补全" if shown else "改用离线回复")
            if shown:
                on_delta(OFFLINE_AFTER_CUT)
            else:
                sent = []
    trace.count_offline(node)
    answer = offline()
    if live:
        for piece in _pieces(answer):
            on_delta(piece)
    else:
        on_delta(answer)
    return "".join(sent) + (OFFLINE_AFTER_CUT if sent else "") + answer


# Between a provider reply cut off mid-stream and the offline answer that completes the turn.
OFFLINE_AFTER_CUT = "\n\n"
