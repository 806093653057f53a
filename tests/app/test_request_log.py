"""One structured log line per request: route, per-node timings, retries, broadening, model calls."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from support.harness import Harness


def _lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "suikou.request"]


async def test_task_query_log_line(harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    harness.add("买猫粮", 3, "2026-12-01 19:00")
    with caplog.at_level(logging.INFO, logger="suikou.request"):
        await harness.ask("来一个简单的任务")
    [line] = _lines(caplog)
    assert line["route"] == "task_query"
    assert line["model_calls"] == 0  # provider requests: none offline
    assert line["offline_steps"] == 3
    assert line["offline_by_node"] == {"route": 1, "plan": 1, "reflect": 1}
    nodes = line["nodes_ms"]
    assert isinstance(nodes, dict)
    assert set(nodes) == {"plan", "quadrant", "time_anchor", "tool_query", "reflect"}
    assert line["retries"] == 0 and line["broadened"] == []


async def test_broadening_is_logged(harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    harness.add("写周报", 2, "2026-12-20 18:00")
    with caplog.at_level(logging.INFO, logger="suikou.request"):
        answer = await harness.ask("明天要交什么")
    [line] = _lines(caplog)
    assert line["broadened"] == ["nearest"]  # nothing tomorrow: the nearest after it
    assert line["retries"] == 1
    assert "broaden:end" in answer.stages
    assert "写周报" in answer.content


async def test_chat_log_line(harness: Harness, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="suikou.request"):
        await harness.ask("早上好")
    [line] = _lines(caplog)
    assert line["route"] == "chat"
    assert line["model_calls"] == 0
    assert line["offline_by_node"] == {"route": 1, "chat": 1}
    assert line["nodes_ms"] == {}


async def test_failed_request_still_logs_one_line(
    harness: Harness, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import taskquery.steps

    async def broken_query(*_args: object) -> None:
        raise RuntimeError("database went away")

    monkeypatch.setattr(taskquery.steps, "run_query", broken_query)
    with caplog.at_level(logging.INFO, logger="suikou.request"), pytest.raises(RuntimeError):
        await harness.ask("来一个简单的任务")
    [line] = _lines(caplog)
    assert line["event"] == "chat_failed"
    assert line["error"] == "RuntimeError"
    assert "tool_query:error" in line["stages"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_failed_turn_logs_once_with_its_traceback(
    harness: Harness, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, stream: bool
) -> None:
    async def boom(turn: Any, *, request_extras: Any = None) -> Any:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(harness.state.pipeline, "run", boom)
    body = {"model": "suikou", "stream": stream, "messages": [{"role": "user", "content": "你好"}]}
    with caplog.at_level(logging.INFO), harness.client() as client:
        client.post("/v1/chat/completions", json=body)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [r.getMessage() for r in errors]
    [record] = errors
    assert json.loads(record.getMessage())["event"] == "chat_failed"
    assert record.exc_info is not None and "kaboom" in str(record.exc_info[1])
