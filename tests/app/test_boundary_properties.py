"""Property tests of the trust boundary: models that misbehave on purpose, whole turns, fixed words.

Every node's model is a fake (`FunctionModel`) that follows a generated script: schema-valid
proposals with wrong values (invented time phrases, absurd or naive timestamps, limits, quadrants,
keywords the user never said, a write at confidence 1.0 on a question), invalid output (fields
outside the schema, non-JSON tool arguments, plain text), provider errors, and hangs longer than
the turn's time budget; the chat model streams replies that are cut off or that claim a write.
Each turn runs one of a fixed list of user sentences (a few as follow-ups), sent whole or
streamed, and whatever the models did, the answer keeps what the user's words and the rules fix:

1. no exception leaves a turn, and it answers something (over HTTP: status 200 and a well-formed
   body or SSE stream ending in [DONE]);
2. the count lock: a query's limit (and a retry's) comes from `extract_count(sentence)` only;
3. the time window is the offline anchor's whenever the rules derive one (otherwise a model window
   needs a phrase the user said, and plausible bounds);
4. no write unless `offline_route(sentence, [])` reads a note, and then with the offline deadline;
5. at most `model_request_budget` (5) provider requests per turn, and every request a fake model
   received is counted;
6. chat never writes, and a turn that wrote nothing never claims a write without the correction.

The offline references come from a second harness: the all-offline run of the same sentence (for a
note), or the same run with the router told `task_query` (for a query: plan, time_anchor and
reflect stay offline), so that a chat sentence a bad router sends to the query graph has one too.
Runs are derandomized; the clock is the harness's fixed NOW.

Bugs these properties found are kept as minimal regression tests at the end (`test_found_*`).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import Counter
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, Literal
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlmodel import select

from app.actions import build_registry
from app.turns import make_job
from app.wire import ChatRequest
from core.countlock import extract_count
from core.grounding import FUTURE_RANGE, PAST_RANGE, occurs_in
from core.llm import ModelHub
from core.models import Task
from core.trace import StageEvent
from core.turn import ChatText, HistoryTurn
from route.offline import offline_route
from support.check_stream import check_body, must_failures
from support.harness import NOW, TZ, Answer, Harness, make_harness

# --- the turn's limits ----------------------------------------------------------------------------

BUDGET = 5  # Settings.model_request_budget's default
TURN_SECONDS = 0.5  # turn_time_budget_s: a hang costs at most this much
MODEL_TIMEOUT_S = 0.15  # per request, so that a hanging node still leaves time for the next
HANG_S = 8.0  # much longer than the turn budget; a hang that is not cut off fails the test
GUARD_S = 15.0  # a turn that takes longer than this hung: the time budget failed
DEFAULT_LIMIT, MAX_LIMIT = 5, 20

# --- the user's words -----------------------------------------------------------------------------


REGISTRY = build_registry()


@dataclass(frozen=True)
class Said:
    """The user's latest message, and the conversation before it (role, text)."""

    text: str
    history: tuple[tuple[str, str], ...] = ()

    def offline_action(self) -> str:
        """The action the generic offline rules pick (their intent, as the app's registry answers it)."""
        intent = offline_route(self.text, [HistoryTurn(role, text) for role, text in self.history])[0]
        return REGISTRY.for_intent(intent) or REGISTRY.fallback


SENTENCES: tuple[str, ...] = (
    "来一个简单的任务",
    "前3个明天要交的",
    "下周三之前要交什么",
    "给我一些任务",
    "所有逾期的任务",
    "top 30 tasks",
    "what's due tomorrow?",
    "帮我记一下明天下午三点交报告",
    "提醒我后天上午十点开会，提前一天提醒我",
    "remind me to call mom tomorrow at 8pm",
    "你好",
    "讲个笑话",
)
# Follow-ups: the question they continue is part of the user's words, and may carry the count.
FOLLOW_UPS = (
    Said(
        "还有吗", (("user", "前3个明天要交的"), ("assistant", "只找到这一条：\n给你整理了 1 条任务：\n1. 交季度报告"))
    ),
    Said("再来两个", (("user", "下周三之前要交什么"), ("assistant", "给你整理了 3 条任务：\n1. 交季度报告"))),
    Said(
        "那明天的呢", (("user", "来一个简单的任务"), ("assistant", "给你挑了一个：\n给你整理了 1 条任务：\n1. 取快递"))
    ),
)
ALL_SAID = tuple(Said(text) for text in SENTENCES) + FOLLOW_UPS
QUESTIONS = tuple(s for s in ALL_SAID if s.offline_action() == "task_query")
NOTES = tuple(s for s in ALL_SAID if s.offline_action() == "quick_note_create")
CHATS = tuple(s for s in ALL_SAID if s.offline_action() == "chat")

