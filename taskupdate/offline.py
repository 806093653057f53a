"""Offline rules for 改: is this message a correction of a task ("不对，是下周三", "优先级调高")?

:func:`read_correction` reads what the message asks to change, without a database:

* a deadline — "不对，是下周三", "改成明天下午", "时间改成周五下午三点", "把交报告改到周五",
  "no, make it next Wednesday", "change it to Friday 3pm", "move it to tomorrow";
* a priority — "优先级调高" / "调低", "改成重要", "不急", "make it urgent" (the words are read by
  :func:`core.lexicon.priority_signals`; the handler maps them onto the task's group);
* a title — "标题改成交季度报告", "名字改成…", "rename it to …", "rename X to …";
* a reminder — "把交报告的提醒提前一小时", "开会的提醒改到下午两点", "给交报告加个提醒，提前半小时",
  "change the reminder for the report to an hour before" (removing one is task_delete's);
* an estimate (how long the work takes, FDR 0040) — said as a statement about a named task ("写周报大概要
  两个小时", "交方案要花一天", "the report will take about 2 hours"), asked for ("把写周报的预计时间改成3小时",
  "写周报预计用时改为90分钟", "给写周报加个预计时间：一小时", "set the estimate for X to 45 min"), or taken
  away ("写周报不用估时间了", "去掉写周报的预计用时", "clear the estimate on X"); "这个大概要一个小时" is about
  the task just written or just shown alone. An amount said without a keepable number ("好几个小时") is
  still an estimate: the handler says it was not changed. A question ("写周报大概要多久", "写周报要几个
  小时？") is none, and neither is a note ("记一下写周报，大概一个小时").

:func:`offline_signal` fires (0.75–0.85) only when there is something to correct: the history's last
assistant message wrote something (its visible wording: "好，已记下", "已完成", "已改好", "OK, noted",
"Done:", …; carried records are stripped from history) or the message names its task itself
("把交报告改到周五", "rename the report to …"). How-to questions ("怎么改优先级") are not corrections.
An estimate without a named task also fires after an answer that shows one task alone (a one-line list,
"「写周报」还没有预计用时。"): :func:`focused_title`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo

from core.display import GROUP_LABELS
from core.lexicon import DEVICE_THING_RE, priority_signals
from core.timeanchor import resolve_time
from core.turn import HistoryTurn, OfflineSignal
from taskupdate.placing import Placing, read_placing

__all__ = ["Correction", "focused_title", "offline_signal", "read_correction", "shown_titles", "wrote_something"]

Field = Literal["deadline", "priority", "title", "reminder", "estimate", "list", "labels"]

_PUNCT = "?？ \t\r\n，,。.!！~～…：:;；、\"'“”‘’「」『』《》()（）"
_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_HOWTO_RE = re.compile(r"怎么|怎样|如何|能不能教|在哪|哪里|\bhow\s+(?:do|can|to)\b|\bwhere\b", re.I)
_ZH_LEAD_RE = re.compile(r"^(?:(?:不对|不是|错了|搞错了|说错了|哦|噢|嗯+|呃|啊|那个|其实|抱歉|sorry)[，,\s。!！]*)+")
_ZH_POLITE_RE = re.compile(r"^(?:请|麻烦)?(?:你)?(?:能不能|可不可以|能|可以)?(?:帮我|给我)?(?:再)?")
_ZH_TAIL_RE = re.compile(r"(?:吧|吗|呢|啊|呀|哈|就行|就好|好了|可以吗|行吗|好吗|一下)+$")
_CHANGE_VERB = r"(?:改成|改为|改到|改作|换成|换到|调成|调到|设成|设为|设置为|挪到|推到|推迟到|延到|延期到|提前到)"
_SHIFT_VERB = r"(?:改到|换到|调到|挪到|推到|推迟到|延到|延期到|提前到)"  # to a time, never to a length
_TIME_NOUN = r"(?:截止时间|截止日期|截止|到期时间|时间|日期|deadline|期限|日子)"
_TITLE_NOUN = r"(?:标题|名字|名称|任务名|题目)"
_PRIORITY_NOUN = r"(?:优先级|优先度|重要程度|紧急程度|级别)"

# "把交报告的标题改成…", "标题改成…", "名字改成…"
_ZH_TITLE_RE = re.compile(rf"^(?:(?:把|将)(?P<w>.+?)(?:的)?)?{_TITLE_NOUN}{_CHANGE_VERB}(?P<v>.+)$")
# "优先级调高", "把交报告优先级调低", "优先级改成重要"
_ZH_PRIO_DIR_RE = re.compile(
    rf"^(?:(?:把|将)(?P<w>.+?)(?:的)?)?{_PRIORITY_NOUN}?(?:再)?(?P<d>调高|提高|升高|调低|降低|放低|调低一点|调高一点)"
    r"(?:一点|一些|一级|点)?$"
)
# "把交报告(的时间)改到周五", "时间改成周五下午三点", "改成明天下午", "改成重要"
_ZH_CHANGE_RE = re.compile(
    rf"^(?:(?:把|将)(?P<w>.+?)(?:的)?)?(?:{_TIME_NOUN}|{_PRIORITY_NOUN})?(?:也)?(?:应该)?{_CHANGE_VERB}(?P<v>.+)$"
)
# Reminders: "把交报告的提醒提前一小时", "开会的提醒改到下午两点", "给交报告加个提醒，提前半小时", "提醒改成提前一天".
_ZH_REMINDER_SET_RE = re.compile(
    rf"^(?:(?:把|将)?(?P<w>.+?)的)?提醒(?:时间)?(?:也)?(?:(?:{_CHANGE_VERB}|改|调)(?P<v>.+)|(?P<v2>(?:提前|到点|准时).*))$"
)
_ZH_REMINDER_ADD_RE = re.compile(
    r"^(?:给|为|帮)(?P<w>.+?)(?:加|添|设|定|设置|安排)(?:上|一)?(?:个|一个|一下)?提醒(?:[，,\s]*(?P<v>.+))?$"
)
_EN_REMINDER_RE = re.compile(
    r"^(?:(?:change|move|set|make)\s+(?:the\s+|my\s+)?reminder\s+(?:for|on|of|about)\s+(?P<w>.+?)\s+to\s+(?P<v>.+)"
    r"|(?:add|set)\s+(?:a\s+)?reminder\s+(?:for|to|on|about)\s+(?P<w2>.+?)(?:[,\s]+(?P<v2>(?:an?|\d+|half an?)\s+\S+\s+before|"
    r"at\s+.+|on\s+.+|when it'?s due))?)$",
    re.I,
)
# "(不对，)是下周三" / "应该是下周三": only after a lead like 不对 (checked by the caller).
_ZH_IS_RE = re.compile(r"^(?:应该|其实)?(?:是|在)(?P<v>.+)$")
# A bare priority word after a write: "不急", "很重要", "不重要", "挺急的".
_ZH_BARE_PRIO_RE = re.compile(
    r"^(?:这个|这条|它)?(?:其实)?(?:也)?(?:不太|不怎么|不|没那么|并不|很|挺|非常|特别|比较)?"
    r"(?:急|紧急|着急|重要|要紧)(?:的)?(?:了)?$"
)

_EN_LEAD_RE = re.compile(r"^(?:(?:no|nope|oops|actually|sorry|wait|wrong|hmm|oh)\b[\s,.!;:-]*)+", re.I)
_EN_RENAME_RE = re.compile(
    r"^(?:please\s+)?(?:rename|retitle)\s+(?:(?:it|that|this)|(?P<w>.+?))\s+(?:to|as)\s+(?P<v>.+)$|"
    r"^(?:please\s+)?(?:change|set)\s+(?:the\s+|its\s+)?(?:title|name)(?:\s+of\s+(?P<w2>.+?))?\s+to\s+(?P<v2>.+)$",
    re.I,
)
_EN_PRIO_RE = re.compile(
    r"^(?:please\s+)?(?:(?:raise|increase|bump(?:\s+up)?)\s+(?:the\s+|its\s+)?priority|"
    r"(?:make|mark)\s+it\s+(?:more\s+)?(?:higher\s+priority|high\s+priority))(?P<up>)$|"
    r"^(?:please\s+)?(?:(?:lower|decrease|reduce)\s+(?:the\s+|its\s+)?priority|"
    r"(?:make|mark)\s+it\s+(?:lower\s+priority|low\s+priority))(?P<down>)$",
    re.I,
)
_EN_CHANGE_RE = re.compile(
    r"^(?:please\s+)?(?:(?:make|set|change|move|push|switch|reschedule)\s+(?:it|that|this)(?:\s+to)?|"
    r"(?:change|move|set)\s+(?:the\s+)?(?:deadline|date|time|due date)\s+to|"
    r"(?:make|change|move|set|push|reschedule)\s+(?P<w>.+?)\s+to|it'?s(?:\s+due)?|due)\s+(?P<v>.+)$",
    re.I,
)
_EN_ARTICLE_RE = re.compile(r"^(?:the|my|that|this|our)\s+", re.I)
_EN_TASK_TAIL_RE = re.compile(r"\s+(?:task|todo|to-do|item)s?$", re.I)
_EN_TRAIL_RE = re.compile(r"(?:[\s,]+(?:please|pls|thanks|thank you|instead))+$", re.I)

# Visible wording of answers that wrote (quick notes, completions, reopenings, corrections).
_WRITE_ANSWER_RE = re.compile(
    r"^(?:好，已记下|已记下|已完成：|已改回未完成|已改好|这一轮已经|这条消息刚才已经记下|好，「|"
    r"OK, noted|Noted|Done:|Reopened:|Updated:|OK, “)",
    re.I,
)
_UP_WORDS = re.compile(r"调高|提高|升高|raise|increase|bump|higher|high priority", re.I)
_DOWN_WORDS = re.compile(r"调低|降低|放低|lower|decrease|reduce|low priority", re.I)
_EN_PRIO_WORDS = re.compile(r"\b(?:urgent|important|not urgent|not important|no rush|unimportant|low|high)\b", re.I)


@dataclass(frozen=True)
class Correction:
    """What the message asks to change: one field, the new value's words, the task's words if named."""

    field: Field
    value: str  # the time phrase, the priority words ("调高"/"调低" or words), or the new title
    words: str | None  # the task the message names ("交报告" in "把交报告改到周五"), else None
    direction: Literal["up", "down"] | None = None  # for 调高 / 调低
    add: bool = False  # a reminder added beside the task's others ("加个提醒"), not replacing them
    clear: bool = False  # the estimate taken away ("写周报不用估时间了"); value is ""
    stated: bool = False  # an estimate said as a plain statement ("写周报大概要两个小时"), not asked for


def _clean(text: str) -> str:
    return (text or "").strip().strip(_PUNCT)


def _zh_value(raw: str) -> str:
    return _ZH_TAIL_RE.sub("", raw.strip(_PUNCT)).strip(_PUNCT)


def _zh_words(raw: str | None) -> str | None:
    if raw is None:
        return None
    w = raw.strip(_PUNCT).strip("「」“”\"'")
    w = re.sub(r"(?:这个任务|那个任务|任务|这个|那个|这条|那条)$", "", w)
    if w in ("", "它", "这", "那", "这个", "那个", "这条", "那条", "刚才那条", "刚才的", "刚才那个"):
        return None
    return w


def _en_words(raw: str | None) -> str | None:
    if raw is None:
        return None
    w = _EN_ARTICLE_RE.sub("", raw.strip(_PUNCT))
    w = _EN_TASK_TAIL_RE.sub("", w).strip(_PUNCT)
    return None if w.lower() in ("", "it", "that", "this", "one") else w


def _is_priority_value(value: str) -> bool:
    if _CJK_RE.search(value):
        s = priority_signals(value)
        return any((s.important, s.unimportant, s.urgent, s.not_urgent)) or s.explicit_group is not None
    return bool(_EN_PRIO_WORDS.fullmatch(value.strip().lower().removeprefix("more ").removeprefix("very ")))


# --- estimates -----------------------------------------------------------------------------------

# What the estimate is called: "预计时间", "预计用时", "预估时长", "耗时", "工时".
_EST_NOUN = r"(?:(?:预计|预估|估计|估算)(?:的)?(?:用时|耗时|工时|时长|时间|所需时间)|用时|耗时|工时|时长|所需时间|估时)"
_ZH_NUM = r"(?:\d+(?:\.\d+)?|[零一二两三四五六七八九十百]{1,4}|半)"
# An amount said without a keepable number is still said ("好几个小时"): read, then not saved. A bare 几
# asks ("写周报要几个小时").
_ZH_VAGUE = r"(?:好几|十几|几十|一两|两三|三四|四五|五六|七八|个把)"
_ZH_AMOUNT = (
    rf"(?:{_ZH_NUM}|{_ZH_VAGUE})(?:个)?(?:半)?(?:多)?(?:个)?(?:整)?(?:小时|钟头|分钟|刻钟|工作日|天)(?:半|多)?"
    r"(?:(?:零)?[\d一二两三四五六七八九十]{1,3}分(?:钟)?)?"
)
_ZH_HEDGE = r"(?:大概|大约|约莫|约|差不多|估计|预计|预估|大致|应该|可能|至少|起码|最多|一般|也就)"
_ZH_AMOUNT_TAIL = (
    r"(?:左右|上下|的样子|的时间|时间|的功夫|功夫|吧|就够了?|就行|"
    r"(?:就)?(?:能|可以)?(?:搞定|做完|完成|弄完|干完|写完|弄好|做好))"
)
_ZH_PURE_AMOUNT_RE = re.compile(rf"^{_ZH_HEDGE}?(?:要|需要)?{_ZH_AMOUNT}{_ZH_AMOUNT_TAIL}{{0,2}}$")
# "写周报大概要两个小时", "交方案要花一天", "这个大概要一个小时": the task's words, a word of taking, an amount.
_ZH_TAKES_RE = re.compile(
    rf"^(?P<w>.*?)(?P<cue>{_ZH_HEDGE}?(?:要|需要|得|会)?(?:花|用|花费|耗|耗时|耗费)?(?:上|掉)?)"
    rf"(?:个)?(?P<v>{_ZH_AMOUNT}){_ZH_AMOUNT_TAIL}{{0,2}}$"
)
# "写周报不用估时间了", "把写周报的预计用时去掉", "去掉写周报的预计用时", "预计用时不要了".
_ZH_EST_CLEAR_RE = re.compile(
    rf"^(?:(?:把|将)?(?P<w>.+?)(?:的)?)??{_EST_NOUN}(?:也|就)?"
    r"(?:去掉|删掉|删了|删除|清空|清掉|清除|取消|拿掉|撤掉|不要了?|不用了?|不需要了?|不设了|去了)(?:吧|了)*$"
    rf"|^(?:去掉|删掉|删除|清空|清掉|清除|取消|拿掉|撤掉|不要)(?P<w2>.+?)(?:的)?{_EST_NOUN}(?:吧|了)*$"
    r"|^(?P<w3>.*?)(?:就|也)?(?:不用|不需要|不必|别|无需|用不着)(?:再)?(?:估|预估|估计|估算|预计)"
    r"(?:时间|用时|耗时|时长)?(?:了|吧)*$"
)
# "把写周报的预计时间改成3小时", "写周报预计用时改为90分钟", "预计用时改成两小时", "写周报的预计时间大概3小时".
_ZH_EST_SET_RE = re.compile(
    rf"^(?:(?:把|将)?(?P<w>.+?)(?:的)?)??{_EST_NOUN}(?:也)?"
    rf"(?P<verb>{_CHANGE_VERB}|改|调|定为|定成|定|设|是|为|写成|写)?(?P<v>.+)$"
)
# "给写周报加个预计时间：一小时", "给写周报估个时间，一小时".
_ZH_EST_ADD_RE = re.compile(
    rf"^(?:给|为|帮)(?P<w>.+?)(?:(?:加|添|设|定|设置|填|写|标)(?:上|一)?(?:个|一个|一下|下)?{_EST_NOUN}"
    r"|估(?:个|一下|下)?(?:时间|时长|用时))(?:[，,：:\s]*(?:为|是|成)?(?P<v>.+))?$"
)
# Words before an amount that say no task: a person, time remaining or added ("还要一个小时"), a note.
_ZH_NOT_TASK_RE = re.compile(
    r"^(?:我|你|您|他|她|我们|你们|他们|大家|咱们?)$|(?:还|再|已经|总共|一共|一起|加起来)$"
    r"|记一下|记下|记个|记住|帮我记|提醒|备忘|待办|新建|添加|别忘|记得|[，,；;：:]"
)

_EN_AMOUNT = (
    r"(?:(?:\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty|forty-five"
    r"|half an?|a few|a couple(?: of)?|several|some|many|few)\s*(?:more\s+)?"
    r"(?:working\s+days?|days?|hours?|hrs?|h|minutes?|mins?|min)(?:\s+and\s+a\s+half)?"
    r"|an?\s+hour\s+and\s+a\s+half)"
)
_EN_HEDGE = r"(?:about|around|roughly|approximately|approx\.?|maybe|like|at least|at most|~|only|just)\s*"
_EN_PURE_AMOUNT_RE = re.compile(rf"^(?:{_EN_HEDGE})?{_EN_AMOUNT}$", re.I)
_EN_EST_NOUN = r"(?:time\s+)?estimate(?:d\s+time)?"
# "the report will take about 2 hours", "it'll take an hour", "write report takes 45 minutes".
_EN_TAKES_RE = re.compile(
    r"^(?P<w>.+?)\s+(?:(?:will|would|should|might|could|may|is going to|usually|probably|normally|typically|only)\s+)*"
    rf"(?:take|takes|need|needs|last|lasts|require|requires)\s+(?:me\s+|us\s+)?(?:{_EN_HEDGE})?(?P<v>{_EN_AMOUNT})$",
    re.I,
)
_EN_EST_SET_RE = re.compile(
    rf"^(?:set|change|update|make|put|adjust)\s+(?:the\s+|its\s+|my\s+|that\s+|this\s+)?{_EN_EST_NOUN}\s+"
    r"(?:(?:for|of|on)\s+(?P<w>.+?)\s+)?(?:to|at|as)\s+(?P<v>.+)$"
    rf"|^(?:set|change|update|make)\s+(?P<w2>.+?)'s\s+{_EN_EST_NOUN}\s+(?:to|at|as)?\s*(?P<v2>.+)$"
    r"|^estimate\s+(?P<w3>.+?)\s+at\s+(?P<v3>.+)$"
    rf"|^(?:add|give|put|set)\s+(?:it\s+|that\s+)?(?:an?\s+)?{_EN_EST_NOUN}\s+of\s+(?P<v4>.+?)"
    r"(?:\s+(?:to|on|for)\s+(?P<w4>.+))?$"
    rf"|^(?:make|set)\s+(?:the\s+|its\s+)?{_EN_EST_NOUN}\s+(?P<v5>{_EN_AMOUNT})$",
    re.I,
)
_EN_EST_CLEAR_RE = re.compile(
    r"^(?:clear|remove|delete|drop|reset|unset|erase|get rid of)\s+(?:the\s+|its\s+|my\s+|that\s+|this\s+)?"
    rf"{_EN_EST_NOUN}s?(?:\s+(?:on|for|of|from)\s+(?P<w>.+?))?$"
    rf"|^(?P<w2>.+?)\s+(?:doesn't|does not|don't|do not)\s+need\s+an?\s+{_EN_EST_NOUN}(?:\s+any\s*more)?$"
    rf"|^no\s+(?:more\s+)?{_EN_EST_NOUN}\s+(?:for|on)\s+(?P<w3>.+)$",
    re.I,
)
_EN_NOT_TASK_RE = re.compile(
    r"^(?:i|we|you|he|she|they|me|us)$|^(?:please\s+)?(?:remind|add|create|note|todo|to-do|don'?t forget|new task)\b"
    r"|[,;:]",
    re.I,
)
_ROUTING_CLOCK = datetime(2026, 1, 5, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))  # "is a time said?" only


def _estimate_value(raw: str) -> str:
    """The amount alone: hedges and tails off ("大概3小时左右" → "3小时", "about 2 hours" → "2 hours")."""
    value = raw.strip(_PUNCT)
    value = re.sub(rf"^(?:{_ZH_HEDGE}|要|需要|花|用)+", "", value)
    value = re.sub(rf"{_ZH_AMOUNT_TAIL}+$", "", value).replace("整", "")
    value = re.sub(rf"^(?:{_EN_HEDGE})+", "", value, flags=re.I)
    return value.strip(_PUNCT)


def is_amount(value: str) -> bool:
    """Whether ``value`` is nothing but an amount of time ("两个小时", "about 2 hours", "好几个小时")."""
    text = value.strip(_PUNCT)
    return bool(_ZH_PURE_AMOUNT_RE.match(text) or _EN_PURE_AMOUNT_RE.match(text))


def _starts_with_time(words: str) -> bool:
    """ "明天开会…", "周五的周报…": a time said first makes a note of the day, not an estimate."""
    try:
        window = resolve_time(words, _ROUTING_CLOCK, "Asia/Shanghai")
    except Exception:  # a phrase the resolver cannot take is no time
        return False
    return window is not None and bool(window.phrase) and words.startswith(window.phrase)


def _estimate(words: str | None, value: str, *, clear: bool = False, stated: bool = False) -> Correction:
    return Correction("estimate", "" if clear else _estimate_value(value), words, clear=clear, stated=stated)


def _zh_estimate(body: str) -> Correction | None:
    m = _ZH_EST_CLEAR_RE.match(body)
    if m:
        return _estimate(_zh_words(m.group("w") or m.group("w2") or m.group("w3")), "", clear=True)
    m = _ZH_EST_ADD_RE.match(body)
    if m:
        return _estimate(_zh_words(m.group("w")), m.group("v") or "")
    m = _ZH_EST_SET_RE.match(body)
    if m and (m.group("verb") or _ZH_PURE_AMOUNT_RE.match(m.group("v").strip(_PUNCT))):
        return _estimate(_zh_words(m.group("w")), _zh_value(m.group("v")))
    m = _ZH_TAKES_RE.match(body)
    if m is None or not m.group("cue"):
        return None
    raw = m.group("w").strip(_PUNCT)
    raw = re.sub(r"(?:也|都|就|只|才)$", "", raw)  # "写周报也要…", "写周报就要…"
    if _ZH_NOT_TASK_RE.search(raw) or re.search(_ZH_AMOUNT, raw) or (raw and _starts_with_time(raw)):
        return None
    return _estimate(_zh_words(raw) if raw else None, m.group("v"), stated=True)


def _en_estimate(body: str) -> Correction | None:
    m = _EN_EST_CLEAR_RE.match(body)
    if m:
        return _estimate(_en_words(m.group("w") or m.group("w2") or m.group("w3")), "", clear=True)
    m = _EN_EST_SET_RE.match(body)
    if m:
        value = next(v for v in (m.group(n) for n in ("v", "v2", "v3", "v4", "v5")) if v is not None)
        words = next((w for w in (m.group(n) for n in ("w", "w2", "w3", "w4")) if w), None)
        return _estimate(_en_words(words), value)
    said = re.sub(r"'ll\b", " will", re.sub(r"'s going to\b", " is going to", body, flags=re.I), flags=re.I)
    m = _EN_TAKES_RE.match(said)
    if m is None:
        return None
    raw = m.group("w").strip(_PUNCT)
    if _EN_NOT_TASK_RE.search(raw) or re.search(r"\bhow\b|\bwhat\b", raw, re.I):
        return None
    return _estimate(_en_words(raw), m.group("v"), stated=True)


def shown_titles(text: str) -> list[str]:
    """The tasks an answer shows (its visible text, records stripped), by title: the lines of a list
    ("1. 写周报（重要不紧急…）"), or the one task a sentence opens with ("「写周报」还没有预计用时。",
    "还没有，「交报告」…", '"write report" has no estimate yet.'). [] for anything else."""
    lines = [line.strip() for line in _LIST_LINE_RE.findall(text or "")]
    if lines:
        return lines
    m = _FOCUS_RE.match((text or "").strip())
    return [(m.group("zh") or m.group("en")).strip()] if m else []


def focused_title(text: str) -> str | None:
    """The one task an answer shows alone (:func:`shown_titles`), else None."""
    titles = shown_titles(text)
    return titles[0] if len(titles) == 1 else None


_LIST_LINE_RE = re.compile(
    r"^\d+\. (.+?)[（(](?:"
    + "|".join(re.escape(label) for labels in GROUP_LABELS.values() for label in labels.values())
    + r")",
    re.M,
)
_FOCUS_RE = re.compile(r"^(?:还没有，|做完了：)?「(?P<zh>[^」\n]+)」|^(?:Yes: |Not yet: )?\"(?P<en>[^\"\n]+)\"")


def _zh(t: str) -> Correction | None:
    had_lead = bool(_ZH_LEAD_RE.match(t))
    body = _ZH_POLITE_RE.sub("", _ZH_LEAD_RE.sub("", t)).strip(_PUNCT)
    if not body:
        return None
    placing = read_placing(body)
    if placing is not None:
        return _placed(placing, _zh_words(placing.words))
    m = _ZH_TITLE_RE.match(body)
    if m:
        value = _zh_value(m.group("v")).strip("「」“”\"'")
        return Correction("title", value, _zh_words(m.group("w"))) if value else None
    m = _ZH_REMINDER_ADD_RE.match(body)
    if m:
        return Correction("reminder", _zh_value(m.group("v") or ""), _zh_words(m.group("w")), add=True)
    m = _ZH_REMINDER_SET_RE.match(body)
    if m and not re.search(r"不用|不要|别|取消|删|去掉|关", body):
        value = _zh_value(m.group("v") or m.group("v2") or "")
        return Correction("reminder", value, _zh_words(m.group("w"))) if value else None
    estimate = _zh_estimate(body)
    if estimate is not None:
        return estimate
    m = _ZH_PRIO_DIR_RE.match(body)
    if m:
        up = m.group("d").startswith(("调高", "提高", "升高"))
        return Correction("priority", m.group("d"), _zh_words(m.group("w")), "up" if up else "down")
    m = _ZH_CHANGE_RE.match(body)
    if m:
        value = _zh_value(m.group("v"))
        if not value:
            return None
        words = _zh_words(m.group("w"))
        if re.search(_PRIORITY_NOUN, body) or _is_priority_value(value):
            return Correction("priority", value, words)
        if is_amount(value) and not re.search(rf"截止|到期|日期|deadline|{_SHIFT_VERB}", body):
            return _estimate(words, value)  # "改成两个小时": a length is no deadline, it is how long it takes
        return Correction("deadline", value, words)
    if had_lead:
        m = _ZH_IS_RE.match(body)
        said = _zh_value(m.group("v")) if m else None
        if said and is_amount(said):
            return _estimate(None, said)  # "不对，是两个小时"
        if said:
            return Correction("priority" if _is_priority_value(said) else "deadline", said, None)
    if _ZH_BARE_PRIO_RE.match(_zh_value(body)):
        return Correction("priority", _zh_value(body), None)
    return None


def _placed(placing: Placing, words: str | None) -> Correction:
    """A move to a list ("" with ``clear``: out of it) or a label added (``add``) or taken off (``clear``)."""
    if placing.kind in ("list", "unlist"):
        return Correction("list", placing.name or "", words, clear=placing.kind == "unlist")
    return Correction("labels", placing.name or "", words, add=placing.kind == "label", clear=placing.kind == "unlabel")


def _en(t: str) -> Correction | None:
    body = _EN_TRAIL_RE.sub("", _EN_LEAD_RE.sub("", " ".join(t.replace("\u2019", "'").split()))).strip(_PUNCT)
    if not body:
        return None
    placing = read_placing(body)
    if placing is not None:
        return _placed(placing, _en_words(placing.words))
    m = _EN_REMINDER_RE.match(body)
    if m:
        value = (m.group("v") or m.group("v2") or "").strip(_PUNCT)
        return Correction("reminder", value, _en_words(m.group("w") or m.group("w2")), add=m.group("w2") is not None)
    m = _EN_RENAME_RE.match(body)
    if m:
        value = (m.group("v") or m.group("v2") or "").strip(_PUNCT)
        return Correction("title", value, _en_words(m.group("w") or m.group("w2"))) if value else None
    estimate = _en_estimate(body)
    if estimate is not None:
        return estimate
    m = _EN_PRIO_RE.match(body)
    if m:
        up = m.group("up") is not None
        return Correction("priority", "raise" if up else "lower", None, "up" if up else "down")
    m = _EN_CHANGE_RE.match(body)
    if m:
        value = re.sub(r"^(?:be\s+)?(?:due\s+)?", "", m.group("v").strip(_PUNCT), flags=re.I)
        if not value:
            return None
        words = _en_words(m.group("w"))
        if is_amount(value) and re.match(r"(?:make|set|change|it'?s)\b", body, re.I) and "due" not in body.lower():
            return _estimate(words, value)  # "make it 2 hours": a length is no deadline
        return Correction("priority" if _is_priority_value(value) else "deadline", value, words)
    return None


# Messages that are corrections whatever came before ("改成明天下午", "不对，是下周三", "change it to Friday").
_PLAIN_CORRECTION_RE = re.compile(
    r"^(?:不对|不是|错了|搞错了|说错了)[，,\s。!！]|^(?:请|麻烦)?(?:帮我)?(?:改成|改到|改为|调高|调低|提前到|推迟到|延后到)"
    r"|^优先级(?:调高|调低|提高|降低)|^(?:时间|截止时间|日期|标题|名字|任务名|优先级)(?:改成|改到|改为)"
    r"|^(?:no|nope|oops|wait)\b[\s,.!]*(?:make it|change it|it'?s)\b|^(?:change it to|make it|rename it)\b",
    re.I,
)


def read_correction(text: str) -> Correction | None:
    """What the message asks to change; None when it is no correction (or a how-to question)."""
    t = _clean(text)
    if not t or len(t) > 80 or _HOWTO_RE.search(t) or DEVICE_THING_RE.search(t):
        return None
    found = _zh(t) if _CJK_RE.search(t) else _en(t)
    if found is not None and found.stated and re.search(r"(?:[?？]|[吗么嘛][?？。!！]*)\s*$", text.strip()):
        return None  # "写周报要两个小时？" asks whether it does
    return found


def wrote_something(history: Sequence[HistoryTurn]) -> bool:
    """Whether the history's last assistant message is an answer that wrote (by its wording)."""
    for turn in reversed(history):
        if turn.role == "assistant":
            return bool(_WRITE_ANSWER_RE.match(turn.text.strip()))
    return False


