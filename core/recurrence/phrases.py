"""Reading the repetition phrase of a chat sentence ("每周一", "every other Friday") into an RRULE value.

How it works: a cheap pre-check (one compiled regex of trigger words) rejects the sentences with no
repetition at all; then a table of (pattern, builder) readers is tried in order, most specific
first; bounds (UNTIL / COUNT / first day) and "counted from completion" are read separately and
appended. Whatever was consumed is cut out of the sentence; time of day is never consumed (the
existing time reader takes it from ``rest``).

Decisions (see the report of issue 24):
- "每隔N天/周" is N+1 ("每隔一周" = every other week, so "每隔三天" = every 4th day); "每N天" is N.
- "每次…" / "每个人" / "every time" / "everyone" are not repetition (None): no period follows.
- A title noun right after a bare period ("每周周报", "每月月报") is not read as a schedule (None).
- Only Chinese "工作日" means the statutory calendar (X-DAYS=CN-WORKDAY); English "weekday" is MO-FR.
- "每晚"/"每天早上"/"every morning": only the repetition word is consumed; "晚", "早上", "morning"
  stay in ``rest`` for the time reader.
- Anything with a period that cannot be read faithfully (a continuation like "第二和第四…之外",
  "半", "双数") gives rule=None: better unreadable than read wrongly.
- "starting next Monday" / "从下周一开始": the weekday of next week (as 下周一 reads in Chinese).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from core.recurrence.rule import RuleError, make
from core.recurrence.terms import TERMS
from core.timeanchor.english import WORD_NUMBERS
from core.timeanchor.numerals import to_int

__all__ = ["RepeatPhrase", "read_repeat"]


@dataclass(frozen=True)
class RepeatPhrase:
    words: str  # the repetition as said, e.g. "每周一", "every other Friday"
    rule: str | None  # RRULE value; None when the repetition can't be read
    rest: str  # the sentence with every consumed piece removed
    first_day: date | None = None  # "从下周开始" → the Monday of next week
    spans: tuple[tuple[int, int], ...] = ()  # where the consumed pieces were in the original text


# --- tables -------------------------------------------------------------------------------------

CN_WEEKDAY = {
    "一": "MO",
    "二": "TU",
    "三": "WE",
    "四": "TH",
    "五": "FR",
    "六": "SA",
    "日": "SU",
    "天": "SU",
    "1": "MO",
    "2": "TU",
    "3": "WE",
    "4": "TH",
    "5": "FR",
    "6": "SA",
    "7": "SU",
}
EN_WEEKDAY = {"mon": "MO", "tue": "TU", "wed": "WE", "thu": "TH", "fri": "FR", "sat": "SA", "sun": "SU"}
EN_MONTH = {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
EN_ORD = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}
# English counts as the time reader has them ("every two weeks"), plus "other"/"second" (every 2nd).
EN_NUM = {**{k: v for k, v in WORD_NUMBERS.items() if k != "few"}, "other": 2, "second": 2}
# Lunar festivals as (lunar month, day); 除夕 is the year's last day, whatever the month's length.
FESTIVALS = {
    "春节": (1, 1),
    "大年初一": (1, 1),
    "元宵": (1, 15),
    "龙抬头": (2, 2),
    "端午": (5, 5),
    "七夕": (7, 7),
    "中元": (7, 15),
    "中秋": (8, 15),
    "重阳": (9, 9),
    "腊八": (12, 8),
    "小年": (12, 23),
    "除夕": (12, -1),
}
# Gregorian festivals as the rule's date part: fixed days, or the nth weekday of a month.
CIVIL_FESTIVALS = {
    "元旦": "BYMONTH=1;BYMONTHDAY=1",
    "情人节": "BYMONTH=2;BYMONTHDAY=14",
    "三八节": "BYMONTH=3;BYMONTHDAY=8",
    "妇女节": "BYMONTH=3;BYMONTHDAY=8",
    "植树节": "BYMONTH=3;BYMONTHDAY=12",
    "愚人节": "BYMONTH=4;BYMONTHDAY=1",
    "劳动节": "BYMONTH=5;BYMONTHDAY=1",
    "五一": "BYMONTH=5;BYMONTHDAY=1",
    "青年节": "BYMONTH=5;BYMONTHDAY=4",
    "儿童节": "BYMONTH=6;BYMONTHDAY=1",
    "六一": "BYMONTH=6;BYMONTHDAY=1",
    "建军节": "BYMONTH=8;BYMONTHDAY=1",
    "教师节": "BYMONTH=9;BYMONTHDAY=10",
    "国庆节": "BYMONTH=10;BYMONTHDAY=1",
    "国庆": "BYMONTH=10;BYMONTHDAY=1",
    "万圣节": "BYMONTH=10;BYMONTHDAY=31",
    "平安夜": "BYMONTH=12;BYMONTHDAY=24",
    "圣诞节": "BYMONTH=12;BYMONTHDAY=25",
    "圣诞": "BYMONTH=12;BYMONTHDAY=25",
    "母亲节": "BYMONTH=5;BYDAY=2SU",
    "父亲节": "BYMONTH=6;BYDAY=3SU",
    "感恩节": "BYMONTH=11;BYDAY=4TH",
}
SOLAR_TERMS = {zh: pinyin for pinyin, zh in TERMS.items()}  # "冬至" → "DONGZHI"
UNIT_FREQ = {
    "天": "DAILY",
    "日": "DAILY",
    "周": "WEEKLY",
    "星期": "WEEKLY",
    "礼拜": "WEEKLY",
    "月": "MONTHLY",
    "年": "YEARLY",
    "day": "DAILY",
    "week": "WEEKLY",
    "month": "MONTHLY",
    "year": "YEARLY",
}

# --- regex fragments ----------------------------------------------------------------------------

N = r"(?:\d{1,3}|[一二两三四五六七八九十]{1,3})"
WD = r"(?:周|星期|礼拜)"
D1 = r"[一二三四五六日天1-7]"
DAYS = rf"{D1}(?:[、,，和及与]?{WD}?{D1})*(?![次遍回趟])"  # "每周一次" is once a week
LD = r"(?:初[一二三四五六七八九十]|廿[一二三四五六七八九]|二十[一二三四五六七八九]?|十[一二三四五六七八九]?|三十)"
MD = rf"(?:{N}|{LD})"
FEST = "|".join(FESTIVALS)
CIVIL = "|".join(sorted(CIVIL_FESTIVALS, key=len, reverse=True))  # 国庆节 before 国庆
TERM = "|".join(SOLAR_TERMS)
EWD = r"(?:mon(?:day)?|tues?(?:day)?|wed(?:nesday)?|thu(?:rs?)?(?:day)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)s?\b"
EDAYS = rf"{EWD}(?:(?:,\s*|\s+and\s+|\s*&\s*|\s*/\s*){EWD})*"
EMON = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
ENUM = r"(?:\d{1,3}(?:st|nd|rd|th)?|one|two|three|four|five|six|seven|eight|nine|ten)"
TITLE = r"(?![周月日年季度]*(?:报|刊))"  # "每周周报" is a report's name, not a schedule
IC = re.IGNORECASE

# The pre-check: every reader's match contains one of these.
TRIGGER = re.compile(
    r"每|天天|隔|工作日|休息日|节假日|\b(?:every|each|daily|nightly|weekly|biweekly|fortnightly|monthly|once|twice|thrice|times|"
    r"quarterly|yearly|annually|weekdays|weekends|after\s+(?:i|you)\s+(?:finish|complete|am\s+done)|(?:mon|tues|wednes|thurs|fri|satur|sun)days)\b",
    IC,
)


def _n(s: str | None, default: int = 1) -> int:
    if not s:
        return default
    s = re.sub(r"(?<=\d)(?:st|nd|rd|th)$", "", s, flags=IC)  # "every 2nd week"
    v = EN_NUM.get(s.lower()) if s.isalpha() and s.isascii() else to_int(s)
    return v if v is not None else default  # 0 stays 0 ("每0天" is unreadable, not every day)


_MONTH_NAMES = {"正": 1, "冬": 11, "腊": 12}


def _month(s: str) -> int:
    return _MONTH_NAMES.get(s) or _n(s, 0)


def _lunar_day(s: str) -> int:
    if s.startswith("初"):
        return _n(s[1:])
    if s.startswith("廿"):
        return 20 + _n(s[1:])
    return _n(s)


def _cn_days(s: str) -> str:
    seen = [CN_WEEKDAY[c] for c in s if c in CN_WEEKDAY]
    return ",".join(dict.fromkeys(seen))


def _en_days(s: str) -> str:
    seen = [EN_WEEKDAY[m[:3].lower()] for m in re.findall(EWD, s, IC)]
    return ",".join(dict.fromkeys(seen))


def _monthday(day: int) -> str:
    # Month-end rule: "每月31号" is the month's last day in short months (Todoist does the same).
    if day >= 29:
        return "BYMONTHDAY=" + ",".join(str(d) for d in range(28, day + 1)) + ";BYSETPOS=-1"
    return f"BYMONTHDAY={day}"


def _interval(n: int) -> str:
    return f";INTERVAL={n}" if n != 1 else ""  # INTERVAL=0 is refused by make: the phrase is unreadable


# --- readers: pattern → builder(match) → rule core ----------------------------------------------

Builder = Callable[[re.Match[str]], str | None]


def _g(m: re.Match[str], name: str) -> str | None:
    return m.groupdict().get(name)  # a builder serves patterns that lack some groups


def _lunar_monthly(m: re.Match[str]) -> str:
    days = sorted({_lunar_day(d) for d in re.findall(LD + "|" + N, m["d"])})
    return "RSCALE=CHINESE;FREQ=MONTHLY;BYMONTHDAY=" + ",".join(map(str, days))


def _yearly(m: re.Match[str]) -> str:
    lunar = "RSCALE=CHINESE;" if _g(m, "lunar") else ""
    fest, term, mo, day = _g(m, "fest"), _g(m, "term"), _g(m, "mo"), _g(m, "d")
    if fest:
        fm, fd = FESTIVALS[fest]
        return f"RSCALE=CHINESE;FREQ=YEARLY;BYMONTH={fm};BYMONTHDAY={fd}"
    if civil := _g(m, "civil"):
        return f"FREQ=YEARLY;{CIVIL_FESTIVALS[civil]}"
    if term:
        return f"FREQ=YEARLY;X-TERM={SOLAR_TERMS[term]}"
    if mo and day:
        return f"{lunar}FREQ=YEARLY;BYMONTH={_month(mo)};BYMONTHDAY={_lunar_day(day)}"
    return f"FREQ=YEARLY{_interval(_n(_g(m, 'k')))}"


def _quarter(m: re.Match[str]) -> str:
    if m["end"]:
        return _QUARTER_RULES["end"]
    if m["begin"]:
        return _QUARTER_RULES["begin"]
    return "FREQ=MONTHLY;INTERVAL=3"


def _monthly(m: re.Match[str]) -> str | None:
    base = f"FREQ=MONTHLY{_interval(_n(m['k']))}"
    if m["day"]:
        days = sorted({_n(d) for d in re.findall(N, m["day"])})
        if len(days) == 1:
            return f"{base};{_monthday(days[0])}"
        # "每月15号和30号": a short month has no 30th, and a list cannot say "or its last day".
        return f"{base};BYMONTHDAY={','.join(map(str, days))}" if days[-1] < 29 else None
    if m["nlast"]:
        return f"{base};BYMONTHDAY=-{_n(m['nlast'])}"
    if m["last"]:
        return f"{base};BYMONTHDAY=-1"
    if m["first"]:
        return f"{base};BYMONTHDAY=1"
    if m["wd"]:
        pos = -1 if m["pos2"] else _n(m["pos"])
        return f"{base};BYDAY={pos}{CN_WEEKDAY[m['wd']]}"
    return base


def _const(rule: str) -> Builder:
    return lambda _m: rule


def _en_every(m: re.Match[str]) -> str | None:
    k = _n(m["k"])
    unit = m["unit"].lower()
    if unit == "quarter":
        return f"FREQ=MONTHLY;INTERVAL={3 * k}"
    base = f"FREQ={UNIT_FREQ[unit]}{_interval(k)}"
    days = _g(m, "days")
    return base + (f";BYDAY={_en_days(days)}" if days else "")


def _en_nth(m: re.Match[str]) -> str:
    return f"FREQ=MONTHLY;BYDAY={EN_ORD[m['pos'].lower()]}{_en_days(m['days'])}"


_WORKDAY = "FREQ=DAILY;X-DAYS=CN-WORKDAY"
_PLURAL = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days"
_EN_MDAY = r"\d{1,2}(?:st|nd|rd|th)?\b"
_EN_MDAYS = rf"{_EN_MDAY}(?:(?:,\s*|\s+and\s+|\s*&\s*)(?:the\s+)?{_EN_MDAY})*"  # "the 1st and 15th"
_QUARTER_RULES = {
    "end": "FREQ=YEARLY;BYMONTH=3,6,9,12;BYMONTHDAY=-1",
    "begin": "FREQ=YEARLY;BYMONTH=1,4,7,10;BYMONTHDAY=1",
}
_EARLY = r"(?=早上|早晨|早|晚上|晚|夜里|中午|上午|下午|傍晚)"
_EN_TIME = r"(?=\s+(?:morning|night|evening|afternoon)\b)"

READERS: tuple[tuple[re.Pattern[str], Builder], ...] = tuple(
    (re.compile(p, IC), b)
    for p, b in (
        # Chinese calendar first: its phrases contain the plain ones ("每个工作日" ⊃ "每个").
        (r"每(?:次|逢|个)?(?:节|节假日|假期|长假|放假)后的?第一个工作日", _const("FREQ=DAILY;X-DAYS=CN-AFTER-HOLIDAY")),
        (r"每(?:个|逢|一个)?工作日(?:的)?(?:每天)?|工作日(?:的)?每天|每天(?:的)?工作日", _const(_WORKDAY)),
        (r"每(?:个|逢|一个)?(?:法定)?(?:休息日|节假日|假日)", _const("FREQ=DAILY;X-DAYS=CN-RESTDAY")),
        # Lunar month days: "每逢十五", "每月农历十五", "每月初一" (初 only exists in the lunar month).
        (rf"每逢(?:农历|阴历)?的?(?P<d>{LD}(?:[和、及与]?{LD})*)", _lunar_monthly),
        (rf"每个?月的?(?P<d>初[一二三四五六七八九十](?:[和、及与]?{LD})*)", _lunar_monthly),
        (rf"每个?月的?(?:农历|阴历)的?(?P<d>{MD}(?:[号日]?[和、及与]?{MD})*)[号日]?", _lunar_monthly),
        (rf"每(?:逢|年的?)?(?P<fest>{FEST})节?|每(?:逢|年的?)(?P<term>{TERM})", _yearly),
        (rf"每(?:逢|年的?)(?P<civil>{CIVIL})", _yearly),
        (rf"每(?:一)?年的?(?P<lunar>农历|阴历)?的?(?P<mo>{N}|正|冬|腊)月(?P<d>{MD})[日号]?", _yearly),
        (
            rf"每(?:一)?年的?(?P<mo>{N})月的?(?:第(?P<pos>{N})|(?P<pos2>最后一?|倒数第一))个?{WD}(?P<wd>{D1})",
            lambda m: (
                f"FREQ=YEARLY;BYMONTH={_n(m['mo'], 0)};BYDAY={-1 if m['pos2'] else _n(m['pos'], 0)}{CN_WEEKDAY[m['wd']]}"
            ),
        ),
        (r"每隔?半年", _const("FREQ=MONTHLY;INTERVAL=6")),
        # "年底" is the year's last day, as "到年底为止" reads; "年初" (some day early in the year) is not read.
        (
            r"每(?:一)?年的?(?:年底|年末)",
            _const("FREQ=YEARLY;BYMONTH=12;BYMONTHDAY=-1"),
        ),  # six months, unlike 每半个月 (15 days? twice?)
        (rf"每(?P<k>{N})?个?年{TITLE}|每年{TITLE}", _yearly),
        (r"每(?:个|一个)?季度?的?(?:(?P<end>末|底|最后一天)|(?P<begin>第一天|初|首日|头一天))?" + TITLE, _quarter),
        (
            rf"每(?:过?(?P<k>{N})个|个|一个)?月(?:的|逢|的逢)?(?:(?P<day>{N}[号日](?:[和、及与,，]{N}[号日])*|{N}(?![\d零一二两三四五六七八九十号日千百万块元个次天周月年点时分小钟]))|倒数第(?P<nlast>{N})天|(?P<last>最后一天|月底|月末|底|末)|"
            rf"(?P<first>第一天|月初|初)|(?:第(?P<pos>{N})|(?P<pos2>最后一?|倒数第一))个?{WD}(?P<wd>{D1}))?(?:[一1]次)?"
            + TITLE,
            _monthly,
        ),
        (rf"隔周的?{WD}?(?P<days>{DAYS})", lambda m: f"FREQ=WEEKLY;INTERVAL=2;BYDAY={_cn_days(m['days'])}"),
        (
            rf"(?:每过?|(?<=后))(?:(?P<skip>隔)(?P<k>{N})?|(?P<k2>{N}))个?{WD}(?:的)?(?:{WD}(?P<days>{DAYS}))?(?:[一1]次)?",
            lambda m: _weekly_k(m),
        ),
        # A range of weekdays: "每周一到周五", "周一至周五每天".
        (rf"每{WD}(?P<a>{D1})(?:到|至|-|~)(?:{WD})?(?P<b>{D1})(?:的?每天)?", lambda m: _weekday_range(m)),
        (rf"{WD}(?P<a>{D1})(?:到|至|-|~)(?:{WD})?(?P<b>{D1})的?每(?:天|日)", lambda m: _weekday_range(m)),
        (r"每(?:个|逢)?(?:周末|星期末|礼拜末)", _const("FREQ=WEEKLY;BYDAY=SA,SU")),
        (
            rf"每(?:个|一个|逢)?{WD}(?:的)?(?:{WD}?(?P<days>{DAYS}))?(?:[一1]次)?" + TITLE,
            lambda m: "FREQ=WEEKLY" + (f";BYDAY={_cn_days(m['days'])}" if m["days"] else ""),
        ),
        (
            rf"(?:(?:每|(?<=后))(?P<skip>隔)(?P<k>{N})?[天日]|每过?(?P<k2>{N})[天日]|(?P<alt>隔天|隔日))(?:[一1]次)?",
            lambda m: _daily_k(m),
        ),
        (
            rf"每天|每日(?!报)|天天(?=[早晚上下中午夜凌\d一二三四五六七八九十都要去给提记吃喝做写跑学练背打读看]|$)"
            rf"|每(?:个)?{_EARLY}",
            _const("FREQ=DAILY"),
        ),
        # English.
        (
            rf"\b(?:(?:on\s+)?the|every|each)\s+(?P<pos>first|second|third|fourth|last)\s+(?P<days>{EWD})\s+of\s+(?:every|each|the)\s+month\b",
            _en_nth,
        ),
        (
            r"\b(?:on\s+)?the\s+last\s+day\s+of\s+(?:every|each|the)\s+month\b|\b(?:every|each)\s+month\s+on\s+the\s+last\s+day\b",
            _const("FREQ=MONTHLY;BYMONTHDAY=-1"),
        ),
        (
            rf"\b(?:on\s+)?the\s+(?P<day>{_EN_MDAYS})\s+of\s+(?:every|each|the)\s+month\b"
            rf"|\b(?:every|each)\s+month\s+on\s+the\s+(?P<day2>{_EN_MDAYS})",
            lambda m: _en_monthday_k(m),
        ),
        (
            r"\b(?:on\s+)?the\s+(?P<end>last|first)\s+day\s+of\s+(?:every|each|the)\s+quarter\b",
            lambda m: _QUARTER_RULES["end" if m["end"].lower() == "last" else "begin"],
        ),
        (
            rf"\b(?:every|each)\s+year\s+on\s+(?P<mo>{EMON})\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b"
            rf"|\b(?:every|each)\s+(?P<mo2>{EMON})\s+(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\b",
            lambda m: _en_yearly_k(m),
        ),
        (
            rf"\b(?:every|each)\s+(?P<other>(?:other|second|2nd)\s+)?(?P<days>{EDAYS})\b"
            rf"|\b(?:on\s+)?(?P<plural>{_PLURAL}(?:(?:,\s*|\s+and\s+|\s*&\s*){_PLURAL})*)\b",
            lambda m: _en_weekly_days_k(m),
        ),
        (
            r"(?:\b(?:every|each)\s+weekday\b|\bweekdays\b|\bon\s+weekdays\b)(?:\s*\((?:monday\s+to\s+friday|mon-fri)\))?",
            _const("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
        ),
        (r"\b(?:every|each)\s+weekend\b|\b(?:on\s+)?weekends\b", _const("FREQ=WEEKLY;BYDAY=SA,SU")),
        (rf"\b(?:bi-?weekly|fortnightly)(?:\s+on\s+(?P<days>{EDAYS}))?\b", lambda m: _en_biweekly(m)),
        (
            rf"\b(?:every|each)\s+(?:(?P<k>{ENUM}|other|second)\s+)?(?P<unit>day|week|month|year|quarter)s?\b(?:\s+on\s+(?P<days>{EDAYS}))?",
            _en_every,
        ),
        (rf"\b(?:every|each)(?:\s+single)?{_EN_TIME}|\b(?:every|each)\s+single\s+day\b", _const("FREQ=DAILY")),
        (
            rf"\b(?P<k>{ENUM}|a)\s+(?P<unit>day|week|month)s?(?=\s+after\s+(?:i|you)\s+(?:finish|complete|am\s+done))",
            _en_every,
        ),
        (r"\b(?:daily|nightly)\b", _const("FREQ=DAILY")),
        (
            rf"\bweekly(?:\s+on\s+(?P<days>{EDAYS}))?\b",
            lambda m: "FREQ=WEEKLY" + (f";BYDAY={_en_days(m['days'])}" if m["days"] else ""),
        ),
        (r"\bmonthly\b", _const("FREQ=MONTHLY")),
        (r"\bquarterly\b", _const("FREQ=MONTHLY;INTERVAL=3")),
        (r"\b(?:yearly|annually)\b", _const("FREQ=YEARLY")),
    )
)


_WEEK_ORDER = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


def _weekday_range(m: re.Match[str]) -> str | None:
    a, b = _WEEK_ORDER.index(CN_WEEKDAY[m["a"]]), _WEEK_ORDER.index(CN_WEEKDAY[m["b"]])
    if a >= b:
        return None  # "周五到周一" wraps a weekend: say unreadable rather than guess
    return "FREQ=WEEKLY;BYDAY=" + ",".join(_WEEK_ORDER[a : b + 1])


def _weekly_k(m: re.Match[str]) -> str:
    k = _n(m["k"] or m["k2"]) + (1 if m["skip"] else 0)
    days = _cn_days(m["days"]) if m["days"] else ""
    return f"FREQ=WEEKLY{_interval(k)}" + (f";BYDAY={days}" if days else "")


def _daily_k(m: re.Match[str]) -> str:
    if m["alt"]:
        return "FREQ=DAILY;INTERVAL=2"
    return f"FREQ=DAILY{_interval(_n(m['k'] or m['k2']) + (1 if m['skip'] else 0))}"


def _en_monthday_k(m: re.Match[str]) -> str | None:
    days = sorted({int(d) for d in re.findall(r"\d{1,2}", m["day"] or m["day2"])})
    if len(days) == 1:
        return f"FREQ=MONTHLY;{_monthday(days[0])}"
    return f"FREQ=MONTHLY;BYMONTHDAY={','.join(map(str, days))}" if days[-1] < 29 else None  # as 每月15号和30号


def _en_yearly_k(m: re.Match[str]) -> str | None:
    mo = EN_MONTH.get((m["mo"] or m["mo2"])[:3].lower())
    return f"FREQ=YEARLY;BYMONTH={mo};BYMONTHDAY={int(m['day'] or m['day2'])}" if mo else None


def _en_weekly_days_k(m: re.Match[str]) -> str:
    days = _en_days(m["days"] or m["plural"])
    return f"FREQ=WEEKLY{_interval(2 if m['other'] else 1)};BYDAY={days}"


def _en_biweekly(m: re.Match[str]) -> str:
    return "FREQ=WEEKLY;INTERVAL=2" + (f";BYDAY={_en_days(m['days'])}" if m["days"] else "")


# A date said apart from a bare "每年" ("我妈农历八月十二生日，每年提醒我") belongs to the rule.
_LOOSE_DATE = re.compile(
    rf"(?P<lunar>农历|阴历)?(?P<mo>{N})月(?P<d>{MD})[日号]?|(?P<fest>{FEST})节?|(?P<civil>{CIVIL})"
)
# What a reader may not be followed by: a rule continuing beyond what the table reads.
_SUSPECT = re.compile(
    r"的?(?:第[一二三四五六七八九十\d]|[和及与]第|之外|以外|除外|除了|双数|单数|半|奇数|偶数"
    # a position the reader did not take ("每月|最后一个工作日", "每月|中旬", "每年|年初")
    rf"|最后|倒数|[上中下]旬|月中|年初|年中|年底|年末|[\u4e00-\u9fff]{{1,3}}节|{N}月"  # "每年|开斋节": a festival we don't know
    # a list the reader did not finish ("每月15号|和月底", "每年春节|和中秋")
    rf"|[和及与、](?:每|月底|月末|月初|年底|{FEST}|{TERM}|{WD}{D1}|{N}[号日]))"
    r"|\s+(?:full\s+moon|and\s+a\s+half|except|in\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)",
    IC,
)
# A period after a repetition word: without one ("每个人", "每次", "everyone") it is not repetition.
_PERIODISH = re.compile(
    r"每隔?(?:[个一]|\d+|[两三四五六七八九十半]+)?个?(?:小时|钟头|分钟)"  # finer than a day: said, never kept
    r"|每(?:隔|逢|过|[个一]?(?:天|日|周|星期|礼拜|月|年|季|工作日|休息日|节|晚|早))"
    + TITLE
    + r"|每[\d两三四五六七八九十半双单]"
    r"|\b(?:every|each)\s+(?:other|second|third|fourth|last|\d+(?:st|nd|rd|th)?|day|week|month|year|quarter|morning|night|evening|full|\w+day|hour|minute|half)\b"
    r"|\b(?:once|twice|thrice|\w+\s+times)\s+(?:a|per|every)\s+(?:day|week|month|year)\b",
    IC,
)
_PERIOD_CHARS = frozenset("日天周月年季外半期拜末底号初旬")
_WORDS_END = re.compile(r"[，,。；;！!？?\n]|提醒|叫我|让我|要|都|给我|\s+(?:to|remind)\b", IC)


# --- bounds -------------------------------------------------------------------------------------


def _month_end(y: int, mo: int) -> date:
    return date(y, mo, calendar.monthrange(y, mo)[1])


def _future(today: date, mo: int, d: int) -> date | None:
    try:
        day = date(today.year, mo, min(d, calendar.monthrange(today.year, mo)[1]))
    except ValueError:
        return None
    return day if day >= today else day.replace(year=today.year + 1)


def _until_cn(m: re.Match[str], today: date) -> date | None:
    if m["ye"]:
        return date(today.year, 12, 31)
    if m["mo2"]:
        return _future(today, _n(m["mo2"]), _n(m["d2"]))
    if m["mo"] and m["d"]:
        return _future(today, _n(m["mo"]), _n(m["d"]))
    if m["mo"]:
        mo = _n(m["mo"])
        if not 1 <= mo <= 12:
            return None
        end = _month_end(today.year, mo)
        return end if end >= today else _month_end(today.year + 1, mo)
    return _month_end(today.year, today.month)


def _until_en(m: re.Match[str], today: date) -> date | None:
    if m["unit"]:
        return date(today.year, 12, 31) if m["unit"].lower() == "year" else _month_end(today.year, today.month)
    mo = EN_MONTH.get(m["mo"][:3].lower())
    return _future(today, mo, int(m["d"])) if mo else None


def _next_monday(today: date) -> date:
    return today + timedelta(days=7 - today.weekday())


def _start(word: str, today: date) -> date | None:
    w = word.lower()
    if w in ("下周", "下个星期", "下星期", "下礼拜", "next week"):
        return _next_monday(today)
    if w in ("下个月", "下月", "next month"):
        return date(today.year + (today.month == 12), today.month % 12 + 1, 1)
    offsets = {"今天": 0, "明天": 1, "后天": 2, "today": 0, "tomorrow": 1}
    if w in offsets:
        return today + timedelta(days=offsets[w])
    if m := re.fullmatch(rf"下(?:周|个?星期|个?礼拜)({D1})", w):
        return _next_monday(today) + timedelta(days=list(CN_WEEKDAY).index(m[1]) % 7)
    if m := re.fullmatch(rf"next\s+({EWD})", w):
        return _next_monday(today) + timedelta(days=list(EN_WEEKDAY).index(m[1][:3]))
    if m := re.fullmatch(rf"({N})月({N})[日号]", w):
        return _future(today, _n(m[1]), _n(m[2]))
    if m := re.fullmatch(rf"({EMON})\s+(\d{{1,2}})(?:st|nd|rd|th)?", w):
        mo = EN_MONTH.get(m[1][:3])
        return _future(today, mo, int(m[2])) if mo else None
    return None


_UNTIL_CN = re.compile(
    rf"(?:一直|直)?到(?:(?P<ye>今年年底|年底|年末)|(?:(?P<mo>{N})月(?:底|末|(?P<d>{N})[日号])|(?:本月|这个月|月)底))(?:为止|结束)?|截止到?(?:(?P<mo2>{N})月(?P<d2>{N})[日号])"
)
_UNTIL_EN = re.compile(
    rf"\buntil\s+(?:the\s+end\s+of\s+(?:the|this)\s+(?P<unit>year|month)|(?P<mo>{EMON})\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?)\b",
    IC,
)
_COUNT_N = r"(?:\d{1,4}|[一二两三四五六七八九十百千]{1,4})"  # 共2000次 must be seen to be refused
_COUNT_CN = re.compile(
    rf"(?:连续|持续|坚持)(?P<n>{_COUNT_N})(?P<unit>天|个?星期|周|个?礼拜|个?月|年|次)|共(?P<n2>{_COUNT_N})次|(?P<n3>{_COUNT_N})次(?:为止|就好|就行|结束)"
)
_COUNT_EN = re.compile(
    rf"\bfor\s+(?P<n>{ENUM}|a|an)\s+(?P<unit>day|week|month|year)s?\b|\b(?P<n2>{ENUM})\s+times\b", IC
)
_START_CN = re.compile(
    rf"从(?P<w>下周{D1}?|下个?星期{D1}?|下个?礼拜{D1}?|下个?月|今天|明天|后天|{N}月{N}[日号])(?:开始|起)"
)
_START_EN = re.compile(
    rf"\bstarting\s+(?:from\s+)?(?:on\s+)?(?P<w>next\s+week|next\s+month|tomorrow|today|next\s+{EWD}|{EMON}\s+\d{{1,2}}(?:st|nd|rd|th)?)\b",
    IC,
)
_FROM_DONE = re.compile(
    r"(?:做完|完成|搞定|弄完|干完)(?:之后|以后|后)|\bafter\s+(?:i|you)\s+(?:finish|complete|am\s+done|do)(?:\s+it)?\b"
    r"|\bafter\s+(?:each\s+)?completion\b",
    IC,
)


def _count(m: re.Match[str], core: str, first: date | None, today: date) -> str:
    """COUNT when the unit is the rule's own ("每周…连续三周"); otherwise an UNTIL covering the span."""
    n = _n(m["n"] or m["n2"] or m["n3"])
    unit = (m["unit"] or "次").lower().lstrip("个").rstrip("s")
    freq = UNIT_FREQ.get(unit)
    if freq is None or freq in core:
        return f"COUNT={n}"
    start = first or today
    days = {"DAILY": 1, "WEEKLY": 7, "MONTHLY": 30, "YEARLY": 365}[freq] * n
    return f"UNTIL={(start + timedelta(days=days - 1)).strftime('%Y%m%d')}T235959"


