"""A list or label a question names ("购物清单里有什么", "#工作 这周的", "工作上的事有哪些", "家里的急事"),
read by code from the words and then against the user's lists and labels.

Only the user's words select one: the word must name a list (or, with a list word, one of its
variants) or a label the user has. A word that names neither is searched in titles (said as such),
never dropped into a list of everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlmodel import Session

from core import lists
from core.listnames import read_scope
from core.locale import Locale

__all__ = ["SCOPE_PREFIX", "Scope", "read_scope", "resolve_scope"]


@dataclass(frozen=True)
class Scope:
    """What a question's scope turned out to be: the list or label it names, or a title keyword."""

    kind: Literal["list", "label", "keyword"]
    name: str


def resolve_scope(session: Session, user_id: int, said: str) -> tuple[Scope, bool]:
    """``said`` read against the user's lists and labels (module docstring), and whether the user has
    any list or label at all."""
    return _resolved(session, user_id, said), lists.has_any(session, user_id)


def _resolved(session: Session, user_id: int, said: str) -> Scope:
    if said.startswith("#"):
        return Scope("label", said[1:])
    for word in dict.fromkeys([said, said.removesuffix("里") or said]):  # "家里的急事": 家里, else 家
        found = lists.resolve_list(session, user_id, word)
        if found.name is not None and not found.new:
            return Scope("list", found.name)
        for name in lists.variants(word):
            if lists.has_label(session, user_id, name):
                return Scope("label", name)
    bare = lists.variants(said)[1] if said.endswith(lists.LIST_WORDS) else said  # "装修清单" → 装修 in titles
    return Scope("keyword", bare)


SCOPE_PREFIX: dict[Locale, dict[str, str]] = {
    "zh": {
        "list": "「{name}」清单里的任务：",
        "label": "带 #{name} 标签的任务：",
        "keyword": "没有叫「{name}」的清单或标签，按标题里的「{name}」找到这些：",
        "none_list": "「{name}」清单里没有符合条件的任务。",
        "none_label": "没有带 #{name} 标签的符合条件的任务。",
        "none_keyword": "没有叫「{name}」的清单或标签，标题里也没有「{name}」的任务。",
    },
    "en": {
        "list": "Tasks in your “{name}” list:",
        "label": "Tasks labeled #{name}:",
        "keyword": "No list or label is called “{name}”; these have it in the title:",
        "none_list": "Nothing in your “{name}” list matches.",
        "none_label": "No task labeled #{name} matches.",
        "none_keyword": "No list or label is called “{name}”, and no task has it in the title.",
    },
}
