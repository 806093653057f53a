"""The chat path with a scripted chat model that misbehaves (docs/fdr/0029): lists of tasks it
cannot know are replaced by code, the reply is in the user's language, a failed model is named as
such, clients' background requests get JSON, and the history sent is bounded in characters."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from core.context import HISTORY_CHARS
from core.llm import ModelHub
from route.chat import LANGUAGE_STAGE, REPLACED_STAGE
from route.router import Decision
from support.harness import Harness, make_harness

DATA = Path(__file__).resolve().parents[1] / "data"


def chat_says(text: str, seen: list[list[ModelMessage]] | None = None) -> FunctionModel:
    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if seen is not None:
            seen.append(messages)
        return ModelResponse(parts=[TextPart(text)])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        if seen is not None:
            seen.append(messages)
        for i in range(0, len(text), 7):
            yield text[i : i + 7]

    return FunctionModel(reply, stream_function=stream)


def chat_fails() -> FunctionModel:
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        raise TimeoutError("no answer")
        yield ""  # pragma: no cover

    return FunctionModel(lambda m, i: ModelResponse(parts=[]), stream_function=stream)


@pytest.fixture
def made(database_url: str) -> Iterator[list[Harness]]:
    harnesses: list[Harness] = []
    yield harnesses
    for h in harnesses:
        h.state.engine.dispose()


def harness(made: list[Harness], database_url: str, chat: FunctionModel, *, force_chat: bool = False) -> Harness:
    h = make_harness(database_url, hub=ModelHub(injected={"chat": chat}))
    made.append(h)
    if force_chat:  # whatever routed the turn to chat: a router model, say

        async def decide(turn: Any) -> Decision:
            return Decision("chat", 0.9, "测试：直接闲聊")

        h.state.pipeline.router.decide = decide  # type: ignore[method-assign]
    return h


INVENTED_ZH = "当然！明天你要做的有：\n1. 上午9点开部门会议\n2. 下午3点去健身房\n3. 晚上8点买菜\n祝你顺利！"
INVENTED_EN = "Sure! Tomorrow you have:\n1. Team meeting at 9am\n2. Gym at 3pm\n3. Groceries at 8pm"


@pytest.mark.parametrize(
    ("message", "reply"), [("明天有什么要做的", INVENTED_ZH), ("what do I have to do tomorrow?", INVENTED_EN)]
)
async def test_a_task_list_chat_invents_is_replaced_by_the_real_one(
    made: list[Harness], database_url: str, message: str, reply: str
) -> None:
    h = harness(made, database_url, chat_says(reply), force_chat=True)
    h.add("交周报", 1, "2026-12-01 18:00")
    answer = await h.ask(message)
    assert "交周报" in answer.content, answer.content
    for invented in ("健身房", "买菜", "Gym", "Groceries"):
        assert invented not in answer.content
    assert any(e.message == REPLACED_STAGE for e in answer.events), answer.stages


async def test_an_advice_list_is_kept_as_it_is(made: list[Harness], database_url: str) -> None:
    advice = "可以试试这些：\n1. 番茄工作法\n2. 先做最难的事\n3. 关掉手机通知"
    h = harness(made, database_url, chat_says(advice))
    answer = await h.ask("怎么提高效率")
    assert answer.action == "chat" and answer.content.strip() == advice
    assert not any(e.message == REPLACED_STAGE for e in answer.events)


async def test_a_chinese_greeting_never_gets_an_english_reply(made: list[Harness], database_url: str) -> None:
    h = harness(made, database_url, chat_says("Hello! How can I help you today?"))
    answer = await h.ask("你好呀")
    assert "Hello" not in answer.content and "你好" in answer.content, answer.content
    assert any(e.message == LANGUAGE_STAGE for e in answer.events), answer.stages


async def test_english_stays_english(made: list[Harness], database_url: str) -> None:
    h = harness(made, database_url, chat_says("Hello! How can I help you today?"))
    answer = await h.ask("hello there")
    assert answer.content.strip() == "Hello! How can I help you today?"


async def test_a_failed_chat_model_is_named_not_called_offline_mode(made: list[Harness], database_url: str) -> None:
    h = harness(made, database_url, chat_fails())
    answer = await h.ask("你好呀")
    assert "模型这次没有回应" in answer.content and "离线模式" not in answer.content, answer.content


# Templates that demand a JSON object: Open WebUI's title, tags and follow-ups.
JSON_TEMPLATES = ("ow-title-v06-note", "ow-tags-v06-note-multiturn", "ow-followups-v06-query")


def aux_cases() -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (DATA / "aux_prompts.jsonl").read_text(encoding="utf-8").splitlines()]
    return [row for row in rows if row["id"] in JSON_TEMPLATES]


@pytest.mark.parametrize("row", aux_cases(), ids=lambda r: r["id"])
async def test_a_background_request_gets_json_even_when_the_model_answers_prose(
    made: list[Harness], database_url: str, row: dict[str, Any]
) -> None:
    h = harness(made, database_url, chat_says("Sure! Here is a nice title for your chat about reports."))
    *history, last = [(m["role"], m["content"]) for m in row["messages"]]
    answer = await h.ask(last[1], history=history)
    text = answer.content.strip()
    start = text.find("{")
    assert start >= 0, text
    json.loads(text[start : text.rfind("}") + 1])  # parses: the client gets what it reads
    assert "Sure!" not in text


def test_the_json_templates_are_all_there() -> None:
    assert sorted(row["id"] for row in aux_cases()) == sorted(JSON_TEMPLATES)


async def test_a_long_history_is_bounded_in_characters_newest_first(made: list[Harness], database_url: str) -> None:
    seen: list[list[ModelMessage]] = []
    h = harness(made, database_url, chat_says("好的。", seen))
    history = [("user" if i % 2 == 0 else "assistant", f"第{i:02d}轮" + "很长的话" * 120) for i in range(30)]
    await h.ask("我们刚才聊到哪了", history=history)
    [messages] = seen
    texts = [
        str(part.content)
        for message in messages
        for part in message.parts
        if isinstance(message, ModelRequest | ModelResponse)
        and hasattr(part, "content")
        and part.part_kind in ("user-prompt", "text")
    ]
    assert texts[-1] == "我们刚才聊到哪了"
    assert sum(len(t) for t in texts) <= HISTORY_CHARS["chat"] + len("我们刚才聊到哪了")
    assert any("第29轮" in t for t in texts) and not any("第00轮" in t for t in texts)
