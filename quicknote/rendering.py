"""Confirmations and clarifying questions, rendered by code."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from core import listnames, series
from core.display import format_when, group_label
from core.estimates import minutes_of, text_of
from core.locale import Locale
from core.models import Task
from core.timeanchor.missing import missing_day

NO_TITLE_QUESTION = "要记什么呢？告诉我事情和时间，比如「帮我记一下明天下午三点交报告」。"

# Every fixed text of a quick-note answer; values are str.format templates.
_TEXTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "noted": "好，已记下：{title}（{facts}）",
        "already": "这条消息刚才已经记下了，没有重复创建：{title}（{facts}）",
        "fact_joiner": "；",
        "noted_many": "好，已记下 {count} 条：",
        "already_many": "这条消息刚才已经记下了，没有重复创建（{count} 条）：",
        "item": "{n}. {title}（{facts}）",
        "duplicate": "已有「{title}」{due}，还要再记一条吗？",
        "duplicate_many": "已有{items}，还要把这 {count} 条都再记下吗？",
        "duplicate_item": "「{title}」{due}",
        "duplicate_joiner": "、",
        "duplicate_due": "（{when} 到期）",
        "today": "今天 {clock}",
        "tomorrow": "明天 {clock}",
        "due": "截止 {when}",
        "completed": "已完成",
        "estimate": "预计{estimate}",
        "estimate_unsaved": "（「{estimate}」没有说出具体用时，没有记下预计用时）",
        "no_title": NO_TITLE_QUESTION,
        "unclear_time": (
            "「{phrase}」具体是什么时候？我还没记下「{title}」，"
            "请换个说法告诉我截止时间，比如「周五下午五点」或「12月5日」。"
        ),
        "no_such_day": (
            "「{phrase}」具体是什么时候？这一天不存在（{month_has}），我还没记下「{title}」，请换个说法告诉我截止时间。"
        ),
        "month_of": "{year}年{month}月只有 {days} 天",
        "month_any": "{month}月最多 {days} 天",
    },
    "en": {
        "noted": "OK, noted: {title} ({facts})",
        "already": "Already noted from this message a moment ago, not saved twice: {title} ({facts})",
        "fact_joiner": "; ",
        "noted_many": "OK, noted {count} tasks:",
        "already_many": "Already noted from this message a moment ago, not saved twice ({count} tasks):",
        "item": "{n}. {title} ({facts})",
        "duplicate": 'You already have "{title}"{due}. Add it anyway?',
        "duplicate_many": "You already have {items}. Add all {count} anyway?",
        "duplicate_item": '"{title}"{due}',
        "duplicate_joiner": ", ",
        "duplicate_due": " (due {when})",
        "today": "today {clock}",
        "tomorrow": "tomorrow {clock}",
        "due": "due {when}",
        "completed": "done",
        "estimate": "about {estimate}",
        "estimate_unsaved": ' ("{estimate}" says no amount of time, so no estimate was saved)',
        "no_title": 'What should I note down? Tell me the task and when, e.g. "remind me to send the report tomorrow at 3pm".',
        "unclear_time": (
            'When exactly is "{phrase}"? I haven\'t saved "{title}" yet — '
            'tell me the deadline another way, e.g. "Friday 5pm" or "Dec 5".'
        ),
        "no_such_day": (
            'When exactly is "{phrase}"? That day does not exist ({month_has}). I haven\'t saved "{title}" yet — '
            "tell me the deadline another way."
        ),
        "month_of": "{year}-{month:02d} has {days} days",
        "month_any": "month {month} has at most {days} days",
    },
}


def confirmation(
    task: Task, tz: str, now: datetime, locale: Locale = "zh", *, again: bool = False, estimate: str | None = None
) -> str:
    """ "好，已记下：…" for a new task; with `again`, the honest answer to a retry of the same attempt,
    showing the stored task as it is now (it may have been completed or changed since). An
    `estimate` the user said without an amount ("几个小时") is named as not saved."""
    text = _TEXTS[locale]
    template = text["already" if again else "noted"]
    return template.format(title=task.title, facts=_facts(task, tz, now, locale)) + _unsaved(estimate, locale)


def _unsaved(estimate: str | None, locale: Locale) -> str:
    """An estimate said without an amount Suikou can keep ("几个小时"): said, never dropped quietly."""
    if not estimate or minutes_of(estimate) is not None:
        return ""
    return _TEXTS[locale]["estimate_unsaved"].format(estimate=estimate)


def _facts(task: Task, tz: str, now: datetime, locale: Locale) -> str:
    text = _TEXTS[locale]
    facts = [group_label(task.priority_group, locale)]
    if task.is_completed:
        facts.append(text["completed"])
    if task.deadline_at is not None:
        facts.append(text["due"].format(when=format_when(task.deadline_at, tz, now, locale)))
    if (rule := series.rule_of(task)) is not None and not task.is_completed:
        facts.append(series.summary(rule, task.deadline_at or rule.start, tz, now, locale))
    if task.estimate_minutes:
        facts.append(text["estimate"].format(estimate=text_of(task.estimate_minutes, locale)))
    facts += placed_facts(task.list_name, listnames.label_list(task.labels), locale)
    return text["fact_joiner"].join(facts)


def placed_facts(list_name: str | None, labels: Sequence[str], locale: Locale) -> list[str]:
    """ "清单：购物清单", "#工作 #急" / "list: Shopping", "#work"."""
    facts = [("清单：" if locale == "zh" else "list: ") + list_name] if list_name else []
    if labels:
        facts.append(" ".join(f"#{label}" for label in labels))
    return facts


# A list named nearly as one the user has ("购物单" for 购物清单): asked, nothing written.
NEAR_LIST: dict[Locale, str] = {
    "zh": "你是说「{near}」吗？还没记。要放进它，就说「记到{near}：{rest}」；要新建清单，就加上引号说「记到「{said}」：{rest}」。",
    "en": 'Did you mean your list "{near}"? Nothing is noted yet. Say "{near} list: {rest}", '
    'or quote the new name to make it: ""{said}" list: {rest}".',
}


# A repetition said but not readable: the one-off written is named as such (never a quiet one-off).
UNREAD_REPEAT: dict[Locale, str] = {
    "zh": "\n\n「{words}」我还不会按规律重复，先记成了一次性的；要改的话直接告诉我。",
    "en": '\n\nI can\'t repeat "{words}" on a schedule yet, so I noted it once; tell me if you want it changed.',
}


def list_confirmation(
    tasks: Sequence[Task],
    tz: str,
    now: datetime,
    locale: Locale = "zh",
    *,
    again: bool = False,
    estimates: Sequence[str | None] = (),
) -> str:
    """Several tasks from one message, as one numbered list ("好，已记下 2 条：\n1. …"); `estimates[i]`
    is what task i's estimate was, named when it could not be saved."""
    text = _TEXTS[locale]
    lines = [text["already_many" if again else "noted_many"].format(count=len(tasks))]
    for n, task in enumerate(tasks, 1):
        estimate = estimates[n - 1] if n <= len(estimates) else None
        item = text["item"].format(n=n, title=task.title, facts=_facts(task, tz, now, locale))
        lines.append(item + _unsaved(estimate, locale))
    return "\n".join(lines)


