"""Tokens → one time expression: [prefix] point [sep point | 至今] [suffix], or a standalone span."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from .absorb import absorb
from .caltools import day_end
from .context import Ctx, Span
from .english import word_number
from .patterns import Token, glued
from .point import Point, resolve_date, resolve_point
from .relative import (
    VAGUE_COUNTS,
    future_span,
    leading_span,
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
     "en_edge", "spast", "pod", "en_pod", "clock", "hm", "en_clock", "numr", "en_date", "workday", "lunar_ny",
     "nth_week"}
)  # fmt: skip
_PREFIX = frozenset({"every", "fromw", "untilw", "en_before", "en_after", "en_at"})
_UNTIL_SEPS = frozenset({"到", "直到", "一直到"})
_DATE_FIELDS = ("year", "year_off", "month", "month_off", "day", "day_off", "day_span", "week_off", "weekday",
                "weekend", "edge", "quarter", "quarter_off", "holiday", "year_span", "workdays")  # fmt: skip
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

    __slots__ = ("end", "overdue", "span", "start")

    def __init__(self, span: Span, start: int, end: int, overdue: bool = False) -> None:
        self.span, self.start, self.end, self.overdue = span, start, end, overdue


def _parse_point(toks: list[Token], j: int, text: str, ctx: Ctx) -> tuple[Point, int] | None:
    p = Point()
    k = j
    while k < len(toks):
        t, nxt = toks[k], k + 1
        if t.kind == "en_at" and k > j and k + 1 < len(toks) and glued(text, toks[k - 1].end, t.start):
            # "tomorrow at 8pm", "Friday on Dec 5": the preposition joins two parts of one point.
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
    _inherit(a, b)
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
    if end < sa.start and b.has_clock and b.pod is None and (b.hour or 0) < 12:
        end += timedelta(hours=12)
    if end < sa.start and b.weekday is not None and b.week_off is None:
        end += timedelta(weeks=1)
    if end < sa.start and b.day is not None and not b.has_month and resolve_date(b, ctx) is not None:
        return None
    if end < sa.start:
        return None
    return Span(sa.start, end, "span", sa.has_clock or sb.has_clock, sa.clock_at)


def _before(s: Span, ctx: Ctx) -> Span:
    end = s.end
    if end is None:
        return s
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
        if kind in ("every", "en_at"):
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
                        mode = None if mode == "from" else mode
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
    if a.weak_clock and span.granularity == "hour" and (suffix is None or suffix.kind not in ("before", "after")):
        return None  # "简单一点的": 一点 is "a little", not one o'clock
    if suffix is None and mode is None and a.lunar_dir is not None:
        mode = a.lunar_dir  # 年前 / 过完年: before / after the Spring Festival
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
    return Expr(span, toks[i].start, last)
