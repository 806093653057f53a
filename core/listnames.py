"""Names of lists and labels: what one may be, how two are compared, how a task's labels are stored.

A list (a project: "购物清单", "Work") holds a task at most; labels ("#工作", "urgent") are any number
per task. Both are per user and made on first use. Names are compared by their key — case classes
folded, spaces collapsed, a leading '#' dropped (:func:`key`) — so "#Work", "work" and "WORK" are one
label, written as it was first written.
"""

from __future__ import annotations

import json
import re

from core import textkeys
from core.textrules import INVISIBLE, SPACE

__all__ = [
    "LABELS_MAX",
    "LISTS_QUESTION_RE",
    "NAME_MAX",
    "NAME_TEXT",
    "clean_labels",
    "clean_name",
    "is_time",
    "key",
    "label_list",
    "labels_json",
    "read_scope",
]

NAME_MAX = 40
LABELS_MAX = 20
# Characters a name can't hold: they separate names in what people type ("#a #b", "a，b"), or are controls.
_SEPARATORS = "#＃,，、;；"
_CONTROLS = "\x00-\x1f\x7f-\x9f"
_REFUSED_RE = re.compile(f"[{_SEPARATORS}{_CONTROLS}]")
# What a client may send as a name (the OpenAPI document shows it; clean_name checks the same): spaces
# around it, one leading '#', then no separator or control, and something visible. At most NAME_MAX.
NAME_TEXT = (
    f"^[{SPACE}]*[#＃]?[^{_SEPARATORS}{_CONTROLS}]*[^{_SEPARATORS}{_CONTROLS}{SPACE}{INVISIBLE}]"
    f"[^{_SEPARATORS}{_CONTROLS}]*[{SPACE}]*$"
)
_VISIBLE_RE = re.compile(f"[^{SPACE}{INVISIBLE}]")


def clean_name(value: str) -> str:
    """A list's or label's name as kept: trimmed, one leading '#' dropped, inner spaces collapsed;
    ValueError if it breaks :data:`NAME_TEXT` or is longer than ``NAME_MAX``."""
    if len(value) > NAME_MAX:
        raise ValueError(f"a name is at most {NAME_MAX} characters")
    name = value.strip()
    name = name[1:].strip() if name[:1] in ("#", "＃") else name
    if _REFUSED_RE.search(name):
        raise ValueError("a name can't hold '#', commas, semicolons or control characters")
    name = " ".join(name.split())
    if not _VISIBLE_RE.search(name):
        raise ValueError("a name must not be blank")
    return name


def lenient(value: str) -> str | None:
    """A name from a file as Suikou can keep it: separators and controls turned to spaces, cut to length;
    None if nothing is left (an import keeps what it can rather than refusing a whole file for a comma)."""
    text = " ".join(_REFUSED_RE.sub(" ", value).split())[:NAME_MAX].strip()
    return text if text and _VISIBLE_RE.search(text) else None


def lenient_labels(values: list[str]) -> list[str]:
    """Labels from a file, each :func:`lenient`, the first spelling of each, at most ``LABELS_MAX``."""
    names = [n for n in (lenient(v.strip().lstrip("#＃@")) for v in values) if n]
    return clean_labels(names[:LABELS_MAX]) if names else []


def key(name: str) -> str:
    """How names are compared: "Work", "work" and "#work" are one."""
    return textkeys.match_key(clean_name(name))


def clean_labels(values: list[str]) -> list[str]:
    """Labels as kept: each cleaned, the first spelling of each key, in the order given."""
    out: dict[str, str] = {}
    for value in values:
        name = clean_name(value)
        out.setdefault(key(name), name)
    if len(out) > LABELS_MAX:
        raise ValueError(f"a task has at most {LABELS_MAX} labels")
    return list(out.values())


def labels_json(values: list[str] | None) -> str | None:
    """The stored form of a task's labels (None: none)."""
    return json.dumps(values, ensure_ascii=False) if values else None


def label_list(stored: str | None) -> list[str]:
    """A task's labels from their stored form."""
    if not stored:
        return []
    try:
        values = json.loads(stored)
    except ValueError:
        return []
    return [v for v in values if isinstance(v, str)] if isinstance(values, list) else []


