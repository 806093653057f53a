"""Tokens → one time expression: [prefix] point [sep point | 至今] [suffix], or a standalone span."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta
from typing import NamedTuple

from .absorb import YEAR_MIN, absorb
from .caltools import day_end, day_start
from .context import Ctx, Span
from .english import word_number
from .numerals import to_int
from .patterns import Token, glued
from .point import Point, resolve_date, resolve_point
from .relative import (
    VAGUE_COUNTS,
    adjacent_span,
    future_span,
    leading_span,
    left_span,
    offset_span,
    pass_span,
    past_span,
    quantity,
    recent_span,
    soon_span,
    this_span,
    within_span,
)

POINT_KINDS = frozenset(
    {"year", "yrel", "mrel", "mabs", "md", "ym", "ymd", "mdn", "dabs", "dayw", "daypod", "nth_day",
     "en_day", "reloff", "week", "en_week", "wday", "en_wd", "en_weekend", "quarter", "holiday", "edge",
     "en_edge", "season", "spast", "pod", "en_pod", "clock", "hm", "en_clock", "numr", "en_date", "workday", "lunar_ny",
     "nth_week", "festival", "term", "period", "lunar_md", "wd_next", "post_hol", "dmy", "en_ord",
     "nth_wday", "nth_month", "edge_months"}
)  # fmt: skip
_CALENDAR_KINDS = frozenset({"festival", "term", "period", "lunar_md", "wd_next", "post_hol", "holiday", "lunar_ny",
                             "workday"})  # fmt: skip
_PREFIX = frozenset({"every", "fromw", "untilw", "en_before", "en_after", "en_at", "en_between"})
_UNTIL_SEPS = frozenset({"到", "直到", "一直到"})
_DATE_FIELDS = ("year", "year_off", "month", "month_off", "day", "day_off", "day_span", "week_off", "weekday",
                "weekend", "edge", "quarter", "quarter_off", "holiday", "year_span", "workdays", "lunar_md", "period",
                "wd_step", "post_holiday", "pre_holiday")  # fmt: skip
_EN_UNITS = {
    "day": "day",
    "week": "week",
    "month": "month",
    "year": "year",
    "hour": "hour",
    "minute": "minute",
}


class Expr:
    """A recognised expression: its window and where it sits in the text."""

    __slots__ = ("end", "note", "overdue", "span", "start")

    def __init__(self, span: Span, start: int, end: int, overdue: bool = False, note: str | None = None) -> None:
        self.span, self.start, self.end, self.overdue, self.note = span, start, end, overdue, note


def _joins(t: Token, text: str) -> bool:
    """at / on, and from / between (a range inside a day: "tomorrow from 9am to 5pm")."""
    word = text[t.start : t.end].lower()
    return t.kind == "en_at" or (t.kind in ("en_after", "en_between") and word in ("from", "between"))


def _parse_point(toks: list[Token], j: int, text: str, ctx: Ctx) -> tuple[Point, int] | None:
    p = Point()
    k = j
    while k < len(toks):
        t, nxt = toks[k], k + 1
        if _joins(t, text) and k > j and k + 1 < len(toks) and glued(text, toks[k - 1].end, t.start):
            # "tomorrow at 8pm", "Friday on Dec 5", "tomorrow from 9am (to 5pm)": the preposition joins
            # two parts of one point.
            t, nxt = toks[k + 1], k + 2
            if not glued(text, toks[k].end, t.start):
                break
        elif k > j and not glued(text, toks[k - 1].end, t.start):
            break
        if t.kind not in POINT_KINDS:
            break
        trial = replace(p)
        if not absorb(trial, t, text, ctx):
            break
        p = trial
        k = nxt
    if k == j or (p.empty and p.pending_num is None):
        return None
    return p, k


def _standalone(t: Token, ctx: Ctx) -> Span | None:
    k, g = t.kind, t.g
    if k == "sfut":
        q = quantity(t, "sf")
        return None if q is None else future_span(*q, ctx)
    if k == "spast":
        q = quantity(t, "sp")
        if q is None:
            return None
        kw = g("sp_kw")
        if kw == "过去":
            return past_span(*q, ctx)
        if kw == "最近":
            return recent_span(*q, ctx)
        if kw == "近":
            return past_span(*q, ctx)
        if kw in ("前", "头"):
            return leading_span(*q, ctx)
        if kw == "这":
            return this_span(*q, ctx)
        return None
    if k == "recent":
        return recent_span(7, "day", ctx)
    if k == "pass":
        q = quantity(t, "ps")
        return None if q is None else pass_span(*q, t.g("ps_n") in VAGUE_COUNTS, ctx)
    if k == "snext":
        return _counted(t, ctx)
    if k == "soon":
        return soon_span(ctx)
    if k == "within":
        q = quantity(t, "wi")
        return None if q is None else within_span(*q, ctx)
    if k == "reloff":
        q = quantity(t, "ro")
        return None if q is None else offset_span(*q, g("ro_dir") or "后", ctx)
    if k in ("en_span", "en_ago"):
        pre = "es" if k == "en_span" else "ea"
        n = word_number(g(f"{pre}_n") or "")
        unit = _EN_UNITS.get((g(f"{pre}_u") or "").lower())
        if n is None or unit is None or n <= 0:
            return None
        if k == "en_ago":
            return offset_span(n, unit, "前", ctx)
        kw = " ".join((g("es_kw") or "").lower().split())
        if kw == "in":
            return offset_span(n, unit, "后", ctx)
        if kw == "within":
            return within_span(n, unit, ctx)
        if kw.endswith(("past", "last")):
            return past_span(n, unit, ctx)
        return future_span(n, unit, ctx)
    return None


# 下/后/之后 count forward, 上 backward (relative.adjacent_span); 还剩/只剩 is the time left.
_COUNT_STEP = {"下": 1, "后": 1, "之后": 1, "上": -1}


def _counted(t: Token, ctx: Ctx) -> Span | None:
    """下三天 / 上两周 / 后1年 / 之后5分钟 / 下个小时 / 还剩3小时 (an snext token)."""
    if t.g("sn_left"):
        q = quantity(t, "sl")
        return None if q is None else left_span(*q, ctx)
    q = (1.0, "hour") if t.g("sn_one") else quantity(t, "sn")
    return None if q is None else adjacent_span(*q, _COUNT_STEP[t.g("sn_kw") or "下"], ctx)


def _inherit(a: Point, b: Point) -> None:
    if a.pending_num is not None:
        n = a.pending_num
        if b.has_clock:
            a.hour = n
            if a.pod is None and b.pod is not None:
                a.pod = b.pod
        elif b.day is not None and not a.has_day:
            a.day = n
            if not a.has_month:
                a.month, a.month_off = b.month, b.month_off
        elif b.has_month and not a.has_month:
            a.month = n
        elif b.year is not None and not a.has_year and n >= YEAR_MIN:  # "1995-1997年"
            a.year = n
        a.pending_num = None
    if not b.has_date:
        for f in _DATE_FIELDS:
            setattr(b, f, getattr(a, f))
        if b.pod is None and b.has_clock and a.pod is not None:
            b.pod = a.pod
        return
    if b.day is not None and not b.has_month and not b.has_year and a.has_month:
        b.month, b.month_off, b.year, b.year_off = a.month, a.month_off, a.year, a.year_off
    elif b.has_month and not b.has_year and a.has_year:
        b.year, b.year_off = a.year, a.year_off
    if b.weekday is not None and b.week_off is None and a.week_off is not None:
        b.week_off = a.week_off


def _range(a: Point, b: Point, ctx: Ctx) -> Span | None:
    said = _Said(b.has_date, b.pod is not None)  # what the end says itself, before it inherits the start's
    _inherit(a, b)
    if not a.has_date and not b.has_date and (a.has_clock or a.pod is not None):
        # "9:00-11:30" / "从早上8点到晚上10点" said at 10:00: a range still under way is today's, though
        # its start alone has passed (a past question: one that has begun)
        today = _range_on(replace(a, day_off=0), replace(b), said, ctx)
        if today is not None and _under_way(today, ctx):
            return today
    return _range_on(a, b, said, ctx)


def _under_way(s: Span, ctx: Ctx) -> bool:
    """Not over yet (a future question) / already begun (a past one)."""
    if s.start is None or s.end is None:
        return False
    return s.end >= ctx.now if ctx.future else s.start <= ctx.now


class _Said(NamedTuple):
    """What a range's end said itself (not inherited from its start)."""

    dated: bool
    pod: bool


