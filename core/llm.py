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

from core.providers import GENERIC, ModelRef, OutputMode, ProviderConfig, build_model, parse_ref
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
    per_node: Mapping[str, str] = field(default_factory=dict)
    providers: Mapping[str, ProviderConfig] = field(default_factory=dict)
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
        _report_fallback(trace, node, EmptyReply("no output mode left"), "改用离线规则")
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

    settings, seconds = _call_settings(hub, trace)
    allowed = trace.requests_left()
    retries = max(0, min(hub.output_retries, allowed - 1))
    errors: tuple[type[BaseException], ...] = (*fallback_errors(), UserError)
    with capture_run_messages() as messages:
        try:
            with anyio.fail_after(min(seconds * (retries + 1), max(0.01, trace.budget.seconds_left()))):
                result = await agent_for(spec).run(
                    _text(prompt),
                    model=hub.run_model(node),
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
                trace.count_model_call(node, *failed_run_usage(messages, message_history, sent_last=sent_last))
            # The last mode left is never marked rejected: a 400 may be about this prompt (too
            # long, say), not the shape, and one mode must stay to try next time.
            if mode is not None and not last and _is_rejection(exc):
                raise _Rejected from exc
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

    def line(self) -> str:
        head = f"{LABELS.get(self.node, self.node)}: {self.model} — "
        if self.model == OFFLINE:
            return head + "offline rules"
        if self.ok:
            return head + f"ok in {self.seconds:.2f}s, output mode {self.mode or 'text'}"
        return head + f"{self.problem}; this node falls back to its offline rules"


def describe_failure(exc: BaseException, ref: ModelRef) -> str:
    from core.providers import key_hint

    status = getattr(exc, "status_code", None)
    if status in (401, 403):
        return f"{status} {STATUS_WORDS[status]} (check {key_hint(ref.provider)})"
    if status is not None:
        return f"{status} {STATUS_WORDS.get(status, type(exc).__name__)}"
    return f"{type(exc).__name__}: {str(exc)[:120]}"


async def probe_node(hub: ModelHub, node: str, *, clock: Callable[[], float]) -> Probe:
    """Asks `node`'s provider one tiny question the way the node would (its output modes, no SDK
    retries, the hub's timeout), timed by `clock`."""
    from pydantic_ai.exceptions import UserError
    from pydantic_ai.settings import ModelSettings

    name = hub.name_for(node)
    if hub.is_offline(node):
        return Probe(node, name, True)
    spec = PINGS[node != "chat"]
    errors: tuple[type[BaseException], ...] = (*fallback_errors(), UserError)
    start, problem = clock(), "no output mode left"
    try:
        for mode in output_modes(spec, node, hub):
            try:
                with anyio.fail_after(hub.timeout_s * 2):
                    await agent_for(spec).run(
                        "ping",
                        model=hub.model_for(node),
                        output_type=_output_for(spec, mode),
                        model_settings=ModelSettings(timeout=hub.timeout_s),
                        retries=1,
                    )
                return Probe(node, name, True, mode, clock() - start)
            except errors as exc:
                problem = describe_failure(exc, hub.ref_for(node))
                if not _is_rejection(exc):
                    break
    except UserError as exc:  # the model could not even be built (a malformed name, say)
        problem = describe_failure(exc, hub.ref_for(node))
    return Probe(node, name, False, None, clock() - start, problem)
