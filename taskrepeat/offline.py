"""Offline reading of a repeating task's controls: skip one, end the series, change its rule.

Mine (a :class:`RepeatControl`, 0.92 — words only a series takes, so above a delete's "取消…"):

* skip — "跳过这次", "这周的周报不用交了", "今天的打卡跳过", "这次的例会先不开了", "skip this week's report";
* end — "周报以后不用交了", "打卡不再重复", "停止重复交房租", "取消浇花的重复", "不再重复",
  "stop repeating the report";
* change — "打卡改成每周一三五", "把周报改为每两周", "倒垃圾换成每个工作日", "make the report every other week".

``words`` are the task's words (None: the task the conversation last wrote). A change carries the new
repetition as said; the handler reads it (:func:`core.recurrence.read_repeat`). Questions are not mine.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from core.turn import HistoryTurn, OfflineSignal

__all__ = ["RepeatControl", "offline_signal", "read_control"]

Op = Literal["skip", "end", "change"]
CONFIDENCE = 0.92  # above a delete's 0.9: "取消X的重复" names the repetition, not the task
MAX_CHARS = 80


@dataclass(frozen=True)
class RepeatControl:
    op: Op
    words: str | None  # the task's words; None: the one just written
    repeat: str | None = None  # a change's new repetition, as said ("每两周")


_QUESTION = re.compile(
    r"[?？]|[吗么嘛]\W*$|怎么|如何|能不能|可以吗|是否|在哪|哪里|\b(?:how|can i|could i|where)\b", re.IGNORECASE
)
# A delete or a reminder dropped is task_delete's, whatever else the sentence says.
_DELETE = re.compile(r"删|\bbe reminded\b|\b(?:delete|remove|get rid of)\b", re.IGNORECASE)
_FILL = " \t，,。.!！~～：:的吧啊呀了哈哦"
_THIS = r"(?:这次|这一次|本次|这回|这周|本周|这个星期|这个礼拜|今天|今日|这个月|本月|这期|本期|下次|下一次|下周)"
_V = r"[\u4e00-\u9fff]{0,2}?"
_PRONOUN = re.compile(
    r"^(?:它|这个|那个|这条|那条|这个任务|那个任务|it|this|that|this one|that one|this task|that task)?$", re.I
)

_SKIP = (
    # Not "不用提醒了" / "提醒不要了": a reminder dropped is task_delete's, a series or not.
    r"(?:(?:先|就)?(?:不用|不需要|不必|不)(?:再)?(?!提醒|要|留)[\u4e00-\u9fff]{0,2}?了|免了|(?:先|就)?跳过(?:一次|一下|吧)*|暂停一次|"
    r"(?:就)?不搞了[，,\s]*(?:先)?跳过|(?:先)?取消一次(?:[，,\s]*下次照常)?|停一次|(?:先)?暂停一次)"
)
_END = (
    r"(?:(?:以后|今后|往后|从此|从今以后)(?:都|就|也)?(?:不用|不需要|不必|不)(?:再)?(?!提醒)[\u4e00-\u9fff]{0,3}?了|"
    r"(?:不再|别再|不要再|不用再|不要|不用|无需|不必)重复(?:了)?(?:[，,\s]?(?:就)?(?:这一次|这次)(?:就行|就好)?)?|"
    r"(?:的|那个|这个)?(?:重复|循环)(?:给我)?(?:取消|关|停|去|撤)(?:掉|了)?|不用每[\u4e00-\u9fff]{1,4}?都[\u4e00-\u9fff]{0,2}了|"
    r"别再每[\u4e00-\u9fff]{1,4}?提醒了)"
)

# (op, pattern): the first that matches wins; "w" the task's words, "r" a change's new repetition.
_FORMS: tuple[tuple[Op, re.Pattern[str]], ...] = (
    ("skip", re.compile(rf"^跳过{_THIS}(?:的)?(?P<w>.*?)$")),
    ("skip", re.compile(rf"^{_THIS}的?(?P<w>.*?){_SKIP}$")),
    ("skip", re.compile(rf"^(?P<w>.*?){_THIS}的?{_SKIP}$")),
    ("end", re.compile(rf"^(?:把|将)?(?P<w>.*?){_END}$")),
    ("end", re.compile(r"^(?:停止|取消|结束|关掉|关闭)重复(?P<w>.*?)$")),
    ("end", re.compile(r"^(?:停止|取消|结束|关掉|关闭)(?P<w>.+?)的(?:重复|循环|周期)$")),
    (
        "change",
        re.compile(
            r"^(?:把|将)?(?P<w>.*?)(?:的重复|的频率|的周期)?(?:以后)?(?:改成|改为|换成|变成|调成|改到)(?P<r>每.+?|隔.+?|天天.*?|"
            r"[\d两二三四五六七八九十]+个?(?:天|周|星期|礼拜|月|年)[一1](?:次|回).*?)(?:吧)?$"
        ),
    ),
)
_EN_THIS = r"(?:this week's|this month's|today's|the next|next|the)"
_EN_WHEN = r"(?:this (?:time|week|month|round|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|today|tonight)"
_EN_FORMS: tuple[tuple[Op, re.Pattern[str]], ...] = (
    ("skip", re.compile(rf"^(?:let's )?skip (?:{_EN_THIS} )?(?P<w>.+?) {_EN_WHEN}$", re.I)),
    # "skip this week's report", "skip the next standup"; a bare "skip this song" is not a task's
    ("skip", re.compile(r"^(?:let's )?skip (?:this week's|this month's|today's|the next|next)\s+(?P<w>.+?)$", re.I)),
    ("skip", re.compile(r"^(?:let's )?skip (?P<w>this one|this time|it)(?: this time)?$", re.I)),
    ("skip", re.compile(rf"^no (?P<w>.+?) {_EN_WHEN},? (?:skip it|skip)$", re.I)),
    (
        "end",
        re.compile(
            r"^(?:stop repeating|don't repeat|do not repeat|end the series of)\s*(?P<w>.*?)(?: any ?more)?$", re.I
        ),
    ),
    ("end", re.compile(r"^end the (?P<w>.+?) series$", re.I)),
    ("end", re.compile(r"^stop (?:the |my )?(?P<w>.+?)(?: reminder)? (?:from )?repeating$", re.I)),
    (
        "end",
        re.compile(r"^(?:i )?(?:don't|do not|no longer) need to (?P<w>[^,;]+?)(?: any ?more| from now on)?$", re.I),
    ),
    ("end", re.compile(r"^make (?P<w>.+?) a one-(?:time thing|off(?: thing)?)$", re.I)),
    ("change", re.compile(r"^make (?:the |my )(?P<w>.+?) (?P<r>every .+?) instead(?: of .+)?$", re.I)),
    (
        "change",
        re.compile(r"^change (?P<w>it|that|that one|this one) to (?P<r>daily|weekly|monthly|yearly|every .+)$", re.I),
    ),
    (
        "end",
        re.compile(
            r"^(?P<w>.+?) (?:no longer repeats|shouldn't repeat|should not repeat|doesn't need to repeat|"
            r"does not need to repeat)(?: any ?more)?$",
            re.I,
        ),
    ),
    # "change the standup to every weekday", "make the report repeat every other week"; not a new
    # task's "change the air filter every three months" or "set a recurring reminder to … every …".
    (
        "change",
        re.compile(
            r"^(?:change|switch|move|set) (?:the |my )(?P<w>.+?) to (?:repeat )?(?P<r>every .+?)(?: instead| from now on)?$",
            re.I,
        ),
    ),
    (
        "change",
        re.compile(
            r"^(?:make|have|set) (?P<w>.+?) (?:repeat|recur) (?P<r>every .+?)(?: instead| from now on)?$",
            re.I,
        ),
    ),
)
_EN_LEAD = re.compile(r"^(?:(?:please|pls|plz|ok|okay|um|hey|can you|could you)[\s,]+)+", re.I)
_EN_TAIL = re.compile(r"[\s,]+(?:please|pls|thx|thanks|thank you)$", re.I)
_ZH_LEAD = re.compile(r"^(?:请|麻烦|帮我|给我|嗯|哦|那个|唉|好吧|好的)[，,\s]*")
# Trailing emoji, particles and punctuation people add ("跳过吧😂", "不需要了呀").
_TAIL_NOISE = re.compile(r"(?:[^\w\s]|[_吧啊呀哈哦嘛呢]|一下|\s)+$")
_TITLE_TAIL = re.compile(
    r"(?:这个任务|那个任务|任务|这件事|那件事|的?提醒|的重复|的时间)$|从每.*$|[，,](?:就|先)?$|(?:忘了|没来得及|来不及)[\u4e00-\u9fff]?$"
)


def _words(raw: str) -> str | None:
    words = raw.strip(_FILL)
    for _ in range(2):  # "健身提醒从每天" → "健身"
        words = _TITLE_TAIL.sub("", words).strip(_FILL)
    return None if _PRONOUN.match(words) else words


def read_control(text: str) -> RepeatControl | None:
    """The control ``text`` asks for, or None."""
    said = text.strip()
    for _ in range(2):
        said = _TAIL_NOISE.sub("", said)
        said = said.removesuffix("了") if said.endswith(("免了了",)) else said
    if not said or len(said) > MAX_CHARS or _QUESTION.search(said) or _DELETE.search(said):
        return None
    english = not re.search(r"[\u3400-\u9fff]", said)
    forms, said = (
        (_EN_FORMS, _EN_TAIL.sub("", _EN_LEAD.sub("", said))) if english else (_FORMS, _ZH_LEAD.sub("", said).strip())
    )
    for op, form in forms:
        m = form.match(said)
        if m is None:
            continue
        words = _words(m.group("w"))
        if english and words:
            words = re.sub(r"^(?:the|my)\s+|\s+(?:reminder|task|to-?do)$", "", words, flags=re.I) or None
        repeat = m.groupdict().get("r")
        if repeat and not english and not repeat.startswith(("每", "隔", "天天")):
            repeat = "每" + repeat  # "改成两周一次" says the period without 每
        return RepeatControl(op, words, repeat.strip(_FILL) if repeat else None)
    return None


def offline_signal(text: str, history: Sequence[HistoryTurn] = ()) -> OfflineSignal | None:
    control = read_control(text)
    if control is None:
        return None
    verbs = {"skip": "跳过一次", "end": "不再重复", "change": "改重复规则"}
    return OfflineSignal(CONFIDENCE, f"重复任务：{verbs[control.op]}", control)
