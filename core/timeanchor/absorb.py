"""Filling a Point's slots from one token; returning False ends the point."""

from __future__ import annotations

from collections.abc import Callable

from . import numdate
from .context import Ctx
from .english import month_day, weekday_index
from .numerals import adjacent_pair, to_int, two_digit_year
from .patterns import Token
from .point import LAST_NTH, MOMENTS, Point
from .relative import quantity

_YEAR_OFF = {"大前": -3, "前": -2, "去": -1, "上": -1, "上一": -1, "今": 0, "本": 0, "同": 0, "当": 0,
             "明": 1, "来": 1, "次": 1, "下": 1, "下一": 1, "后": 2, "大后": 3, "旧": -1}  # fmt: skip  # 旧年: Cantonese 去年
_DAY_WORDS = {"大大前天": -3, "大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨儿": -1, "昨儿个": -1,
              "今天": 0, "今日": 0, "本日": 0, "当天": 0, "当日": 0, "今儿": 0, "今儿个": 0, "全天": 0,
              "明天": 1, "明日": 1, "明儿": 1, "明儿个": 1, "次日": 1, "翌日": 1, "第二天": 1, "隔天": 1,
              "后天": 2, "大后天": 3, "大大后天": 4,
              # northern colloquial: 后儿(个) = 后天, 前儿(个) = 前天, 大后儿 = 大后天
              "后儿": 2, "后儿个": 2, "前儿": -2, "前儿个": -2, "大后儿": 3, "大后儿个": 3, "大前儿": -3,
              "大前儿个": -3,
              # Cantonese (the fold gives 听日 from 聽日): 听日 = 明天, 后日 = 后天, 寻日/琴日 = 昨天
              "听日": 1, "后日": 2, "大后日": 3, "寻日": -1, "琴日": -1, "前日": -2}  # fmt: skip
_DAY_POD = {"晚": "晚上", "早": "早上", "晨": "早上", "夜": "晚上", "朝": "早上", "朝早": "早上", "晚黑": "晚上"}
# The day of a day-and-part word (今晚, 明早; Cantonese 听朝 = tomorrow morning, 琴晚 = last night)
_POD_DAY = {"今": 0, "当": 0, "明": 1, "次": 1, "昨": -1, "前": -2, "听": 1, "琴": -1, "寻": -1}
# Cantonese parts of the day, as the simplified word point.POD knows
_POD_WORDS = {"朝早": "早上", "上昼": "上午", "下昼": "下午", "晏昼": "下午", "晚黑": "晚上"}
_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "1": 0, "2": 1, "3": 2,
            "4": 3, "5": 4, "6": 5, "7": 6}  # fmt: skip
_EDGES = {"初": ("begin", 0), "底": ("end", 0), "末": ("end", 0), "终": ("end", 0), "中": ("mid", 0),
          "伊始": ("start1", 0), "上半年": ("h1", 0), "下半年": ("h2", 0), "前半年": ("h1", 0), "后半年": ("h2", 0), "中旬": ("xun2", 0),
          "上旬": ("xun1", 0), "下旬": ("xun3", 0), "内": ("within", 0), "上半月": ("mhalf1", 0),
          "上半个月": ("mhalf1", 0), "下半月": ("mhalf2", 0), "下半个月": ("mhalf2", 0),
          "尾": ("end", 0)}  # fmt: skip  # 月尾/年尾: Cantonese and Taiwanese 月底/年底
_LUNAR = {"春节": ("春节", None), "过年": ("春节", None), "大年初一": ("春节", None), "除夕": ("除夕", None),
          "大年三十": ("除夕", None), "年前": ("除夕", "before"), "年后": ("春节", "after"),
          "过完年": ("春节", "after"), "过了年": ("春节", "after"), "新春": ("春节", None)}  # fmt: skip
_LUNAR_MONTHS = {"正": 1, "冬": 11, "腊": 12}
_FESTIVALS = {"元宵": "元宵节", "端午": "端午节", "七夕": "七夕", "中元": "中元节", "中秋": "中秋节",
              "重阳": "重阳节", "腊八": "腊八节", "小年": "小年", "龙抬头": "龙抬头"}  # fmt: skip
_PERIODS = {"国庆": "国庆", "十一": "国庆", "五一": "五一", "劳动": "五一", "春": "春节", "过年": "春节", "端午": "端午",
            "中秋": "中秋", "清明": "清明", "元旦": "元旦"}  # fmt: skip