# --- assembly -----------------------------------------------------------------------------------


def _first_reading(text: str) -> tuple[re.Match[str], str | None] | None:
    best: tuple[re.Match[str], str | None] | None = None
    for pattern, build in READERS:
        m = pattern.search(text)
        if m and (best is None or m.start() < best[0].start()) and m.end() > m.start():
            best = (m, build(m))
            if m.start() == 0:
                break
    return best


def _unreadable_words(text: str, start: int, at_least: int = 0) -> tuple[int, int]:
    """The unreadable phrase: up to its last period word ("每逢双数日|浇水"), or four English words;
    never shorter than ``at_least`` (the end of what made it unreadable: "每年春节和中秋|回家")."""
    end = _WORDS_END.search(text, start + 1)
    stop = min(end.start() if end else len(text), start + (40 if text[start].isascii() else 16))
    if text[start].isascii():
        words = re.match(r"\S+(?:\s+\S+){0,3}", text[start:stop])
        return start, max(at_least, start + (words.end() if words else stop - start))
    periods = (i for i in range(start, stop) if text[i] in _PERIOD_CHARS and text[i + 1 : i + 2] not in ("报", "刊"))
    last = max(max(periods, default=-1 if at_least else stop - 1), at_least - 1)
    if text[last] in "周期拜" and last + 1 < stop and text[last + 1] in CN_WEEKDAY:
        last += 1  # "每月第二和第四个周六": the weekday belongs to the phrase
    return start, last + 1


