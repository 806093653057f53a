"""Follow-ups to a previous task list: "再来两个", "还有吗", "那下周的呢"; "5 more", "the rest", "what about next week?"."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.lexicon import MORE_RE, english_words, looks_like_english_followup
from core.turn import HistoryTurn
from taskquery.rendering import LIST_HEADER_RE

_FOLLOWUP_START = re.compile(r"^\s*(那|再|还有|换|继续|更多|下一页|然后|其他|别的)")
_FOLLOWUP_END = re.compile(r"(呢|吗)[？?。!！]*\s*$")
_LISTED_NUMBER = re.compile(r"^(\d+)\. ", re.M)

# English priority words → quadrants, first match wins (as ``taskquery.offline.quadrants_from_text``
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


@dataclass(frozen=True)
class FollowUp:
    previous_question: str
    shown: int  # how many tasks the previous answer listed
    wants_more: bool  # "再来两个": continue after what was shown


def english_quadrants(sentence: str) -> list[int] | None:
    """The priority groups English words ask about ("the important ones" → [1, 2]); None = not said."""
    text = english_words(sentence)
    return next((groups for pattern, groups in _EN_QUADRANTS if pattern.search(text)), None)


# 「全部」 alone (the list's own tail offers it): the whole match of the question before, not every
# task. "全部任务" names its own question, so it is not one.
_ALL_OF_THEM = re.compile(
    r"^(?:那|就|给我|帮我)?(?:看看|看|列出|显示)?(?:全部|所有|全都|都|剩下|其余|其他)(?:的)?"
    r"(?:都)?(?:列出来|列一下|看看|给我|吧|呢|啊|了)*[。.！!？?~～]*$"
)


def looks_like_followup(sentence: str) -> bool:
    text = sentence.strip()
    short_tail = len(text) <= 12 and _FOLLOWUP_END.search(text) is not None
    return bool(
        _FOLLOWUP_START.search(text)
        or short_tail
        or MORE_RE.search(text)
        or _ALL_OF_THEM.match(text)
        or looks_like_english_followup(text)
    )


def find_followup(sentence: str, history: list[HistoryTurn]) -> FollowUp | None:
    """The original question this sentence continues, if it follows a task list.

    `shown` is the highest number in the latest list (lists are numbered across pages), so a
    chain of "再来两个" keeps paging. The question is the latest user message before a list that
    is not itself a follow-up.
    """
    if not looks_like_followup(sentence):
        return None
    shown: int | None = None
    for index in range(len(history) - 1, 0, -1):
        reply, question = history[index], history[index - 1]
        if reply.role != "assistant" or question.role != "user" or not LIST_HEADER_RE.search(reply.text):
            continue
        if shown is None:
            shown = max((int(n) for n in _LISTED_NUMBER.findall(reply.text)), default=0)
        if not looks_like_followup(question.text):
            return FollowUp(question.text, shown, MORE_RE.search(sentence) is not None)
    return None
