"""Offline (rule-based) planner for 随口问: a sentence → ``QueryPlan`` without a model call.

Rules, in the order they are applied:

* **count** — ``extract_count`` (``taskquery.countlock``) decides ``limit``: the explicit count, or None
  (also None for "全部/所有": the pipeline reads ``wants_all`` from the lock itself).
* **quadrants** (groups: 1 重要且紧急, 2 重要不紧急, 3 简单不重要, 4 不简单不重要; negation-aware, so
  "不重要" is never read as "重要"):
  - "第N象限" → [N];
  - not important ("不重要/优先级低/无关紧要/次要/可做可不做/做不做都行/没用的/没意义的"): + hard
    ("不简单/麻烦/复杂/难", a bare 难 but not 难道/难度/为难…) → [4]; + easy → [3];
    + urgent → [3] (4 is promoted to 3 when urgent); + not urgent → [4]; alone → [3, 4];
  - important ("重要/关键/重点/优先级高/必须/务必/要命/重中之重/头等大事/优先处理"): + urgent → [1];
    + not urgent → [2]; alone → [1, 2];
  - urgent alone ("紧急/急/马上/尽快") → [1] ([3] when also "简单");
  - not urgent alone ("不急/不紧急/缓缓/往后推/拖一拖/不紧不慢") → [2, 4] (the non-promoted group of each
    pair);
  - easy ("简单/轻松/容易/小事/顺手/不费脑/不用动脑/没啥难度/鸡毛蒜皮/零碎/五分钟能搞定") → [3];
    explicitly "不简单/不容易" → [4];
  - free time ("我很闲/有空/无聊/给我点事做/打发时间") → [3, 4];
  - English words, when no Chinese ones decided ("show me urgent tasks" → [1], "any important tasks?"
    → [1, 2], "something quick" → [3], "low priority" → [3, 4], "not urgent" → [2, 4]):
    ``english_quadrants``, the same table follow-ups use;
  - anything else (including time-only questions such as "这周要交什么") → None (all groups).
* **time** — ``time_text`` is the exact phrase ``core.timeanchor.resolve_time`` recognises in the
  sentence (the count phrase is masked out first so "前2个" is never read as a date); the resolved
  window is also put in ``time_after``/``time_before`` as the fallback bounds. ``prefer="past"`` when
  the question is about completion or creation time. "逾期/过期/超期" that the resolver misses still
  give ``time_text`` = that word and ``time_before`` = now.
* **free-time words** — a time phrase that says when the user is free ("今天有点空", "周末闲着没事",
  "下午没事", "今晚有空") is not a deadline filter: it is skipped and the next time phrase (if any) is
  used. A question about free time ("明天上午有空吗") keeps its window: it asks what is scheduled then.
* **near future** — "快到期/快截止/即将到期/马上到期/临近截止/快到deadline/…" without an explicit time
  phrase: ``time_text`` = that phrase ("快到期" for "快过期", which the resolver would read as overdue), bounds ``[now, 23:59:59 of the day 3 days ahead]`` (the same
  window as "3天内"; the time_anchor node falls back to these bounds because the resolver does not
  know the phrase). "马上" inside such a phrase is not read as urgency.
* **colloquial overdue** — "拖了很久/拖了好几天/一直拖着/过了deadline" → ``time_text`` = "逾期" (the
  resolver's overdue word, so the filter is the overdue one: deadline before now, not completed).
* **no deadline** — "没有截止时间的/还没定截止日期/没设deadline/无截止时间/tasks without a deadline/undated"
  (``core.lexicon.NO_DEADLINE_RE``) → ``no_deadline``; the phrase is hidden from the resolver and the
  keyword rules, and a deadline window is dropped (no window holds a task without a deadline). A
  creation or completion window stays ("最近新建的没有截止时间的"). "截止时间快到的", "没有逾期的",
  "还没截止的" are not it.
* **repeating** — "重复的任务/周期性的/定期的/循环的/每周都要做的/recurring/repeating" → ``repeating`` (only
  series); the phrase is hidden from the resolver and the keyword rules.
* **time_field** — ``completed`` for finished work ("完成了/做完的/已完成/搞定了", not "要完成/没完成")
  when a time phrase is present and the sentence is not merely "包括已完成的"; ``created`` for
  "新建/创建/新加/添加的/加的/记的"; else ``deadline``.
* **include_completed** — true for finished-work questions and "包括/包含/连…已完成的", and for
  "did I do X" checks ("周报交了没", "合同签了没有", "报告写完了吗", "交没交"), whose subject becomes
  the keyword. "做了/干了/忙了 + 什么/啥/哪些" with a time phrase is about completion time
  ("昨天干了啥").
* **keyword** — a quoted word, "标题里有X", "包含X的", "和X相关/有关", "关于X的", "叫X的", "X相关的";
  the noun is cleaned of fillers and rejected if it is a time phrase, a count or a priority word;
  for meetings, "会议" when the sentence says it, else "会" for "有会吗/几点开会/下午的会/有几个会".
* **sort** — "最重要/最紧急/优先级最高/按优先级", and "what first / what next" ("先做哪个",
  "接下来该做什么", "现在该干啥") → priority asc; newest-created ("最新/最近新建/刚加")
  → id desc; "最晚/倒序" → deadline desc; otherwise deadline asc.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from core.countlock import extract_count
from core.hanzi import fold, unfold
from core.lexicon import (
    DONE_VERBS,
    FREE_TIME_QUESTION_RE,
    MORE_RE,
    NO_DEADLINE_RE,
    PrioritySignals,
    english_done_subject,
    english_words,
    free_amount,
    how_long_subject,
    priority_signals,
)
from core.timeanchor import TimeWindow, resolve_time
from core.timeanchor.missing import missing_day
from taskquery.plan import Order, QueryPlan, SortBy, TimeField
from taskquery.scope import read_scope

__all__ = [
    "PrioritySignals",
    "english_quadrants",
    "is_done_check",
    "merge_followup",
    "offline_plan",
    "offline_plan_followup",
    "priority_signals",
    "quadrants_from_text",
]


def quadrants_from_text(text: str) -> list[int] | None:
    """The priority groups a question asks about (see the module docstring); None = all."""
    s = priority_signals(text)
    if s.explicit_group is not None:
        return [s.explicit_group]
    if s.unimportant:
        if s.hard and not s.easy:
            return [4]
        if s.easy:
            return [3]
        if s.urgent:
            return [3]
        if s.not_urgent:
            return [4]
        return [3, 4]
    if s.important:
        if s.not_urgent:
            return [2]
        if s.urgent:
            return [1]
        return [1, 2]
    if s.urgent and not s.not_urgent:
        return [3] if s.easy else [1]
    if s.not_urgent:
        if s.easy:
            return [3]
        if s.hard:
            return [4]
        return [2, 4]
    if s.easy:
        return [3]
    if re.search(r"不简单|不容易|不太简单|没那么简单", text or ""):
        return [4]
    if s.free_time and not FREE_TIME_QUESTION_RE.search(text or ""):
        return [3, 4]
    return None


# English priority words → quadrants, first match wins (as ``quadrants_from_text``
# reads the Chinese ones; "not important" before "important", "not urgent" before "urgent").
_NOT_IMPORTANT = r"(?:not (?:very |that |so )?important|unimportant|low[- ]priority|don'?t matter)"
_NOT_URGENT = r"(?:not (?:very |that |so )?urgent|non-?urgent|no rush|can wait)"
_HARD = r"(?:hard|difficult|tough|not easy|complicated)"
_EASY = r"(?<!not )(?:easy|simple|quick|small|light)"
_IMPORTANT = r"(?<!not )(?<!not very )(?<!un)(?:important|high[- ]priority|key|critical|crucial)"
_URGENT = r"(?<!not )(?<!non-)(?<!non)(?:urgent|asap|pressing)"
_EN_QUADRANTS: tuple[tuple[re.Pattern[str], list[int]], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), groups)
    for pattern, groups in (
        (rf"\b{_IMPORTANT}\b.*\b{_URGENT}\b|\b{_URGENT}\b.*\b{_IMPORTANT}\b", [1]),
        (rf"\b{_IMPORTANT}\b.*\b{_NOT_URGENT}\b|\b{_NOT_URGENT}\b.*\b{_IMPORTANT}\b", [2]),
        (rf"\b{_NOT_IMPORTANT}\b.*\b{_HARD}\b|\b{_HARD}\b.*\b{_NOT_IMPORTANT}\b", [4]),
        (rf"\b{_EASY}\b", [3]),
        (rf"\b{_NOT_IMPORTANT}\b", [3, 4]),
        (rf"\b{_NOT_URGENT}\b", [2, 4]),
        (rf"\b{_IMPORTANT}\b", [1, 2]),
        (rf"\b{_URGENT}\b", [1]),
        (rf"\b{_HARD}\b", [4]),
    )
)


def english_quadrants(sentence: str) -> list[int] | None:
    """The priority groups English words ask about ("the important ones" → [1, 2]); None = not said."""
    text = english_words(sentence)
    return next((groups for pattern, groups in _EN_QUADRANTS if pattern.search(text)), None)


# ---------------------------------------------------------------------------------------------
# Time field, completion, keyword, sorting

_NOT_DONE_RE = re.compile(r"(?:没|未|还没|还没有|没有|尚未)(?:完成|做完|搞定|干完|办完|弄完|做|办|处理)|待完成|未完成")
_DONE_RE = re.compile(
    r"(?:已经|已)(?:完成|做完|搞定|干完|办完|弄完|处理)|(?:完成|做完|搞定|干完|办完|弄完|结束|处理完)(?:了|的|过)|"
    r"做过的|finished|completed|(?<![a-z])done(?![a-z])|"
    # "what did I finish yesterday", "what did we get done", "have I completed anything"
    r"(?<![a-z])(?:did\s+(?:i|we)\s+(?:finish|complete|get\s+done|wrap\s+up|knock\s+out|do)|"
    r"have\s+(?:i|we)\s+(?:finished|completed))(?![a-z])",
    re.IGNORECASE,
)
_DONE_BLOCK_BEFORE = (
    "要",
    "需",
    "需要",
    "得",
    "该",
    "应该",
    "待",
    "没",
    "未",
    "能",
    "将",
    "可以",
    "必须",
    "想",
)
_INCLUSIVE_RE = re.compile(
    r"(?:包括|包含|连同|连|含)(?:已经|已)?(?:完成|做完|搞定)|(?:完成|做完)的也|(?:完成|做完|搞定|干完)了(?:吗|没)"
)
_CREATED_RE = re.compile(
    r"(?:新建|创建|新加|新增|添加|录入|记下|建立|新记)(?:了|的)|(?<![参增追更附])加(?:了|的)(?!班)|"
    r"(?<![忘记])记(?:了|的)(?!得|住|录)|新建|创建的|最新(?:建|加|添加|记)"
)
_OVERDUE_RE = re.compile(r"逾期|过期|超期|已经过了截止|过了截止|误期|拖期")
# Colloquial overdue phrases the resolver does not know; they are normalised to "逾期".
_OVERDUE_COLLOQUIAL_RE = re.compile(
    r"拖(?:延)?(?:了|得)?(?:很|好|太|挺|这么|那么)?久|拖了(?:好|很)?(?:几|多)(?:天|周|个星期|个月)|一直拖着|拖着没|"
    r"过了(?:deadline|ddl|DDL|期限|截止)|错过了?(?:截止|deadline|ddl)",
    re.IGNORECASE,
)
# Near-future deadlines: [now, end of the day 3 days ahead] (same as "3天内").
_SOON_RE = re.compile(
    r"(?:快要?|就要|即将|马上就?要?|将要|临近|接近|眼看就?要?)(?:到期|截止|过期|到deadline|到ddl|到截止日期?|deadline|ddl)|"
    r"(?:deadline|ddl|截止日期?)(?:快到|就要到|临近|将至|马上到)",
    re.IGNORECASE,
)
SOON_DAYS = 3
# A time phrase followed by a free-time word describes when the user is free, not a deadline.
_FREE_AFTER_TIME_RE = re.compile(
    r"^[，,\s]*(?:我|都|也|还|正好|刚好|比较|挺|很|有点儿?|稍微)*"
    r"(?:有点儿?空|有空|有时间|闲|没事|没什么事|无聊|空闲|空下来|不忙|没啥事)"
)
_FREE_QUESTION_RE = re.compile(r"^[^，,。]{0,6}(?:吗|么|嘛|不|没|没有)(?:[?？]|$)|^[^，,。]{0,4}(?:不|没)(?:有|忙|闲)")
# "X交了没 / X写完了吗 / X签了没有 / 交没交": was X done?
_DONE_CHECK_RE = re.compile(
    rf"{DONE_VERBS}(?:完|好|掉|定|出去|过)?了(?:没有?|吗|么|嘛|不)[?？]?$|"
    rf"(?P<v>{DONE_VERBS})没(?P=v)"
)
# A daily habit's verb after its object ("药吃了没", "花浇了吗"): the task is verb + object.
_HABIT = r"(?:吃|喝|浇|喂|遛|倒|扔|背|练)"
_WHEN = r"(?:今天|今早|今晚|昨天|昨晚|这周|本周|上周|这次|这个月|本月)"
_HABIT_CHECK_RE = re.compile(
    rf"^(?!你|您|他|她|它|人家|别人|.*[饭餐])(?:我的?|那个|这个)?(?:{_WHEN}的?)?(?!{_WHEN})"
    rf"(?P<kw>[\u4e00-\u9fff]{{1,8}}?)(?:都|已经|还|到底|有)?(?P<v>{_HABIT})(?:过|完)?了(?:没有?|吗|么)[?？]?$"
)
_DONE_CHECK_KW_RE = re.compile(
    rf"^(?:我的?|那个|那份|这个|这份)?(?P<kw>[^，,。？?！!]{{1,12}}?)(?:都|已经|还|到底|有)?"
    rf"{DONE_VERBS}(?:完|好|掉|定|出去|过)?(?:了(?:没有?|吗|么|嘛|不)|没{DONE_VERBS})[?？]?$"
)
_DID_WHAT_RE = re.compile(r"(?:做|干|忙|弄|办)了(?:些|点)?(?:什么|啥|哪些|多少|几件)")
_MEETING_KW_RE = re.compile(
    r"有(?:没有)?(?:几个|几场|什么|啥)?会(?!不|儿)|几点(?:开会|的会)|什么时候开会|开会|"
    r"(?:的|个|场)会(?![员计话费长儿])|周会|例会|晨会"
)
_NEXT_SORT_RE = re.compile(
    r"先(?:做|干|弄|搞|处理|忙|办)(?:哪个|哪件|哪一个|哪一件|什么|啥|哪些)|"
    r"(?:接下来|下一步|然后|现在|目前)(?:我)?(?:该|要|应该|可以)?(?:先)?(?:做|干|弄|忙|搞)(?:点)?(?:什么|啥|哪个|嘛)|"
    r"(?:我)?(?:该|应该)(?:先)?(?:做|干|忙)(?:点)?(?:什么|啥|哪个)|"
    r"(?:排|排序|排列)(?:一下|下)?[^，,。]{0,6}优先级|按优先级排"
)
_PRIORITY_SORT_RE = re.compile(r"最重要|最紧急|最急|最要紧|最关键|优先级最高|按优先级|优先级排序|按重要|重要程度")
_NEWEST_RE = re.compile(r"最新|最近新建|最近创建|最近添加|最近加|刚加|刚建|刚记|刚添加|最后加|最后添加|按创建")
_LATEST_DEADLINE_RE = re.compile(r"最晚|倒序|从晚到早|由晚到早|最远|截止最晚|最后截止")


def is_done_check(text: str) -> bool:
    """ "X交了没" / "X做完了吗": a yes/no question whether something is done."""
    return bool(_DONE_CHECK_RE.search(text) or _HABIT_CHECK_RE.search(text.strip()))


def _done_question(text: str) -> bool:
    if _INCLUSIVE_RE.search(text):
        return True
    for m in _DONE_RE.finditer(text):
        before = text[max(0, m.start() - 3) : m.start()]
        if any(before.endswith(b) for b in _DONE_BLOCK_BEFORE):
            continue
        return True
    return False


_QUOTE_RE = re.compile(r"[“\"'「『‘《【](?P<kw>[^”\"'」』’》】]{1,30})[”\"'」』’》】]")
_REPEATING_RE = re.compile(
    r"(?:重复|周期性|定期|循环|例行)(?:的|性的)?(?:任务|待办|事情|事项|事)?|"
    r"每(?:天|周|月|年|个工作日)(?:都)?(?:要|得|会|需要)?(?:做|干|交|弄)?的(?:事情|事|任务|待办)|"
    r"\b(?:recurring|repeating|repeated)\b(?:\s+(?:tasks?|to-?dos?|items?|ones?))?",
    re.IGNORECASE,
)

_KEYWORD_RES: tuple[re.Pattern[str], ...] = (
    re.compile(r"标题(?:里|中|上|里面)?(?:有|含|包含|带|带有|是|叫)(?P<kw>[^的，,。？?！!]{1,20})"),
    re.compile(r"(?:名字|名称)(?:里|中)?(?:有|含|包含|带|带有|是|叫)(?P<kw>[^的，,。？?！!]{1,20})"),
    re.compile(r"(?:包含|包括|含有|带有|涉及)(?P<kw>[^的，,。？?！!]{1,20}?)(?:的|这个词|字样|二字|关键字|关键词|$)"),
    re.compile(r"(?:和|跟|与|同)(?P<kw>[^，,。？?！!和跟与]{1,20}?)(?:相关|有关|有关系|沾边)"),
    re.compile(r"关于(?P<kw>[^的，,。？?！!]{1,20}?)(?:的|方面|$)"),
    re.compile(r"(?:叫做|叫|名为)(?P<kw>[^的，,。？?！!]{1,20}?)(?:的|$)"),
    re.compile(r"(?P<kw>[^，,。？?！!]{1,20}?)(?:相关|有关)"),
    re.compile(r"(?:要|得|该|需要)(?:交|写|做|完成|提交|准备)的(?P<kw>[^的，,。？?！!]{2,8})[吗呢]?[?？]?$"),
    re.compile(r"(?P<kw>[^，,。？?！!的]{1,12}?)(?:方面|类)的"),
)
# Patterns that name a topic ("工作相关的", "关于工作的", "工作方面的"): there a word that alone means
# "tasks" ("有什么工作") is the topic itself, searched for in titles.
_TOPIC_RES = frozenset(_KEYWORD_RES[i] for i in (3, 4, 6, 8))
_TOPIC_WORDS = frozenset({"工作"})
_KW_LEAD_RE = re.compile(
    r"^(?:请|帮我|麻烦|给我|查一下|查查|查|找一下|找找|找|看一下|看看|看|列出|列一下|显示|搜一下|搜|所有|全部|"
    r"我的|我|那些|那个|这个|一下|有没有|有哪些|哪些|有)+"
)
_KW_TAIL_RE = re.compile(r"(?:的|任务|事情|事项|事儿|事|活儿|活|待办|这个词|字样|二字|两个字|吗|呢|啊)+$")
_KW_STOP = {
    "东西",
    "事儿",
    "活",
    "活儿",
    "任务呢",
    "任务",
    "事情",
    "待办",
    "事",
    "我",
    "我的",
    "简单",
    "重要",
    "紧急",
    "不重要",
    "不紧急",
    "优先级",
    "完成",
    "已完成",
    "已经完成",
    "完成了",
    "做完",
    "截止",
    "到期",
    "逾期",
    "过期",
    "工作",
    "什么",
    "哪些",
    "都",
}


def clean_keyword(raw: str, now: datetime, tz: str, *, topic: bool = False) -> str | None:
    """A keyword as a title filter: trimmed of lead/tail words; None for stop words, times, counts,
    priorities. ``topic``: said as a topic ("X相关的"), where "工作" is a topic, not "tasks"."""
    kw = raw.strip().strip("“”\"'「」『』‘’《》【】 ")
    kw = _KW_LEAD_RE.sub("", kw)
    kw = _KW_TAIL_RE.sub("", kw).strip()
    kw = kw.lstrip("的")
    if not kw or len(kw) > 20 or (kw in _KW_STOP and not (topic and kw in _TOPIC_WORDS)):
        return None
    if priority_signals(kw) != PrioritySignals(False, False, False, False, False, False, False) and len(kw) <= 4:
        return None
    if extract_count(kw).explicit is not None or extract_count(kw).wants_all:
        return None
    if _DONE_RE.search(kw) or _OVERDUE_RE.search(kw):
        return None
    try:
        win = resolve_time(kw, now, tz)
    except Exception:
        win = None
    if win is not None and win.phrase:
        rest = kw.replace(win.phrase, "").strip()
        if len(rest) < 1:
            return None
        kw = _KW_TAIL_RE.sub("", _KW_LEAD_RE.sub("", rest)).strip().lstrip("的")
        kw = _KW_TAIL_RE.sub("", kw).strip()
        if not kw or kw in _KW_STOP:
            return None
    return kw


def _keyword(text: str, now: datetime, tz: str) -> str | None:
    subject = english_done_subject(text)
    if subject:
        return subject  # "did I pay rent?" → rent
    subject = how_long_subject(text)
    if subject and (kw := clean_keyword(subject, now, tz) if not subject.isascii() else subject):
        return kw  # "写周报大概要多久" → 写周报
    m = _QUOTE_RE.search(text)
    if m:
        kw = clean_keyword(m.group("kw"), now, tz)
        if kw:
            return kw
    for pat in _KEYWORD_RES:
        for m in pat.finditer(text):
            kw = clean_keyword(m.group("kw"), now, tz, topic=pat in _TOPIC_RES)
            if kw:
                return kw
    m = _HABIT_CHECK_RE.search(text.strip())
    if m and (kw := clean_keyword(m.group("kw").rsplit("的", 1)[-1], now, tz)):
        return kw if m.group("v") in kw else m.group("v") + kw  # "药吃了没" asks after 吃药
    m = _DONE_CHECK_KW_RE.search(text.strip())
    if m:
        # "老王的合同签了没" → the thing itself, after the last "的".
        kw = clean_keyword(m.group("kw").rsplit("的", 1)[-1], now, tz)
        if kw:
            return kw
    if "会议" in text:
        return "会议"
    m = _MEETING_KW_RE.search(text)
    if m:
        word = m.group(0)
        return word if word in ("周会", "例会", "晨会") else "会"
    return None


def _local(now: datetime, tz: str) -> datetime:
    try:
        return now.astimezone(ZoneInfo(tz))
    except Exception:
        return now


def _end_of_day(moment: datetime) -> datetime:
    return moment.replace(hour=23, minute=59, second=59, microsecond=0)


def _free_time_spans(text: str, now: datetime, tz: str, prefer: Prefer) -> str:
    """Blanks time phrases that say when the user is free ("今天有点空"), so they are no deadline."""
    masked = text
    for _ in range(3):
        win = _safe_resolve(masked, now, tz, prefer)
        if win is None or not win.phrase:
            break
        idx = masked.find(win.phrase)
        if idx < 0:
            break
        after = masked[idx + len(win.phrase) :]
        m = _FREE_AFTER_TIME_RE.match(after)
        if not m or _FREE_QUESTION_RE.match(after[m.end() :]):
            break
        masked = masked[:idx] + "，" * len(win.phrase) + after
    return masked


Prefer = Literal["future", "past"]


def _said_quadrants(text: str) -> list[int] | None:
    """Groups the words ask for, but not the "I'm free → something easy" lean: free time with an
    amount takes what fits, most pressing first."""
    s = priority_signals(text)
    if not (s.important or s.unimportant or s.urgent or s.not_urgent or s.easy or s.hard or s.explicit_group):
        return english_quadrants(text)
    return quadrants_from_text(text)


def _safe_resolve(text: str, now: datetime, tz: str, prefer: Prefer) -> TimeWindow | None:
    try:
        return resolve_time(text, now, tz, prefer=prefer)
    except Exception:
        return None


def _blank(text: str, phrase: str) -> str:
    return text.replace(phrase, "，" * len(phrase))


def _mask(text: str, span: tuple[int, int] | None, phrase: str | None) -> str:
    """Blanks the count phrase so the time resolver cannot read "前2个" as a date."""
    if span is None or phrase is None:
        return text
    a, b = span
    if text[a:b] == phrase:
        return text[:a] + "，" * (b - a) + text[b:]
    idx = text.find(phrase)
    if idx >= 0:
        return text[:idx] + "，" * len(phrase) + text[idx + len(phrase) :]
    return text


def offline_plan(sentence: str, now: datetime, tz: str = "Asia/Shanghai") -> QueryPlan:
    """Reads a task question into a ``QueryPlan`` with deterministic rules (module docstring).

    The rules read the sentence folded to simplified characters (core.hanzi: "下個月要交什麼"); the
    keyword, the list named and the time phrase are given back in the user's own characters."""
    said = (sentence or "").strip()
    folded = fold(said)
    plan = _read_plan(folded, now, tz)
    if folded == said:
        return plan
    own = {f: unfold(v, said) for f in ("keyword", "scope") if (v := getattr(plan, f))}
    if plan.time_text and plan.time_text in folded:  # said, not a word the rules put ("逾期")
        own["time_text"] = unfold(plan.time_text, said)
    return plan.model_copy(update=own)