def offline_signal(text: str, history: Sequence[HistoryTurn] = ()) -> OfflineSignal | None:
    """ "This message corrects the task just written (or the one it names)", and how sure."""
    found = read_correction(text)
    if found is None:
        return None
    if found.field == "estimate":
        return _estimate_signal(found, text, history)
    if found.field in ("list", "labels"):
        # "把给猫剪指甲放到家务清单", "给交方案加个#紧急标签": a named task's list or labels, never a new note.
        return OfflineSignal(
            0.92 if found.words else 0.85 if wrote_something(history) else 0.75, "要改清单或标签", found
        )
    if found.field == "reminder" and found.words:
        # "给交报告加个提醒" / "set a reminder for the dentist …": a named task's reminder, not a new note.
        return OfflineSignal(0.9, "要改一个点名任务的提醒", found)
    if wrote_something(history):
        return OfflineSignal(0.85, "要改刚才写下的任务", found)
    if found.words:
        return OfflineSignal(0.8, "要改一个点名的任务", found)
    if _PLAIN_CORRECTION_RE.search(text.strip()):
        # Nothing written just before, but the words can only be a correction: never a new note
        # titled "改成"; the handler says there is nothing to correct.
        return OfflineSignal(0.7, "像是要改刚才的任务", found)
    return None


def _estimate_signal(found: Correction, text: str, history: Sequence[HistoryTurn]) -> OfflineSignal | None:
    """An estimate: a named task's (surer when asked for by name than when said as a statement), else the
    task just written or just shown alone; "预计用时改成两小时" with nothing before still never becomes a note."""
    if found.words:
        if found.stated:
            return OfflineSignal(0.85, "说了一个点名任务要多久：改它的预计用时", found)
        return OfflineSignal(0.92, "要改一个点名任务的预计用时", found)
    if wrote_something(history) or _shows_one_task(history):
        return OfflineSignal(0.85, "要改刚才那条任务的预计用时", found)
    if not found.stated:
        return OfflineSignal(0.7, "像是要改刚才那条任务的预计用时", found)
    return None


def _shows_one_task(history: Sequence[HistoryTurn]) -> bool:
    for turn in reversed(history):
        if turn.role == "assistant":
            return focused_title(turn.text) is not None
    return False