_WD_STEP = {"下": 1, "次": 1, "上": -1, "前": -1}
_Q_EDGES = {"初": "q_begin", "末": "q_end", "底": "q_end"}


def _rel_word(w: str) -> int:
    """下/上/这 style prefixes → offset."""
    w = w.rstrip("个一") or w[:1]
    if w.startswith("下下"):
        return 2
    if w.startswith("上上"):
        return -2
    if w.startswith(("下", "次")):
        return 1
    if w.startswith("上"):
        return -1
    return 0


def _edge(raw: str | None, year: bool = False) -> tuple[str, int] | None:
    """An edge word (初/底/中旬/上半年…) → (kind, n); year edges are prefixed "y_"."""
    if not raw:
        return None
    key = raw.lstrip("年月") or raw
    found = _EDGES.get(key) or _EDGES.get(raw)
    if found is None:
        return None
    if year and found[0] not in ("within",):
        return "y_" + found[0], found[1]
    return found


def _set_clock(p: Point, h: int | None, minute: int | None, hour2: int | None = None) -> bool:
    if h is None or not 0 <= h <= 24 or (minute is not None and not 0 <= minute <= 59):
        return False
    p.hour, p.minute, p.hour2 = h, minute, hour2
    return True


def _minute(raw: str | None) -> int | None:
    if raw is None:
        return None
    raw = raw.rstrip("分").strip()
    table = {"半": 30, "一刻": 15, "1刻": 15, "三刻": 45, "3刻": 45, "整": 0}
    if raw in table:
        return table[raw]
    return to_int(raw)


# The years a phrase may name outright (the digit pattern in patterns.py says the same).
YEAR_MIN, YEAR_MAX = 1800, 2200


Absorber = Callable[[Point, Token, str, Ctx], bool]


