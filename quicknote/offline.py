"""Offline (rule-based) extraction for 随口记: a casual sentence → ``NoteDraft`` without a model call.

Title: the sentence minus
  1. the lead-in ("帮我记一下", "记一下", "记个", "提醒我", "添加待办：", "帮我加个任务", "别忘了",
     a creation phrase with a count ("新建一个任务：", "加一条待办", "安排个任务，", "添个任务"), a marker
     before a colon (``core.lexicon.COLON_MARKERS``: "待办：", "任务:", "随手记：", "备忘录：", "记一笔：",
     "todo:"); in English "remind me to", "don't forget to", "add a task: / to", "todo:", "note:", "i need to",
     "i have to", "please"), and a priority label after it — one or more priority/size words, optionally
     with "的事", before a separator ("很重要：", "不重要但很麻烦的事：", "简单的小事：", "优先级低：",
     "可做可不做：", "头等大事：") — or at the end after a separator ("，不重要但很麻烦", "，无关紧要");
     an offhand adverb at the head ("顺手/顺便/随手/抽空") is
     a priority hint, not part of the task ("顺手把快递拿了" → "把快递拿了": a 把-sentence keeps the 了
     its bare verb needs);
  2. an urgency-threshold phrase ("提前一天提醒我", "周三开始要紧", see below);
  3. the time phrase — exactly the ``phrase`` ``core.timeanchor.resolve_time`` recognised, plus a
     trailing "前/之前/以前" (kept in ``time_text``: "月底前") and a leading "在/于/到"; a due-word right
     after it ("下周三截止的设计稿", "周五到期的还款") leaves the title with it (not kept in ``time_text``);
  4. a leading subject or modal ("我要", "我得", "需要", "要", "记得") and filler ("一下", "吧", "哦",
     "啊", "呀", trailing "了", "的事", "这件事", punctuation at either end; in English a trailing
     "please"/"thanks"/"due"). An English title closes the gap a cut-out phrase leaves with a space
     ("call mom tomorrow at 8pm about the trip" → "call mom about the trip"), not "，".
  Nothing left → ``title`` None (the graph then asks a clarifying question).

``time_text`` is that phrase verbatim (None when there is none); ``deadline_at`` is filled with the
resolver's deadline only as the fallback the model contract allows.

Time phrases the resolver cannot fully account for are handed on verbatim, with no ``deadline_at``,
so the graph asks instead of guessing (nothing is written):
  * date/clock-shaped text right next to the resolved phrase, which the resolver stopped short of —
    the phrase is widened over it: "13月5日" (read as "5日"), "明天25点" / "明天3点75分" (read as
    "明天"), "下下下个月" / "大大大后天" (read as one step fewer);
  * a time-shaped fragment the resolver did not read at all: a month-day ("2月30日"), a leap month
    ("下个闰月"), an over-long 下/上 chain, or, at the start of a clause, a month > 12, a day > 31 or
    an hour > 24 ("13月", "32号", "25点"). Numbered places are not dates ("5号楼", "3号线").
Note: for the two "widened" kinds resolve_time still reads the valid part of ``time_text``, so the
graph only asks once ``anchor_deadline`` checks that the window covers the whole phrase.

Decisions:
  * "After X" (an open-ended start: "12月5号以后去体检", "从下周开始健身") says when a task can start,
    not when it is due: no deadline, ``time_text`` None, the phrase kept out of the title ("去体检");
    the group follows the other rules (no deadline → 2). No urgency threshold either — becoming
    possible is not becoming urgent. Asking would cost a turn for a sentence that is clear as said.
  * A deadline already in the past ("昨天交报告") is kept as said: the task is written overdue, in
    group 1 ("截止时间已过"), and the confirmation shows the past date, so a slip ("昨天" for "明天") is
    visible at once and cheap to fix; a model extraction would resolve the same way. Asking instead
    would have to happen in the graph (``anchor_deadline``), for every extraction, not here.

Priority group (1 重要且紧急, 2 重要不紧急, 3 简单不重要, 4 不简单不重要), first rule that applies:
  1. explicitly unimportant ("不重要/无所谓/不要紧/次要"): + hard ("麻烦/复杂/费劲/不简单") → 4; else 3;
  2. small/easy ("顺手/简单/小事/随手/顺便/举手之劳") and not important → 3;
  3. important ("重要/关键/务必/一定要/千万/必须") and (urgent or due within 48 h) → 1; important → 2;
  4. urgent ("紧急/急/马上/尽快/立刻/赶紧/今天必须") → 1;
  5. explicitly not urgent ("不急/慢慢来") → 2 (4 when also "麻烦但不重要", handled in 1);
  6. by deadline: already past → 1 ("截止时间已过"); due within 48 h → 1; a later deadline → 2;
  7. no deadline and no words → 2 (the schema's default: a task worth writing down is treated as
     important until the user says otherwise; an urgency threshold then promotes it when due).
``priority_reason`` is a few Chinese words naming the rule.

``urgency_threshold_text``: "周三开始要紧/从周三起要紧" → "周三" (verbatim, resolvable on its
own). A lead relative to the deadline ("提前一天/提前两小时提醒我") does not resolve on its own (the
resolver reads "提前一天" as *yesterday*), so it becomes the absolute moment deadline − lead,
written as a phrase the resolver reads back to exactly that moment ("2026年12月3日15点0分"). With
no deadline, or if that round trip fails → None, and the pipeline's default threshold applies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from core.hanzi import fold, unfold
from core.lexicon import COLON_MARKERS, priority_signals
from core.recurrence import read_repeat
from core.timeanchor import TimeWindow, deadline_of, numdate, resolve_time
from core.timeanchor.numerals import to_int
from core.turn import HistoryTurn, OfflineSignal
from quicknote.brackets import Masked, bracket_spans, is_annotation, mask, strip_placeholders
from quicknote.draft import NoteDraft
from quicknote.estimate import extract_estimate
from quicknote.pending import WARNING_RE, is_no, is_yes
from quicknote.placement import asks, read_placement

__all__ = [
    "is_bracket_label",
    "lead_time",
    "offline_confirm_signal",
    "offline_extract_note",
    "strip_label_head",
    "strip_lead",
]

NEAR_DEADLINE = timedelta(hours=48)

_COLON_MARKERS = "|".join(sorted(COLON_MARKERS, key=len, reverse=True))
_LEAD_RE = re.compile(
    r"^(?:(?:请|麻烦你?|劳驾|你|能不能|可以|可不可以)?(?:帮我|帮忙|给我|替我|帮)?\s*"
    r"(?:记一下|记下来|记下|记个|记一个|记一条|记住|记录一下|记录下|记录|记上|备忘一下|备忘(?!录)|"
    r"提醒一下我|提醒下我|提醒我一下|提醒我|提醒一下|"
    r"(?:添加|新增|新建|创建|录入|加|建|添|安排)(?:上|一下|下)?(?:[一二两三四五六七八九十\d]{0,2}(?:个|条|件|项))?"
    r"(?:新的?)?(?:待办事项|待办|任务|提醒|日程|todo)|"
    r"别忘了|不要忘了|别让我忘了|"
    # a marker before a colon, longest first ("备忘录：" is not "备忘" + "录：")
    rf"(?i:{_COLON_MARKERS})(?=\s*[:：])|"
    r"待办|todo|TODO|备忘|提醒)"
    r"\s*(?:一下)?\s*[:：,，。、\s]*)+"
)
# English lead-ins ("remind me to", "don't forget to", "add a task: / to", "todo:", "note:", "i need to",
# "please"), repeated ("please remind me to").
_EN_LEAD_RE = re.compile(
    r"^(?:(?:please|pls|plz|hey|ok|okay|can you|could you|would you|will you)\b[\s,]*|"
    r"(?:remind me|don'?t (?:let me )?forget|do not (?:let me )?forget|remember)(?:[\s,，]+(?:to|about|that)\b)?[\s,，:]*|"
    r"(?:add|create|make|new|set(?: up)?)(?: me)?(?: an?| one)?(?: new)?\s+(?:task|todo|to-do|reminder|note)"
    r"(?:\s*:|\s+to\b|\s+for\b)?[\s,]*|"
    r"(?:todo|to-do|note|task|reminder)\s*[:：][\s,]*|"
    r"(?:note down|jot down|write down|make a note)(?:\s+(?:to|that)\b)?[\s,:]*|"
    r"i (?:need|have|got|gotta|must|should|want)(?: to)?\b[\s,]*|i'?ve got to\b[\s,]*)+",
    re.IGNORECASE,
)
# English trailing bits: "please", "thanks", and a "due" / "for" / "before" left where a time phrase was cut out.
_EN_TAIL_RE = re.compile(r"(?:[\s,]+(?:please|pls|plz|thanks|thank you|due|for|before|until|till))+[.!]*$", re.I)
_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_TRAIL_LEAD_RE = re.compile(
    r"[，,。\s]*(?:请|麻烦你?)?(?:帮我|帮忙|给我|替我)?(?:记一下|记下来|记下|记住|记录一下|记上|提醒我一下|提醒我|"
    r"提醒一下|别忘了|加到待办|加个待办|加入待办)(?:吧|哦|啊|呀|哈)?[。.!！]*$"
)
# A priority/size word, optionally with a degree adverb ("很重要", "不太急", "简单", "小").
_LABEL_WORD = (
    r"(?:很|非常|特别|超级|超|挺|比较|有点|有些|不太|不怎么|相当|巨)?"
    r"(?:优先级(?:比较|较|很|最)?[低高]|[低高]优先级|可做可不做|可有可无|无关紧要|无所谓|次要|头等大事|重中之重|"
    r"十万火急|火烧眉毛|加急|慢慢来|不赶|"
    r"不重要|不紧急|不着急|不急|不要紧|不简单|不难|重要|紧急|着急|急|要紧|关键|简单|容易|小|麻烦|复杂|费劲|"
    r"费事|难搞|难|顺手|随手|顺便|琐碎)"
)
# One or more of them joined ("不重要但很麻烦", "简单的小", "重要又紧急").
_LABEL_WORDS = rf"{_LABEL_WORD}(?:(?:但是|但|而且|并且|又|且|还|也|、|，|,)?的?{_LABEL_WORD})*"
_LABEL_NOUN = r"(?:事情|事儿|事|任务|待办|提醒|活儿|活)"
_BRACKET_LABEL_RE = re.compile(rf"{_LABEL_WORDS}(?:的?{_LABEL_NOUN})?")
# A leading label: "很重要：", "不重要但很麻烦的事：", "简单的小事：", "紧急的任务，", "事："
_LABEL_RE = re.compile(rf"^(?:一个|一件|个|件)?(?:{_LABEL_WORDS}(?:的?{_LABEL_NOUN})?|{_LABEL_NOUN})\s*[:：,，、]\s*")
# A trailing label after a separator: "，不重要但很麻烦", "，简单的小事".
_LABEL_TAIL_RE = re.compile(
    rf"[，,。；;\s]+(?:是|算是|属于)?(?:一个|一件|个|件)?{_LABEL_WORDS}(?:的?{_LABEL_NOUN})?(?:的|哦|啊|呀|吧)?[。.!！]*$"
)
# "顺手把快递拿了": an offhand adverb at the head is a priority hint, not part of the task.
_OFFHAND_HEAD_RE = re.compile(r"^(?:顺手|顺便|随手|抽空)(?=..)")
_SUBJECT_RE = re.compile(r"^(?:我|咱|我们)?(?:一定|务必|千万|必须)?(?:要|得|需要|必须|该|应该|记得)?")
_FILLER_TAIL_RE = re.compile(r"(?:一下|吧|哦|噢|啊|呀|哈|呢|嘛|啦|了|的事情|的事|这件事|这个事|这事|哈)+$")
_FILLER_HEAD_RE = re.compile(
    r"^(?:那个|就是|嗯|呃|哦|噢|然后|还有|再|就|(?:等|趁)?(?:有空|有时间|闲)(?:的时候|时|了|再|就)?)+"
)
_WHEN_FREE_RE = re.compile(r"(?:有空|有时间|闲)(?:的时候|时|了|再)|(?:等|趁)(?:有空|有时间|闲)")
_PUNCT = " \t\r\n，,。.!！?？;；:：、~～…\"'“”‘’（）()【】[]<>《》"
_BEFORE_SUFFIX_RE = re.compile(r"^(?:之前|以前|前)")
_DUE_AFTER_TIME_RE = re.compile(r"(?:截止|到期|为止)(?:日期?)?(?:的(?=.)|[，,、\s]|$)")
_PREPOSITION_TAIL_RE = re.compile(r"(?:在|于|到|截止到|截止|截至|最晚|最迟)$")
_PRIORITY_TAIL_RE = re.compile(
    r"[，,。\s]*(?:很|非常|特别|挺|比较|超)?(?:重要|紧急|急|要紧|关键|不重要|不急|无所谓|顺手的事|小事|"
    r"很麻烦|挺麻烦|麻烦但不重要|不简单)(?:的事|的|哦|啊|呀)?$"
)

_THRESHOLD_RES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"(?P<keep>提前(?:[一二两三四五六七八九十\d]+|半)(?:个)?(?:天|小时|钟头|周|星期|礼拜|分钟))"
            r"(?:提醒我?|提醒一下|通知我|叫我|告诉我)?"
        ),
        "keep",
    ),
    (
        re.compile(
            r"(?:从|到了?)?(?P<keep>[^，,。\s]{1,10}?)(?:开始|起|以后|之后)(?:就)?(?:要紧|紧急|变急|急了|算急|着急)"
        ),
        "keep",
    ),
)


# --- time phrases the resolver cannot (fully) account for ----------------------------------------
_N = r"(?:\d{1,4}|[零〇一二两三四五六七八九十百]{1,5})"
# Things numbered like dates that are places, not times ("5号楼", "3号线", "2号会议室").
_NOT_DAY = r"(?![楼线房床门口室厅馆院位桌台柜机车窗店仓库场码]|电池)"
# Date/clock-shaped fragments directly before or after a resolved phrase: the resolver stopped there,
# so it read only part of what was said ("13月|5日", "明天|25点", "下|下下个月", "大|大大后天").
_LEFT_TAIL_RE = re.compile(rf"(?:{_N}年)?{_N}(?:年|月份?)$|闰$")
_RIGHT_HEAD_RE = re.compile(rf"^(?:{_N}(?:点|时|[:：]\d)(?:钟|半|整|{_N}分?)?|{_N}分|{_N}[日号]{_NOT_DAY})")
_CHAIN_CHARS = "下上大"
# Time-shaped fragments anywhere in what is left: a month-day the resolver rejected ("2月30日"), a
# leap month ("下个闰月"), an over-long relative chain ("下下下个月"), and, at the start of a
# clause, an impossible month, day or clock ("13月", "32号", "25点").
_UNCLEAR_ANYWHERE_RE = re.compile(
    rf"(?:{_N}年)?{_N}月份?{_N}[日号]{_NOT_DAY}(?:{_N}(?:点|时)(?:{_N}分?|半)?)?|"
    rf"(?:下|上|这|本|今年|明年|去年)?(?:个)?闰{_N}?月|"
    r"(?:下|上){3,}(?:个)?(?:月|周|星期|礼拜)|大{3,}[前后]天"
)
_CLAUSE_NUM_RE = re.compile(
    rf"(?:^|(?<=[，,。；;\s在于到]))(?P<num>{_N})(?P<unit>月份?|[日号]{_NOT_DAY}|点|时)(?:钟|半|整|{_N}分?)?"
)
_UNIT_MAX = {"月": 12, "日": 31, "号": 31, "点": 24, "时": 24}


def _impossible_clause_number(text: str) -> re.Match[str] | None:
    for m in _CLAUSE_NUM_RE.finditer(text):
        value = to_int(m.group("num"))
        if value is not None and value > _UNIT_MAX[m.group("unit")[0]]:
            return m
    return None


def _unclear_fragment(text: str) -> tuple[int, int] | None:
    """The span of a time-like fragment in ``text`` that the resolver did not read, if any."""
    m = _UNCLEAR_ANYWHERE_RE.search(text) or _impossible_clause_number(text)
    return (m.start(), m.end()) if m else None


def _widen_partial(body: str, idx: int, end: int) -> tuple[int, int]:
    """Grows [idx, end) over date/clock-shaped text right next to it that the resolver left out."""
    left = _LEFT_TAIL_RE.search(body[:idx])
    if left:
        idx = left.start()
    phrase = body[idx:end]
    while idx > 0 and phrase and phrase[0] in _CHAIN_CHARS and body[idx - 1] == phrase[0]:
        idx -= 1
    right = _RIGHT_HEAD_RE.match(body[end:])
    if right:
        end += right.end()
    return idx, end


def _safe_resolve(text: str, now: datetime, tz: str) -> TimeWindow | None:
    try:
        return resolve_time(text, now, tz, prefer="future")
    except Exception:
        return None


def _extract_threshold(text: str) -> tuple[str | None, str]:
    """Finds an urgency-threshold phrase; returns it and the text with the whole clause removed."""
    for pat, group in _THRESHOLD_RES:
        m = pat.search(text)
        if m and m.group(group):
            return m.group(group), text[: m.start()] + "，" + text[m.end() :]
    return None, text


_LEAD_AMOUNT_RE = re.compile(
    r"提前(?P<n>[一二两三四五六七八九十\d]+|半)(?:个)?(?P<unit>天|小时|钟头|周|星期|礼拜|分钟)"
)
_CN_NUM = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


_LEAD_HOURS = {"天": 24, "小时": 1, "钟头": 1, "周": 168, "星期": 168, "礼拜": 168, "分钟": 1 / 60}


def lead_time(text: str | None) -> timedelta | None:
    """ "提前两天" → 2 days: a lead relative to the deadline, which no calendar rule can resolve alone."""
    m = _LEAD_AMOUNT_RE.fullmatch((text or "").strip())
    if m is None:
        return None
    tok, unit = m.group("n"), m.group("unit")
    amount = 0.5 if tok == "半" else int(tok) if tok.isdigit() else _CN_NUM.get(tok)
    if not amount:
        return None
    return timedelta(hours=amount * _LEAD_HOURS[unit])


def _lead_threshold_phrase(lead: str, deadline: datetime | None, now: datetime, tz: str) -> str | None:
    """ "提前两天" + a deadline → an absolute phrase for deadline − 2 days that resolves back exactly."""
    amount = lead_time(lead)
    if amount is None or deadline is None:
        return None
    at = deadline - amount
    phrase = f"{at.year}年{at.month}月{at.day}日{at.hour}点{at.minute}分"
    win = _safe_resolve(phrase, now, tz)
    if win is None or win.start is None or abs((win.start - at).total_seconds()) > 60:
        return None
    return phrase


_BA_BARE_VERB_RE = re.compile(r"把.+[^完好掉清齐上下走回来去到成光净楚了]$")


def _strip_filler_tail(t: str) -> str:
    """Drops trailing particles, but keeps the 了 a 把-sentence needs ("把快递拿了", not "把快递拿")."""
    stripped = _FILLER_TAIL_RE.sub("", t)
    if stripped != t and t[len(stripped)] == "了" and _BA_BARE_VERB_RE.search(stripped):
        return stripped + "了"
    return stripped


def _clean_title(text: str, masked: Masked | None = None) -> str | None:
    """The title left in ``text``; ``masked`` puts back the bracketed spans hidden in it."""
    t = text
    for _ in range(3):
        before = t
        t = t.strip(_PUNCT)
        t = _LEAD_RE.sub("", t)
        t = _EN_LEAD_RE.sub("", t)
        t = _EN_TAIL_RE.sub("", t)
        t = _TRAIL_LEAD_RE.sub("", t)
        t = _LABEL_RE.sub("", t)
        t = _FILLER_HEAD_RE.sub("", t)
        t = _OFFHAND_HEAD_RE.sub("", t)
        t = _LABEL_TAIL_RE.sub("", t)
        t = _PRIORITY_TAIL_RE.sub("", t)
        t = t.strip(_PUNCT)
        t = _SUBJECT_RE.sub("", t) if not re.match(r"^(?:我们|咱们)(?:的|组|家)", t) else t
        t = _strip_filler_tail(t)
        t = _PREPOSITION_TAIL_RE.sub("", t)
        t = t.strip(_PUNCT)
        if t == before:
            break
    t = t.replace("一下", "") if len(t) > 3 else t
    # Collapse punctuation runs left where phrases were cut out ("续签合同，，" → "续签合同").
    if _CJK_RE.search(t):
        t = re.sub(r"[，,、\s]{2,}", "，", t).strip(_PUNCT)
    else:  # English: a cut-out phrase leaves a gap, not a clause break ("call mom，about" → "call mom about")
        t = re.sub(r"\s*，\s*", " ", t)
        t = re.sub(r"\s{2,}", " ", t).strip(_PUNCT)
        # "remind me [at 5pm] to file …": the lead went first, its "to" was behind the time phrase.
        t = re.sub(r"^to\s+(?=\w)", "", t, flags=re.IGNORECASE)
    if masked is not None:
        t = masked.unmask(t)
    if not t or not re.search(r"[\w\u4e00-\u9fff]", t):
        return None
    return t


MAX_TITLE = 60


def _cut_title(title: str, limit: int = MAX_TITLE) -> str:
    """``title`` cut to ``limit`` characters, never inside a bracketed span (its marks stay balanced)."""
    if len(title) <= limit:
        return title
    cut = limit
    for start, end in bracket_spans(title):
        if start < cut < end:
            cut = start if start > 0 else end  # a title that opens with a long span keeps it whole
            break
    return title[:cut].rstrip(_PUNCT) or title[:cut]


def is_bracket_label(words: str) -> bool:
    """A bracketed priority label: only priority words, and they say how important or urgent
    ("（紧急）", "[很重要]", "(不急)"); a size or effort word alone ("（小）", "(简单)") stays text."""
    if not _BRACKET_LABEL_RE.fullmatch(words):
        return False
    s = priority_signals(words)
    return s.important or s.unimportant or s.urgent or s.not_urgent


# The reasons that rest on the deadline alone: a repeating note's first occurrence decides them again.
BY_DEADLINE = frozenset(
    {"截止时间已过", "截止在两天内", "有截止时间但还早", "重要且截止临近", "重要但不急", "没有截止时间，默认重要不紧急"}
)


def priority_for(text: str, now: datetime, deadline: datetime | None) -> tuple[int, str]:
    """The group and its reason for a note's words and deadline (rules in the module docstring)."""
    s = priority_signals(text)
    near = deadline is not None and deadline - now <= NEAR_DEADLINE
    today_must = bool(re.search(r"今天(?:必须|一定|务必)|今晚(?:必须|一定)", text))
    urgent = s.urgent or today_must
    if s.unimportant:
        if s.hard and not s.easy:
            return 4, "不重要但麻烦"
        return 3, "不重要的小事"
    if s.easy and not s.important:
        return 3, "顺手的小事"
    if _WHEN_FREE_RE.search(text) and not s.important and not urgent:
        return 3, "有空再做的小事"
    if s.important:
        if urgent or near:
            return 1, "重要且紧急" if urgent else "重要且截止临近"
        return 2, "重要但不急"
    if urgent:
        return 1, "明确说很急"
    if s.not_urgent:
        return 2, "说了不急"
    if deadline is not None:
        if deadline < now:
            return 1, "截止时间已过"
        if near:
            return 1, "截止在两天内"
        return 2, "有截止时间但还早"
    return 2, "没有截止时间，默认重要不紧急"