_CLEAN = (
    (re.compile(r"的(?=[，,。；;！!？?\s]|$)|^\s*的"), ""),
    (re.compile(r"的的"), "的"),
    (re.compile(r"([，,；;])\s*[，,；;]+"), r"\1"),
    (re.compile(r"^[\s，,；;、]+|[\s，,；;、]+$"), ""),
    (re.compile(r"\s+([,.;!?])"), r"\1"),
    (re.compile(r"\s{2,}"), " "),
)


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    out, pos = [], 0
    for a, b in sorted(spans):
        if a >= pos:
            out.append(text[pos:a])
            pos = b
    out.append(text[pos:])
    rest = " ".join(p.strip(" ") for p in out if p.strip(" ")) if text.isascii() else "".join(out)
    for pattern, repl in _CLEAN:
        rest = pattern.sub(repl, rest)
    return rest.strip()


def _extras(text: str, core: str, today: date, spans: list[tuple[int, int]]) -> tuple[list[str], date | None]:
    parts: list[str] = []
    first: date | None = None
    for pattern in (_START_CN, _START_EN):
        if m := pattern.search(text):
            first = _start(m["w"], today)
            spans.append(m.span())
    for pattern, conv in ((_UNTIL_CN, _until_cn), (_UNTIL_EN, _until_en)):
        if (m := pattern.search(text)) and (day := conv(m, today)):
            parts.append(f"UNTIL={day.strftime('%Y%m%d')}T235959")
            spans.append(m.span())
    for pattern in (_COUNT_CN, _COUNT_EN):
        if m := pattern.search(text):
            parts.append(_count(m, core, first, today))
            spans.append(m.span())
    if m := _FROM_DONE.search(text):
        parts.append("X-FROM=COMPLETION")
        spans.append(m.span())
    return parts, first


