"""The trust boundary of a quick note: the model's extraction is a proposal, code decides.

The offline rules read the sentence first. Their deadline phrase, urgency phrase and any priority
words the user said win. The model fills what they leave open, if grounded in the sentence: a title
made of the user's words (and without the time phrase in it), a time or urgency phrase the user
actually said, an absolute deadline only for such a phrase that code cannot resolve, in the user's
timezone when naive and within a sane range of now. The write itself is the router's and the
graph's decision, never the model's alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from core.grounding import grounded_share, looks_like_time, occurs_in, plausible_moment
from core.lexicon import PrioritySignals, priority_signals
from quicknote.brackets import bracket_spans, mask, strip_placeholders
from quicknote.draft import NoteDraft
from quicknote.offline import is_bracket_label

# Share of a model title that must come from the user's words (CJK characters or Latin words).
MIN_GROUNDED_TITLE = 0.6
_NO_SIGNALS = PrioritySignals(False, False, False, False, False, False, False)


@dataclass
class SettledNote:
    draft: NoteDraft
    overridden: list[str] = field(default_factory=list)


def settle_note(
    proposed: NoteDraft, rules: NoteDraft, sentence: str, now: datetime, tz: str, *, repeat_text: str | None = None
) -> SettledNote:
    """``repeat_text``: the repetition code took out of the sentence ("每周四"), kept out of the title."""
    notes: list[str] = []
    time_text, deadline = _settle_time(proposed, rules, sentence, now, tz, notes)
    title = _settle_title(proposed.title, rules, (time_text, repeat_text), sentence, notes)
    group, reason = proposed.priority_group, proposed.priority_reason
    if _said_priority(sentence) and proposed.priority_group != rules.priority_group:
        notes.append(f"优先级按你的原话定为 {rules.priority_group}（模型给的是 {proposed.priority_group}）")
        group, reason = rules.priority_group, rules.priority_reason
    threshold = rules.urgency_threshold_text
    if threshold is None and proposed.urgency_threshold_text:
        if occurs_in(proposed.urgency_threshold_text, sentence):
            threshold = proposed.urgency_threshold_text
        else:
            notes.append(f"忽略了提醒时间「{proposed.urgency_threshold_text[:20]}」：你的话里没有它")
    draft = NoteDraft(
        title=title,
        time_text=time_text,
        deadline_at=deadline,
        priority_group=group,
        priority_reason=reason,
        urgency_threshold_text=threshold,
        estimate_text=_settle_estimate(proposed.estimate_text, rules.estimate_text, sentence),
    )
    return SettledNote(draft, notes)


def _settle_estimate(proposed: str | None, rules: str | None, sentence: str) -> str | None:
    """The rules' estimate; the model's only when the user said it (it is shown, never stored)."""
    if rules is not None:
        return rules
    return proposed if proposed and occurs_in(proposed, strip_placeholders(_unbracketed(sentence))) else None


def _unbracketed(sentence: str) -> str:
    """The sentence with its quoted and bracketed text hidden: that text is title, never time."""
    return mask(sentence, lambda _: False).text


def _settle_time(
    proposed: NoteDraft, rules: NoteDraft, sentence: str, now: datetime, tz: str, notes: list[str]
) -> tuple[str | None, datetime | None]:
    if rules.time_text:
        if proposed.time_text and proposed.time_text != rules.time_text:
            notes.append(f"截止时间按你的原话「{rules.time_text}」换算（模型给的是「{proposed.time_text}」）")
        return rules.time_text, rules.deadline_at
    if not proposed.time_text:
        if proposed.deadline_at is not None:
            notes.append("忽略了模型自己算的截止时间：你的话里没有时间")
        return None, None
    if not occurs_in(proposed.time_text, _unbracketed(sentence)) or not looks_like_time(proposed.time_text):
        notes.append(f"忽略了时间「{proposed.time_text[:20]}」：你的话里没有这个时间")
        return None, None
    # Used by the time anchor only if code cannot resolve the phrase itself.
    deadline = plausible_moment(proposed.deadline_at, now, tz)
    if proposed.deadline_at is not None and deadline is None:
        notes.append("忽略了模型给的截止时间：离现在太远，不像是你说的")
    return proposed.time_text, deadline


def _settle_title(
    proposed: str | None,
    rules_draft: NoteDraft,
    phrases: tuple[str | None, str | None],
    sentence: str,
    notes: list[str],
) -> str | None:
    rules = rules_draft.title
    if not proposed or not proposed.strip():
        return rules
    if grounded_share(proposed, sentence) < MIN_GROUNDED_TITLE:
        notes.append(f"标题「{proposed[:20]}」不是你的原话，改用「{rules or '（无）'}」")
        return rules
    if any(phrase and occurs_in(phrase, proposed) for phrase in phrases):
        return rules  # the model kept the time or repetition phrase in the title; the rules' title leaves it out
    if rules_draft.estimate_text and occurs_in(rules_draft.estimate_text, proposed):
        return rules  # the same for an estimate ("写周报，大概一个小时")
    if rules and any(rules[a:b] not in proposed for a, b in bracket_spans(rules)):
        notes.append(f"标题里要保留你加了引号或括号的原话，改用「{rules}」")
        return rules
    return proposed


def _said_priority(sentence: str) -> bool:
    """Priority words the user said: a bracketed label counts ("(urgent)"), a quoted name does not."""
    masked = mask(sentence, is_bracket_label)
    return priority_signals("，".join((strip_placeholders(masked.text), *masked.priority))) != _NO_SIGNALS
