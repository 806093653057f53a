"""Chat clients' answer buttons (Open WebUI's, whose request bodies these mirror).

"Continue" sends the history ending with Suikou's own answer and appends the reply to it; the
guided regenerations ("添加详情", "精炼表达", "Add Details", "More Concise") send the answer and then the
button's label as a user message, and the reply replaces the answer. Neither may add visible
text, lose the answer's record or write again. Keyless local mode; NOW is Monday 2026-11-30 10:00
Asia/Shanghai.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from core import carry
from support.harness import Harness


@pytest.fixture
def client(harness: Harness) -> Iterator[TestClient]:
    with harness.client() as c:
        yield c


def chat(client: TestClient, *messages: tuple[str, str], stream: bool = False) -> str:
    body: dict[str, Any] = {"model": "suikou", "messages": [{"role": r, "content": c} for r, c in messages]}
    if not stream:
        response = client.post("/v1/chat/completions", json=body)
        assert response.status_code == 200, response.text
        return str(response.json()["choices"][0]["message"]["content"])
    body["stream"] = True
    with client.stream("POST", "/v1/chat/completions", json=body) as response:
        assert response.status_code == 200
        events = [line[6:] for line in response.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])


def titles(client: TestClient) -> list[str]:
    response = client.get("/tasks", params={"include_completed": True})
    assert response.status_code == 200, response.text
    return [t["title"] for t in response.json()["items"]]


NOTE = "帮我记一下周五下午三点交方案"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_continue_after_a_finished_answer_adds_nothing(client: TestClient, stream: bool) -> None:
    answer = chat(client, ("user", NOTE))
    assert titles(client) == ["交方案"]
    assert chat(client, ("user", NOTE), ("assistant", answer), stream=stream) == ""
    assert titles(client) == ["交方案"]  # nothing written again


def test_undo_still_works_when_a_client_appended_text_to_the_record(client: TestClient) -> None:
    # What Open WebUI stored after older releases answered "Continue" with "OK".
    answer = chat(client, ("user", NOTE))
    damaged = answer + "OK"
    reply = chat(client, ("user", NOTE), ("assistant", damaged), ("user", "撤销"))
    assert "撤销" in reply and "交方案" in reply
    assert titles(client) == []


@pytest.mark.parametrize("label", ["添加详情", "精炼表达", "Add Details", "More Concise"])
def test_guided_regeneration_gives_the_same_answer_and_writes_nothing(client: TestClient, label: str) -> None:
    answer = chat(client, ("user", NOTE))
    again = chat(client, ("user", NOTE), ("assistant", answer), ("user", label))
    assert again == answer  # same text, same record
    assert titles(client) == ["交方案"]
    undone = chat(client, ("user", NOTE), ("assistant", again), ("user", "撤销"))
    assert "交方案" in undone and titles(client) == []


def test_guided_regeneration_of_a_list_keeps_its_follow_up(harness: Harness, client: TestClient) -> None:
    for index in range(7):
        harness.add(f"整理资料{index}", 2, f"2026-12-0{index + 1} 18:00", user="local")
    question = "这周有哪些任务"
    listed = chat(client, ("user", question))
    again = chat(client, ("user", question), ("assistant", listed), ("user", "精炼表达"))
    assert again == listed
    more = chat(client, ("user", question), ("assistant", again), ("user", "再来两个"))
    assert "6." in carry.strip(more) and "1." not in carry.strip(more).split("\n")[1]


def test_a_label_that_starts_a_conversation_is_an_ordinary_message(client: TestClient) -> None:
    reply = chat(client, ("user", "添加详情"))
    assert reply  # answered (the help text or a question), never empty, nothing written
    assert titles(client) == []
