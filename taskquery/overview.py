"""The answer to "有哪些清单", "我的标签", "what lists do I have": the user's lists or labels with their
counts, rendered by code."""

from __future__ import annotations

from typing import Literal

from core.listnames import LISTS_QUESTION_RE, read_scope
from core.lists import Named
from core.locale import Locale

__all__ = ["overview_kind", "overview_text"]

Kind = Literal["lists", "labels"]

_TEXTS: dict[Locale, dict[str, str]] = {
    "zh": {
        "lists": "你有 {n} 个清单：",
        "labels": "你用过 {n} 个标签：",
        "list_item": "{i}. {name}（{open} 条未完成，共 {total} 条）",
        "label_item": "{i}. #{name}（{open} 条未完成，共 {total} 条）",
        "no_lists": "你还没有清单。记的时候说「记到购物清单：牛奶、鸡蛋」，就会建好「购物清单」。",
        "no_labels": "你还没有用过标签。记的时候加上「#工作」，就给任务贴上「工作」标签。",
    },
    "en": {
        "lists": "Your lists ({n}):",
        "labels": "Your labels ({n}):",
        "list_item": "{i}. {name} ({open} open, {total} in all)",
        "label_item": "{i}. #{name} ({open} open, {total} in all)",
        "no_lists": 'You have no lists yet. Say "shopping list: milk, eggs" to make one as you note.',
        "no_labels": 'You have no labels yet. Add "#work" when you note a task to label it.',
    },
}


def overview_kind(text: str) -> Kind | None:
    """Whether ``text`` asks for the lists or the labels themselves (not for what is in one)."""
    m = LISTS_QUESTION_RE.search(text or "")
    if m is None or read_scope(text):
        return None
    word = next(g for g in m.groups() if g)
    return "labels" if word in ("标签", "labels", "tags") or word.lower() in ("labels", "tags") else "lists"


def overview_text(kind: Kind, named: list[Named], locale: Locale) -> str:
    texts = _TEXTS[locale]
    if not named:
        return texts["no_" + kind]
    item = texts["list_item" if kind == "lists" else "label_item"]
    lines = [texts[kind].format(n=len(named))]
    lines += [item.format(i=i, name=n.name, open=n.open, total=n.total) for i, n in enumerate(named, 1)]
    return "\n".join(lines)