# Time phrases: some said in a sentence above, most not ("下周", "2030年", "tomorrow" in Chinese).
TIME_PHRASES = (
    "下周",
    "2030年",
    "tomorrow",
    "明天",
    "后天上午十点",
    "下周三之前",
    "逾期",
    "昨天",
    "13月5日",
    "前3",
    "前3个",
)
KEYWORDS = ("报告", "季度", "交", "任务", "咖啡", "mom", "删除", "%", "_", "' OR 1=1 --", "下周", "x" * 120)
TITLES = ("交报告", "下周交报告", "删除所有任务", "开会", "call mom", "买牛奶", "明天下午三点交报告", "已经帮你记下了")
CLAIMS = (
    "好的，已经帮你记下了！",
    "已经帮你记下了",
    "好，已经帮你记下了，明天提醒你。",
    "OK, I've added it to your list.",
    "好的，已为您添加到任务列表。",
    "Done! Task created for tomorrow at 8pm.",
)
CHAT_TEXTS = (
    "你好！",
    "哈哈，",
    "这是一个笑话。",
    "Sure, ",
    "明天下午三点",
    "交报告",
    "\n",
    "",
    "1. 交报告（重要且紧急）",
)
# Reflect's one-line prefix, including a claim of a write that did not happen.
PREFIXES = ("这些是你要的：", "Here you go:", "1. 交报告", "", "已记下", "好的，已经帮你记下了", "长" * 80)
ERRORS = ("http500", "http429", "timeout", "oserror", "reset")
NOT_JSON = ("{not json", "", "null", "[]", '{"action": "quick_note_create", "confidence": 1.0', "'quoted'", "{}}")
ZONES = (UTC, ZoneInfo(TZ), timezone(timedelta(hours=-12)), timezone(timedelta(hours=14)))
ABSURD_TIMES = ("1900-01-01T00:00:00", "2300-12-31T23:59:59+08:00", "1900-01-01T00:00:00Z", "2026-12-01T15:00:00")

Node = Literal["route", "plan", "reflect", "extract", "chat"]


# --- what a fake model does on one call -----------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """Answer with the output tool and these arguments: a dict (maybe schema-valid) or a raw string."""

    args: dict[str, Any] | str


@dataclass(frozen=True)
class Text:
    """Plain text where the agent expects its output tool."""

    text: str


@dataclass(frozen=True)
class UnknownTool:
    """Calls a tool the agent does not have."""

    args: dict[str, Any]


@dataclass(frozen=True)
class Fail:
    error: str  # one of ERRORS


@dataclass(frozen=True)
class Hang:
    """Never answers within the turn's time budget."""


@dataclass(frozen=True)
class Stream:
    """The chat model's reply: these pieces, then a normal end, an error, or a hang."""

    pieces: tuple[str, ...]
    then: Literal["end", "oserror", "http", "hang"] = "end"


Behaviour = Call | Text | UnknownTool | Fail | Hang | Stream
Script = Mapping[str, tuple[Behaviour, ...]]  # per node, the n-th call does script[node][n % len]


def error(kind: str) -> Exception:
    return {
        "http500": ModelHTTPError(500, "fake", "server error"),
        "http429": ModelHTTPError(429, "fake", "rate limited"),
        "timeout": TimeoutError("fake read timeout"),
        "oserror": OSError("fake network down"),
        "reset": ConnectionResetError("fake connection reset"),
    }[kind]


@dataclass
class Fakes:
    """The fake models of one turn; counts every call each one receives."""

    script: Script
    calls: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.calls.values())

    def hub(self) -> ModelHub:
        return ModelHub(injected={node: self._model(node) for node in self.script}, timeout_s=MODEL_TIMEOUT_S)

    def _next(self, node: str) -> Behaviour:
        steps = self.script[node]
        behaviour = steps[self.calls[node] % len(steps)]
        self.calls[node] += 1
        return behaviour

    def _model(self, node: str) -> FunctionModel:
        async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            behaviour = self._next(node)
            tool = info.output_tools[0].name if info.output_tools else "final_result"
            if isinstance(behaviour, Call):
                return ModelResponse(parts=[ToolCallPart(tool, behaviour.args)])
            if isinstance(behaviour, Text):
                return ModelResponse(parts=[TextPart(behaviour.text)])
            if isinstance(behaviour, UnknownTool):
                return ModelResponse(parts=[ToolCallPart("delete_every_task", behaviour.args)])
            if isinstance(behaviour, Fail):
                raise error(behaviour.error)
            await asyncio.sleep(HANG_S)  # Hang (or a Stream scripted on a structured node)
            raise AssertionError(f"{node}: the turn's time budget did not cut off a hanging model")

        async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
            behaviour = self._next(node)
            if isinstance(behaviour, Fail):
                raise error(behaviour.error)
            if not isinstance(behaviour, Stream):
                await asyncio.sleep(HANG_S)
                raise AssertionError(f"{node}: the turn's time budget did not cut off a hanging stream")
            # An empty delta first, as a provider's role chunk (FunctionModel refuses an empty stream).
            for piece in ("", *behaviour.pieces):
                yield piece
            if behaviour.then == "oserror":
                raise OSError("fake stream cut")
            if behaviour.then == "http":
                raise ModelHTTPError(502, "fake", "bad gateway mid-stream")
            if behaviour.then == "hang":
                await asyncio.sleep(HANG_S)
                raise AssertionError(f"{node}: the turn's time budget did not cut off a hanging stream")

        return FunctionModel(respond, stream_function=stream, model_name=f"fake-{node}")


