"""How text is compared: each character by its case class, combining marks dropped, whitespace runs as
one space (:func:`match_key`). Titles (keyword search, :mod:`core.titlegrams`) and list and label names
(:mod:`core.listnames`) are compared this way; this module reads nothing else, so both can use it.
"""

from __future__ import annotations

import functools
import unicodedata

__all__ = ["match_key"]

# Every character with a case mapping lies in the BMP or the SMP (tests/core/test_titlegrams.py
# checks the rest of Unicode), so the table below is built from the first 0x20000 code points.
_CASED_SPAN = 0x20000
# SpecialCasing.txt's language-specific lowercase mappings whose first character is in another
# class: Lithuanian lowercases Ì Í Ĩ to i + U+0307 + the accent (the collation may be lt-x-icu).
_TAILORED_LOWER = {"\u00cc": "i", "\u00cd": "i", "\u0128": "i"}


@functools.cache
def _case_keys() -> dict[str, str]:
    """Every character that has a case relation → the key of its case class (~50 ms, once)."""
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        root = c
        while parent[root] != root:
            root = parent[root]
        while parent[c] != root:
            parent[c], c = root, parent[c]
        return root

    def union(a: str, b: str) -> None:
        parent.setdefault(a, a)
        parent.setdefault(b, b)
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    for cp in range(_CASED_SPAN):
        if 0xD800 <= cp < 0xE000:
            continue
        c = chr(cp)
        lower = c.lower()
        mapped = (lower, c.upper(), c.casefold(), c.title())
        if all(m == c for m in mapped):
            continue
        for m in mapped:
            if len(m) == 1:
                union(c, m)
        union(c, lower[0])  # İ → i̇: the first character carries the letter
    for c, first in _TAILORED_LOWER.items():
        union(c, first)

    members: dict[str, list[str]] = {}
    for c in parent:
        members.setdefault(find(c), []).append(c)
    keys: dict[str, str] = {}
    for group in members.values():
        lowers = [m.lower() for m in group if len(m.lower()) == 1]
        key = min(lowers) if lowers else min(group)  # readable: 'k' for K, k and K
        for m in group:
            keys[m] = key
    return keys


def _runs(text: str) -> tuple[list[list[str]], bool]:
    """The key sequences of ``text``'s whitespace-separated runs, and whether ``text`` holds a
    character that this Python's Unicode database lists as unassigned."""
    keys = _case_keys()
    runs: list[list[str]] = []
    run: list[str] = []
    unknown = False
    for c in text:
        if c.isspace():
            if run:
                runs.append(run)
                run = []
            continue
        category = unicodedata.category(c)
        if category[0] == "M":
            continue
        if category == "Cn":
            unknown = True
        run.append(keys.get(c, c))
    if run:
        runs.append(run)
    return runs, unknown


def match_key(text: str) -> str:
    """``text`` as keyword search compares it: each character replaced by its case key, combining
    marks dropped, whitespace runs as one space ("İstanbul", "ISTANBUL" → "istanbul").

    Stored for every task (``tasks.title_key``) and compared with a plain ``LIKE`` on every
    backend, so a keyword finds the same tasks on SQLite (whose ``LIKE`` folds only ASCII) and on
    PostgreSQL (whose ``ILIKE`` follows the collation). The grams are made of the same keys, so
    the posting lists stay a superset of the matches."""
    runs, _unknown = _runs(text)
    return " ".join("".join(run) for run in runs)
