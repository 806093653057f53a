"""The disagreement policy between the router model and the rules' reading (docs/fdr/0027).

A clear write in the user's own words is not vetoed by a model that says "chat"; a write the
words do not ask for is never done, and never replaces the answer to a question; a weaker write
is asked about once, with a question a yes (or saying it again) answers; between two reads the
rules win. Properties over (rules' reading × model's choice) with hypothesis, then end to end
with a scripted router model.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.actions import build_registry
from core.llm import ModelHub
from core.turn import ChatText, TurnConfig, new_turn
from route.router import RULE_CLEAR, Decision, Router
from support.harness import Harness, make_harness

ROUTER = Router(build_registry())
REGISTRY = ROUTER.registry
FALLBACK = REGISTRY.fallback
WRITES = [name for name in REGISTRY.names() if REGISTRY.writes(name)]
READS = [name for name in REGISTRY.names() if not REGISTRY.writes(name)]
THRESHOLD = TurnConfig().write_min_confidence
NOW = datetime(2026, 12, 1, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


def _turn(text: str):  # type: ignore[no-untyped-def]
    def no_db():  # type: ignore[no-untyped-def]
        raise AssertionError("reconcile reads no database")

    return new_turn(
        [ChatText("user", text)],
        user_id=0,
        now=NOW,
        tz="Asia/Shanghai",
        hub=ModelHub(),
        sessions=no_db,
        config=TurnConfig(),
    )


confidences = st.floats(0, 1, allow_nan=False)


@st.composite
def rules_readings(draw: st.DrawFn) -> Decision:
    action = draw(st.sampled_from(REGISTRY.names()))
    proposed = draw(st.sampled_from(WRITES)) if action == FALLBACK and draw(st.booleans()) else None
    return Decision(action, draw(confidences), "规则", proposed=proposed)


@st.composite
def model_choices(draw: st.DrawFn) -> Decision:
    return Decision(draw(st.sampled_from(REGISTRY.names())), draw(confidences), "模型")


texts = st.sampled_from(["交报告做完了", "这周有什么要交的？", "周五那个", "你好", "cancel my ride", "明天下午开会吗"])


@settings(max_examples=600, deadline=None)
@given(rules=rules_readings(), model=model_choices(), text=texts)
def test_the_policy_holds_for_every_pair(rules: Decision, model: Decision, text: str) -> None:
    out = ROUTER.reconcile(rules, model, _turn(text))
    writes_now = out.proposed is None and REGISTRY.writes(out.action)
    # 1. No write the words did not ask for: a write runs only on the rules' own reading of it,
    #    or on the model settling the very action the rules would have asked about.
    if writes_now:
        by_rules = out.action == rules.action and max(rules.confidence, model.confidence) >= THRESHOLD
        settled = out.action == rules.proposed == model.action and model.confidence >= THRESHOLD
        assert by_rules or settled, (rules, model, out)
    # 2. A clear write in the user's words is not vetoed by the model.
    if rules.action in WRITES and rules.confidence >= max(RULE_CLEAR, THRESHOLD):
        assert (out.action, out.proposed) == (rules.action, None), (rules, model, out)
    # 3. A question the rules read as a query is answered, never replaced by a proposed write.
    if rules.action in READS and rules.action != FALLBACK:
        assert (out.action, out.proposed) == (rules.action, None), (rules, model, out)
    # 4. A question asked is about something one side read, and never about chat itself.
    if out.proposed is not None:
        assert out.action == FALLBACK and out.proposed != FALLBACK
        assert out.proposed in (rules.action, rules.proposed, model.action), (rules, model, out)
    # 5. A weaker write the rules read, and the model does not share, is asked about once.
    weaker = rules.action in WRITES and rules.proposed is None and rules.confidence < RULE_CLEAR
    if weaker and model.action != rules.action:
        assert out.proposed == rules.action, (rules, model, out)


# --- end to end, with a router model that says one thing whatever it is asked ------------------


def router_says(action: str, confidence: float = 0.97) -> FunctionModel:
    def route(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        [tool] = info.output_tools
        args = {"action": action, "confidence": confidence, "reason": "<b>sure</b> it's this"}
        return ModelResponse(parts=[ToolCallPart(tool.name, args)])

    return FunctionModel(route)


@pytest.fixture
def made(database_url: str) -> Iterator[list[Harness]]:
    harnesses: list[Harness] = []
    yield harnesses
    for h in harnesses:
        h.state.engine.dispose()


def harness_with(made: list[Harness], database_url: str, action: str, confidence: float = 0.97) -> Harness:
    h = make_harness(database_url, hub=ModelHub(injected={"route": router_says(action, confidence)}))
    made.append(h)
    return h


@pytest.mark.parametrize(
    ("model_action", "message"),
    [
        ("task_complete", "交报告做完了吗"),  # a question
        ("task_update", "明天有什么任务"),  # a query
        ("undo", "你好"),  # a greeting
        ("task_delete", "这周有什么要交的"),  # a query
    ],
)
async def test_a_write_the_words_do_not_ask_for_is_never_done_and_the_question_is_answered(
    made: list[Harness], database_url: str, model_action: str, message: str
) -> None:
    h = harness_with(made, database_url, model_action)
    report = h.add("交报告", 1, "2026-12-01 15:00")
    answer = await h.ask(message)
    assert answer.action != model_action
    assert not any("proposed" in e.data for e in answer.events if e.stage == "route"), answer.stages
    assert not h.task(report).is_completed and h.changes() == []


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("交报告做完了", "complete"),
        ("帮我记一下明天下午三点交周报", "create"),
        ("把交报告删掉", "delete"),
    ],
)
async def test_a_clear_write_goes_through_a_router_model_that_says_chat(
    made: list[Harness], database_url: str, message: str, kind: str
) -> None:
    h = harness_with(made, database_url, "chat")
    h.add("交报告", 1, "2026-12-01 15:00")
    answer = await h.ask(message)
    assert [c.kind for c in h.changes()] == [kind], (answer.stages, answer.content)


async def test_undo_goes_through_a_router_model_that_says_chat(made: list[Harness], database_url: str) -> None:
    h = harness_with(made, database_url, "chat")
    report = h.add("交报告", 1, "2026-12-01 15:00")
    done = await h.ask("交报告做完了")
    assert h.task(report).is_completed
    undone = await h.ask("撤销", history=[("user", "交报告做完了"), ("assistant", done.content)])
    assert undone.action == "undo" and not h.task(report).is_completed, undone.content


async def test_the_model_reason_never_reaches_the_stages(made: list[Harness], database_url: str) -> None:
    h = harness_with(made, database_url, "task_query")
    answer = await h.ask("这周有什么要交的")
    shown = " ".join(e.message + str(e.data) for e in answer.events)
    assert "sure" not in shown and "<b>" not in shown


async def test_a_router_model_that_agrees_about_a_write_gets_it(made: list[Harness], database_url: str) -> None:
    h = harness_with(made, database_url, "task_complete")
    report = h.add("交报告", 1, "2026-12-01 15:00")
    answer = await h.ask("交报告做完了")
    assert answer.action == "task_complete"
    assert h.task(report).is_completed and [c.kind for c in h.changes()] == ["complete"]


@pytest.mark.parametrize("second", ["是的，记下来", "要", "明天下午三点交报告"])
async def test_a_weaker_write_the_model_doubts_is_asked_once_and_the_answer_writes(
    made: list[Harness], database_url: str, second: str
) -> None:
    h = harness_with(made, database_url, "chat")
    asked = await h.ask("明天下午三点交报告")
    assert asked.action == "chat" and h.changes() == []
    assert "交报告" in asked.content  # the question names what a yes will write
    answer = await h.ask(second, history=[("user", "明天下午三点交报告"), ("assistant", asked.content)])
    assert answer.action == "quick_note_create", (second, answer.content)
    assert [c.kind for c in h.changes()] == ["create"]
