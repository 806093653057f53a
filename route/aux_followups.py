"""Follow-up suggestions for a chat client's background request (Open WebUI's `{"follow_ups": [...]}`).

Open WebUI asks for 3-5 follow-ups after every answer and shows them as buttons that send the text
as the user's next message. Offline, Suikou offers what it understands next, chosen by the last
answer in the quoted history and worded in the user's language: after a list with more to show
the list's own offer ("再来 5 个", "全部"); after a note "撤销", a deadline change, "<title>标记完成";
after a finish or a delete "撤销". Every phrase here is one the offline router sends to the action
it names (tests/route/test_aux_followups.py runs each through the pipeline).

The answer is recognised by its visible wording (the renderers of quicknote, taskquery,
taskcomplete, taskupdate and taskdelete, which route/ may not import), with the carried record
stripped: a record is signed for one user, and this request is a client's, not a turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core import carry
from core.display import TASK_LINE_RE
from core.locale import Locale, detect_locale
from core.turn import ChatText

MAX_SUGGESTIONS = 5

_HISTORY_BLOCK = re.compile(r"<chat_history>\n?(.*?)</chat_history>|### Chat History:\n(.*)\Z", re.S)
_ROLE_AT_LINE = re.compile(r"^(USER|ASSISTANT|User|Assistant|user|assistant)\s*:[ \t]?", re.M)


@dataclass(frozen=True)
class _Situation:
    """What the last answer was, recognised by its wording; suggestions per language."""

    name: str
    answer: re.Pattern[str]
    zh: tuple[str, ...]
    en: tuple[str, ...]


# Placeholders: {more_zh}/{more_en} = the list's own "more" offer, {title} = the task just written,
# {deadline_zh}/{deadline_en} = a deadline change that is not where the task already is.
# First match wins: the list tail is checked before the writes, whose titles could contain anything.
_SITUATIONS: tuple[_Situation, ...] = (
    _Situation(
        "list_with_more",
        re.compile(r"说(「再来 \d+ 个」)(?:或(「全部」))?可以继续看|say (\"\d+ more\")(?: or (\"all\"))? to see them"),
        ("{more}", "{all}", "只看紧急的"),
        ("{more}", "{all}", "only the urgent ones"),
    ),
    _Situation(
        "note",
        re.compile(r"^(?:好，)?已记下：(?P<title>[^（\n]+)|^OK, noted: (?P<title_en>[^(\n]+)", re.M),
        ("撤销", "{deadline}", "{title}标记完成", "今天还有什么要做的？"),
        ("undo", "{deadline}", 'mark "{title}" done', "what's on my list today?"),
    ),
    _Situation(
        "update",
        re.compile(r"^已改好：「(?P<title>[^」\n]+)」|^Updated: \"(?P<title_en>[^\"\n]+)\"", re.M),
        ("撤销", "{title}标记完成", "今天还有什么要做的？"),
        ("undo", 'mark "{title}" done', "what's on my list today?"),
    ),
    _Situation(
        "finish_or_delete",
        re.compile(r"^(?:已完成：「|已删除|Done: \"|Deleted)", re.M),
        ("撤销", "今天还有什么要做的？", "这周有什么要交的"),
        ("undo", "what's on my list today?", "what's due this week?"),
    ),
    _Situation(
        "list",
        re.compile(rf"{TASK_LINE_RE.pattern}|^给你整理了 \d+ 条任务|^Here (?:are \d+ tasks|is 1 task)|^1\. ", re.M),
        ("只看紧急的", "明天有什么要做的？", "这周有什么要交的"),
        ("only the urgent ones", "what's due tomorrow?", "what's due this week?"),
    ),
)
_GENERAL: dict[Locale, tuple[str, ...]] = {
    "zh": ("今天还有什么要做的？", "这周有什么要交的", "来一个简单的任务", "明天有什么要做的？"),
    "en": ("what's on my list today?", "what's due this week?", "give me an easy task", "what's due tomorrow?"),
}
# A deadline change for a task just noted: the first whose day the user's own sentence did not name
# (a task due tomorrow is offered the day after; one with no deadline, tomorrow afternoon).
_DEADLINE_MOVES: dict[Locale, tuple[tuple[re.Pattern[str], str], ...]] = {
    "zh": (
        (re.compile(r"明天|明早|明晚"), "改到明天下午"),
        (re.compile(r"后天"), "改到后天"),
        (re.compile(r"下周一"), "改到下周一"),
    ),
    "en": (
        (re.compile(r"(?<!after )tomorrow", re.I), "move it to tomorrow afternoon"),
        (re.compile(r"day after tomorrow", re.I), "push it to the day after tomorrow"),
        (re.compile(r"next monday", re.I), "move it to next Monday"),
    ),
}


def offline_follow_ups(messages: Sequence[ChatText]) -> list[str]:
    """3-5 next messages the user may send, in the user's language (see the module docstring)."""
    turns = quoted_turns(messages)
    users = [text for role, text in turns if role == "user"]
    answer = next((text for role, text in reversed(turns) if role == "assistant"), "")
    locale = detect_locale(users[-1], users[:-1]) if users else detect_locale(answer)
    said = {_normal(u) for u in users}
    for situation in _SITUATIONS:
        match = situation.answer.search(answer)
        if match is None:
            continue
        filled = _fill(situation.zh if locale == "zh" else situation.en, match, locale, users[-1] if users else "")
        return _unique([s for s in filled if _normal(s) not in said], locale, said)
    return _unique([], locale, said)


