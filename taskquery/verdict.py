"""A yes/no question about one task ("交季度报告做完了吗", "did I finish the report?") is answered
first, in a sentence, from the rows the query found; the list follows only when several match.

The verdict is code's, like the count: it is read from the user's words and the store's rows,
never from a model's prefix.
"""

from __future__ import annotations

from datetime import datetime

from core.display import format_when, is_overdue
from core.lexicon import english_done_subject
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
    },
    "en": {
        "done": 'Yes: "{title}" was finished {when}.',
        "done_undated": 'Yes: "{title}" is done.',
        "overdue": 'Not yet: "{title}" is overdue (it was due {when}).',
        "open": 'Not yet: "{title}" is due {when}.',
        "open_undated": 'Not yet: "{title}" is still open (no deadline).',
        "several": "{total} tasks match: {done} done, {open} not yet.",
    },
}


def asks_if_done(sentence: str) -> bool:
    text = (sentence or "").strip()
    return is_done_check(text) or english_done_subject(text) is not None


def verdict(page: TaskPage, tz: str, now: datetime, locale: Locale) -> str | None:
    """The answer to "is it done?" from the page, or None when the page cannot say (nothing, or
    more than the page shows)."""
    if not page.items or not page.total_exact or page.total > len(page.items):
        return None
    texts = _TEXTS[locale]
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
