"""Traditional → simplified Chinese, one character for one, so offsets into the folded text are
offsets into the original.

The rules (the time grammar, the router, the query and note rules) are written in simplified
characters; users in Taiwan and Hong Kong write 禮拜一, 下個月, 後天. ``fold`` lets the rules read
them while whatever is shown back (a note's title, a keyword) is sliced from the user's own text.

The table comes from OpenCC's t2s conversion (its character dictionary, not a hand-written one):
every CJK character is converted once, and only one-to-one results are kept. OpenCC's phrase
dictionary cannot apply, since the characters are converted one per line; the few characters
simplified text also uses (乾隆, 於 the surname) fold all the same, which only the rules see.
Building it (measured here) takes 15–100 ms and ~5.6 MB of Python memory at its peak; the table keeps
~0.8 MB (3,417 entries) and the process grows by 6–10 MB RSS (OpenCC's dictionaries, loaded once).
``warm`` does it at start, in the background (core.timeanchor.warm_up), else the first fold pays.
A fold costs ~0.5 µs a character.

Cantonese function words are folded too (咗 → 了, 嘅 → 的, 冇 → 没, 咩 → 啥, 边啲 → 哪些 …), one
character for one, so "上个月完成咗边啲" reads like "上个月完成了哪些" to the rules.
"""

from __future__ import annotations

import threading

__all__ = ["fold", "unfold", "warm"]

# CJK Extension A, the Unified Ideographs and the compatibility ideographs: every BMP Hanzi.
_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))

# Written Cantonese → the Mandarin word the rules know, one character for one (data, not rules).
_CANTONESE = {"咗": "了", "嘅": "的", "冇": "没", "嘢": "事", "咩": "啥", "乜": "啥", "唔": "不", "喺": "在",
              "睇": "看", "佢": "他", "哋": "们", "啲": "些", "嚟": "来", "搵": "找", "揾": "找", "畀": "给"}  # fmt: skip
# Two-character words whose first character has another everyday meaning alone (边 = side).
_CANTONESE_WORDS = (("边些", "哪些"), ("边个", "哪个"), ("边度", "哪里"), ("几时", "啥时"))

_table: dict[int, int] | None = None
_lock = threading.Lock()


def _build() -> dict[int, int]:
    import opencc  # the official OpenCC binding; loaded only when the table is first needed

    chars = [chr(c) for lo, hi in _RANGES for c in range(lo, hi + 1)]
    converted = opencc.OpenCC("t2s.json").convert("\n".join(chars)).split("\n")
    if len(converted) != len(chars):  # a line break was changed: no table rather than a wrong one
        return {}
    # Only folds to a BMP character: OpenCC also "simplifies" rare and Cantonese characters into
    # Extension B (嗰 → 𠮶), which no rule and no simplified writer uses.
    table = {ord(a): ord(b) for a, b in zip(chars, converted, strict=True) if len(b) == 1 and a != b and b <= "\uffff"}
    table.update({ord(a): ord(b) for a, b in _CANTONESE.items()})
    return table


def _get() -> dict[int, int]:
    global _table
    if _table is None:
        with _lock:
            if _table is None:
                try:
                    _table = _build()
                except (ImportError, OSError, RuntimeError):  # no OpenCC: read simplified text only
                    _table = {}
    return _table


def warm() -> None:
    """Build the table now (a server does this at start, so no request pays for it)."""
    _get()


def fold(text: str) -> str:
    """``text`` with traditional characters replaced by simplified ones; same length, same offsets."""
    if not text or text.isascii():
        return text
    out = text.translate(_get())
    for word, mandarin in _CANTONESE_WORDS:
        if word in out:
            out = out.replace(word, mandarin)
    return out


def unfold(piece: str, original: str) -> str:
    """``piece``, read out of ``fold(original)`` (a title, a keyword, a time phrase), in the user's own
    characters: a slice of ``original`` when ``piece`` is one slice of the folded text, else the
    characters of ``original`` wherever ``piece`` lines up with the folded text (rules may have cut
    words out of it or put a comma in)."""
    folded = fold(original)
    if not piece or folded == original:
        return piece
    i = folded.find(piece)
    if i >= 0:
        return original[i : i + len(piece)]
    from difflib import SequenceMatcher

    out = list(piece)
    for a, b, n in SequenceMatcher(None, folded, piece, autojunk=False).get_matching_blocks():
        out[b : b + n] = original[a : a + n]
    return "".join(out)
