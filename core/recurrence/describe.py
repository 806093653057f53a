"""A rule in words, in the user's language: "每周一 09:00", "every other Friday at 17:00".

Built from the rule's parts by small tables; a combination the tables don't cover falls back to a
faithful generic reading ("按规则 FREQ=…") rather than a wrong one."""

from __future__ import annotations

from datetime import time

from core.locale import Locale
from core.recurrence.rule import Recurrence

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


def _zh_every(unit: str, interval: int) -> str:
    if interval == 1:
        return "每" + unit
    return ("每两" if interval == 2 else f"每{interval}") + ("个月" if unit == "月" else unit)


def _zh_core(p: dict[str, str]) -> str:
    freq, interval = p["FREQ"], int(p.get("INTERVAL", "1"))
    if "X-DAYS" in p:
        return _ZH_X_DAYS[p["X-DAYS"]]
    if "X-TERM" in p:
        from core.recurrence.expand import _TERMS

        return f"每年{_TERMS[p['X-TERM']]}"
    if p.get("RSCALE") == "CHINESE":
        days = "、".join(
            "最后一天" if d == "-1" else _LUNAR_DAYS[int(d) - 1] for d in p.get("BYMONTHDAY", "1").split(",")
        )
        if freq == "YEARLY":
            month = p.get("BYMONTH", "1")
            if month == "12" and p.get("BYMONTHDAY") == "-1":
                return "每年除夕"
            return f"每年农历{'正' if month == '1' else _ZH_NUM[int(month)] if int(month) <= 10 else '十' + _ZH_NUM[int(month) - 10]}月{days}"
        return f"每月农历{days}"
    every = _zh_every(_ZH_UNITS[freq], interval)
    if "BYDAY" in p:
        codes = p["BYDAY"].split(",")
        if all(c in _ZH_DAYS for c in codes):
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
        if monthday == "-1":
            if freq == "YEARLY" and p.get("BYMONTH") == "3,6,9,12":
                return "每季度末"
            return f"{every}最后一天"
        if freq == "YEARLY" and "BYMONTH" in p and "," not in p["BYMONTH"]:
            return f"每年{p['BYMONTH']}月{monthday}日"
        return f"{every}{'、'.join(monthday.split(','))}号"
    if set(p) <= {"FREQ", "INTERVAL", "COUNT", "UNTIL", "X-FROM", "WKST"}:
        return every
    return "按规则 " + ";".join(f"{k}={v}" for k, v in p.items())


def _en_core(p: dict[str, str]) -> str:
    freq, interval = p["FREQ"], int(p.get("INTERVAL", "1"))
    unit = _EN_UNITS[freq]
    if "X-DAYS" in p:
        return _EN_X_DAYS[p["X-DAYS"]]
    if "X-TERM" in p or p.get("RSCALE") == "CHINESE":
        return _zh_core(p) + " (Chinese calendar)"
    every = (
        f"every {unit}" if interval == 1 else ("every other " + unit if interval == 2 else f"every {interval} {unit}s")
    )
    codes = p.get("BYDAY", "").split(",") if "BYDAY" in p else []
    if codes and all(c in _EN_DAYS for c in codes):
        names = " and ".join(_EN_DAYS[c] for c in codes)
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
    if freq == "YEARLY" and monthday == "-1" and p.get("BYMONTH") == "3,6,9,12":
        return "the last day of every quarter"
    if freq == "YEARLY" and monthday and "BYMONTH" in p and "," not in p["BYMONTH"] + monthday:
        months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return f"every year on {months[int(p['BYMONTH']) - 1]} {monthday}"
    if monthday == "-1":
        return f"the last day of {every}"
    if monthday and "," not in monthday and freq == "MONTHLY":
        return f"{every} on day {monthday}"
    if set(p) <= {"FREQ", "INTERVAL", "COUNT", "UNTIL", "X-FROM", "WKST"}:
        return every
    return "by the rule " + ";".join(f"{k}={v}" for k, v in p.items())


def describe(rec: Recurrence, locale: Locale = "zh") -> str:
    """The rule and its time of day; a day-only deadline (23:59:59) shows no clock."""
    p = rec.parts()
    words = _zh_core(p) if locale == "zh" else _en_core(p)
    clock = rec.start.time()
    if clock != END_OF_DAY:
        words += f" {clock:%H:%M}" if locale == "zh" else f" at {clock:%H:%M}"
    if "COUNT" in p:
        words += f"，共{p['COUNT']}次" if locale == "zh" else f", {p['COUNT']} times"
    if "UNTIL" in p:
        u = p["UNTIL"]
        words += f"，到{int(u[4:6])}月{int(u[6:8])}日" if locale == "zh" else f", until {u[:4]}-{u[4:6]}-{u[6:8]}"
    if p.get("X-FROM") == "COMPLETION":
        words += "（做完后算）" if locale == "zh" else " (counted from completion)"
    return words
