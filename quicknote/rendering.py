"""Confirmations and clarifying questions, rendered by code."""

from __future__ import annotations

from datetime import datetime

from core.display import format_when, group_label
from core.models import Task


def confirmation(task: Task, tz: str, now: datetime) -> str:
    facts = [group_label(task.priority_group)]
    if task.deadline_at is not None:
        facts.append(f"截止 {format_when(task.deadline_at, tz, now)}")
    return f"好，已记下：{task.title}（{'；'.join(facts)}）"


NO_TITLE_QUESTION = "要记什么呢？告诉我事情和时间，比如「帮我记一下明天下午三点交报告」。"


def unclear_time_question(title: str, phrase: str) -> str:
    return (
        f"「{phrase}」具体是什么时候？我还没记下「{title}」，"
        "请换个说法告诉我截止时间，比如「周五下午五点」或「12月5日」。"
    )