# --- strategies: per node, outputs both schema-valid and not --------------------------------------


def substrings(sentence: str) -> st.SearchStrategy[str]:
    """Pieces of the user's own words: grounded, but not necessarily a time phrase or a keyword."""
    return st.tuples(st.integers(0, len(sentence)), st.integers(1, 6)).map(lambda p: sentence[p[0] : p[0] + p[1]])


def phrases(sentence: str) -> st.SearchStrategy[str | None]:
    return st.one_of(st.none(), st.sampled_from(TIME_PHRASES), substrings(sentence))


def keywords(sentence: str) -> st.SearchStrategy[str | None]:
    return st.one_of(st.none(), st.sampled_from(KEYWORDS), substrings(sentence))


def timestamps() -> st.SearchStrategy[str | int | None]:
    """Schema-valid moments: naive and aware, plausible and absurd (1900, 2300), or a Unix time."""
    zones: st.SearchStrategy[Any] = st.one_of(st.none(), st.sampled_from(ZONES))
    anywhen = st.datetimes(datetime(1900, 1, 1), datetime(2300, 12, 31), timezones=zones)
    near_now = st.datetimes(datetime(2026, 11, 1), datetime(2027, 3, 1), timezones=zones)
    return st.one_of(
        st.none(),
        near_now.map(datetime.isoformat),
        anywhen.map(datetime.isoformat),
        st.sampled_from(ABSURD_TIMES),
        st.integers(-(10**10), 10**12),  # pydantic reads a number as Unix time
    )


def limits() -> st.SearchStrategy[int]:
    """Not in the model's schema, but `QueryPlan`/`PlanPatch` accept one: it must be ignored."""
    return st.one_of(st.sampled_from([0, 1, 99, -3]), st.integers(-5, 200))


def groups() -> st.SearchStrategy[list[int] | None]:
    return st.one_of(st.none(), st.lists(st.integers(1, 4), max_size=4))


@st.composite
def some_of(draw: st.DrawFn, fields: Mapping[str, st.SearchStrategy[Any]]) -> dict[str, Any]:
    """A dict holding each field with probability 1/2: missing fields take the schema's default."""
    return {name: draw(strategy) for name, strategy in fields.items() if draw(st.booleans())}


def route_args(sentence: str) -> st.SearchStrategy[dict[str, Any]]:
    """Any registered action at any confidence: a note at 1.0 on a question, a query on a note..."""
    return st.fixed_dictionaries(
        {
            "action": st.sampled_from(["quick_note_create", "task_query", "chat"]),
            "confidence": st.one_of(st.sampled_from([1.0, 0.0, 0.59, 0.6]), st.floats(0, 1)),
            "reason": st.one_of(st.sampled_from(["用户要记任务", ""]), substrings(sentence)),
        }
    )


def plan_args(sentence: str) -> st.SearchStrategy[dict[str, Any]]:
    return some_of(
        {
            "quadrants": groups(),
            "time_text": phrases(sentence),
            "time_after": timestamps(),
            "time_before": timestamps(),
            "time_field": st.sampled_from(["deadline", "completed", "created"]),
            "include_completed": st.booleans(),
            "keyword": keywords(sentence),
            "sort_by": st.sampled_from(["deadline", "priority", "id"]),
            "order": st.sampled_from(["asc", "desc"]),
            "limit": limits(),
        }
    )


def patch_args(sentence: str) -> st.SearchStrategy[dict[str, Any]]:
    return some_of(
        {
            "quadrants": groups(),
            "clear_quadrants": st.booleans(),
            "time_text": phrases(sentence),
            "clear_time": st.booleans(),
            "time_field": st.sampled_from(["deadline", "completed", "created"]),
            "include_completed": st.booleans(),
            "keyword": keywords(sentence),
            "clear_keyword": st.booleans(),
            "sort_by": st.sampled_from(["deadline", "priority", "id"]),
            "order": st.sampled_from(["asc", "desc"]),
            "limit": limits(),
        }
    )