def absorb(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """Fill p's slots from one token; False ends the point (the token starts something else)."""
    fn = _ABSORBERS.get(tok.kind)
    return fn is not None and fn(p, tok, text, ctx)


def _year(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    if p.has_year or p.has_month or p.has_day or p.has_week:
        return False
    raw = tok.g("y_abs") or ""
    value = to_int(raw)
    if value is None or (len(raw) == 4 and not YEAR_MIN <= value <= YEAR_MAX):
        return False  # "九九九九年": not a year a task list can mean
    p.year = two_digit_year(value, ctx.today.year) if len(raw) == 2 else value
    p.edge = _edge(tok.g("y_edge"), year=True)
    return True


def _year_rel(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    if p.has_year or p.has_month or p.has_day or p.has_week:
        return False
    p.year_off = _YEAR_OFF.get(tok.g("yr_w") or "", 0)
    p.edge = _edge(tok.g("yr_edge"), year=True)
    return True


def _month_free(p: Point) -> bool:
    """A month may still be said: none yet, no day/week/quarter, and an edge only after a year."""
    if p.has_month or p.has_day or p.has_week or p.quarter is not None:
        return False
    return p.edge is None or p.has_year


def _month_rel(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    if not _month_free(p):
        return False
    p.month_off = _rel_word(tok.g("mr_w") or "")
    p.edge = _edge(tok.g("mr_edge"))
    return True


def _year_month(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    if not _month_free(p) or p.has_year:
        return False
    p.year, p.month = int(tok.g("ym_y") or 0), int(tok.g("ym_m") or 0)
    return True


def _month_abs(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "3月" (mabs, maybe with an edge: "3月底") or "3月5" / "3月5日" (md)."""
    if not _month_free(p):
        return False
    g = tok.g
    p.month = to_int(g("md_m") or g("ma_m") or "")
    if p.month is None or not 1 <= p.month <= 12:
        return False
    if tok.kind == "mabs":
        p.edge = _edge(g("ma_edge"))
        return True
    p.day = to_int(g("md_d") or g("md_d2") or "")
    return p.day is not None and 1 <= p.day <= 31


def _numeric_date(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "2026-12-05" / "20261205" (ymd) or "12-05" / "12.25" / "8/1" (mdn)."""
    if p.has_month or p.has_day or p.has_week or (tok.kind == "ymd" and p.has_year):
        return False
    g = tok.g
    if tok.kind == "ymd":
        p.year = int(g("ymd_y") or g("ymd_y8") or 0)
        p.month = int(g("ymd_m") or g("ymd_m8") or 0)
        p.day = int(g("ymd_d") or g("ymd_d8") or 0)
    else:
        p.month = int(g("mdn_m") or g("mdn_m2") or g("mdn_m3") or g("mdn_m4") or 0)
        p.day = int(g("mdn_d") or g("mdn_d2") or g("mdn_d3") or g("mdn_d4") or 0)
        if g("mdn_m3") and numdate.ORDER.get() == "dmy" and p.day <= 12:  # "1/2" is 1 February to them
            p.month, p.day = p.day, p.month
    return 1 <= p.month <= 12 and 1 <= p.day <= 31


def _numeric_dmy(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "06/26/2021", "13.5.2015", "3-7-2017", "05/05/89": the year last; numdate orders the rest."""
    if p.has_year or p.has_month or p.has_day or p.has_week:
        return False
    g = tok.g
    found = numdate.read(g("dmy_a") or "", g("dmy_b") or "", g("dmy_y") or "", g("dmy_s") or "", text, ctx.today)
    if found is None:
        return False
    p.year, p.month, p.day = found.year, found.month, found.day
    return True


def _day_abs(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "5号" / "五日" (dabs) and a bare English ordinal, "14th" / "the 3rd" (en_ord)."""
    if p.has_day or (p.has_week and p.weekday is None):
        return False
    d = to_int(tok.g("da_d") or tok.g("eo_d") or "")
    if d is None or not 1 <= d <= 31:
        return False
    p.day = d
    return True


# Two-day and two-year words: (day_off, day_span) or, for years, (year_off, year_span).
_DAY_PAIRS = {"今明两天": (0, 1), "今明两日": (0, 1), "明后天": (1, 1), "明后两天": (1, 1), "明后两日": (1, 1)}
_NEXT_DAY = frozenset({"次日", "翌日", "第二天", "隔天"})  # the day after the point before, in a range
_EN_DAYS = {"today": 0, "tonight": 0, "tomorrow": 1, "tmr": 1, "tmrw": 1, "yesterday": -1,
            "day after tomorrow": 2, "day before yesterday": -2}  # fmt: skip


_TODAY_WORDS = frozenset({"今天", "今日", "当天", "当日", "本日"})


def _same_day_of(p: Point, w: str, ctx: Ctx) -> bool:
    """去年的今天 / 上个月的今天 / 下周的今天: today's date in the year, month or week said before it."""
    if w not in _TODAY_WORDS or p.has_day or p.edge is not None or p.quarter is not None:
        return False
    today = ctx.today
    if p.has_week and not p.has_month and not p.has_year:
        p.weekday = today.weekday()
    elif p.has_month and not p.has_week:
        p.day = today.day
    elif p.has_year and not p.has_week:
        p.month, p.day = today.month, today.day
    else:
        return False
    return True


def _day_word(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """今天 / 明后天 / 今明两年 (dayw)."""
    if p.has_date:
        return _same_day_of(p, tok.g("dw") or "", ctx)
    w = tok.g("dw") or ""
    if w in _DAY_PAIRS:
        p.day_off, p.day_span = _DAY_PAIRS[w]
    elif w == "今明两年":
        p.year_off, p.year_span = 0, 1
    else:
        p.day_off = _DAY_WORDS.get(w, 0)
        p.rel_to_prev = w in _NEXT_DAY
    return True


def _day_pod(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """今晚 / 明早 / 昨夜 (daypod): a day and a part of it in one word."""
    if p.has_date:
        return False
    word = tok.g("dp_c") or tok.g("dp_d") or "今"
    p.day_off = _POD_DAY.get(word, 0)
    p.pod = _DAY_POD.get(tok.g("dp_cp") or tok.g("dp_p") or "", "晚上")
    return True


def _nth_day(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "第3天" (from today); after a month or a year its Nth day ("下个月第10天", "明年的第一天")."""
    nth = to_int(tok.g("nd_n") or "")
    if nth is None or nth < 1:
        return False
    if p.has_date:
        edge = _inner_edge(p, "nth_d", "y_nth_d")
        if edge is None:
            return False
        p.edge = (edge, nth)
        return True
    p.day_off = nth - 1
    return True


def _inner_edge(p: Point, in_month: str, in_year: str) -> str | None:
    """Which edge a count inside the point's period names: the month's, the year's, or None (no period
    to count in, or the point already says a day, week, quarter or edge)."""
    if p.has_day or p.has_week or p.edge is not None or p.quarter is not None or p.quarter_off is not None:
        return None
    if p.has_month:
        return in_month
    return in_year if p.has_year else None


def _en_day(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    if p.has_date:
        return False
    w = " ".join((tok.g("ed") or "").lower().split()).removeprefix("the ")
    p.day_off = _EN_DAYS.get(w, 1 if w.startswith(("tom", "2mo")) else 0)  # "tomorow", "2moro"
    if w == "tonight":
        p.pod = "晚上"
    return True


def _day_offset(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "3天后" inside a point ("3天后下午3点"); alone it is a span (grammar._standalone)."""
    if p.has_date or tok.g("ro_dir") not in ("后", "前"):
        return False
    q = quantity(tok, "ro")
    if q is None or q[1] != "day" or q[0] != int(q[0]):
        return False
    p.day_off = int(q[0]) if tok.g("ro_dir") == "后" else -int(q[0])
    return True


def _week(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """下周 / 这周三 / 上周末."""
    if p.has_date:
        return False
    p.week_off = _rel_word(tok.g("wk_w") or "")
    wk_day = tok.g("wk_d")
    if wk_day == "末":
        p.weekend = True
    elif wk_day:
        p.weekday = _WEEKDAY[wk_day]
    return True


_EN_OFF = {"next": 1, "last": -1, "past": -1}


def _en_week(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "next week" / "this weekend" / "last month" / "next year"."""
    if p.has_date:
        return False
    w, u = (tok.g("ew_w") or "").lower(), (tok.g("ew_u") or tok.g("ew_an") or "").lower()
    off = 2 if tok.g("ew_an") else _EN_OFF.get(w, 0)  # "the week after next"
    if tok.g("ew_later") and off == 0:
        p.edge = ("within", 0)  # "later this week": from now to its end ("later next week": next week)
    if u in ("week", "weekend"):
        p.week_off, p.weekend = off, u == "weekend"
    elif u == "month":
        p.month_off = off
    else:
        p.year_off = off
    return True


def _weekday_free(p: Point) -> bool | None:
    """None: a weekday may be said; True: it is redundant after a day ("6月1日周六"); False: not here."""
    if p.weekday is not None or p.weekend:
        return False
    if p.day is not None or p.day_off is not None:
        return True
    if p.has_year or p.has_month:
        return False
    return None


def _weekday(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """周三 / 星期天 / 周末 (wday)."""
    free = _weekday_free(p)
    if free is not None:
        return free
    wd_day = tok.g("wd_d") or tok.g("wd_e") or ""
    if wd_day == "末":
        p.weekend = True
    else:
        p.weekday = _WEEKDAY[wd_day]
    return True


def _en_weekday(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "Friday" / "next Monday" (en_wd) and "weekend" (en_weekend)."""
    free = _weekday_free(p)
    if free is not None:
        return free
    if tok.kind == "en_weekend":
        p.weekend = True
        return True
    wd = weekday_index(tok.g("ewd") or tok.g("ewd_ab") or "")
    if wd is None:
        return False
    p.weekday = wd
    w = (tok.g("ewd_w") or "").lower()
    if w in ("next", "last"):
        p.week_off = 1 if w == "next" else -1
    return True


def _quarter(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """第三季度 / 本季度末 / 季度初 / Q3."""
    if p.has_month or p.has_day or p.has_week or p.quarter is not None or p.quarter_off is not None:
        return False
    g = tok.g
    q_edge = g("q_edge") or g("q_edge2")
    if q_edge:
        if p.edge is not None:
            return False
        p.edge = (_Q_EDGES[q_edge], 0)
    if g("q_w") or g("q_bare"):
        p.quarter_off = _rel_word(g("q_w") or "")
        return True
    p.quarter = 1 if g("q_first") else to_int(g("q_n") or g("q_n2") or "")
    return p.quarter is not None and 1 <= p.quarter <= 4


_SEASONS = {"春": 1, "夏": 2, "秋": 3, "冬": 4}
_SEASON_YEAR = {"这个": 0, "今": 0, "明": 1, "去": -1}


def _season(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """今年夏天 / 2027年春季 / 这个冬天: meteorological seasons (point._year_edge)."""
    if p.has_month or p.has_day or p.has_week or p.edge is not None or p.quarter is not None:
        return False
    word = tok.g("se_w")
    n = _SEASONS[tok.g("se1") or tok.g("se2") or "春"]
    if word is not None:
        if p.has_year:
            return False
        # "这个冬天" said in January is the winter that began last December
        p.year_off = _SEASON_YEAR[word] - (n == 4 and _SEASON_YEAR[word] == 0 and ctx.today.month <= 2)
    elif not p.has_year:
        return False
    p.edge = ("y_season", n)
    return True


def _holiday(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    if p.has_month or p.has_day or p.has_week:
        return False
    p.holiday = " ".join((tok.g("hd") or "").lower().replace("\u2019", "'").split())
    return True


def _lunar_new_year(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """春节 / 除夕 / 年前 / 过完年."""
    if p.has_month or p.has_day or p.has_week or p.holiday is not None:
        return False
    p.holiday, p.lunar_dir = _LUNAR[tok.g("ln") or "春节"]
    return True


def _workday(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    if p.has_day or p.has_month or p.has_year or p.workdays:
        return False
    p.workdays = True
    return True


def _nth_week(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "3月第二周" / "2021年的第一周": the nth week (days 7n-6..7n) of a month or year already said."""
    nth = to_int(tok.g("nw_n") or "")
    edge = _inner_edge(p, "week_n", "y_week_n")
    if edge is None or nth is None or not 1 <= nth <= (5 if edge == "week_n" else 53):
        return False
    p.edge = (edge, nth)
    return True


def _nth_weekday(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "十月第一个星期一" / "本月最后一个周五": a weekday counted inside a month already said."""
    nth = LAST_NTH if tok.g("nx_last") else to_int(tok.g("nx_n") or "")
    if (p.has_date and _inner_edge(p, "nth_wd", "") != "nth_wd") or nth is None or nth < 1:
        return False
    if not p.has_date:  # "第二个周五" alone: this month's, or next month's once it has passed
        p.month_off, p.implied_month = 0, True
    p.edge = ("nth_wd", 10 * nth + _WEEKDAY[tok.g("nx_d") or "一"])
    return True


def _nth_month(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "明年第九个月": the year's Nth month; "第一季度的第一个月" / "下季度的第二个月": the quarter's."""
    n = to_int(tok.g("nm_n") or "")
    if n is None or p.has_month or p.has_day or p.has_week or p.edge is not None:
        return False
    if p.quarter is None and p.quarter_off is None:
        if not p.has_year or not 1 <= n <= 12:
            return False
        p.month = n
        return True
    if not 1 <= n <= 3:
        return False
    if p.quarter_off is not None:  # 下季度: which year's which quarter, from today
        index = ctx.today.year * 4 + (ctx.today.month - 1) // 3 + p.quarter_off
        p.year, p.year_off, q = index // 4, None, index % 4 + 1
    else:
        q = p.quarter or 1
        if not p.has_year:
            p.year_off = 0  # "第一季度" alone is this year's (point.resolve_date)
    p.month, p.quarter, p.quarter_off = 3 * q - 3 + n, None, None
    return True


def _edge_months(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "年初三个月" / "2027年底两个月": the first / last N months of the year said, or of this one."""
    n = to_int(tok.g("em_n") or "")
    if n is None or p.has_month or p.has_day or p.has_week or p.edge is not None or p.quarter is not None:
        return False
    p.edge = ("y_first_m" if tok.g("em_w") == "初" else "y_last_m", n)
    if not p.has_year:
        p.year_off = 0
    return True


# "end of the day/week/month/year" (optionally "next"): what each sets, keyed by unit.
_EN_EDGE_UNITS = {"day": "day", "od": "day", "week": "week", "ow": "week", "month": "month", "om": "month"}


def _en_edge(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    if p.edge is not None or p.has_day or p.has_week:
        return False
    u = _EN_EDGE_UNITS.get((tok.g("ee_u") or tok_text(tok, text)[-2:]).lower(), "year")
    off = 1 if (tok.g("ee_w") or "").strip().lower() == "next" else 0
    if u == "day":
        p.day_off = 0
    elif u == "week":
        p.week_off, p.weekday = off, 6
    elif u == "month":
        p.month_off, p.edge = off, ("last", 1)
    else:
        p.year_off, p.month, p.day = off, 12, 31
    return True


def _edge_word(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """年底 / 月初 / 下旬 / 上半年: an edge of the year or month said (this one when none is)."""
    if p.edge is not None or p.has_day or p.has_week:
        return False
    eg = tok.g("eg") or ""
    if eg.startswith("年") or eg in ("上半年", "下半年"):
        if p.has_month:
            return False
        p.edge = _edge(eg, year=True)
        if not p.has_year:
            p.year_off = 0
        return True
    if p.has_year and not p.has_month:
        return False
    p.edge = _edge(eg)
    if not p.has_month:
        p.month_off, p.implied_month = 0, True
    return True


def _leading(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "前三天" / "最后一周" after a month ("3月前三天"), "前两个月" after a year; alone it is a span."""
    kw = tok.g("sp_kw") or ""
    q = quantity(tok, "sp")
    if q is None or kw not in ("前", "头", "最后", "末", "后") or p.has_day or p.has_week or p.edge is not None:
        return False
    n, unit = q
    first = kw in ("前", "头")
    days_edge = _inner_edge(p, "first", "y_first_d") if unit in ("day", "week") and n == int(n) else None
    if days_edge is not None:  # "3月前三天", "去年的前10天", "今年最后一周" (the last 7 days)
        last = {"first": "last", "y_first_d": "y_last_d"}[days_edge]
        p.edge = (days_edge if first else last, int(n) * (7 if unit == "week" else 1))
        return True
    if p.has_year and not p.has_month and unit == "month":
        if n == int(n) and n % 3 == 0 and "季度" in tok_text(tok, text):
            p.edge = ("y_first_q" if first else "y_last_m", int(n // 3) if first else int(n))
        else:
            p.edge = ("y_first_m" if first else "y_last_m", int(n))
        return True
    return False


_EN_POD = {"morning": "上午", "afternoon": "下午", "evening": "晚上", "night": "晚上"}


def _pod(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """上午 / 晚上 / "in the morning"; a moment (下班/上班/睡) may replace a part of day: "今晚睡前"."""
    if p.has_clock:
        return False
    word = tok.g("pd") if tok.kind == "pod" else _EN_POD[(tok.g("ep") or "").lower()]
    word = _POD_WORDS.get(word or "", word)
    if p.pod is not None and (word not in MOMENTS or p.pod in MOMENTS):
        return False
    p.pod = word
    return True


def _pending_number(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "3到5点": the 3 waits for the unit the range's other end says (numr)."""
    if p.has_clock or p.pending_num is not None:
        return False
    num = to_int(tok.g("nr_n") or tok.g("nr_y") or "")  # nr_y: "1995-1997年"
    if num is None:
        return False
    p.pending_num = num
    return True


def _hm(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "15:30", "9:05 pm"."""
    if p.has_clock or p.pending_num is not None:
        return False
    raw_h = tok.g("hm_h") or ""
    p.zero_padded = raw_h.startswith("0") or len(raw_h) == 2
    p.ampm = (tok.g("hm_ap") or "").lower().replace(".", "") or None
    return _set_clock(p, to_int(raw_h), int(tok.g("hm_m") or 0))


def _en_clock(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "3pm", "noon", "at 9" (a bare hour read through the part of day, as "9点" is)."""
    if p.has_clock or p.pending_num is not None:
        return False
    g = tok.g
    w = (g("ec_w") or "").lower()
    if w:
        p.zero_padded = True
        return _set_clock(p, 12 if w == "noon" else 24, 0)
    if bare := g("ec_bh"):
        p.zero_padded = bare.startswith("0") or len(bare) == 2
        m = g("ec_bm")
        return _set_clock(p, to_int(bare), int(m) if m else None)
    p.ampm = (g("ec_ap") or "").lower().replace(".", "")
    m = g("ec_m")
    return _set_clock(p, to_int(g("ec_h") or ""), int(m) if m else None)


def _clock(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "3点", "三点半", "十点一刻", "八九点" (a pair: the window covers both)."""
    if p.has_clock or p.pending_num is not None:
        return False
    raw_h = tok.g("ck_h") or ""
    pair = adjacent_pair(raw_h)
    if pair is not None:
        return _set_clock(p, pair[0], None, pair[1])
    minute = None if tok.g("ck_more") else _minute(tok.g("ck_min"))
    # "简单一点的": 一点 alone, with nothing around it, may be "a little", not one o'clock
    p.weak_clock = raw_h == "一" and minute is None and not p.pod and not p.has_date
    p.zero_padded = raw_h.startswith(("0", "零"))
    p.ampm = (tok.g("ck_ap") or "").lower().replace(".", "") or None  # "6点30pm"
    return _set_clock(p, to_int(raw_h), minute)


def _en_date(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """ "Dec 5", "5th of December 2027"."""
    if p.has_date:
        return False
    md = month_day(tok_text(tok, text))
    if md is None:
        return False
    year, p.month, p.day = md
    if year is not None:
        p.year = year
    return True


_CALENDAR_KINDS = frozenset({"festival", "term", "period", "lunar_md", "wd_next", "post_hol"})


def _lunar_day(raw: str) -> int | None:
    if raw.startswith("初"):
        return to_int(raw[1:])
    if raw.startswith("廿"):
        n = to_int(raw[1:])
        return None if n is None else 20 + n
    return 30 if raw == "卅" else to_int(raw)


def _calendar(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    """Chinese-calendar tokens: a festival, solar term, statutory break, lunar date or workday step."""
    k, g = tok.kind, tok.g
    if k in ("wd_next", "post_hol"):
        if p.has_date:
            return False
        if k == "wd_next":
            word = g("wn_w") or "下"
            p.wd_step = _WD_STEP[word[:1]] * (2 if word[1:2] == word[:1] else 1)  # 下下个 → 2
        elif g("ph_pre"):
            p.pre_holiday, p.lunar_dir = True, "before"  # 节前: up to the eve of the next break
        else:
            p.post_holiday = True
        return True
    if p.has_month or p.has_day or p.has_week or p.holiday is not None or p.calendar:
        return False
    if k == "lunar_md":
        raw_m = g("lm_m") or g("lm_m2") or g("lm_m3") or ""
        month = _LUNAR_MONTHS.get(raw_m) or to_int(raw_m)
        day = _lunar_day(g("lm_d") or "")
        if month is None or day is None or not (1 <= month <= 12 and 1 <= day <= 30):
            return False
        if lunar_year := g("lm_y"):  # "农历2015年十月初一": lunar year 2015's tenth month
            if p.has_year:
                return False
            p.year, p.lunar_year = to_int(lunar_year), True
        p.lunar_md = (month, day)
    elif k == "festival":
        p.holiday = _FESTIVALS[(g("fe") or "").removesuffix("节")]
    elif k == "term":
        p.holiday = (g("st") or "").removesuffix("节")
    else:
        word = (g("pe") or "").removesuffix("节")
        p.holiday, p.period = _PERIODS[word], True
    return True


def tok_text(tok: Token, text: str) -> str:
    return text[tok.start : tok.end]


# Which absorber reads which token kind (patterns._KINDS); a kind not here ends the point.
_ABSORBERS: dict[str, Absorber] = {
    "year": _year, "yrel": _year_rel, "mrel": _month_rel, "ym": _year_month, "mabs": _month_abs,
    "md": _month_abs, "ymd": _numeric_date, "mdn": _numeric_date, "dabs": _day_abs, "dayw": _day_word,
    "daypod": _day_pod, "nth_day": _nth_day, "en_day": _en_day, "reloff": _day_offset, "week": _week,
    "en_week": _en_week, "wday": _weekday, "en_wd": _en_weekday, "en_weekend": _en_weekday,
    "quarter": _quarter, "season": _season, "holiday": _holiday, "lunar_ny": _lunar_new_year, "workday": _workday,
    "nth_week": _nth_week, "nth_wday": _nth_weekday, "nth_month": _nth_month, "edge_months": _edge_months,
    "edge": _edge_word, "en_edge": _en_edge, "spast": _leading, "pod": _pod,
    "en_pod": _pod, "clock": _clock, "hm": _hm, "en_clock": _en_clock, "numr": _pending_number,
    "en_date": _en_date, "dmy": _numeric_dmy, "en_ord": _day_abs,
    **dict.fromkeys(_CALENDAR_KINDS, _calendar),
}  # fmt: skip
