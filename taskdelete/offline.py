"""Offline reading of 删掉: is this message a request to delete one's task(s), and which?

Mine (a :class:`DeleteRequest`):

* zh, one task: "把取快递删了", "删掉交报告那个任务", "删除周五的例会", "去掉买菜", "移除X", "X不用做了，删了吧",
  and cancellation phrasing — "取消周三的会议", "取消明天的提醒", "删除我的下一个事件" — which is removal,
  never a new task (0.9; a statement "X不要了" 0.8);
* zh, the task just written: "把它删了", "删了吧", "这个删掉" (0.85: the handler finds it from the
  conversation's last write);
* zh, several: "删掉所有已完成的", "把上周的都删了", "取消今天所有的提醒", "清空已完成的任务" (0.9: the handler
  asks first, with the count and a sample);
* en: "delete the dentist task", "remove buy milk", "cancel my dentist appointment", "get rid of X",
  "delete all completed tasks", "remove everything from last week", "delete it" (0.8–0.9);
* a bare yes right after the handler asked to confirm a bulk delete ("要删除 2 条…确定吗？") (0.9).

Not mine: questions about deleting ("怎么删除任务？", "删除的任务能恢复吗", "can I delete tasks?"), undoing
what was just done ("撤销", "刚才那条不要了": the undo action), another person's doing, long messages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from core.lexicon import DEVICE_THING_RE, assent_re
from core.timeanchor import resolve_time
from core.turn import HistoryTurn, OfflineSignal

__all__ = ["CONFIRM_RE", "DeleteRequest", "is_yes", "offline_signal", "read_delete"]

MAX_CHARS = 60

_PROBE_NOW = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)  # whether words are a time phrase doesn't depend on now
_PUNCT = " \t\r\n，,。.!！~～…：:;；、\"'“”‘’「」『』《》()（）"
_CJK = re.compile(r"[\u3400-\u9fff]")
_PARTICLES = r"[吧啊呀了哈哦嘛呢]*"

# Questions about deleting, or undoing the last step (the undo action's words).
_QUESTION = re.compile(
    r"[?？]|吗|么|怎么|如何|怎样|咋|能不能|可不可以|可以吗|是否|为什么|为啥|什么|哪里|能否|会不会|恢复|找回"
)
_UNDO_WORDS = re.compile(r"撤销|撤回|撤消|回退|刚才|刚刚|上一条|上一个|上一步|上一次|上次(?:的)?(?:修改|改动|操作)")
_OTHERS = re.compile(r"^(?:你|您|他|她|它们|他们|她们|别人|同事|老板)")

_VERB = r"(?:删除|删掉|删了|删去|删|去掉|移除|清除|清掉|清空|取消掉|取消|撤掉|划掉|拿掉)"
_TAIL = r"(?:掉|了|一下)*"
_PRONOUN = r"(?:它|这个|这条|这一条|那个|那条|这件|那件|这项|这个任务|那个任务|这条任务)"
_ALL = r"(?:所有|全部|全都|都|一律|统统|通通)"
# "不用做了", "不用办了", "不需要了", "用不着了": no longer to be done
_NO_LONGER = r"(?:(?:不用|不需要|不必|用不着)(?:再)?[\u4e00-\u9fff]?了|不做了|不去了)"

# "别再提醒我", "不用再提醒我", "甭提醒我": the reminder is not wanted any more
_STOP_REMINDING = r"(?:别再|别|不要再|不要|不用再|不用|不必再|不必|甭|无需再?|莫再?)提醒(?:我|一下我)?"

# A task's reminder to go, the task kept: "开会的提醒取消", "取消开会的提醒", "开会不用提醒了" (the
# handler: a task without reminders is said so; see ``reminder``).
_ZH_REMINDER_FORMS: tuple[re.Pattern[str], ...] = (
    re.compile(
        rf"^(?:请|麻烦|帮我)*(?:把|将)?(?P<w>.+?)的提醒(?:也)?(?:{_VERB}|关掉|关了|关闭|不要了|撤了)(?:掉|了|吧)*$"
    ),
    re.compile(rf"^(?:请|麻烦|帮我)*(?:{_VERB}|关掉|关闭)(?:掉)?(?P<w>.+?)的提醒(?:吧|了)*$"),
    re.compile(r"^(?P<w>.+?)(?:就|也)?(?:不用|不必|不需要|别|不要|甭)(?:再)?提醒(?:我)?(?:了|吧|啦)*$"),
)
_EN_REMINDER_FORMS: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"^(?:please\s+)?(?:remove|delete|cancel|turn off|clear|drop)\s+(?:the\s+|my\s+)?reminders?\s+"
        r"(?:for|on|of|about)\s+(?P<w>.+?)(?:\s+please)?$",
        re.I,
    ),
)

_ZH_FORMS: tuple[tuple[re.Pattern[str], float, str], ...] = (
    # "把它删了", "这个删掉", "删了吧", "删掉它"
    (re.compile(rf"^(?:把|将)?{_PRONOUN}?{_VERB}{_TAIL}{_PRONOUN}?{_PARTICLES}$"), 0.85, "that"),
    # "把取快递删了", "将X删除", "把上周的都删了"
    (re.compile(rf"^(?:请|麻烦|帮我|给我)*(?:把|将)(?P<w>.+?){_ALL}?{_VERB}{_TAIL}{_PARTICLES}$"), 0.9, "words"),
    # "删掉交报告那个任务", "删除周五的例会", "取消周三的会议", "删掉所有已完成的"
    (re.compile(rf"^(?:请|麻烦|帮我|给我)*{_VERB}{_TAIL}(?P<w>.+?){_PARTICLES}$"), 0.9, "words"),
    # "X不用做了，删了吧", "X不做了，去掉"
    (
        re.compile(rf"^(?P<w>.+?){_NO_LONGER}[，,\s]*{_VERB}{_TAIL}{_PARTICLES}$"),
        0.9,
        "words",
    ),
    # "别再提醒我浇花了", "以后不用提醒我交房租了": the reminder is to go (a note would be its opposite)
    (re.compile(rf"^(?:以后|今后)?{_STOP_REMINDING}(?P<w>.+?){_PARTICLES}$"), 0.85, "words"),
    # "X不要了", "X不用做了": a statement (weaker: it may be said about something else)
    (re.compile(rf"^(?P<w>.+?)(?:不要了|{_NO_LONGER}|取消了){_PARTICLES}$"), 0.8, "words"),
)

_EN_VERB = r"(?:delete|remove|cancel|drop|erase|clear|get rid of|scrap|trash)"
_EN_ALL = re.compile(r"\b(?:all|every|everything)\b", re.I)
_EN_FORMS: tuple[tuple[re.Pattern[str], float, str], ...] = (
    # "delete that", "remove it": the task just written (surer than undo's reading of the same words,
    # which would reopen a task just completed rather than delete it)
    (
        re.compile(
            r"^(?:please\s+)?(?:delete|remove|drop|erase|get rid of|trash)\s+"
            r"(?:it|that|this|this one|that one|this task|that task)(?:\s+please)?$",
            re.I,
        ),
        0.92,
        "that",
    ),
    (
        re.compile(rf"^(?:please\s+|can you\s+|could you\s+)?{_EN_VERB}\s+(?P<w>.+?)(?:\s+please)?$", re.I),
        0.85,
        "words",
    ),
    # "stop reminding me to water the plants", "no more reminders about rent": the reminder is to go
    (
        re.compile(
            r"^(?:please\s+)?(?:(?:stop|quit|don'?t keep|no need to keep)\s+reminding me|no more reminders?|"
            r"(?:don'?t|do not|no need to|you don'?t need to|never)\s+remind me)"
            r"\s+(?:to|about|for|of)\s+(?P<w>.+?)(?:\s+(?:any ?more|again|please))*$",
            re.I,
        ),
        0.85,
        "words",
    ),
)
_EN_QUESTION = re.compile(r"\?|^(?:how|can|could i|do|does|is|are|what|why|where|should)\b", re.I)
_EN_UNDO = re.compile(
    r"^(?:that|this|(?:that|this|the|my)?\s*(?:last|previous|latest)\s+(?:one|change|edit|update|note|task|step|thing|action))$",
    re.I,
)

# Lead and tail words that are not the task.
_ZH_LEAD = re.compile(r"^(?:我的|我|咱的|一下|掉|了)+")
_ZH_TAIL = re.compile(r"(?:那个任务|这个任务|那件事|这件事|的任务|任务|那个|这个|那条|这条|吧|了)+$")
_EN_LEAD = re.compile(r"^(?:the|my|that|this|our|a)\s+", re.I)
_EN_TAIL = re.compile(r"\s+(?:task|todo|to-do|item|reminder|event)s?$", re.I)

# What a bulk delete says about which tasks: completed ones, and/or a time.
_DONE = re.compile(r"已完成|完成了的|做完的|完成的|已经做完|搞定的|done|completed|finished", re.I)
_BULK_NOUN = re.compile(r"(?:的)?(?:任务|待办|提醒|事项|日程|安排|事情|事)?$")

# The handler's question before a bulk delete (rendering.py), as the router's history shows it.
CONFIRM_RE = re.compile(r"(?:确定吗|确定要删除吗)？\s*$|Delete (?:it|them|all \d+)\?\s*$")
_YES_RE = assent_re(
    r"确定|确认|是|是的|对|对的|好|好的|嗯|可以|行|删|删吧|删掉|删除|都删|全删|没错|yes|yeah|yep|sure|ok|okay|"
    r"go ahead|do it|delete them|delete it|please do",
    separated=True,
)


@dataclass(frozen=True)
class DeleteRequest:
    """What a delete request says. ``words``: the task's name (None: the task just written, or a
    bulk filter alone). ``bulk``: several tasks at once (the handler asks first). ``completed``:
    only completed ones. ``time_text``: the time the tasks fall in, as said ("上周")."""

    confidence: float
    reason: str
    words: str | None = None
    bulk: bool = False
    completed: bool = False
    time_text: str | None = None
    # Only the task's reminders are to go ("开会的提醒取消"): "only" keeps the task whatever it has;
    # "stop" ("别再提醒我浇花了") removes its reminders when it has some, else the task as before.
    reminder: Literal["only", "stop"] | None = None


def is_yes(text: str) -> bool:
    return bool(_YES_RE.match(text or ""))


def _zh_words(raw: str) -> str | None:
    w = raw.strip(_PUNCT)
    for _ in range(2):
        w = _ZH_LEAD.sub("", w)
        w = _ZH_TAIL.sub("", w).strip(_PUNCT)
    w = w.strip("「」“”\"'")
    return w or None


def _en_words(raw: str) -> str | None:
    w = raw.strip(_PUNCT)
    w = _EN_LEAD.sub("", w)
    w = _EN_TAIL.sub("", w).strip(_PUNCT)
    return w or None


def _bulk(words: str, text: str) -> DeleteRequest | None:
    """A request about several tasks: "所有/全部/都", "清空", or English "all/everything"."""
    said_all = re.search(_ALL, text) or "清空" in text or _EN_ALL.search(words)
    if not said_all:
        return None
    rest = re.sub(_ALL, "", words)
    rest = re.sub(r"\b(?:all|every|everything|all of|from|of|in|tasks?|items?|reminders?)\b", " ", rest, flags=re.I)
    completed = bool(_DONE.search(rest))
    rest = _DONE.sub("", rest)
    time_text = _BULK_NOUN.sub("", rest.strip(_PUNCT)).strip(_PUNCT) or None
    if time_text is not None and time_text.endswith("的"):
        time_text = time_text[:-1] or None
    return DeleteRequest(0.9, "要删除一批任务", None, True, completed, time_text)


def _only_time(words: str) -> bool:
    """ "明天" in "取消明天的提醒": a time, not a task (the reminders due then are the tasks)."""
    found = resolve_time(words, _PROBE_NOW)
    return found is not None and found.phrase.strip() == words.strip(_PUNCT)


def read_delete(text: str, history: Sequence[HistoryTurn] = ()) -> DeleteRequest | None:
    """The delete request ``text`` makes, or None when it makes none (see the module docstring)."""
    t = (text or "").strip().strip(_PUNCT)
    if history and history[-1].role == "assistant" and CONFIRM_RE.search(history[-1].text) and is_yes(t):
        return DeleteRequest(0.9, "确认删除上一轮列出的任务", bulk=True)
    if not t or len(t) > MAX_CHARS or DEVICE_THING_RE.search(t):
        return None
    if _CJK.search(t):
        if _QUESTION.search(t) or _UNDO_WORDS.search(t) or _OTHERS.search(t):
            return None
        for pattern in _ZH_REMINDER_FORMS:
            if (m := pattern.match(t)) is not None and not _only_time(m.group("w")):
                return DeleteRequest(0.92, "要取消一个任务的提醒", _zh_words(m.group("w")), reminder="only")
        for pattern, confidence, kind in _ZH_FORMS:
            m = pattern.match(t)
            if m is None:
                continue
            if kind == "that":
                return DeleteRequest(confidence, "要删除刚才那条任务")
            words = _zh_words(m.group("w"))
            stop: Literal["stop"] | None = (
                "stop" if "提醒" in pattern.pattern and re.search(_STOP_REMINDING, t) else None
            )
            if words is None:
                return DeleteRequest(confidence, "要删除刚才那条任务", reminder=stop)
            return _bulk(words, t) or DeleteRequest(confidence, "要删除一个任务", words, reminder=stop)
        return None
    plain = " ".join(t.split())
    if _EN_QUESTION.search(plain):
        return None
    for pattern in _EN_REMINDER_FORMS:
        if (m := pattern.match(plain)) is not None:
            return DeleteRequest(0.92, "remove a task's reminder", _en_words(m.group("w")), reminder="only")
    for pattern, confidence, kind in _EN_FORMS:
        m = pattern.match(plain)
        if m is None:
            continue
        if kind == "that":
            return DeleteRequest(confidence, "delete the task just written")
        raw = m.group("w")
        if _EN_UNDO.match(raw.strip()):
            return None  # "delete that" / "remove the last one": undo's (take back what was just done)
        words = _en_words(raw)
        if words is None:
            return None
        en_stop: Literal["stop"] | None = "stop" if re.search(r"remind", plain, re.I) else None
        return _bulk(words, plain) or DeleteRequest(confidence, "delete a task", words, reminder=en_stop)
    return None


def offline_signal(text: str, history: Sequence[HistoryTurn] = ()) -> OfflineSignal | None:
    """ "This message asks to delete a task (or several)", and how sure; None otherwise."""
    read = read_delete(text, history)
    return OfflineSignal(read.confidence, read.reason, read) if read is not None else None
