"""A rule in words, in the user's language: "每周一 09:00", "every other Friday at 17:00".

Built from the rule's parts by small tables; a combination the tables don't cover falls back to a
faithful generic reading ("按规则 FREQ=…") rather than a wrong one."""

from __future__ import annotations

from datetime import time

from core.locale import Locale
from core.recurrence.rule import Recurrence
from core.recurrence.terms import TERMS

__all__ = ["describe"]

_DAY_CODES = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_ZH_DAYS = dict(zip(_DAY_CODES, "一二三四五六日", strict=True))
_EN_DAYS = dict(
    zip(_DAY_CODES, ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"), strict=True)
)
_ZH_UNITS = {"DAILY": "天", "WEEKLY": "周", "MONTHLY": "月", "YEARLY": "年"}
_EN_UNITS = {"DAILY": "day", "WEEKLY": "week", "MONTHLY": "month", "YEARLY": "year"}
_ZH_X_DAYS = {"CN-WORKDAY": "每个工作日", "CN-RESTDAY": "每个休息日", "CN-AFTER-HOLIDAY": "每次节后第一个工作日"}
_EN_X_DAYS = {
    "CN-WORKDAY": "every workday (China's statutory calendar)",
    "CN-RESTDAY": "every day off (China's statutory calendar)",
    "CN-AFTER-HOLIDAY": "the first workday after each statutory holiday",
}
_ZH_NUM = "零一二三四五六七八九十"
_LUNAR_DAYS = (
    ["初一", "初二", "初三", "初四", "初五", "初六", "初七", "初八", "初九", "初十"]
    + [f"十{_ZH_NUM[i]}" for i in range(1, 10)]
    + ["二十"]
    + [f"廿{_ZH_NUM[i]}" for i in range(1, 10)]
    + ["三十"]
)
_CLAMPS = {"28,29;-1": 29, "28,29,30;-1": 30, "28,29,30,31;-1": 31}
END_OF_DAY = time(23, 59, 59)
_ZH_FESTIVALS = {"1;1": "春节", "1;15": "元宵节", "5;5": "端午节", "7;7": "七夕", "8;15": "中秋节", "9;9": "重阳节",
                 "12;8": "腊八节"}  # fmt: skip
_PLAIN = frozenset({"FREQ", "INTERVAL", "COUNT", "UNTIL", "X-FROM", "WKST"})
_WEEKDAYS = "MO,TU,WE,TH,FR"
_QUARTERS = {"3,6,9,12;-1": ("每季度末", "the last day of every quarter"),
             "1,4,7,10;1": ("每季度第一天", "the first day of every quarter")}  # fmt: skip
_EN_ORD = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last", -2: "second-last"}


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _nth_of_month(p: dict[str, str]) -> tuple[int, str] | None:
    """(n, day code) of a yearly "nth weekday of one month" rule (母亲节: BYMONTH=5;BYDAY=2SU)."""
    day, month = p.get("BYDAY", ""), p.get("BYMONTH", ",")
    if p["FREQ"] != "YEARLY" or "," in month or "," in day or day[-2:] not in _DAY_CODES:
        return None
    n = day[:-2]
    return (int(n), day[-2:]) if n.lstrip("-").isdigit() and int(n) in (1, 2, 3, 4, 5, -1) else None


def _unhandled(p: dict[str, str]) -> bool:
    """A combination the tables below would misread (by dropping a part): say the rule instead."""
    freq, keys = p["FREQ"], set(p) - _PLAIN - {"X-DAYS"}
    if "X-TERM" in p:
        return False  # rule.make allows no BY… parts with it
    if p.get("RSCALE") == "CHINESE":
        # The lunar tables say one month (yearly) or every month (monthly), and name the day: a
        # default taken from DTSTART, a month list or a monthly rule limited to months are not said.
        month = p.get("BYMONTH")
        yearly_ok = freq == "YEARLY" and month is not None and "," not in month
        return "BYMONTHDAY" not in p or not (yearly_ok or (freq == "MONTHLY" and month is None))
    if keys & {"BYYEARDAY", "BYWEEKNO"} or {"BYDAY", "BYMONTHDAY"} <= keys:
        return True
    if "BYSETPOS" in p:
        clamp = f"{p.get('BYMONTHDAY')};{p['BYSETPOS']}" in _CLAMPS
        last_weekday = freq == "MONTHLY" and p.get("BYDAY") == _WEEKDAYS and p["BYSETPOS"] in ("1", "-1")
        if not (clamp or last_weekday):
            return True
    if "BYMONTH" in p:
        quarter = f"{p['BYMONTH']};{p.get('BYMONTHDAY')}" in _QUARTERS
        one_day = "," not in p["BYMONTH"] and "," not in p.get("BYMONTHDAY", ",")
        nth_weekday = _nth_of_month(p) is not None
        if freq != "YEARLY" or not (quarter or one_day or nth_weekday) or ("BYDAY" in p and not nth_weekday):
            return True
    return "BYMONTHDAY" in p and any(int(d) < -2 for d in p["BYMONTHDAY"].split(","))


def _filtered(p: dict[str, str]) -> bool:
    """X-DAYS on top of another rule ("每周一，节假日除外"): that rule's words and the filter's."""
    plain_daily = p["FREQ"] == "DAILY" and not set(p) - _PLAIN - {"X-DAYS"} and p.get("INTERVAL", "1") == "1"
    return "X-DAYS" in p and not plain_daily


_ZH_FILTER = {
    "CN-WORKDAY": "（仅法定工作日）",
    "CN-RESTDAY": "（仅休息日）",
    "CN-AFTER-HOLIDAY": "（仅节后第一个工作日）",
}
_EN_FILTER = {
    "CN-WORKDAY": " (statutory workdays only)",
    "CN-RESTDAY": " (days off only)",
    "CN-AFTER-HOLIDAY": " (only the first workday after a holiday)",
}


def _zh_every(unit: str, interval: int) -> str:
    if interval == 1:
        return "每" + unit
    return ("每两" if interval == 2 else f"每{interval}") + ("个月" if unit == "月" else unit)


def _zh_core(p: dict[str, str]) -> str:
    freq, interval = p["FREQ"], int(p.get("INTERVAL", "1"))
    if _filtered(p):
        return _zh_core({k: v for k, v in p.items() if k != "X-DAYS"}) + _ZH_FILTER[p["X-DAYS"]]
    if _unhandled(p):
        return "按规则 " + ";".join(f"{k}={v}" for k, v in p.items())
    if "X-DAYS" in p:
        return _ZH_X_DAYS[p["X-DAYS"]]
    if "X-TERM" in p:
        return f"每年{TERMS[p['X-TERM']]}"
    if p.get("RSCALE") == "CHINESE":
        days = "、".join(
            "最后一天" if d == "-1" else _LUNAR_DAYS[int(d) - 1] for d in p.get("BYMONTHDAY", "1").split(",")
        )
        if freq == "YEARLY":
            month = p.get("BYMONTH", "1")
            if month == "12" and p.get("BYMONTHDAY") == "-1":
                return "每年除夕"
            said = f"农历{'正' if month == '1' else _ZH_NUM[int(month)] if int(month) <= 10 else '十' + _ZH_NUM[int(month) - 10]}月{days}"
            festival = _ZH_FESTIVALS.get(f"{month};{p.get('BYMONTHDAY', '1')}")
            return f"每年{festival}（{said}）" if festival else f"每年{said}"
        return f"每月农历{days}"
    every = _zh_every(_ZH_UNITS[freq], interval)
    if yearly_nth := _nth_of_month(p):
        n, code = yearly_nth
        return f"每年{p['BYMONTH']}月{'最后一个' if n == -1 else f'第{_ZH_NUM[n]}个'}周{_ZH_DAYS[code]}"
    if "BYDAY" in p:
        codes = p["BYDAY"].split(",")
        if p["BYDAY"] == _WEEKDAYS and "BYSETPOS" in p:
            return f"{every}{'第一个' if p['BYSETPOS'] == '1' else '最后一个'}工作日（周一到周五）"
        if all(c in _ZH_DAYS for c in codes):
            if p["BYDAY"] == _WEEKDAYS:
                return "每周一到周五" if interval == 1 and freq == "WEEKLY" else f"{every}的周一到周五"
            if codes == ["SA", "SU"]:
                return every + "末" if interval == 1 else every + "的周末"
            days = "".join(_ZH_DAYS[c] for c in codes)
            return f"每周{days}" if interval == 1 and freq == "WEEKLY" else f"{every}的周{days}"
        if len(codes) == 1 and freq == "MONTHLY" and codes[0][:-2].lstrip("-").isdigit():
            n, c = int(codes[0][:-2]), codes[0][-2:]
            nth = "最后一个" if n == -1 else f"第{_ZH_NUM[n]}个"
            return f"{every}{nth}周{_ZH_DAYS[c]}"
    monthday = p.get("BYMONTHDAY")
    if monthday is not None and freq in ("MONTHLY", "YEARLY"):
        clamp = _CLAMPS.get(f"{monthday};{p.get('BYSETPOS', '')}")
        if clamp is not None:
            return f"{every}{clamp}号（小月取最后一天）"
        quarter = _QUARTERS.get(f"{p.get('BYMONTH')};{monthday}")
        if freq == "YEARLY" and quarter is not None:
            return quarter[0]
        if monthday == "-1":
            return f"{every}最后一天"
        if monthday == "-2":
            return f"{every}倒数第二天"
        if freq == "YEARLY" and "BYMONTH" in p:
            return f"每年{p['BYMONTH']}月{monthday}日"
        if freq == "YEARLY":
            return "按规则 " + ";".join(f"{k}={v}" for k, v in p.items())  # "每年15号" would be no date
        return f"{every}{'、'.join(monthday.split(','))}号"
    if set(p) <= {"FREQ", "INTERVAL", "COUNT", "UNTIL", "X-FROM", "WKST"}:
        return every
    return "按规则 " + ";".join(f"{k}={v}" for k, v in p.items())


def _en_core(p: dict[str, str]) -> str:
    freq, interval = p["FREQ"], int(p.get("INTERVAL", "1"))
    unit = _EN_UNITS[freq]
    if _filtered(p):
        return _en_core({k: v for k, v in p.items() if k != "X-DAYS"}) + _EN_FILTER[p["X-DAYS"]]
    if _unhandled(p):
        return "by the rule " + ";".join(f"{k}={v}" for k, v in p.items())
    if "X-DAYS" in p:
        return _EN_X_DAYS[p["X-DAYS"]]
    if "X-TERM" in p or p.get("RSCALE") == "CHINESE":
        return _en_chinese(p)
    every = (
        f"every {unit}" if interval == 1 else ("every other " + unit if interval == 2 else f"every {interval} {unit}s")
    )
    if yearly_nth := _nth_of_month(p):
        months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                  "October", "November", "December"]  # fmt: skip
        n, code = yearly_nth
        return f"every year on the {_EN_ORD[n]} {_EN_DAYS[code]} of {months[int(p['BYMONTH']) - 1]}"
    codes = p.get("BYDAY", "").split(",") if "BYDAY" in p else []
    if p.get("BYDAY") == _WEEKDAYS and "BYSETPOS" in p:
        return f"the {'first' if p['BYSETPOS'] == '1' else 'last'} weekday (Monday to Friday) of {every}"
    if p.get("BYDAY") == _WEEKDAYS and freq == "WEEKLY":
        return "every weekday (Monday to Friday)" if interval == 1 else f"{every} on weekdays (Monday to Friday)"
    if codes and all(c in _EN_DAYS for c in codes):
        days = [_EN_DAYS[c] for c in codes]
        names = days[0] if len(days) == 1 else ", ".join(days[:-1]) + " and " + days[-1]
        if freq == "WEEKLY":
            return (
                f"every {names}"
                if interval == 1
                else f"{every} on {names}".replace(f"every other week on {names}", f"every other {names}")
            )
        return f"{every} on {names}"
    if len(codes) == 1 and freq == "MONTHLY" and codes[0][:-2].lstrip("-").isdigit() and codes[0][-2:] in _EN_DAYS:
        n = int(codes[0][:-2])
        nth = {1: "first", 2: "second", 3: "third", 4: "fourth", -1: "last"}.get(n, f"#{n}")
        return f"the {nth} {_EN_DAYS[codes[0][-2:]]} of {every}"
    monthday = p.get("BYMONTHDAY")
    clamp = _CLAMPS.get(f"{monthday};{p.get('BYSETPOS', '')}")
    if clamp is not None:
        return f"{every} on day {clamp} (the last day in shorter months)"
    quarter = _QUARTERS.get(f"{p.get('BYMONTH')};{monthday}")
    if freq == "YEARLY" and quarter is not None:
        return quarter[1]
    if freq == "YEARLY" and monthday and "BYMONTH" in p and "," not in p["BYMONTH"] + monthday:
        months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return f"every year on {months[int(p['BYMONTH']) - 1]} {monthday}"
    if monthday in ("-1", "-2"):
        return f"the {_EN_ORD[int(monthday)]} day of {every}"
    if monthday and freq == "MONTHLY":
        days = [_ordinal(int(d)) for d in monthday.split(",")]
        return f"{every} on the " + (days[0] if len(days) == 1 else ", ".join(days[:-1]) + " and " + days[-1])
    if set(p) <= {"FREQ", "INTERVAL", "COUNT", "UNTIL", "X-FROM", "WKST"}:
        return every
    return "by the rule " + ";".join(f"{k}={v}" for k, v in p.items())


