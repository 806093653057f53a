"""Rendered task lists in English, the Chinese texts they mirror, and follow-ups after them."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from core.locale import Locale
from core.store import TaskPage, TaskRow
from core.turn import HistoryTurn
from support.rows import task_row
from taskquery.followup import FollowUp, find_followup
from taskquery.rendering import (
    EMPTY_FACTS,
    EMPTY_OFFERS,
    PREFIXES,
    RELAXED_JOINER,
    RELAXED_LABELS,
    format_day,
    render_answer,
    render_list,
    task_line,
)

TZ = "Asia/Shanghai"
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo(TZ))  # Monday
DUE = datetime(2026, 12, 1, 15, 0, tzinfo=ZoneInfo(TZ))  # Tuesday


def row(
    title: str,
    group: int = 2,
    deadline: datetime | None = DUE,
    *,
    effective: int | None = None,
    completed: bool = False,
    task_id: int = 1,
) -> TaskRow:
    due = deadline
    return task_row(title, group, due, effective=effective, completed=completed, task_id=task_id)


def rows(count: int) -> list[TaskRow]:
    return [row(f"t{i}", 3, None, task_id=i) for i in range(count)]


# --- lines ---------------------------------------------------------------------------------------


def test_task_line_in_english() -> None:
    assert task_line(1, row("send the report", 1), TZ, locale="en") == (
        "1. send the report (important & urgent; due Tue Dec 1, 15:00)"
    )


def test_task_line_promotion_and_completion_facts_in_both_locales() -> None:
    promoted = row("review the contract", 2, effective=1)
    assert task_line(1, promoted, TZ, locale="en") == (
        '1. review the contract (important & urgent; due soon, moved up from "important, not urgent"; '
        "due Tue Dec 1, 15:00)"
    )
    assert task_line(1, promoted, TZ) == (
        "1. review the contract（重要且紧急；临近截止，由「重要不紧急」提前；截止 12月1日 周二 15:00）"
    )
    done = row("wash the car", 3, None, completed=True)
    assert task_line(2, done, TZ, locale="en") == "2. wash the car (easy, not important; done)"
    assert task_line(2, done, TZ) == "2. wash the car（简单不重要；已完成）"


def test_task_line_shows_another_year() -> None:
    later = row("clear old scans", 4, datetime(2027, 1, 5, 10, 0, tzinfo=ZoneInfo(TZ)))
    assert task_line(3, later, TZ, NOW, locale="en") == (
        "3. clear old scans (not easy, not important; due Tue Jan 5 2027, 10:00)"
    )


# --- lists ---------------------------------------------------------------------------------------


def test_render_list_in_english_with_total_and_tail() -> None:
    page = TaskPage(total=7, items=[row("send the report", 1), row("buy coffee", 3, None), row("study", 2)])
    assert render_list(page, TZ, locale="en").splitlines() == [
        "Here are 3 tasks (7 matches):",
        "",
        "1. send the report (important & urgent; due Tue Dec 1, 15:00)",
        "2. buy coffee (easy, not important)",
        "3. study (important, not urgent; due Tue Dec 1, 15:00)",
        "",
        '4 more not listed — say "4 more" or "all" to see them.',
    ]


def test_render_list_in_english_without_total() -> None:
    assert render_list(TaskPage(total=2, items=rows(2)), TZ, locale="en").splitlines() == [
        "Here are 2 tasks:",
        "",
        "1. t0 (easy, not important)",
        "2. t1 (easy, not important)",
    ]
    assert render_list(TaskPage(total=1, items=rows(1)), TZ, locale="en") == (
        "Here is 1 task:\n\n1. t0 (easy, not important)"
    )
    assert render_list(TaskPage(total=3, items=rows(1)), TZ, locale="en").splitlines()[0] == (
        "Here is 1 task (3 matches):"
    )


def test_render_list_english_tail_offers_at_most_five_and_all_only_when_useful() -> None:
    page = TaskPage(total=40, items=rows(20))
    assert render_list(page, TZ, locale="en").splitlines()[-1] == (
        '20 more not listed — say "5 more" or "all" to see them.'
    )
    assert render_list(page, TZ, offer_all=False, locale="en").splitlines()[-1] == (
        '20 more not listed — say "5 more" to see them.'
    )


def test_render_list_english_continues_numbering_after_an_offset() -> None:
    text = render_list(TaskPage(total=8, items=rows(2)), TZ, offset=1, locale="en")
    assert text.splitlines()[2:] == [
        "2. t0 (easy, not important)",
        "3. t1 (easy, not important)",
        "",
        '5 more not listed — say "5 more" or "all" to see them.',
    ]


def test_render_list_chinese_has_blank_lines_around_the_items() -> None:
    page = TaskPage(total=7, items=[row("交报告", 1), row("买咖啡豆", 3, None)])
    assert render_list(page, TZ).splitlines() == [
        "给你整理了 2 条任务（共 7 条匹配）：",
        "",
        "1. 交报告（重要且紧急；截止 12月1日 周二 15:00）",
        "2. 买咖啡豆（简单不重要）",
        "",
        "还有 5 条没列出，说「再来 5 个」或「全部」可以继续看。",
    ]
    assert render_list(TaskPage(total=1, items=rows(1)), TZ, locale="zh").splitlines()[0] == "给你整理了 1 条任务："


def test_render_list_when_counting_stopped_says_more_without_a_number() -> None:
    page = TaskPage(total=1000, items=rows(2), total_exact=False)
    assert render_list(page, TZ).splitlines() == [
        "给你整理了 2 条任务（共 1000+ 条匹配）：",
        "",
        "1. t0（简单不重要）",
        "2. t1（简单不重要）",
        "",
        "还有更多没列出，说「再来 5 个」或「全部」可以继续看。",
    ]
    # Even when this page reaches the counted bound, more exist: the tail still says so.
    last = TaskPage(total=3, items=rows(2), total_exact=False)
    assert render_list(last, TZ, offset=1, offer_all=False, locale="en").splitlines()[::5] == [
        "Here are 2 tasks (3+ matches):",
        'More not listed — say "5 more" to see them.',
    ]


# --- answers -------------------------------------------------------------------------------------


def test_render_answer_in_english() -> None:
    page = TaskPage(total=1, items=[row("send the report", 1)])
    assert render_answer(PREFIXES["en"]["only_one"], page, TZ, now=NOW, locale="en") == (
        "Only this one matches:\n\n1. send the report (important & urgent; due Tue Dec 1, 15:00)"
    )


def test_a_lead_line_takes_the_count_and_the_list_has_one_header() -> None:
    page = TaskPage(total=12, items=rows(2))
    assert render_answer("「明天」的任务在这里：", page, TZ, now=NOW).splitlines()[:3] == [
        "「明天」的任务在这里（共 12 条匹配）：",
        "",
        "1. t0（简单不重要）",
    ]
    assert render_answer("Tasks for today:", TaskPage(total=2, items=rows(2)), TZ, now=NOW, locale="en").startswith(
        "Tasks for today (2 tasks):\n\n1. "
    )
    # A lead that asks something is no lead: the header stays its own line.
    assert render_answer("要先做哪个？", page, TZ, now=NOW).splitlines()[1] == "给你整理了 2 条任务（共 12 条匹配）："


def test_a_page_starting_after_one_is_still_a_markdown_list() -> None:
    """CommonMark: only a list starting at 1 may interrupt a paragraph, and a line right after
    an item is a lazy continuation of it; the blank lines make page 2 a list and the tail a paragraph."""
    text = render_answer("按你的问题找到这些任务：", TaskPage(total=9, items=rows(3)), TZ, offset=3, now=NOW)
    header, blank, *items, blank2, tail = text.splitlines()
    assert (blank, blank2) == ("", "") and header == "按你的问题找到这些任务（共 9 条匹配）："
    assert [item.split(".")[0] for item in items] == ["4", "5", "6"]
    assert tail.startswith("还有 3 条没列出")


def test_render_answer_english_no_result_and_all_shown() -> None:
    empty = render_answer(PREFIXES["en"]["no_match"], TaskPage(total=0, items=[]), TZ, locale="en")
    assert empty == 'No tasks match.\nTry other words, or ask for "all tasks".'
    exhausted = render_answer(PREFIXES["en"]["no_more"], TaskPage(total=7, items=[]), TZ, offset=7, locale="en")
    assert exhausted == "No more.\nThat's all: 7 in total, all listed above."


def test_render_answer_chinese_is_unchanged() -> None:
    empty = render_answer("没有找到符合条件的任务。", TaskPage(total=0, items=[]), TZ)
    assert empty == "没有找到符合条件的任务。\n可以换个说法，或者问问「全部任务」。"
    exhausted = render_answer("没有更多了。", TaskPage(total=3, items=[]), TZ, offset=3)
    assert exhausted == "没有更多了。\n这些就是全部了：一共 3 条，前面都已经列出。"


def test_prefix_tables_fill_in() -> None:
    cases: list[tuple[Locale, str]] = [
        ("zh", "不限时间、含已完成，找到这些："),
        ("en", "With any time, finished ones included, I found these:"),
    ]
    for locale, expected in cases:
        names = ["time_window", "include_completed"]
        relaxed = RELAXED_JOINER[locale].join(RELAXED_LABELS[locale][name] for name in names)
        assert PREFIXES[locale]["instead"].format(relaxed=relaxed) == expected
    assert PREFIXES["zh"]["phrase"].format(phrase="下周") == "「下周」的任务在这里："
    assert PREFIXES["en"]["phrase"].format(phrase="next week") == 'Tasks for "next week":'
    assert set(PREFIXES["zh"]) == set(PREFIXES["en"])
    assert set(RELAXED_LABELS["zh"]) == set(RELAXED_LABELS["en"])


def test_empty_texts_exist_in_both_locales_and_fill_in() -> None:
    for table in (EMPTY_FACTS, EMPTY_OFFERS):
        assert set(table["zh"]) == set(table["en"])
    assert EMPTY_FACTS["zh"]["overdue"].format(n="1000+") == "1000+ 条逾期"
    assert EMPTY_FACTS["en"]["next_deadline"].format(day="Wed Dec 9") == "the next deadline is Wed Dec 9"
    assert PREFIXES["zh"]["clamped"].format(max=20, shown=20) == "最多一次列 20 条，先给你前 20 条："


def test_format_day_is_the_day_without_the_time() -> None:
    assert format_day(DUE, TZ) == "12月1日 周二"
    assert format_day(DUE, TZ, locale="en") == "Tue Dec 1"
    later = datetime(2027, 1, 5, 10, 0, tzinfo=ZoneInfo(TZ))
    assert format_day(later, TZ, NOW) == "2027年1月5日 周二"
    assert format_day(later, TZ, NOW, locale="en") == "Tue Jan 5 2027"


def test_empty_answer_offers_its_follow_up_instead_of_the_generic_hint() -> None:
    empty = TaskPage(total=0, items=[])
    assert render_answer("「这周」没有符合条件的任务。", empty, TZ, hint="要看看逾期的吗？") == (
        "「这周」没有符合条件的任务。\n要看看逾期的吗？"
    )
    assert render_answer("No tasks match.", empty, TZ, locale="en", hint=None).endswith('ask for "all tasks".')
    # A hint is for the empty path only: a list keeps its own tail.
    listed = render_answer("x", TaskPage(total=1, items=rows(1)), TZ, hint="要看看逾期的吗？")
    assert "要看看逾期的吗" not in listed


# --- follow-ups ----------------------------------------------------------------------------------


def test_followup_after_an_english_list() -> None:
    page = TaskPage(total=7, items=rows(3))
    reply = render_answer(PREFIXES["en"]["generic"], page, TZ, locale="en")
    history = [HistoryTurn("user", "what is not important?"), HistoryTurn("assistant", reply)]
    assert find_followup("再来两个", history) == FollowUp("what is not important?", 3, True)


def test_followup_after_a_single_english_task() -> None:
    reply = render_answer(PREFIXES["en"]["only_one"], TaskPage(total=1, items=rows(1)), TZ, locale="en")
    history = [HistoryTurn("user", "anything easy?"), HistoryTurn("assistant", reply)]
    assert find_followup("还有吗", history) == FollowUp("anything easy?", 1, True)


def test_no_followup_after_an_english_reply_that_is_not_a_list() -> None:
    history = [
        HistoryTurn("user", "remind me to call mom"),
        HistoryTurn("assistant", "OK, noted: call mom (important, not urgent)"),
    ]
    assert find_followup("再来两个", history) is None


def test_a_later_page_renders_as_an_ordered_list_in_commonmark() -> None:
    from markdown_it import MarkdownIt

    text = render_answer("按你的问题找到这些任务：", TaskPage(total=9, items=rows(3)), TZ, offset=3, now=NOW)
    html = MarkdownIt("commonmark").render(text)
    assert '<ol start="4">' in html
    assert html.count("<li>") == 3
    assert html.rstrip().endswith("</ol>\n<p>还有 3 条没列出，说「再来 3 个」或「全部」可以继续看。</p>")