# --- how a question names a list or a label ("购物清单里有什么", "#工作 这周的", "工作上的事") -------------

_NAME = r"[^\s：:，,。；;#＃、？?！!的里]{1,16}?"
_LIST_WORD = r"(?:清单|列表|单子)"
# Rules as data: each pattern's `name` is the scope's words; `kind` what they were said as.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?:^|(?<=[\s，,。：:]))[#＃](?P<name>[^\s#＃，,。；;：:！!？?、]{1,40})"), "label"),
    (re.compile(rf"(?P<name>{_NAME}{_LIST_WORD})(?:里面?|里头|中|上)?(?:的|有|都有|还有|还剩)"), "list"),
    (re.compile(rf"(?P<name>{_NAME})(?:上的|方面的|相关的|有关的)(?:事|任务|活|待办|哪些|有哪些|$)"), "topic"),
    (re.compile(rf"关于(?P<name>{_NAME})的"), "topic"),
    (re.compile(rf"^(?:我)?(?P<name>{_NAME}里)的(?:事|任务|急事|要紧的|重要的|活|待办)"), "topic"),
    (re.compile(r"\b(?:in|on)\s+(?:my\s+|the\s+)?(?P<name>[\w' -]{1,30}?)\s+list\b", re.I), "list"),
    (re.compile(r"\b(?:tagged|labeled|labelled|with the label)\s+#?(?P<name>[\w-]{1,30})\b", re.I), "label"),
)
_NOT_SCOPES = frozenset({
    "我", "我的", "所有", "全部", "这", "那", "今天", "明天", "本周", "这周", "下周", "任务", "事", "事情", "手头",
    "手上", "家", "心", "工作日",
})  # fmt: skip


def read_scope(text: str) -> str | None:
    """The words naming a list or label, as said ("#工作" keeps its '#': it can only be a label)."""
    for pattern, kind in _RULES:
        m = pattern.search(text)
        if not m:
            continue
        name = _LEAD_WORDS_RE.sub("", m.group("name").strip())
        try:
            name = clean_name(name)
        except ValueError:
            continue
        if name in _NOT_SCOPES or (kind == "topic" and ((len(name) < 2 and not name.isascii()) or is_time(name))):
            continue
        return f"#{name}" if kind == "label" else name
    return None


# Words before a topic that are not part of it: "和合同相关的", "跟客户有关的", "我的工作上的".
_LEAD_WORDS_RE = re.compile(r"^(?:请|帮我|看看|查一?下|列出|所有|全部|我的|我|和|跟|与|同|有关于|有)+")


def is_time(words: str) -> bool:
    """The words are mostly a time ("明天", "这周里"): a deadline or a window, never a list's name."""
    from datetime import UTC, datetime

    from core.timeanchor import resolve_time  # the grammar: on first use only

    bare = words.removesuffix("里")
    window = resolve_time(bare, datetime(2026, 1, 5, 9, tzinfo=UTC), "UTC")
    return window is not None and bool(window.phrase) and len(window.phrase) * 2 >= len(bare)


# "有哪些清单", "我的标签", "what lists do I have": the lists (or labels) themselves, with counts.
LISTS_QUESTION_RE = re.compile(
    r"(?:有|都有|有哪些|有几个|哪些|什么)(?P<zh>清单|列表|标签)(?:了|呀|啊)?(?:[吗呢?？。]|$)|"
    r"(?:我的|所有|全部)(?P<zh2>清单|列表|标签)(?:有哪些|都有什么)?(?:[吗呢?？。]|$)|"
    r"^(?:列出|看看|显示)?(?:我的|所有的?)?(?P<zh3>清单|列表|标签)(?:有哪些|都有什么|列表)?[吗呢?？]?$|"
    r"\b(?:what|which|show|list)\b.{0,12}\b(?:my|i have|do i have|i've got)\b.{0,12}\b(?P<en>lists|labels|tags)\b|"
    r"\b(?:what|which)\s+(?P<en2>lists|labels|tags)\s+do\s+i\s+have\b|^(?:show\s+)?my\s+(?P<en3>lists|labels|tags)\W*$",
    re.I,
)
