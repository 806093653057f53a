"""A note's reminder: read from the sentence by code (:mod:`core.remindwords`), kept once the deadline
is known, and said in the confirmation ("会在 12月3日 周四 14:30 提醒你") — or said not kept, never a
quiet drop. The urgency threshold a lead also sets is :func:`lead_threshold`'s."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from core import remindwords
from core.display import format_when
from core.locale import Locale
from core.models import Task, Webhook
from core.outbox import subscribed
from quicknote.state import NoteState

__all__ = ["has_target", "keep", "lead_threshold", "read", "said_line"]

_TEXTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "when": "会在 {when} 提醒你。",
        "series": "每一次都会提醒你，下一次在 {when}。",
        "no_target": "（提醒还送不到你：先接一个提醒渠道——飞书、企业微信、钉钉或 ntfy，见 `suikou webhook add`。）",
        "no_deadline": "「{words}」没有设上：这条任务没有截止时间，先说清什么时候再让我提醒。",
        "past": "「{words}」没有设上：那个时间（{when}）已经过了。",
    },
    "en": {
        "when": "I'll remind you {when}.",
        "series": "I'll remind you each time; next {when}.",
        "no_target": " (Reminders can't reach you yet: add a channel — Feishu, WeCom, DingTalk or ntfy; see "
        "`suikou webhook add`.)",
        "no_deadline": 'Not set: "{words}" needs a deadline, and this task has none.',
        "past": 'Not set: "{words}" — that time ({when}) has passed.',
    },
}


def _cut(text: str, span: tuple[int, int]) -> str:
    return (text[: span[0]] + "，" + text[span[1] :]).strip("，, ")


def read(state: NoteState, sentence: str) -> str:
    """Reads the reminder words into ``state.remind``; the sentence left for the note (the words of an
    explicit reminder cut out, so neither the deadline nor the title takes them)."""
    said = remindwords.read(sentence)
    if said is None or said.span is None:
        state.remind = said
        return sentence
    rest = _cut(sentence, said.span)
    if said.kind == "at":
        own = remindwords.window(said.at_text or "", state.now, state.tz)
        other = remindwords.window(rest, state.now, state.tz)
        dated = state.repeat is not None or (other is not None and bool(other.phrase))  # a rule dates it too
        if own is None or own.start is None or not dated:
            # "交房租，明早9点提醒我": the only time said is the deadline, reminded of when it comes.
            state.remind = remindwords.Said("due", said.words, lead=timedelta(0))
            return sentence
    state.remind = said
    return rest


def keep(state: NoteState) -> None:
    """The reminder as the note keeps it, now that the deadline (and a repetition) is known."""
    said = state.remind
    if said is None:
        return
    kept = remindwords.keep(said, deadline=state.deadline_at, recurrence=state.recurrence, now=state.now, tz=state.tz)
    state.reminders = [kept.spec] if kept.spec is not None else []
    state.reminder_passed = kept.passed
    if kept.spec is None and said.kind != "implicit" and (kept.needs_deadline or kept.passed is not None):
        state.reminder_unheld = said.words


def _first(state: NoteState) -> datetime | None:
    moments = [
        m
        for spec in state.reminders
        if (m := remindwords.first_firing(spec, state.deadline_at, state.recurrence, state.now)) is not None
    ]
    return min(moments) if moments else None


def lead_threshold(state: NoteState) -> datetime | None:
    """A lead reminder ("提前两小时提醒我") also says when the task turns urgent."""
    said = state.remind
    if said is None or said.kind != "lead" or state.deadline_at is None or not said.lead:
        return None
    return state.deadline_at - said.lead


def has_target(session: Session, user_id: int) -> bool:
    """Whether a reminder.due of this user goes anywhere (a webhook that takes it)."""
    hooks = session.exec(select(Webhook).where(col(Webhook.user_id) == user_id))
    return any(subscribed(h, "reminder.due") for h in hooks)


def said_line(state: NoteState, task: Task) -> str:
    """What the confirmation adds about the reminder ("" when none was asked for or kept)."""
    texts = _TEXTS[state.locale]
    if state.reminder_unheld:
        if state.deadline_at is None and state.remind is not None and state.remind.kind != "at":
            return texts["no_deadline"].format(words=state.reminder_unheld)
        return texts["past"].format(words=state.reminder_unheld, when=_said_when(state))
    first = _first(state) if task.reminders else None
    if first is None:
        return ""
    when = format_when(first, state.tz, state.now, state.locale)
    line = texts["series" if task.recurrence else "when"].format(when=when)
    return line + ("" if state.reminder_target else texts["no_target"])


def _said_when(state: NoteState) -> str:
    moment = state.reminder_passed
    return format_when(moment, state.tz, state.now, state.locale) if moment is not None else ""
