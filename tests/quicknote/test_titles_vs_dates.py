"""Quick-note titles against dates that look like words (and words that look like dates).

A name in 《》/「」 keeps its words; 今日/明日/昨日 right before a noun that cannot be the task said
on that day (今日头条, 明日方舟, 昨日青空) begin a name, while a verb after them ("今日开会",
"明日交报告") makes them the day. A date that does not exist ("2019年2月29日") gives no deadline:
the words stay in ``time_text`` and the question says the day does not exist.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from quicknote.offline import offline_extract_note
from quicknote.rendering import unclear_time_question
from support.harness import Harness

NOW = datetime.fromisoformat("2026-11-30T10:00:00+08:00")  # a Monday
SH = ZoneInfo("Asia/Shanghai")

# sentence, title, deadline (ISO, None = none)
CASES: list[tuple[str, str, str | None]] = [
    # names that begin with a day word
    ("记一下今日头条的稿子", "今日头条的稿子", None),
    ("记一下今日头条新闻要发", "今日头条新闻要发", None),
    ("记一下今日头条", "今日头条", None),
    ("记一下明日方舟的活动周末打完", "明日方舟的活动，打完", "2026-12-06T23:59:59+08:00"),
    ("帮我记一下昨日青空的影评明天写", "昨日青空的影评，写", "2026-12-01T23:59:59+08:00"),
    ("记一下《明日之后》将于明日正式上线", "《明日之后》将于，正式上线", "2026-12-01T23:59:59+08:00"),
    ("记一下「昨日青空」的观后感周五前写完", "「昨日青空」的观后感，写完", "2026-12-04T23:59:59+08:00"),
    ("记一下《今天》这首诗要背", "《今天》这首诗要背", None),
    # the same day words as days
    ("记一下今日开会", "开会", "2026-11-30T23:59:59+08:00"),
    ("记一下明日交报告", "交报告", "2026-12-01T23:59:59+08:00"),
    ("记一下今日头痛去医院", "头痛去医院", "2026-11-30T23:59:59+08:00"),
    # lunar and odd dates
    ("记一下农历三月三去踏青", "去踏青", "2027-04-09T23:59:59+08:00"),
    ("记一下三月初一回老家", "回老家", "2027-04-07T23:59:59+08:00"),
    ("记一下七月五号晚聚餐", "聚餐", "2027-07-05T23:59:59+08:00"),
    ("记一下2月29日交报告", "交报告", "2028-02-29T23:59:59+08:00"),
    ("记一下十月第一个星期一交材料", "交材料", "2027-10-04T23:59:59+08:00"),
    ("记一下下个月最后一个周五交月报", "交月报", "2026-12-25T23:59:59+08:00"),
]


@pytest.mark.parametrize(("sentence", "title", "deadline"), CASES, ids=[c[0] for c in CASES])
def test_title_and_deadline(sentence: str, title: str, deadline: str | None) -> None:
    draft = offline_extract_note(sentence, NOW)
    assert draft.title == title
    got = draft.deadline_at.isoformat() if draft.deadline_at else None
    assert got == deadline


@pytest.mark.parametrize(
    ("sentence", "phrase", "says"),
    [
        ("记一下2019年2月29日交报告", "2019年2月29日", "（2019年2月只有 28 天）"),
        ("记一下4月31号交报告", "4月31号", "（4月最多 30 天）"),
        ("记一下2月30日交报告", "2月30日", "（2月最多 29 天）"),
    ],
)
def test_a_day_that_does_not_exist_is_asked_about(sentence: str, phrase: str, says: str) -> None:
    draft = offline_extract_note(sentence, NOW)
    assert (draft.title, draft.time_text, draft.deadline_at) == ("交报告", phrase, None)
    question = unclear_time_question(draft.title or "", draft.time_text or "")
    assert question.startswith(f"「{phrase}」具体是什么时候？这一天不存在") and says in question
    assert "我还没记下「交报告」" in question


def test_other_unclear_phrases_keep_the_general_question() -> None:
    assert unclear_time_question("交报告", "13月5日").startswith("「13月5日」具体是什么时候？")
    assert unclear_time_question("交报告", "2028年2月29日").startswith("「2028年2月29日」具体是什么时候？")
    english = unclear_time_question("x", "2019年2月29日", "en")
    assert 'is "2019年2月29日"? That day does not exist (2019-02 has 28 days).' in english


@pytest.mark.parametrize("sentence", ["周三和周五去健身房", "gym mon and thu"])
async def test_two_days_joined_by_and_are_asked_about_not_one_deadline(harness: Harness, sentence: str) -> None:
    """ "周三和周五" is two times: keeping one of them as the deadline would drop the other."""
    answer = await harness.ask(sentence)
    assert answer.action == "quick_note_create"
    assert harness.tasks("alice") == []
    assert "周三和周五" in answer.content or "mon and thu" in answer.content.lower()


@pytest.mark.parametrize(
    ("sentence", "due"),
    [
        ("周三和周五之间去趟银行", "2026-12-04"),
        ("明天或者后天交报告", "2026-12-02"),
        ("周五及之前交报告", "2026-12-04"),
    ],
)
async def test_between_and_either_are_one_window(harness: Harness, sentence: str, due: str) -> None:
    answer = await harness.ask(sentence)
    assert answer.action == "quick_note_create"
    (task,) = harness.tasks("alice")
    assert task.deadline_at is not None and task.deadline_at.astimezone(SH).date().isoformat() == due
