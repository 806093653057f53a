"""The answer to a task query, rendered by code. The model only contributes a filtered prefix."""

from __future__ import annotations

import re
from datetime import datetime

from core import estimates, series
from core.display import TASK_LINE_RE, format_when, group_label, is_overdue
from core.locale import Locale
from core.store import TaskPage, TaskRow

MAX_PREFIX_CHARS = 30
NO_RESULT_HINT = "可以换个说法，或者问问「全部任务」。"

# Every fixed text of a rendered list; values are str.format templates.
_TEXTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "header_one": "给你整理了 {shown} 条任务",
        "header_many": "给你整理了 {shown} 条任务",
        "of_total": "（共 {total} 条匹配）：",
        "end_header": "：",
        "line": "{index}. {title}（{facts}）",
        "fact_joiner": "；",
        "promoted": "临近截止，由「{group}」提前",
        "overdue": "已逾期",
        "completed": "已完成",
        "due": "截止 {when}",
        "estimate": "预计{estimate}",
        "more": "「再来 {count} 个」",
        "or_all": "或「全部」",
        "tail": "还有 {remaining} 条没列出，说{more}可以继续看。",
        "tail_uncounted": "还有更多没列出，说{more}可以继续看。",
        "no_result": NO_RESULT_HINT,
        "all_shown": "这些就是全部了：一共 {total} 条，前面都已经列出。",
    },
    "en": {
        "header_one": "Here is {shown} task",
        "header_many": "Here are {shown} tasks",
        "of_total": " ({total} matches):",
        "end_header": ":",
        "line": "{index}. {title} ({facts})",
        "fact_joiner": "; ",
        "promoted": 'due soon, moved up from "{group}"',
        "overdue": "overdue",
        "completed": "done",
        "due": "due {when}",
        "estimate": "about {estimate}",
        "more": '"{count} more"',
        "or_all": ' or "all"',
        "tail": "{remaining} more not listed — say {more} to see them.",
        "tail_uncounted": "More not listed — say {more} to see them.",
        "no_result": 'Try other words, or ask for "all tasks".',
        "all_shown": "That's all: {total} in total, all listed above.",
    },
}

# Recognises a list this module rendered, in either language: its task lines, or the header of
# answers written before the header was folded into the prefix (still in clients' histories).
LIST_HEADER_RE = re.compile(rf"{TASK_LINE_RE.pattern}|给你整理了|^Here (?:are \d+ tasks|is 1 task)", re.M)
# What a prefix line that introduces the list says about the count, folded into it ("…（共 12 条匹配）：").
_FOLDED_COUNT: dict[Locale, dict[str, str]] = {
    "zh": {"more": "（共 {total} 条匹配）", "all": "（共 {total} 条）", "colon": "："},
    "en": {"more": " ({total} matches)", "all": " ({total} tasks)", "colon": ":"},
}
# A lead ends in one of these; any is replaced by the colon. A question is no lead: the header stays.
_LEAD_ENDS = "：:。.！!，,；; "

