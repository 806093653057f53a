"""The offline router: notes, queries, chat, follow-ups with history, and confidence bands."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.turn import HistoryTurn
from route.offline import offline_route

NOTE_THRESHOLD = 0.6

# dev-set cases (copied; the tests never read the eval files)
DEV: list[tuple[str, str]] = [
    ("来一个我的简单任务", "query"),
    ("给我3个优先级低的任务", "query"),
    ("前五个简单任务给我看看", "query"),
    ("top 2 重要任务", "query"),
    ("给我一些任务", "query"),
    ("前两天的任务", "query"),
    ("后天截止的有哪些", "query"),
    ("这周要交什么", "query"),
    ("下周一有什么任务", "query"),
    ("过期没做的任务", "query"),
    ("重要不紧急的有哪些", "query"),
    ("完成了的任务", "query"),
    ("和合同相关的任务", "query"),
    ("明天到期的前2个任务", "query"),
    ("所有任务", "query"),
    ("记一下明天交周报", "capture"),
    ("提醒我下周一上午10点开会", "capture"),
    ("添加待办：洗车", "capture"),
    ("帮我记个很重要的事：续签合同，月底前", "capture"),
    ("早上好", "chat"),
    ("你叫什么名字", "chat"),
    ("怎么规划时间", "chat"),
    ("给我讲讲艾森豪威尔矩阵", "chat"),
]

MORE: list[tuple[str, str]] = [
    # notes
    ("帮我记一下明天下午三点交报告", "capture"),
    ("帮我记一下", "capture"),
    ("记下：周五前把发票寄给财务", "capture"),
    ("提醒我周五前把发票寄给财务", "capture"),
    ("别忘了给妈妈打电话", "capture"),
    ("待办：买牛奶", "capture"),
    ("帮我加个任务，整理书架", "capture"),
    ("新建任务 写周报", "capture"),
    ("能帮我记一下明天去医院吗", "capture"),
    # queries
    ("今天有什么要做的", "query"),
    ("今天还有什么要做的？", "query"),
    ("我的任务", "query"),
    ("看看我的待办", "query"),
    ("列出本周的任务", "query"),
    ("这周有哪些事项", "query"),
    ("下周三之前要交什么", "query"),
    ("我很闲，给我点事做", "query"),
    ("有空了，有什么可以做的", "query"),
    ("最紧急的是哪个任务", "query"),
    ("上周完成了哪些", "query"),
    ("最近新建的任务", "query"),
    ("随便挑两个简单的", "query"),
    ("TOP3 紧急任务", "query"),
    ("逾期的有哪些", "query"),
    ("查一下跟报销有关的任务", "query"),
    ("提醒我明天有什么任务", "query"),
    # colloquial time questions
    ("今天有啥活", "query"),
    ("这礼拜有啥要忙的", "query"),
    ("下礼拜要交啥", "query"),
    ("周末有安排吗", "query"),
    ("上个礼拜天做了什么", "query"),
    ("明年3月份有什么计划", "query"),
    ("今天十一点半有什么会", "query"),
    ("30日要交的报告", "query"),
    ("明早九点前要交的东西", "query"),
    ("帮我看看明天", "query"),
    ("下周三之前", "query"),
    ("月底前得搞定哪些", "query"),
    ("上周搞定了啥", "query"),
    ("大后天有事吗", "query"),
    ("下周要写的周报呢", "query"),
    ("二零零三年十二月的记录", "query"),
    # fuzzy priorities
    ("手头上有什么急事", "query"),
    ("有没有啥不费劲的", "query"),
    ("有啥不那么急的", "query"),
    ("周五之前重要的事", "query"),
    ("今天必须做的", "query"),
    ("优先级高的", "query"),
    ("急但是不重要的", "query"),
    ("整点简单的", "query"),
    ("我现在有点空", "query"),
    ("名字里带报告的", "query"),
    ("来仨", "query"),
    # more notes
    ("记得明天买菜", "capture"),
    ("下午三点开会，提醒我", "capture"),
    ("周五下午和张三吃饭", "capture"),
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
    assert action == "capture"
    assert confidence >= 0.85


@pytest.mark.parametrize("message", ["明天下午三点交报告", "周五前把发票寄给财务", "下周一上午10点开会"])
def test_bare_imperative_with_time_is_a_medium_confidence_note(message: str) -> None:
    action, confidence, _ = offline_route(message, [])
    assert action == "capture"
    assert NOTE_THRESHOLD <= confidence < 0.85


@pytest.mark.parametrize("message", ["我要买牛奶", "得交房租了"])
def test_ambiguous_note_ish_sentences_stay_under_the_threshold(message: str) -> None:
    action, confidence, _ = offline_route(message, [])
    assert action == "capture"
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
    assert action == "query"
    assert confidence >= 0.85


def test_followup_recognised_from_the_user_turn_alone() -> None:
    history = [HistoryTurn("user", "下周一有什么任务")]
    assert offline_route("还有吗", history)[0] == "query"


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
    assert action in {"chat", "capture", "query"}
    assert 0.0 <= confidence <= 1.0
    assert isinstance(reason, str)


# --- a priority label in front of a timed imperative: still a note --------------------------------

LABELLED: list[tuple[str, str, bool]] = [
    # (message, action, at or above the note threshold)
    ("紧急：今天下班前回复客户邮件", "capture", True),
    ("很重要：明天下午三点交报告", "capture", True),
    ("紧急，明天交报告", "capture", True),
    ("不重要但很麻烦的事：下个月整理旧照片", "capture", True),
    ("重要的事情：周五之前签合同", "capture", True),
    # neighbours
    ("明天下午三点交报告", "capture", True),
    ("紧急：回复客户邮件", "chat", False),  # no time: may be addressed to the assistant
    ("重要：怎么写简历", "chat", False),
    ("很重要", "chat", False),
    ("紧急！", "chat", False),
    ("明天很重要", "chat", False),
    ("你好", "chat", False),
    ("紧急的任务有哪些", "query", True),
    ("我要买牛奶", "capture", False),
]


@pytest.mark.parametrize(("message", "action", "above"), LABELLED)
def test_labelled_imperatives(message: str, action: str, above: bool) -> None:
    got, confidence, reason = offline_route(message, [])
    assert got == action
    if got == "capture":
        assert (confidence >= NOTE_THRESHOLD) == above
    assert reason


# --- probe set: varied colloquial sentences (own, not from the eval sets), a regression suite ----------
# Questions about the user's own tasks vs general questions vs notes vs chat, with spoken forms,
# typos and traps (a time word, a task noun or "会" in a sentence that is not about the user's tasks).

PROBES: list[tuple[str, str]] = [
    # task questions: status, load, schedule
    ("还有哪些没做完的", "query"),
    ("12月10号之后的安排", "query"),
    ("今天忙不忙", "query"),
    ("这周的工作多吗", "query"),
    ("任务清单", "query"),
    ("明天有会吗", "query"),
    ("帮我查查下个月的计划", "query"),
    ("有什么是今天必须做完的", "query"),
    ("哪些事拖了很久了", "query"),
    ("我该先做哪个", "query"),
    ("周报交了没", "query"),
    ("周三的会议是几点", "query"),
    ("帮我安排一下明天", "query"),
    ("我今天有点空，随便给我挑俩简单的活儿", "query"),
    ("有没有快到期的任务", "query"),
    ("今儿个有啥要干的", "query"),
    ("明儿有啥事不", "query"),
    ("这礼拜还剩几个没做", "query"),
    ("下下周有什么安排", "query"),
    ("月底之前要搞定的", "query"),
    ("今天下午有啥", "query"),
    ("今晚要干嘛", "query"),
    ("周末有啥计划没", "query"),
    ("最近三天要交的东西", "query"),
    ("这两天忙吗", "query"),
    ("下周忙不忙啊", "query"),
    ("明天的日程", "query"),
    ("今天的待办清单", "query"),
    ("待办列表", "query"),
    ("我的todo", "query"),
    ("给我看看今天的", "query"),
    ("还有多少活没干完", "query"),
    ("还剩啥没做", "query"),
    ("今天的事都做完了吗", "query"),
    ("报告写完了没", "query"),
    ("房租交了吗", "query"),
    ("合同签了没有", "query"),
    ("下午的会几点开", "query"),
    ("明天几点开会来着", "query"),
    ("哪个最急", "query"),
    ("先干哪个好", "query"),
    ("接下来该做什么", "query"),
    ("现在该干啥", "query"),
    ("有什么急着要办的", "query"),
    ("拖了好久的那些", "query"),
    ("有哪些已经超时了", "query"),
    ("过了截止日期还没做的", "query"),
    ("有没有逾期的", "query"),
    ("快截止的有哪些", "query"),
    ("马上到期的任务", "query"),
    ("即将到期的", "query"),
    ("临近截止的事情", "query"),
    ("快到deadline的", "query"),
    ("下个月有啥大事", "query"),
    ("年底前要完成哪些", "query"),
    ("这个月完成了多少", "query"),
    ("昨天干了啥", "query"),
    ("上周做完了几件", "query"),
    ("最近加的几个任务", "query"),
    ("今天新增了哪些待办", "query"),
    ("给我来俩轻松的", "query"),
    ("随便来一个", "query"),
    ("挑三个重要的", "query"),
    ("前3个最急的", "query"),
    ("无聊，有啥能做的", "query"),
    ("周末闲着没事，找点活干", "query"),
    ("下午没事，有啥简单的可以做", "query"),
    ("今晚有空，给我找点事", "query"),
    ("3天内要交的", "query"),
    ("12月5号前的任务", "query"),
    ("下周三之前有啥", "query"),
    ("重要的事有几件", "query"),
    ("不急的活有哪些", "query"),
    ("有没有简单点的", "query"),
    ("麻烦但不重要的那些", "query"),
    ("紧急的都列出来", "query"),
    ("所有没完成的", "query"),
    ("全部待办给我", "query"),
    ("跟客户有关的事", "query"),
    ("有关于装修的任务吗", "query"),
    ("带“发票”两个字的", "query"),
    ("我的日程表", "query"),
    ("今天安排满了吗", "query"),
    ("明天有神马任务", "query"),
    ("今天有啥子事", "query"),
    ("这周的活儿干完了没", "query"),
    ("上礼拜完成的", "query"),
    ("明天上午有空吗", "query"),
    ("今天要忙些什么", "query"),
    ("这周还有几件事", "query"),
    # notes
    ("记一下周四下午去银行", "capture"),
    ("提醒我晚上给老妈打电话", "capture"),
    ("明天上午十点跟老王开会", "capture"),
    ("周五前交季度报告", "capture"),
    ("别忘了下周一交水电费", "capture"),
    ("帮我加个待办：买猫粮", "capture"),
    ("后天去4S店保养车", "capture"),
    ("今晚八点健身", "capture"),
    ("下周二体检，记一下", "capture"),
    ("记住月底还信用卡", "capture"),
    ("提醒一下我明早吃药", "capture"),
    ("明天下班前把PPT发给领导", "capture"),
    ("todo: 更新简历", "capture"),
    ("3号之前缴物业费", "capture"),
    ("记一下，12月10号之后去拿快递", "capture"),
    ("周三下午三点开周会", "capture"),
    ("明天下午开会", "capture"),
    # chat, including traps
    ("你好呀", "chat"),
    ("谢谢啦", "chat"),
    ("怎么提高效率", "chat"),
    ("讲个笑话", "chat"),
    ("什么是四象限法则", "chat"),
    ("帮我写一首诗", "chat"),
    ("今天天气怎么样", "chat"),
    ("你能做什么", "chat"),
    ("推荐几本时间管理的书", "chat"),
    ("拖延症怎么治", "chat"),
    ("我好累啊", "chat"),
    ("今天好忙啊", "chat"),
    ("今天心情不好", "chat"),
    ("明天是周几", "chat"),
    ("今天几号", "chat"),
    ("下周一是几号", "chat"),
    ("会议纪要怎么写", "chat"),
    ("周报一般写什么内容", "chat"),
    ("有什么好用的待办软件", "chat"),
    ("给我讲讲番茄钟", "chat"),
    ("你觉得我该先学Python还是Java", "chat"),
    ("早点休息吧", "chat"),
    ("帮我翻译一下 hello world", "chat"),
    ("一周有几天", "chat"),
    ("你有空吗", "chat"),
    ("周末去哪玩好", "chat"),
    ("明天会下雨吗", "chat"),
    ("明天会不会很冷", "chat"),
    ("下个月有什么节日", "chat"),
    ("这周末有什么好电影", "chat"),
    ("开会的时候怎么做笔记", "chat"),
    ("哪个编程语言最好学", "chat"),
    # second round, written after the first rule changes (generalisation check)
    ("今天的活多不多", "query"),
    ("明儿忙吗", "query"),
    ("后天我有空吗", "query"),
    ("周五有没有会", "query"),
    ("下周一的例会几点", "query"),
    ("下礼拜的安排", "query"),
    ("这个月的计划", "query"),
    ("帮我看下周末的行程", "query"),
    ("帮我规划一下明天", "query"),
    ("明天要不要开会", "query"),
    ("哪件事最要紧", "query"),
    ("我应该先干啥", "query"),
    ("先处理哪个比较好", "query"),
    ("作业交了吗", "query"),
    ("水电费缴了没", "query"),
    ("体检预约了没有", "query"),
    ("快过期的有哪些", "query"),
    ("快要截止的任务有几个", "query"),
    ("有啥马上就要到期的", "query"),
    ("周末有空，给我找两个轻松的", "query"),
    ("今天下午没事，来一个简单点的", "query"),
    ("明天有空的话做啥好", "query"),
    ("还有啥没搞定", "query"),
    ("没做的事", "query"),
    ("拖了好几天没做的", "query"),
    ("拖延了很久的事有哪些", "query"),
    ("今天要做的都做完了吗", "query"),
    ("上周干了些啥", "query"),
    ("昨天忙了些什么", "query"),
    ("哪些是这周必须搞定的", "query"),
    ("给我排一下今天的优先级", "query"),
    ("今天先做什么", "query"),
    ("12号以后有啥", "query"),
    ("下个月初有什么要交的", "query"),
    ("明天会很忙吗", "query"),
    ("有没有好用的日程app", "chat"),
    ("下周有什么节假日", "chat"),
    ("明天几号", "chat"),
    ("现在几点了", "chat"),
    ("会议怎么开才高效", "chat"),
    ("今天有什么新闻", "chat"),
    ("我还没吃饭", "chat"),
    ("还没做完作业呢", "chat"),
    ("这周工作好多啊", "chat"),
    ("你明天忙吗", "chat"),
    ("他回了吗", "chat"),
    ("今晚吃什么", "chat"),
    ("明天去哪吃饭", "chat"),
    ("我该做什么才能瘦下来", "chat"),
    ("你现在在做什么", "chat"),
    ("我没做错什么吧", "chat"),
    ("今天的会开得怎么样", "chat"),
    ("周末有空，去哪玩", "chat"),
    ("帮我制定一个明天的计划", "chat"),
    ("我明天的计划是去爬山", "chat"),
    ("今天任务好多啊", "chat"),
    ("我最近总是拖延怎么办", "chat"),
    ("会员快到期了", "chat"),
    ("这周有啥好吃的", "chat"),
    ("还有啥好玩的", "chat"),
    ("帮我做一个下周的学习计划", "chat"),
    ("你吃饭了吗", "chat"),
    ("你做完了吗", "chat"),
    ("明天开会，记得带电脑", "capture"),
    ("明天上午开会讨论预算", "capture"),
    ("周五前把合同签了", "capture"),
    ("下周一之前交报告，很重要", "capture"),
]


@pytest.mark.parametrize(("message", "action"), PROBES)
def test_probe_actions(message: str, action: str) -> None:
    got, confidence, reason = offline_route(message, [])
    assert got == action, reason
    if action == "capture":
        assert confidence >= NOTE_THRESHOLD


# --- formerly misrouted (all went to chat) and their neighbours ------------------------------------

FORMER_MISROUTES: list[tuple[str, str]] = [
    # bare count requests: in a task app "list / give me N" asks for tasks
    ("给我列前十", "query"),
    ("先看前五个", "query"),
    ("今天的前三条", "query"),
    ("给我5条，3天内的", "query"),
    ("整一个", "query"),
    ("先列三个", "query"),
    ("取前五个", "query"),
    ("来一个就好", "query"),
    ("派个活给我", "query"),
    ("重要的急事", "query"),
    # meetings, dates, created, "in a moment"
    ("明天早上9点半开什么会", "query"),
    ("下周二下午三点的会", "query"),
    ("2月29日有什么", "query"),
    ("上个月新建的", "query"),
    ("等一下要干嘛", "query"),
    # English
    ("top3 tasks this week", "query"),
    ("give me 5 tasks", "query"),
    ("what's due by next Friday", "query"),
    ("anything due this weekend", "query"),
    ("tasks for tomorrow morning", "query"),
    ("what did I finish yesterday", "query"),
    ("what did we get done last week", "query"),
    # notes
    ("要记得明晚8点给妈妈打电话", "capture"),
    ("要记得下周一早上9点半开例会", "capture"),
    ("帮我记：这个月底之前交年假申请", "capture"),
    ("你还记得我说过什么吗", "chat"),
]

NEIGHBOURS: list[tuple[str, str]] = [
    ("给我列前五", "query"),
    ("先看前三个", "query"),
    ("明天的前两条", "query"),
    ("只要三个就行", "query"),
    ("来两个吧", "query"),
    ("挑一个就好", "query"),
    ("派两个活给我", "query"),
    ("分我一件事做", "query"),
    ("紧急的小事", "query"),
    ("重要的难事", "query"),
    ("周三上午十点开什么会", "query"),
    ("明天下午的会呢", "query"),
    ("3月15日有什么", "query"),
    ("这周新建的", "query"),
    ("昨天刚加的那些", "query"),
    ("待会儿要干啥", "query"),
    ("一会儿该做什么", "query"),
    ("记得明早8点吃药", "capture"),
    ("一定要记得周五交房租", "capture"),
    ("帮我记，下周三体检", "capture"),
    ("记：明天买牛奶", "capture"),
    # English notes and queries
    ("remind me to call mom tomorrow at 8pm", "capture"),
    ("add a task: renew passport", "capture"),
    ("todo: buy milk", "capture"),
    ("note: dentist on Friday 3pm", "capture"),
    ("can you remind me to submit the report by Friday", "capture"),
    ("don't forget to pay rent", "capture"),
    ("what are my tasks today", "query"),
    ("show me my todos", "query"),
    ("list my tasks for next week", "query"),
    ("any tasks due tomorrow", "query"),
    ("what's due today", "query"),
    ("top 5 urgent tasks", "query"),
    ("what did I complete last week", "query"),
    ("what do I have to do today", "query"),
    ("overdue tasks", "query"),
    ("what's on my plate this week", "query"),
    # look-alikes that stay chat
    ("来一个笑话", "chat"),
    ("讲三个故事", "chat"),
    ("前三名是谁", "chat"),
    ("给我三分钟", "chat"),
    ("你还记得我吗", "chat"),
    ("记得吗", "chat"),
    ("记得你说过的话", "chat"),
    ("我记得明天放假", "chat"),
    ("帮我记住这个单词怎么读", "chat"),
    ("这是谁新建的", "chat"),
    ("明天会下雨吗", "chat"),
    ("会议纪要怎么写", "chat"),
    ("等一下", "chat"),
    ("等一下你要干嘛", "chat"),
    ("重要的事说三遍", "chat"),
    ("日记：今天很开心", "chat"),
    ("hello", "chat"),
    ("thanks!", "chat"),
    ("good morning", "chat"),
    ("how do I make a to-do list", "chat"),
    ("what is a task manager", "chat"),
    ("tell me a joke", "chat"),
    ("write a poem about spring", "chat"),
    ("what's the weather tomorrow", "chat"),
    ("recommend a good book", "chat"),
    ("what did I say earlier?", "chat"),
    ("how to manage deadlines", "chat"),
    ("remind me what we talked about", "chat"),
    ("show me a picture of a cat", "chat"),
    ("what should I do if my cat is sick", "chat"),
]


@pytest.mark.parametrize(("message", "action"), FORMER_MISROUTES + NEIGHBOURS)
def test_former_misroutes_and_neighbours(message: str, action: str) -> None:
    got, confidence, reason = offline_route(message, [])
    assert got == action, reason
    if action == "capture":
        assert confidence >= NOTE_THRESHOLD


@pytest.mark.parametrize("message", ["整一个", "先列三个", "取前五个", "来一个就好", "前十"])
def test_count_only_requests_are_queries_with_or_without_history(message: str) -> None:
    assert offline_route(message, [])[0] == "query"
    assert offline_route(message, QUERY_HISTORY)[0] == "query"


# A timed imperative ("把X做完", "交报告") with a trailing priority remark is a note: the remark is about
# the task, not a noun phrase like "重要的". A question word anywhere keeps it a query.
REMARKED_IMPERATIVES: list[tuple[str, str]] = [
    ("这周内把PPT做完，挺重要的", "capture"),
    ("周五前把报告交了", "capture"),
    ("月底前把合同签了，很急", "capture"),
    ("明天把车洗了", "capture"),
    ("明天交报告，很重要", "capture"),
    ("下周三之前把方案改完，比较急的", "capture"),
    ("这周要做完哪些", "query"),
    ("这周内要完成什么", "query"),
    ("PPT做完了吗", "query"),
    ("明天把车洗了，很重要吗", "query"),
    ("这周内把PPT做完了吗，挺重要的", "query"),
    ("明天要交的，很重要的", "query"),
    ("重要的", "query"),
    # English notes stay notes with the new time phrases
    ("remind me to call mom tomorrow at 8pm", "capture"),
    ("don't forget to submit the report by Friday", "capture"),
]


@pytest.mark.parametrize(("message", "action"), REMARKED_IMPERATIVES)
def test_timed_imperative_with_priority_remark(message: str, action: str) -> None:
    got, confidence, reason = offline_route(message, [])
    assert got == action, reason
    if action == "capture":
        assert confidence >= NOTE_THRESHOLD


# --- answering an offer, and tasks without a deadline ------------------------------------------

OFFER_HISTORY = [
    HistoryTurn("user", "这周有什么重要的要交"),
    HistoryTurn("assistant", "「这周」没有符合条件的任务；你有 2 条逾期。\n要看看逾期的吗？"),
]
OFFER_YES = [
    "要",
    "好",
    "好的",
    "嗯",
    "行",
    "可以",
    "看看",
    "要的",
    "好啊，看看",
    "好的，谢谢",
    "yes",
    "sure",
    "ok",
    "yes please",
]
OFFER_NO = ["不用", "不要", "不用了", "算了吧", "no", "no thanks", "谢谢", "thanks"]


@pytest.mark.parametrize("message", OFFER_YES)
def test_yes_after_an_offer_is_the_offered_query(message: str) -> None:
    assert offline_route(message, OFFER_HISTORY) == ("query", 0.9, "接受上一轮提议的查询")
    english = [OFFER_HISTORY[0], HistoryTurn("assistant", "Nothing matches.\nWant to see the ones without a deadline?")]
    assert offline_route(message, english)[0] == "query"


@pytest.mark.parametrize("message", OFFER_YES)
def test_yes_without_an_offer_right_before_is_read_as_before(message: str) -> None:
    assert offline_route(message, []) == offline_route(message, NOTE_HISTORY)
    assert offline_route(message, [])[2] != "接受上一轮提议的查询"
    older = [*OFFER_HISTORY, HistoryTurn("user", "你好"), HistoryTurn("assistant", "你好！")]
    assert offline_route(message, older)[2] != "接受上一轮提议的查询"
    no_query_offer = [HistoryTurn("user", "我还有哪些任务"), HistoryTurn("assistant", "你还没有任何任务。")]
    assert offline_route(message, no_query_offer)[2] != "接受上一轮提议的查询"


@pytest.mark.parametrize("message", OFFER_NO)
def test_no_after_an_offer_is_chat(message: str) -> None:
    assert offline_route(message, OFFER_HISTORY)[0] == "chat"


NO_DEADLINE_QUESTIONS = [
    "没有截止时间的任务",
    "哪些任务还没定截止日期",
    "没设deadline的待办",
    "无截止时间的",
    "看看没有设定到期时间的",
    "还没写截止日期的事",
    "哪些事情没给期限",
    "截止日期还没定的有哪些",
    "不带ddl的",
    "没有到期时间的都列出来",
    "tasks without a deadline",
    "undated tasks",
    "anything without a due date?",
    "tasks with no deadline set",
    "stuff that doesn't have a due date",
    "which ones have no deadline?",
]


@pytest.mark.parametrize("message", NO_DEADLINE_QUESTIONS)
def test_questions_about_tasks_without_a_deadline_are_queries(message: str) -> None:
    assert offline_route(message, [])[0] == "query"


@pytest.mark.parametrize("message", ["截止时间快到的", "没有逾期的吧", "你好", "deadline是什么意思", "没时间"])
def test_deadline_talk_is_not_made_a_query_by_the_no_deadline_rule(message: str) -> None:
    assert offline_route(message, [])[2] != "询问没有截止时间的任务"


@pytest.mark.parametrize(
    "message", ["别再提醒我晨跑了", "以后不要提醒我喂鱼", "不用再提醒我缴停车费了", "甭提醒我这个了"]
)
def test_a_reminder_not_wanted_any_more_is_never_a_note(message: str) -> None:
    # The capture marker "提醒我" negated asks for the opposite (taskdelete reads these as removal).
    assert offline_route(message, [])[0] != "capture"
