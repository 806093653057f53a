"""The records a client carries back (q1, w1, n1) are input: signed, validated, never a 500.

Each forged record here is *validly signed* for the user (as if the secret had leaked, or a bug
had written it), so what is tested is the second line of defence: the input contract every
carried value must pass. Unsigned records are tested too: they read as absent. Keyless local mode
(the quick start), so the user is "local"; NOW is Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from core import carry
from support.harness import Harness

WARNING = "已有「交电费」（12月1日 周二 18:00 到期），还要再记一条吗？"


@pytest.fixture
def client(harness: Harness) -> Iterator[TestClient]:
    with harness.client() as c:
        yield c


def raw_line(harness: Harness, kind: str, raw_json: str, *, signed: bool = True) -> str:
    """A record line around exactly these JSON bytes (which json.dumps could not always produce)."""
    data = base64.urlsafe_b64encode(raw_json.encode()).decode().rstrip("=")
    tag = "." + harness.seal("local").tag(kind, data) if signed else ""
    return f'[suikou]: # "{kind}.{data}{tag}"'


def chat(client: TestClient, *messages: tuple[str, str], tz: str | None = None) -> Any:
    body = {"model": "suikou", "messages": [{"role": r, "content": c} for r, c in messages]}
    headers = {"X-Suikou-Timezone": tz} if tz else {}
    response = client.post("/v1/chat/completions", json=body, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()["choices"][0]["message"]["content"]


def titles(client: TestClient, tz: str | None = None) -> list[str]:
    headers = {"X-Suikou-Timezone": tz} if tz else {}
    response = client.get("/tasks", params={"include_completed": True}, headers=headers)
    assert response.status_code == 200, response.text
    return [t["title"] for t in response.json()["items"]]


# --- q1: the follow-up record ------------------------------------------------------------------

BAD_PLANS = {
    "offset-2^63": '{"plan":{},"words":"x","offset":9223372036854775808,"shown":1,"total":3}',
    "offset-negative": '{"plan":{},"words":"x","offset":-1,"shown":1,"total":3}',
    "naive-bound": '{"plan":{"time_after":"2026-12-01T00:00:00"},"words":"x","offset":0,"shown":1,"total":3}',
    "year-9999": '{"plan":{"time_before":"9999-12-31T23:59:59+00:00"},"words":"x","offset":0,"shown":1,"total":3}',
    "year-1": '{"plan":{"time_after":"0001-01-01T00:00:00+00:00"},"words":"x","offset":0,"shown":1,"total":3}',
    "nul-keyword": '{"plan":{"keyword":"a\\u0000b"},"words":"x","offset":0,"shown":1,"total":3}',
    "surrogate-keyword": '{"plan":{"keyword":"\\ud800"},"words":"x","offset":0,"shown":1,"total":3}',
    "huge-limit": '{"plan":{"limit":99999999999},"words":"x","offset":0,"shown":1,"total":3}',
    "string-offset": '{"plan":{},"words":"x","offset":"5","shown":1,"total":3}',
    "deep": '{"plan":' + "[" * 990 + "]" * 990 + ',"words":"x","offset":0,"shown":1,"total":3}',
}


@pytest.mark.parametrize("raw", BAD_PLANS.values(), ids=BAD_PLANS.keys())
def test_a_bad_follow_up_record_falls_back_to_the_visible_list(harness: Harness, client: TestClient, raw: str) -> None:
    harness.add("交周报", 2, "2026-12-02 18:00", user="local")
    harness.add("修电脑", 1, "2026-12-01 09:00", user="local")
    previous = "给你整理了 1 条任务（共 2 条匹配）：\n1. 修电脑（重要且紧急；截止 12月1日 周二 09:00）\n\n" + raw_line(
        harness, "q1", raw
    )
    answer = chat(client, ("user", "来一个任务"), ("assistant", previous), ("user", "再来两个"))
    assert "交周报" in carry.strip(answer)  # read from the prose: page 2 of the visible list
    assert titles(client) == ["修电脑", "交周报"]


# --- n1: the pending note ----------------------------------------------------------------------

BAD_NOTES = {
    "year-9999": '{"notes":[{"title":"交电费","priority_group":2,"deadline_at":"9999-12-31T23:59:59+00:00"}]}',
    "year-1": '{"notes":[{"title":"交电费","priority_group":2,"deadline_at":"0001-01-01T00:00:00+00:00"}]}',
    "year-1900": '{"notes":[{"title":"交电费","priority_group":2,"deadline_at":"1900-01-01T00:00:00+00:00"}]}',
    "naive": '{"notes":[{"title":"交电费","priority_group":2,"deadline_at":"2026-12-01T18:00:00"}]}',
    "nul-title": '{"notes":[{"title":"交\\u0000电费","priority_group":2}]}',
    "blank-title": '{"notes":[{"title":"   ","priority_group":2}]}',
    "zero-width-title": '{"notes":[{"title":"\\u200b\\u200d","priority_group":2}]}',
    "group-9": '{"notes":[{"title":"交电费","priority_group":9}]}',
    "group-string": '{"notes":[{"title":"交电费","priority_group":"1"}]}',
}


@pytest.mark.parametrize("raw", BAD_NOTES.values(), ids=BAD_NOTES.keys())
@pytest.mark.parametrize("tz", [None, "America/New_York"])
def test_a_bad_pending_note_is_never_stored(harness: Harness, client: TestClient, raw: str, tz: str | None) -> None:
    harness.add("交电费", 2, "2026-12-01 18:00", user="local")
    warning = WARNING + "\n\n" + raw_line(harness, "n1", raw)
    answer = chat(client, ("user", "帮我记一下明天交电费"), ("assistant", warning), ("user", "要"), tz=tz)
    # The record is ignored: the asked message is read again, and its own (sane) note written.
    assert "已记下" in answer
    listed = client.get("/tasks", headers={"X-Suikou-Timezone": tz} if tz else {})
    assert listed.status_code == 200
    for task in listed.json()["items"]:
        assert task["title"] == "交电费"
        assert task["deadline_at"] is None or task["deadline_at"].startswith("2026-12-01")
    # Undoing it works (it used to 500 forever on a stored year 9999).
    undone = chat(
        client,
        ("user", "帮我记一下明天交电费"),
        ("assistant", warning),
        ("user", "要"),
        ("assistant", answer),
        ("user", "撤销"),
        tz=tz,
    )
    assert undone.startswith("已撤销")


def test_a_valid_pending_note_is_still_written(harness: Harness, client: TestClient) -> None:
    harness.add("交电费", 2, "2026-12-01 18:00", user="local")
    good = '{"notes":[{"title":"交电费","priority_group":2,"deadline_at":"2026-12-01T18:00:00+08:00"}]}'
    answer = chat(
        client,
        ("user", "帮我记一下明天交电费"),
        ("assistant", WARNING + "\n\n" + raw_line(harness, "n1", good)),
        ("user", "要"),
    )
    assert carry.strip(answer) == "好，已记下：交电费（重要不紧急；截止 12月1日 周二 18:00）"


def test_an_unsigned_pending_note_is_no_record(harness: Harness, client: TestClient) -> None:
    """The probe's record, as anyone can write it: not trusted, so nothing of it is stored."""
    harness.add("交电费", 2, "2026-12-01 18:00", user="local")
    forged = '{"notes":[{"title":"被伪造的任务","priority_group":1}]}'
    warning = WARNING + "\n\n" + raw_line(harness, "n1", forged, signed=False)
    chat(client, ("user", "帮我记一下明天交电费"), ("assistant", warning), ("user", "要"))
    assert "被伪造的任务" not in titles(client)


