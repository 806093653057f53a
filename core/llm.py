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
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import anyio
from pydantic import BaseModel

from core.breaker import Breakers
from core.providers import GENERIC, KINDS, ModelRef, OutputMode, ProviderConfig, build_model, key_hint, parse_ref
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


class OutputCut(Exception):
    """A structured answer that hit its token limit with no tool call: a ramble, cut off. Another
    request with the same limit would ramble again (pydantic-ai would retry it), so none is sent."""

    def __init__(self, response: Any, message: str = "output cut off at the token limit") -> None:
        super().__init__(message)
        self.response = response  # its usage is counted


class TextInsteadOfTool(OutputCut):
    """A tool-mode answer with prose and no tool call: the server ignored `tool_choice` (doctor)."""


@dataclass(frozen=True)
class NodeSpec(Generic[OutputT]):
    """What a model-backed node asks for: a typed output (a pydantic model, or `str` for text)."""

    name: str
    output_type: type[OutputT]
    instructions: str | None = None
    # The request's max_tokens; None = by the spec's name in MAX_TOKENS (docs/fdr/0028).
    max_tokens: int | None = None


# max_tokens per node (by NodeSpec name), from the largest plausible valid output of each output
# type serialized as indented JSON, about twice its token count or more (docs/fdr/0028). Small for
# structured outputs, so a model that rambles instead of answering is stopped early.
MAX_TOKENS: dict[str, int] = {
    "router": 512,
    "plan": 384,
    "reflect": 512,
    "extract": 512,
    "doctor": 64,
    "doctor-text": 64,
    "chat": 1024,
    "aux": 1024,
}
STRUCTURED_MAX_TOKENS, TEXT_MAX_TOKENS = 512, 1024  # a spec not in the table


def max_tokens_for(spec: NodeSpec[Any], scale: float = 1.0) -> int | None:
    """The max_tokens sent for `spec`, times the operator's scale; None (not sent) when the scale is 0."""
    if scale <= 0:
        return None
    structured = isinstance(spec.output_type, type) and issubclass(spec.output_type, BaseModel)
    base = spec.max_tokens or MAX_TOKENS.get(spec.name) or (STRUCTURED_MAX_TOKENS if structured else TEXT_MAX_TOKENS)
    return max(16, round(base * scale))


@cache
def agent_for(spec: NodeSpec[Any]) -> Agent[None, Any]:
    """The pydantic-ai agent for a node, built (and pydantic-ai imported) on first provider use."""
    from pydantic_ai import Agent

    return Agent(None, output_type=spec.output_type, instructions=spec.instructions, name=spec.name)


def fallback_errors() -> tuple[type[BaseException], ...]:
    """Errors after which a node falls back to its offline rules. Programming errors are not caught."""
    from pydantic_ai.exceptions import AgentRunError

    return (AgentRunError, TimeoutError, OSError, EmptyReply, OutputCut)


@dataclass
class ModelHub:
    """Per-node model choice.

    `default` and `per_node` name models: "offline" or `provider:model` (core/providers.py); a bare
    name is the old form, a model served by `base_url` with `api_key`. `providers` holds each
    provider's resolved config (`resolve_providers`). `injected` holds ready model objects (tests
    pass pydantic-ai `FunctionModel`s here).
    """

    default: str = OFFLINE
    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 20.0
    output_retries: int = 1
    max_tokens_scale: float = 1.0  # times MAX_TOKENS; 0 = send no max_tokens (provider default)
    per_node: Mapping[str, str] = field(default_factory=dict)
    providers: Mapping[str, ProviderConfig] = field(default_factory=dict)
    injected: Mapping[str, Model] = field(default_factory=dict)
    # pydantic-ai InstrumentationSettings bound by the app when tracing is on: runs then report
    # agent and model spans under the node's span (set per hub, not on the process-wide agents).
    instrumentation: Any = None
    # Per provider endpoint: after repeated failures nodes skip it for a while (core/breaker.py).
    breakers: Breakers = field(default_factory=Breakers)
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

    def run_model(self, node: str, *, guard: bool = False) -> Model:
        """The model a run of `node` uses: `model_for`, guarded against cut-off structured output
        (`guard`), instrumented when tracing is on."""
        model = self.model_for(node)
        if guard:
            model = guarded(model)
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

    def breaker_key(self, node: str) -> str:
        """Which breaker `node`'s calls go through: one per endpoint and model (nodes sharing a
        provider share its breaker)."""
        if node in self.injected:
            model = self.injected[node]
            return f"{model.system}:{model.model_name}"
        ref = self.ref_for(node)
        return f"{ref}@{ref.base_url or self.config_for(ref).base_url or ''}"

    def ref_for(self, node: str) -> ModelRef:
        return parse_ref(self.name_for(node))

    def config_for(self, ref: ModelRef) -> ProviderConfig:
        """The provider's config; the generic one falls back to the hub's own base URL and key."""
        cfg = self.providers.get(ref.provider, ProviderConfig())
        if ref.provider == GENERIC:
            cfg = replace(cfg, base_url=cfg.base_url or self.base_url, api_key=cfg.api_key or self.api_key)
        return cfg

    def _build(self, name: str) -> Model:
        ref = parse_ref(name)
        return build_model(ref, self.config_for(ref), timeout_s=self.timeout_s)


