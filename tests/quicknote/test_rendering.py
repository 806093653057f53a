"""Quick-note confirmation and clarifying questions in both locales."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from core.models import Task
from quicknote.rendering import NO_TITLE_QUESTION, confirmation, no_title_question, unclear_time_question

TZ = "Asia/Shanghai"
NOW = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo(TZ))  # Monday


def task(title: str, group: int, deadline: datetime | None = None) -> Task:
    return Task(
        id=1, user_id=1, title=title, priority_group=group, deadline_at=deadline, created_at=NOW, updated_at=NOW
    )


def test_confirmation_in_english() -> None:
    deadline = datetime(2026, 12, 1, 20, 0, tzinfo=ZoneInfo(TZ))
    assert (
        confirmation(task("call mom", 2, deadline), TZ, NOW, "en")
        == "OK, noted: call mom (important, not urgent; due Tue Dec 1, 20:00)"
    )


def test_confirmation_in_english_another_year_and_no_deadline() -> None:
    deadline = datetime(2027, 1, 5, 9, 30, tzinfo=ZoneInfo(TZ))
    assert (
        confirmation(task("renew the lease", 1, deadline), TZ, NOW, locale="en")
        == "OK, noted: renew the lease (important & urgent; due Tue Jan 5 2027, 09:30)"
    )
    assert confirmation(task("wash the car", 3), TZ, NOW, "en") == "OK, noted: wash the car (easy, not important)"


def test_confirmation_in_chinese_is_unchanged() -> None:
    deadline = datetime(2026, 12, 1, 20, 0, tzinfo=ZoneInfo(TZ))
    assert (
        confirmation(task("给妈妈打电话", 2, deadline), TZ, NOW)
        == "好，已记下：给妈妈打电话（重要不紧急；截止 12月1日 周二 20:00）"
    )
    assert confirmation(task("洗车", 3), TZ, NOW, "zh") == "好，已记下：洗车（简单不重要）"


def test_no_title_question() -> None:
    assert no_title_question() == NO_TITLE_QUESTION
    assert no_title_question("zh") == "要记什么呢？告诉我事情和时间，比如「帮我记一下明天下午三点交报告」。"
    assert (
        no_title_question("en")
        == 'What should I note down? Tell me the task and when, e.g. "remind me to send the report tomorrow at 3pm".'
    )


def test_unclear_time_question() -> None:
    assert unclear_time_question("交报告", "下个闰月") == (
        "「下个闰月」具体是什么时候？我还没记下「交报告」，请换个说法告诉我截止时间，比如「周五下午五点」或「12月5日」。"
    )
    assert unclear_time_question("send the report", "next leap month", "en") == (
        'When exactly is "next leap month"? I haven\'t saved "send the report" yet — '
        'tell me the deadline another way, e.g. "Friday 5pm" or "Dec 5".'
    )
