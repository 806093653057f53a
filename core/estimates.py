"""How long a task takes, in minutes: read from the amount a person said ("一个半小时", "about 2h") and
said back ("1小时30分", "1 h 30 min").

A day of work is :data:`WORKDAY_MINUTES` (8 hours): "大概三天" is three working days, not 72 hours.
"""

from __future__ import annotations

import re

from core.locale import Locale

__all__ = ["DEFAULT_MINUTES", "ESTIMATE_MAX", "WORKDAY_MINUTES", "minutes_of", "text_of"]

WORKDAY_MINUTES = 8 * 60
ESTIMATE_MAX = 30 * WORKDAY_MINUTES  # a month of working days: beyond that it is a project, not a task
# What a task without an estimate is taken to need when time is planned, by its group: the easy group
# (3 简单不重要) a quarter hour, every other an hour. Said wherever it is used.
DEFAULT_MINUTES: dict[int, int] = {1: 60, 2: 60, 3: 15, 4: 60}

_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10,
    "fifteen": 15, "twenty": 20, "thirty": 30, "forty-five": 45,
}  # fmt: skip
_UNIT_MINUTES = {
    "小时": 60, "钟头": 60, "分钟": 1, "刻钟": 15, "天": WORKDAY_MINUTES, "工作日": WORKDAY_MINUTES,
    "h": 60, "hr": 60, "hrs": 60, "hour": 60, "hours": 60, "min": 1, "mins": 1, "minute": 1, "minutes": 1,
    "day": WORKDAY_MINUTES, "days": WORKDAY_MINUTES, "working day": WORKDAY_MINUTES, "working days": WORKDAY_MINUTES,
}  # fmt: skip
_AMOUNT = re.compile(
    r"^(?P<num>[\d.]+|[一二两三四五六七八九十几]{1,3}|an?|one|two|three|four|five|six|ten|fifteen|twenty|thirty"
    r"|forty-five|half an?|半)?\s*(?:个)?(?P<half>半)?\s*(?:个)?\s*"
    r"(?P<unit>小时|钟头|分钟|刻钟|工作日|天|working days?|days?|hours?|hrs?|h|minutes?|mins?|min)"
    r"(?P<and_half>\s+and\s+a\s+half|(?<=[时头天日])半)?$",  # "3 hours and a half", "一天半", "两小时半"
    re.IGNORECASE,
)
# "1小时30分", "两个小时十五分钟": hours and minutes said together (as text_of says them back).
_HOURS_AND_MINUTES = re.compile(r"^(?P<hours>.+?(?:小时|钟头))(?P<minutes>[\d零一二两三四五六七八九十]{1,3})分(?:钟)?$")


def _number(text: str | None) -> float | None:
    if text is None:
        return None  # "小时" alone says no amount
    word = text.lower()
    if word in ("半", "half a", "half an"):
        return 0.5
    if word in _EN_NUMBERS:
        return float(_EN_NUMBERS[word])
    if word == "几":
        return None  # "几个小时": no number said
    try:
        return float(word)
    except ValueError:
        pass
    import cn2an  # slow to load: only when a Chinese numeral is read (the CLI starts without it)

    try:
        return float(cn2an.cn2an(word.replace("两", "二"), "smart"))
    except (ValueError, KeyError):
        return None


def minutes_of(amount: str) -> int | None:
    """The minutes an amount says ("一个半小时" → 90, "about 2h" → 120); None for one without a number
    ("几个小时") or past :data:`ESTIMATE_MAX`."""
    text = amount.strip()
    if re.fullmatch(r"an?\s+hour\s+and\s+a\s+half", text, re.IGNORECASE):
        return 90
    both = _HOURS_AND_MINUTES.match(text)
    if both is not None:
        hours, minutes = minutes_of(both["hours"]), minutes_of(f"{both['minutes']}分钟")
        total = hours + minutes if hours is not None and minutes is not None and minutes < 60 else None
        return total if total is not None and total <= ESTIMATE_MAX else None
    m = _AMOUNT.match(text)
    if m is None:
        return None
    number = _number(m["num"])
    if number is None:
        return None
    if m["half"] or m["and_half"]:
        number += 0.5
    minutes = round(number * _UNIT_MINUTES[m["unit"].lower()])
    return minutes if 1 <= minutes <= ESTIMATE_MAX else None


def text_of(minutes: int, locale: Locale = "zh") -> str:
    """Minutes as people say them: 90 → "1小时30分" / "1 h 30 min"; 45 → "45分钟" / "45 min"; whole or
    half working days as days (1440 → "3天" / "3 working days")."""
    if minutes >= WORKDAY_MINUTES and minutes % (WORKDAY_MINUTES // 2) == 0:  # said in working days
        days = f"{minutes / WORKDAY_MINUTES:g}"
        return f"{days} working day{'s' if days != '1' else ''}" if locale == "en" else f"{days}天"
    hours, rest = divmod(minutes, 60)
    if locale == "en":
        return " ".join(p for p in (f"{hours} h" if hours else "", f"{rest} min" if rest else "") if p)
    if not hours:
        return f"{rest}分钟"
    return f"{hours}小时" + (f"{rest}分" if rest else "")