def guarded(model: Model, *, text_fails: bool = False) -> Model:
    """`model`, but a structured request whose answer stopped at the token limit without a tool
    call raises `OutputCut` instead of going back to the agent, which would ask again ("please
    call the tool") for another full-length ramble. `text_fails`: any prose instead of the tool
    call raises `TextInsteadOfTool` (doctor: one request tells it all)."""
    guard: Model = _guard_class()(model, text_fails)
    return guard


@cache
def _guard_class() -> Callable[[Model, bool], Model]:
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models import ModelRequestParameters
    from pydantic_ai.models.wrapper import WrapperModel

    class CutGuard(WrapperModel):
        def __init__(self, wrapped: Model, text_fails: bool) -> None:
            super().__init__(wrapped)
            self.text_fails = text_fails

        async def request(
            self,
            messages: list[ModelMessage],
            model_settings: ModelSettings | None,
            model_request_parameters: ModelRequestParameters,
        ) -> ModelResponse:
            response = await self.wrapped.request(messages, model_settings, model_request_parameters)
            if model_request_parameters.output_mode == "text":
                return response  # a text answer cut short is still an answer
            called = any(isinstance(p, ToolCallPart) for p in response.parts)
            if response.finish_reason == "length" and not called:
                raise OutputCut(response)
            wrote = any(isinstance(p, TextPart) and p.content.strip() for p in response.parts)
            if self.text_fails and model_request_parameters.output_mode == "tool" and wrote and not called:
                raise TextInsteadOfTool(response, "answered with text instead of calling the tool")
            return response

    return CutGuard


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


# What the user reads when the rules answer instead, by kind of failure: Suikou's words, never the
# provider's (its text, which may quote internals, stays in the server log).
FAILURE_WORDS: dict[str, str] = {
    "timeout": "模型没有回应（超时）",
    "unreachable": "模型连不上",
    "http": "模型服务出错（HTTP {status}）",
    "cut": "模型的回答太长被截断",
    "invalid": "模型返回了无法使用的结果",
    "failed": "模型调用失败",
}
INSTEAD = "这次由规则回答"
COMPLETED = "后面由规则补全"  # a streamed reply cut after text was shown
SKIPPED = "模型暂时跳过（连续失败），这次由规则回答"
BUDGET_WORDS = {"requests": "本轮的模型请求次数用完了，这次由规则回答", "time": "本轮的模型时间用完了，这次由规则回答"}


def failure_kind(exc: BaseException) -> str:
    """The FAILURE_WORDS key for an error a node fell back on."""
    from pydantic_ai.exceptions import (
        ModelConnectionError,
        ModelHTTPError,
        ModelRequestTimeout,
        ModelTimeoutError,
        UnexpectedModelBehavior,
    )

    kinds: tuple[tuple[tuple[type[BaseException], ...], str], ...] = (
        ((TimeoutError, ModelTimeoutError, ModelRequestTimeout), "timeout"),
        ((ModelConnectionError, OSError), "unreachable"),
        ((ModelHTTPError,), "http"),
        ((OutputCut,), "cut"),
        ((UnexpectedModelBehavior, EmptyReply), "invalid"),
    )
    return next((kind for types, kind in kinds if isinstance(exc, types)), "failed")