def reflect_args(sentence: str) -> st.SearchStrategy[dict[str, Any]]:
    """Mostly "retry with this patch", since the patch is what could move the query."""
    return st.fixed_dictionaries(
        {"need_retry": st.sampled_from([True, True, False]), "patch": st.one_of(patch_args(sentence), st.none())},
        optional={"satisfied": st.booleans(), "prefix": st.one_of(st.sampled_from(PREFIXES), substrings(sentence))},
    )


def extract_args(sentence: str) -> st.SearchStrategy[dict[str, Any]]:
    return some_of(
        {
            "title": st.one_of(st.none(), st.sampled_from(TITLES), substrings(sentence)),
            "time_text": phrases(sentence),
            "deadline_at": timestamps(),
            "priority_group": st.integers(1, 4),
            "priority_reason": st.sampled_from(["很急", "", "z" * 300]),
            "urgency_threshold_text": phrases(sentence),
        }
    )


VALID_ARGS = {"route": route_args, "plan": plan_args, "reflect": reflect_args, "extract": extract_args}

# Values outside the node's schema: the agent's output validation must catch them.
BAD_FIELDS: dict[str, tuple[tuple[str, Any], ...]] = {
    "route": (
        ("action", "delete_all_tasks"),
        ("action", ""),
        ("confidence", 1.5),
        ("confidence", -0.5),
        ("confidence", "high"),
        ("reason", "z" * 250),
    ),
    "plan": (
        ("quadrants", [0, 5]),
        ("quadrants", [1, 7]),
        ("quadrants", "urgent"),
        ("time_field", "due"),
        ("time_after", "2026-13-45T25:00:00"),
        ("time_before", "明天"),
        ("sort_by", "random"),
        ("limit", "all"),
    ),
    "reflect": (
        ("patch", {"quadrants": [9]}),
        ("patch", {"limit": "all"}),
        ("patch", "retry please"),
        ("need_retry", "maybe"),
        ("prefix", None),
    ),
    "extract": (
        ("priority_group", 0),
        ("priority_group", 5),
        ("deadline_at", "下周"),
        ("deadline_at", "soon"),
        ("title", ["交报告"]),
    ),
}


def broken_args(node: str, sentence: str) -> st.SearchStrategy[dict[str, Any]]:
    """Well-formed arguments with one field outside the schema."""
    return st.tuples(VALID_ARGS[node](sentence), st.sampled_from(BAD_FIELDS[node])).map(
        lambda pair: {**pair[0], pair[1][0]: pair[1][1]}
    )


# How one node's invalid outputs are invalid: one flaw per script, or a mix of them, or a call to a
# tool the agent does not have (pydantic-ai retries these on counters of their own; the budget caps
# them all).
FLAWS = ("bad_args", "not_json", "text", "unknown_tool", "mixed")


@st.composite
def structured_call(draw: st.DrawFn, node: str, sentence: str, flaw: str) -> Behaviour:
    """One call of a structured node: mostly schema-valid but wrong, else invalid (`flaw`), an error or a hang."""
    kind = draw(st.sampled_from(["valid", "valid", "valid", "invalid", "invalid", "fail", "hang"]))
    if kind == "valid":
        return Call(draw(VALID_ARGS[node](sentence)))
    if kind == "fail":
        return Fail(draw(st.sampled_from(ERRORS)))
    if kind == "hang":
        return Hang()
    if flaw == "mixed":
        flaw = draw(st.sampled_from(["bad_args", "not_json", "text", "unknown_tool"]))
    if flaw == "bad_args":
        return Call(draw(broken_args(node, sentence)))
    if flaw == "not_json":
        return Call(draw(st.sampled_from(NOT_JSON)))
    if flaw == "unknown_tool":
        return UnknownTool({})
    return Text(draw(st.sampled_from(["好的", '{"action": "chat"}', ""])))


def chat_streams() -> st.SearchStrategy[Behaviour]:
    """Replies that end well (some blank), end in an error after some text (or none), hang, or fail at once."""
    said = st.one_of(st.sampled_from(CHAT_TEXTS), st.sampled_from(CLAIMS))
    pieces = st.lists(said, max_size=4).map(tuple)
    ended = st.builds(Stream, pieces)
    cut = st.builds(Stream, pieces, st.sampled_from(["oserror", "http", "hang"]))
    return st.one_of(ended, ended, cut, st.builds(Fail, st.sampled_from(ERRORS)))


@st.composite
def calls_of(draw: st.DrawFn, node: str, sentence: str) -> tuple[Behaviour, ...]:
    """What the node's model does on its 1st, 2nd, 3rd call (then again from the 1st)."""
    one = chat_streams() if node == "chat" else structured_call(node, sentence, draw(st.sampled_from(FLAWS)))
    return tuple(draw(st.lists(one, min_size=1, max_size=3)))


