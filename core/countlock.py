"""Deterministic explicit-count extraction for task queries (brief §3, "explicit count lock").

``extract_count(text)`` reads a count the user *said* — "来一个", "来个", "给我两个", "前 3 个",
"前三条", "top5", "Top 5", "仨", "俩", "三条简单任务", "再来两个" — and nothing else. It never
matches substrings blindly: a number only counts when it sits in a count construction.

Numbers (``_read_number``): digits (up to 4, fullwidth folded by NFKC), Chinese numerals up to
九千九百九十九 (两=2, "一百二十", "两百", "一百零五", "一百五" = 150); 俩=2 and 仨=3 stand alone.

* approximations lock the number said and set ``approximate``: "二十来个" → 20, "十多条" → 10,
  "十余个" → 10; "十几个" → 15 and "二十几条" → 25 (几 as a middle digit, 5); context words
  大概/大约/约/差不多/估计 before or 左右/上下 after ("五个左右") only set ``approximate``;
* ranges lock their upper bound: "一两个" → 2, "三两个" → 3, "两三个" → 3, "三五条" → 5,
  "二三十个" → 30, "十一二个" → 12, "3到5个" / "3-5个" / "三至五条" → 5;
* large numbers are kept as said (no clamping here; the query graph clamps ``limit``).

Before matching, idioms are masked (``ALL_IDIOMS`` / ``NEUTRAL_IDIOMS``, tables as data):

* "every one of them" — "一条不落", "一件不落", "一个不剩", "一样不少", "一个都别落下", "一条也不能漏"
  (一 + classifier + optional 都/也 + a negation + 落/漏/少/剩/放过/差 …), "无一遗漏", "一网打尽":
  these set ``wants_all`` and never a count;
* neutral — "一起", "一下", "一点", "一些", "一直", "一定", "一般", "一样" (not after a request verb:
  "挑一样" is a count), "一边", "一会儿", "一五一十", "三番五次", "乱七八糟", "一一", "逐一", "一并",
  "万一", "一口气", "一切" (mostly small talk: "一切都好吗"), …, reduplications "一个一个", "一条条" (one by one), and the 一 of "上一个" /
  "下一个" (a neighbouring item): never a count by themselves — but "下一个任务是什么" / "下一件该做什么"
  asks for the one item that comes next, an implicit singular (1), unlike "下一个工作日".

Ordinals are items, not counts, and are masked too: "第二个", "第三条", "第10个", "倒数第二个",
"最后一个", "最后那个", "头一个", "the second one", "the last one", "the second to last task". The first one is reported in
``ordinal`` (1-based; from the end is negative: 倒数第二 → -2, 最后一个 → -1); nothing consumes it yet.

Count constructions:

* strong
  - ``top N`` / ``TOP3`` / ``first N`` (English, case-insensitive);
  - ``前 N`` + classifier (个/条/件/项/样/只/份/桩), or ``前 N`` + 名/位, or ``前 N`` at the end of a clause
    or before 的 ("排名前五的任务");
  - a request verb (来/给/挑/选/拿/列/显示/看/推荐/找/抽/要/派/弄/搞/捞/拣/瞅瞅/瞧瞧) + N + classifier;
    整 + N + classifier ("先整两个"; "整个项目" is not a count);
  - 俩 / 仨 after a request verb ("来俩", "给我仨");
  - the implicit 1 of a request verb + classifier ("来个", "挑个任务") — unless a said number follows
    at once ("列个前五" → 5, "列个二十来条" → 20); 来 right after a number is the approximation
    ("二十来个"), not the verb.
* weak
  - a bare ``N`` + classifier ("三条简单任务", "3个任务", "最多五条", "不超过三个", "五条以内"), unless
    preceded by 第/有/是/这/那/哪/每/某/其中/前/几 (so "有一个任务叫…", "几十个" do not lock) or followed
    by (a task noun +) 里/中/当中 ("十几个任务里哪些最急" names the set looked into);
  - a range ``N 到/至/-/~ M`` + classifier;
  - 俩 / 仨 on their own as a quantity ("仨简单的").
* implicit singular (only when nothing above matched) — 哪/那 + optional 一 + classifier in a clause
  with a superlative (最…, 先做/先干/先处理, 优先, 首要; not 最近/最后): "哪个最要紧", "最急的那个",
  "哪一件最重要", "先做哪个"; "哪三个最急" says its number (3); "下一个任务是什么" (1); English
  "which one/task" with most/first/…est ("which one is most urgent"). Plurals never: "哪些最要紧",
  "哪几个".
* a set looked into — N + classifier (+ a task noun) + 里/中/当中 — is never a count while something
  is picked from it ("前十个里挑一个" → 1); with nothing picked, a strong one is ("前十个里哪些最急" → 10).

Never a count: a classifier followed by a time unit ("前三个月", "两个小时", "一个星期", "3个工作日"),
a number followed by a time word without classifier ("前两天", "3天内", "下周3", "12月5日", "5号",
"2026-12-15"), numberless quantities ("一些", "几个", "一点", "一下", "来点"), and N + classifier +
都/也 + a negation ("一个都没做完的", "三个都不要").

English (case-insensitive; N is digits, a word number one..twenty from ``EN_NUMBERS``, or "a couple
(of)" = 2, "a pair of" = 2, "a dozen" = 12, "half a dozen" = 6; "a few" is no count):

* strong — ``top N`` / ``first N`` ("first" takes digits or two..twenty: "first one" is an ordinal);
  ``N more`` / ``another N`` ("5 more", "a couple more"); a request verb + N ("give me 3", "pick 2",
  "give me a dozen", "I need two", "let me see 4"); a limit word + N ("at most five", "no more than 3",
  "max of 4", "up to 6", "limit it to 5", "just two", "only three") or N + a limit word ("5 max",
  "three at most", "4 tops"); "N please"; "N is/will be enough/fine" ("3 is enough"); the implicit 1
  of a request verb + a/an (+ up to two words) + task/item/todo/one ("pick a task", "suggest an easy
  one");
* weak — N (+ up to two describing words) + tasks/items/todos ("three tasks", "one task", "3 urgent
  tasks", "a couple of tasks"; not "one of my tasks"), unless after these/those/which/each/every/have/
  has/had, a month name or "#";
* never a count: a number followed by a time or other unit ("first 2 weeks", "5 more minutes",
  "give me 2 days", "a couple of days", "one more thing"); "in 3 days", "next 2 weeks", "3pm",
  "Dec 5", "2 days ago" have no count construction at all.
* "the rest" / "rest of them" set ``wants_all`` like "all" (not "the rest of the week").

Choosing among several: the earliest strong match with a said number wins, then the earliest implicit
1; if there is no strong match, the earliest weak match; then the implicit singular.
"全部/所有/全都/全列/全给我/都列出来/统统/all/everything" and the "every one" idioms set ``wants_all`` — but only
when no explicit count was found (an explicit count always wins).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from core.timeanchor.numerals import CN_DIGITS

__all__ = ["ALL_IDIOMS", "EN_NUMBERS", "NEUTRAL_IDIOMS", "CountLock", "extract_count", "parse_cn_number"]


@dataclass(frozen=True)
class CountLock:
    """What the user said about how many tasks to show."""

    explicit: int | None
    wants_all: bool
    # The substring (of the NFKC-normalised input) that carried the count, and its span there;
    # NFKC keeps fullwidth ASCII one character long, so the span usually indexes the raw input too.
    phrase: str | None = field(default=None, compare=False)
    span: tuple[int, int] | None = field(default=None, compare=False)
    # The item the user pointed at ("第二个" → 2, "倒数第二个" → -2); never a count.
    ordinal: int | None = field(default=None, compare=False)
    # The count was hedged ("二十来个", "五个左右", "两三个").
    approximate: bool = field(default=False, compare=False)


# --- idiom tables ---------------------------------------------------------------------------------
# Set phrases with a numeral that mean "every one of them" (besides the generic pattern below).
ALL_IDIOMS: tuple[str, ...] = (
    "一条不落",
    "一件不落",
    "一项不落",
    "一个不落",
    "一个不剩",
    "一条不剩",
    "一样不少",
    "一个不少",
    "一个不漏",
    "一条不漏",
    "一个不差",
    "一个都别落下",
    "一个都不能少",
    "一条也别漏",
    "一个也不放过",
    "无一遗漏",
    "一网打尽",
)
# Set phrases with a numeral that say nothing about how many.
NEUTRAL_IDIOMS: tuple[str, ...] = (
    "一起",
    "一下",
    "一下子",
    "一点",
    "一点儿",
    "一些",
    "一直",
    "一定",
    "一般",
    "一样",
    "一边",
    "一会",
    "一会儿",
    "一块",
    "一块儿",
    "一口气",
    "一次性",
    "一共",
    "一律",
    "一向",
    "一旦",
    "一再",
    "一致",
    "一番",
    "一时",
    "一路",
    "一阵",
    "一眼",
    "一遍",
    "统一",
    "唯一",
    "同一",
    "一五一十",
    "一清二楚",
    "一干二净",
    "一模一样",
    "一心一意",
    "一举两得",
    "一目了然",
    "一丝不苟",
    "三番五次",
    "三番两次",
    "三天两头",
    "三言两语",
    "三心二意",
    "七上八下",
    "乱七八糟",
    "五花八门",
    "两全其美",
    "十全十美",
    "十万火急",
    "百分之百",
    "百分百",
    "千万",
    "说一不二",
    "独一无二",
    "二话不说",
    "一一",
    "逐一",
    "一并",
    "万一",
    # "一切都好吗" is small talk far more often than "列出一切任务": never a count, and not "all" either.
    "一切",
    "一概",
)
# Context an idiom needs: "挑一样" / "来一样" is a count ("pick one item"); "一样不少" is an all-idiom.
_IDIOM_CONTEXT: dict[str, tuple[str, str]] = {"一样": (r"(?<![来给挑选拿抽要找])", r"(?!\s*不少)")}

_CLS = r"(?:个|条|件|项|样|只|份|桩)"
# 一 + classifier + optional 都/也 + a negation + "leave out": "一条不落", "一个都别落下", "一项也不许漏".
_ALL_IDIOM_GENERIC = (
    rf"一\s*{_CLS}\s*(?:都|也)?\s*(?:不|别|没)\s*(?:要|能|许|准|用|可以|可|得|让)?\s*"
    r"(?:落下?|漏掉?|漏下|少|剩下?|放过|遗漏|错过|差)"
)
# "一个一个", "一条条": one by one.
_REDUPLICATION = rf"一\s*(?P<c>{_CLS})\s*(?:一\s*)?(?P=c)"


def _idiom_re(idioms: tuple[str, ...], *extra: str) -> re.Pattern[str]:
    def alternative(idiom: str) -> str:
        before, after = _IDIOM_CONTEXT.get(idiom, ("", ""))
        return before + re.escape(idiom) + after

    # Longest first, so "一会儿" masks whole and "一下子" is not cut to "一下".
    ordered = sorted(idioms, key=len, reverse=True)
    return re.compile("|".join((*extra, *map(alternative, ordered))))


_ALL_IDIOM_RE = _idiom_re(ALL_IDIOMS, _ALL_IDIOM_GENERIC)
# "上一个" / "下一个" point at a neighbouring item, not a count.
_NEIGHBOUR = rf"(?<=[上下])一(?=\s*{_CLS})"
_NEUTRAL_IDIOM_RE = _idiom_re(NEUTRAL_IDIOMS, _REDUPLICATION, _NEIGHBOUR)
# Masked text keeps its length (spans stay valid); the filler matches no pattern.
_FILLER = "\ue000"

# --- numbers --------------------------------------------------------------------------------------
_CN_CHARS = "零〇一二两三四五六七八九十百千万"
# A number never starts inside another one; 来/多/余/几 after a round number are approximations.
_NUM = (
    rf"(?:(?<![0-9])[0-9]{{1,4}}(?![0-9])|(?<![{_CN_CHARS}])[{_CN_CHARS}]{{1,7}})"
    r"(?:(?<=[0十百千万])[来多余几])?"
)
_NONZERO = {ch: v for ch, v in CN_DIGITS.items() if v}
_UNITS = (("万", 10000), ("千", 1000), ("百", 100), ("十", 10))
_RANGE_PAIR = re.compile("[一二两三四五六七八九]{2}")

# A classifier followed by one of these is a duration / time span, not a count of tasks.
_TIME_AFTER_CLS = (
    r"(?:[多半]*(?:月|小时|钟头|钟|星期|礼拜|周|工作日|季度|季|年|天|日|晚上|夜|早上|上午|下午|中午|白天|分钟|秒)"
    r"|人(?!物)|人的)"
)
# 来 right after a number is "二十来个", not the verb.
_VERB = (
    r"(?<![0-9十百千万])(?:随便挑|随便来|随机来|再来|再给|再挑|来|给我|给|挑|选|拿|列|显示|看看|看|推荐|找|抽|要|派|"
    r"弄|搞|捞|拣|瞅瞅|瞧瞧)"
)
# "一个都不要漏" / "一条也别落下" / "一个都没做完": a negated totality, not a count.
_NEGATED_TOTAL_AFTER = re.compile(r"\s*(?:都|也)\s*(?:不|别|没)")
_BLOCK_BEFORE = ("第", "有", "是", "这", "那", "哪", "每", "某", "其中", "前", "几")
# "十几个任务里哪些最急": N + classifier (+ a task noun) + 里/中 names the set looked into, not a count.
_AMONG_AFTER = re.compile(r"\s*(?:任务|待办|事情|事|活儿|活)?\s*(?:里面|里头|里|当中|之中|中(?![午旬]))")
_APPROX_BEFORE = re.compile(r"(?:大概|大约|约莫|约|差不多|估计)\s*$")
_APPROX_AFTER = re.compile(r"\s*(?:左右|上下|前后)")

# --- English --------------------------------------------------------------------------------------
_EN_NUMBER_WORDS = (
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
)
EN_NUMBERS: dict[str, int] = {word: n for n, word in enumerate(_EN_NUMBER_WORDS, start=1)}
# Multi-word quantities, keyed with single spaces.
_EN_PHRASES: dict[str, int] = {
    "half a dozen": 6,
    "a dozen": 12,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "couple": 2,
    "a pair of": 2,
}
_EN_PHRASE_RE = r"(?<![a-z])(?:half\s+a\s+dozen|a\s+dozen|(?:a\s+)?couple(?:\s+of)?|a\s+pair\s+of)(?![a-z])"


def _en_number(minimum: int = 1) -> str:
    """Digits, a word number from ``EN_NUMBERS`` that is at least ``minimum``, or a quantity phrase."""
    words = "|".join(sorted((w for w, n in EN_NUMBERS.items() if n >= minimum), key=len, reverse=True))
    return rf"(?:{_EN_PHRASE_RE}|(?<![0-9])[0-9]{{1,4}}(?![0-9])|(?<![a-z])(?:{words})(?![a-z]))"


_EN_NUM = _en_number()
# "first one" is an ordinal ("do the first one"), "first three" a count.
_EN_NUM_PLURAL = _en_number(2)
# A number followed by one of these is a duration or some other quantity, not a count of tasks.
_EN_UNIT_AFTER = (
    r"(?!\s*(?:more\s+)?(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|h\b|days?|nights?|weeks?|wks?|months?|years?|"
    r"weekends?|mornings?|afternoons?|evenings?|am\b|pm\b|a\.m|p\.m|o'?clock|times?|things?|questions?|people|"
    r"persons?|%|percent|st\b|nd\b|rd\b|th\b))"
)
# What may follow a request verb + N ("give me 3", "show me five please", "pick 2 for tomorrow").
_EN_TASK_NOUN = r"(?:tasks?|items?|todos?|to-dos?)"
# Up to two describing words before the task noun ("3 urgent tasks", "two easy ones"); not "one of my tasks".
_EN_DESCRIBED = r"(?:(?!(?:of|my|the|your|in|on|at|for|from|to|due|about|more|or|and)(?![a-z]))[a-z-]+\s+){0,2}?"
_EN_COUNT_END = (
    rf"(?=\s*(?:$|[.,!?;:)]|{_EN_DESCRIBED}(?:{_EN_TASK_NOUN}|ones?)(?![a-z])|(?:please|pls|plz|thanks|"
    r"of (?:them|those|these|my)|for|from|due|with|that|which|i|to|more|is|are|will|would|should)(?![a-z])))"
)
_EN_VERB = (
    r"(?<![a-z])(?:give|show|list|get|pick|choose|find|send|suggest|want|need|see|surprise\s+me\s+with)(?:\s+me)?"
)
_EN_LIMIT = (
    r"(?<![a-z])(?:at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to|max(?:imum)?(?:\s+of)?|just|only|"
    r"limit(?:\s+(?:it|that|them|this|the\s+list))?\s+to)"
)
# "5 max", "three at most", "4 tops", "3 or fewer".
_EN_LIMIT_AFTER = r"(?:max(?:imum)?|at\s+most|tops|or\s+(?:less|fewer))(?![a-z])"
# "a/an" + up to two describing words + a singular task noun; "a few tasks" / "a list of" are not one.
_EN_A_TASK = (
    r"an?\s+(?:(?!(?:few|couple|lot|bunch|handful|dozen|list|number|pair|set)(?![a-z]))[a-z-]+\s+){0,2}?"
    r"(?:task|item|todo|to-do|one)(?![a-z])(?!\s*(?:list|overview|summary))"
)
_EN_BLOCK_BEFORE = re.compile(
    r"(?:(?<![a-z])(?:these|those|which|each|every|have|has|had|jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|"
    r"january|february|march|april|june|july|august|september|october|november|december)|#)\s*$",
    re.IGNORECASE,
)

_I = re.IGNORECASE
_STRONG_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(rf"(?<![a-z])top\s*[-_#]?\s*(?P<n>{_EN_NUM}){_EN_UNIT_AFTER}", _I),
    re.compile(rf"(?<![a-z])first\s*[-_#]?\s*(?P<n>{_EN_NUM_PLURAL}){_EN_UNIT_AFTER}", _I),
    re.compile(rf"(?<![a-z])(?:another\s+)?(?P<n>{_EN_NUM})\s+more(?![a-z]){_EN_UNIT_AFTER}", _I),
    re.compile(rf"(?<![a-z])another\s+(?P<n>{_EN_NUM}){_EN_UNIT_AFTER}{_EN_COUNT_END}", _I),
    re.compile(rf"{_EN_VERB}\s+(?P<n>{_EN_NUM}){_EN_UNIT_AFTER}{_EN_COUNT_END}", _I),
    re.compile(rf"{_EN_LIMIT}\s+(?P<n>{_EN_NUM}){_EN_UNIT_AFTER}{_EN_COUNT_END}", _I),
    re.compile(
        rf"(?<![a-z])(?P<n>{_EN_NUM})\s+(?:is|are|will\s+be|would\s+be|should\s+be|will|would|should)\s+"
        r"(?:enough|fine|ok|okay|plenty|do)(?![a-z])",
        _I,
    ),
    re.compile(rf"{_EN_VERB}\s+(?P<n>){_EN_A_TASK}", _I),
    re.compile(rf"(?<![a-z])(?P<n>{_EN_NUM})\s+(?:please|pls|plz)(?![a-z])", _I),
    re.compile(rf"(?<![a-z])(?P<n>{_EN_NUM})\s+{_EN_LIMIT_AFTER}", _I),
    re.compile(rf"前\s*(?P<n>{_NUM})\s*{_CLS}(?!{_TIME_AFTER_CLS})"),
    re.compile(rf"前\s*(?P<n>{_NUM})\s*(?:名|位)"),
    re.compile(rf"前\s*(?P<n>{_NUM})\s*(?=$|[，。,.!！?？、；;:：\s]|给我|看看|吧|的(?!{_TIME_AFTER_CLS}))"),
    re.compile(rf"(?:{_VERB}|整)\s*(?:我|咱)?\s*(?P<n>{_NUM})\s*{_CLS}(?!{_TIME_AFTER_CLS})"),
    # The implicit 1 of "来个"; a said number right after it is the count instead ("列个前五").
    re.compile(rf"{_VERB}\s*(?:我|咱)?\s*(?P<n>){_CLS}(?!{_TIME_AFTER_CLS})(?!\s*(?:前|top|{_NUM}))", _I),
    re.compile(rf"{_VERB}\s*(?:我|咱)?\s*(?P<n>俩|仨)"),
)
_WEAK_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(rf"(?P<lo>{_NUM})\s*(?:到|至|-|~|～|—)\s*(?P<n>{_NUM})\s*{_CLS}(?!{_TIME_AFTER_CLS})"),
    re.compile(rf"(?P<n>{_NUM})\s*{_CLS}(?!{_TIME_AFTER_CLS})"),
    re.compile(r"(?<![我你他她它咱们])(?P<n>俩|仨)(?!人)"),
    re.compile(rf"(?P<n>{_EN_NUM}){_EN_UNIT_AFTER}\s*{_EN_DESCRIBED}{_EN_TASK_NOUN}(?![a-z])", _I),
)
# Implicit singulars: "哪个" / "那个" when the clause asks for the most … one.
# "哪三个最急" names its number: "which three" (哪几个 stays no count).
_WHICH_ONE = re.compile(rf"(?:哪\s*(?P<n>{_NUM})?|那\s*一?)\s*(?:个|件|条|项|桩)(?!{_TIME_AFTER_CLS})")
_SUPERLATIVE = re.compile(r"最(?!近|后|多|少)|先(?:做|干|处理|搞|弄|办|忙)|优先|首要|头号|比较|更(?!新|改)")
_EN_WHICH_ONE = re.compile(r"(?<![a-z])which\s+(?:one|task|item|to-?do)(?![a-z])", _I)
_EN_SUPERLATIVE = re.compile(
    r"(?<![a-z])(?:most|first|top|best|worst|biggest|hardest|easiest|quickest|fastest|earliest|latest|soonest|"
    r"highest|lowest|simplest|shortest|longest|oldest|newest|smallest|largest)(?![a-z])",
    _I,
)
_CLAUSE_END = re.compile(r"[，。,.!！?？；;\n]")
# "下一个任务是什么" / "下一件该做什么": the one item that comes next (not "下一个工作日" / "下一个节日").
_NEXT_ONE = re.compile(
    rf"下\s*[一{_FILLER}]\s*(?:个|件|条|项|桩)(?=\s*(?:任务|待办|事|活|要做|该做|做什么|干什么|干啥|是什么|是啥|呢|$|[？?]))"
)

# --- ordinals -------------------------------------------------------------------------------------
_CN_ORDINAL = re.compile(
    rf"(?P<back>倒数)?\s*第\s*(?P<n>{_NUM})\s*(?:{_CLS}|名|位|(?=$|[，。,.!！?？、；;:：\s的]))"
    rf"|(?P<last>最后|最末)\s*[一那]\s*{_CLS}|(?P<head>头)\s*一\s*{_CLS}"
)
_EN_ORDINAL_WORDS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
}
_EN_ORDINAL = re.compile(
    r"(?<![a-z])the\s+(?:(?P<n>" + "|".join(_EN_ORDINAL_WORDS) + r"|[4-9]th|10th)\s+(?P<tolast>(?:to\s+)?last\s+)?"
    r"|(?P<last>last|final)\s+)(?:one|task|item|to-?do)(?![a-z])",
    _I,
)

_ALL_RE = re.compile(
    r"全部|所有|全都|(?<![安完齐健周])全(?=给我|列|拿出|显示|调出|翻出)|都列出来|都列一下|都给我|都拿出来|都显示|统统|通通|一股脑|都有哪些|都有什么|都有啥|"
    r"(?<![a-z])all(?![a-z])|everything|"
    # "the rest", "rest of them"; not "the rest of the week"
    r"(?<![a-z])(?:the\s+rest|rest\s+of\s+(?:them|those|these))(?![a-z])"
    r"(?!\s+of\s+(?!them|those|these|my\s+tasks|the\s+(?:tasks|list)))",
    _I,
)


def _normalise(text: str) -> str:
    # NFKC folds fullwidth digits/letters/spaces to ASCII without changing CJK characters.
    return unicodedata.normalize("NFKC", text)


def _cn_plain(s: str) -> int | None:
    """ "七", "十五", "两百", "一百零五", "一百五" (= 150), "三千二百", "一千二" (= 1200); None otherwise."""
    value, last_unit, zero = 0, 0, False
    for unit_ch, unit in _UNITS:
        if unit_ch not in s:
            continue
        head, _, s = s.partition(unit_ch)
        if head == "" and unit == 10 and value == 0:
            digit = 1  # "十五"
        elif head in _NONZERO:
            digit = _NONZERO[head]
        else:
            return None
        value, last_unit = value + digit * unit, unit
        zero = s.startswith("零")
        s = s.lstrip("零")
    if not s:
        return value if last_unit else None
    if len(s) != 1 or s not in CN_DIGITS:
        return None
    digit = CN_DIGITS[s]
    # "一百五" is 150, but "一百零五" is 105 and "十五" is 15.
    return value + (digit * last_unit // 10 if last_unit > 10 and not zero else digit)


@lru_cache(maxsize=1024)
def _read_number(token: str) -> tuple[int, bool] | None:
    """(value, approximate) for digits or a Chinese numeral; see the module docstring."""
    token = token.strip()
    if not token:
        return None
    approx = token[-1] in "来多余几"
    if token[-1] in "来多余":
        token = token[:-1]
    elif token[-1] == "几":
        # "十几" → 15, "二十几" → 25: 几 stands for a middle digit.
        token = token[:-1] + "五" if token.endswith("十几") else ""
    if token.isascii() and token.isdigit():
        return int(token), approx
    if token in ("俩", "仨"):
        return (2 if token == "俩" else 3), approx
    if (pair := _RANGE_PAIR.search(token)) is not None:
        a, b = (CN_DIGITS[ch] for ch in pair.group(0))
        if a == b:
            return None
        # "两三" / "三两" / "二三十": a rough range; lock its upper bound.
        token = token[: pair.start()] + pair.group(0)[0 if a > b else 1] + token[pair.end() :]
        approx = True
    value = _cn_plain(token) if token else None
    return None if value is None else (value, approx)


def parse_cn_number(token: str) -> int | None:
    """Parses digits or a Chinese numeral up to 九千九百九十九 (俩=2, 仨=3); ranges give their upper bound.

    Returns None for anything that is not a number ("零" alone is 0).
    """
    read = _read_number(token)
    return None if read is None else read[0]


def _parse_token(token: str) -> tuple[int, bool] | None:
    low = " ".join(token.lower().split())
    if low in EN_NUMBERS:
        return EN_NUMBERS[low], False
    if low in _EN_PHRASES:
        return _EN_PHRASES[low], False
    return _read_number(token)


def _blocked(text: str, start: int) -> bool:
    before = text[max(0, start - 2) : start]
    return any(before.endswith(b) for b in _BLOCK_BEFORE) or bool(
        _EN_BLOCK_BEFORE.search(text[max(0, start - 12) : start])
    )


_Hit = tuple[int, int, int, bool]  # start, end, count, approximate


def _first_match(text: str, patterns: tuple[re.Pattern[str], ...], *, weak: bool, among: bool = False) -> _Hit | None:
    """Earliest (start, end, count, approximate) over all patterns; said numbers before implicit ones,
    ties go to the longer match. A count that names the set looked into ("前十个里…") is taken only
    when ``among`` allows it."""
    best: tuple[tuple[int, int, int], _Hit] | None = None
    for pat in patterns:
        for m in pat.finditer(text):
            if weak and _blocked(text, m.start()):
                continue
            if not among and _AMONG_AFTER.match(text, m.end()):
                continue
            if _NEGATED_TOTAL_AFTER.match(text, m.end()):
                continue
            tok = m.group("n")
            read = _parse_token(tok) if tok else (1, False)
            if read is None or read[0] <= 0:
                continue
            key = (0 if tok else 1, m.start(), m.start() - m.end())
            if best is None or key < best[0]:
                # A range ("3到5个") is as hedged as "两三个".
                best = (key, (m.start(), m.end(), read[0], read[1] or "lo" in pat.groupindex))
    return None if best is None else best[1]


def _clause(text: str, start: int, end: int) -> str:
    """The clause (between punctuation) around text[start:end]."""
    left = max((m.end() for m in _CLAUSE_END.finditer(text, 0, start)), default=0)
    right = _CLAUSE_END.search(text, end)
    return text[left : right.start() if right else len(text)]


def _implicit_singular(text: str) -> _Hit | None:
    """ "哪个最要紧", "最急的那个", "which one is most urgent" → 1; "哪三个最急" → 3."""
    for m in _WHICH_ONE.finditer(text):
        said = _read_number(m.group("n")) if m.group("n") else None
        if _SUPERLATIVE.search(_clause(text, m.start(), m.end())) and (said is None or said[0] > 0):
            return m.start(), m.end(), said[0] if said else 1, False
    if (nxt := _NEXT_ONE.search(text)) is not None:
        return nxt.start(), nxt.end(), 1, False
    m2 = _EN_WHICH_ONE.search(text)
    if m2 is not None and _EN_SUPERLATIVE.search(text):
        return m2.start(), m2.end(), 1, False
    return None


def _mask(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    chars = list(text)
    for a, b in spans:
        chars[a:b] = _FILLER * (b - a)
    return "".join(chars)


def _ordinals(text: str) -> tuple[int | None, list[tuple[int, int]]]:
    """The first ordinal ("第二个" → 2, "倒数第二" → -2, "the last one" → -1) and every ordinal's span."""
    found: list[tuple[int, int, int]] = []
    for m in _CN_ORDINAL.finditer(text):
        if m.group("last") or m.group("head"):
            found.append((m.start(), m.end(), -1 if m.group("last") else 1))
        elif (read := _read_number(m.group("n"))) is not None:
            found.append((m.start(), m.end(), -read[0] if m.group("back") else read[0]))
    for m in _EN_ORDINAL.finditer(text):
        word = (m.group("n") or "").lower()
        n = _EN_ORDINAL_WORDS.get(word) or (int(word[:-2]) if word else 1)
        found.append((m.start(), m.end(), -n if (m.group("last") or m.group("tolast")) else n))
    found.sort()
    return (found[0][2] if found else None), [(a, b) for a, b, _ in found]


