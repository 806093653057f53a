"""Where a note goes: the list it names ("记到购物清单：牛奶、鸡蛋", "shopping list: milk") and its
labels ("#工作 明天交方案"), read by code before the sentence is read as a task.

What is read is taken out of the sentence, so a list or a hashtag never stays in a title. A topic
("工作上的：周五前回复客户") goes to the list of that name if the user has one, else becomes a label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlmodel import Session

from core import listnames, lists

__all__ = ["NOWHERE", "Place", "Placement", "bare", "read_placement", "settle", "split_items"]


_NAME = r"[^\s：:，,。；;#＃、]{1,20}?"
_LIST_WORD = r"(?:清单|列表|单子)"
# Rules as data: (pattern, what the name is). Each pattern has `name` and `rest`.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            rf"^(?:请|帮我|麻烦)?(?:记到|记在|记进|加到|加进|添加到|添到|放到|放进|放在|存到|归到|归入|列到|写到)"
            rf"(?:我的)?[「“\"]?(?P<name>{_NAME}{_LIST_WORD}?)[」”\"]?(?:里面|里头|里|中|上)?\s*[：:，,]\s*(?P<rest>.+)$"
        ),
        "list",
    ),
    (re.compile(rf"^(?P<name>{_NAME}{_LIST_WORD})\s*[：:]\s*(?P<rest>.+)$"), "list"),
    (re.compile(rf"^(?P<name>{_NAME})(?:上的|方面的|相关的)(?:事情?|任务)?\s*[：:]\s*(?P<rest>.+)$"), "topic"),
    (
        re.compile(
            r"^(?:add|put|save)\s+(?P<rest>.+?)\s+(?:to|on|in|onto)\s+(?:my\s+|the\s+)?(?P<name>[\w' -]{1,30}?)\s+list[.!]*$",
            re.I,
        ),
        "list",
    ),
    (re.compile(r"^[\"“]?(?P<name>[\w' -]{1,30}?)[\"”]?\s+list\s*:\s*(?P<rest>.+)$", re.I), "list"),
)
# "#2047" (all digits) is a number, not a label ("invoice #2047", "issue #12"): it stays in the title.
_HASHTAG = re.compile(
    r"(?:^|(?<=[\s，,。；;：:]))[#＃](?![\d.]+(?=$|[\s，,。；;：:！!？?、]))"
    r"(?P<label>[^\s#＃，,。；;：:！!？?、]{1,40})(?=$|[\s，,。；;：:！!？?、])"
)


@dataclass(frozen=True)
class Placement:
    """The sentence without what was read, the list it names and its labels."""

    rest: str
    list_name: str | None = None
    labels: tuple[str, ...] = ()
    topic: str | None = None  # a list if the user has one by that name, else a label
    quoted: bool = False  # the list's name was quoted ("记到「购物单」：…"): that name, no near-miss asked

    @property
    def placed(self) -> bool:
        return bool(self.list_name or self.labels or self.topic)


# Places a note goes that are no list of the user's: "记到备忘录里：…" is just a note.
_NOT_LISTS = frozenset(
    [
        "待办",
        "待办事项",
        "待办清单",
        "任务",
        "任务清单",
        "备忘",
        "备忘录",
        "日历",
        "日程",
        "本子",
        "本上",
        "小本本",
        "心里",
        "脑子里",
        "清单",
        "列表",
        "单子",
        "这里",
        "这",
        "那里",
        "里面",
        "todo",
        "to-do",
        "todos",
        "tasks",
        "task",
        "my",
        "reminders",
        "calendar",
    ]
)


def _name(raw: str) -> str | None:
    try:
        name = listnames.clean_name(raw)
    except ValueError:
        return None
    return None if name.lower() in _NOT_LISTS or listnames.is_time(name) else name  # "记到明天：…"


def bare(name: str) -> str:
    """The name without a list word ("购物清单" → "购物", "shopping list" → "shopping")."""
    stripped = re.sub(rf"(?:{_LIST_WORD}|\s+list)$", "", name, flags=re.I).strip()
    return stripped or name


def read_placement(text: str) -> Placement:
    """The list, labels and topic ``text`` names, and what is left of it (module docstring)."""
    labels = [m.group("label") for m in _HASHTAG.finditer(text)]
    rest = _HASHTAG.sub(" ", text).strip(" ，,")
    rest = re.sub(r"\s{2,}", " ", rest)
    cleaned = tuple(n for n in (_name(label) for label in labels) if n)
    for pattern, kind in _RULES:
        m = pattern.match(rest)
        if m and (name := _name(m.group("name").strip())) and m.group("rest").strip():
            body = m.group("rest").strip()
            if kind == "list":
                quoted = bool(re.search(r"[「“\"]" + re.escape(m.group("name")), rest))
                named = name if _CJK.search(name) or quoted else bare(name)
                return Placement(body, list_name=named, labels=cleaned, quoted=quoted)
            return Placement(body, labels=cleaned, topic=name)
    return Placement(rest if cleaned else text, labels=cleaned)


_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Place:
    """Where a message's notes go, read against the user's lists: a list (as it is named) and labels."""

    list_name: str | None = None
    labels: tuple[str, ...] = ()


NOWHERE = Place()


def settle(session: Session, user_id: int, placement: Placement) -> Place | lists.Resolved:
    """The list and labels ``placement`` names, read against the user's lists: a :class:`Place`, or
    the near misses to ask about (a :class:`core.lists.Resolved` without a name)."""
    labels = list(placement.labels)
    list_name = None
    if placement.topic is not None:  # "工作上的：…": the list of that name if there is one, else a label
        found = lists.resolve_list(session, user_id, placement.topic)
        if found.name is not None and not found.new:
            list_name = found.name
        else:
            labels.insert(0, placement.topic)
    elif placement.list_name is not None:
        if placement.quoted:
            found_list = lists.find_list(session, user_id, placement.list_name)
            list_name = found_list.name if found_list is not None else placement.list_name
        else:
            resolved = lists.resolve_list(session, user_id, placement.list_name)
            if resolved.name is None:
                return resolved
            list_name = resolved.name
    return Place(list_name, tuple(listnames.clean_labels(labels)))


# A rest that asks rather than tells: "#工作 这周的", "#work what's due" are questions about a label.
_ASKS_RE = re.compile(
    r"有哪些|有什么|哪些|什么|几[个件条]|多少|吗|么|[?？]|列出|看看|显示|查一?下|的$|"
    r"\b(?:what|which|show|list|how many|any)\b",
    re.I,
)


# What is left of "我的 #工作 任务": no task in it, so it asks for the label's tasks.
_BARE_WORDS_RE = re.compile(r"我的|所有|全部|的|任务|事情?|待办|清单|\s|my|all|tasks?|to-?dos?", re.I)


def asks(rest: str) -> bool:
    """The words after a hashtag ask about it rather than note a task."""
    return bool(_ASKS_RE.search(rest)) or not _BARE_WORDS_RE.sub("", rest)


_ITEM_SEPARATORS = re.compile(r"\s*[、，,]\s*|\s+and\s+")


def split_items(rest: str) -> list[str]:
    """A list's short items ("牛奶、鸡蛋、洗衣液", "milk, eggs and soap") one by one; [rest] when it
    reads as one thing (an item too long to be a list's entry)."""
    items = [i.strip() for i in _ITEM_SEPARATORS.split(rest) if i.strip()]
    if len(items) < 2 or any(len(i) > 12 for i in items):
        return [rest]
    return items