_HIDDEN_AFTER_RE = re.compile(r"\s*([\ue000-\uf8ff])")


def _restated_day(body: str, end: int, win: TimeWindow, masked: Masked, now: datetime, tz: str) -> int:
    """ "周五（12月4日）交报告": a bracket right after the time phrase that only says the same day
    again belongs to the time phrase, not the title; returns the phrase's new end."""
    m = _HIDDEN_AFTER_RE.match(body[end:])
    span = masked.unmask(m.group(1)) if m else ""
    if not m or not is_annotation(span):
        return end
    inner = span[1:-1].strip()
    again = _safe_resolve(inner, now, tz)
    if again is None or again.phrase != inner:
        return end
    try:
        said, restated = deadline_of(win), deadline_of(again)
    except Exception:
        return end
    same = said is not None and restated is not None and said.astimezone(restated.tzinfo).date() == restated.date()
    return end + m.end() if same else end


def offline_extract_note(sentence: str, now: datetime, tz: str = "Asia/Shanghai") -> NoteDraft:
    """Reads a quick-note sentence into a ``NoteDraft`` with deterministic rules (module docstring).

    The rules read the sentence folded to simplified characters (core.hanzi: "記一下後天交報告");
    the title and the phrases are given back in the user's own characters ("交報告")."""
    said = (sentence or "").strip()
    draft = _extract_note(fold(said), now, tz)
    if fold(said) == said:
        return draft
    own = {f: unfold(v, said) for f in ("title", "time_text", "estimate_text") if (v := getattr(draft, f))}
    threshold = draft.urgency_threshold_text
    if threshold and threshold in fold(said):  # a phrase the user said, not one made from the deadline
        own["urgency_threshold_text"] = unfold(threshold, said)
    return draft.model_copy(update=own)