_EN_TERMS = {"DONGZHI": "the winter solstice (Dongzhi)", "XIAZHI": "the summer solstice (Xiazhi)",
             "QINGMING": "Qingming", "LICHUN": "the start of spring (Lichun)"}  # fmt: skip
_EN_FESTIVALS = {"1;1": "Chinese New Year", "1;15": "the Lantern Festival", "5;5": "the Dragon Boat Festival",
                 "7;7": "Qixi", "8;15": "the Mid-Autumn Festival", "9;9": "the Double Ninth Festival",
                 "12;8": "Laba", "12;-1": "Chinese New Year's Eve"}  # fmt: skip


def _en_lunar_day(d: str) -> str:
    return "the last day" if d == "-1" else f"the {_ordinal(int(d))}"


def _en_chinese(p: dict[str, str]) -> str:
    """Lunar dates and solar terms in English words (the Chinese name only where English has none)."""
    if "X-TERM" in p:
        term = p["X-TERM"]
        return f"every year on {_EN_TERMS.get(term, term.capitalize() + ' (solar term)')}"
    days = p.get("BYMONTHDAY", "1").split(",")
    day_words = " and ".join(_en_lunar_day(d) for d in days)
    if p["FREQ"] == "MONTHLY":
        return f"{day_words} of every lunar month"
    month = p.get("BYMONTH", "1")
    festival = _EN_FESTIVALS.get(f"{month};{p.get('BYMONTHDAY', '1')}")
    if festival is not None:
        return f"every year on {festival}"
    return f"every year on {day_words} of the {_ordinal(int(month))} lunar month"


