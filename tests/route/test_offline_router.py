"""The offline router: notes, queries, chat, follow-ups with history, and confidence bands."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from route.decision import HistoryTurn
from route.offline import offline_route

NOTE_THRESHOLD = 0.6

# dev-set cases (copied; the tests never read the eval files)
DEV: list[tuple[str, str]] = [
    ("来一个我的简单任务", "task_query"),
    ("给我3个优先级低的任务", "task_query"),
    ("前五个简单任务给我看看", "task_query"),
    ("top 2 重要任务", "task_query"),
    ("给我一些任务", "task_query"),
    ("前两天的任务", "task_query"),
    ("后天截止的有哪些", "task_query"),
    ("这周要交什么", "task_query"),
    ("下周一有什么任务", "task_query"),
    ("过期没做的任务", "task_query"),
    ("重要不紧急的有哪些", "task_query"),
    ("完成了的任务", "task_query"),
    ("和合同相关的任务", "task_query"),
    ("明天到期的前2个任务", "task_query"),
    ("所有任务", "task_query"),
    ("记一下明天交周报", "quick_note_create"),
    ("提醒我下周一上午10点开会", "quick_note_create"),
    ("添加待办：洗车", "quick_note_create"),
    ("帮我记个很重要的事：续签合同，月底前", "quick_note_create"),
    ("早上好", "chat"),
    ("你叫什么名字", "chat"),
    ("怎么规划时间", "chat"),
    ("给我讲讲艾森豪威尔矩阵", "chat"),
]

MORE: list[tuple[str, str]] = [
    # notes
    ("帮我记一下明天下午三点交报告", "quick_note_create"),
    ("帮我记一下", "quick_note_create"),
    ("记下：周五前把发票寄给财务", "quick_note_create"),
    ("提醒我周五前把发票寄给财务", "quick_note_create"),
    ("别忘了给妈妈打电话", "quick_note_create"),
    ("待办：买牛奶", "quick_note_create"),
    ("帮我加个任务，整理书架", "quick_note_create"),
    ("新建任务 写周报", "quick_note_create"),
    ("能帮我记一下明天去医院吗", "quick_note_create"),
    # queries
    ("今天有什么要做的", "task_query"),
    ("今天还有什么要做的？", "task_query"),
    ("我的任务", "task_query"),
    ("看看我的待办", "task_query"),
    ("列出本周的任务", "task_query"),
    ("这周有哪些事项", "task_query"),
    ("下周三之前要交什么", "task_query"),
    ("我很闲，给我点事做", "task_query"),
    ("有空了，有什么可以做的", "task_query"),
    ("最紧急的是哪个任务", "task_query"),
    ("上周完成了哪些", "task_query"),
    ("最近新建的任务", "task_query"),
    ("随便挑两个简单的", "task_query"),
    ("TOP3 紧急任务", "task_query"),
    ("逾期的有哪些", "task_query"),
    ("查一下跟报销有关的任务", "task_query"),
    ("提醒我明天有什么任务", "task_query"),
    # colloquial time questions
    ("今天有啥活", "task_query"),
    ("这礼拜有啥要忙的", "task_query"),
    ("下礼拜要交啥", "task_query"),
    ("周末有安排吗", "task_query"),
    ("上个礼拜天做了什么", "task_query"),
    ("明年3月份有什么计划", "task_query"),
    ("今天十一点半有什么会", "task_query"),
    ("30日要交的报告", "task_query"),
    ("明早九点前要交的东西", "task_query"),
    ("帮我看看明天", "task_query"),
    ("下周三之前", "task_query"),
    ("月底前得搞定哪些", "task_query"),
    ("上周搞定了啥", "task_query"),
    ("大后天有事吗", "task_query"),
    ("下周要写的周报呢", "task_query"),
    ("二零零三年十二月的记录", "task_query"),
    # fuzzy priorities
    ("手头上有什么急事", "task_query"),
    ("有没有啥不费劲的", "task_query"),
    ("有啥不那么急的", "task_query"),
    ("周五之前重要的事", "task_query"),
    ("今天必须做的", "task_query"),
    ("优先级高的", "task_query"),
    ("急但是不重要的", "task_query"),
    ("整点简单的", "task_query"),
    ("我现在有点空", "task_query"),
    ("名字里带报告的", "task_query"),
    ("来仨", "task_query"),
    # more notes
    ("记得明天买菜", "quick_note_create"),
    ("下午三点开会，提醒我", "quick_note_create"),
    ("周五下午和张三吃饭", "quick_note_create"),
    # chat
    ("你觉得重要吗", "chat"),
    ("你有什么事吗", "chat"),
    ("明天是我生日", "chat"),
    ("我记得你说过", "chat"),
    ("你好", "chat"),
    ("hi", "chat"),
    ("谢谢", "chat"),
    ("你是谁", "chat"),
    ("如何提高工作效率", "chat"),
    ("什么是番茄工作法", "chat"),
    ("今天天气不错", "chat"),
    ("讲个笑话", "chat"),
    ("再来两个", "chat"),  # no history: nothing to follow up on
    ("怎么用记录功能", "chat"),
    ("明天天气怎么样", "chat"),
    ("", "chat"),
    (
        "### Task:\nGenerate a concise, 3-5 word title with an emoji summarizing the chat history.\n"
        "<chat_history>\nUSER: 帮我记一下明天下午三点交报告\n</chat_history>",
        "chat",
    ),
    ("使用四到五个字直接返回这句话的简要主题，不要解释、不要标点", "chat"),
]


@pytest.mark.parametrize(("message", "action"), DEV + MORE)
def test_actions(message: str, action: str) -> None:
    got, confidence, reason = offline_route(message, [])
    assert got == action
    assert 0.0 <= confidence <= 1.0
    assert reason


@pytest.mark.parametrize(
    "message",
    [
        "帮我记一下明天下午三点交报告",
        "提醒我下周一上午10点开会",
        "添加待办：洗车",
        "帮我记一下",
        "别忘了交房租",
    ],
)
def test_clear_note_markers_are_high_confidence(message: str) -> None:
    action, confidence, _ = offline_route(message, [])
    assert action == "quick_note_create"
    assert confidence >= 0.85


@pytest.mark.parametrize("message", ["明天下午三点交报告", "周五前把发票寄给财务", "下周一上午10点开会"])
def test_bare_imperative_with_time_is_a_medium_confidence_note(message: str) -> None:
    action, confidence, _ = offline_route(message, [])
    assert action == "quick_note_create"
    assert NOTE_THRESHOLD <= confidence < 0.85


@pytest.mark.parametrize("message", ["我要买牛奶", "得交房租了"])
def test_ambiguous_note_ish_sentences_stay_under_the_threshold(message: str) -> None:
    action, confidence, _ = offline_route(message, [])
    assert action == "quick_note_create"
    assert confidence < NOTE_THRESHOLD


QUERY_HISTORY = [
    HistoryTurn("user", "来一个我的简单任务"),
    HistoryTurn("assistant", "给你整理了 1 条任务（共 4 条匹配）：\n1. 整理下载文件夹"),
]
NOTE_HISTORY = [
    HistoryTurn("user", "帮我记一下明天下午三点交报告"),
    HistoryTurn("assistant", "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"),
]


@pytest.mark.parametrize("message", ["再来两个", "还有吗", "还有呢", "那明天的呢", "换一批", "那下周的呢"])
def test_followups_after_a_query(message: str) -> None:
    action, confidence, _ = offline_route(message, QUERY_HISTORY)
    assert action == "task_query"
    assert confidence >= 0.85


def test_followup_recognised_from_the_user_turn_alone() -> None:
    history = [HistoryTurn("user", "下周一有什么任务")]
    assert offline_route("还有吗", history)[0] == "task_query"


@pytest.mark.parametrize("message", ["再来两个", "还有吗"])
def test_followups_after_a_note_are_not_queries(message: str) -> None:
    assert offline_route(message, NOTE_HISTORY)[0] == "chat"


def test_history_never_turns_a_greeting_into_a_query() -> None:
    assert offline_route("谢谢", QUERY_HISTORY)[0] == "chat"


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=60),
    st.lists(st.tuples(st.sampled_from(["user", "assistant", "system"]), st.text(max_size=30)), max_size=4),
)
def test_never_raises(message: str, turns: list[tuple[str, str]]) -> None:
    action, confidence, reason = offline_route(message, [HistoryTurn(r, t) for r, t in turns])
    assert action in {"chat", "quick_note_create", "task_query"}
    assert 0.0 <= confidence <= 1.0
    assert isinstance(reason, str)


# --- a priority label in front of a timed imperative: still a note --------------------------------

LABELLED: list[tuple[str, str, bool]] = [
    # (message, action, at or above the note threshold)
    ("紧急：今天下班前回复客户邮件", "quick_note_create", True),
    ("很重要：明天下午三点交报告", "quick_note_create", True),
    ("紧急，明天交报告", "quick_note_create", True),
    ("不重要但很麻烦的事：下个月整理旧照片", "quick_note_create", True),
    ("重要的事情：周五之前签合同", "quick_note_create", True),
    # neighbours
    ("明天下午三点交报告", "quick_note_create", True),
    ("紧急：回复客户邮件", "chat", False),  # no time: may be addressed to the assistant
    ("重要：怎么写简历", "chat", False),
    ("很重要", "chat", False),
    ("紧急！", "chat", False),
    ("明天很重要", "chat", False),
    ("你好", "chat", False),
    ("紧急的任务有哪些", "task_query", True),
    ("我要买牛奶", "quick_note_create", False),
]


@pytest.mark.parametrize(("message", "action", "above"), LABELLED)
def test_labelled_imperatives(message: str, action: str, above: bool) -> None:
    got, confidence, reason = offline_route(message, [])
    assert got == action
    if got == "quick_note_create":
        assert (confidence >= NOTE_THRESHOLD) == above
    assert reason
