"""Follow-ups to a previous task list: "再来两个", "还有吗", "那下周的呢"."""

from __future__ import annotations

import re
from dataclasses import dataclass

from route.decision import HistoryTurn
from taskquery.offline import MORE_RE
from taskquery.rendering import LIST_HEADER_RE

_FOLLOWUP_START = re.compile(r"^\s*(那|再|还有|换|继续|更多|下一页|然后|其他|别的)")
_FOLLOWUP_END = re.compile(r"(呢|吗)[？?。!！]*\s*$")
_LISTED_NUMBER = re.compile(r"^(\d+)\. ", re.M)


@dataclass(frozen=True)
class FollowUp:
    previous_question: str
    shown: int  # how many tasks the previous answer listed
    wants_more: bool  # "再来两个": continue after what was shown


def looks_like_followup(sentence: str) -> bool:
    text = sentence.strip()
    short_tail = len(text) <= 12 and _FOLLOWUP_END.search(text) is not None
    return bool(_FOLLOWUP_START.search(text) or short_tail or MORE_RE.search(text))


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
