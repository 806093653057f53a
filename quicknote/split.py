"""Several tasks in one message: "明天买牛奶，周五交报告" → two notes, each read on its own.

Code decides the split, offline, whatever model is configured:

1. The lead-in ("帮我记一下", "记一下：", "帮我记：", "remind me to") and a leading priority label
   ("很重要的事：") are set aside; the label is given back to every part, so it counts for each.
2. The rest is cut at every separator: "，,；;、。" and a line break, the words "和/然后/还有/以及/
   另外/再就是", and in English ", ; and then also" — never inside quotes or brackets.
3. A piece that is not a task on its own is glued back to its neighbour (to the one before it; the
   first piece to the one after it), so "买牛奶和面包" stays one task ("面包" is not a task) and so
   does "明天和后天都要开会" ("明天" names no task). A piece is a task when the offline extraction
   finds a title in it and that title starts with an action verb (a preposition or 把 counts when a
   verb follows: "给张总回电话", "把快递拿了"), or, after a punctuation separator, when the piece
   has its own time phrase ("明天牙医"). After "和/and", which join nouns as often as tasks, the
   piece needs its own verb.

Each part is then extracted, anchored and prioritised exactly like a single note.
"""

from __future__ import annotations

import re
from datetime import datetime

from core import remindwords
from quicknote.brackets import bracket_spans
from quicknote.offline import offline_extract_note, strip_label_head, strip_lead

__all__ = ["MAX_PARTS", "is_task_part", "split_note"]

MAX_PARTS = 10  # more than this in one message is read as one note (and its carried record stays small)

# Separators: punctuation always splits; conjunctions only between two tasks (see `is_task_part`).
_SEP_RE = re.compile(
    r"\s*(?P<punct>[，,；;、。\n]+)\s*(?:(?:然后|还有|以及|另外|再就是|and then|then|and|also)\b\s*)?|"
    r"(?P<word>然后|还有|以及|另外|再就是|和|跟|(?<=\s)(?:and then|and|then|also)(?=\s))\s*",
    re.IGNORECASE,
)
_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_RESTLESS_RE = re.compile(r"[\s，,；;、。.!！]|^(?:并且|而且|同时|and|also)")
_PUNCT_RE = re.compile(r"[，,；;、。\n]")

_ZH_VERB = (
    r"(?:交|提交|上交|开会|开|买|取|还|打|发|寄|写|做|看|约|预约|缴|交费|续|签|报名|复习|准备|整理|打扫|收拾|洗|修|订|"
    r"回复|回|联系|参加|见|接|送|带|拿|办|改|完成|确认|安排|健身|跑步|体检|面试|汇报|填|申请|预订|报销|还款|充值|"
    r"备份|上传|下载|提醒|喂|遛|浇|扔|倒|取消|退|换|装|更新|检查|查|看望|拜访|参观|上课|上班|考试|考|练|学|读|背|"
    r"搬|充|挂号|理发|剪|缴纳|支付|付|转账|核对|审|批|签字|打印|复印|拍|录|剪辑|发布|部署|测试|上线|跟进|催|问|通知|"
    r"去|吃|喝|领|收|寄|租|卖|陪|请|叫|告诉|讨论|沟通|处理|清理|清洗|补|评|聊|订购|预定|搞|弄|约见|拜年|祝|谢|"
    r"报|算|对|盘点|统计|研究|调研|规划|计划|设计|画|翻译|校对|提交|出|加|删|登记|注册|投|递|复查|看病|开药|拔|种)"
)
# A preposition (or 把) at the head needs a verb after it: "给张总回电话" is a task, "给张总" is not.
_ZH_PREP_RE = re.compile(rf"^(?:把|给|跟|和|向|找|帮|替|为|对|让|到|在).{{1,12}}?{_ZH_VERB}")
_ZH_VERB_RE = re.compile(rf"^(?:再|先|还要|要|得|去)?{_ZH_VERB}")
_EN_VERBS = frozenset(
    [
        "buy",
        "get",
        "pick",
        "send",
        "call",
        "email",
        "mail",
        "text",
        "pay",
        "book",
        "write",
        "finish",
        "submit",
        "clean",
        "wash",
        "fix",
        "renew",
        "return",
        "bring",
        "take",
        "make",
        "cook",
        "read",
        "review",
        "prepare",
        "check",
        "ask",
        "tell",
        "meet",
        "visit",
        "see",
        "go",
        "order",
        "cancel",
        "file",
        "print",
        "sign",
        "update",
        "water",
        "feed",
        "walk",
        "collect",
        "drop",
        "reply",
        "respond",
        "schedule",
        "plan",
        "study",
        "practice",
        "pack",
        "move",
        "sell",
        "rent",
        "register",
        "apply",
        "install",
        "backup",
        "back",
        "upload",
        "download",
        "test",
        "deploy",
        "ship",
        "publish",
        "finish",
        "do",
        "clear",
        "sort",
        "organize",
        "organise",
        "invite",
        "thank",
        "remind",
        "follow",
        "attend",
        "join",
        "call",
        "reserve",
        "change",
        "replace",
        "repair",
        "charge",
        "top",
        "transfer",
        "print",
        "copy",
        "scan",
        "draft",
    ]
)