@dataclass(frozen=True)
class Case:
    said: Said
    script: Script
    live: bool  # the answer streams to the client as it comes (stream=true), or is sent whole


@st.composite
def cases(draw: st.DrawFn, said: tuple[Said, ...], nodes: tuple[Node, ...], *, optional: bool = False) -> Case:
    """What the user said, and a script for `nodes` (each left offline now and then when `optional`)."""
    words = draw(st.sampled_from(said))
    script: dict[str, tuple[Behaviour, ...]] = {
        node: draw(calls_of(node, words.text)) for node in nodes if not optional or draw(st.integers(0, 3)) > 0
    }
    return Case(words, script, draw(st.booleans()))


# --- the service, its offline reference, and what a turn did --------------------------------------

SEED = (
    ("交季度报告", 1, "2026-12-01 15:00"),
    ("买咖啡豆", 3, "2026-12-03 19:00"),
    ("提交年度预算", 1, "2026-12-09 18:00"),
    ("取快递", 3, "2026-11-29 18:00"),
    ("整理旅行相册", 4, None),
)
_turn_ids = itertools.count()  # every turn gets its own client message id: no idempotent replays


@pytest.fixture
def service(database_url: str) -> Iterator[Harness]:
    h = make_harness(
        database_url,
        turn_time_budget_s=TURN_SECONDS,
        model_timeout_s=MODEL_TIMEOUT_S,
        model_request_budget=BUDGET,
        note_near_duplicates="allow",  # examples repeat notes into one database on purpose
    )
    for title, group, deadline in SEED:
        h.add(title, group, deadline)
    yield h
    h.state.engine.dispose()


def tasks(h: Harness) -> list[Task]:
    with h.state.session() as session:
        return list(session.exec(select(Task).order_by(Task.id)))  # type: ignore[arg-type]


def task_ids(h: Harness) -> set[int | None]:
    return {t.id for t in tasks(h)}


def events(answer: Answer, stage: str, status: str = "end") -> list[StageEvent]:
    return [e for e in answer.events if e.stage == stage and e.status == status]


def query_anchors(answer: Answer) -> list[dict[str, Any]]:
    """The time_anchor data of the query graph (a note's time_anchor has a deadline instead)."""
    return [e.data for e in events(answer, "time_anchor") if "limit" in e.data]


def always(action: str) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        args = {"action": action, "confidence": 1.0, "reason": "reference"}
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)])

    return FunctionModel(respond, model_name=f"always-{action}")


@dataclass
class Reference:
    """What the offline rules make of what was said, from runs on a harness of its own (cached)."""

    harness: Harness
    anchors: dict[Said, dict[str, Any] | None] = field(default_factory=dict)
    deadlines: dict[Said, datetime | None] = field(default_factory=dict)

    async def anchor(self, said: Said) -> dict[str, Any] | None:
        """The query's time_anchor data with the router told `task_query` and every other node offline."""
        if said not in self.anchors:
            self.harness.state.hub = ModelHub(injected={"route": always("task_query")})
            answer = await self.harness.ask(said.text, history=said.history, client_message_id=f"r{next(_turn_ids)}")
            self.anchors[said] = next(iter(query_anchors(answer)), None)
        return self.anchors[said]

    async def deadline(self, said: Said) -> datetime | None:
        """The deadline of the task that the all-offline run writes."""
        if said not in self.deadlines:
            self.harness.state.hub = ModelHub()
            before = task_ids(self.harness)
            await self.harness.ask(said.text, history=said.history, client_message_id=f"r{next(_turn_ids)}")
            [new] = [t for t in tasks(self.harness) if t.id not in before]
            self.deadlines[said] = new.deadline_at
        return self.deadlines[said]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reference]:
    h = make_harness(f"sqlite:///{tmp_path_factory.mktemp('reference') / 'reference.db'}")
    yield Reference(h)
    h.state.engine.dispose()


@dataclass
class Turn:
    said: Said
    answer: Answer
    fakes: Fakes
    created: list[Task]


async def ask(h: Harness, said: Said, *, live: bool) -> Answer:
    """`Harness.ask`; when `live`, as a streaming client gets it, and what was shown is the answer."""
    turn_id = f"t{next(_turn_ids)}"
    if not live:
        return await h.ask(said.text, history=said.history, client_message_id=turn_id)
    messages = [ChatText(role, text) for role, text in (*said.history, ("user", said.text))]
    request = ChatRequest.model_validate(
        {"model": "suikou", "messages": [{"role": m.role, "content": m.text} for m in messages]}
    )
    job = make_job(h.state, request, messages, user_id=h.user(), tz=TZ, client_message_id=turn_id)
    shown: list[str] = []
    job.turn.streaming, job.turn.on_content = True, shown.append
    outcome = await job.run()
    assert "".join(shown) == outcome.content  # the stream and the whole answer agree
    usage = job.turn.trace.usage
    return Answer(outcome.content, outcome.action, list(job.turn.trace.events), usage.requests, usage.offline_steps)