def _near_when(moment: datetime, tz: str, now: datetime, locale: Locale) -> str:
    """ "明天 18:00" for today and tomorrow, the full date otherwise."""
    zone = ZoneInfo(tz)
    local, today = moment.astimezone(zone), now.astimezone(zone).date()
    for key, day in (("today", today), ("tomorrow", today + timedelta(days=1))):
        if local.date() == day:
            return _TEXTS[locale][key].format(clock=f"{local:%H:%M}")
    return format_when(moment, tz, now, locale)


def duplicate_warning(existing: Sequence[Task], count: int, tz: str, now: datetime, locale: Locale = "zh") -> str:
    """ "已有「交电费」（明天 18:00 到期），还要再记一条吗？": nothing written, the user decides.

    `existing` are the open tasks the note repeats; `count` is how many notes the message holds."""
    text = _TEXTS[locale]

    def due(task: Task) -> str:
        if task.deadline_at is None:
            return ""
        return text["duplicate_due"].format(when=_near_when(task.deadline_at, tz, now, locale))

    if count == 1 and len(existing) == 1:
        return text["duplicate"].format(title=existing[0].title, due=due(existing[0]))
    items = text["duplicate_joiner"].join(text["duplicate_item"].format(title=t.title, due=due(t)) for t in existing)
    return text["duplicate_many"].format(items=items, count=count)


def no_title_question(locale: Locale = "zh") -> str:
    return _TEXTS[locale]["no_title"]


def unclear_time_question(title: str, phrase: str, locale: Locale = "zh") -> str:
    text = _TEXTS[locale]
    missing = missing_day(phrase, whole=True)
    if missing is None:
        return text["unclear_time"].format(title=title, phrase=phrase)
    year, month, days = missing.year, missing.month, missing.days  # "2019年2月29日": say why, in the same question
    month_has = text["month_any" if year is None else "month_of"].format(year=year, month=month, days=days)
    return text["no_such_day"].format(title=title, phrase=phrase, month_has=month_has)


# What the turn answers when the router is not sure enough that a message asks to save a task.
CLARIFY: dict[Locale, str] = {
    "zh": "我不太确定你是想让我记下一个任务，还是随便聊聊。要记任务的话，可以直接说「帮我记一下：明天下午三点交报告」。",
    "en": "I'm not sure whether you want me to save a task or just chat, so I haven't saved anything. "
    'To save one, say e.g. "remind me to send the report tomorrow at 3pm".',
}
