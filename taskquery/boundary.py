"""The trust boundary of a task query: the model's plan is a proposal, code decides.

Where the offline rules read something in the user's own words — a time phrase, priority words, a
completion or creation cue, a sort word, a keyword — the rules win. Where they are silent, the
model's value is taken only if it is grounded: a time phrase or keyword must occur in what the user
said (this sentence, or the question a follow-up continues); absolute bounds only for such a phrase
that code cannot resolve, in the user's timezone when naive and within a sane range of now. Which
tasks count (time field, completed ones, only those without a deadline) is the rules' call, and a
question about tasks without a deadline takes no deadline window, whoever proposed one. Counts never come from a model: the
count lock owns them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from core import listnames
from core.countlock import CountLock
from core.grounding import looks_like_time, occurs_in, plausible_moment
from core.timeanchor import resolve_time
from taskquery.offline import clean_keyword
from taskquery.plan import Order, QueryPlan, SortBy, prefer_for

TimeSource = Literal["rules", "model_phrase", "model_bounds"]


@dataclass(frozen=True)
class Grounds:
    """What the proposal is checked against: the user's words and the rules' reading of them."""

    words: str
    rules: QueryPlan
    lock: CountLock
    now: datetime
    tz: str


@dataclass
class Settled:
    plan: QueryPlan
    time_source: TimeSource | None
    overridden: list[str] = field(default_factory=list)


def settle_plan(proposed: QueryPlan, grounds: Grounds) -> Settled:
    """The plan code runs, and notes on each model value it did not take."""
    rules = grounds.rules
    notes: list[str] = []
    time_text, after, before, source = _settle_time(proposed, grounds, notes)
    quadrants = rules.quadrants if rules.quadrants is not None else proposed.quadrants
    if rules.quadrants is not None and proposed.quadrants not in (None, rules.quadrants):
        notes.append(f"象限按你的话定为 {rules.quadrants}（模型给的是 {proposed.quadrants}）")
    keyword = rules.keyword or _grounded_keyword(proposed.keyword, grounds, notes)
    sort_by, order = _settle_sort(proposed, grounds, notes)
    scope = rules.scope or _grounded_scope(proposed.scope, grounds, notes)
    for name in ("time_field", "include_completed", "no_deadline", "repeating", "fits_minutes"):
        if getattr(proposed, name) != getattr(rules, name):
            notes.append(f"{name} 按你的话定为 {getattr(rules, name)}（模型给的是 {getattr(proposed, name)}）")
    plan = QueryPlan(
        quadrants=quadrants,
        time_text=time_text,
        time_after=after,
        time_before=before,
        time_field=rules.time_field,
        include_completed=rules.include_completed,
        no_deadline=rules.no_deadline,
        repeating=rules.repeating,
        fits_minutes=rules.fits_minutes,
        keyword=keyword,
        scope=scope,
        sort_by=sort_by,
        order=order,
        limit=rules.limit,
    )
    return Settled(plan, source, notes)


def _is_name(name: str) -> bool:
    """A list's or label's name could be this (no separators, controls or blank: core.listnames)."""
    try:
        listnames.clean_name(name)
    except ValueError:
        return False
    return True


def _grounded_scope(scope: str | None, grounds: Grounds, notes: list[str]) -> str | None:
    """A model's list or label is taken only when its name is in the user's words."""
    if not scope or not scope.strip():
        return None
    name = scope.strip().lstrip("#＃").strip()
    if name and name.casefold() in grounds.words.casefold() and _is_name(name):
        return scope.strip()
    notes.append(f"忽略了清单/标签「{scope.strip()[:20]}」：不是你话里的词")
    return None


# Words that rank ("top 5", "前三个", "最急的", "the first two"): the order is what they mean, the code's.
_RANKS = re.compile(
    r"\btop\b|\bfirst\b|\bmost\b|\bnext\b|最|前\s*[0-9一二两三四五六七八九十几]|头\s*[0-9一二两三四五六七八九十几]",
    re.IGNORECASE,
)


def _settle_sort(proposed: QueryPlan, grounds: Grounds, notes: list[str]) -> tuple[SortBy, Order]:
    """The rules' order where the words say one (a sort word, a count, a rank); otherwise the
    model's sort key, never reversed: a latest-first order is only ever read from the words."""
    rules = grounds.rules
    said = (rules.sort_by, rules.order)
    if said != ("deadline", "asc") or grounds.lock.explicit is not None or _RANKS.search(grounds.words):
        if (proposed.sort_by, proposed.order) != said:
            notes.append(f"排序按你的话定为 {said[0]} {said[1]}（模型给的是 {proposed.sort_by} {proposed.order}）")
        return said
    order: Order = "desc" if (proposed.sort_by, proposed.order) == ("id", "desc") else "asc"
    if order != proposed.order:
        notes.append(f"排序不倒过来（模型给的是 {proposed.sort_by} {proposed.order}）")
    return proposed.sort_by, order


def _settle_time(
    proposed: QueryPlan, grounds: Grounds, notes: list[str]
) -> tuple[str | None, datetime | None, datetime | None, TimeSource | None]:
    rules = grounds.rules
    if rules.no_deadline and rules.time_field == "deadline":
        # No deadline window holds a task without a deadline ("截止时间" says which tasks, not when).
        if proposed.time_text or proposed.time_after or proposed.time_before:
            notes.append("没有截止时间的任务不按截止时间筛选（忽略了模型给的时间）")
        return None, None, None, None
    if rules.time_text or rules.time_after or rules.time_before:
        if proposed.time_text and proposed.time_text != rules.time_text:
            notes.append(f"时间按你的原话「{rules.time_text}」换算（模型给的是「{proposed.time_text}」）")
        return rules.time_text, rules.time_after, rules.time_before, "rules"
    phrase = proposed.time_text
    if not phrase:
        if proposed.time_after or proposed.time_before:
            notes.append("忽略了模型自己算的时间范围：你的话里没有时间")
        return None, None, None, None
    if not occurs_in(phrase, grounds.words) or not looks_like_time(phrase) or _is_count(phrase, grounds.lock):
        notes.append(f"忽略了时间「{phrase}」：你的话里没有它")
        return None, None, None, None
    if resolve_time(phrase, grounds.now, grounds.tz, prefer=prefer_for(rules.time_field)) is not None:
        return phrase, None, None, "model_phrase"
    after = plausible_moment(proposed.time_after, grounds.now, grounds.tz)
    before = plausible_moment(proposed.time_before, grounds.now, grounds.tz)
    bad = (proposed.time_after is not None and after is None) or (proposed.time_before is not None and before is None)
    if bad or (after is None and before is None) or (after and before and after > before):
        notes.append(f"忽略了「{phrase}」的时间范围：模型给的时间不合理")
        return None, None, None, None
    return phrase, after, before, "model_bounds"


def _is_count(phrase: str, lock: CountLock) -> bool:
    """ "前3" out of "前3个" is the count, not a time."""
    return bool(lock.phrase) and (occurs_in(phrase, lock.phrase or "") or occurs_in(lock.phrase, phrase))


def _grounded_keyword(keyword: str | None, grounds: Grounds, notes: list[str]) -> str | None:
    if not keyword or not keyword.strip():
        return None
    cleaned = clean_keyword(keyword, grounds.now, grounds.tz)
    if cleaned is None or not occurs_in(cleaned, grounds.words):
        notes.append(f"忽略了关键词「{keyword.strip()[:20]}」：不是你话里的词")
        return None
    return cleaned