# An end earlier than the start moves forward, by each rule in turn while it still is: an hour with no
# part of day or am/pm of its own ("3点到5点", "晚上11点到1点") by 12 hours; a clock or part of day
# with no date of its own ("晚上11点~凌晨2点", "10pm-2am") to the next day; a bare weekday ("周五到
# 周一") to the next week.
_END_ROLLS: tuple[tuple[Callable[[Point, _Said], bool], timedelta], ...] = (
    (lambda b, said: b.has_clock and not said.pod and b.ampm is None and (b.hour or 0) < 12, timedelta(hours=12)),
    (lambda b, said: (b.has_clock or b.pod is not None) and not said.dated, timedelta(days=1)),
    (lambda b, said: b.weekday is not None and b.week_off is None, timedelta(weeks=1)),
)


def _range_on(a: Point, b: Point, said: _Said, ctx: Ctx) -> Span | None:
    sa = resolve_point(a, ctx)
    if sa is None or sa.start is None:
        return None
    base = sa.start.date() if b.rel_to_prev else None
    if b.rel_to_prev:
        b.day_off = 1
    elif not b.has_date:  # "3点至8点": the end is on the start's day, never shifted on its own
        b.day_off, base = 0, sa.start.date()
    if b.day_off == 0 and not b.has_clock and b.pod is None and not b.day_span and sa.start <= ctx.now:
        return Span(sa.start, ctx.now, "span", sa.has_clock, sa.clock_at)  # 从上个月到今天
    sb = resolve_point(b, ctx, base)
    if sb is None or sb.start is None or sb.end is None:
        return None
    end = sb.clock_at + timedelta(seconds=59) if sb.clock_at is not None else sb.end
    for applies, step in _END_ROLLS:
        if end < sa.start and applies(b, said):
            end += step
    if end < sa.start:
        return None
    return Span(sa.start, end, "span", sa.has_clock or sb.has_clock, sa.clock_at)


