"""End-to-end smoke: one note, one query, one chat, through the pipeline and over HTTP."""

from __future__ import annotations

from typing import Any


async def test_note_then_query(harness: Any) -> None:
    noted = await harness.ask("帮我记一下明天下午三点交报告")
    assert noted.action == "quick_note_create"
    assert noted.visible == "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"
    asked = await harness.ask("明天要交什么")
    assert asked.action == "task_query"
    assert "1. 交报告（重要且紧急；截止 12月1日 周二 15:00）" in asked.content
    assert asked.stages[0] == "route:end"


def test_http_roundtrip(harness: Any) -> None:
    key = harness.api_key("alice")
    harness.add("买猫粮", 3, "2026-12-01 19:00")
    with harness.client() as client:
        r = client.post(
            "/v1/chat/completions",
            headers={"Authorization": f"Bearer {key}"},
            json={"model": "suikou", "messages": [{"role": "user", "content": "来一个简单的任务"}]},
        )
    assert r.status_code == 200, r.text
    body = r.json()
    assert "买猫粮" in body["choices"][0]["message"]["content"]
    assert body["usage"]["model_requests"] == 0  # offline: router, plan and reflect are rules
    assert body["usage"]["offline_steps"] == 3


def test_the_app_reads_inline_on_sqlite_only() -> None:
    """SQLite reads run on the event loop (docs/fdr/0011); tests/taskquery checks what that means."""
    from app.settings import Settings
    from app.state import build_state

    state = build_state(Settings(database_url="sqlite://"))
    try:
        assert state.turn_config().reads_inline is True
    finally:
        state.engine.dispose()
