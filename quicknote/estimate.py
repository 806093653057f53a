"""How long a task takes, said in a quick note: "写周报，大概一个小时", "半小时能搞定", "about 2h".

An estimate is neither a deadline nor part of the title: the offline rules take it out of the title
and keep it verbatim in ``NoteDraft.estimate_text``; the note keeps its minutes
(``core.estimates.minutes_of``) and the confirmation says it ("预计1小时"), or that an amount-less
one ("几个小时") was not saved — never dropped silently.

An amount with a relative-time word after it is a time, not an estimate ("一个小时后", "3天内",
"in 2 hours"), and stays for the time grammar.
"""

from __future__ import annotations

import re

__all__ = ["ESTIMATE_HEDGES_EN", "ESTIMATE_HEDGES_ZH", "ESTIMATE_TAKES_EN", "extract_estimate"]

# Words that say "about / it takes" before an amount.
ESTIMATE_HEDGES_ZH: tuple[str, ...] = (
    "大概要",
    "大概",
    "大约要",
    "大约",
    "约莫",
    "约",
    "差不多要",
    "差不多",
    "估计要",
    "估计",
    "预计要",
    "预计",
    "预估",
    "大致",
    "需要",
    "要花",
    "得花",
    "用时",
    "耗时",
)
# English: "about 2h", "should take 30 minutes", "it'll take about an hour".
ESTIMATE_TAKES_EN: tuple[str, ...] = (
    "it takes",
    "it'll take",
    "it will take",
    "takes",
    "should take",
    "will take",
    "might take",
    "needs",
)
ESTIMATE_HEDGES_EN: tuple[str, ...] = (
    "about",
    "around",
    "roughly",
    "approximately",
    "approx.",
    "approx",
    "~",
    "maybe",
    "probably",
)
# What may follow an amount and still make it an estimate ("左右", "能搞定", "就够了").
_TAILS_ZH = (
    r"(?:左右|上下|的样子|就够了?|就行|足够|(?:就)?(?:能|可以)?(?:搞定|做完|完成|弄完|干完|解决|写完|弄好|做好))"
)
_DONE_ZH = r"(?:就)?(?:能|可以)?(?:搞定|做完|完成|弄完|干完|解决|写完|弄好|做好)"

_NUM_ZH = r"(?:\d+(?:\.\d+)?|[一二两三四五六七八九十几]{1,3})"
# An amount of working time. Days count only after a hedge ("大概三天"), minutes and hours always.
_CLOCK_AMOUNT_ZH = rf"(?:{_NUM_ZH}个半(?:小时|钟头)|{_NUM_ZH}(?:个)?(?:小时|钟头)|半(?:个)?(?:小时|钟头)|{_NUM_ZH}分钟)"
_DAY_AMOUNT_ZH = rf"(?:{_NUM_ZH}(?:个)?(?:半)?(?:工作日|天))"
# A relative time begins with the amount: "一个小时后", "3天内", "半小时以后".
_NOT_TIME_ZH = r"(?!\s*(?:之后|以后|后|之内|以内|内|之前|以前|前|以来))"
_SEP_ZH = r"[，,；;。、\s]"
# "半小时能做完的活" describes a thing, it says no estimate ("找个半小时能做完的活").
_NOT_MODIFIER_ZH = rf"(?!{_TAILS_ZH}?的)"

_HEDGE_ZH = "|".join(re.escape(h) for h in sorted(ESTIMATE_HEDGES_ZH, key=len, reverse=True))
_HEDGE_EN = "|".join(re.escape(h) for h in sorted(ESTIMATE_HEDGES_EN, key=len, reverse=True))
_TAKES_EN = "|".join(re.escape(h) for h in sorted(ESTIMATE_TAKES_EN, key=len, reverse=True))
_NUM_EN = r"(?:\d+(?:\.\d+)?|an?|one|two|three|four|five|six|ten|fifteen|twenty|thirty|forty-five|half an?)"
_UNIT_EN = r"(?:h|hr|hrs|hours?|min|mins|minutes?)"
_AMOUNT_EN = rf"(?:{_NUM_EN}\s*{_UNIT_EN}(?:\s+and\s+a\s+half)?|an?\s+hour\s+and\s+a\s+half)"

# Estimate phrases, the amount in group "amount"; the first that matches wins.
_ESTIMATE_RES: tuple[re.Pattern[str], ...] = (
    # "大概一个小时", "预计半小时左右", "差不多三天"
    re.compile(
        rf"(?:{_HEDGE_ZH})\s*(?:用|花)?\s*(?P<amount>{_CLOCK_AMOUNT_ZH}|{_DAY_AMOUNT_ZH}){_NOT_TIME_ZH}"
        rf"{_NOT_MODIFIER_ZH}{_TAILS_ZH}?"
    ),
    # "半小时能搞定", "两个小时做完", "40分钟左右"
    re.compile(rf"(?P<amount>{_CLOCK_AMOUNT_ZH}){_NOT_TIME_ZH}{_NOT_MODIFIER_ZH}(?:{_DONE_ZH}|左右|上下)"),
    # a clause that is only an amount: "拉伸，15分钟", "15分钟，拉伸"
    re.compile(rf"(?:^|(?<={_SEP_ZH}))(?P<amount>{_CLOCK_AMOUNT_ZH})(?={_SEP_ZH}|$)"),
    # "about 2h", "should take 30 minutes", "for about an hour"
    re.compile(
        rf"(?<![A-Za-z])(?:for\s+)?(?:(?:{_TAKES_EN})\s+(?:(?:{_HEDGE_EN})\s*)?|(?:{_HEDGE_EN})\s*)"
        rf"(?P<amount>{_AMOUNT_EN})(?![A-Za-z])(?!\s+(?:ago|later|from now))",
        re.IGNORECASE,
    ),
    # a clause that is only an amount: "stretch, 15 min"
    re.compile(rf"(?:^|(?<=[,;]\s)|(?<=[,;]))\s*(?P<amount>\d+\s*{_UNIT_EN})(?=\s*(?:[,;.]|$))", re.IGNORECASE),
)


def extract_estimate(text: str) -> tuple[str | None, str]:
    """The estimate said in ``text`` (its amount, verbatim) and ``text`` with the whole phrase
    replaced by a separator; (None, text) when it says none."""
    for pattern in _ESTIMATE_RES:
        m = pattern.search(text)
        if m:
            return m.group("amount"), text[: m.start()] + "，" + text[m.end() :]
    return None, text