async def run_turn(h: Harness, case: Case) -> Turn:
    """One turn with the scripted fakes. An exception out of it fails the test (invariant 1)."""
    fakes = Fakes(case.script)
    h.state.hub = fakes.hub()
    before = task_ids(h)
    async with asyncio.timeout(GUARD_S):
        answer = await ask(h, case.said, live=case.live)
    created = [t for t in tasks(h) if t.id not in before]
    return Turn(case.said, answer, fakes, created)


# --- the invariants -------------------------------------------------------------------------------


def locked_limit(sentence: str) -> int:
    """The count the sentence says (capped), "all" as the maximum, else the default."""
    lock = extract_count(sentence)
    if lock.explicit is not None:
        return min(lock.explicit, MAX_LIMIT)
    return MAX_LIMIT if lock.wants_all else DEFAULT_LIMIT


async def check_count_lock(turn: Turn, reference: Reference) -> None:
    """2. Every query the turn ran (the first and any retry) has the limit of the user's words."""
    anchors = query_anchors(turn.answer)
    if not anchors:
        return
    want = await reference.anchor(turn.said)
    assert want is not None
    lock = extract_count(turn.said.text)
    if not turn.said.history or lock.explicit is not None or lock.wants_all:
        assert want["limit"] == locked_limit(turn.said.text), (turn.said, want)  # the reference itself
    retries = [e.data["limit"] for e in turn.answer.events if e.stage == "retry" and "limit" in e.data]
    assert [a["limit"] for a in anchors] + retries == [want["limit"]] * (len(anchors) + len(retries)), turn.said


def plausible(iso: str | None) -> bool:
    return iso is None or NOW - PAST_RANGE <= datetime.fromisoformat(iso) <= NOW + FUTURE_RANGE


async def check_time_window(turn: Turn, reference: Reference) -> None:
    """3. A query's window is the offline anchor's; without one, only a phrase the user said, with sane bounds."""
    anchors = query_anchors(turn.answer)
    if not anchors:
        return
    [got] = anchors
    want = await reference.anchor(turn.said)
    assert want is not None, f"{turn.said}: a query ran where the rules never run one"
    assert got["time_field"] == want["time_field"], (turn.said, got, want)
    window = (got["time_after"], got["time_before"])
    if want["time_after"] or want["time_before"]:
        assert window == (want["time_after"], want["time_before"]), (turn.said, got, want)
    elif window != (None, None):
        [plan] = events(turn.answer, "plan")
        phrase = plan.data["plan"].get("time_text")
        said = "\n".join([turn.said.text, *(text for role, text in turn.said.history if role == "user")])
        assert occurs_in(phrase, said), (turn.said, phrase, got)
        assert plausible(got["time_after"]) and plausible(got["time_before"]), (turn.said, got)


async def check_writes(turn: Turn, reference: Reference) -> None:
    """4. A task is written only where the rules read a note, once, with the rules' deadline."""
    if not turn.created:
        return
    assert turn.said.offline_action() == "quick_note_create", (turn.said, turn.answer.action)
    assert offline_route(turn.said.text, [])[0] == "capture", turn.said  # the rules read a note
    assert turn.answer.action == "quick_note_create", turn.answer.stages
    [task] = turn.created
    assert task.deadline_at == await reference.deadline(turn.said), (turn.said, task)


def check_budget(requests: int, fakes: Fakes) -> None:
    """5. Provider requests: within the budget; every request a fake received is counted."""
    assert fakes.total <= requests <= BUDGET, (requests, fakes.calls)


def claims_a_write(text: str) -> bool:
    return "已经帮你记下" in text or "I've added it" in text


def check_words(action: str, content: str, created: list[Task]) -> None:
    """6. Chat never writes; a turn that wrote nothing never says it did without the code's correction."""
    if action == "chat":
        assert not created, created
    if not created and claims_a_write(content):
        assert "更正" in content or "Correction" in content, content


def note_outcome(turn: Turn) -> None:
    """Statistics for `--hypothesis-show-statistics`: which paths the generated cases reached."""
    answer = turn.answer
    event(f"action={answer.action}" + (" wrote" if turn.created else ""))
    for e in answer.events:
        if e.stage == "fallback":
            event(f"fallback {e.data.get('node')}: {e.data.get('error')}")
        if e.stage in ("retry", "clarify", "broaden") or (e.stage == "route" and "proposed" in e.data):
            event(f"stage {e.stage}")
        if e.stage == "chat" and e.data.get("claim"):
            event("chat claim corrected")
    event(f"requests={answer.requests}")


