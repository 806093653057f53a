"""What a casual note's title keeps: quoted and bracketed text (verbatim, never time), a bracketed
priority word (a priority, not title), number pairs that are counts or names (not dates), and an
estimate (out of the title, and named as not saved).

Each rule is tested on the sentences a new user reported and on sentences of our own, Chinese and
English. Fixed now: Monday 2026-11-30 10:00 Asia/Shanghai.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.models import Task
from quicknote.boundary import settle_note
from quicknote.brackets import BRACKET_PAIRS, EN_PRIORITY_WORDS, bracket_spans, mask
from quicknote.draft import NoteDraft
from quicknote.offline import is_bracket_label, offline_extract_note
from quicknote.rendering import confirmation, list_confirmation
from quicknote.split import split_note
from support.harness import Harness

NOW = datetime.fromisoformat("2026-11-30T10:00:00+08:00")
TZ = "Asia/Shanghai"

# --- quoted and bracketed text: title, verbatim, never time ------------------------------------

BRACKETED: list[tuple[str, str, str | None]] = [
    # (sentence, title, time_text) — reported
    ("记一下：看看 [设计稿]", "看看 [设计稿]", None),
    ("记一下买电池（5号）", "买电池（5号）", None),
    # our own: a time word inside quotes is a name, a time outside still counts
    ("记一下读《明天会更好》", "读《明天会更好》", None),
    ("提醒我把「周五」这个文件夹整理好", "把「周五」这个文件夹整理好", None),
    ("记一下周五交【3号方案】", "交【3号方案】", "周五"),
    ("记一下买墨盒（12月5日款）", "买墨盒（12月5日款）", None),
    ("记一下明天读《你好，旧时光》第3章", "读《你好，旧时光》第3章", "明天"),
    ('remember to watch "Tomorrow Never Dies"', 'watch "Tomorrow Never Dies"', None),
    ("add task: review [Friday release notes]", "review [Friday release notes]", None),
    ("todo: reply to “see you 5/6” thread tomorrow", "reply to “see you 5/6” thread", "tomorrow"),
    # an opening mark with no closing one is ordinary text, and so is a blank pair (a checkbox)
    ("记一下整理（草稿", "整理（草稿", None),
    ("记一下 [ ] 买菜", "买菜", None),
    # a bracket right after the time phrase that says the same day again goes with the time phrase
    ("记一下周五（12月4日）交报告", "交报告", "周五"),
    ("submit the form Friday (Dec 4)", "submit the form", "Friday"),
    # ... but one that says another day stays in the title, where the user sees it
    ("记一下周五（12月5日）交报告", "（12月5日）交报告", "周五"),
]


@pytest.mark.parametrize(("sentence", "title", "time_text"), BRACKETED)
def test_bracketed_text_is_title_not_time(sentence: str, title: str, time_text: str | None) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert (note.title, note.time_text) == (title, time_text)
    if time_text is None:
        assert note.deadline_at is None


SPLIT_INSIDE: list[tuple[str, list[str]]] = [
    ("记一下读《你好，旧时光》", ["记一下读《你好，旧时光》"]),
    ("记一下买（苹果、香蕉）", ["记一下买（苹果、香蕉）"]),
    ('note: read "Eat, Pray, Love"', ['note: read "Eat, Pray, Love"']),
    ("明天买「牛奶，面包」，周五交报告", ["明天买「牛奶，面包」", "周五交报告"]),
]


@pytest.mark.parametrize(("sentence", "parts"), SPLIT_INSIDE)
def test_a_message_is_never_split_inside_brackets(sentence: str, parts: list[str]) -> None:
    assert split_note(sentence, NOW, TZ) == parts


# --- a bracketed priority word is a priority and leaves the title ------------------------------

PRIORITY_IN_BRACKETS: list[tuple[str, str, int]] = [
    # (sentence, title, group) — reported
    ("记一下给 Bob 回邮件 (urgent)", "给 Bob 回邮件", 1),
    # our own
    ("记一下（紧急）修复登录页", "修复登录页", 1),
    ("记一下整理相册【不重要】", "整理相册", 3),
    ("记一下续签合同 [很重要]，下个月底前", "续签合同", 2),
    ("todo: renew passport (important)", "renew passport", 2),
    ("call the plumber [ASAP]", "call the plumber", 1),
    ("remind me to water the plants (low priority)", "water the plants", 3),
    # a quote is a name, not a priority; a size or effort word alone stays text
    ("记一下写《重要的事》读后感", "写《重要的事》读后感", 2),
    ("记一下买杯咖啡（小）", "买杯咖啡（小）", 2),
    ('read "Urgent" by Jane Doe', 'read "Urgent" by Jane Doe', 2),
]


@pytest.mark.parametrize(("sentence", "title", "group"), PRIORITY_IN_BRACKETS)
def test_a_bracketed_priority_word_is_a_priority(sentence: str, title: str, group: int) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert (note.title, note.priority_group) == (title, group)


def test_a_quoted_priority_word_is_not_read_as_one() -> None:
    """ "《紧急救援》" names a film: no urgency, the default group (not "明确说很急")."""
    note = offline_extract_note("记一下看《紧急救援》", NOW, TZ)
    assert note.priority_reason == "没有截止时间，默认重要不紧急"


def test_the_model_cannot_overrule_a_bracketed_priority() -> None:
    rules = offline_extract_note("记一下给 Bob 回邮件 (urgent)", NOW, TZ)
    proposed = NoteDraft(title="给 Bob 回邮件", priority_group=2, priority_reason="模型")
    settled = settle_note(proposed, rules, "记一下给 Bob 回邮件 (urgent)", NOW, TZ)
    assert settled.draft.priority_group == 1


# --- number pairs that are counts or names are not dates ---------------------------------------

PAIRS: list[tuple[str, str, str | None]] = [
    # (sentence, title, time_text) — reported
    ("记一下打印4/5页", "打印4/5页", None),
    ("read The 9/11 Report", "read The 9/11 Report", None),
    # our own: a unit after the pair, a name around it, a size with 号
    ("记一下复印3/4张", "复印3/4张", None),
    ("记一下加1/2杯牛奶", "加1/2杯牛奶", None),
    ("print 4/5 pages of the deck", "print 4/5 pages of the deck", None),
    ("add 3/4 cup sugar to the dough", "add 3/4 cup sugar to the dough", None),
    ("read The 7/7 Inquiry", "read The 7/7 Inquiry", None),
    ("记一下买7号电池", "买7号电池", None),
    # still dates
    ("记一下4/5交报告", "交报告", "4/5"),
    ("send invoice 12/24", "send invoice", "12/24"),
    ("meet Bob 4/5 Monday", "meet Bob", "4/5 Monday"),
]


@pytest.mark.parametrize(("sentence", "title", "time_text"), PAIRS)
def test_number_pairs_that_are_not_dates(sentence: str, title: str, time_text: str | None) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert (note.title, note.time_text) == (title, time_text)


# --- estimates: out of the title, kept to be named as not saved --------------------------------

ESTIMATES: list[tuple[str, str, str | None, str | None]] = [
    # (sentence, title, estimate_text, time_text) — reported
    ("记一下写周报，大概一个小时", "写周报", "一个小时", None),
    # our own
    ("记一下整理发票，差不多两个小时", "整理发票", "两个小时", None),
    ("记一下洗车，40分钟左右", "洗车", "40分钟", None),
    ("记一下背单词 半小时能搞定", "背单词", "半小时", None),
    ("记一下明天开会，大概一个半小时", "开会", "一个半小时", "明天"),
    ("记一下做PPT，预计要3天", "做PPT", "3天", None),
    ("记一下拉伸，15分钟", "拉伸", "15分钟", None),
    ("remind me to clean the garage, should take about 3 hours", "clean the garage", "3 hours", None),
    ("todo: stretch, 15 min", "stretch", "15 min", None),
    ("practice piano for about an hour tomorrow", "practice piano", "an hour", "tomorrow"),
    ("write the report, about 2h", "write the report", "2h", None),
    # an amount with a relative-time word is a time, not an estimate
    ("一个小时后提醒我喝水", "喝水", None, "一个小时后"),
    ("记一下3天内交报告", "交报告", None, "3天内"),
    ("call mom in 2 hours", "call mom", None, "in 2 hours"),
    # an amount that describes a thing is title
    ("记一下找个半小时能做完的活", "找个半小时能做完的活", None, None),
    ("记一下列一下十分钟左右的拉伸动作", "列十分钟左右的拉伸动作", None, None),
]


@pytest.mark.parametrize(("sentence", "title", "estimate", "time_text"), ESTIMATES)
def test_an_estimate_leaves_the_title(sentence: str, title: str, estimate: str | None, time_text: str | None) -> None:
    note = offline_extract_note(sentence, NOW, TZ)
    assert (note.title, note.estimate_text, note.time_text) == (title, estimate, time_text)


def test_fifteen_minutes_to_do_it_is_still_easy() -> None:
    """The estimate leaves the title, but its words still count for the priority ("几分钟能搞定" is easy)."""
    note = offline_extract_note("记一下回个消息，5分钟就能搞定", NOW, TZ)
    assert (note.title, note.estimate_text, note.priority_group) == ("回个消息", "5分钟", 3)


def _task(title: str) -> Task:
    return Task(id=1, user_id=1, title=title, priority_group=2, created_at=NOW, updated_at=NOW)


def test_the_confirmation_says_the_estimate_it_kept() -> None:
    task = _task("写周报")
    task.estimate_minutes = 60
    assert confirmation(task, TZ, NOW, estimate="一个小时") == "好，已记下：写周报（重要不紧急；预计1小时）"
    english = _task("write the report")
    english.estimate_minutes = 120
    assert confirmation(english, TZ, NOW, "en", estimate="2h") == (
        "OK, noted: write the report (important, not urgent; about 2 h)"
    )
    listed = list_confirmation([_task("洗车"), task], TZ, NOW, estimates=[None, "一个小时"])
    assert listed.splitlines()[1:] == ["1. 洗车（重要不紧急）", "2. 写周报（重要不紧急；预计1小时）"]


def test_an_estimate_without_an_amount_is_said_as_not_saved() -> None:
    assert confirmation(_task("整理发票"), TZ, NOW, estimate="几个小时") == (
        "好，已记下：整理发票（重要不紧急）（「几个小时」没有说出具体用时，没有记下预计用时）"
    )


def test_the_settled_draft_keeps_the_rules_estimate_and_title() -> None:
    """A model that keeps the estimate in its title is overruled by the rules' title; the estimate stays."""
    sentence = "记一下写周报，大概一个小时"
    rules = offline_extract_note(sentence, NOW, TZ)
    proposed = NoteDraft(title="写周报，大概一个小时", priority_group=2)
    settled = settle_note(proposed, rules, sentence, NOW, TZ).draft
    assert (settled.title, settled.estimate_text) == ("写周报", "一个小时")


