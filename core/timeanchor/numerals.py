"""Chinese and Arabic numerals → int, via cn2an for the Chinese forms (memoised)."""

from __future__ import annotations

from functools import lru_cache

import cn2an

# Digit-by-digit Chinese numerals ("二零零三", "九零") are read as digit strings.
CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_SPECIAL = {"俩": 2, "仨": 3, "几": 3, "半": 0}

# Regex fragments (no capturing groups) shared by the patterns module.
CN_NUM = "[零〇一二两三四五六七八九十百]"
NUM = rf"(?:\d{{1,4}}|{CN_NUM}{{1,5}})"
HOUR = rf"(?:\d{{1,2}}|{CN_NUM}{{1,3}})"
DAY = rf"(?:\d{{1,2}}|{CN_NUM}{{1,4}})"


@lru_cache(maxsize=2048)
def to_int(text: str) -> int | None:
    """Parses "15", "十五", "二零零三", "两", "俩"; None when it is not a plain number."""
    s = text.strip()
    if not s:
        return None
    if s.isascii() and s.isdigit():
        return int(s)
    if s in _SPECIAL:
        return _SPECIAL[s]
    if len(s) >= 2 and all(ch in CN_DIGITS for ch in s) and "两" not in s:
        return int("".join(str(CN_DIGITS[ch]) for ch in s))
    try:
        value = cn2an.cn2an(s.replace("〇", "零"), "smart")
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def adjacent_pair(text: str) -> tuple[int, int] | None:
    """ "七八" → (7, 8): two consecutive Chinese digits meaning "seven or eight"."""
    if len(text) == 2 and all(ch in CN_DIGITS for ch in text):
        a, b = CN_DIGITS[text[0]], CN_DIGITS[text[1]]
        if 1 <= a <= 11 and b == a + 1:
            return a, b
    return None


def two_digit_year(yy: int, this_year: int) -> int:
    """ "98年" → 1998, "15年" → 2015: within ten years ahead of now counts as this century."""
    century = this_year // 100 * 100
    year = century + yy
    if year > this_year + 10:
        year -= 100
    return year
