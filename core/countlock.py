"""Deterministic explicit-count extraction for task queries (brief §3, "explicit count lock").

``extract_count(text)`` reads a count the user *said* — "来一个", "来个", "给我两个", "前 3 个",
"前三条", "top5", "Top 5", "仨", "俩", "三条简单任务", "再来两个" — and nothing else. It never
matches substrings blindly: a number only counts when it sits in a count construction.

Count constructions (a number N is digits, fullwidth digits, or a Chinese numeral 一..九十九,
with 两=2; 俩=2 and 仨=3 stand alone):

* strong
  - ``top N`` / ``TOP3`` / ``first N`` (English, case-insensitive);
  - ``前 N`` + classifier (个/条/件/项/样/只), or ``前 N`` + 名/位, or ``前 N`` at the end of a clause or
    before 的 ("排名前五的任务");
  - a request verb (来/给/挑/选/拿/列/显示/看/推荐/找/抽/要/派/弄/搞/捞/拣/瞅瞅/瞧瞧) + optional N +
    classifier ("来个" = 1);
  - 俩 / 仨 after a request verb or on their own as a quantity ("来俩", "仨简单的").
* weak
  - a bare ``N`` + classifier ("三条简单任务", "3个任务"), unless preceded by 第/有/是/这/那/哪/每/某/
    其中/前 (前 is handled above), so "有一个任务叫…" or "第一个" do not lock.

Never a count: a classifier followed by a time unit ("前三个月", "两个小时", "一个星期", "3个工作日"),
a number followed by a time word without classifier ("前两天", "3天内", "下周3", "12月5日", "5号",
"2026-12-15"), numberless quantities ("一些", "几个", "一点", "一下", "来点").

English (case-insensitive; N is digits or a word number one..twenty, from ``EN_NUMBERS``):

* strong — ``top N`` / ``first N`` ("first" takes digits or two..twenty: "first one" is an ordinal);
  ``N more`` / ``another N`` ("5 more", "3 more please", "two more tasks"); a request verb + N
  ("give me 3", "show me five", "pick 2");
* weak — ``N tasks`` / ``N items`` / ``N todos`` ("three tasks", "one task"), unless after
  these/those/which/each/every/have/has/had, a month name or "#";
* never a count: a number followed by a time or other unit ("first 2 weeks", "5 more minutes",
  "give me 2 days", "one more thing"); "in 3 days", "next 2 weeks", "3pm", "Dec 5", "2 days ago" have
  no count construction at all.
* "the rest" / "rest of them" set ``wants_all`` like "all" (not "the rest of the week").

Never a count either: "一个都不要漏" / "一条也别落下" (N + classifier + 都/也 + a negation) — a negated
totality, read as "all".

Choosing among several: the earliest strong match with a said number wins, then the implicit 1 of
"来个/列个" ("列个前五" → 5); if there is no strong match, the earliest weak match.
A range such as "两三个" / "三五条" locks its upper bound. "全部/所有/全都/都列出来/统统/all" set
``wants_all`` — but only when no explicit count was found (an explicit count always wins).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from core.timeanchor.numerals import CN_DIGITS

__all__ = ["EN_NUMBERS", "CountLock", "extract_count", "parse_cn_number"]


@dataclass(frozen=True)
class CountLock:
    """What the user said about how many tasks to show."""

    explicit: int | None
    wants_all: bool
    # The substring (of the NFKC-normalised input) that carried the count, and its span there;
    # NFKC keeps fullwidth ASCII one character long, so the span usually indexes the raw input too.
    phrase: str | None = field(default=None, compare=False)
    span: tuple[int, int] | None = field(default=None, compare=False)


_NUM = r"(?:(?<![0-9])[0-9]{1,3}(?![0-9])|[零〇一二两三四五六七八九十]{1,4})"
_CLS = r"(?:个|条|件|项|样|只|份|桩)"
# A classifier followed by one of these is a duration / time span, not a count of tasks.
_TIME_AFTER_CLS = (
    r"(?:[多半]*(?:月|小时|钟头|钟|星期|礼拜|周|工作日|季度|季|年|天|日|晚上|夜|早上|上午|下午|中午|白天|分钟|秒)"
    r"|人(?!物)|人的)"
)
_VERB = (
    r"(?:随便挑|随便来|随机来|再来|再给|再挑|来|给我|给|挑|选|拿|列|显示|看看|看|推荐|找|抽|要|派|弄|搞|捞|拣|"
    r"瞅瞅|瞧瞧)"
)
# "一个都不要漏" / "一条也别落下": a negated totality, not a count (it means "all").
_NEGATED_TOTAL_AFTER = re.compile(r"\s*(?:都|也)\s*(?:不|别|没)")
_BLOCK_BEFORE = ("第", "有", "是", "这", "那", "哪", "每", "某", "其中", "前")

# --- English --------------------------------------------------------------------------------------
_EN_NUMBER_WORDS = (
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
)
EN_NUMBERS: dict[str, int] = {word: n for n, word in enumerate(_EN_NUMBER_WORDS, start=1)}


def _en_number(minimum: int = 1) -> str:
    """Digits, or a word number from ``EN_NUMBERS`` that is at least ``minimum``."""
    words = "|".join(sorted((w for w, n in EN_NUMBERS.items() if n >= minimum), key=len, reverse=True))
    return rf"(?:(?<![0-9])[0-9]{{1,3}}(?![0-9])|(?<![a-z])(?:{words})(?![a-z]))"


_EN_NUM = _en_number()
# "first one" is an ordinal ("do the first one"), "first three" a count.
_EN_NUM_PLURAL = _en_number(2)
# A number followed by one of these is a duration or some other quantity, not a count of tasks.
_EN_UNIT_AFTER = (
    r"(?!\s*(?:more\s+)?(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h\b|days?|nights?|weeks?|wks?|months?|years?|"
    r"weekends?|mornings?|afternoons?|evenings?|am\b|pm\b|a\.m|p\.m|o'?clock|times?|things?|questions?|people|"
    r"persons?|%|percent|st\b|nd\b|rd\b|th\b))"
)
# What may follow a request verb + N ("give me 3", "show me five please", "pick 2 for tomorrow").
_EN_COUNT_END = (
    r"(?=\s*(?:$|[.,!?;:)]|(?:please|pls|plz|thanks|tasks?|items?|todos?|to-dos?|ones?|of (?:them|those|these|my)|"
    r"for|from|due|with|that|which|i|to|more)(?![a-z])))"
)
_EN_VERB = r"(?<![a-z])(?:give|show|list|get|pick|choose|find|send|suggest)(?:\s+me)?"
_EN_BLOCK_BEFORE = re.compile(
    r"(?:(?<![a-z])(?:these|those|which|each|every|have|has|had|jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|"
    r"january|february|march|april|june|july|august|september|october|november|december)|#)\s*$",
    re.IGNORECASE,
)

_STRONG_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(rf"(?<![a-z])top\s*[-_#]?\s*(?P<n>{_EN_NUM}){_EN_UNIT_AFTER}", re.IGNORECASE),
    re.compile(rf"(?<![a-z])first\s*[-_#]?\s*(?P<n>{_EN_NUM_PLURAL}){_EN_UNIT_AFTER}", re.IGNORECASE),
    re.compile(rf"(?<![a-z])(?:another\s+)?(?P<n>{_EN_NUM})\s+more(?![a-z]){_EN_UNIT_AFTER}", re.IGNORECASE),
    re.compile(rf"(?<![a-z])another\s+(?P<n>{_EN_NUM}){_EN_UNIT_AFTER}{_EN_COUNT_END}", re.IGNORECASE),
    re.compile(rf"{_EN_VERB}\s+(?P<n>{_EN_NUM}){_EN_UNIT_AFTER}{_EN_COUNT_END}", re.IGNORECASE),
    re.compile(rf"前\s*(?P<n>{_NUM})\s*{_CLS}(?!{_TIME_AFTER_CLS})"),
    re.compile(rf"前\s*(?P<n>{_NUM})\s*(?:名|位)"),
    re.compile(rf"前\s*(?P<n>{_NUM})\s*(?=$|[，。,.!！?？、；;:：\s]|给我|看看|吧|的(?!{_TIME_AFTER_CLS}))"),
    re.compile(rf"{_VERB}\s*(?:我|咱)?\s*(?P<n>{_NUM})?\s*{_CLS}(?!{_TIME_AFTER_CLS})"),
    re.compile(rf"{_VERB}\s*(?:我|咱)?\s*(?P<n>俩|仨)"),
)
_WEAK_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(rf"(?P<n>{_NUM})\s*{_CLS}(?!{_TIME_AFTER_CLS})"),
    re.compile(r"(?<![我你他她它咱们])(?P<n>俩|仨)(?!人)"),
    re.compile(rf"(?P<n>{_EN_NUM})\s*(?:tasks?|items?|todos?|to-dos?)(?![a-z])", re.IGNORECASE),
)

_ALL_RE = re.compile(
    r"一(?:个|条|件|项)(?:都|也)(?:不要|不能|别|不)(?:漏|落|少|放过)|全部|所有|全都|都列出来|都列一下|都给我|都拿出来|都显示|统统|通通|一股脑|都有哪些|都有什么|都有啥|"
    r"(?<![a-z])all(?![a-z])|everything|"
    # "the rest", "rest of them"; not "the rest of the week"
    r"(?<![a-z])(?:the\s+rest|rest\s+of\s+(?:them|those|these))(?![a-z])"
    r"(?!\s+of\s+(?!them|those|these|my\s+tasks|the\s+(?:tasks|list)))",
    re.IGNORECASE,
)


def _normalise(text: str) -> str:
    # NFKC folds fullwidth digits/letters/spaces to ASCII without changing CJK characters.
    return unicodedata.normalize("NFKC", text)


def parse_cn_number(token: str) -> int | None:
    """Parses digits or a Chinese numeral up to 九十九 (俩=2, 仨=3); ranges give their upper bound.

    Returns None for anything that is not a number ("零" alone is 0).
    """
    token = token.strip()
    if not token:
        return None
    if token.isascii() and token.isdigit():
        return int(token)
    if token == "俩":
        return 2
    if token == "仨":
        return 3
    if any(ch not in CN_DIGITS and ch != "十" for ch in token):
        return None
    if "十" in token:
        if token.count("十") > 1:
            return None
        tens_s, _, ones_s = token.partition("十")
        if len(tens_s) > 1 or len(ones_s) > 1:
            return None
        tens = CN_DIGITS[tens_s] if tens_s else 1
        ones = CN_DIGITS[ones_s] if ones_s else 0
        if tens_s == "两" or (tens_s and tens == 0):
            return None if tens == 0 else tens * 10 + ones
        return tens * 10 + ones
    if len(token) == 1:
        return CN_DIGITS[token]
    if len(token) == 2:
        # "两三" / "三五" / "一两": an approximate range; lock its upper bound.
        a, b = CN_DIGITS[token[0]], CN_DIGITS[token[1]]
        if 0 < a < b:
            return b
    return None


def _parse_token(token: str) -> int | None:
    return EN_NUMBERS.get(token.lower()) or parse_cn_number(token)


def _blocked(text: str, start: int) -> bool:
    before = text[max(0, start - 2) : start]
    return any(before.endswith(b) for b in _BLOCK_BEFORE) or bool(
        _EN_BLOCK_BEFORE.search(text[max(0, start - 12) : start])
    )


def _first_match(text: str, patterns: tuple[re.Pattern[str], ...], *, weak: bool) -> tuple[int, int, int, str] | None:
    """Earliest (start, end, count, phrase) over all patterns; ties go to the longer match."""
    best: tuple[int, int, int, int, int, str] | None = None
    for pat in patterns:
        for m in pat.finditer(text):
            tok = m.group("n")
            if weak and _blocked(text, m.start()):
                continue
            if _NEGATED_TOTAL_AFTER.match(text, m.end()):
                continue
            n = 1 if tok is None else _parse_token(tok)
            if n is None or n <= 0:
                continue
            # A said number beats the implicit one of "来个"/"列个" ("列个前五" → 5).
            implicit = 1 if tok is None else 0
            key = (implicit, m.start(), -(m.end() - m.start()), m.end(), n, m.group(0))
            if best is None or key[:3] < best[:3]:
                best = key
    if best is None:
        return None
    return best[1], best[3], best[4], best[5]


def extract_count(text: str) -> CountLock:
    """Reads the explicit count (or "all") the user asked for; see the module docstring for the rules."""
    norm = _normalise(text or "")
    hit = _first_match(norm, _STRONG_PATTERNS, weak=False) or _first_match(norm, _WEAK_PATTERNS, weak=True)
    if hit is not None:
        return CountLock(explicit=hit[2], wants_all=False, phrase=hit[3], span=(hit[0], hit[1]))
    m = _ALL_RE.search(norm)
    if m is not None:
        return CountLock(explicit=None, wants_all=True, phrase=m.group(0), span=m.span())
    return CountLock(explicit=None, wants_all=False)