def test_a_model_time_inside_brackets_is_ignored() -> None:
    """The model reads "5号" in "买电池（5号）" as a day: it occurs only inside brackets, so no deadline."""
    sentence = "记一下买电池（5号）"
    rules = offline_extract_note(sentence, NOW, TZ)
    proposed = NoteDraft(title="买电池", time_text="5号", priority_group=2)
    settled = settle_note(proposed, rules, sentence, NOW, TZ).draft
    assert (settled.title, settled.time_text) == ("买电池（5号）", None)


async def test_a_note_with_an_estimate_end_to_end(harness: Harness) -> None:
    answer = await harness.ask("记一下写周报，大概一个小时")
    assert answer.action == "quick_note_create"
    assert answer.visible == "好，已记下：写周报（重要不紧急；预计1小时）"
    [task] = harness.tasks()
    assert (task.title, task.estimate_minutes) == ("写周报", 60)


async def test_a_retry_names_the_estimate_again(harness: Harness) -> None:
    await harness.ask("记一下写周报，大概一个小时")
    again = await harness.ask("记一下写周报，大概一个小时")
    assert again.visible == "这条消息刚才已经记下了，没有重复创建：写周报（重要不紧急；预计1小时）"


async def test_two_notes_one_with_an_estimate_end_to_end(harness: Harness) -> None:
    answer = await harness.ask("明天买牛奶，周五写周报，大概一个小时")
    assert answer.visible.splitlines()[2].endswith("；预计1小时）")
    again = await harness.ask("明天买牛奶，周五写周报，大概一个小时")
    assert again.visible.splitlines()[2].endswith("；预计1小时）")


