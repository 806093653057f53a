"""The `day_plan` corpus: asking Suikou to plan a day's time from one's tasks, or which day is lightest.

These sentences ask for an order and times ("今天怎么安排", "今天先做什么", "plan my day"), not for what is
due (a list: "今天有什么任务" is task_query), and never say a new task ("记一下今天安排体检" is a capture).
"""

from __future__ import annotations

from core.corpus import CorpusSpec

__all__ = ["CORPUS"]

# fmt: off
_SLOTS: dict[str, tuple[str, ...]] = {
    "day": ("今天", "今日", "今儿", "今儿个", "明天", "明日", "明儿", "明儿个"),
    "who": ("", "帮我", "给我", "麻烦", "请", "你帮我", "能不能帮我"),
    "modal": ("", "该", "应该", "要", "我该", "我应该"),
    "how": ("怎么", "如何", "咋"),
    "arrange": ("安排", "排", "规划"),
    "noun": ("任务", "事情", "时间", "工作", "待办", "活儿", "事儿"),
    "first": ("做", "干", "弄", "处理", "忙"),
    "what": ("什么", "啥", "哪个", "哪件", "哪一件"),
    "better": ("", "比较好", "才好", "合适", "最好"),
    "order": ("时间", "顺序", "先后", "时间表"),
    "plan_noun": ("计划", "工作计划", "时间表", "安排"),
    "make": ("做个", "制定一个", "定个", "排个", "列个", "出个", "弄个"),
    "week": ("这周", "本周", "这个星期", "这礼拜", "这个礼拜", "下周", "下个星期", "下礼拜"),
    "free": ("最闲", "比较空", "最轻松", "事最少", "任务最少", "最不忙", "比较闲", "最空", "活最少", "安排最少"),
    "opener": ("早上好", "起床了", "刚到公司", "上班了", "新的一天", "好，", "嗯", "那个"),
    # English
    "day_en": ("today", "tomorrow"),
    "do_en": ("do", "work on", "tackle", "start with", "focus on"),
    "plan_en": ("plan", "schedule", "organize", "map out", "lay out", "sort out"),
    "please_en": ("", "please ", "can you ", "could you ", "help me ", "hey, ", "ok "),
    "week_en": ("this week", "next week"),
    "busy_en": ("least busy", "lightest", "quietest", "freest", "emptiest", "least packed"),
    "opener_en": ("morning!", "ok so", "hey suikou,", "alright,", "new day,", "right,"),
}

_TEMPLATES: tuple[str, ...] = (
    # a day's plan
    "{day}{modal}怎么安排",
    "{day}{modal}{how}安排{better}",
    "{day}的{noun}{how}{arrange}",
    "{day}的{noun}{modal}{how}{arrange}{better}",
    "{day}先{first}{what}",
    "{day}{modal}先{first}{what}",
    "{who}把{day}的{noun}排个{order}",
    "{who}把{day}的{noun}安排一下",
    "{who}安排一下{day}",
    "{who}规划一下{day}的{noun}",
    "{who}排一下{day}的{noun}",
    "{who}{make}{day}的{plan_noun}",
    "{day}的计划",
    "{opener}，{day}怎么安排",
    "{opener}，{day}先{first}{what}",
    "{day}时间{how}分配{better}",
    # the week's lightest day
    "{week}哪天{free}",
    "{week}哪一天{free}",
    "我{week}哪天{free}",
    "{week}星期几{free}",
    "{week}里哪天{free}",
    # English: a day's plan
    "{please_en}plan my day",
    "{please_en}plan {day_en}",
    "{please_en}plan out my day {day_en}",
    "what should I {do_en} {day_en}",
    "what should I {do_en} first {day_en}",
    "how should I plan my day {day_en}",
    "{please_en}make me a plan for {day_en}",
    "{please_en}{plan_en} my day",
    "{please_en}{plan_en} my tasks for {day_en}",
    "{opener_en} plan my day",
    "{opener_en} what should I {do_en} {day_en}",
    "{day_en}'s plan please",
    "give me a day plan for {day_en}",
    # English: the week's lightest day
    "which day {week_en} is {busy_en}",
    "which day is {busy_en} {week_en}",
    "what's my {busy_en} day {week_en}",
    "when am I {busy_en} {week_en}",
)

_PLAIN: tuple[str, ...] = (
    "今天怎么安排", "今天先做什么", "帮我把今天的任务排个时间", "今天的计划", "明天怎么安排", "帮我安排一下明天",
    "这周哪天最闲", "哪天最闲", "plan my day", "what should I do today", "plan tomorrow", "which day this week is least busy",
)
# fmt: on

CORPUS = CorpusSpec(templates=_TEMPLATES, slots=_SLOTS, plain=_PLAIN, per_template=26)
