"""A yes/no question about one task ("交季度报告做完了吗", "did I finish the report?") is answered
first, in a sentence, from the rows the query found; the list follows only when several match.

The verdict is code's, like the count: it is read from the user's words and the store's rows,
never from a model's prefix.
"""

from __future__ import annotations

from datetime import datetime

from core import estimates
from core.display import format_when, is_overdue
from core.lexicon import english_done_subject, how_long_subject
from core.locale import Locale
from core.store import TaskPage, TaskRow
from taskquery.offline import is_done_check

_TEXTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "done": "做完了：「{title}」{when} 完成。",
        "done_undated": "做完了：「{title}」已经完成。",
        "overdue": "还没有，「{title}」已逾期（{when} 截止）。",
        "open": "还没有，「{title}」{when} 截止。",
        "open_undated": "还没有，「{title}」还没完成（没有截止时间）。",
        "several": "有 {total} 条相关的任务：{done} 条做完了，{open} 条还没有。",
        "series_done": "做完了：「{title}」上一次 {when} 完成；下一次 {next} 截止。",
    },
    "en": {
        "done": 'Yes: "{title}" was finished {when}.',
        "done_undated": 'Yes: "{title}" is done.',
        "overdue": 'Not yet: "{title}" is overdue (it was due {when}).',
        "open": 'Not yet: "{title}" is due {when}.',
        "open_undated": 'Not yet: "{title}" is still open (no deadline).',
        "several": "{total} tasks match: {done} done, {open} not yet.",
        "series_done": 'Yes: "{title}" was last finished {when}; the next one is due {next}.',
    },
}


# "写周报大概要多久": how long, from the task's estimate (core.estimates).
_HOW_LONG: dict[Locale, dict[str, str]] = {
    "zh": {
        "one": "「{title}」预计{estimate}。",
        "none": "「{title}」还没有预计用时。",
        "several": "有 {total} 条相关的任务，各自的预计用时在下面。",
    },
    "en": {
        "one": '"{title}" takes about {estimate}.',
        "none": '"{title}" has no estimate yet.',
        "several": "{total} tasks match; their estimates are below.",
    },
}


def asks_how_long(sentence: str) -> bool:
    return how_long_subject(sentence) is not None


def how_long(page: TaskPage, locale: Locale) -> str | None:
    """The answer to "how long does X take?" from the page, or None when it has nothing to say."""
    if not page.items or not page.total_exact or page.total > len(page.items):
        return None
    texts = _HOW_LONG[locale]
    if len(page.items) > 1:
        return texts["several"].format(total=page.total)
    row = page.items[0]
    if row.estimate_minutes is None:
        return texts["none"].format(title=row.title)
    return texts["one"].format(title=row.title, estimate=estimates.text_of(row.estimate_minutes, locale))


def asks_if_done(sentence: str) -> bool:
    text = (sentence or "").strip()
    return is_done_check(text) or english_done_subject(text) is not None


def verdict(page: TaskPage, tz: str, now: datetime, locale: Locale) -> str | None:
    """The answer to "is it done?" from the page, or None when the page cannot say (nothing, or
    more than the page shows)."""
    if not page.items or not page.total_exact or page.total > len(page.items):
        return None
    texts = _TEXTS[locale]
    if (found := _series(page.items)) is not None:
        return _series_verdict(*found, tz, now, texts, locale)
    if len(page.items) > 1:
        done = sum(1 for row in page.items if row.is_completed)
        return texts["several"].format(total=page.total, done=done, open=page.total - done)
    return _one(page.items[0], tz, now, texts, locale)


def _one(row: TaskRow, tz: str, now: datetime, texts: dict[str, str], locale: Locale) -> str:
    if row.is_completed:
        if row.completed_at is None:
            return texts["done_undated"].format(title=row.title)
        return texts["done"].format(title=row.title, when=format_when(row.completed_at, tz, now, locale))
    if row.deadline_at is None:
        return texts["open_undated"].format(title=row.title)
    key = "overdue" if is_overdue(row.deadline_at, False, now) else "open"
    return texts[key].format(title=row.title, when=format_when(row.deadline_at, tz, now, locale))


def one_series(page: TaskPage) -> bool:
    """Whether the page is one repeating task with its completed occurrences: one task to a person."""
    return page.total_exact and page.total == len(page.items) and _series(page.items) is not None


def _series(items: list[TaskRow]) -> tuple[TaskRow, list[TaskRow]] | None:
    """The open series and its completed occurrences (copies with its title), when that is all."""
    current = [row for row in items if not row.is_completed]
    if len(current) != 1 or current[0].recurrence is None:
        return None
    done = [row for row in items if row.is_completed]
    return (current[0], done) if all(row.title == current[0].title for row in done) else None


def _series_verdict(
    current: TaskRow, done: list[TaskRow], tz: str, now: datetime, texts: dict[str, str], locale: Locale
) -> str:
    """Done when the last occurrence was and the open one is not yet overdue; else about the open one."""
    finished = [row for row in done if row.completed_at is not None]
    overdue = current.deadline_at is not None and is_overdue(current.deadline_at, False, now)
    if not finished or overdue or current.deadline_at is None:
        return _one(current, tz, now, texts, locale)
    last = max(finished, key=lambda row: row.completed_at or now)
    assert last.completed_at is not None
    return texts["series_done"].format(
        title=current.title,
        when=format_when(last.completed_at, tz, now, locale),
        next=format_when(current.deadline_at, tz, now, locale),
    )