async def check_turn(turn: Turn, reference: Reference) -> None:
    note_outcome(turn)
    assert turn.answer.content.strip(), turn.answer.stages  # 1. an answer, not an exception or nothing
    await check_count_lock(turn, reference)
    await check_time_window(turn, reference)
    await check_writes(turn, reference)
    check_budget(turn.answer.requests, turn.fakes)
    check_words(turn.answer.action, turn.answer.content, turn.created)


# --- the properties -------------------------------------------------------------------------------

PROPERTY = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@settings(PROPERTY, max_examples=40)
@given(case=cases(ALL_SAID, ("route",)))
async def test_a_misbehaving_router_cannot_write_or_change_the_query(
    service: Harness, reference: Reference, case: Case
) -> None:
    """Any action at any confidence (a note at 1.0 on a question), invalid output, errors, hangs."""
    await check_turn(await run_turn(service, case), reference)


@settings(PROPERTY, max_examples=40)
@given(case=cases(QUESTIONS, ("plan", "reflect")))
async def test_a_misbehaving_planner_and_reflector_keep_count_and_time(
    service: Harness, reference: Reference, case: Case
) -> None:
    await check_turn(await run_turn(service, case), reference)


@settings(PROPERTY, max_examples=30)
@given(case=cases(NOTES, ("extract",)))
async def test_a_misbehaving_extractor_writes_the_rules_deadline(
    service: Harness, reference: Reference, case: Case
) -> None:
    turn = await run_turn(service, case)
    await check_turn(turn, reference)
    # The router is offline and reads a note: the turn writes it (these notes have a title and a time).
    assert len(turn.created) == 1, turn.answer.stages


@settings(PROPERTY, max_examples=30)
@given(case=cases(CHATS, ("chat",)))
async def test_a_misbehaving_chat_model_never_claims_a_write(
    service: Harness, reference: Reference, case: Case
) -> None:
    await check_turn(await run_turn(service, case), reference)


@settings(PROPERTY, max_examples=40)
@given(case=cases(ALL_SAID, ("route", "plan", "reflect", "extract", "chat"), optional=True))
async def test_every_node_misbehaving_at_once(service: Harness, reference: Reference, case: Case) -> None:
    await check_turn(await run_turn(service, case), reference)


async def test_the_query_reference_is_the_all_offline_run(reference: Reference) -> None:
    """Telling the router `task_query` changes nothing for what the rules route there themselves."""
    for said in QUESTIONS:
        reference.harness.state.hub = ModelHub()
        offline = await reference.harness.ask(said.text, history=said.history, client_message_id=f"r{next(_turn_ids)}")
        assert query_anchors(offline) == [await reference.anchor(said)], said


# --- over HTTP: status 200 and a well-formed body, whatever the models did -------------------------


@dataclass
class Reply:
    content: str
    action: str  # from the route event
    requests: int  # from the usage


def post(client: TestClient, key: str, said: Said, *, stream: bool) -> Any:
    messages = [{"role": role, "content": text} for role, text in (*said.history, ("user", said.text))]
    body: dict[str, Any] = {"model": "suikou", "messages": messages, "stream": stream}
    if stream:
        body["stream_options"] = {"include_usage": True}
    headers = {"Authorization": f"Bearer {key}", "X-Client-Message-Id": f"h{next(_turn_ids)}"}
    return client.post("/v1/chat/completions", headers=headers, json=body)


def routed(stage_events: list[dict[str, Any]]) -> str:
    [route] = [e for e in stage_events if e["stage"] == "route"]
    return str(route["data"]["action"])


def whole_reply(response: Any) -> Reply:
    """A well-formed chat.completion body."""
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["object"] == "chat.completion"
    [choice] = body["choices"]
    assert choice["finish_reason"] == "stop"
    assert choice["message"]["role"] == "assistant"
    assert isinstance(choice["message"]["content"], str) and choice["message"]["content"]
    return Reply(choice["message"]["content"], routed(body["suikou_events"]), body["usage"]["model_requests"])


def streamed_reply(response: Any) -> Reply:
    """A well-formed SSE stream: the protocol checker's MUST items, no error event, then [DONE]."""
    assert response.status_code == 200, response.text
    failures = must_failures(check_body(response.content, include_usage=True, headers=response.headers, status=200))
    assert not failures, failures
    datas = [line.removeprefix("data: ") for line in response.text.splitlines() if line.startswith("data: ")]
    assert datas[-1] == "[DONE]"
    chunks = [json.loads(d) for d in datas[:-1]]
    assert not [c for c in chunks if "error" in c], chunks
    *answer, usage = chunks
    assert answer[-1]["choices"][0]["finish_reason"] == "stop"
    content = "".join(c["choices"][0]["delta"].get("content") or "" for c in answer)
    assert content
    action = routed([c["suikou_event"] for c in answer if "suikou_event" in c])
    return Reply(content, action, usage["usage"]["model_requests"])


