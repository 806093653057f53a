"""Offline rules for 改: is this message a correction of a task ("不对，是下周三", "优先级调高")?

:func:`read_correction` reads what the message asks to change, without a database:

* a deadline — "不对，是下周三", "改成明天下午", "时间改成周五下午三点", "把交报告改到周五",
  "no, make it next Wednesday", "change it to Friday 3pm", "move it to tomorrow";
* a priority — "优先级调高" / "调低", "改成重要", "不急", "make it urgent" (the words are read by
  :func:`core.lexicon.priority_signals`; the handler maps them onto the task's group);
* a title — "标题改成交季度报告", "名字改成…", "rename it to …", "rename X to …";
* a reminder — "把交报告的提醒提前一小时", "开会的提醒改到下午两点", "给交报告加个提醒，提前半小时",
  "change the reminder for the report to an hour before" (removing one is task_delete's).

:func:`offline_signal` fires (0.75–0.85) only when there is something to correct: the history's last
assistant message wrote something (its visible wording: "好，已记下", "已完成", "已改好", "OK, noted",
"Done:", …; carried records are stripped from history) or the message names its task itself
("把交报告改到周五", "rename the report to …"). How-to questions ("怎么改优先级") are not corrections.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from core.lexicon import DEVICE_THING_RE, priority_signals
from core.turn import HistoryTurn, OfflineSignal

__all__ = ["Correction", "offline_signal", "read_correction", "wrote_something"]

Field = Literal["deadline", "priority", "title", "reminder"]

_PUNCT = "?？ \t\r\n，,。.!！~～…：:;；、\"'“”‘’「」『』《》()（）"
_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_HOWTO_RE = re.compile(r"怎么|怎样|如何|能不能教|在哪|哪里|\bhow\s+(?:do|can|to)\b|\bwhere\b", re.I)
_ZH_LEAD_RE = re.compile(r"^(?:(?:不对|不是|错了|搞错了|说错了|哦|噢|嗯+|呃|啊|那个|其实|抱歉|sorry)[，,\s。!！]*)+")
_ZH_POLITE_RE = re.compile(r"^(?:请|麻烦)?(?:你)?(?:能不能|可不可以|能|可以)?(?:帮我|给我)?(?:再)?")
_ZH_TAIL_RE = re.compile(r"(?:吧|吗|呢|啊|呀|哈|就行|就好|好了|可以吗|行吗|好吗|一下)+$")
_CHANGE_VERB = r"(?:改成|改为|改到|改作|换成|换到|调成|调到|设成|设为|设置为|挪到|推到|推迟到|延到|延期到|提前到)"
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
    r"^(?:好，已记下|已记下|已完成：|已改回未完成|已改好|这一轮已经|这条消息刚才已经记下|"
    r"OK, noted|Noted|Done:|Reopened:|Updated:)",
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


def _zh(t: str) -> Correction | None:
    had_lead = bool(_ZH_LEAD_RE.match(t))
    body = _ZH_POLITE_RE.sub("", _ZH_LEAD_RE.sub("", t)).strip(_PUNCT)
    if not body:
        return None
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
        return Correction("deadline", value, words)
    if had_lead:
        m = _ZH_IS_RE.match(body)
        said = _zh_value(m.group("v")) if m else None
        if said:
            return Correction("priority" if _is_priority_value(said) else "deadline", said, None)
    if _ZH_BARE_PRIO_RE.match(_zh_value(body)):
        return Correction("priority", _zh_value(body), None)
    return None


def _en(t: str) -> Correction | None:
    body = _EN_TRAIL_RE.sub("", _EN_LEAD_RE.sub("", " ".join(t.replace("\u2019", "'").split()))).strip(_PUNCT)
    if not body:
        return None
    m = _EN_REMINDER_RE.match(body)
    if m:
        value = (m.group("v") or m.group("v2") or "").strip(_PUNCT)
        return Correction("reminder", value, _en_words(m.group("w") or m.group("w2")), add=m.group("w2") is not None)
    m = _EN_RENAME_RE.match(body)
    if m:
        value = (m.group("v") or m.group("v2") or "").strip(_PUNCT)
        return Correction("title", value, _en_words(m.group("w") or m.group("w2"))) if value else None
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
    return _zh(t) if _CJK_RE.search(t) else _en(t)


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