# A part of day said with the rule ("每周五下午") is stored as its last second (core.timeanchor's
# parts of day end at HH:59:59; a clock the user said never does): named, not shown as "17:59".
_PART_OF_DAY = {
    5: ("凌晨", "early morning"),
    7: ("清晨", "early morning"),
    9: ("早上", "morning"),
    11: ("上午", "morning"),
    13: ("中午", "midday"),
    14: ("午后", "early afternoon"),
    17: ("下午", "afternoon"),
    19: ("傍晚", "evening"),
}


def _clock_words(clock: time, locale: Locale) -> str:
    part = _PART_OF_DAY.get(clock.hour) if (clock.minute, clock.second) == (59, 59) else None
    if part is not None:
        return part[0] if locale == "zh" else f" in the {part[1]}"
    return f" {clock:%H:%M}" if locale == "zh" else f" at {clock:%H:%M}"


def describe(rec: Recurrence, locale: Locale = "zh") -> str:
    """The rule and its time of day; a day-only deadline (23:59:59) shows no clock."""
    p = rec.parts()
    words = _zh_core(p) if locale == "zh" else _en_core(p)
    clock = rec.start.time()
    if clock != END_OF_DAY:
        words += _clock_words(clock, locale)
    if "COUNT" in p:
        words += f"，共{p['COUNT']}次" if locale == "zh" else f", {p['COUNT']} times"
    if "UNTIL" in p:
        u = p["UNTIL"]
        year = f"{u[:4]}年" if int(u[:4]) != rec.start.year else ""  # "到3月31日" alone could be this year's
        words += f"，到{year}{int(u[4:6])}月{int(u[6:8])}日" if locale == "zh" else f", until {u[:4]}-{u[4:6]}-{u[6:8]}"
    if p.get("X-FROM") == "COMPLETION":
        words += "（做完后算）" if locale == "zh" else " (counted from completion)"
    return words