# The deterministic one-line prefix above the list (see taskquery.steps.default_prefix).
PREFIXES: dict[Locale, dict[str, str]] = {
    "zh": {
        "no_match": "没有找到符合条件的任务。",
        "no_more": "没有更多了。",
        "picked_one": "给你挑了一个：",
        "only_one": "只找到这一条：",
        "phrase": "「{phrase}」的任务在这里：",
        "generic": "按你的问题找到这些任务：",
        "no_such_day": "没有「{phrase}」这一天（{month_has}），换个日期再问吧。",
        "month_of": "{year}年{month}月只有 {days} 天",
        "month_any": "{month}月最多 {days} 天",
        "undated": "没有截止时间的任务：",
        "fits": "{amount}里做得完的，先急后缓；没写预计用时的，简单的按15分钟、其他按1小时算：",
        "none_fit": "没有{amount}里做得完的未完成任务（没写预计用时的，简单的按15分钟、其他按1小时算）。",
        "none_undated": "没有未完成且没设截止时间的任务。",
        "no_keyword": "没有标题含「{keyword}」的任务。",
        "without_keyword": "不限关键词，找到这些：",
        "none_in_window": "「{phrase}」没有符合条件的任务。",
        "none_overdue": "没有逾期的任务。",
        "nearest": "这个时间之外，最近的是：",
        "none_in_time": "你说的时间内没有符合条件的任务。",
        "none_open": "没有未完成的符合条件的任务。",
        "none_open_in_window": "「{phrase}」没有未完成的任务。",
        "instead": "{relaxed}，找到这些：",
        "clamped": "最多一次列 {max} 条，先给你前 {shown} 条：",
        "clamped_next": "最多一次列 {max} 条，先给你接下来的 {shown} 条：",
    },
    "en": {
        "no_match": "No tasks match.",
        "no_more": "No more.",
        "picked_one": "Here's one for you:",
        "only_one": "Only this one matches:",
        "phrase": 'Tasks for "{phrase}":',
        "generic": "Here's what I found:",
        "no_such_day": 'There is no such day as "{phrase}" ({month_has}); try another date.',
        "month_of": "{year}-{month:02d} has {days} days",
        "month_any": "month {month} has at most {days} days",
        "undated": "Tasks without a deadline:",
        "fits": "What fits in {amount}, most pressing first; without an estimate, 15 min if easy, else 1 h:",
        "none_fit": "No open task fits in {amount} (no estimate: 15 min if easy, else 1 h).",
        "none_undated": "No open tasks without a deadline.",
        "no_keyword": 'No task titles contain "{keyword}". ',
        "without_keyword": "Without that word, I found these:",
        "none_in_window": 'Nothing matches for "{phrase}".',
        "none_overdue": "Nothing is overdue.",
        "nearest": "The nearest ones outside that time:",
        "none_in_time": "Nothing matches in that time.",
        "none_open": "No open task matches.",
        "none_open_in_window": 'Nothing open for "{phrase}".',
        "instead": "With {relaxed}, I found these:",
        "clamped": "I can list at most {max} at a time; here are the first {shown}:",
        "clamped_next": "I can list at most {max} at a time; here are the next {shown}:",
    },
}
# How each relaxed condition is named inside the "instead" prefix and the broaden stage line.
RELAXED_LABELS: dict[Locale, dict[str, str]] = {
    "zh": {
        "keyword": "不限关键词",
        "time_window": "不限时间",
        "nearest": "时间之外最近的",
        "include_completed": "含已完成",
    },
    "en": {
        "keyword": "any keyword",
        "time_window": "any time",
        "nearest": "the nearest outside the time",
        "include_completed": "finished ones included",
    },
}
RELAXED_JOINER: dict[Locale, str] = {"zh": "、", "en": ", "}

# Why an answer is empty, from counts the store computed (taskquery.steps.explain_empty): each fact's
# clause ({n} a count, {day} a date), how clauses join, and the follow-up offered on its own line.
# "overdue" and "undated" share one "have" clause ("你有 2 条逾期，3 条没有截止时间").
EMPTY_FACTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "have": "你有 {items}",
        "overdue": "{n} 条逾期",
        "undated": "{n} 条没有截止时间",
        "item_joiner": "，",
        "all_done": "你的 {n} 条任务都已完成",
        "done_in_window": "这段时间内截止的 {n} 条已经完成",
        "next_deadline": "下一个截止在 {day}",
        "tasks_total": "你一共有 {n} 条任务",
        "done_total": "你一共完成过 {n} 条任务",
        "joiner": "；",
        "end": "。",
    },
    "en": {
        "have": "you have {items}",
        "overdue": "{n} overdue",
        "undated": "{n} without a deadline",
        "item_joiner": ", ",
        "all_done": "all {n} of your tasks are done",
        "done_in_window": "{n} due in it are already done",
        "next_deadline": "the next deadline is {day}",
        "tasks_total": "you have {n} tasks in all",
        "done_total": "you have finished {n} tasks in all",
        "joiner": "; ",
        "end": ".",
    },
}
EMPTY_OFFERS: dict[Locale, dict[str, str]] = {
    "zh": {
        "no_tasks": "你还没有任何任务，说一句「帮我记一下…」就能加一条。",
        "see_overdue": "要看看逾期的吗？",
        "see_undated": "要看看没有截止时间的吗？",
    },
    "en": {
        "no_tasks": 'You have no tasks yet — say "remind me to …" to add one.',
        "see_overdue": "Want to see the overdue ones?",
        "see_undated": "Want to see the ones without a deadline?",
    },
}

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


def format_day(moment: datetime, tz: str, now: datetime | None = None, locale: Locale = "zh") -> str:
    """'12月9日 周三' / 'Wed Dec 9': the day of `format_when`, without the time."""
    return format_when(moment, tz, now, locale).rsplit(" ", 1)[0].rstrip(",")


