"""The `task_query` action (随口问), as the registry takes it: handler, explain, and the `ask_tasks` tool."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from core import carry
from core.action import Action, ask_about
from core.tools import TaskItem, ToolContext, ToolOutput, ToolSpec
from taskquery.corpus import CORPUS
from taskquery.handler import DESCRIPTION, explain_query, handle_task_query

__all__ = ["ACTION", "AskResult", "QueryPlanOut"]


class QueryPlanOut(BaseModel):
    """How Suikou read the question: the filter that ran."""

    quadrants: list[int] | None = Field(description="Effective groups searched; null = all.")
    time_field: str
    window_start: str | None
    window_end: str | None
    keyword: str | None
    include_completed: bool
    no_deadline: bool
    repeating: bool = Field(default=False, description="Only repeating tasks.")
    sort_by: str
    order: str
    limit: int
    explicit_limit: int | None = Field(description="The count the question asked for ('三件'), if any.")
    wants_all: bool = Field(description="The question asked for all of them ('全部').")


class AskResult(BaseModel):
    answer: str = Field(description="Suikou's answer, ready to show the user.")
    items: list[TaskItem]
    total: int
    total_exact: bool = Field(description="False when more than `total` tasks match.")
    plan: QueryPlanOut | None = Field(description="Null when the question could not be read as a task query.")


def _plan(data: dict[str, Any]) -> QueryPlanOut | None:
    flt = data.get("filter")
    if flt is None:
        return None
    return QueryPlanOut(
        quadrants=flt.get("quadrants") or None,
        time_field=flt.get("time_field", "deadline"),
        window_start=flt.get("time_after"),
        window_end=flt.get("time_before"),
        keyword=flt.get("keyword"),
        include_completed=flt.get("include_completed", False),
        no_deadline=flt.get("no_deadline", False),
        repeating=flt.get("repeating", False),
        sort_by=flt.get("sort_by", "deadline"),
        order=flt.get("order", "asc"),
        limit=flt.get("limit", 0),
        explicit_limit=data.get("explicit_limit"),
        wants_all=bool(data.get("wants_all", False)),
    )


async def ask_tasks(
    ctx: ToolContext,
    question: Annotated[str, Field(description="The question, as the user said it.")],
    timezone: Annotated[
        str | None, Field(description="The user's IANA timezone, e.g. 'Asia/Shanghai' (default: the server's).")
    ] = None,
) -> ToolOutput:
    answer = await handle_task_query(ctx.turn(question, None, timezone))
    data = dict(answer.data)
    text = carry.strip(answer.text)
    result = AskResult(
        answer=text,
        items=[TaskItem.model_validate(r) for r in data.get("items", [])],
        total=data.get("total", 0),
        total_exact=data.get("total_exact", True),
        plan=_plan(data),
    )
    return ToolOutput(text, result)


ASK_TASKS = ToolSpec(
    "ask_tasks",
    "Ask about my tasks",
    "Answer a question about the user's tasks in their own words (Chinese or English): 'what's urgent this "
    "week?', '明天要交的', 'three most important'. Suikou works out the groups, the time window, a keyword and "
    "the count, then returns the matching tasks, the total, how it read the question (plan) and a ready "
    "answer. Reads only.",
    ask_tasks,
    AskResult,
    read_only=True,
    idempotent=True,
    uses_model=True,
)

ACTION = Action(
    "task_query",
    DESCRIPTION,
    handle_task_query,
    explain=explain_query,
    intent="query",
    corpus=CORPUS,
    propose=ask_about(
        "是想查一下你的任务吗？（「{text}」）", "Do you want me to look through your tasks for “{text}”?"
    ),
    examples=("这周有什么要交的", "来一个简单的任务", "前 3 个下周三之前要交的", "what's overdue?"),
    tools=(ASK_TASKS,),
    outcomes=("listed", "empty"),
    tallies=("broadenings", "reflect_retries"),
)