def _extract_note(original: str, now: datetime, tz: str) -> NoteDraft:
    # Quoted and bracketed text is title, never time (quicknote.brackets): hidden from every rule below.
    masked = mask(original, is_bracket_label)
    threshold_text, text = _extract_threshold(masked.text)
    # Priority words as said, bracketed ones included; bracketed text itself names no priority.
    priority_text = "，".join((strip_placeholders(text), *masked.priority))
    estimate_text, text = extract_estimate(text)

    # Find the deadline phrase after the lead-in is gone, so "提醒我" never reads as time.
    lead = _LEAD_RE.match(text) or _EN_LEAD_RE.match(text)
    body = text[lead.end() :] if lead else text
    win = _safe_resolve(body, now, tz)
    if threshold_text and win is not None and win.phrase == threshold_text:
        win = None
    time_text: str | None = None
    deadline: datetime | None = None
    unclear = False
    if win is not None and win.phrase and win.phrase in body:
        idx = body.find(win.phrase)
        end = idx + len(win.phrase)
        wide_idx, wide_end = _widen_partial(body, idx, end)
        # A numeric date no rule can order ("12-11-10": Y-M-D? M-D-Y?) is asked about, never guessed.
        unclear = (wide_idx, wide_end) != (idx, end) or numdate.ambiguous(win.phrase, now.date())
        idx, end = wide_idx, wide_end
        time_text = body[idx:end]
        suffix = _BEFORE_SUFFIX_RE.match(body[end:])
        if suffix and not re.search(r"(?:之前|以前|前)$", time_text):
            time_text += suffix.group(0)
            end += len(suffix.group(0))
        due = _DUE_AFTER_TIME_RE.match(body[end:])
        if due:
            # "下周三截止的设计稿要交": the due-word belongs to the time phrase, not the title.
            end += len(due.group(0))
        end = _restated_day(body, end, win, masked, now, tz)
        body = body[:idx] + "，" + body[end:]
        if not unclear:
            try:
                deadline = deadline_of(win)
            except Exception:
                deadline = None
            if deadline is None and win.end is None and win.start is not None:
                # "12月5号以后/起", "从下周开始": when it can start, not when it is due → no deadline.
                time_text = None
    if not unclear:
        # A date/clock-shaped fragment the resolver did not read at all ("2月30日", "下个闰月", "25点").
        frag = _unclear_fragment(body)
        if frag is not None:
            start, stop = frag
            suffix = _BEFORE_SUFFIX_RE.match(body[stop:])
            if suffix:
                stop += len(suffix.group(0))
            time_text, deadline, unclear = body[start:stop], None, True
            body = body[:start] + "，" + body[stop:]

    if threshold_text and threshold_text.startswith("提前"):
        threshold_text = _lead_threshold_phrase(threshold_text, deadline, now, tz)

    title = _clean_title(body, masked)
    if title is not None:
        title = _cut_title(title)
    group, reason = priority_for(priority_text, now, deadline)
    return NoteDraft(
        title=title,
        time_text=time_text,
        deadline_at=deadline,
        priority_group=group,
        priority_reason=reason,
        urgency_threshold_text=threshold_text,
        estimate_text=estimate_text,
    )