def _read_plan(text: str, now: datetime, tz: str) -> QueryPlan:
    lock = extract_count(text)

    done = _done_question(text) or is_done_check(text)
    not_done = bool(_NOT_DONE_RE.search(text))
    inclusive = bool(_INCLUSIVE_RE.search(text))
    created = bool(_CREATED_RE.search(text)) and not done
    soon = _SOON_RE.search(text)
    undated = NO_DEADLINE_RE.search(text)
    repeating = _REPEATING_RE.search(text)
    if repeating:  # which tasks, not when nor a title word
        text = _blank(text, repeating.group(0))
    free = free_amount(text)
    if free is not None:
        return _free_time_plan(text, free, lock.explicit, now, tz)

    include_completed = done and not (not_done and not inclusive)
    field: TimeField = "deadline"
    if created:
        field = "created"
    elif include_completed and not inclusive:
        field = "completed"
    prefer: Prefer = "past" if field in ("completed", "created") else "future"

    masked = _mask(text, lock.span, lock.phrase) if lock.explicit is not None else text
    masked = _free_time_spans(masked, now, tz, prefer)
    if undated:
        # "截止时间" names which tasks, not when: hide it from the resolver.
        masked = _blank(masked, undated.group(0))
    if soon:
        # "快过期" is no overdue phrase: hide it from the resolver and the overdue check.
        masked = masked.replace(soon.group(0), "，" * len(soon.group(0)))
    win = _safe_resolve(masked, now, tz, prefer)
    if (
        field == "deadline"
        and not include_completed
        and _DID_WHAT_RE.search(text)
        and win is not None
        and win.phrase
        and not _NOT_DONE_RE.search(text)
    ):
        # "昨天干了啥": what was done then, i.e. completion time in the past.
        field, include_completed, prefer = "completed", True, "past"
        win = _safe_resolve(masked, now, tz, prefer)
    time_text: str | None = None
    time_after: datetime | None = None
    time_before: datetime | None = None
    if win is not None and win.phrase:
        time_text = win.phrase
        time_after, time_before = win.start, win.end
        if win.overdue:
            include_completed = False
    else:
        om = _OVERDUE_RE.search(masked)
        if om:
            time_text = om.group(0)
            time_before = now
            include_completed = False
        elif _OVERDUE_COLLOQUIAL_RE.search(masked):
            time_text = "逾期"
            time_before = now
            include_completed = False
        elif soon:
            # Verbatim, unless the resolver would misread it ("快过期" contains the overdue word).
            time_text = soon.group(0)
            if _safe_resolve(time_text, now, tz, prefer) is not None:
                time_text = "快到期"
            time_after = _local(now, tz)
            time_before = _end_of_day(time_after + timedelta(days=SOON_DAYS))
        elif (gone := missing_day(masked)) is not None:
            time_text = gone.phrase  # no window: the answer says the day does not exist (steps.no_such_day)
    if undated and field == "deadline":
        # No deadline window can hold a task without a deadline.
        time_text, time_after, time_before = None, None, None
    if time_text is None and field == "completed":
        # "完成了的任务": no completion window, just include finished ones.
        field = "deadline"

    sort_by: SortBy = "deadline"
    order: Order = "asc"
    if _PRIORITY_SORT_RE.search(text) or _NEXT_SORT_RE.search(text):
        sort_by = "priority"
    elif _NEWEST_RE.search(text) or (field == "created" and "最近" in text):
        sort_by, order = "id", "desc"
    elif _LATEST_DEADLINE_RE.search(text):
        order = "desc"

    quadrants = quadrants_from_text(_SOON_RE.sub("，", text))
    scope = read_scope(text)
    return QueryPlan(
        scope=scope,
        quadrants=quadrants if quadrants is not None else english_quadrants(text),
        time_text=time_text,
        time_after=time_after,
        time_before=time_before,
        time_field=field,
        include_completed=include_completed,
        no_deadline=undated is not None,
        repeating=repeating is not None,
        keyword=_keyword(_blank(text, undated.group(0)) if undated else text, now, tz),
        sort_by=sort_by,
        order=order,
        limit=lock.explicit,
    )


