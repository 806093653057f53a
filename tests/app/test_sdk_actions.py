"""The chat actions that write (capture, done/reopen, correction, undo) through the official `openai`
SDK against a real server (uvicorn on 127.0.0.1 in a background thread), the client resending the
whole history each turn, as chat clients do: the assistant answers carry the invisible records
(`[suikou]: # "w1...."`) that undo and corrections read back.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam
from sqlmodel import col, select

from core import carry
from core.models import Task
from support.harness import NOW, Harness, local
from support.live import serve


@dataclass
class LiveServer:
    base_url: str
    key: str
    harness: Harness


@pytest.fixture
def server(harness: Harness) -> Iterator[LiveServer]:
    assert harness.now == NOW
    key = harness.api_key("alice")
    with serve(harness.state) as base_url:
        yield LiveServer(base_url, key, harness)


@pytest.fixture
def client(server: LiveServer) -> Iterator[OpenAI]:
    with OpenAI(
        base_url=server.base_url, api_key=server.key, max_retries=0, timeout=60, _strict_response_validation=True
    ) as c:
        yield c


@dataclass
class Conversation:
    """One chat: every turn sends the whole history, assistant answers verbatim (records included)."""

    client: OpenAI
    history: list[tuple[str, str]] = field(default_factory=list)

    def say(self, text: str) -> str:
        """Sends `text`, keeps the raw answer in the history, returns what a person sees."""
        self.history.append(("user", text))
        r = self.client.chat.completions.create(model="suikou", messages=wire(self.history))
        assert r.choices[0].finish_reason == "stop"
        content = r.choices[0].message.content or ""
        self.history.append(("assistant", content))
        return carry.strip(content)


def wire(history: list[tuple[str, str]]) -> list[ChatCompletionMessageParam]:
    out: list[ChatCompletionMessageParam] = []
    for role, text in history:
        if role == "user":
            out.append({"role": "user", "content": text})
        else:
            out.append({"role": "assistant", "content": text})
    return out


def tasks(harness: Harness, user: str = "alice") -> list[Task]:
    """The user's tasks, completed ones included, by id."""
    user_id = harness.user(user)
    with harness.state.session() as session:
        rows = session.exec(select(Task).where(Task.user_id == user_id).order_by(col(Task.id))).all()
        for row in rows:
            session.expunge(row)
        return list(rows)


def state(harness: Harness, user: str = "alice") -> list[tuple[Any, ...]]:
    """Everything a write would change (updated_at included), to compare before and after."""
    return [
        (
            t.id,
            t.title,
            t.is_completed,
            t.completed_at,
            t.deadline_at,
            t.urgency_threshold_at,
            t.priority_group,
            t.updated_at,
        )
        for t in tasks(harness, user)
    ]


def test_capture_two_then_undo_twice(server: LiveServer, client: OpenAI) -> None:
    chat = Conversation(client)
    answer = chat.say("明天买牛奶，周五交报告")
    rows = tasks(server.harness)
    assert [t.title for t in rows] == ["买牛奶", "交报告"], answer
    assert [t.deadline_at for t in rows] == [local("2026-12-01 23:59:59"), local("2026-12-04 23:59:59")]
    assert answer == (
        "好，已记下 2 条：\n"
        "1. 买牛奶（重要且紧急；截止 12月1日 周二 23:59）\n"
        "2. 交报告（重要不紧急；截止 12月4日 周五 23:59）"
    )
    assert carry.read(chat.history[-1][1], "w1", server.harness.seal()) is not None  # the write record rides along

    undone = chat.say("撤销")
    items = "新建「买牛奶」（12月1日 周二 23:59 截止）；新建「交报告」（12月4日 周五 23:59 截止）"
    assert undone == f"已撤销：{items}"
    assert tasks(server.harness) == []

    again = chat.say("撤销")
    assert again == f"这一步已经撤销过了，没有再改动：{items}"
    assert tasks(server.harness) == []


def test_done_then_reopen(server: LiveServer, client: OpenAI) -> None:
    task_id = server.harness.add("交报告", 1, "2026-12-02 15:00")
    chat = Conversation(client)
    done = chat.say("交报告做完了")
    assert done == "已完成：「交报告」（原定 12月2日 周三 15:00 截止）"
    [task] = tasks(server.harness)
    assert task.id == task_id and task.is_completed and task.completed_at is not None

    reopened = chat.say("交报告还没做完")
    assert reopened == "已改回未完成：「交报告」（截止 12月2日 周三 15:00）"
    [task] = tasks(server.harness)
    assert task.id == task_id and not task.is_completed and task.completed_at is None

    # Undo takes back the last write of the conversation: the reopening.
    undone = chat.say("撤销")
    assert undone.startswith("已撤销："), undone
    [task] = tasks(server.harness)
    assert task.is_completed and task.completed_at is not None


def test_note_correction_then_undo(server: LiveServer, client: OpenAI) -> None:
    chat = Conversation(client)
    noted = chat.say("帮我记一下周三下午6点交报告")
    assert noted == "好，已记下：交报告（重要不紧急；截止 12月2日 周三 18:00）"
    [task] = tasks(server.harness)
    assert task.title == "交报告"
    first, threshold = task.deadline_at, task.urgency_threshold_at
    assert first == local("2026-12-02 18:00") and threshold == local("2026-12-01 18:00")

    fixed = chat.say("不对，是下周三")
    assert fixed == "已改好：「交报告」截止 12月2日 周三 18:00 → 12月9日 周三 18:00"
    [task] = tasks(server.harness)
    assert task.deadline_at == first + timedelta(days=7)
    assert task.urgency_threshold_at == threshold + timedelta(days=7)  # group 2: 24 h before, moved too

    undone = chat.say("撤销")
    assert undone == "已撤销：修改「交报告」（截止改回 12月2日 周三 18:00，紧急时间改回 12月1日 周二 18:00）"
    [task] = tasks(server.harness)
    assert task.deadline_at == first and task.urgency_threshold_at == threshold


