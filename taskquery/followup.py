"""Follow-ups to a previous task list: "再来两个", "还有吗", "那下周的呢"; "5 more", "the rest", "what about next week?";
count-only refinements ("三个就行", "最多两条就够了", "一个都别落下": same filters, another count)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.countlock import extract_count
from core.lexicon import MORE_RE, count_leftover, looks_like_english_followup
from core.turn import HistoryTurn
from taskquery.offline import english_quadrants
from taskquery.rendering import LIST_HEADER_RE

__all__ = ["FollowUp", "english_quadrants", "find_followup", "is_count_refinement", "looks_like_followup"]

_FOLLOWUP_START = re.compile(r"^\s*(那|再|还有|换|继续|更多|下一页|然后|其他|别的)")
_FOLLOWUP_END = re.compile(r"(呢|吗)[？?。!！]*\s*$")
_LISTED_NUMBER = re.compile(r"^(\d+)\. ", re.M)


@dataclass(frozen=True)
class FollowUp:
    previous_question: str
    shown: int  # how many tasks the previous answer listed
    wants_more: bool  # "再来两个": continue after what was shown


# 「全部」 alone (the list's own tail offers it): the whole match of the question before, not every
# task. "全部任务" names its own question, so it is not one.
_ALL_OF_THEM = re.compile(
    r"^(?:那|就|给我|帮我)?(?:看看|看|列出|显示)?(?:全部|所有|全都|都|剩下|其余|其他)(?:的)?"
    r"(?:都)?(?:列出来|列一下|看看|给我|吧|呢|啊|了)*[。.！!？?~～]*$"
)


# A Chinese message whose point is a count ("三个就行", "最多两条就够了", "一个都别落下") refines the
# list before it: same filters, another count. English counts ("top 3") are questions of their own.
_COUNT_REFINEMENT_MAX_CHARS = 12
_CJK_RE = re.compile(r"[\u3400-\u9fff]")


def is_count_refinement(sentence: str) -> bool:
    text = sentence.strip()
    if len(text) > _COUNT_REFINEMENT_MAX_CHARS or not _CJK_RE.search(text):
        return False
    lock = extract_count(text)
    if not lock.phrase or (lock.explicit is None and not lock.wants_all):
        return False
    return not count_leftover(text, lock.phrase)


def looks_like_followup(sentence: str) -> bool:
    text = sentence.strip()
    short_tail = len(text) <= 12 and _FOLLOWUP_END.search(text) is not None
    return bool(
        _FOLLOWUP_START.search(text)
        or short_tail
        or MORE_RE.search(text)
        or _ALL_OF_THEM.match(text)
        or looks_like_english_followup(text)
        or is_count_refinement(text)
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
