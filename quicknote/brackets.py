"""Quoted and bracketed text in a quick note: it is title, never time, and keeps its brackets.

"看看 [设计稿]", "买电池（5号）", "读《百年孤独》": what the user put in quotes or brackets is a name,
a label or an aside, so the offline rules hide it from the time grammar and the title cleanup
(``mask``) and put it back verbatim in the title (``unmask``). The one exception is a bracketed
priority word — "(urgent)", "（紧急）", "[重要]" — which is a priority, and leaves the title
(``priority_words``). Quotes and book-title marks (「」《》“”"") are always text: "《重要的事》" is a
book, not a priority.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "BRACKET_PAIRS",
    "EN_PRIORITY_WORDS",
    "Masked",
    "bracket_spans",
    "is_annotation",
    "mask",
    "strip_placeholders",
]

# (opening, closing, may hold a priority word). A pair whose two marks are the same character
# ('"') does not nest. ASCII ' is left out: it is an apostrophe far more often ("don't").
BRACKET_PAIRS: tuple[tuple[str, str, bool], ...] = (
    ("「", "」", False),
    ("『", "』", False),
    ("《", "》", False),
    ("〈", "〉", False),
    ("“", "”", False),
    ("‘", "’", False),
    ('"', '"', False),
    ("(", ")", True),
    ("（", "）", True),
    ("[", "]", True),
    ("【", "】", True),
    ("〔", "〕", True),
)
_CLOSING = {o: c for o, c, _ in BRACKET_PAIRS}
_ANNOTATION = {o for o, _, note in BRACKET_PAIRS if note}

# English priority words said in brackets, and the Chinese words ``core.lexicon.priority_signals``
# reads the same way, so "(urgent)" lands in the group "（紧急）" does.
EN_PRIORITY_WORDS: dict[str, str] = {
    "urgent": "紧急",
    "very urgent": "非常紧急",
    "asap": "尽快",
    "important": "重要",
    "very important": "很重要",
    "high priority": "优先级高",
    "high-priority": "优先级高",
    "top priority": "头等大事",
    "critical": "重要",
    "important and urgent": "重要又紧急",
    "urgent and important": "重要又紧急",
    "not urgent": "不急",
    "non-urgent": "不急",
    "no rush": "不急",
    "low priority": "优先级低",
    "low-priority": "优先级低",
    "not important": "不重要",
    "unimportant": "不重要",
    "optional": "可有可无",
}

# Private-use characters stand for the hidden spans: no rule of the time grammar or the title cleanup
# reads them as a word, a digit or punctuation.
_PLACEHOLDER_BASE = 0xE000
_PLACEHOLDER_RE = re.compile("[\ue000-\uf8ff]")
_PLACEHOLDERS = 0xF8FF - _PLACEHOLDER_BASE + 1


def _closing_at(text: str, start: int) -> int | None:
    """The index of the mark that closes the bracket opened at ``start`` (nested pairs counted)."""
    opening = text[start]
    closing = _CLOSING[opening]
    depth = 0
    for i in range(start + 1, len(text)):
        ch = text[i]
        if ch == closing and (depth == 0 or opening == closing):
            return i
        if ch == closing:
            depth -= 1
        elif ch == opening:
            depth += 1
    return None


def bracket_spans(text: str) -> list[tuple[int, int]]:
    """The outermost balanced quoted/bracketed spans of ``text``, marks included, left to right.

    An opening mark with no closing one is left alone (it is then ordinary text)."""
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        if text[i] in _CLOSING:
            close = _closing_at(text, i)
            # A blank pair ("[ ]", a Markdown checkbox) holds no words to keep: ordinary text.
            if close is not None and text[i + 1 : close].strip():
                spans.append((i, close + 1))
                i = close + 1
                continue
        i += 1
    return spans


@dataclass(frozen=True)
class Masked:
    """``text`` with every bracketed span replaced by one placeholder character."""

    text: str
    spans: tuple[str, ...]  # the hidden spans, verbatim, in order
    priority: tuple[str, ...]  # the Chinese priority words the bracketed priority labels said

    def unmask(self, text: str) -> str:
        """``text`` (a part of ``self.text``) with the hidden spans put back verbatim."""
        return _PLACEHOLDER_RE.sub(self._span, text)

    def _span(self, m: re.Match[str]) -> str:
        n = ord(m.group(0)) - _PLACEHOLDER_BASE
        return self.spans[n] if n < len(self.spans) else m.group(0)


def strip_placeholders(text: str) -> str:
    """``text`` (masked) without its placeholders: what priority words are read from."""
    return _PLACEHOLDER_RE.sub("", text)


def is_annotation(span: str) -> bool:
    """Whether ``span`` is in brackets that annotate ("（…）", "[…]"), not quotes or a book title."""
    return bool(span) and span[0] in _ANNOTATION


def _priority_label(span: str, is_label: Callable[[str], bool]) -> str | None:
    """The Chinese priority words a bracketed span says, when that is all it says."""
    if not is_annotation(span):
        return None
    inner = span[1:-1].strip(" \t!！。.")
    english = EN_PRIORITY_WORDS.get(" ".join(inner.lower().split()))
    if english is not None:
        return english
    return inner if inner and is_label(inner) else None


def mask(text: str, is_label: Callable[[str], bool]) -> Masked:
    """Hides the bracketed spans of ``text``; a bracketed priority label becomes a separator "，"
    and its words are kept in ``priority``. ``is_label`` tells a Chinese priority label.

    A private-use character the user typed is hidden as itself, so it comes back unchanged."""
    parts: list[str] = []
    spans: list[str] = []
    priority: list[str] = []

    def hide(span: str) -> None:
        parts.append(chr(_PLACEHOLDER_BASE + len(spans)))
        spans.append(span)

    def plain(piece: str) -> None:
        for m in re.finditer("[\ue000-\uf8ff]|[^\ue000-\uf8ff]+", piece):
            if _PLACEHOLDER_RE.fullmatch(m.group(0)):
                hide(m.group(0))
            else:
                parts.append(m.group(0))

    pos = 0
    for start, end in bracket_spans(text):
        span = text[start:end]
        plain(text[pos:start])
        label = _priority_label(span, is_label)
        if label is not None:
            priority.append(label)
            parts.append("，")
        else:
            hide(span)
        pos = end
    plain(text[pos:])
    if len(spans) > _PLACEHOLDERS:
        return Masked(text, (), ())  # more than the placeholders can name: nothing hidden
    return Masked("".join(parts), tuple(spans), tuple(priority))
