"""Checks that a model's proposal is grounded in what the user said and in the domain.

Shared by every feature's trust boundary: a phrase must occur in the user's words, and an absolute
time a model computed must be an aware moment within a sane range of now.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

# Model-computed moments further than this from now are implausible for a personal task list.
PAST_RANGE = timedelta(days=366)
FUTURE_RANGE = timedelta(days=5 * 366)

_SPACE = re.compile(r"\s+")


def _fold(text: str) -> str:
    return _SPACE.sub("", text).casefold()


def occurs_in(phrase: str | None, words: str) -> bool:
    """Whether `phrase` (ignoring case and spacing) is part of what the user said."""
    if not phrase or not phrase.strip():
        return False
    return _fold(phrase) in _fold(words)


def plausible_moment(moment: datetime | None, now: datetime, tz: str) -> datetime | None:
    """The moment in the user's timezone when naive; None when it is too far from now to be meant."""
    if moment is None:
        return None
    if moment.tzinfo is None or moment.utcoffset() is None:
        moment = moment.replace(tzinfo=ZoneInfo(tz))
    if not now - PAST_RANGE <= moment <= now + FUTURE_RANGE:
        return None
    return moment


def grounded_share(candidate: str, words: str) -> float:
    """How much of `candidate` is taken from the user's words: CJK characters, or Latin words."""
    folded = _fold(words)
    units = re.findall(r"[\u3400-\u9fff]|[a-z0-9]+", candidate.casefold())
    if not units:
        return 0.0
    return sum(1 for unit in units if unit in folded) / len(units)


# Something a time phrase is made of: a number, a calendar or clock word, in Chinese or English.
_TIME_WORD = re.compile(
    r"[0-9零〇一二两三四五六七八九十廿]|[年月日号周星期礼拜天点时分秒早晚午夜今明后昨前节底初末旬]|"
    r"\b(?:today|tonight|tomorrow|yesterday|week|weekend|month|year|day|night|morning|noon|afternoon|evening|"
    r"mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|am|pm|now|soon|later)",
    re.IGNORECASE,
)


def looks_like_time(phrase: str | None) -> bool:
    """Whether a phrase could name a time at all ("发工资那天" yes; "买牛奶" no)."""
    return bool(phrase and _TIME_WORD.search(phrase))


# A reply that says something was saved or scheduled ("好的，已经帮你记下了", "已为您添加到任务列表",
# "I've added it", "Task created"). Only code may say that, and only when it happened.
_CLAIMS_WRITE = re.compile(
    r"(?:已经?|帮你|为你|给你|帮您|为您|给您)(?:帮你|为你|给你|帮您|为您|给您)?"
    r"(?:记下|记好|记录|记住|添加|加上|加好|加入|创建|新建|保存|安排|设置|设好|提醒)|"
    r"记下了|记好了|加好了|存好了|安排好了|设好了|(?:添加|加入|加)到(?:你的|您的)?(?:任务|待办|日程)|"
    r"\bI(?:'ve| have| just)? (?:added|saved|noted|created|scheduled|set up|recorded|put)\b|"
    r"\b(?:added|saved|noted) (?:it|that|this)\b|"
    r"\b(?:task|reminder|todo|note|it)\s+(?:has been\s+|was\s+|is\s+)?(?:created|added|saved|scheduled|set)\b",
    re.IGNORECASE,
)


def claims_write(text: str) -> bool:
    return bool(_CLAIMS_WRITE.search(text))