def _before(s: Span, ctx: Ctx) -> Span:
    end = s.end
    if end is None:
        return s
    if s.granularity == "period" and s.start is not None:
        end = s.start - timedelta(seconds=1)  # 国庆假期前: before the break starts
    if s.clock_at is not None and s.granularity in ("hour", "minute", "part_of_day", "moment"):
        end = s.clock_at  # "五点前" ends at 17:00, not 17:59; "中午之前" at 12:00
    if ctx.future and end >= ctx.now:
        return Span(ctx.now, end, "span", s.has_clock, s.clock_at)
    return Span(None, end, "open", s.has_clock, s.clock_at)


def _within(s: Span, ctx: Ctx) -> Span:
    if s.end is None or s.start is None or s.end < ctx.now:
        return s
    return Span(max(ctx.now, s.start), s.end, "span", s.has_clock, s.clock_at)


def _after(s: Span, word: str, ctx: Ctx) -> Span:
    if s.start is None:
        return s
    if s.granularity == "period" and s.end is not None and word not in ("起", "开始", "从", "以来"):
        return Span(s.end + timedelta(seconds=1), None, "open")  # 国庆假期后: once the break is over
    if word == "以来" or (word in ("起", "开始", "从") and s.end is not None and s.end < ctx.now):
        return Span(s.start, ctx.now, "span", s.has_clock, s.clock_at)
    if s.granularity == "moment":  # 下班后: from then to the end of that day, due by its end
        return Span(s.start, day_end(s.start.date(), ctx.tz), "span")
    if s.has_clock:
        return Span(s.start, day_end(s.start.date(), ctx.tz), "span", True, s.clock_at)
    return Span(s.start, None, "open", s.has_clock, s.clock_at)


