"""The action registry: the router's output type and prompt are generated from it."""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field, ValidationError
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.actions import build_registry
from app.explain import explain
from core.llm import ModelHub
from core.tools import ToolContext, ToolOutput, ToolSpec
from core.trace import TurnResult
from core.turn import Answer, ChatText, HistoryTurn, Turn, TurnConfig
from route.pipeline import GENERIC_CLARIFY, Pipeline
from route.registry import Action, ActionRegistry, OfflineSignal
from route.router import Router
from support.harness import Harness, make_harness

BUILTIN = [
    "chat",
    "quick_note_create",
    "task_query",
    "task_complete",
    "task_update",
    "task_delete",
    "task_repeat",
    "undo",
    "day_plan",
]


async def _noop(turn: Turn) -> Answer:
    return Answer("")


# The small example action of the contract (docs/fdr/0012): its own package would hold these.
def _weather_rule(text: str, history: Sequence[HistoryTurn]) -> OfflineSignal | None:
    return OfflineSignal(0.8, "问天气") if re.search(r"下雨|天气|气温", text) else None


async def _explain_weather(turn: Turn) -> dict[str, Any]:
    return {"forecast": {"when": turn.text}}


class Forecast(BaseModel):
    city: str
    sky: str


async def _forecast_tool(
    ctx: ToolContext, city: Annotated[str, Field(description="Which city, e.g. 'Shanghai'.")]
) -> ToolOutput:
    return ToolOutput(f"{city}: clear", Forecast(city=city, sky="clear"))


FORECAST = ToolSpec("forecast", "Weather forecast", "Tomorrow's sky in a city. Reads only.", _forecast_tool, Forecast,
                    read_only=True, idempotent=True)  # fmt: skip


def weather_action(replies: list[str] | None = None) -> Action:
    """A complete action, as its own package would declare it: handler, routing, explain, an MCP tool,
    its metrics labels. The pipeline delivers its answer."""

    async def handle(turn: Turn) -> Answer:
        text = f"晴，{turn.text}"
        (replies if replies is not None else []).append(text)
        return Answer(text, {"sky": "clear"}, outcome="forecast")

    return Action(
        "weather",
        "天气: the user asks about the weather (e.g. '明天下雨吗').",
        handle,
        explain=_explain_weather,
        offline=_weather_rule,
        examples=("明天下雨吗", "今天气温多少"),
        tools=(FORECAST,),
        outcomes=("forecast",),
    )


def action_schema(registry: ActionRegistry) -> dict:
    return registry.decision_model().model_json_schema()["properties"]["action"]


def test_builtin_registry() -> None:
    registry = build_registry()
    assert registry.names() == BUILTIN
    assert registry.fallback == "chat" and "chat" in registry
    assert [a.name for a in registry if a.writes] == [
        "quick_note_create",
        "task_complete",
        "task_update",
        "task_delete",
        "task_repeat",
        "undo",
    ]


def test_decision_model_action_is_a_literal_of_the_registered_names() -> None:
    registry = build_registry()
    model = registry.decision_model()
    annotation = model.model_fields["action"].annotation
    assert typing.get_origin(annotation) is typing.Literal
    assert list(typing.get_args(annotation)) == registry.names()
    assert action_schema(registry)["enum"] == registry.names()
    assert set(model.model_json_schema()["required"]) == {"action", "confidence", "reason"}


def test_decision_model_rejects_what_the_registry_cannot_handle() -> None:
    model = build_registry().decision_model()
    assert model(action="task_query", confidence=1, reason="ok").action == "task_query"
    with pytest.raises(ValidationError):
        model(action="delete_everything", confidence=0.9, reason="?")
    with pytest.raises(ValidationError):
        model(action="chat", confidence=7, reason="?")
    with pytest.raises(ValidationError):
        model(action="chat", confidence=-0.1, reason="?")
    with pytest.raises(ValidationError):
        model(action="chat", confidence=0.5, reason="x" * 201)


def test_duplicate_registration_raises() -> None:
    registry = ActionRegistry()
    registry.register(Action("chat", "闲聊", _noop))
    with pytest.raises(ValueError, match="chat"):
        registry.register(Action("chat", "again", _noop))
    assert registry.names() == ["chat"]
    assert registry["chat"].description == "闲聊"


def test_prompt_section_lists_each_description() -> None:
    registry = build_registry()
    lines = registry.prompt_section().splitlines()
    assert lines == [f"- {a.name}: {a.description}" for a in registry]
    for action in registry:
        assert action.description.strip()


def test_extra_action_reaches_the_routers_schema_and_prompt() -> None:
    registry = build_registry()
    registry.register(weather_action())
    router = Router(registry)
    assert router.output_type.model_json_schema()["properties"]["action"]["enum"] == [*BUILTIN, "weather"]
    # The built-in router is unaffected: the schema comes from its own registry.
    assert "weather" not in Router(build_registry()).output_type.model_json_schema()["properties"]["action"]["enum"]


# --- end to end through the pipeline, with a scripted router model --------------------------------


@pytest.fixture
def harness_with(database_url: str) -> Iterator[list[Harness]]:
    made: list[Harness] = []
    yield made
    for h in made:
        h.state.engine.dispose()