def _free_time_plan(text: str, free: tuple[int, str], limit: int | None, now: datetime, tz: str) -> QueryPlan:
    """ "我下午有两个小时空，做点什么": open tasks that fit, most pressing first; the time said is when
    the user is free, so no deadline window."""
    minutes, words = free
    rest = _blank(text, words)
    return QueryPlan(
        quadrants=_said_quadrants(rest),
        fits_minutes=minutes,
        keyword=_keyword(rest, now, tz),
        sort_by="priority",
        limit=limit,
    )


def offline_plan_followup(
    sentence: str, previous_user_sentence: str, now: datetime, tz: str = "Asia/Shanghai"
) -> QueryPlan:
    """Merges a follow-up into the plan of the question it continues, read again from its words.

    Used when the previous answer carried no record of its query (see ``taskquery.carried``).
    """
    return merge_followup(offline_plan(previous_user_sentence, now, tz), sentence, now, tz)


def merge_followup(previous: QueryPlan, sentence: str, now: datetime, tz: str = "Asia/Shanghai") -> QueryPlan:
    """A follow-up ("再来两个", "还有吗", "那下周的呢", "重要的呢") applied to the plan it continues.

    What the follow-up says wins (time, quadrants, keyword, completion, sort); what it leaves out is
    inherited. The count comes from the follow-up if it says one ("再来两个" → 2); a bare "还有吗"
    keeps the previous count. English follow-ups merge the same way ("5 more", "more", "the rest",
    "what about next week?"); their priority words ("how about the important ones?") are read by
    ``english_quadrants``.
    """
    cur = offline_plan(sentence, now, tz)
    merged = previous.model_copy()
    if cur.time_text is not None:
        merged.time_text = cur.time_text
        merged.time_after = cur.time_after
        merged.time_before = cur.time_before
        merged.time_field = cur.time_field
    quadrants = cur.quadrants if cur.quadrants is not None else english_quadrants(sentence)
    if quadrants is not None:
        merged.quadrants = quadrants
    if cur.keyword is not None:
        merged.keyword, merged.scope = cur.keyword, None
    if cur.scope is not None:  # another list or label named: it replaces the one before
        merged.scope, merged.keyword = cur.scope, None
    if cur.no_deadline:
        merged.no_deadline = True
        if merged.time_field == "deadline":
            merged.time_text = merged.time_after = merged.time_before = None
    elif cur.time_text is not None and cur.time_field == "deadline":
        merged.no_deadline = False  # "那下周的呢": dated tasks again
    if cur.repeating:
        merged.repeating = True
    if cur.include_completed:
        merged.include_completed = True
    if (cur.sort_by, cur.order) != ("deadline", "asc"):
        merged.sort_by, merged.order = cur.sort_by, cur.order
    lock = extract_count(sentence)
    if lock.explicit is not None:
        merged.limit = lock.explicit
    elif lock.wants_all or not MORE_RE.search(sentence or ""):
        merged.limit = None
    return merged