def _report_fallback(trace: Trace, node: str, exc: BaseException, instead: str = INSTEAD) -> None:
    log.warning("provider failed at %s: %s: %s", node, type(exc).__name__, str(exc)[:500])
    kind = failure_kind(exc)
    words = FAILURE_WORDS[kind].format(status=getattr(exc, "status_code", ""))
    trace.emit("fallback", "info", f"{words}，{instead}", {"node": node, "error": type(exc).__name__, "kind": kind})


def _within_budget(node: str, hub: ModelHub, trace: Trace) -> bool:
    """The one place the per-turn budget and the provider's breaker are enforced: may `node` still
    ask its provider?

    Past the request count or the wall time, or while its provider's breaker is open, the node
    answers with its offline rules, visibly.
    """
    if hub.is_offline(node):
        return False
    left, seconds = trace.requests_left(), trace.budget.seconds_left()
    if left < 1 or seconds <= 0:
        trace.emit(
            "fallback",
            "info",
            BUDGET_WORDS["requests" if left < 1 else "time"],
            {
                "node": node,
                "error": "budget",
                "requests": trace.usage.requests,
                "max_requests": trace.budget.max_requests,
            },
        )
        return False
    return _breaker_allows(node, hub, trace)


SKIPS_NOTE = "provider_skips"  # Trace.notes: {node: calls the breaker skipped} (read by /metrics)


def _breaker_allows(node: str, hub: ModelHub, trace: Trace) -> bool:
    """Whether `node`'s provider breaker lets a request through. A skip is said once per turn: every
    node of the turn skips the same provider for the same reason."""
    if hub.breakers.allow(hub.breaker_key(node)):
        return True
    skips: dict[str, int] = trace.notes.setdefault(SKIPS_NOTE, {})
    if not skips:
        trace.emit("fallback", "info", SKIPPED, {"node": node, "error": "breaker"})
    skips[node] = skips.get(node, 0) + 1
    return False


def _provider_answered(node: str, hub: ModelHub, ok: bool) -> None:
    key = hub.breaker_key(node)
    if ok:
        hub.breakers.success(key)
    else:
        hub.breakers.failure(key)


def _call_settings(spec: NodeSpec[Any], hub: ModelHub, trace: Trace) -> tuple[ModelSettings, float]:
    """Per-request timeout capped by the turn's remaining time (the SDK's own retries are off, so
    one attempt is one request), also returned for the run's overall deadline; and the node's
    max_tokens, so a model that rambles stops early."""
    from pydantic_ai.settings import ModelSettings

    seconds = max(0.01, min(hub.timeout_s, trace.budget.seconds_left()))
    settings = ModelSettings(timeout=seconds, request_timeout=seconds)
    max_tokens = max_tokens_for(spec, hub.max_tokens_scale)
    if max_tokens is not None:
        settings["max_tokens"] = max_tokens
    return settings, seconds


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


# (model ref, output mode) pairs a provider rejected, remembered for the process: a shape that got
# a 400 once is not sent again (docs/fdr/0020).
REJECTED_MODES: set[tuple[str, str]] = set()
MODES: tuple[OutputMode, ...] = ("tool", "native", "prompted")
# Status codes that mean "this request shape is not accepted", as opposed to a failing provider.
REJECTION_STATUS = (400, 422)


class _Rejected(Exception):
    """The provider (or its profile, before sending) refused this output mode."""


def output_modes(spec: NodeSpec[Any], node: str, hub: ModelHub) -> list[OutputMode | None]:
    """The modes to try for a node, best first: the profile's default, then the others it supports,
    minus those rejected before. None = the spec's plain output type (text, or injected models)."""
    if node in hub.injected or not issubclass(spec.output_type, BaseModel):
        return [None]
    profile = hub.model_for(node).profile
    first = profile.get("default_structured_output_mode", "tool")
    first = first if first in MODES else "tool"
    order = [first, *(m for m in MODES if m != first)]
    name = hub.name_for(node)
    supported = {"native": bool(profile.get("supports_json_schema_output"))}
    return [m for m in order if supported.get(m, True) and (name, m) not in REJECTED_MODES]


