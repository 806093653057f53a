"""Dates are never moved silently: a far year said outright is kept as said; one no task list can
mean (past 2200) is asked about, and nothing is written."""

from __future__ import annotations

import pytest
from sqlmodel import select

from core.models import Task
from support.harness import Harness, local


def tasks_of(h: Harness) -> list[Task]:
    with h.state.session() as session:
        return list(session.exec(select(Task)).all())


@pytest.mark.parametrize(
    ("said", "due"),
    [("2100年1月1日", "2100-01-01 23:59:59"), ("二一〇〇年一月一日", "2100-01-01 23:59:59")],
)
async def test_a_far_year_said_outright_is_kept_as_said(harness: Harness, said: str, due: str) -> None:
    answer = await harness.ask(f"帮我记一下{said}交报告")
    assert answer.content.startswith("好，已记下：交报告")
    [task] = tasks_of(harness)
    assert task.deadline_at == local(due)


@pytest.mark.parametrize("said", ["9999年1月1日", "九九九九年一月一日", "2201年1月1日"])
async def test_a_year_no_task_list_can_mean_is_asked_about(harness: Harness, said: str) -> None:
    answer = await harness.ask(f"帮我记一下{said}交报告")
    assert answer.content.startswith(f"「{said}」具体是什么时候？")
    assert tasks_of(harness) == []
