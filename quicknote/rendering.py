"""Confirmations and clarifying questions, rendered by code."""

from __future__ import annotations

from datetime import datetime

from core.display import format_when, group_label
from core.locale import Locale
from core.models import Task

NO_TITLE_QUESTION = "要记什么呢？告诉我事情和时间，比如「帮我记一下明天下午三点交报告」。"

# Every fixed text of a quick-note answer; values are str.format templates.
_TEXTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "noted": "好，已记下：{title}（{facts}）",
        "already": "这条消息刚才已经记下了，没有重复创建：{title}（{facts}）",
        "fact_joiner": "；",
        "due": "截止 {when}",
        "completed": "已完成",
        "no_title": NO_TITLE_QUESTION,
        "unclear_time": (
            "「{phrase}」具体是什么时候？我还没记下「{title}」，"
            "请换个说法告诉我截止时间，比如「周五下午五点」或「12月5日」。"
        ),
    },
    "en": {
        "noted": "OK, noted: {title} ({facts})",
        "already": "Already noted from this message a moment ago, not saved twice: {title} ({facts})",
        "fact_joiner": "; ",
        "due": "due {when}",
        "completed": "done",
        "no_title": 'What should I note down? Tell me the task and when, e.g. "remind me to send the report tomorrow at 3pm".',
        "unclear_time": (
            'When exactly is "{phrase}"? I haven\'t saved "{title}" yet — '
            'tell me the deadline another way, e.g. "Friday 5pm" or "Dec 5".'
        ),
    },
}


def confirmation(task: Task, tz: str, now: datetime, locale: Locale = "zh", *, again: bool = False) -> str:
    """ "好，已记下：…" for a new task; with `again`, the honest answer to a retry of the same attempt,
    showing the stored task as it is now (it may have been completed or changed since)."""
    text = _TEXTS[locale]
    facts = [group_label(task.priority_group, locale)]
    if task.is_completed:
        facts.append(text["completed"])
    if task.deadline_at is not None:
        facts.append(text["due"].format(when=format_when(task.deadline_at, tz, now, locale)))
    template = text["already" if again else "noted"]
    return template.format(title=task.title, facts=text["fact_joiner"].join(facts))


def no_title_question(locale: Locale = "zh") -> str:
    return _TEXTS[locale]["no_title"]


def unclear_time_question(title: str, phrase: str, locale: Locale = "zh") -> str:
    return _TEXTS[locale]["unclear_time"].format(title=title, phrase=phrase)


# What the turn answers when the router is not sure enough that a message asks to save a task.
CLARIFY: dict[Locale, str] = {
    "zh": "我不太确定你是想让我记下一个任务，还是随便聊聊。要记任务的话，可以直接说「帮我记一下：明天下午三点交报告」。",
    "en": "I'm not sure whether you want me to save a task or just chat, so I haven't saved anything. "
    'To save one, say e.g. "remind me to send the report tomorrow at 3pm".',
}