def _output_for(spec: NodeSpec[Any], mode: OutputMode | None) -> Any:
    from pydantic_ai import NativeOutput, PromptedOutput, ToolOutput

    wrappers: dict[str, Any] = {"tool": ToolOutput, "native": NativeOutput, "prompted": PromptedOutput}
    return spec.output_type if mode is None else wrappers[mode](spec.output_type)


def _is_rejection(exc: BaseException) -> bool:
    from pydantic_ai.exceptions import ModelHTTPError, UserError

    return isinstance(exc, UserError) or (isinstance(exc, ModelHTTPError) and exc.status_code in REJECTION_STATUS)


def _report_rejection(trace: Trace, node: str, name: str, mode: str, exc: BaseException) -> None:
    REJECTED_MODES.add((name, mode))
    status = getattr(exc, "status_code", None)
    log.warning("%s (%s) rejected output mode %s: %s", node, name, mode, str(exc)[:300])
    trace.emit(
        "output_mode",
        "info",
        f"{node} 的模型不接受 {mode} 输出方式，换一种方式再试",
        {"node": node, "model": name, "mode": mode, "status": status, "error": type(exc).__name__},
    )


async def _ask_provider(
    spec: NodeSpec[Any],
    prompt: Prompt,
    node: str,
    hub: ModelHub,
    trace: Trace,
    message_history: Sequence[ModelMessage] | None,
    instructions: Prompt,
) -> tuple[bool, Any]:
    """(True, output) from the provider, or (False, None) after a counted, reported failure.

    A mode the provider rejects is remembered and the next one tried, within the budget; each
    mode is tried at most once per call, so this never loops.
    """
    modes = output_modes(spec, node, hub)
    for i, mode in enumerate(modes):
        last = i == len(modes) - 1
        try:
            return await _run_once(spec, mode, prompt, node, hub, trace, message_history, instructions, last=last)
        except _Rejected as rejected:
            _report_rejection(trace, node, hub.name_for(node), str(mode), rejected.__cause__ or rejected)
            if not _within_budget(node, hub, trace):
                return False, None
    if not modes:  # every mode was rejected earlier in this process
        _report_fallback(trace, node, EmptyReply("no output mode left"))
    return False, None


