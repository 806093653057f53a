"""Offline (rule-based) routing signal of the `undo` action.

Mine: a short request to take back what was just done —
  * the undo verb on its own or with a reference to the last step: "撤销", "撤回", "撤销一下",
    "撤销刚才的", "把刚才那条撤回", "取消刚才的", "回退上一步";
  * a reference to what was just done plus a removing verb: "刚才那条不要了", "刚才记的删掉",
    "刚刚加的那个删了吧", "上一条作废";
  * English: "undo", "undo that", "revert that", "cancel that", "scratch that", "take that back",
    "delete the last one", "never mind, delete that", "oops, undo".
Not mine: questions about undoing something else ("撤销订单怎么操作", "怎么撤回微信消息",
"how do I undo in Excel?"), a removing verb with no reference to what was just done ("不要了",
"删掉"), and anything long (a sentence that says more is left to the generic rules and the model).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.turn import HistoryTurn, OfflineSignal

MAX_CHARS = 24

_FILLER = re.compile(
    r"[\s，,。.!！~～…]+|(?:麻烦你?|请你?|帮我|帮忙|给我|那就|算了|哎呀|哎|诶|呃|嗯|啊|呀|吧|哦|噢|哈)"
)
_QUESTION = re.compile(r"怎么|如何|怎样|咋|什么|哪里|能不能教|教我|方法|步骤|流程")
# What was just done: "刚才", "刚刚记的", "上一条", "刚才那条", "刚加的那个".
_REF = (
    r"(?:(?:刚才|刚刚|刚)(?:我)?(?:记|加|添加|新建|建|写|改|标记|完成|弄|做)?(?:的)?(?:那|这)?(?:条|个|一条|一个|件|项)?"
    r"(?:任务|待办|提醒|记录|操作|修改|改动)?|上一(?:条|个|步|次)(?:的)?(?:任务|待办|记录|操作|修改|改动)?)"
)
_UNDO_VERB = r"(?:撤销|撤回|撤消|回退|还原|恢复原样)"
_REMOVE_VERB = r"(?:不要了|不要|删掉|删了|删除|删|去掉|作废|取消|撤销|撤回|撤消|回退|还原)"
_TAIL = r"(?:掉|一下|了|下)*"
# "撤销", "撤销一下", "撤销刚才的", "把刚才的撤回", "刚才那条撤销掉"
_UNDO_ALONE = re.compile(rf"(?:把)?(?:{_REF})?{_UNDO_VERB}{_TAIL}(?:{_REF})?")
# "刚才那条不要了", "刚才记的删掉", "取消刚才的", "把上一条删了"
_REF_REMOVE = re.compile(rf"(?:把)?{_REF}{_REMOVE_VERB}{_TAIL}|{_REMOVE_VERB}{_TAIL}{_REF}")

_EN_FILLER = re.compile(
    r"^(?:(?:oops|whoops|oh|hmm|no|wait|actually|sorry|never ?mind|nvm|scratch that)\b[\s,.!;:-]*)+", re.I
)
_EN_OBJECT = (
    r"(?:that|this|it|the last (?:one|change|note|task|step|thing)|my last (?:change|note|task)|"
    r"what (?:you|i) just (?:did|added|wrote|noted|saved|changed)|the last thing you did)"
)
_EN = re.compile(
    rf"(?:please\s+)?(?:(?:undo|revert|roll ?back)(?:\s+{_EN_OBJECT})?|"
    rf"(?:cancel|delete|remove|drop|scratch|forget|take back|reverse)\s+{_EN_OBJECT}|take {_EN_OBJECT} back|"
    r"scratch that)(?:[\s,]+(?:please|pls|thanks))?",
    re.I,
)


def _zh_form(text: str) -> str:
    return _FILLER.sub("", text)


def offline_signal(text: str, history: Sequence[HistoryTurn]) -> OfflineSignal | None:
    """ "This is a request to undo the last write", and how sure; None when it is not one."""
    raw = (text or "").strip()
    if not raw or len(raw) > MAX_CHARS * 2 or "?" in raw or "？" in raw:
        return None
    if re.search(r"[\u4e00-\u9fff]", raw):
        if _QUESTION.search(raw):
            return None
        form = _zh_form(raw)
        if not form or len(form) > MAX_CHARS:
            return None
        if _UNDO_ALONE.fullmatch(form):
            return OfflineSignal(0.9, "要撤销刚才的操作")
        if _REF_REMOVE.fullmatch(form):
            return OfflineSignal(0.85, "要撤销刚才记下或改动的任务")
        return None
    english = raw.strip(" .!")
    if _EN.fullmatch(english) or _EN.fullmatch(_EN_FILLER.sub("", english).strip(" .!")):
        return OfflineSignal(0.9, "wants to undo the last change")
    return None