def parse_at(toks: list[Token], i: int, text: str, ctx: Ctx) -> Expr | None:
    n = len(toks)
    j = i
    mode: str | None = None
    while j < n and (toks[j].kind in _PREFIX or (toks[j].kind == "sep" and toks[j].g("sp") in _UNTIL_SEPS)):
        if j + 1 >= n or not glued(text, toks[j].end, toks[j + 1].start):
            return None
        kind = toks[j].kind
        if kind in ("every", "en_at", "en_between"):
            pass
        elif kind in ("fromw", "en_after"):
            mode = "from" if kind == "fromw" else "after"
        else:
            mode = "before"
        j += 1
    if j >= n:
        return None
    t = toks[j]
    if t.kind == "overdue":
        return Expr(Span(None, ctx.now, "open"), t.start, t.end, overdue=True)
    parsed = _parse_point(toks, j, text, ctx)
    if parsed is None:
        alone = _standalone(t, ctx)
        if alone is None:
            return None
        return Expr(alone, toks[i].start, t.end)
    a, k = parsed
    span: Span | None = None
    last = toks[k - 1].end
    if k < n and glued(text, last, toks[k].start):
        nxt = toks[k]
        if nxt.kind == "until_now":
            sa = resolve_point(a, ctx)
            if sa is not None and sa.start is not None and sa.start <= ctx.now:
                span = Span(sa.start, ctx.now, "span", sa.has_clock, sa.clock_at)
                last, k = nxt.end, k + 1
                mode = None if mode == "from" else mode
        elif nxt.kind == "sep" and k + 1 < n and glued(text, nxt.end, toks[k + 1].start):
            if toks[k + 1].kind == "until_now":
                sa = resolve_point(a, ctx)
                if sa is not None and sa.start is not None and sa.start <= ctx.now:
                    span = Span(sa.start, ctx.now, "span", sa.has_clock, sa.clock_at)
                    last, k = toks[k + 1].end, k + 2
                    mode = None if mode == "from" else mode
            else:
                parsed_b = _parse_point(toks, k + 1, text, ctx)
                if parsed_b is not None:
                    b, kb = parsed_b
                    ranged = _range(replace(a), b, ctx)
                    if ranged is not None:
                        span = ranged
                        mode = None if mode in ("from", "after") else mode
                        last, k = toks[kb - 1].end, kb
    if span is None:
        if a.pending_num is not None:
            return None
        span = resolve_point(a, ctx)
        if span is None:
            return None
        if a.edge == ("within", 0):
            span = _within(span, ctx)
    suffix = toks[k] if k < n and glued(text, last, toks[k].start) else None
    if suffix is not None and suffix.kind == "between":  # "周三和周五之间": the range already says it
        last, k = suffix.end, k + 1
        suffix = toks[k] if k < n and glued(text, last, toks[k].start) else None
    if a.weak_clock and span.granularity == "hour" and (suffix is None or suffix.kind not in ("before", "after")):
        return None  # "简单一点的": 一点 is "a little", not one o'clock
    if suffix is None and mode is None and a.lunar_dir is not None:
        mode = a.lunar_dir  # 年前 / 过完年: before / after the Spring Festival
    if suffix is not None and span.start is not None and span.end is not None:
        picked = _picked_day(a, span, suffix, toks, (i, j), text, ctx)
        if picked is not None:
            return picked
    if suffix is not None and suffix.kind in ("before", "win", "after", "rest"):
        last = suffix.end
        if suffix.kind == "before":
            span = _before(span, ctx)
        elif suffix.kind in ("win", "rest"):
            span = _within(span, ctx)
        elif span.granularity == "moment" and not a.has_date and ctx.future and span.start is not None:
            if span.start.date() > ctx.today:  # "下班后" said at 19:00: the rest of this evening
                span = Span(ctx.now, day_end(ctx.today, ctx.tz), "span")
            else:
                span = _after(span, suffix.g("af") or "", ctx)
        else:
            span = _after(span, suffix.g("af") or "", ctx)
    elif mode == "before":
        span = _before(span, ctx)
    elif mode in ("from", "after"):
        span = _after(span, "从" if mode == "from" else "after", ctx)
    return Expr(span, toks[i].start, last, note=_note(a, toks, j, text, ctx))