async def _run_once(
    spec: NodeSpec[Any],
    mode: OutputMode | None,
    prompt: Prompt,
    node: str,
    hub: ModelHub,
    trace: Trace,
    message_history: Sequence[ModelMessage] | None,
    instructions: Prompt,
    *,
    last: bool,
) -> tuple[bool, Any]:
    """One agent run in one output mode. Raises `_Rejected` when the mode is refused and another is left."""
    from pydantic_ai import capture_run_messages
    from pydantic_ai.exceptions import UsageLimitExceeded, UserError
    from pydantic_ai.usage import UsageLimits

    settings, seconds = _call_settings(spec, hub, trace)
    allowed = trace.requests_left()
    retries = max(0, min(hub.output_retries, allowed - 1))
    errors: tuple[type[BaseException], ...] = (*fallback_errors(), UserError)
    with capture_run_messages() as messages:
        try:
            with anyio.fail_after(min(seconds * (retries + 1), max(0.01, trace.budget.seconds_left()))):
                result = await agent_for(spec).run(
                    _text(prompt),
                    model=hub.run_model(node, guard=True),
                    output_type=_output_for(spec, mode),
                    model_settings=settings,
                    message_history=message_history,
                    # One number for every kind of retry (invalid output, text instead of a tool
                    # call, an unknown tool), and a hard cap on the requests themselves.
                    retries=retries,
                    usage_limits=UsageLimits(request_limit=allowed),
                    instructions=_text(instructions),
                )
        except errors as exc:
            # A UserError is the profile refusing the mode before anything was sent: nothing to count.
            # Otherwise the failed run still cost requests (an invalid output and its retry are
            # two); count them all so usage stays honest. A request the limit stopped was not sent.
            if not isinstance(exc, UserError):
                sent_last = not isinstance(exc, UsageLimitExceeded)
                requests, tokens_in, tokens_out = failed_run_usage(messages, message_history, sent_last=sent_last)
                if isinstance(exc, OutputCut):  # the guard raised before the agent kept the response
                    tokens_in += exc.response.usage.input_tokens
                    tokens_out += exc.response.usage.output_tokens
                trace.count_model_call(node, requests, tokens_in, tokens_out)
            # A refused request shape and Suikou's own budget are not the provider failing.
            if not (_is_rejection(exc) or isinstance(exc, UsageLimitExceeded)):
                _provider_answered(node, hub, ok=False)
            # The last mode left is never marked rejected: a 400 may be about this prompt (too
            # long, say), not the shape, and one mode must stay to try next time.
            if mode is not None and not last and _is_rejection(exc):
                raise _Rejected from exc
            _report_fallback(trace, node, exc)
            return False, None
    _provider_answered(node, hub, ok=True)
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
        settings, _ = _call_settings(spec, hub, trace)  # the timeout bounds each read of the stream
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
            blank = not "".join(sent).strip()
            _provider_answered(node, hub, ok=not blank)
            if not blank:
                if not live:
                    on_delta("".join(sent))
                return "".join(sent)
            # A blank reply is no answer: the offline one is (what was shown, if anything, was blank).
            _report_fallback(trace, node, EmptyReply("the provider's reply was blank"))
            sent = []
        except fallback_errors() as exc:
            trace.count_model_call(node, 1, 0, 0)
            _provider_answered(node, hub, ok=False)
            shown = live and bool(sent)
            _report_fallback(trace, node, exc, COMPLETED if shown else INSTEAD)
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


# --- `suikou doctor`: one tiny request per node -------------------------------------------------

NODES = ("route", "plan", "reflect", "extract", "chat")
LABELS = {"route": "router"}  # what operators call the node in the issue and the README


class Ping(BaseModel):
    """A health check answer."""

    ok: bool


PINGS: dict[bool, NodeSpec[Any]] = {
    True: NodeSpec("doctor", Ping, "This is a health check. Answer with ok=true."),
    False: NodeSpec("doctor-text", str, "This is a health check. Answer with the word ok."),
}
# Why a request failed, by HTTP status, in an operator's words.
STATUS_WORDS = {401: "unauthorized", 403: "forbidden", 404: "model not found", 429: "rate limited"}


@dataclass(frozen=True)
class Probe:
    node: str
    model: str
    ok: bool
    mode: str | None = None
    seconds: float = 0.0
    problem: str | None = None
    fix: str | None = None  # the setting that makes a failing node answer
    fix_checked: bool = False  # doctor tried `fix` and it worked
    url: str | None = None  # the base URL asked (`shown_url`: no credentials), None for injected models

    def line(self) -> str:
        return self.line_for([self.node])

    def line_for(self, nodes: Sequence[str]) -> str:
        """The line for `nodes`, which all had this outcome (`doctor_lines`)."""
        head = f"{', '.join(LABELS.get(n, n) for n in nodes)}: {self.model} — "
        if self.model == OFFLINE:
            return head + "offline rules"
        if self.ok:
            return head + f"ok in {self.seconds:.2f}s, output mode {self.mode or 'text'}"
        tried = f"; tried {self.url}" if self.url else ""
        fix = ""
        if self.fix:
            fix = f"; works with {self.fix}" if self.fix_checked else f"; try {self.fix}"
        falls = "this node falls back to its" if len(nodes) == 1 else "these nodes fall back to their"
        return head + f"{self.problem}{tried}{fix}; {falls} offline rules"


def doctor_lines(probes: Sequence[Probe]) -> list[str]:
    """One line per outcome, in node order: nodes with the same model, endpoint and failure (a
    provider that is down, a missing key) or on the offline rules share a line instead of repeating
    it once per node. Each answer that worked keeps its own line (its time and output mode)."""
    groups: dict[object, list[Probe]] = {}
    for probe in probes:
        shared = not probe.ok or probe.model == OFFLINE
        key = (probe.model, probe.url, probe.problem, probe.fix, probe.fix_checked) if shared else id(probe)
        groups.setdefault(key, []).append(probe)
    return [group[0].line_for([p.node for p in group]) for group in groups.values()]