def _loose_date(text: str, core: str, spans: list[tuple[int, int]]) -> str:
    if core != "FREQ=YEARLY" or not (m := _LOOSE_DATE.search(text)):
        return core
    spans.append(m.span())
    if m["fest"]:
        mo, d = FESTIVALS[m["fest"]]
        return f"RSCALE=CHINESE;FREQ=YEARLY;BYMONTH={mo};BYMONTHDAY={d}"
    if m["civil"]:
        return f"FREQ=YEARLY;{CIVIL_FESTIVALS[m['civil']]}"
    lunar = "RSCALE=CHINESE;" if m["lunar"] else ""
    return f"{lunar}FREQ=YEARLY;BYMONTH={_n(m['mo'])};BYMONTHDAY={_lunar_day(m['d'])}"


# Weekdays said apart from a bare "每周" ("周二周四去健身房，每周都去") are the rule's days; "下周二"
# is one date and stays for the time reader.
_LOOSE_DAYS = re.compile(rf"(?<![上下这本每])(?:{WD})(?P<days>{DAYS})")
# In English, "on Wednesdays" / "on Mon and Thu" after a bare "biweekly" or "every two weeks".
_LOOSE_EN_DAYS = re.compile(rf"\bon\s+(?P<days>{EDAYS})|\b(?P<plural>{_PLURAL}(?:(?:,\s*|\s+and\s+){_PLURAL})*)\b", IC)