# --- property: bracketed text always survives verbatim in the title ----------------------------

_LEADS = ("", "记一下", "帮我记一下：", "提醒我", "todo: ", "remind me to ")
_TASKS = ("买", "看看", "整理", "读", "review ", "call ", "交")
_TAILS = ("", "，明天", "，周五前", " tomorrow", "，大概一个小时", "吧")
_MARKS = "".join(o + c for o, c, _ in BRACKET_PAIRS)
# Letters, digits, CJK, spaces and the punctuation a note holds — no bracket marks, no private-use characters.
_INNER = st.text(
    alphabet=st.characters(
        categories=("L", "N", "Zs", "Po", "Pd"),
        exclude_characters=_MARKS,
        max_codepoint=0xFFFF,
    ),
    min_size=1,
    max_size=12,
).filter(lambda s: any(ch.isalnum() for ch in s))


@settings(max_examples=200, deadline=None)
@given(
    lead=st.sampled_from(_LEADS),
    task=st.sampled_from(_TASKS),
    pair=st.sampled_from(BRACKET_PAIRS),
    inner=_INNER,
    tail=st.sampled_from(_TAILS),
)
def test_bracketed_text_survives_verbatim(
    lead: str, task: str, pair: tuple[str, str, bool], inner: str, tail: str
) -> None:
    opening, closing, _ = pair
    span = f"{opening}{inner}{closing}"
    masked = mask(span, is_bracket_label)
    if masked.priority:  # a bracketed priority word: a priority, tested above
        return
    note = offline_extract_note(f"{lead}{task}{span}{tail}", NOW, TZ)
    assert note.title is not None and span in note.title
    assert note.time_text is None or note.time_text not in inner or note.time_text in tail


def test_priority_words_are_data() -> None:
    assert all(w == w.lower() for w in EN_PRIORITY_WORDS)
    assert bracket_spans("a（b（c）d）e「f」") == [(1, 8), (9, 12)]


@pytest.mark.parametrize(
    ("sentence", "title"),
    [
        ("remind me to buy stamps for friday", "buy stamps"),
        ("remind me to pick up the dry cleaning before saturday", "pick up the dry cleaning"),
        ("remind me to book a table for tomorrow", "book a table"),
    ],
)
def test_an_english_preposition_left_by_the_time_phrase_leaves_the_title(sentence: str, title: str) -> None:
    assert offline_extract_note(sentence, NOW, TZ).title == title