def quoted_turns(messages: Sequence[ChatText]) -> list[tuple[str, str]]:
    """(role, visible text) of the conversation the request is about: the history block a template
    quotes (Open WebUI's `<chat_history>`), else the request's own earlier messages."""
    for message in reversed(messages):
        block = _HISTORY_BLOCK.search(message.text)
        if block is not None:
            return _split_roles(block.group(1) or block.group(2) or "")
    earlier = messages[:-1] if messages and messages[-1].role == "user" else messages
    return [(m.role, carry.strip(m.text)) for m in earlier if m.role in ("user", "assistant")]


def _split_roles(transcript: str) -> list[tuple[str, str]]:
    """ "USER: …" / "ASSISTANT: …" lines (an answer may run over many lines) as turns."""
    starts = list(_ROLE_AT_LINE.finditer(transcript))
    turns = []
    for index, start in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(transcript)
        text = carry.strip(transcript[start.end() : end]).strip()
        turns.append((start.group(1).lower(), text))
    return turns


def _fill(templates: Sequence[str], match: re.Match[str], locale: Locale, sentence: str) -> list[str]:
    """The templates with the answer's own words put in; one whose words are missing is left out."""
    groups = match.groupdict()
    title = (groups.get("title") or groups.get("title_en") or "").strip()
    offered = [g for g in match.groups() if g and g.startswith(("「", '"'))]
    values = {
        "more": offered[0].strip('「」"') if offered else "",
        "all": offered[1].strip('「」"') if len(offered) > 1 else "",
        "title": title,
        "deadline": _deadline_move(locale, sentence),
    }
    out = []
    for template in templates:
        names = re.findall(r"\{(\w+)\}", template)
        if all(values.get(name) for name in names):
            out.append(template.format(**values))
    return out


def _deadline_move(locale: Locale, sentence: str) -> str:
    moves = _DEADLINE_MOVES[locale]
    return next((move for named, move in moves if not named.search(sentence)), moves[0][1])


def _unique(suggestions: list[str], locale: Locale, said: set[str]) -> list[str]:
    """Without repeats, topped up from the general ones to three, at most `MAX_SUGGESTIONS`."""
    out = list(dict.fromkeys(suggestions))
    for general in _GENERAL[locale]:
        if len(out) >= 3:
            break
        if general not in out and _normal(general) not in said:
            out.append(general)
    return out[:MAX_SUGGESTIONS]


def _normal(text: str) -> str:
    return re.sub(r"[\s?？!！。.]+", "", text).lower()