def shown_url(url: str) -> str:
    """`url` as doctor prints it: scheme, host, port and path; never a user, password or query."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def base_url_hint(provider: str) -> str:
    """The env var an operator sets `provider`'s base URL with."""
    if provider == GENERIC:
        return "SUIKOU_MODEL_BASE_URL"
    return KINDS[provider].base_env or setting_name(provider, "BASE_URL")


# Providers that answer without a key (a local server); every other one needs its vendor's key.
KEYLESS_PROVIDERS = frozenset({GENERIC, "ollama"})


def missing_setting(hub: ModelHub, ref: ModelRef) -> str | None:
    """What doctor need not ask a provider to know: no base URL to ask, or no key a vendor requires."""
    cfg = hub.config_for(ref)
    if not (ref.base_url or cfg.base_url or KINDS[ref.provider].base_url):
        return f"no base URL (set {base_url_hint(ref.provider)})"
    if ref.provider not in KEYLESS_PROVIDERS and not cfg.api_key:
        return f"no API key (set {key_hint(ref.provider)})"
    return None


def tried_url(hub: ModelHub, ref: ModelRef) -> str | None:
    """The base URL a model of `ref` is built with (`build_model`), as doctor prints it."""
    url = ref.base_url or hub.config_for(ref).base_url or KINDS[ref.provider].base_url
    return shown_url(url) if url else None


# The settings that change the request shape for a server whose chat template ignores
# `tool_choice`, in the order doctor tries them: tools without forcing (the template may still
# call them), then no tools at all (the schema in the instructions, the JSON as the reply).
TEMPLATE_FIXES: tuple[tuple[str, str, dict[str, Any], OutputMode], ...] = (
    ("FORCED_TOOL_CHOICE", "false", {"forced_tool_choice": False}, "tool"),
    ("OUTPUT_MODE", "prompted", {"output_mode": "prompted"}, "prompted"),
)


def setting_name(provider: str, field_name: str) -> str:
    """The env var of one provider setting (`openai-compatible` is spelled OPENAI_COMPATIBLE)."""
    return f"SUIKOU_PROVIDERS__{provider.upper().replace('-', '_')}__{field_name}"


# Why a connection failed, by what the exception chain holds: (its type names, words in its
# message, what doctor says). First match wins; the chain's outermost error is usually the SDK's
# bare "Connection error.", the cause below it says which.
CONNECTION_REASONS: tuple[tuple[frozenset[str], tuple[str, ...], str], ...] = (
    (frozenset({"ConnectionRefusedError"}), ("refused",), "connection refused"),
    (
        frozenset({"gaierror"}),
        ("name or service not known", "nodename nor servname", "name resolution"),
        "host not found",
    ),
    (
        frozenset({"TimeoutError", "APITimeoutError", "ConnectTimeout", "ReadTimeout", "TimeoutException"}),
        ("timed out",),
        "timed out",
    ),
    (frozenset({"APIConnectionError", "ConnectError", "RemoteProtocolError"}), (), "no connection"),
)


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 16:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def connection_problem(exc: BaseException, ref: ModelRef) -> str | None:
    """ "cannot connect (connection refused; ...)" for an error that never reached the provider."""
    chain = _chain(exc)
    names = {cls.__name__ for error in chain for cls in type(error).__mro__}
    text = " ".join(str(error) for error in chain).lower()
    for types, words, reason in CONNECTION_REASONS:
        if names & types or any(word in text for word in words):
            if reason == "timed out":
                return "no answer in time (timed out; raise SUIKOU_MODEL_TIMEOUT_S for a slow server)"
            return f"cannot connect ({reason}; set {base_url_hint(ref.provider)} if the server is elsewhere)"
    return None