@settings(PROPERTY, max_examples=8)
@given(case=cases(ALL_SAID, ("route", "plan", "reflect", "extract", "chat")))
def test_http_answers_200_whatever_the_models_do(service: Harness, case: Case) -> None:
    key = service.api_key("alice")
    with service.client() as client:
        for stream in (False, True):
            fakes = Fakes(case.script)
            service.state.hub = fakes.hub()
            before = task_ids(service)
            response = post(client, key, case.said, stream=stream)
            reply = streamed_reply(response) if stream else whole_reply(response)
            created = [t for t in tasks(service) if t.id not in before]
            check_budget(reply.requests, fakes)
            if created:
                assert case.said.offline_action() == "quick_note_create", case.said
            check_words(reply.action, reply.content, created)


# --- bugs found by the properties, kept as minimal reproductions ----------------------------------


def scripted(name: str, *steps: Behaviour) -> tuple[FunctionModel, Fakes]:
    fakes = Fakes({name: steps})
    return fakes._model(name), fakes


async def test_found_text_then_invalid_args_exceeds_the_turn_budget(database_url: str) -> None:
    plan, plan_calls = scripted("plan", Text("好的"), Call({"quadrants": [0, 5]}))
    reflect, reflect_calls = scripted("reflect", Text("好的"), Call({"need_retry": "maybe"}))
    h = make_harness(database_url, hub=ModelHub(injected={"plan": plan, "reflect": reflect}))
    answer = await h.ask("来一个简单的任务")
    h.state.engine.dispose()
    assert plan_calls.total + reflect_calls.total == answer.requests <= BUDGET


async def test_found_an_unknown_tool_is_retried_past_the_budget() -> None:

    from core.llm import NodeSpec, run_structured
    from core.trace import Budget, Trace
    from taskquery.plan import QueryPlan

    plan, calls = scripted("plan", UnknownTool({}))
    trace = Trace(budget=Budget(max_requests=1))
    spec = NodeSpec("plan", QueryPlan)
    hub = ModelHub(injected={"plan": plan})
    await run_structured(spec, "x", node="plan", hub=hub, trace=trace, offline=QueryPlan)
    assert calls.total == trace.usage.requests == 1  # counted honestly, within the budget


async def test_found_a_note_gets_a_deadline_the_user_never_said(database_url: str) -> None:
    extract, _ = scripted(
        "extract", Call({"title": "买牛奶", "time_text": "买牛奶", "deadline_at": "2026-12-05T09:00:00"})
    )
    h = make_harness(database_url, hub=ModelHub(injected={"extract": extract}))
    answer = await h.ask("帮我记一下买牛奶")
    [task] = tasks(h)
    h.state.engine.dispose()
    assert answer.action == "quick_note_create" and task.title == "买牛奶"
    assert task.deadline_at is None  # as the all-offline run: "买牛奶" names no time


@pytest.mark.parametrize("pieces", [("",), (" ", "\n")])
async def test_found_an_empty_chat_reply_is_passed_on(database_url: str, pieces: tuple[str, ...]) -> None:
    chat, _ = scripted("chat", Stream(pieces))
    h = make_harness(database_url, hub=ModelHub(injected={"chat": chat}))
    answer = await h.ask("讲个笑话")
    h.state.engine.dispose()
    assert answer.action == "chat" and answer.requests == 1
    assert answer.content.strip()


async def test_found_a_query_answer_claims_a_write_from_reflects_prefix(database_url: str) -> None:
    reflect, _ = scripted("reflect", Call({"satisfied": True, "prefix": "好的，已经帮你记下了"}))
    h = make_harness(database_url, hub=ModelHub(injected={"reflect": reflect}))
    h.add("买咖啡豆", 3, "2026-12-03 19:00")
    answer = await h.ask("来一个简单的任务")
    h.state.engine.dispose()
    assert answer.action == "task_query" and "记下" not in answer.content
    assert answer.content.startswith("给你挑了一个：\n\n1. 买咖啡豆")
    check_words(answer.action, answer.content, created=[])


@pytest.mark.parametrize("claim", ["好的，已为您添加到任务列表。", "Done! Task created for tomorrow at 8pm."])
async def test_found_chat_claims_the_correction_does_not_catch(database_url: str, claim: str) -> None:
    chat, _ = scripted("chat", Stream((claim,)))
    h = make_harness(database_url, hub=ModelHub(injected={"chat": chat}))
    answer = await h.ask("你好" if "您" in claim else "hi there")
    h.state.engine.dispose()
    assert answer.action == "chat" and claim in answer.content
    assert "更正" in answer.content or "Correction" in answer.content
