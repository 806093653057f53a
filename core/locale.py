"""Which language a rendered answer should use.

The user's own latest message decides: answers follow the language the person just wrote in, not
an account setting or the model's reply. Chinese stays the default, so anything that is not plainly
English (mixed text, digits, emoji, an empty message) keeps the Chinese answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

Locale = Literal["zh", "en"]

# CJK ideographs (U+3400–U+9FFF), CJK punctuation (U+3000–U+303F) and full-width forms: a single one
# means the person typed with a Chinese input method.
_CHINESE = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]")


# Fewer Latin letters than this is no evidence of English: "top5", "ok", "ddl" are said in Chinese too.
MIN_ENGLISH_LETTERS = 4


def _reading(text: str) -> Locale | None:
    """The language `text` plainly shows, or None when it is too short to tell ("all", "top5")."""
    if _CHINESE.search(text):
        return "zh"
    if len(_LATIN.findall(text)) >= MIN_ENGLISH_LETTERS:
        return "en"
    return None


def detect_locale(text: str, earlier: Sequence[str] = ()) -> Locale:
    """The language of `text`; when it shows none, that of the latest `earlier` message that does
    (a bare "all" after an English question stays English)."""
    for candidate in (text, *reversed(earlier)):
        found = _reading(candidate)
        if found is not None:
            return found
    return "zh"