def strip_lead(text: str) -> str:
    """`text` without its lead-in ("帮我记一下", "记：", "remind me to")."""
    lead = _LEAD_RE.match(text) or _EN_LEAD_RE.match(text)
    return text[lead.end() :] if lead else text


def strip_label_head(text: str) -> tuple[str, str]:
    """A leading priority label ("很重要的事：") and the rest; ("", text) without one."""
    m = _LABEL_RE.match(text)
    return (m.group(0), text[m.end() :]) if m else ("", text)


CONFIRM_CONFIDENCE = 0.95


def offline_confirm_signal(text: str, history: Sequence[HistoryTurn]) -> OfflineSignal | None:
    """ "要" / "是的，再记一条" / "yes, add it" right after a near-duplicate warning is a note; "算了" /
    "不用了" / "no thanks" is its answer too (nothing is added, said by the handler).

    The router's history has carried records stripped, so the warning is recognised by its words
    (rendered by code); the handler then writes what the warning's ``n1`` record carries."""
    if not history or history[-1].role != "assistant" or not WARNING_RE.search(history[-1].text):
        return None
    if is_no(text):
        return OfflineSignal(CONFIRM_CONFIDENCE, "不再记（上一轮提示了相近的任务）")
    if not is_yes(text):
        return None
    return OfflineSignal(CONFIRM_CONFIDENCE, "确认再记一条（上一轮提示了相近的任务）")