async def test_registered_action_is_routable_and_handled(database_url: str, harness_with: list[Harness]) -> None:
    seen_enums: list[list[str]] = []
    seen_instructions: list[str] = []

    def route(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        [tool] = info.output_tools
        seen_enums.append(tool.parameters_json_schema["properties"]["action"]["enum"])
        request = messages[-1]
        assert isinstance(request, ModelRequest)
        seen_instructions.append(request.instructions or "")
        args = {"action": "weather", "confidence": 0.95, "reason": "weather question"}
        return ModelResponse(parts=[ToolCallPart(tool.name, args)])

    replies: list[str] = []
    registry = build_registry()
    registry.register(weather_action(replies))
    h = make_harness(database_url, hub=ModelHub(injected={"route": FunctionModel(route)}))
    harness_with.append(h)
    h.state.pipeline = Pipeline(registry)

    answer = await h.ask("明天下雨吗")

    assert seen_enums == [[*BUILTIN, "weather"]]
    [instructions] = seen_instructions
    for action in registry:
        assert f"- {action.name}: {action.description}" in instructions
    assert answer.action == "weather"
    assert answer.content == "晴，明天下雨吗" and replies == [answer.content]


async def test_offline_router_never_names_an_unregistered_action(
    database_url: str, harness_with: list[Harness]
) -> None:
    # Without quick_note_create registered, a note-like sentence must not reach a missing handler.
    registry = ActionRegistry(fallback="chat")
    registry.register(Action("chat", "闲聊", build_registry()["chat"].handler))
    h = make_harness(database_url)
    harness_with.append(h)
    h.state.pipeline = Pipeline(registry)

    answer = await h.ask("帮我记一下明天下午三点交报告")

    assert answer.action == "chat"
    assert answer.content.strip()
    [route] = [e.data for e in answer.events if e.stage == "route" and e.status == "end"]
    assert "capture" in route["reason"]  # the generic rules read a capture; no action answers it


async def test_an_actions_offline_rule_routes_to_it_and_explain_asks_it(
    database_url: str, harness_with: list[Harness]
) -> None:
    registry = build_registry()
    registry.register(weather_action())
    h = make_harness(database_url)
    harness_with.append(h)
    h.state.pipeline = Pipeline(registry)

    answer = await h.ask("明天下雨吗")
    assert (answer.action, answer.content) == ("weather", "晴，明天下雨吗")
    assert (await h.ask("明天下午三点交报告")).action == "quick_note_create"  # the generic rules still read the rest

    now = datetime(2026, 12, 1, 9, tzinfo=UTC)
    out = await explain(h.state.pipeline, ModelHub(), "明天下雨吗", now=now, tz="Asia/Shanghai", config=TurnConfig())
    assert out == {"action": "weather", "forecast": {"when": "明天下雨吗"}}


def test_a_writing_action_must_say_how_it_asks() -> None:
    registry = ActionRegistry()
    with pytest.raises(ValueError, match="clarifying"):
        registry.register(Action("wipe", "删光", _noop, writes=True))


async def test_an_unsure_write_answers_that_actions_own_question(
    database_url: str, harness_with: list[Harness]
) -> None:
    """Below the action's own threshold the pipeline asks with the action's words and runs nothing."""
    ran: list[str] = []

    async def handle(turn: Turn) -> Answer:
        ran.append(turn.text)
        return Answer("done")

    def rule(text: str, history: Sequence[HistoryTurn]) -> OfflineSignal | None:
        return OfflineSignal(0.7, "像是要归档") if "归档" in text or "archive" in text else None

    registry = build_registry()
    registry.register(
        Action("archive", "归档", handle, writes=True, min_confidence=0.9, clarify={"zh": "要归档哪个？"}, offline=rule)
    )
    h = make_harness(database_url)
    harness_with.append(h)
    h.state.pipeline = Pipeline(registry)

    answer = await h.ask("把旧任务归档")
    assert (answer.action, answer.content, ran) == ("chat", "要归档哪个？", [])
    english = await h.ask("archive the old ones please")
    assert (english.content, ran) == (GENERIC_CLARIFY["en"], [])  # no English wording declared


async def test_a_registered_actions_tool_is_published_over_mcp_and_its_outcome_counted(
    database_url: str, harness_with: list[Harness]
) -> None:
    """Registration is the one line: the action's tool reaches MCP, its outcome reaches metrics."""
    from mcp import Client

    from app.mcp_server import CALLER, make_mcp

    registry = build_registry()
    registry.register(weather_action())
    h = make_harness(database_url)
    harness_with.append(h)
    h.state.pipeline = Pipeline(registry)
    token = CALLER.set(h.user())
    try:
        async with Client(make_mcp(lambda: h.state, registry=registry), cache=None) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            result = await client.call_tool("forecast", {"city": "Shanghai"})
    finally:
        CALLER.reset(token)
    assert listed["forecast"].annotations is not None and listed["forecast"].annotations.read_only_hint
    assert {"ask_tasks", "delete_tasks", "find_tasks"} <= set(listed)
    assert result.structured_content == {"city": "Shanghai", "sky": "clear"}

    turn = h.state.new_turn(
        [ChatText("user", "明天下雨吗")], user_id=h.user(), tz="Asia/Shanghai", client_message_id=None
    )
    await h.state.pipeline.run(turn)
    assert turn.trace.result == TurnResult("weather", "offline", "forecast", {})
