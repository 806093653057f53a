"""Moving a task to a list and labelling it by chat, read by code: "把给猫剪指甲放到家务清单", "把交方案从工作清单
移出来", "给交方案加个#紧急标签", "去掉交方案的工作标签", "move the report to my work list", "tag the report
urgent", "remove the urgent label from the report".

Rules as data: each pattern's groups are ``w`` (the task's words, when named) and ``v`` (the list or the
label). A list value that reads as a time ("把交报告挪到周五") is no list: it stays a deadline change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from core import listnames

__all__ = ["Placing", "read_placing"]

Kind = Literal["list", "unlist", "label", "unlabel"]

_W = r"(?P<w>.+?)"
_NAME = r"[「“\"#＃]?(?P<v>[^\s「」“”\"#＃，,。；;：:、]{1,40}?)[」”\"]?"
_LIST_WORD = r"(?:清单|列表)"
_INTO = r"(?:放到|放进|放在|放入|移到|移进|移入|挪到|挪进|移动到|归到|归入|归进|加到|加进|加入|转到|丢到|丢进)"
_OUT = r"(?:移出|拿出|挪出|删掉|去掉|移除|拿掉|删除)"
_LABEL = r"(?:标签|tag)"
_ADD = r"(?:加|添|打|贴|标|加上|添上|打上|贴上|标上)"
_DROP = r"(?:去掉|删掉|删除|移除|拿掉|取消|撕掉|摘掉)"

_RULES: tuple[tuple[re.Pattern[str], Kind], ...] = (
    # "把交方案从工作清单(里)移出(来)", "把交方案移出工作清单"
    (re.compile(rf"^(?:把|将){_W}从{_NAME}{_LIST_WORD}?(?:里面?|中)?{_OUT}(?:来|去)?$"), "unlist"),
    (re.compile(rf"^(?:把|将){_W}{_OUT}{_NAME}{_LIST_WORD}$"), "unlist"),
    # "把给猫剪指甲放到家务清单(里)", "把交方案移到工作里"
    (re.compile(rf"^(?:把|将){_W}{_INTO}{_NAME}(?P<lw>{_LIST_WORD})?(?:里面?|里头|中)?(?:去|吧)*$"), "list"),
    # "给交方案加个#紧急标签", "给交方案打上紧急的标签", "给交方案加标签：紧急"
    (re.compile(rf"^(?:给|为|帮){_W}{_ADD}(?:个|一个|上)?{_NAME}(?:的)?{_LABEL}$"), "label"),
    (re.compile(rf"^(?:给|为|帮){_W}{_ADD}(?:个|一个|上)?{_LABEL}[：:，,\s]*{_NAME}$"), "label"),
    # "去掉交方案的工作标签", "把交方案的#工作标签去掉", "交方案不要工作标签了", "去掉工作标签"
    (re.compile(rf"^{_DROP}(?:{_W}的)?{_NAME}(?:这个)?{_LABEL}$"), "unlabel"),
    (re.compile(rf"^(?:把|将)?{_W}的{_NAME}(?:这个)?{_LABEL}{_DROP}(?:吧|了)*$"), "unlabel"),
    (re.compile(rf"^{_W}不(?:要|用|需要)(?:再)?(?:带|要|打)?{_NAME}(?:这个)?{_LABEL}了?$"), "unlabel"),
    # English
    (re.compile(r"^(?:move|file|refile)\s+(?P<w>.+?)\s+(?:to|on|in|into|onto)\s+(?:my\s+|the\s+)?(?P<v>[\w' -]{1,30}?)\s+list$", re.I), "list"),
    (re.compile(r"^(?:take|remove|move)\s+(?P<w>.+?)\s+(?:out\s+of|off|from)\s+(?:my\s+|the\s+)?(?P<v>[\w' -]{1,30}?)\s+list$", re.I), "unlist"),
    (re.compile(r"^(?:tag|label)\s+(?P<w>.+?)\s+(?:with\s+|as\s+)?#?(?P<v>[\w-]{1,30})$", re.I), "label"),
    (re.compile(r"^add\s+(?:the\s+|a\s+)?#?(?P<v>[\w-]{1,30})\s+(?:label|tag)\s+to\s+(?P<w>.+)$", re.I), "label"),
    (re.compile(r"^(?:remove|drop|delete)\s+(?:the\s+)?#?(?P<v>[\w-]{1,30})\s+(?:label|tag)(?:\s+from\s+(?P<w>.+))?$", re.I), "unlabel"),
)  # fmt: skip
_NOT_LISTS = frozenset({"日历", "日程", "备忘录", "待办", "明天", "今天", "后天"})


@dataclass(frozen=True)
class Placing:
    """A move or a label change: what, the name (None: out of its list), the task's words if named."""

    kind: Kind
    name: str | None
    words: str | None


def read_placing(body: str) -> Placing | None:
    """The move or label change ``body`` asks for (see the module docstring), else None."""
    for pattern, kind in _RULES:
        m = pattern.match(body)
        if m is None:
            continue
        said_word = m.groupdict().get("lw") or ""
        try:
            name = listnames.clean_name(m.group("v") + said_word)  # "家务清单" as said
        except ValueError:
            continue
        if kind == "list" and (name in _NOT_LISTS or (not said_word and listnames.is_time(name))):
            continue  # "把交报告挪到周五": a deadline, not a list
        words = m.group("w").strip() if m.group("w") else None
        return Placing(kind, None if kind == "unlist" else name, words or None)
    return None