_DAYS_AFTER = re.compile(r"\s*(?P<n>\d{1,2}|[一两二三四五六七八九十])天(?!内|以内|之内)")


def _picked_day(
    a: Point, span: Span, suffix: Token, toks: list[Token], at: tuple[int, int], text: str, ctx: Ctx
) -> Expr | None:
    """One day picked relative to the point by what follows it (see _calendar_suffix), with its note."""
    picked = _calendar_suffix(a, span, suffix, text)
    if picked is None:
        return None
    day, end, workday = picked
    i, j = at
    note: str | None
    if workday:
        from .calnote import workday_note

        note = workday_note(text[toks[j].start : end], day, ctx.today)
    else:
        note = _note(a, toks, j, text, ctx)
    return Expr(Span(day_start(day, ctx.tz), day_end(day, ctx.tz), "day"), toks[i].start, end, note=note)


def _calendar_suffix(a: Point, span: Span, suffix: Token, text: str) -> tuple[date, int, bool] | None:
    """What follows a date and picks one day relative to it: (day, end of the phrase, is a workday pick).

    国庆节后第一个工作日 / 春节假期后第一天 → the first workday after the break X is in;
    本周最后一个工作日 / 下周第一个工作日 → the first/last workday inside X;
    中秋节前一天 / 春节前两天 / 国庆假期后一天 → that many days before X starts / after X ends
    (only after a festival or lunar date: "下周前两天" keeps its own reading).
    """
    assert span.start is not None and span.end is not None
    first, last = span.start.date(), span.end.date()
    edge = _edge_workday_word(suffix)
    if suffix.kind == "post_first" or edge is not None:
        from . import chinacal

        if edge is None:
            day: date | None = chinacal.step_workdays(chinacal.break_end(a.holiday, last), 1)
        else:
            day = chinacal.edge_workday(first, last, edge)
        return None if day is None else (day, suffix.end, True)
    if a.holiday is None and a.lunar_md is None:
        return None
    n, end = _day_count(suffix, text)
    if n is None:
        return None
    return (first - timedelta(days=n) if suffix.kind == "spast" else last + timedelta(days=n)), end, False


def _edge_workday_word(suffix: Token) -> bool | None:
    """第一个工作日 → False, 最后一个工作日 → True (latest); None if the token is neither."""
    if suffix.kind == "edge_wd":
        return bool(suffix.g("ew_last"))
    if (
        suffix.kind == "spast"
        and suffix.g("sp_kw") in ("最后", "末", "头")
        and quantity(suffix, "sp") == (1.0, "workday")
    ):
        return suffix.g("sp_kw") != "头"
    return None


def _day_count(suffix: Token, text: str) -> tuple[int | None, int]:
    """N of "前N天" (a spast token) or "后N天" (an after token followed by N天)."""
    if suffix.kind == "spast" and suffix.g("sp_kw") == "前":
        q = quantity(suffix, "sp")
        ok = q is not None and q[1] == "day" and q[0] == int(q[0])
        return (int(q[0]) if ok and q else None), suffix.end
    if suffix.kind == "after" and suffix.g("af") in ("后", "之后", "以后"):
        m = _DAYS_AFTER.match(text, suffix.end)
        if m is not None:
            return to_int(m.group("n")), m.end()
    return None, suffix.end


def _note(a: Point, toks: list[Token], j: int, text: str, ctx: Ctx) -> str | None:
    """The calendar rule behind a Chinese-calendar point, for the answer to show (calnote.py)."""
    if not (a.calendar or a.holiday is not None or (a.workdays and a.weekday is None)):
        return None
    from .calnote import note_for

    dated = resolve_date(a, ctx)
    if dated is None:
        return None
    k = next((m for m in range(j, len(toks)) if toks[m].kind in _CALENDAR_KINDS), j)
    return note_for(a, text[toks[k].start : toks[k].end], dated[0], dated[1], ctx.today)
