"""Answering the follow-up an empty answer offers: "要看看逾期的吗？" → "要" → the overdue list.

The offer texts are ours (``rendering.EMPTY_OFFERS``), so which offer the previous answer made is
read from its exact line, and each offer stands for a question of its own (``OFFERED_QUESTIONS``),
planned by the same rules as if the user had typed it. Only a bare yes right after the offer
takes it (``core.lexicon.accepts_offer``); "不用了" / "no" is no answer to it, and a "要" with no
offer before it is whatever it was before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.lexicon import accepted_offer_line
from core.locale import Locale
from core.turn import HistoryTurn
from taskquery.rendering import EMPTY_OFFERS

# Each offer that leads to a query → the question it stands for, in the offer's language. ("no_tasks"
# offers to add a task, which a yes cannot do: it is no query and not here.)
OFFERED_QUESTIONS: dict[str, dict[Locale, str]] = {
    "see_overdue": {"zh": "逾期的任务", "en": "overdue tasks"},
    "see_undated": {"zh": "没有截止时间的任务", "en": "tasks without a deadline"},
}
_OFFERS_BY_TEXT: dict[str, tuple[str, Locale]] = {
    texts[name]: (name, locale) for locale, texts in EMPTY_OFFERS.items() for name in OFFERED_QUESTIONS
}


@dataclass(frozen=True)
class AcceptedOffer:
    name: str  # the offer (a key of OFFERED_QUESTIONS)
    locale: Locale  # the language it was made in, which the answer keeps
    question: str  # what the yes stands for


def accepted_offer(sentence: str, history: Sequence[HistoryTurn]) -> AcceptedOffer | None:
    """The offer a bare yes takes, when the latest assistant message made one; else None."""
    line = accepted_offer_line(sentence, [(turn.role, turn.text) for turn in history])
    found = _OFFERS_BY_TEXT.get(line) if line is not None else None
    if found is None:
        return None
    name, locale = found
    return AcceptedOffer(name, locale, OFFERED_QUESTIONS[name][locale])