# A repetition ("每周一", "every other Friday") with something to do is a note, a clear pattern with
# its object (core/turn.py's scale) — unless the sentence asks, or ends, skips or changes a series:
# those are queries and updates ("每周一要做什么", "周报以后不用交了", "改成每两周").
REPEAT_CONFIDENCE = 0.85
UNREAD_CONFIDENCE = 0.7  # below the bar a write stands on alone: the intent model decides, or it asks
# "the weekly update", "my daily tasks": the period word names a thing, it sets no schedule.
_EN_ADJECTIVE = re.compile(
    r"\b(?:the|my|a|our|your|this|that)\s+(?:daily|weekly|monthly|yearly)\b"
    r"|\b(?:daily|weekly|monthly|yearly)\s+(?:task|reminder|todo|item|entry|ping|digest|plan|goal)s?\b",
    re.IGNORECASE,
)
_NOT_A_REPEAT_NOTE = re.compile(
    r"[?？吗]|[么嘛]\W*$|什么|哪些|哪个|多少|几个|有没有|不用|不再|别再|取消|停止|跳过|改成|改为|改到|换成|"
    r"能不能|可不可以|可以吗|能否|是否|怎么|如何|在哪|功能|支持|建议|请问|问一下|教我|"
    r"别[\u4e00-\u9fff]{0,3}提醒|不[要用]?提醒|关闭|关掉|作废|砍掉|清空|撤销|用不上|别催|别管|不去|"
    r"看一?下|瞄|查看|列出|显示|打开|停掉|干掉|删|去掉|没用|不要了|那个每|的每[日天周月]提醒|"
    r"\b(?:can you|could you|does it|do you|how do|how can|is there|rephrase|opt me out|unsubscribe|block|play|"
    r"look up|see my|show me|open my|view|uncheck|finished|fired off|mistyped|can go|nuke|obliterate|toss|cut|"
    r"scrap|trash|strike|scrub|delete|remove|get rid of|repeat|repeating|no need to|quit|nag|bugging|pinging|"
    r"notifying|don't remind|do not remind|every last)\b|"
    r"删|去掉|关掉|不要|\b(?:what|which|how many|do i|stop|cancel|skip|no longer|change|move|kill|remove|delete|drop|"
    r"disable|turn off|get rid of)\b",
    re.IGNORECASE,
)
_EN_REPEAT_WORD = re.compile(
    r"\b(?:every|each|daily|weekly|monthly|yearly|annually|biweekly|fortnightly|weekdays)\b", re.IGNORECASE
)
# When the phrase is found is all this asks of the reader; the date it anchors on is unused here.
_ANY_NOW = datetime(2026, 1, 5, 12, 0).astimezone()


