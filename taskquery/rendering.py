"""The answer to a task query, rendered by code. The model only contributes a filtered prefix."""

from __future__ import annotations

import re
from datetime import datetime

from core.display import format_when, group_label
from core.store import TaskPage, TaskRow

MAX_PREFIX_CHARS = 30
NO_RESULT_HINT = "可以换个说法，或者问问「全部任务」。"

# Anything that looks like the model started writing the list itself.
_LISTY = re.compile(r"(^|\s)(\d+[.、)）]|[-*•·#>]|[一二三四五六七八九十]+、)|以下是|如下|列表|清单")


def clean_prefix(candidate: str | None, titles: list[str]) -> str | None:
    """The model's prefix if it is one short plain line; None means use the deterministic one."""
    if not candidate:
        return None
    text = candidate.strip()
    if not text or "\n" in text or len(text) > MAX_PREFIX_CHARS:
        return None
    if _LISTY.search(text) or "`" in text or "|" in text:
        return None
    lowered = text.lower()
    if any(title and len(title) >= 2 and title.lower() in lowered for title in titles):
        return None
    return text


def task_line(index: int, task: TaskRow, tz: str, now: datetime | None = None) -> str:
    facts = [group_label(task.effective_group)]
    if task.promoted:
        facts.append(f"临近截止，由「{group_label(task.priority_group)}」提前")
    if task.is_completed:
        facts.append("已完成")
    if task.deadline_at is not None:
        facts.append(f"截止 {format_when(task.deadline_at, tz, now)}")
    return f"{index}. {task.title}（{'；'.join(facts)}）"


def render_list(
    page: TaskPage, tz: str, *, offset: int = 0, now: datetime | None = None, offer_all: bool = True
) -> str:
    """The header with the true total, one line per task, and a tail when more remain.

    `offer_all=False` when this page is already as long as a page can be: then 「全部」 would only
    show the same page again, so the tail offers 「再来 N 个」 alone.
    """
    shown = len(page.items)
    header = f"给你整理了 {shown} 条任务"
    header += f"（共 {page.total} 条匹配）：" if page.total > shown else "："
    lines = [header]
    lines += [task_line(offset + i + 1, task, tz, now) for i, task in enumerate(page.items)]
    remaining = page.total - offset - shown
    if remaining > 0:
        more = f"「再来 {min(remaining, 5)} 个」" + ("或「全部」" if offer_all else "")
        lines.append(f"还有 {remaining} 条没列出，说{more}可以继续看。")
    return "\n".join(lines)


def render_answer(
    prefix: str,
    page: TaskPage,
    tz: str,
    *,
    offset: int = 0,
    now: datetime | None = None,
    offer_all: bool = True,
) -> str:
    """`now` lets deadlines in another year show their year ("2027年1月5日 …")."""
    if not page.items and page.total > 0:
        return f"{prefix}\n这些就是全部了：一共 {page.total} 条，前面都已经列出。"
    if not page.items:
        return f"{prefix}\n{NO_RESULT_HINT}"
    return f"{prefix}\n{render_list(page, tz, offset=offset, now=now, offer_all=offer_all)}"
