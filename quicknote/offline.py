"""Offline (rule-based) extraction for 随口记: a casual sentence → ``NoteDraft`` without a model call.

Title: the sentence minus
  1. the lead-in ("帮我记一下", "记一下", "记个", "提醒我", "添加待办：", "帮我加个任务", "别忘了",
     "待办：", "todo:"), and a "(很)重要的事：" / "小事：" label after it;
  2. an urgency-threshold phrase ("提前一天提醒我", "周三开始要紧", see below);
  3. the time phrase — exactly the ``phrase`` ``core.timeanchor.resolve_time`` recognised, plus a
     trailing "前/之前/以前" (kept in ``time_text``: "月底前") and a leading "在/于/到";
  4. a leading subject or modal ("我要", "我得", "需要", "要", "记得") and filler ("一下", "吧", "哦",
     "啊", "呀", trailing "了", "的事", "这件事", punctuation at either end).
  Nothing left → ``title`` None (the graph then asks a clarifying question).

``time_text`` is that phrase verbatim (None when there is none); ``deadline_at`` is filled with the
resolver's deadline only as the fallback the model contract allows.

Priority group (1 重要且紧急, 2 重要不紧急, 3 简单不重要, 4 不简单不重要), first rule that applies:
  1. explicitly unimportant ("不重要/无所谓/不要紧/次要"): + hard ("麻烦/复杂/费劲/不简单") → 4; else 3;
  2. small/easy ("顺手/简单/小事/随手/顺便/举手之劳") and not important → 3;
  3. important ("重要/关键/务必/一定要/千万/必须") and (urgent or due within 48 h) → 1; important → 2;
  4. urgent ("紧急/急/马上/尽快/立刻/赶紧/今天必须") → 1;
  5. explicitly not urgent ("不急/慢慢来") → 2 (4 when also "麻烦但不重要", handled in 1);
  6. by deadline: due within 48 h (or already past) → 1; a later deadline → 2;
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
from datetime import datetime, timedelta

from core.timeanchor import TimeWindow, deadline_of, resolve_time
from quicknote.draft import NoteDraft
from taskquery.offline import priority_signals

__all__ = ["offline_extract_note"]

NEAR_DEADLINE = timedelta(hours=48)

_LEAD_RE = re.compile(
    r"^(?:(?:请|麻烦你?|劳驾|你|能不能|可以|可不可以)?(?:帮我|帮忙|给我|替我|帮)?\s*"
    r"(?:记一下|记下来|记下|记个|记一个|记一条|记住|记录一下|记录下|记录|记上|备忘一下|备忘|"
    r"提醒一下我|提醒下我|提醒我一下|提醒我|提醒一下|"
    r"(?:添加|新增|新建|创建|加|建)(?:一个|一条|个)?(?:待办事项|待办|任务|提醒|日程|todo)|"
    r"别忘了|不要忘了|别让我忘了|待办|todo|TODO|备忘|提醒)"
    r"\s*(?:一下)?\s*[:：,，。、\s]*)+"
)
_TRAIL_LEAD_RE = re.compile(
    r"[，,。\s]*(?:请|麻烦你?)?(?:帮我|帮忙|给我|替我)?(?:记一下|记下来|记下|记住|记录一下|记上|提醒我一下|提醒我|"
    r"提醒一下|别忘了|加到待办|加个待办|加入待办)(?:吧|哦|啊|呀|哈)?[。.!！]*$"
)
_LABEL_RE = re.compile(
    r"^(?:一个|一件|个|件)?(?:很|非常|特别|超级|挺|比较)?(?:重要|紧急|急|要紧|关键|简单|小|不重要|麻烦)?的?"
    r"(?:事情|事儿|事|任务|待办|提醒)\s*[:：,，、]\s*"
)
_SUBJECT_RE = re.compile(r"^(?:我|咱|我们)?(?:一定|务必|千万|必须)?(?:要|得|需要|必须|该|应该|记得)?")
_FILLER_TAIL_RE = re.compile(r"(?:一下|吧|哦|噢|啊|呀|哈|呢|嘛|啦|了|的事情|的事|这件事|这个事|这事|哈)+$")
_FILLER_HEAD_RE = re.compile(
    r"^(?:那个|就是|嗯|呃|哦|噢|然后|还有|再|就|(?:等|趁)?(?:有空|有时间|闲)(?:的时候|时|了|再|就)?)+"
)
_WHEN_FREE_RE = re.compile(r"(?:有空|有时间|闲)(?:的时候|时|了|再)|(?:等|趁)(?:有空|有时间|闲)")
_PUNCT = " \t\r\n，,。.!！?？;；:：、~～…\"'“”‘’（）()【】[]<>《》"
_BEFORE_SUFFIX_RE = re.compile(r"^(?:之前|以前|前)")
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


def _lead_threshold_phrase(lead: str, deadline: datetime | None, now: datetime, tz: str) -> str | None:
    """ "提前两天" + a deadline → an absolute phrase for deadline − 2 days that resolves back exactly."""
    m = _LEAD_AMOUNT_RE.fullmatch(lead)
    if m is None or deadline is None:
        return None
    tok, unit = m.group("n"), m.group("unit")
    amount = 0.5 if tok == "半" else int(tok) if tok.isdigit() else _CN_NUM.get(tok)
    if not amount:
        return None
    hours = {"天": 24, "小时": 1, "钟头": 1, "周": 168, "星期": 168, "礼拜": 168, "分钟": 1 / 60}[unit]
    at = deadline - timedelta(hours=amount * hours)
    phrase = f"{at.year}年{at.month}月{at.day}日{at.hour}点{at.minute}分"
    win = _safe_resolve(phrase, now, tz)
    if win is None or win.start is None or abs((win.start - at).total_seconds()) > 60:
        return None
    return phrase


def _clean_title(text: str) -> str | None:
    t = text
    for _ in range(3):
        before = t
        t = t.strip(_PUNCT)
        t = _LEAD_RE.sub("", t)
        t = _TRAIL_LEAD_RE.sub("", t)
        t = _LABEL_RE.sub("", t)
        t = _FILLER_HEAD_RE.sub("", t)
        t = _PRIORITY_TAIL_RE.sub("", t)
        t = t.strip(_PUNCT)
        t = _SUBJECT_RE.sub("", t) if not re.match(r"^(?:我们|咱们)(?:的|组|家)", t) else t
        t = _FILLER_TAIL_RE.sub("", t)
        t = _PREPOSITION_TAIL_RE.sub("", t)
        t = t.strip(_PUNCT)
        if t == before:
            break
    t = t.replace("一下", "") if len(t) > 3 else t
    # Collapse punctuation runs left where phrases were cut out ("续签合同，，" → "续签合同").
    t = re.sub(r"[，,、\s]{2,}", "，", t).strip(_PUNCT)
    if not t or not re.search(r"[\w\u4e00-\u9fff]", t):
        return None
    return t


def _priority(text: str, now: datetime, deadline: datetime | None) -> tuple[int, str]:
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
        if near:
            return 1, "截止在两天内"
        return 2, "有截止时间但还早"
    return 2, "没有截止时间，默认重要不紧急"


def offline_extract_note(sentence: str, now: datetime, tz: str = "Asia/Shanghai") -> NoteDraft:
    """Reads a quick-note sentence into a ``NoteDraft`` with deterministic rules (module docstring)."""
    original = (sentence or "").strip()
    threshold_text, text = _extract_threshold(original)

    # Find the deadline phrase after the lead-in is gone, so "提醒我" never reads as time.
    lead = _LEAD_RE.match(text)
    body = text[lead.end() :] if lead else text
    win = _safe_resolve(body, now, tz)
    if threshold_text and win is not None and win.phrase == threshold_text:
        win = None
    time_text: str | None = None
    deadline: datetime | None = None
    if win is not None and win.phrase and win.phrase in body:
        idx = body.find(win.phrase)
        end = idx + len(win.phrase)
        time_text = win.phrase
        suffix = _BEFORE_SUFFIX_RE.match(body[end:])
        if suffix and not re.search(r"(?:之前|以前|前)$", time_text):
            time_text += suffix.group(0)
            end += len(suffix.group(0))
        body = body[:idx] + "，" + body[end:]
        try:
            deadline = deadline_of(win)
        except Exception:
            deadline = None

    if threshold_text and threshold_text.startswith("提前"):
        threshold_text = _lead_threshold_phrase(threshold_text, deadline, now, tz)

    title = _clean_title(body)
    if title is not None and len(title) > 60:
        title = title[:60]
    group, reason = _priority(text, now, deadline)
    return NoteDraft(
        title=title,
        time_text=time_text,
        deadline_at=deadline,
        priority_group=group,
        priority_reason=reason,
        urgency_threshold_text=threshold_text,
    )
