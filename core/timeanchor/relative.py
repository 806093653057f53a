"""Quantity phrases: "三天内", "未来48小时", "近30天", "20天后", "过两天", "前两周"; "一会儿"."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from .caltools import add_months, add_years, day_end, day_start, monday_of, month_last_day
from .context import Ctx, Span
from .numerals import to_int
from .patterns import Token

UNITS = {
    "天": "day",
    "日": "day",
    "工作日": "workday",
    "交易日": "tradeday",
    "周": "week",
    "星期": "week",
    "礼拜": "week",
    "月": "month",
    "年": "year",
    "小时": "hour",
    "钟头": "hour",
    "分钟": "minute",
    "刻钟": "qhour",
    "季度": "quarter",
}
_EXACT = {"hour": 3600.0, "minute": 60.0, "qhour": 900.0}


def quantity(tok: Token, p: str) -> tuple[float, str] | None:
    """(amount, unit) of a `_qty` match with prefix p, or None."""
    raw = tok.g(f"{p}_n")
    if raw is None:
        return None
    n: float | None
    if raw == "半":
        n = 0.5
    else:
        iv = to_int(raw)
        n = None if iv is None else float(iv)
    if n is None or n > 10000:
        return None
    if tok.g(f"{p}_h1") or tok.g(f"{p}_h2") or tok.g(f"{p}_h3"):
        n += 0.5
    if tok.g(f"{p}_mu") or tok.g(f"{p}_bm"):
        unit = "month"
    else:
        u = tok.g(f"{p}_u")
        if u is None or u not in UNITS:
            return None
        unit = UNITS[u]
    if unit == "quarter":
        return n * 3, "month"
    if unit == "qhour":
        return n * 15, "minute"
    if n <= 0:
        return None
    return n, unit


def _add_workdays(d: date, n: int, trading: bool = False) -> date:
    """Statutory workdays (调休 Saturdays count) or trading days (they don't), see chinacal."""
    from . import chinacal  # a 工作日/交易日 phrase matched: the holiday library loads now

    return chinacal.step_workdays(d, n, trading)


def shift_date(d: date, n: float, unit: str) -> date:
    """d moved by n units (negative = back); halves of months/years become days/months."""
    whole = int(n)
    frac = n - whole
    if unit == "day":
        return d + timedelta(days=round(n))
    if unit in ("workday", "tradeday"):
        return _add_workdays(d, round(n), unit == "tradeday")
    if unit == "week":
        return d + timedelta(days=round(7 * n))
    if unit == "month":
        return add_months(d, whole) + timedelta(days=round(30 * frac))
    if unit == "year":
        return add_months(add_years(d, whole), round(12 * frac))
    if unit in _EXACT:
        return d
    return d


def shift_exact(now: datetime, n: float, unit: str) -> datetime:
    if unit in _EXACT:
        return now + timedelta(seconds=n * _EXACT[unit])
    if unit in ("day", "week"):
        return now + timedelta(days=n * (7 if unit == "week" else 1))
    d = shift_date(now.date(), n, unit)
    return datetime.combine(d, now.timetz())


def future_span(n: float, unit: str, ctx: Ctx) -> Span:
    """未来N…: exact for days/weeks/hours, calendar days for months/years."""
    now = ctx.now
    if unit in ("day", "week") or unit in _EXACT:
        return Span(now, shift_exact(now, n, unit), "span")
    end = shift_date(ctx.today, n, unit) - timedelta(days=1)
    return Span(now, day_end(max(end, ctx.today), ctx.tz), "span")


def past_span(n: float, unit: str, ctx: Ctx) -> Span:
    """过去N… / 近N…: [now - span, now]; months/years start at midnight."""
    now = ctx.now
    if unit in ("day", "week") or unit in _EXACT:
        return Span(shift_exact(now, -n, unit), now, "span")
    return Span(day_start(shift_date(ctx.today, -n, unit), ctx.tz), now, "span")


def within_span(n: float, unit: str, ctx: Ctx) -> Span:
    """N天内: [now, end of the day N days ahead]; hours/minutes exact."""
    if unit in _EXACT:
        return Span(ctx.now, shift_exact(ctx.now, n, unit), "span")
    return Span(ctx.now, day_end(shift_date(ctx.today, n, unit), ctx.tz), "span")


def leading_span(n: float, unit: str, ctx: Ctx) -> Span:
    """前两天 / 前两周 / 前三个月 on their own: from the start of that many units ago until now."""
    today, tz = ctx.today, ctx.tz
    if unit in _EXACT:
        return Span(shift_exact(ctx.now, -n, unit), ctx.now, "span")
    if unit == "week":
        start = monday_of(today) - timedelta(weeks=round(n))
    elif unit == "month":
        start = add_months(today, -round(n)).replace(day=1)
    elif unit == "year":
        start = date(today.year - round(n), 1, 1)
    else:
        start = shift_date(today, -n, unit)
    return Span(day_start(start, tz), ctx.now, "span")


def this_span(n: float, unit: str, ctx: Ctx) -> Span | None:
    """这两天 / 这几天 / 这一周 / 这个月."""
    today, tz = ctx.today, ctx.tz
    if unit == "day":
        if not ctx.future:  # 这两天完成的: yesterday and today, up to now
            return Span(day_start(today - timedelta(days=max(0, round(n) - 1)), tz), ctx.now, "span")
        return Span(day_start(today, tz), day_end(today + timedelta(days=max(0, round(n) - 1)), tz), "span")
    if n == 1 and unit == "week":
        mon = monday_of(today)
        return Span(day_start(mon, tz), day_end(mon + timedelta(days=6), tz), "week")
    if n == 1 and unit == "month":
        first = today.replace(day=1)
        return Span(
            day_start(first, tz),
            day_end(today.replace(day=month_last_day(today.year, today.month)), tz),
            "month",
        )
    if n == 1 and unit == "year":
        return Span(day_start(date(today.year, 1, 1), tz), day_end(date(today.year, 12, 31), tz), "year")
    if unit in _EXACT:
        return None
    return within_span(n, unit, ctx)


def _unit_window(d: date, unit: str, ctx: Ctx) -> Span:
    tz = ctx.tz
    if unit == "week":
        mon = monday_of(d)
        return Span(day_start(mon, tz), day_end(mon + timedelta(days=6), tz), "week")
    if unit == "month":
        return Span(
            day_start(d.replace(day=1), tz),
            day_end(d.replace(day=month_last_day(d.year, d.month)), tz),
            "month",
        )
    if unit == "year":
        return Span(day_start(date(d.year, 1, 1), tz), day_end(date(d.year, 12, 31), tz), "year")
    return Span(day_start(d, tz), day_end(d, tz), "day")


def offset_span(n: float, unit: str, direction: str, ctx: Ctx) -> Span | None:
    """20天后 / 3天前 / 两周后 / 3年后 / 半小时后 / 20天以后 / 两天之前 / 三个月以来."""
    sign = -1 if direction in ("前", "以前", "之前", "以来") else 1
    now = ctx.now
    if unit in _EXACT:
        t = shift_exact(now, sign * n, unit)
        if direction in ("后", "前"):
            length = timedelta(hours=1) if unit == "hour" else timedelta(minutes=1)
            return Span(t, t + length, "hour" if unit == "hour" else "minute", True, t)
        if direction in ("以后", "之后"):
            return Span(t, None, "open")
        if direction == "以来":
            return Span(t, now, "span")
        return Span(None, t, "open")
    target = shift_date(ctx.today, sign * n, unit)
    if unit == "year" and n != int(n):
        unit = "month"
    if unit in ("workday", "tradeday"):
        unit = "day"
    if direction in ("后", "前"):  # that day, whatever the unit ("两周后" = today + 14, "三个月后" = that date)
        return _unit_window(target, "day", ctx)
    window = _unit_window(target, unit, ctx)
    if direction in ("以后", "之后"):
        if unit == "week" and direction == "之后":
            return window
        start = day_start(target, ctx.tz) if n != int(n) or unit == "day" else window.start
        return Span(start, None, "open")
    if direction == "以来":
        return Span(window.start, now, "span")
    return Span(None, window.end, "open")


# Spoken counts that mean "a couple / a few", not an exact number: 过两天, 过几天, 过俩月.
VAGUE_COUNTS = frozenset({"两", "几", "俩"})
SOON_MIN = timedelta(hours=2)


def pass_span(n: float, unit: str, vague: bool, ctx: Ctx) -> Span | None:
    """过/再过 + a quantity: when something will be done, so it must give a deadline.

    A vague count ("过两天", "过几天", "过两周") is "in a couple of …": [now, end of the day that many
    units ahead], like N天内 (几 = 3). An exact count ("再过三天", "过3天", "再过半小时") is the point
    that far ahead, like "三天后" / "半小时后" (that day; that minute).
    """
    if vague and unit not in _EXACT:
        return within_span(n, unit, ctx)
    return offset_span(n, unit, "后", ctx)


def soon_span(ctx: Ctx) -> Span:
    """一会儿 / 待会儿 / 等一下 / 稍后 / 晚点 / 晚些时候: "later today".

    [now, end of today], but at least two hours, so a late-evening "一会儿" still reaches past
    midnight. No clock time is named, so a quick note's deadline is the window's end.
    """
    end = max(day_end(ctx.today, ctx.tz), ctx.now + SOON_MIN)
    return Span(ctx.now, end, "span")


def recent_span(n: float, unit: str, ctx: Ctx) -> Span:
    """最近N… / 近N…: backwards when prefer="past", else forwards to the end of that day."""
    if not ctx.future:
        return past_span(n, unit, ctx)
    if unit in _EXACT:
        return Span(ctx.now, shift_exact(ctx.now, n, unit), "span")
    return within_span(n, unit, ctx)


def _unit_start(d: date, unit: str) -> date:
    """The first day of the whole unit (day/week/month/year) that d is in."""
    if unit == "week":
        return monday_of(d)
    if unit == "month":
        return d.replace(day=1)
    if unit == "year":
        return date(d.year, 1, 1)
    return d


def adjacent_span(n: float, unit: str, step: int, ctx: Ctx) -> Span | None:
    """下N… (step 1) / 上N… (step -1): the N whole units right after / before the current one.

    下三天 = [tomorrow, today+3] (today is not in it, unlike 未来三天 / 三天内); 下两周 = next Monday ..
    the Sunday two weeks on; 上三个月 = the three calendar months before this one. Hours and minutes
    have no whole unit in a task question: 下个小时 = [now, now+1h], 上个小时 = [now-1h, now].
    """
    if unit in _EXACT:
        t = shift_exact(ctx.now, step * n, unit)
        return Span(min(t, ctx.now), max(t, ctx.now), "span")
    if n != int(n):
        return None  # 下一个半月: no whole units to count
    if unit in ("workday", "tradeday"):  # 下三个工作日: the next three workdays, today not counted
        a, b = shift_date(ctx.today, step, unit), shift_date(ctx.today, step * n, unit)
        return Span(day_start(min(a, b), ctx.tz), day_end(max(a, b), ctx.tz), "span")
    first = _unit_start(ctx.today, unit)
    if step > 0:
        start, stop = shift_date(first, 1, unit), shift_date(first, n + 1, unit)
    else:
        start, stop = shift_date(first, -n, unit), first
    return Span(day_start(start, ctx.tz), day_end(stop - timedelta(days=1), ctx.tz), "span")


def left_span(n: float, unit: str, ctx: Ctx) -> Span:
    """还剩 / 只剩 N…: the time left from now, like N天内 (hours and minutes exact)."""
    if unit in _EXACT:
        return Span(ctx.now, shift_exact(ctx.now, n, unit), "span")
    return within_span(n, unit, ctx)
