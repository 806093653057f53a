"""Filling a Point's slots from one token; returning False ends the point."""

from __future__ import annotations

from .context import Ctx
from .english import month_day, weekday_index
from .numerals import adjacent_pair, to_int, two_digit_year
from .patterns import Token
from .point import MOMENTS, Point
from .relative import quantity

_YEAR_OFF = {"大前": -3, "前": -2, "去": -1, "上": -1, "上一": -1, "今": 0, "本": 0, "同": 0, "当": 0,
             "明": 1, "来": 1, "次": 1, "下": 1, "下一": 1, "后": 2, "大后": 3}  # fmt: skip
_DAY_WORDS = {"大大前天": -3, "大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨儿": -1, "昨儿个": -1,
              "今天": 0, "今日": 0, "本日": 0, "当天": 0, "当日": 0, "今儿": 0, "今儿个": 0, "全天": 0,
              "明天": 1, "明日": 1, "明儿": 1, "明儿个": 1, "次日": 1, "翌日": 1, "第二天": 1, "隔天": 1,
              "后天": 2, "大后天": 3, "大大后天": 4,
              # northern colloquial: 后儿(个) = 后天, 前儿(个) = 前天, 大后儿 = 大后天
              "后儿": 2, "后儿个": 2, "前儿": -2, "前儿个": -2, "大后儿": 3, "大后儿个": 3, "大前儿": -3,
              "大前儿个": -3}  # fmt: skip
_DAY_POD = {"晚": "晚上", "早": "早上", "晨": "早上", "夜": "晚上"}
_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "1": 0, "2": 1, "3": 2,
            "4": 3, "5": 4, "6": 5, "7": 6}  # fmt: skip
_EDGES = {"初": ("begin", 0), "底": ("end", 0), "末": ("end", 0), "终": ("end", 0), "中": ("mid", 0),
          "伊始": ("start1", 0), "上半年": ("h1", 0), "下半年": ("h2", 0), "中旬": ("xun2", 0),
          "上旬": ("xun1", 0), "下旬": ("xun3", 0), "内": ("within", 0), "上半月": ("mhalf1", 0),
          "上半个月": ("mhalf1", 0), "下半月": ("mhalf2", 0), "下半个月": ("mhalf2", 0)}  # fmt: skip
_LUNAR = {"春节": ("春节", None), "过年": ("春节", None), "大年初一": ("春节", None), "除夕": ("除夕", None),
          "大年三十": ("除夕", None), "年前": ("除夕", "before"), "年后": ("春节", "after"),
          "过完年": ("春节", "after"), "过了年": ("春节", "after")}  # fmt: skip
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