def task_line(index: int, task: TaskRow, tz: str, now: datetime | None = None, *, locale: Locale = "zh") -> str:
    """One numbered line: title and facts (group, overdue, promotion, completion, deadline).

    "Overdue" (not completed, deadline before `now`) needs `now`; without it the line has no
    overdue fact. It sits right after the group label, before the deadline."""
    text = _TEXTS[locale]
    facts = [group_label(task.effective_group, locale)]
    if is_overdue(task.deadline_at, task.is_completed, now):
        facts.append(text["overdue"])
    if task.promoted:
        facts.append(text["promoted"].format(group=group_label(task.priority_group, locale)))
    if task.is_completed:
        facts.append(text["completed"])
    if task.deadline_at is not None:
        facts.append(text["due"].format(when=format_when(task.deadline_at, tz, now, locale)))
    if not task.is_completed and (rule := series.rule_words(task.recurrence, locale)):
        facts.append(rule)  # a series: its rule ("每周一 09:00")
    if task.estimate_minutes and not task.is_completed:
        facts.append(text["estimate"].format(estimate=estimates.text_of(task.estimate_minutes, locale)))
    return text["line"].format(index=index, title=task.title, facts=text["fact_joiner"].join(facts))


def render_list(
    page: TaskPage,
    tz: str,
    *,
    offset: int = 0,
    now: datetime | None = None,
    offer_all: bool = True,
    locale: Locale = "zh",
    lead: str | None = None,
) -> str:
    """The header with the true total, one line per task, and a tail when more remain.

    `lead` is a line that already introduces the list ("「明天」的任务在这里："): the count is folded
    into it, so the list has one header. Blank lines around the items make them a Markdown list
    whatever number it starts at, with the tail its own paragraph (CommonMark).

    `offer_all=False` when this page is already as long as a page can be: then 「全部」 would only
    show the same page again, so the tail offers 「再来 N 个」 alone.
    """
    text = _TEXTS[locale]
    shown = len(page.items)
    more_exist = page.total > shown or not page.total_exact
    header = _header(page, shown, more_exist, locale, lead)
    lines = [task_line(offset + i + 1, task, tz, now, locale=locale) for i, task in enumerate(page.items)]
    blocks = [header, "\n".join(lines)]
    remaining = page.total - offset - shown
    if not page.total_exact:  # counting stopped: how many remain is not known, only that some do
        more = text["more"].format(count=5) + (text["or_all"] if offer_all else "")
        blocks.append(text["tail_uncounted"].format(more=more))
    elif remaining > 0:
        more = text["more"].format(count=min(remaining, 5)) + (text["or_all"] if offer_all else "")
        blocks.append(text["tail"].format(remaining=remaining, more=more))
    return "\n\n".join(blocks)


def _header(page: TaskPage, shown: int, more_exist: bool, locale: Locale, lead: str | None) -> str:
    if lead is None:
        text = _TEXTS[locale]
        header = text["header_one" if shown == 1 else "header_many"].format(shown=shown)
        return header + (text["of_total"].format(total=page.total_label) if more_exist else text["end_header"])
    folded = _FOLDED_COUNT[locale]
    count = folded["more"] if more_exist else folded["all"] if shown > 1 else ""
    return lead.rstrip(_LEAD_ENDS) + count.format(total=page.total_label) + folded["colon"]


def render_answer(
    prefix: str,
    page: TaskPage,
    tz: str,
    *,
    offset: int = 0,
    now: datetime | None = None,
    offer_all: bool = True,
    locale: Locale = "zh",
    hint: str | None = None,
) -> str:
    """`now` lets deadlines in another year show their year ("2027年1月5日 …") and marks overdue
    tasks (not completed, deadline before `now`) as such; every caller should pass it.

    `hint` is the follow-up an empty answer offers (see taskquery.steps.explain_empty); without
    one the generic hint is used."""
    text = _TEXTS[locale]
    if not page.items and page.total > 0:
        return f"{prefix}\n{text['all_shown'].format(total=page.total_label)}"
    if not page.items:
        return f"{prefix}\n{hint or text['no_result']}"
    above, _, last = prefix.rpartition("\n")
    lead = None if not last.strip() or last.rstrip().endswith(("？", "?")) else last
    body = render_list(page, tz, offset=offset, now=now, offer_all=offer_all, locale=locale, lead=lead)
    if lead is None:
        return f"{prefix}\n{body}"
    return f"{above}\n{body}" if above else body
