"""The turn: which text counts, the bounded history, and the idempotency key."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Session

from core.llm import ModelHub
from core.trace import Trace
from core.turn import ChatText, Turn, TurnConfig, turn_key_for

NOW = datetime(2026, 11, 30, 2, 0, tzinfo=UTC)


def _no_db() -> Session:
    raise AssertionError("the turn itself never opens the database")


def _turn(messages: list[ChatText], config: TurnConfig | None = None) -> Turn:
    return Turn(1, messages, NOW, "UTC", "k", ModelHub(), Trace(), _no_db, config or TurnConfig())


def test_text_is_the_last_user_message() -> None:
    turn = _turn([ChatText("user", "旧的"), ChatText("assistant", "好"), ChatText("user", "新的")])
    assert turn.text == "新的"


def test_text_unwraps_open_webui_user_query() -> None:
    wrapped = (
        "### Task:\nRespond to the user query using the provided context.\n"
        "<context>周报模板</context>\n<user_query>\n来一个简单的任务\n</user_query>"
    )
    assert _turn([ChatText("user", wrapped)]).text == "来一个简单的任务"


def test_history_is_bounded_and_excludes_the_latest_message() -> None:
    messages = [ChatText("system", "persona")]
    for i in range(10):
        messages += [ChatText("user", f"问{i}" + "长" * 700), ChatText("assistant", f"答{i}")]
    messages.append(ChatText("user", "再来两个"))
    history = _turn(messages, TurnConfig(history_turns=4, history_chars=50)).history
    assert [h.text[:2] for h in history] == ["问8", "答8", "问9", "答9"]
    assert all(len(h.text) <= 50 for h in history)
    assert all(h.role != "system" for h in history)


def test_turn_key_ignores_system_messages_and_later_turns() -> None:
    convo = [ChatText("user", "帮我记一下明天交报告")]
    with_system = [ChatText("system", "aux prompt"), *convo]
    assert turn_key_for(1, convo, None) == turn_key_for(1, with_system, None)
    # A regenerate sends the same conversation again: same key.
    assert turn_key_for(1, list(convo), None) == turn_key_for(1, convo, None)


def test_turn_key_differs_for_a_new_turn_with_the_same_words_and_for_another_user() -> None:
    first = [ChatText("user", "帮我记一下明天交报告")]
    second = [*first, ChatText("assistant", "好，已记下：交报告"), ChatText("user", "帮我记一下明天交报告")]
    assert turn_key_for(1, first, None) != turn_key_for(1, second, None)
    assert turn_key_for(1, first, None) != turn_key_for(2, first, None)


def test_client_message_id_wins() -> None:
    a = [ChatText("user", "x")]
    b = [ChatText("user", "y")]
    assert turn_key_for(1, a, "msg-1") == turn_key_for(1, b, "msg-1")
    assert turn_key_for(1, a, "msg-1") != turn_key_for(1, a, "msg-2")