def _approximate(text: str, start: int, end: int) -> bool:
    return bool(_APPROX_BEFORE.search(text[max(0, start - 4) : start]) or _APPROX_AFTER.match(text, end))


@lru_cache(maxsize=512)
def extract_count(text: str) -> CountLock:
    """Reads the explicit count (or "all") the user asked for; see the module docstring for the rules."""
    norm = _normalise(text or "")
    all_spans = [m.span() for m in _ALL_IDIOM_RE.finditer(norm)]
    masked = _mask(norm, all_spans)
    ordinal, ordinal_spans = _ordinals(masked)
    masked = _mask(masked, ordinal_spans + [m.span() for m in _NEUTRAL_IDIOM_RE.finditer(masked)])
    hit = (
        _first_match(masked, _STRONG_PATTERNS, weak=False)
        or _first_match(masked, _WEAK_PATTERNS, weak=True)
        or _implicit_singular(masked)
        # "前十个里哪些最急": with nothing picked from it, the set said is the count.
        or _first_match(masked, _STRONG_PATTERNS, weak=False, among=True)
    )
    if hit is not None:
        start, end, count, approx = hit
        return CountLock(
            explicit=count,
            wants_all=False,
            phrase=norm[start:end],
            span=(start, end),
            ordinal=ordinal,
            approximate=approx or _approximate(norm, start, end),
        )
    if all_spans:
        a, b = all_spans[0]
        return CountLock(explicit=None, wants_all=True, phrase=norm[a:b], span=(a, b), ordinal=ordinal)
    m = _ALL_RE.search(masked)
    if m is not None:
        return CountLock(explicit=None, wants_all=True, phrase=m.group(0), span=m.span(), ordinal=ordinal)
    return CountLock(explicit=None, wants_all=False, ordinal=ordinal)