def describe_failure(exc: BaseException, ref: ModelRef) -> str:
    if isinstance(exc, TextInsteadOfTool):
        return "answered with text instead of calling the tool (the server's chat template ignores tool_choice)"
    if isinstance(exc, OutputCut):
        return "wrote text to the token limit instead of calling the tool (the chat template ignores tool_choice?)"
    status = getattr(exc, "status_code", None)
    if status in (401, 403):
        return f"{status} {STATUS_WORDS[status]} (check {key_hint(ref.provider)})"
    if status is not None:
        return f"{status} {STATUS_WORDS.get(status, type(exc).__name__)}"
    return connection_problem(exc, ref) or f"{type(exc).__name__}: {str(exc)[:120]}"


async def _ping(spec: NodeSpec[Any], model: Model, mode: OutputMode | None, hub: ModelHub) -> None:
    """One health-check run: no SDK retries, the hub's timeout and the ping's max_tokens; prose
    instead of a tool call fails at once (`TextInsteadOfTool`)."""
    from pydantic_ai.settings import ModelSettings

    settings = ModelSettings(timeout=hub.timeout_s)
    max_tokens = max_tokens_for(spec, hub.max_tokens_scale)
    if max_tokens is not None:
        settings["max_tokens"] = max_tokens
    with anyio.fail_after(hub.timeout_s * 2):
        await agent_for(spec).run(
            "ping",
            model=guarded(model, text_fails=True),
            output_type=_output_for(spec, mode),
            model_settings=settings,
            retries=1,
        )


async def _try_fixes(spec: NodeSpec[Any], hub: ModelHub, node: str) -> tuple[str, bool]:
    """(the setting to suggest, whether a ping with it worked): each TEMPLATE_FIXES entry is tried on
    a model built with it, in order; the first that answers is the one to set."""
    ref = hub.ref_for(node)
    suggestions = [f"{setting_name(ref.provider, name)}={value}" for name, value, _, _ in TEMPLATE_FIXES]
    if node in hub.injected:
        return " or ".join(suggestions), False
    for suggestion, (_, _, change, mode) in zip(suggestions, TEMPLATE_FIXES, strict=True):
        model = build_model(ref, replace(hub.config_for(ref), **change), timeout_s=hub.timeout_s)
        try:
            await _ping(spec, model, mode, hub)
            return suggestion, True
        except Exception:  # whatever goes wrong (an HTTP error, prose again), this fix does not work
            continue
        finally:
            client = getattr(model, "client", None)
            if client is not None:
                await client.close()
    return " or ".join(suggestions), False


async def probe_node(hub: ModelHub, node: str, *, clock: Callable[[], float]) -> Probe:
    """Asks `node`'s provider one tiny question the way the node would (its output modes, no SDK
    retries, the hub's timeout), timed by `clock`. A tool-mode answer in prose (a chat template that
    ignores tool_choice) gets the setting that fixes it, tried first."""
    from pydantic_ai.exceptions import UserError

    name = hub.name_for(node)
    if hub.is_offline(node):
        return Probe(node, name, True)
    url, missing = None, None
    if node not in hub.injected:
        ref = hub.ref_for(node)
        url, missing = tried_url(hub, ref), missing_setting(hub, ref)
    if missing is not None:  # no request could answer: none is sent
        return Probe(node, name, False, problem=f"{missing} for {url}" if url else missing)
    spec = PINGS[node != "chat"]
    errors: tuple[type[BaseException], ...] = (*fallback_errors(), UserError)
    start, problem = clock(), "no output mode left"
    try:
        for mode in output_modes(spec, node, hub):
            try:
                await _ping(spec, hub.model_for(node), mode, hub)
                return Probe(node, name, True, mode, clock() - start, url=url)
            except errors as exc:
                problem = describe_failure(exc, hub.ref_for(node))
                if isinstance(exc, OutputCut) and mode in ("tool", None):
                    fix, checked = await _try_fixes(spec, hub, node)
                    return Probe(node, name, False, None, clock() - start, problem, fix, checked, url)
                if not _is_rejection(exc):
                    break
    except UserError as exc:  # the model could not even be built (a malformed name, say)
        problem = describe_failure(exc, hub.ref_for(node))
    return Probe(node, name, False, None, clock() - start, problem, url=url)