def _has_verb(title: str) -> bool:
    if _CJK_RE.search(title):
        return bool(_ZH_VERB_RE.match(title) or _ZH_PREP_RE.match(title))
    first = re.match(r"[a-z']+", title.strip().lower())
    return bool(first and first.group(0) in _EN_VERBS)


def is_task_part(part: str, now: datetime, tz: str, *, after_conjunction: bool = False) -> bool:
    """Whether `part` is a task on its own: a title that starts with a verb, or its own time phrase.
    A clause that only asks for a reminder ("开会前半小时提醒我") belongs to the task before it."""
    said = remindwords.read(part)
    if (
        said is not None
        and said.span is not None
        and not _RESTLESS_RE.sub("", part[: said.span[0]] + part[said.span[1] :])
    ):
        return False
    draft = offline_extract_note(part, now, tz)
    if not draft.title:
        return False
    if _has_verb(draft.title):
        return True
    return not after_conjunction and draft.time_text is not None


def split_note(sentence: str, now: datetime, tz: str) -> list[str]:
    """The parts of a message that names several tasks, each a sentence of its own; one part otherwise."""
    text = (sentence or "").strip()
    body = strip_lead(text)
    label, body = strip_label_head(body)
    pieces: list[tuple[str, str]] = []  # (separator before it, piece)
    pos, sep = 0, ""
    spans = bracket_spans(body)
    for m in _SEP_RE.finditer(body):
        if m.start() == m.end() or any(a <= m.start() < b for a, b in spans):
            continue  # nothing, or a separator inside quotes or brackets ("读《你好，旧时光》"): one title
        pieces.append((sep, body[pos : m.start()]))
        sep, pos = m.group(0), m.end()
    pieces.append((sep, body[pos:]))
    if len(pieces) < 2:
        return [sentence]

    parts: list[str] = []
    head = ""  # pieces before the first task, glued to the first task
    for i, (sep, piece) in enumerate(pieces):
        # After "和/and" alone the piece needs its own verb; the first piece goes by the separator after it.
        joint = sep if i else (pieces[1][0] if len(pieces) > 1 else "")
        conjunction = not _PUNCT_RE.search(joint)
        task = bool(piece.strip()) and is_task_part(label + piece, now, tz, after_conjunction=conjunction)
        if not parts:
            if task:
                parts.append(head + piece)
            else:
                head += piece + (pieces[i + 1][0] if i + 1 < len(pieces) else "")
        elif task:
            parts.append(piece)
        else:
            parts[-1] += sep + piece
    if len(parts) < 2 or len(parts) > MAX_PARTS:
        return [sentence]
    return _carry_day([label + part.strip(" \t，,；;、。") for part in parts], now, tz)


# A day said at the head of a time phrase ("明天", "周五", "12月5日", "下周三"), and a time phrase that
# names only a time of day ("下午三点", "晚上8点", "3点半").
_DAY_HEAD_RE = re.compile(
    r"^(?:今天|明天|后天|大后天|(?:下|这|本|上)?(?:个)?(?:周|星期|礼拜)[一二三四五六日天1-7]|"
    r"\d{1,2}月\d{1,2}[日号]|[一二三四五六七八九十]{1,3}月[一二三四五六七八九十]{1,3}[日号])"
)
_CLOCK_ONLY_RE = re.compile(
    r"^(?:上午|下午|晚上|中午|早上|早晨|傍晚|凌晨|夜里)?(?:\d{1,2}|[一二两三四五六七八九十]{1,3})(?:点|时|[:：]\d{2})"
)


def _carry_day(parts: list[str], now: datetime, tz: str) -> list[str]:
    """ "明天上午开会；下午三点给张总回电话": a part that names only a time of day is on the day the
    part before it named ("明天下午三点给张总回电话"), as the person meant it."""
    out: list[str] = []
    day: str | None = None
    for part in parts:
        time_text = offline_extract_note(part, now, tz).time_text or ""
        said = _DAY_HEAD_RE.match(time_text)
        if said:
            day = said.group(0)
        elif day and _CLOCK_ONLY_RE.match(time_text) and time_text in part:
            part = part.replace(time_text, day + time_text, 1)
        out.append(part)
    return out