def repeat_signal(text: str) -> OfflineSignal | None:
    """ "每周一交周报", "提醒我每天早上8点吃药", "每逢双数日浇花" (read or not: the handler says which)."""
    if _NOT_A_REPEAT_NOTE.search(text):
        return None
    said = read_repeat(text, now=_ANY_NOW)
    if said is None or not re.search(r"\w", strip_lead(said.rest)):
        return None
    if not _CJK_RE.search(said.words) and (not _EN_REPEAT_WORD.search(said.words) or _EN_ADJECTIVE.search(text)):
        return None  # a bare "mondays" is as often a sigh as a schedule; "the weekly update" a name
    if said.rule is None:  # "小明每分钟走60米": unreadable may be no schedule at all; a weaker shape
        return OfflineSignal(UNREAD_CONFIDENCE, f"像是重复的任务（「{said.words}」还读不懂）")
    return OfflineSignal(REPEAT_CONFIDENCE, f"重复的任务（「{said.words}」）")


def offline_signal(text: str, history: Sequence[HistoryTurn]) -> OfflineSignal | None:
    """The note's own offline readings: the answer to a near-duplicate warning, or a repetition."""
    return offline_confirm_signal(text, history) or repeat_signal(text) or placement_signal(text)


PLACED_CONFIDENCE = 0.85


def placement_signal(text: str) -> OfflineSignal | None:
    """ "记到购物清单：牛奶", "#工作 明天交方案", "工作上的：回复客户": a note put somewhere (quicknote.placement);
    a question about a label ("#工作 这周的") is not one."""
    placement = read_placement(text)
    if not placement.placed or asks(placement.rest):
        return None
    where = placement.list_name or placement.topic or "、".join(placement.labels)
    return OfflineSignal(PLACED_CONFIDENCE, f"记到「{where}」")