# --- w1: the write record ----------------------------------------------------------------------


@pytest.mark.parametrize("ids", ["[2147483648]", "[9223372036854775807]", "[0]", "[1.5]"])
def test_a_bad_change_id_is_no_record(harness: Harness, client: TestClient, ids: str) -> None:
    harness.add("交报告", 1, "2026-12-02 15:00", user="local")
    previous = "好，已记下：交报告\n\n" + raw_line(harness, "w1", '{"changes":' + ids + "}")
    for said in ("撤销", "不对，是周五", "优先级调低"):
        answer = chat(client, ("user", "帮我记一下交报告"), ("assistant", previous), ("user", said))
        assert "已撤销" not in answer and "已改好" not in answer
    assert titles(client) == ["交报告"]


# --- what is already stored ----------------------------------------------------------------------


@pytest.mark.parametrize("tz", [None, "America/New_York", "Pacific/Kiritimati"])
@pytest.mark.parametrize("stored", ["9999-12-31 23:59:59", "0001-01-01 00:00:00"])
def test_a_stored_extreme_date_never_breaks_a_read(
    harness: Harness, client: TestClient, tz: str | None, stored: str
) -> None:
    """What an older release could store: every list that holds it still answers."""
    task_id = harness.add("老数据", 1, user="local")
    harness.add("交报告", 1, "2026-12-02 15:00", user="local")
    with harness.state.engine.begin() as conn:
        value = f"{stored}+00" if conn.dialect.name == "postgresql" else f"{stored}.000000"
        conn.execute(sa.text("UPDATE tasks SET deadline_at = :d WHERE id = :i"), {"d": value, "i": task_id})
    assert "老数据" in titles(client, tz)
    for question in ("全部任务", "来一个任务", "逾期的任务"):
        chat(client, ("user", question), tz=tz)


def test_records_reveal_no_payload_change_without_a_new_signature(harness: Harness) -> None:
    line = carry.line("q1", {"offset": 5}, harness.seal("local"))
    forged = line.replace(
        line.split(".")[1], base64.urlsafe_b64encode(json.dumps({"offset": 0}).encode()).decode().rstrip("=")
    )
    assert carry.read(line, "q1", harness.seal("local")) == {"offset": 5}
    assert carry.read(forged, "q1", harness.seal("local")) is None
