"""Offline rules for 完成/改回: is this message a statement that a task is done (or not done)?

Fires on statements only, never on questions ("交报告做完了吗", "周报交了没", "报告做完了没有"
stay task queries, read by the router's generic rules):

* zh, explicit: "把交报告标记为完成", "将X标为已完成", "X标记完成", "已完成：X" (0.9);
  reopen: "把交报告改回未完成", "把X标记为未完成", "X取消完成" (0.9).
* zh, a done-statement at the end of the sentence: "交报告做完了", "买牛奶搞定了", "报告已经交了",
  "周报写好了" (0.8); reopen: "交报告还没做完" (0.78). The completion phrase must close the
  sentence, so "我做完了一个梦" does not fire.
* en: "mark the report as done", "I finished the report", "done with groceries", "the report is
  done", "check off X" (0.8–0.9); reopen: "reopen the report task", "mark X as not done" (0.9).

Not for someone else's work ("他做完了"), not inside a note ("提醒我把报告交了"), not with a
question word anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.lexicon import DONE_VERBS
from core.turn import HistoryTurn, OfflineSignal

__all__ = ["DoneReading", "is_reopen", "offline_signal", "target_words"]

_PUNCT = " \t\r\n，,。.!！~～…：:;；、\"'“”‘’「」『』《》()（）"
_TAIL_PARTICLES = r"[啦了吧呀哈哦喔嘞咯呢]*[。.!！~～]*"

# Questions: a question particle or word anywhere, "X没X", "是否".
_QUESTION_RE = re.compile(
    r"[?？]|吗|么(?!事)|嘛|是否|有没有|是不是|哪|什么|啥|几个|多少|怎么|"
    r"了没|没有?[。.!！~～]*$|(?:了|完|好)不[。.!！~～]*$|"
    rf"(?P<v>{DONE_VERBS})没(?P=v)"
)
# Another person's work, or a note/reminder being made.
_OTHERS_RE = re.compile(r"^(?:你|您|他|她|它|他们|她们|人家|别人|同事|老板)")
_NOTE_RE = re.compile(
    r"撤销|撤回|^\d+[.、]|记一下|记下|记个|记住|记得|提醒|别忘|不要忘|待办[:：]|todo[:：]|添加|新建|创建"
)

# zh explicit marking.
_ZH_MARK_DONE_RE = re.compile(
    r"^(?:请|麻烦)?(?:帮我)?(?:把|将)?(?P<w>.+?)(?:已经|已)?(?:标记(?:为|成|作)?|(?:标|设置|设|改|置|勾选?)(?:为|成|作))(?:已经)?(?:已)?"
    r"(?:完成|做完|搞定|done)(?:状态)?" + _TAIL_PARTICLES + r"$"
)
_ZH_MARK_OPEN_RE = re.compile(
    r"^(?:请|麻烦)?(?:帮我)?(?:把|将)?(?P<w>.+?)(?:标记|改回|(?:标|设置|设|改|置)(?:回|成|为|作))(?:成|为|作)?"
    r"(?:未完成|没完成|没做完|待办|进行中)(?:状态)?" + _TAIL_PARTICLES + r"$|"
    r"^(?:请|麻烦)?(?:帮我)?(?:把|将)?(?P<w2>.+?)(?:取消完成|重新打开|撤销完成)(?:状态)?" + _TAIL_PARTICLES + r"$"
)
_ZH_DONE_PREFIX_RE = re.compile(r"^(?:已完成|完成了|搞定了|做完了)[:：]\s*(?P<w>.+)$")

# zh done-statements closing the sentence: "X(已经)(做完|搞定|写好|交)了".
_COMPLEMENT_VERBS = r"(?:做|写|弄|搞|干|办|改|交|填|签|发|寄|处理|整理|准备|看|读|学|背|修|洗|收拾|打扫)"
_ADV = r"(?:都|全|全部|总算|终于|已经|已|刚|刚刚|早就|早已|也|就)"
_RESULT = rf"(?:搞定|完成|完事|{_COMPLEMENT_VERBS}(?:完|好|掉)|{DONE_VERBS}(?:出去|上去|过))"
_ZH_DONE_TAIL = rf"{_ADV}*{_RESULT}了|(?:已经|已|早已|早就){_ADV}*{_RESULT}|{_ADV}+{DONE_VERBS}了"
# "房租交了": a bare verb + 了, weaker (it can be chat).
# Not with 把/将 or a time ("周五前把合同签了", "先把报告交了"): those are things to do.
_ZH_BARE_DONE_RE = re.compile(rf"^(?!.*(?:把|将|先|前|要|得))(?P<w>.{{2,}}?){DONE_VERBS}了" + _TAIL_PARTICLES + r"$")
# "药吃了", "花浇过了": the object said first, a daily-habit verb after it. The task is verb + object
# ("吃药", "浇花"), so that is the words; weaker than a done-verb statement ("饭吃了" can be chat).
_ZH_HABIT_DONE_RE = re.compile(
    r"^(?!.*(?:把|将|先|前|要|得|顺手|顺便))(?P<w>[\u4e00-\u9fff]{1,6}?)(?:也|都|已经|已|早就|刚)*(?P<v>吃|喝|浇|喂|遛|倒|取|拿|扔|晒|充|背|练)"
    r"(?:过|完|好|掉)?了" + _TAIL_PARTICLES + r"$"
)
_ZH_DONE_RE = re.compile(r"^(?P<w>.*?)(?P<tail>" + _ZH_DONE_TAIL + r")" + _TAIL_PARTICLES + r"$")
# "交报告还没做完", "周报还没写好": a statement that it is not done.
_ZH_NOT_DONE_RE = re.compile(
    r"^(?P<w>.+?)(?:其实|实际上)?(?:还|仍然|依然|并)?(?:没|没有|未)"
    rf"(?:搞定|完成|{_COMPLEMENT_VERBS}(?:完|好)|{DONE_VERBS})(?:呢)?[。.!！~～]*$"
)
# Leading words that are not the task: subjects and adverbs.
_ZH_LEAD_RE = re.compile(
    r"^(?:(?:好的|嗯+|哦|噢|ok|OK|对了|那个)[，,\s]*|好[，,\s]+)*(?:我们|咱们|我|咱)?(?:刚刚|刚|已经|终于|总算|早就|也|都)*(?:把|将)?"
    # which occurrence ("今天的药", "这周的周报"): not the task's words
    r"(?:(?:今天|今早|今晚|昨天|昨晚|这周|本周|上周|这次|这回|这个月|本月|上个月)的?(?=[\u4e00-\u9fff]))?"
)
_ZH_WORD_TAIL_RE = re.compile(r"(?:其实|实际上|的事情?|这件事|这个任务|任务|这个|那个|都|也|已经|已|还)+$")

# English.
_EN_WH_RE = re.compile(
    r"^\s*(?:\d+[.)]|(?:undo|did|have|has|is|are|was|were|do|does|what|which|how|when|can|could|should)\b)", re.I
)
_EN_MARK_DONE_RE = re.compile(
    r"^(?:please\s+)?(?:mark|set|flag)\s+(?P<w>.+?)\s+(?:as\s+)?(?:done|complete|completed|finished)\b",
    re.I,
)
_EN_MARK_OPEN_RE = re.compile(
    r"^(?:please\s+)?(?:mark|set|flag)\s+(?P<w>.+?)\s+(?:as\s+)?(?:not\s+done|undone|incomplete|not\s+complete|"
    r"not\s+finished|unfinished|open|to\s*do)\b|"
    r"^(?:please\s+)?(?:reopen|re-open|uncheck|untick|unmark)\s+(?P<w2>.+)$|"
    r"^(?P<w3>.+?)\s+(?:is|was)(?:n'?t|\s+not)\s+(?:actually\s+)?(?:done|finished|complete)(?:\s+yet)?$",
    re.I,
)
_EN_DONE_RES: tuple[tuple[re.Pattern[str], float], ...] = (
    (_EN_MARK_DONE_RE, 0.9),
    (re.compile(r"^(?:please\s+)?(?:check|tick|cross)\s+off\s+(?P<w>.+)$", re.I), 0.85),
    (re.compile(r"^(?:please\s+)?(?:check|tick|cross)\s+(?P<w>.+?)\s+off$", re.I), 0.85),
    (
        re.compile(
            r"^(?:ok(?:ay)?[\s,]+)?i(?:'ve|\s+have|'m|\s+am|\s+just)?\s*(?:just\s+|finally\s+|already\s+)?"
            r"(?:finished|completed|done\s+with|through\s+with)\s+(?P<w>.+)$",
            re.I,
        ),
        0.8,
    ),
    (re.compile(r"^(?:all\s+)?(?:done|finished)\s+with\s+(?P<w>.+)$", re.I), 0.8),
    (
        re.compile(
            r"^(?P<w>.+?)\s+(?:is|are|'s)\s+(?:all\s+|now\s+|finally\s+|already\s+)?(?:done|finished|complete|completed)$",
            re.I,
        ),
        0.78,
    ),
)
_EN_OTHERS_RE = re.compile(r"^\s*(?:he|she|they|you|we)\b", re.I)
_EN_ARTICLE_RE = re.compile(r"^(?:the|my|that|this|our)\s+", re.I)
_EN_TASK_TAIL_RE = re.compile(r"\s+(?:task|todo|to-do|item)s?$", re.I)
_EN_TRAIL_RE = re.compile(r"(?:[\s,]+(?:please|pls|thanks|thank you|now|today|already|finally))+$", re.I)
_CJK_RE = re.compile(r"[\u3400-\u9fff]")


def _clean(text: str) -> str:
    return (text or "").strip().strip(_PUNCT)


# Words that point at a task rather than name it ("mark it done", "它做完了"): no words, so the
# handler takes the task the conversation just wrote (core.resolve.target), never a title with "it".
_POINTER_RE = re.compile(
    r"^(?:it|this|that|this one|that one|this task|that task|the task|它|这个|那个|这条|那条|这件|那件|这件事|那件事|"
    r"这一条|刚才那个|刚才那条|刚记的|刚才记的|刚才记的那个)$",
    re.IGNORECASE,
)


def _named(words: str) -> str | None:
    return None if not words or _POINTER_RE.match(words) else words


def _zh_words(raw: str | None) -> str | None:
    if raw is None:
        return None
    w = raw.strip(_PUNCT)
    w = _ZH_LEAD_RE.sub("", w, count=1)
    for _ in range(2):
        w = _ZH_WORD_TAIL_RE.sub("", w).strip(_PUNCT)
    w = w.strip("「」“”\"'")
    return _named(w)


def _en_words(raw: str | None) -> str | None:
    if raw is None:
        return None
    w = _EN_TRAIL_RE.sub("", raw.strip(_PUNCT)).strip(_PUNCT)
    w = _EN_ARTICLE_RE.sub("", w)
    w = _EN_TASK_TAIL_RE.sub("", w)
    w = re.sub(r"^(?:task|todo)\s*[:：]?\s*", "", w, flags=re.I).strip(_PUNCT)
    return _named(w)


def _read(text: str) -> tuple[float, str, bool, str | None] | None:
    """(confidence, reason, completed, words) for a done/not-done statement; None otherwise."""
    t = _clean(text)
    if not t or len(t) > 80:
        return None
    if _CJK_RE.search(t):
        if _QUESTION_RE.search(t) or _OTHERS_RE.search(t) or _NOTE_RE.search(t):
            return None
        m = _ZH_MARK_OPEN_RE.match(t)
        if m and _zh_words(m.group("w") or m.group("w2")):
            return 0.9, "要把任务改回未完成", False, _zh_words(m.group("w") or m.group("w2"))
        m = _ZH_MARK_DONE_RE.match(t) or _ZH_DONE_PREFIX_RE.match(t)
        if m and _zh_words(m.group("w")):
            return 0.9, "要把任务标记为完成", True, _zh_words(m.group("w"))
        m = _ZH_NOT_DONE_RE.match(t)
        if m and re.search(r"还|其实|实际上|并", t) and _zh_words(m.group("w")):
            return 0.78, "说任务其实还没做完", False, _zh_words(m.group("w"))
        m = _ZH_DONE_RE.match(t)
        if m:
            words = _zh_words(m.group("w"))
            return (0.8, "说任务已经做完了", True, words) if words else None
        m = _ZH_HABIT_DONE_RE.match(t)
        if m and (words := _zh_words(m.group("w"))) and not _OTHERS_RE.match(words):
            return 0.7, "说任务已经做了", True, words if m.group("v") in words else m.group("v") + words
        m = _ZH_BARE_DONE_RE.match(t)
        if m:
            words = _zh_words(m.group("w"))
            return (0.65, "说任务已经做了", True, words) if words and len(words) >= 2 else None
        return None
    words_text = " ".join(t.replace("\u2019", "'").split())
    if "?" in words_text or _EN_WH_RE.search(words_text) or _EN_OTHERS_RE.search(words_text):
        return None
    m = _EN_MARK_OPEN_RE.match(words_text)
    if m:
        return 0.9, "reopen a task", False, _en_words(m.group("w") or m.group("w2") or m.group("w3"))
    for pattern, confidence in _EN_DONE_RES:
        m = pattern.match(words_text)
        if m:
            return confidence, "says a task is done", True, _en_words(m.group("w"))
    return None


@dataclass(frozen=True)
class DoneReading:
    """What a done / not-done statement says: the task's words, and whether it ends up completed."""

    words: str | None
    completed: bool


def offline_signal(text: str, history: Sequence[HistoryTurn] = ()) -> OfflineSignal | None:
    """ "This message says a task is done (or not done after all)", and how sure; None otherwise."""
    read = _read(text)
    if read is None:
        return None
    confidence, reason, completed, words = read
    return OfflineSignal(confidence, reason, DoneReading(words, completed))


def target_words(text: str) -> str | None:
    """The words naming the task: "交报告" from "把交报告标记为完成", "report" from "mark the report as done"."""
    read = _read(text)
    return read[3] if read is not None else None


def is_reopen(text: str) -> bool:
    """Whether the message says a task is NOT done (reopen) rather than done."""
    read = _read(text)
    return read is not None and not read[2]
