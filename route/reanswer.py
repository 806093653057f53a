"""A chat client's "regenerate with guidance" buttons: a re-answer of the previous turn.

Open WebUI's regenerate menu ("Add Details", "More Concise", in the user's interface language)
sends the conversation up to the answer being regenerated, then the button's label as a new user
message; the reply *replaces* that answer. Suikou's answers are facts read from the store, with a
record on their last line that the next turn needs ("撤销", "再来两个"), so the only honest re-answer
is the same answer: same content, same record, nothing written again. A label typed by hand in the
middle of a conversation is answered the same way, which is what it asks for there too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core import carry
from core.turn import ChatText

# The labels as clients send them, per interface language (Open WebUI's locales for "Add Details"
# and "More Concise"); compared after folding case, spaces and final punctuation.
GUIDED_REGENERATE_LABELS: frozenset[str] = frozenset(
    {
        "add details",
        "more concise",
        "添加详情",
        "添加细节",
        "精炼表达",
        "更简洁",
        "更加简洁",
        "新增細節",
        "新增詳細資訊",
        "更簡潔",
        "精簡表達",
    }
)
_FOLD = re.compile(r"[\s。.!！]+")
_FOLDED_LABELS = frozenset(_FOLD.sub("", label) for label in GUIDED_REGENERATE_LABELS)


def is_guided_regenerate(text: str) -> bool:
    return _FOLD.sub("", text).casefold() in _FOLDED_LABELS


def previous_answer(messages: Sequence[ChatText]) -> str | None:
    """The answer to give again, when the request is a guided regeneration of one; else None.

    Only when the label directly follows an answer: a label as the first message of a
    conversation has nothing to re-answer and is an ordinary message."""
    if len(messages) < 2 or messages[-1].role != "user" or messages[-2].role != "assistant":
        return None
    if not is_guided_regenerate(messages[-1].text):
        return None
    answer = carry.strip_think(messages[-2].text).strip()
    return answer or None