def _loose_days(text: str, core: str, spans: list[tuple[int, int]]) -> str:
    if not core.startswith("FREQ=WEEKLY") or "BYDAY" in core:
        return core
    if m := _LOOSE_DAYS.search(text):
        days = _cn_days(m["days"])
    elif m := _LOOSE_EN_DAYS.search(text):
        days = _en_days(m["days"] or m["plural"])
    else:
        return core
    spans.append(m.span())
    return f"{core};BYDAY={days}"


def read_repeat(text: str, *, now: datetime) -> RepeatPhrase | None:
    """The repetition phrase of ``text`` as an RRULE value; None when the sentence has none."""
    if not TRIGGER.search(text):  # most chat messages: one regex scan, a few µs
        return None
    found = _first_reading(text)
    if found is not None and found[1] is None:  # a reader saw it and said it can't be kept faithfully
        a, b = found[0].span()
        return RepeatPhrase(text[a:b], None, _cut(text, [(a, b)]), None, ((a, b),))
    if found is None:
        vague = _PERIODISH.search(text)
        if vague is None:
            return None
        a, b = _unreadable_words(text, vague.start(), vague.end())
        return RepeatPhrase(text[a:b], None, _cut(text, [(a, b)]), None, ((a, b),))
    m, core = found
    assert core is not None
    if suspect := _SUSPECT.match(text, m.end()):
        a, b = _unreadable_words(text, m.start(), suspect.end())
        return RepeatPhrase(text[a:b], None, _cut(text, [(a, b)]), None, ((a, b),))
    spans = [m.span()]
    masked = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]
    core = _loose_days(masked, _loose_date(masked, core, spans), spans)
    parts, first = _extras(text, core, now.date(), spans)
    spans = _drop_overlaps(spans)
    rule: str | None = ";".join([core, *parts])
    if not _keepable(rule, now):
        rule = None  # "每月32号", "每年2月30日", "共2000次": said, but no rule make() would keep
    rest = _cut(text, spans)
    if _PERIODISH.search(rest):
        # Two repetitions in one sentence: say unreadable rather than pick one. (Not read_repeat(rest):
        # that recursed once per repetition word, so a long pasted text overflowed the stack.)
        rule = None
    return RepeatPhrase(_said(text, m), rule, rest, first, tuple(sorted(spans)))


def _keepable(rule: str | None, now: datetime) -> bool:
    try:
        make(rule or "", start=now, tz=getattr(now.tzinfo, "key", "UTC"))  # the user's zone: UNTIL is wall time
    except RuleError:
        return False
    return True


def _said(text: str, m: re.Match[str]) -> str:
    """The repetition as said: "每晚" even though only "每" is cut (the "晚" stays for the time reader)."""
    words = m.group(0).rstrip("的 ")
    if words in ("每", "每个") and (part := _PART_OF_DAY.match(text, m.end())):
        return words + part.group(0)
    if (part := re.match(r"\s+(?:morning|night|evening|afternoon)\b", text[m.end() :], IC)) and words.isascii():
        return words + part.group(0)
    return words


_PART_OF_DAY = re.compile(_EARLY[3:-1])


def _drop_overlaps(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    kept: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if kept and a < kept[-1][1]:
            kept[-1] = (kept[-1][0], max(b, kept[-1][1]))
        else:
            kept.append((a, b))
    return kept
