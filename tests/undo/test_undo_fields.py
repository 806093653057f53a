"""Undo reverts its own change, not the whole row: later edits (REST, MCP, another chat) are kept.

NOW is Monday 2026-11-30 10:00 Asia/Shanghai (see support.harness).
"""

from __future__ import annotations

from datetime import timedelta

from support.harness import NOW, Answer, Harness, local


def patch(harness: Harness, task_id: int, **fields: object) -> None:
    """An edit made elsewhere — here REST, as another app of the user's would."""
    with harness.client() as client:
        assert client.patch(f"/tasks/{task_id}", json=fields).status_code == 200


async def test_undo_of_a_completion_keeps_what_was_edited_after_it(harness: Harness) -> None:
    task_id = harness.add("交报告", 2, "2026-12-02 15:00", user="local")
    done = await harness.ask("交报告做完了", user="local")
    assert harness.task(task_id, "local").is_completed
    patch(harness, task_id, title="交季度报告", deadline_at="2026-12-20T18:00:00+08:00", priority_group=1)

    history = [("user", "交报告做完了"), ("assistant", done.content)]
    undone = await harness.ask("撤销", user="local", history=history)

    task = harness.task(task_id, "local")
    assert not task.is_completed and task.completed_at is None  # the change's own field, put back
    # ...and nothing else: the later edits stay.
    assert (task.title, task.deadline_at, task.priority_group) == ("交季度报告", local("2026-12-20 18:00"), 1)
    assert undone.visible == "已撤销：把「交报告」标记为完成"


async def test_a_field_changed_again_later_is_kept_and_the_answer_says_so(harness: Harness) -> None:
    noted = await harness.ask("帮我记一下明天下午三点交报告", user="local")
    task_id = int(noted_task(harness)["id"])  # type: ignore[call-overload]
    history = [("user", "帮我记一下明天下午三点交报告"), ("assistant", noted.content)]
    fixed = await harness.ask("不对，是周五", user="local", history=history)
    assert harness.task(task_id, "local").deadline_at == local("2026-12-04 15:00")
    patch(harness, task_id, deadline_at="2026-12-20T18:00:00+08:00")

    history += [("user", "不对，是周五"), ("assistant", fixed.content)]
    undone = await harness.ask("撤销", user="local", history=history)

    assert harness.task(task_id, "local").deadline_at == local("2026-12-20 18:00")
    assert (
        undone.visible
        == "没有改动，都已经被后来的修改覆盖：修改「交报告」（截止时间后来又改过，保留了 12月20日 周日 18:00）"
    )
    [row] = undone_rows(undone)
    assert row["kept"] == {"deadline_at": "2026-12-20T10:00:00+00:00"}


async def test_undo_of_a_completion_reopened_since_changes_nothing_and_says_why(harness: Harness) -> None:
    task_id = harness.add("交报告", 2, "2026-12-02 15:00", user="local")
    done = await harness.ask("交报告做完了", user="local")
    harness.state.clock = lambda: NOW + timedelta(minutes=5)  # reopened and completed again, later, elsewhere
    with harness.client() as client:
        assert client.post(f"/tasks/{task_id}/complete", json={"completed": False}).status_code == 200
        assert client.post(f"/tasks/{task_id}/complete", json={"completed": True}).status_code == 200
    completed_at = harness.task(task_id, "local").completed_at

    undone = await harness.ask("撤销", user="local", history=[("user", "交报告做完了"), ("assistant", done.content)])

    task = harness.task(task_id, "local")
    assert task.is_completed and task.completed_at == completed_at  # the later completion is not undone
    assert (
        undone.visible == "没有改动，都已经被后来的修改覆盖：把「交报告」标记为完成（完成状态后来又改过，保留了已完成）"
    )
    assert undone_rows(undone)[0]["effect"] == "kept"


def noted_task(harness: Harness) -> dict[str, object]:
    with harness.client() as client:
        [task] = client.get("/tasks").json()["items"]
    return dict(task)


def undone_rows(answer: Answer) -> list[dict[str, object]]:
    return list(answer.data["undone"])
