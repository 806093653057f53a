"""Long-tail routing probes: colon markers, creation verbs, questions about the feature itself,
count-only requests, English priority words and calendar-phrased questions.

Own sentences (not the eval sets'), several wordings per family, with near neighbours that must
stay where they are. Routing needs no clock; plans and notes get a fixed ``NOW``.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from core.countlock import extract_count
from quicknote.offline import offline_extract_note
from route.offline import offline_route
from taskquery.offline import offline_plan

NOW = datetime(2026, 11, 30, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
NOTE_THRESHOLD = 0.6

# 1. a marker and a colon, any wording → capture
COLON_MARKERS: list[tuple[str, str]] = [
    ("待办：下周二前提交报销单", "capture"),
    ("任务: 给绿萝浇水", "capture"),
    ("任务：联系装修师傅", "capture"),
    ("随手记：周六带孩子去打疫苗", "capture"),
    ("随口记：买两袋猫砂", "capture"),
    ("备忘：物业费月底交", "capture"),
    ("备忘录：车险续保", "capture"),
    ("备忘录: 护照到期换新", "capture"),
    ("TODO：整理相册", "capture"),
    ("Todo: 换手机壳", "capture"),
    ("记：明早八点去拿体检报告", "capture"),
    ("提醒：周四晚上倒垃圾", "capture"),
    ("待办事项：给爸妈订机票", "capture"),
    ("代办：取干洗的衣服", "capture"),
    ("提醒事项：交党费", "capture"),
    ("记一笔：还花呗", "capture"),
    ("reminder: renew the gym card", "capture"),
]

# 2. creation verbs → capture; questions about created tasks stay queries
CREATE_VERBS: list[tuple[str, str]] = [
    ("新建一个任务：周四去银行开户", "capture"),
    ("添加一条待办 周五交房租", "capture"),
    ("加一条任务后天下午去取西装", "capture"),
    ("加一个待办，今晚给猫剪指甲", "capture"),
    ("创建一个任务 下周三复盘会议", "capture"),
    ("安排一个任务：月底盘点库存", "capture"),
    ("安排个任务，周日大扫除", "capture"),
    ("帮我加个待办：充公交卡", "capture"),
    ("帮我新增一条任务整理会议纪要", "capture"),
    ("新增待办 预约牙医", "capture"),
    ("再加一个任务：买打印纸", "capture"),
    ("给我建个任务，明天打疫苗", "capture"),
    ("添个任务：修自行车", "capture"),
    ("加两条任务：买菜和做饭", "capture"),
    ("新建待办：续费视频会员", "capture"),
    ("安排了哪些任务", "query"),
    ("新建的任务有哪些", "query"),
    ("我添加的待办都有什么", "query"),
    ("今天加了几个任务", "query"),
    ("上周新建了哪些待办", "query"),
    ("最近添加的任务给我看看", "query"),
    ("我创建的任务有多少个", "query"),
    ("加过的待办都列出来", "query"),
]

# 3. questions about using Suikou → chat; a polite request with content is still a note
FEATURE_QUESTIONS: list[tuple[str, str]] = [
    ("怎么添加任务？", "chat"),
    ("怎样新建一个待办", "chat"),
    ("要怎么让你提醒我", "chat"),
    ("你可以帮我记事情吗", "chat"),
    ("你会提醒我吗", "chat"),
    ("我该怎么创建任务", "chat"),
    ("新建任务要怎么操作", "chat"),
    ("添加待办的方法是什么", "chat"),
    ("能不能用你来记待办", "chat"),
    ("你支持添加提醒吗", "chat"),
    ("你能提醒我做事吗", "chat"),
    ("咋加任务", "chat"),
    ("你能帮我记待办吗", "chat"),
    ("how can I create a todo?", "chat"),
    ("can you remind me of things?", "chat"),
    ("can you add tasks?", "chat"),
    ("do you support reminders?", "chat"),
    ("how to add a reminder", "chat"),
    ("能帮我记一下周五交材料吗", "capture"),
    ("可以帮我加个待办吗，明天取快递", "capture"),
    ("你能提醒我明早八点开会吗", "capture"),
    ("能不能帮我记下周三还钱", "capture"),
    ("can you remind me to call mom tomorrow?", "capture"),
    ("could you add a task to renew my passport?", "capture"),
]

# 4. count-only requests → query even without history; other counted things stay chat
COUNT_ONLY: list[tuple[str, str]] = [
    ("最多三条就够", "query"),
    ("顶多两个", "query"),
    ("别超过四条", "query"),
    ("不要超过两个", "query"),
    ("三个就够了", "query"),
    ("只要俩", "query"),
    ("来仨简单的", "query"),
    ("先给我整三个", "query"),
    ("两个就行", "query"),
    ("五条就好", "query"),
    ("哪件最急", "query"),
    ("最要紧的是哪个", "query"),
    ("最急的是哪一个", "query"),
    ("这个月一个都别落下", "query"),
    ("下周一条也别漏", "query"),  # "下周一" is no Monday here: the count goes first
    ("just pick one", "query"),
    ("choose one for me", "query"),
    ("give me two please", "query"),
    ("三个人去吃饭", "chat"),
    ("来一个笑话", "chat"),
    ("讲三个故事", "chat"),
    ("我有两个孩子", "chat"),
]

# 5. English priority words in first questions → query
ENGLISH_PRIORITY: list[tuple[str, str]] = [
    ("show me urgent tasks", "query"),
    ("any important tasks this week?", "query"),
    ("give me something quick", "query"),
    ("what are my low priority tasks", "query"),
    ("high priority tasks for tomorrow", "query"),
    ("anything urgent?", "query"),
    ("something easy to do", "query"),
    ("any quick wins?", "query"),
    ("important but not urgent tasks", "query"),
    ("is it important to sleep well?", "chat"),
    ("how do I prioritize urgent work?", "chat"),
]

# 6. calendar-phrased questions → query; a statement with content is a note
CALENDAR: list[tuple[str, str]] = [
    ("国庆节那天有啥", "query"),
    ("元宵节当天有什么安排", "query"),
    ("清明那天要干嘛", "query"),
    ("冬至那天的安排", "query"),
    ("立春前要做的", "query"),
    ("腊八之前要办的事", "query"),
    ("除夕前要准备的", "query"),
    ("情人节之前要买的", "query"),
    ("父亲节前要准备什么", "query"),
    ("劳动节假期有什么安排", "query"),
    ("国庆假期的任务", "query"),
    ("中秋假期要做的事", "query"),
    ("元旦假期有啥安排", "query"),
    ("下个工作日要交的", "query"),
    ("下一个工作日有什么", "query"),
    ("正月十五之前要办的", "query"),
    ("腊月二十三那天有什么", "query"),
    ("八月十五那天的安排", "query"),
    ("圣诞节前要寄的", "query"),
    ("春分那天的事", "query"),
    ("清明节假期的计划", "query"),
    ("周五前要交的", "query"),
    ("明天要买牛奶", "capture"),
    ("母亲节那天给妈妈买花", "capture"),
    ("春节假期去哪玩", "chat"),
    ("国庆节是几号", "chat"),
    ("端午节为什么吃粽子", "chat"),
    ("中秋节快到了", "chat"),
]

# Second round, written after the rules above (generalisation check: other words, same families).
ROUND_TWO: list[tuple[str, str]] = [
    ("待办:周末洗车", "capture"),
    ("任务：下周一前提交发票", "capture"),
    ("随手记: 老婆生日买蛋糕", "capture"),
    ("备忘：网费下周到期", "capture"),
    ("备忘录：猫粮快吃完了", "capture"),
    ("todo: 续费域名", "capture"),
    ("TODO:修水龙头", "capture"),
    ("记：后天还书", "capture"),
    ("提醒：每周五交周报", "capture"),
    ("小记：买灯泡", "capture"),
    ("待办 ：买鸡蛋", "capture"),
    ("To-do：给车加油", "capture"),
    ("笔记：会议改到周四", "capture"),
    ("新建任务：约体检", "capture"),
    ("帮我新建一个待办，周末洗床单", "capture"),
    ("添加任务：写年终总结", "capture"),
    ("加个任务 周四给客户回电话", "capture"),
    ("加一个新任务：整理衣柜", "capture"),
    ("创建一条待办：交暖气费", "capture"),
    ("帮我安排一个任务：周五下午去银行", "capture"),
    ("给我添一条待办，买狗粮", "capture"),
    ("请帮我添加一个任务：订酒店", "capture"),
    ("录入任务 报销差旅费", "capture"),
    ("新增一个日程：周三下午两点面试", "capture"),
    ("今天新建了什么任务", "query"),
    ("最近加了哪些待办", "query"),
    ("我昨天添加的任务", "query"),
    ("刚才新建的那个任务呢", "query"),
    ("安排给我的任务有哪些", "query"),
    ("给我安排两个简单任务", "query"),
    ("怎么新建待办", "chat"),
    ("如何添加提醒", "chat"),
    ("你能不能帮我记事", "chat"),
    ("可以用你记待办吗", "chat"),
    ("你支持提醒吗", "chat"),
    ("咋让你提醒我", "chat"),
    ("新建任务的步骤", "chat"),
    ("随口记怎么用", "chat"),
    ("你能帮我管理待办吗", "chat"),
    ("how do i create a reminder", "chat"),
    ("can you keep track of my todos?", "chat"),
    ("can i add tasks here?", "chat"),
    ("can you remind me to pay rent on friday?", "capture"),
    ("能不能提醒我下午三点开会", "capture"),
    ("可以帮我记下明天交作业吗", "capture"),
    ("给我两个就行", "query"),
    ("最多来三个", "query"),
    ("一条就够", "query"),
    ("不超过五个", "query"),
    ("四个以内", "query"),
    ("随便整一个", "query"),
    ("就要仨", "query"),
    ("哪个最重要", "query"),
    ("最急的那个", "query"),
    ("今天一件都别漏", "query"),
    ("pick two", "query"),
    ("just give me one", "query"),
    ("两个苹果", "chat"),
    ("我要三个汉堡", "chat"),
    ("what's urgent today?", "query"),
    ("list important tasks", "query"),
    ("show me easy tasks", "query"),
    ("anything low priority?", "query"),
    ("got anything quick for me?", "query"),
    ("which tasks are urgent", "query"),
    ("high priority items this week", "query"),
    ("what is an urgent care center", "chat"),
    ("quick question about python", "chat"),
    ("中秋节前有什么要交的", "query"),
    ("春节前要买的年货", "query"),
    ("元宵节那天的日程", "query"),
    ("清明假期有啥安排", "query"),
    ("端午节前要做完的", "query"),
    ("国庆节当天有什么", "query"),
    ("霜降那天要干啥", "query"),
    ("腊月二十八之前要办的", "query"),
    ("正月初五那天有什么事", "query"),
    ("下个工作日有啥要做的", "query"),
    ("劳动节前要完成什么", "query"),
    ("圣诞节那天的安排", "query"),
    ("冬至前要准备的东西", "query"),
    ("七夕节要买的", "query"),
    ("中秋节前给客户寄月饼", "capture"),
    ("春节前把年终总结交了", "capture"),
    ("下个工作日联系房东", "capture"),
    ("中秋节快乐", "chat"),
    ("端午节放几天假", "chat"),
    ("春节一般吃什么", "chat"),
    ("七夕节的由来", "chat"),
]

# Found by a later probe: ordinals with 啥, "which N", English request verbs, a count out of a set.
ROUND_THREE: list[tuple[str, str]] = [
    ("第三个任务是啥", "query"),
    ("倒数第一个待办是啥", "query"),
    ("show me the top 3", "query"),
    ("give me the first two", "query"),
    ("哪两个最重要", "query"),
    ("哪三件最急", "query"),
    ("前十个里挑一个", "query"),
    ("这五条中来两个", "query"),
    ("任务管理是啥意思", "chat"),
    ("这是啥", "chat"),
    ("show me the way", "chat"),
]

ALL = (
    ROUND_THREE
    + COLON_MARKERS
    + CREATE_VERBS
    + FEATURE_QUESTIONS
    + COUNT_ONLY
    + ENGLISH_PRIORITY
    + CALENDAR
    + ROUND_TWO
)


def test_probe_table_is_large_enough() -> None:
    assert len(ALL) >= 100


@pytest.mark.parametrize(("message", "action"), ALL)
def test_routes(message: str, action: str) -> None:
    got, confidence, reason = offline_route(message, [])
    assert got == action, reason
    if got == "capture":
        assert confidence >= NOTE_THRESHOLD
    if got == "query":
        assert confidence >= 0.65


# Titles never keep the marker or the creation phrase.
TITLES: list[tuple[str, str]] = [
    ("待办：下周二前提交报销单", "提交报销单"),
    ("任务: 给绿萝浇水", "给绿萝浇水"),
    ("随手记：周六带孩子去打疫苗", "带孩子去打疫苗"),
    ("随口记：买两袋猫砂", "买两袋猫砂"),
    ("备忘录：车险续保", "车险续保"),
    ("备忘录: 护照到期换新", "护照到期换新"),
    ("TODO：整理相册", "整理相册"),
    ("记：明早八点去拿体检报告", "去拿体检报告"),
    ("提醒：周四晚上倒垃圾", "倒垃圾"),
    ("待办事项：给爸妈订机票", "给爸妈订机票"),
    ("代办：取干洗的衣服", "取干洗的衣服"),
    ("提醒事项：交党费", "交党费"),
    ("记一笔：还花呗", "还花呗"),
    ("新建一个任务：周四去银行开户", "去银行开户"),
    ("添加一条待办 周五交房租", "交房租"),
    ("加一条任务后天下午去取西装", "去取西装"),
    ("安排一个任务：月底盘点库存", "盘点库存"),
    ("安排个任务，周日大扫除", "大扫除"),
    ("帮我新增一条任务整理会议纪要", "整理会议纪要"),
    ("再加一个任务：买打印纸", "买打印纸"),
    ("给我建个任务，明天打疫苗", "打疫苗"),
    ("添个任务：修自行车", "修自行车"),
    ("Todo: 换手机壳", "换手机壳"),
    ("小记：买灯泡", "买灯泡"),
    ("To-do：给车加油", "给车加油"),
    ("加一个新任务：整理衣柜", "整理衣柜"),
    ("请帮我添加一个任务：订酒店", "订酒店"),
    ("录入任务 报销差旅费", "报销差旅费"),
]


@pytest.mark.parametrize(("message", "title"), TITLES)
def test_titles_drop_the_marker(message: str, title: str) -> None:
    assert offline_extract_note(message, NOW).title == title


# English priority words read into quadrants in a first question.
EN_QUADRANTS: list[tuple[str, list[int] | None]] = [
    ("show me urgent tasks", [1]),
    ("any important tasks this week?", [1, 2]),
    ("give me something quick", [3]),
    ("what are my low priority tasks", [3, 4]),
    ("high priority tasks for tomorrow", [1, 2]),
    ("list my not urgent tasks", [2, 4]),
    ("easy tasks for today", [3]),
    ("important but not urgent tasks", [2]),
    ("urgent and important tasks", [1]),
    ("any quick wins?", [3]),
    ("what's urgent today?", [1]),
    ("anything low priority?", [3, 4]),
    ("show me my tasks for today", None),
]


@pytest.mark.parametrize(("message", "quadrants"), EN_QUADRANTS)
def test_english_priority_words_in_first_questions(message: str, quadrants: list[int] | None) -> None:
    assert offline_plan(message, NOW).quadrants == quadrants


def test_chinese_quadrants_win_over_english_words() -> None:
    assert offline_plan("简单的 tasks", NOW).quadrants == [3]


@pytest.mark.parametrize(
    ("message", "limit"),
    [("顶多两个", 2), ("别超过四条", 4), ("只要俩", 2), ("先给我整三个", 3), ("just pick one", 1)],
)
def test_count_only_plans_lock_the_count(message: str, limit: int) -> None:
    assert offline_plan(message, NOW).limit == limit == extract_count(message).explicit


def test_a_creation_verb_with_a_count_is_no_count_request() -> None:
    # "加一条任务…" names the task to write; the count lock must not turn it into a list request.
    action, confidence, _ = offline_route("加一条任务后天下午去取西装", [])
    assert action == "capture"
    assert confidence >= 0.85