def absorb(p: Point, tok: Token, text: str, ctx: Ctx) -> bool:
    k, g = tok.kind, tok.g
    if k == "year":
        if p.has_year or p.has_month or p.has_day or p.has_week:
            return False
        raw = g("y_abs") or ""
        value = to_int(raw)
        if value is None or (len(raw) == 4 and not YEAR_MIN <= value <= YEAR_MAX):
            return False  # "九九九九年": not a year a task list can mean
        p.year = two_digit_year(value, ctx.today.year) if len(raw) == 2 else value
        p.edge = _edge(g("y_edge"), year=True)
        return True
    if k == "yrel":
        if p.has_year or p.has_month or p.has_day or p.has_week:
            return False
        p.year_off = _YEAR_OFF.get(g("yr_w") or "", 0)
        p.edge = _edge(g("yr_edge"), year=True)
        return True
    if k in ("mrel", "mabs", "md", "ym"):
        if p.has_month or p.has_day or p.has_week or p.quarter is not None:
            return False
        if p.edge is not None and not p.has_year:
            return False
        if k == "mrel":
            p.month_off = _rel_word(g("mr_w") or "")
            p.edge = _edge(g("mr_edge"))
        elif k == "ym":
            if p.has_year:
                return False
            p.year, p.month = int(g("ym_y") or 0), int(g("ym_m") or 0)
        else:
            p.month = to_int(g("md_m") or g("ma_m") or "")
            if p.month is None or not 1 <= p.month <= 12:
                return False
            if k == "md":
                p.day = to_int(g("md_d") or g("md_d2") or "")
                if p.day is None or not 1 <= p.day <= 31:
                    return False
            else:
                p.edge = _edge(g("ma_edge"))
        return True
    if k in ("ymd", "mdn"):
        if p.has_month or p.has_day or p.has_week or (k == "ymd" and p.has_year):
            return False
        if k == "ymd":
            p.year = int(g("ymd_y") or g("ymd_y8") or 0)
            p.month = int(g("ymd_m") or g("ymd_m8") or 0)
            p.day = int(g("ymd_d") or g("ymd_d8") or 0)
        else:
            p.month = int(g("mdn_m") or g("mdn_m2") or g("mdn_m3") or 0)
            p.day = int(g("mdn_d") or g("mdn_d2") or g("mdn_d3") or 0)
        return 1 <= p.month <= 12 and 1 <= p.day <= 31
    if k == "dabs":
        if p.has_day or (p.has_week and p.weekday is None):
            return False
        d = to_int(g("da_d") or "")
        if d is None or not 1 <= d <= 31:
            return False
        p.day = d
        return True
    if k in ("dayw", "daypod", "nth_day", "en_day"):
        if p.has_date:
            return False
        if k == "dayw":
            w = g("dw") or ""
            if w in ("今明两天", "今明两日"):
                p.day_off, p.day_span = 0, 1
            elif w in ("明后天", "明后两天", "明后两日"):
                p.day_off, p.day_span = 1, 1
            elif w == "今明两年":
                p.year_off, p.year_span = 0, 1
            else:
                p.day_off = _DAY_WORDS.get(w, 0)
                p.rel_to_prev = w in ("次日", "翌日", "第二天", "隔天")
        elif k == "daypod":
            word = g("dp_d") or "今"
            p.day_off = {"今": 0, "当": 0, "明": 1, "次": 1, "昨": -1, "前": -2}.get(word, 0)
            p.pod = _DAY_POD.get(g("dp_p") or "", "晚上")
        elif k == "nth_day":
            nth = to_int(g("nd_n") or "")
            if nth is None or nth < 1:
                return False
            p.day_off = nth - 1
        else:
            w = " ".join((g("ed") or "").lower().split()).removeprefix("the ")
            table = {"today": 0, "tonight": 0, "tomorrow": 1, "tmr": 1, "tmrw": 1, "yesterday": -1,
                     "day after tomorrow": 2, "day before yesterday": -2}  # fmt: skip
            p.day_off = table.get(w, 0)
            if w == "tonight":
                p.pod = "晚上"
        return True
    if k == "reloff":
        if p.has_date or g("ro_dir") not in ("后", "前"):
            return False
        q = quantity(tok, "ro")
        if q is None or q[1] != "day" or q[0] != int(q[0]):
            return False
        p.day_off = int(q[0]) if g("ro_dir") == "后" else -int(q[0])
        return True
    if k in ("week", "en_week"):
        if p.has_date:
            return False
        if k == "week":
            p.week_off = _rel_word(g("wk_w") or "")
            wk_day = g("wk_d")
            if wk_day == "末":
                p.weekend = True
            elif wk_day:
                p.weekday = _WEEKDAY[wk_day]
            return True
        w, u = (g("ew_w") or "").lower(), (g("ew_u") or "").lower()
        off = {"next": 1, "last": -1, "past": -1}.get(w, 0)
        if u in ("week", "weekend"):
            p.week_off = off
            p.weekend = u == "weekend"
        elif u == "month":
            p.month_off = off
        else:
            p.year_off = off
        return True
    if k in ("wday", "en_wd", "en_weekend"):
        if p.weekday is not None or p.weekend:
            return False
        if p.day is not None or p.day_off is not None:
            return True  # "6月1日周六": the date already says which day
        if p.has_year or p.has_month:
            return False
        if k == "wday":
            wd_day = g("wd_d") or ""
            if wd_day == "末":
                p.weekend = True
            else:
                p.weekday = _WEEKDAY[wd_day]
        elif k == "en_weekend":
            p.weekend = True
        else:
            wd = weekday_index(g("ewd") or "")
            if wd is None:
                return False
            p.weekday = wd
            w = (g("ewd_w") or "").lower()
            if w in ("next", "last"):
                p.week_off = 1 if w == "next" else -1
        return True
    if k == "quarter":
        if p.has_month or p.has_day or p.has_week or p.quarter is not None or p.quarter_off is not None:
            return False
        q_edge = g("q_edge") or g("q_edge2")
        if q_edge:
            if p.edge is not None:
                return False
            p.edge = (_Q_EDGES[q_edge], 0)
        if g("q_w") or g("q_bare"):
            p.quarter_off = _rel_word(g("q_w") or "")
        else:
            p.quarter = 1 if g("q_first") else to_int(g("q_n") or g("q_n2") or "")
            if p.quarter is None or not 1 <= p.quarter <= 4:
                return False
        return True
    if k == "holiday":
        if p.has_month or p.has_day or p.has_week:
            return False
        p.holiday = g("hd")
        return True
    if k in _CALENDAR_KINDS:
        return _absorb_calendar(p, tok)
    if k == "lunar_ny":
        if p.has_month or p.has_day or p.has_week or p.holiday is not None:
            return False
        p.holiday, p.lunar_dir = _LUNAR[g("ln") or "春节"]
        return True
    if k == "workday":
        if p.has_day or p.has_month or p.has_year or p.workdays:
            return False
        p.workdays = True
        return True
    if k == "nth_week":
        nth = to_int(g("nw_n") or "")
        if not p.has_month or p.has_day or p.has_week or p.edge is not None or nth is None or not 1 <= nth <= 5:
            return False
        p.edge = ("week_n", nth)
        return True
    if k in ("edge", "en_edge"):
        if p.edge is not None or p.has_day or p.has_week:
            return False
        if k == "en_edge":
            u = (g("ee_u") or tok_text(tok, text)[-2:]).lower()
            nxt = (g("ee_w") or "").strip().lower() == "next"
            if u in ("day", "od"):
                p.day_off = 0
            elif u in ("week", "ow"):
                p.week_off, p.weekday = (1 if nxt else 0), 6
            elif u in ("month", "om"):
                p.month_off, p.edge = (1 if nxt else 0), ("last", 1)
            else:
                p.year_off, p.month, p.day = (1 if nxt else 0), 12, 31
            return True
        eg = g("eg") or ""
        if eg.startswith("年") or eg in ("上半年", "下半年"):
            if p.has_month:
                return False
            p.edge = _edge(eg, year=True)
            if not p.has_year:
                p.year_off = 0
        else:
            if p.has_year and not p.has_month:
                return False
            p.edge = _edge(eg)
            if not p.has_month:
                p.month_off = 0
                p.implied_month = True
        return True
    if k == "spast":
        kw = g("sp_kw") or ""
        q = quantity(tok, "sp")
        if q is None or kw not in ("前", "头", "最后", "末", "后") or p.has_day or p.has_week:
            return False
        n, unit = q
        first = kw in ("前", "头")
        if p.has_month and unit in ("day", "week") and p.edge is None and n == int(n):
            p.edge = ("first" if first else "last", int(n) * (7 if unit == "week" else 1))
            return True
        if p.has_year and not p.has_month and unit == "month" and p.edge is None:
            if n == int(n) and n % 3 == 0 and "季度" in tok_text(tok, text):
                p.edge = ("y_first_q" if first else "y_last_m", int(n // 3) if first else int(n))
            else:
                p.edge = ("y_first_m" if first else "y_last_m", int(n))
            return True
        return False
    if k in ("pod", "en_pod"):
        if p.has_clock or (p.pod is not None and (k != "pod" or g("pd") not in MOMENTS or p.pod in MOMENTS)):
            return False  # only a moment (下班/上班/睡) may replace a part of day: "今晚睡前"
        if k == "pod":
            p.pod = g("pd")
        else:
            p.pod = {"morning": "上午", "afternoon": "下午", "evening": "晚上", "night": "晚上"}[
                (g("ep") or "").lower()
            ]
        return True
    if k in ("clock", "hm", "en_clock", "numr"):
        if p.has_clock or p.pending_num is not None:
            return False
        if k == "numr":
            num = to_int(g("nr_n") or "")
            if num is None:
                return False
            p.pending_num = num
            return True
        if k == "hm":
            raw_h = g("hm_h") or ""
            p.zero_padded = raw_h.startswith("0") or len(raw_h) == 2
            ap = (g("hm_ap") or "").lower().replace(".", "")
            p.ampm = ap or None
            return _set_clock(p, to_int(raw_h), int(g("hm_m") or 0))
        if k == "en_clock":
            w = (g("ec_w") or "").lower()
            if w:
                p.zero_padded = True
                return _set_clock(p, 12 if w == "noon" else 24, 0)
            if bare := g("ec_bh"):  # "at 9": no am/pm, read through the part of day as "9点" is
                p.zero_padded = bare.startswith("0") or len(bare) == 2
                m = g("ec_bm")
                return _set_clock(p, to_int(bare), int(m) if m else None)
            p.ampm = (g("ec_ap") or "").lower().replace(".", "")
            m = g("ec_m")
            return _set_clock(p, to_int(g("ec_h") or ""), int(m) if m else None)
        raw_h = g("ck_h") or ""
        pair = adjacent_pair(raw_h)
        if pair is not None:
            return _set_clock(p, pair[0], None, pair[1])
        h = to_int(raw_h)
        minute = None if g("ck_more") else _minute(g("ck_min"))
        p.weak_clock = raw_h == "一" and minute is None and not p.pod and not p.has_date
        p.zero_padded = raw_h.startswith(("0", "零"))
        return _set_clock(p, h, minute)
    if k == "en_date":
        if p.has_date:
            return False
        md = month_day(tok_text(tok, text))
        if md is None:
            return False
        year, p.month, p.day = md
        if year is not None:
            p.year = year
        return True
    return False


_CALENDAR_KINDS = frozenset({"festival", "term", "period", "lunar_md", "wd_next", "post_hol"})


def _lunar_day(raw: str) -> int | None:
    if raw.startswith("初"):
        return to_int(raw[1:])
    if raw.startswith("廿"):
        n = to_int(raw[1:])
        return None if n is None else 20 + n
    return 30 if raw == "卅" else to_int(raw)


def _absorb_calendar(p: Point, tok: Token) -> bool:
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
        raw_m = g("lm_m") or g("lm_m2") or ""
        month = _LUNAR_MONTHS.get(raw_m) or to_int(raw_m)
        day = _lunar_day(g("lm_d") or "")
        if month is None or day is None or not (1 <= month <= 12 and 1 <= day <= 30):
            return False
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
