"""Chinese and Arabic numerals → int (memoised).

The everyday Chinese forms up to 999 ("五", "十五", "二十", "三百零五") are read here; anything else
goes to cn2an, imported on first need: importing it compiles a lot of regexes (about 0.1 s of a
cold start), and most turns never need it. tests/core/test_numerals_fast.py checks that the forms
read here give exactly what cn2an gives.
"""

from __future__ import annotations

from functools import lru_cache

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
# 1-9 as a multiplier or a last digit ("两百", "二十两" = 22, as cn2an reads them).
_NONZERO = {ch: v for ch, v in CN_DIGITS.items() if v}

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
    s = s.replace("〇", "零")
    if (plain := plain_cn(s)) is not None:
        return plain
    import cn2an  # see the module docstring

    try:
        value = cn2an.cn2an(s, "smart")
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def plain_cn(s: str) -> int | None:
    """The usual forms of 0..999: "零", "七", "十", "十五", "二十", "两百", "一百五" (= 150),
    "一百零五", "三百二十一". None for anything else (cn2an decides those)."""
    value = 0
    if "百" in s:
        head, _, s = s.partition("百")
        if head not in _NONZERO:
            return None
        value = _NONZERO[head] * 100
        if not s:
            return value
        if s[0] == "零":  # 一百零五
            return value + _NONZERO[s[1]] if len(s) == 2 and s[1] in _NONZERO else None
        if s in _NONZERO:  # 一百五 = 150
            return value + _NONZERO[s] * 10
        if len(s) < 2 or s[0] not in _NONZERO:  # the tens need their digit after a hundred
            return None
    elif len(s) == 1 and s in CN_DIGITS:
        return CN_DIGITS[s]
    head, ten, tail = s.partition("十")
    if not ten or len(head) > 1 or len(tail) > 1:
        return None
    if any(part and part not in _NONZERO for part in (head, tail)):
        return None
    return value + (_NONZERO[head] if head else 1) * 10 + (_NONZERO[tail] if tail else 0)


def warm() -> None:
    """Import cn2an now rather than on the first unusual numeral (a server does this at start)."""
    import cn2an  # noqa: F401


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