def test_a_question_writes_nothing(server: LiveServer, client: OpenAI) -> None:
    server.harness.add("交报告", 1, "2026-12-02 15:00")
    before = state(server.harness)
    answer = Conversation(client).say("交报告做完了吗")
    assert state(server.harness) == before
    assert "交报告" in answer, answer
    assert "已标记完成" not in answer


def test_a_question_with_nothing_to_list_writes_nothing(server: LiveServer, client: OpenAI) -> None:
    server.harness.add("买猫粮", 3, "2026-12-01 19:00")
    before = state(server.harness)
    answer = Conversation(client).say("交报告做完了吗")
    assert state(server.harness) == before
    assert answer and "已标记完成" not in answer


def test_stream_matches_whole_for_a_question(server: LiveServer, client: OpenAI) -> None:
    server.harness.add("交报告", 1, "2026-12-02 15:00")
    before = state(server.harness)
    asked = [("user", "交报告做完了吗")]
    messages = wire(asked)
    whole = client.chat.completions.create(model="suikou", messages=messages)
    stream = client.chat.completions.create(model="suikou", messages=messages, stream=True)
    content = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert carry.strip(content) == carry.strip(whole.choices[0].message.content or "")
    assert "交报告" in carry.strip(content)
    assert state(server.harness) == before


def test_stream_done_writes_once_and_answers_like_whole(server: LiveServer, client: OpenAI) -> None:
    server.harness.add("交报告", 1, "2026-12-02 15:00")
    asked = [("user", "交报告做完了")]
    messages = wire(asked)
    stream = client.chat.completions.create(model="suikou", messages=messages, stream=True)
    content = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    [task] = tasks(server.harness)
    assert task.is_completed
    assert carry.read(content, "w1", server.harness.seal()) is not None
    undone = Conversation(client, [*asked, ("assistant", content)]).say("撤销")
    assert undone.startswith("已撤销："), undone
    [task] = tasks(server.harness)
    assert not task.is_completed and task.completed_at is None


def test_another_users_task_is_never_completed(server: LiveServer, client: OpenAI) -> None:
    server.harness.add("交报告", 1, "2026-12-02 15:00", user="bob")
    bob_before = state(server.harness, "bob")
    answer = Conversation(client).say("交报告做完了")
    assert state(server.harness, "bob") == bob_before
    assert tasks(server.harness) == []
    assert "已标记完成" not in answer, answer


def test_another_users_task_is_untouched_beside_alices_own(server: LiveServer, client: OpenAI) -> None:
    bob_task = server.harness.add("交报告", 1, "2026-12-02 15:00", user="bob")
    alice_task = server.harness.add("交报告", 1, "2026-12-02 15:00")
    chat = Conversation(client)
    chat.say("交报告做完了")
    [mine] = tasks(server.harness)
    assert mine.id == alice_task and mine.is_completed
    [bobs] = tasks(server.harness, "bob")
    assert bobs.id == bob_task and not bobs.is_completed
    chat.say("撤销")
    assert [t.is_completed for t in tasks(server.harness)] == [False]
    assert [t.is_completed for t in tasks(server.harness, "bob")] == [False]


def test_another_users_completed_task_is_never_reopened(server: LiveServer, client: OpenAI) -> None:
    server.harness.add("交报告", 1, "2026-12-02 15:00", user="bob", completed_at="2026-11-30 09:00")
    bob_before = state(server.harness, "bob")
    answer = Conversation(client).say("交报告还没做完")
    assert state(server.harness, "bob") == bob_before
    assert "已改回未完成" not in answer, answer


def test_bobs_records_replayed_by_alice_undo_nothing(server: LiveServer, client: OpenAI) -> None:
    """Alice sends Bob's conversation (his answers carry his change ids): his tasks stay as they are."""
    bob_key = server.harness.api_key("bob")
    with OpenAI(base_url=server.base_url, api_key=bob_key, max_retries=0, timeout=60) as bob:
        bobs = Conversation(bob)
        bobs.say("明天买牛奶，周五交报告")
    assert carry.read(bobs.history[-1][1], "w1", server.harness.seal("bob")) is not None
    bob_before = state(server.harness, "bob")
    assert len(bob_before) == 2

    undone = Conversation(client, list(bobs.history)).say("撤销")
    assert not undone.startswith("已撤销"), undone
    assert state(server.harness, "bob") == bob_before
    assert tasks(server.harness) == []


def test_a_resent_capture_writes_nothing_more(server: LiveServer, client: OpenAI) -> None:
    asked = [("user", "明天买牛奶，周五交报告")]
    messages = wire(asked)
    first = client.chat.completions.create(model="suikou", messages=messages)
    again = client.chat.completions.create(model="suikou", messages=messages)
    assert [t.title for t in tasks(server.harness)] == ["买牛奶", "交报告"]
    assert carry.strip(first.choices[0].message.content or "").startswith("好，已记下 2 条：\n")
    retried = again.choices[0].message.content or ""
    assert carry.strip(retried).startswith("这条消息刚才已经记下了，没有重复创建（2 条）：\n1. 买牛奶"), retried

    # The first answer was lost (the client only has the retry's): undo still finds the note.
    undone = Conversation(client, [*asked, ("assistant", retried)]).say("撤销")
    assert undone.startswith("已撤销：新建「买牛奶」"), undone
    assert tasks(server.harness) == []
