"""Cheap, honest offline answers to chat clients' auxiliary requests (see ``route.aux``).

Each answer has the shape the client's template demands, so the client parses it without error:
``{"title": "交报告"}`` where a JSON title is asked for, a bare short title where plain text is,
``{"tags": ["General"]}``, ``{"follow_ups": [...]}`` (what Suikou understands next,
``route.aux_followups``), ``{"queries": []}`` (so no web search is made),
``{"text": ""}`` for autocomplete, the untouched input for a translation, and so on. Nothing here
guesses beyond the user's own words: an empty list is a valid "nothing to suggest".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.turn import ChatText
from route.aux import AuxKind, demanded_json_key, json_dumps, strip_transcript
from route.aux_followups import offline_follow_ups

_INSTRUCTION_ROLES = frozenset({"system", "developer"})
_CJK = re.compile(r"[\u3400-\u9fff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_QUOTES = "\"'“”‘’「」『』`"
_GREETING = re.compile(r"^(?:你好|您好|嗨|哈喽|在吗|hi|hello|hey)[!！。.~～\s]*$", re.IGNORECASE)
# Lead-ins that carry no topic: "帮我记一下明天..." is titled by what follows.
_LEAD_IN = re.compile(r"^(?:请|麻烦你?)?(?:帮我|帮忙|给我)?(?:记一下|记一个|记下|记住|提醒我|提醒一下)?[:：，,\s]*")
_LEAD_IN_EN = re.compile(
    r"^(?:please\s+)?(?:(?:can you\s+)?remind me(?:\s+to)?|(?:make a )?note(?: that)?|don'?t let me forget to|"
    r"add a task(?: to)?)[:,\s]+",
    re.I,
)
# Words an English title must not end on ("Submit the report by"): it would read as cut off.
_EN_ARTICLES = ("a", "an", "the", "my", "your", "our", "and", "or", "but")
_EN_PREPOSITIONS = ("to", "by", "at", "on", "in", "of", "for", "from", "with", "before", "after", "until", "into")
_EN_DANGLING = frozenset(_EN_ARTICLES + _EN_PREPOSITIONS)
_CONFIRMED = re.compile(r"已记下[:：]\s*([^（(\n]+)")
# A CJK title keeps the user's whole phrase up to this many characters: Cherry and LobeChat ask
# for "10 字内", but a task title cut at 10 ("后天上午十点去银行办") reads as a typo; 20 fits the
# sidebars of Open WebUI, LobeChat and Cherry Studio.
_TITLE_MAX_CJK = 20
_TITLE_MAX_WORDS = 5
# A longer CJK phrase is cut before one of these, where a new part of the sentence starts (a verb
# phrase, an object, a companion, a place), never inside a word; at least this many characters stay.
_PHRASE_STARTS = ("然后", "以及", "并且", "还有", "去", "把", "给", "和", "跟", "与", "在", "到", "并", "再", "的")
_TITLE_MIN_CJK = 4
# A title's units: a Latin word or number (never split), or one other character.
_TITLE_UNIT = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?|\s+|.", re.S)
_CLAUSE_BREAK = re.compile(r"[，,。.;；!！?？、：:\n]+")
_EMOJI = "🙂"
_NOT_NEEDED_XML = "<websearch>\n  <question>\n    not_needed\n  </question>\n</websearch>"


def offline_aux_reply(
    kind: AuxKind, messages: Sequence[ChatText], *, request_extras: Mapping[str, Any] | None = None
) -> str:
    """A minimal, well-formed answer in the format the client's template asks for."""
    return build_reply(kind, messages, request_extras)


def build_reply(kind: AuxKind, messages: Sequence[ChatText], request_extras: Mapping[str, Any] | None = None) -> str:
    """Answer ``kind`` in the client's format; a JSON schema in ``response_format`` wins."""
    from_schema = _schema_reply(messages, request_extras)
    if from_schema is not None:
        return from_schema
    return _REPLIES[kind](messages)


# --- what the request says ------------------------------------------------------------------


def _instruction_texts(messages: Sequence[ChatText]) -> list[str]:
    """The texts that carry the client's template: system messages and the trailing message."""
    texts = [m.text for m in messages if m.role in _INSTRUCTION_ROLES]
    if messages and messages[-1].role == "user":
        texts.append(messages[-1].text)
    return texts


def _instruction(messages: Sequence[ChatText]) -> str:
    return "\n".join(strip_transcript(t) for t in _instruction_texts(messages))


def _unquote(text: str) -> str:
    return text.strip().strip(_QUOTES).strip()


def embedded_user_sentences(messages: Sequence[ChatText]) -> list[str]:
    """The user's own sentences quoted by the template (or sent as earlier turns), in order."""
    texts = _instruction_texts(messages)
    for extract in _EXTRACTORS:
        found = [s for text in texts for s in extract(text)]
        found = [_unquote(s) for s in found if _unquote(s)]
        if found:
            return found
    return _earlier_user_turns(messages)


def _from_main_text_array(text: str) -> list[str]:
    """Cherry Studio sends the conversation as a JSON array of {role, mainText}."""
    stripped = text.strip()
    if not stripped.startswith("["):
        return []
    try:
        items = json.loads(stripped)
    except ValueError:
        return []
    if not isinstance(items, list):
        return []
    return [str(i.get("mainText", "")) for i in items if isinstance(i, dict) and i.get("role") == "user"]


_USER_LINE = re.compile(r"^\s*(?:\|\|>)?(?:USER|User|user|Human)\s*:[ \t]*(.*)$")


def _from_role_lines(text: str) -> list[str]:
    """``USER: …`` / ``user: …`` / ``||>User:`` + next line (LibreChat puts the text below)."""
    lines = text.splitlines()
    found: list[str] = []
    for index, line in enumerate(lines):
        match = _USER_LINE.match(line)
        if not match:
            continue
        content = match.group(1).strip()
        if not content and index + 1 < len(lines):
            content = lines[index + 1].strip()
        found.append(content)
    return found


def _regex_extractor(pattern: str, *, last_only: bool = False) -> Callable[[str], list[str]]:
    compiled = re.compile(pattern, re.DOTALL | re.MULTILINE)

    def extract(text: str) -> list[str]:
        found = [m.group(1).strip() for m in compiled.finditer(text)]
        return found[-1:] if last_only else found

    return extract


# Order matters: the most specific layout first; see client-aux-prompts.md for each client.
_EXTRACTORS: tuple[Callable[[str], list[str]], ...] = (
    _from_main_text_array,
    _from_role_lines,
    _regex_extractor(r"<user>\s*(.*?)\s*</user>"),
    _regex_extractor(r"^Follow up question:\s*(.+?)\s*$", last_only=True),
    _regex_extractor(r"Follow Up Input:\s*(.*?),\s*it's standalone query"),
    _regex_extractor(r"^Query:\s*(.+?)\s*$", last_only=True),
    _regex_extractor(r'latest user query:\s*"(.+?)"'),
    _regex_extractor(r"```[^\n]*\n(.*?)\n\s*(?:-{5,}|```)"),
    _regex_extractor(r"-{5,}\s*\n+(.*?)\n+\s*-{5,}"),
    _regex_extractor(r'Give the title only\.\s*"(.+)"\s*$'),
    _regex_extractor(r"<translate_input>\n(.*?)\n</translate_input>"),
)


def _earlier_user_turns(messages: Sequence[ChatText]) -> list[str]:
    """NextChat and Chatbox send the real turns as messages and the instruction last."""
    earlier = messages[:-1] if messages and messages[-1].role == "user" else messages
    return [m.text.strip() for m in earlier if m.role == "user" and m.text.strip()]


def _confirmed_titles(messages: Sequence[ChatText]) -> list[str]:
    """Titles from this service's own confirmations ("好，已记下：交报告（…）") quoted anywhere."""
    text = "\n".join(m.text for m in messages)
    return [t.strip() for t in _CONFIRMED.findall(text) if t.strip()]


def _has_cjk(text: str) -> bool:
    return bool(_CJK.search(text) or _KANA.search(text) or _HANGUL.search(text))


def _language_code(text: str) -> str:
    if _KANA.search(text):
        return "ja-JP"
    if _HANGUL.search(text):
        return "ko-KR"
    return "zh-CN" if _CJK.search(text) else "en-US"


# --- titles ---------------------------------------------------------------------------------


def offline_title(messages: Sequence[ChatText]) -> str:
    """A short plain title from the user's own words: no quotes, no punctuation."""
    candidates = _confirmed_titles(messages) + [s for s in embedded_user_sentences(messages) if not _GREETING.match(s)]
    for candidate in candidates:
        title = _clean_title(candidate)
        if title:
            return title
    everything = "\n".join(m.text for m in messages)
    return "闲聊" if _has_cjk(everything) else "New Chat"


def _clean_title(sentence: str) -> str:
    first_line = sentence.strip().splitlines()[0] if sentence.strip() else ""
    text = _LEAD_IN.sub("", _unquote(first_line))
    if _has_cjk(text):
        return _cjk_title(text)
    joined = re.sub(r"(?<=[A-Za-z])['’](?=[A-Za-z])", "", _LEAD_IN_EN.sub("", text))  # "what's" -> "whats"
    words = _plain(joined).split()[:_TITLE_MAX_WORDS]
    while len(words) > 1 and words[-1].lower() in _EN_DANGLING:
        words.pop()  # "Submit the report by" reads cut: end on the last word that carries meaning
    if words and words[0].islower():
        words[0] = words[0][:1].upper() + words[0][1:]  # a title's first word, not "iPhone" -> "IPhone"
    return " ".join(words)


def _plain(text: str) -> str:
    """Punctuation and symbols (any script) as spaces, runs of space as one."""
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]|_", " ", text)).strip()


def _cjk_title(text: str) -> str:
    """The leading clauses that fit in `_TITLE_MAX_CJK`, else the first clause cut at a phrase start."""
    clauses = [_plain(c) for c in _CLAUSE_BREAK.split(text)]
    clauses = [c for c in clauses if c]
    if not clauses:
        return ""
    title = clauses[0]
    for clause in clauses[1:]:
        if len(title) + 1 + len(clause) > _TITLE_MAX_CJK:
            break
        title = f"{title} {clause}"
    return title if len(title) <= _TITLE_MAX_CJK else _cut_at_phrase(title)


def _cut_at_phrase(text: str) -> str:
    """`text` cut to at most `_TITLE_MAX_CJK` characters where a unit ends: before the last phrase
    start that leaves `_TITLE_MIN_CJK` characters, else at the last space or whole unit that fits."""
    phrase_ends, at = [], 0
    for unit in _TITLE_UNIT.findall(text):
        if at + len(unit) > _TITLE_MAX_CJK:
            break
        if at >= _TITLE_MIN_CJK and (unit.isspace() or text.startswith(_PHRASE_STARTS, at)):
            phrase_ends.append(at)
        at += len(unit)
    cut = phrase_ends[-1] if phrase_ends else at  # else after the last whole unit that fits
    return text[:cut].strip()


def _title_reply(messages: Sequence[ChatText]) -> str:
    title = offline_title(messages)
    instruction = _instruction(messages)
    # LibreChat's structured title asks for the detected language as well.
    if re.search(r"detected language", instruction, re.I):
        return json_dumps({"language": _language_code(title), "title": title})
    if re.search(r"\bJSON\b", instruction, re.I):
        return json_dumps({"title": title})
    return title


# --- the other kinds ------------------------------------------------------------------------


def _tags_reply(messages: Sequence[ChatText]) -> str:
    return json_dumps({"tags": ["General"]})


def _follow_ups_reply(messages: Sequence[ChatText]) -> str:
    instruction = _instruction(messages)
    if "quick-reply suggestions" in instruction or '"chips"' in instruction:
        return json_dumps({"chips": []})  # LobeChat's follow-up chips schema
    return json_dumps({"follow_ups": offline_follow_ups(messages)})


def _search_reply(messages: Sequence[ChatText]) -> str:
    instruction = _instruction(messages)
    if "Rephrased question:" in instruction or "'question' XML block" in instruction:
        return _NOT_NEEDED_XML  # Cherry Studio: "not_needed" = no web search
    standalone = re.search(r"Follow Up Input:\s*(.*?),\s*it's standalone query", instruction, re.DOTALL)
    if standalone:
        return standalone.group(1).strip()  # the question already stands alone
    if '"proceed"' in instruction:
        return json_dumps({"action": "proceed"})  # Chatbox: answer without searching
    return json_dumps({"queries": []})


def _autocomplete_reply(messages: Sequence[ChatText]) -> str:
    return json_dumps({"text": ""})


def _translate_reply(messages: Sequence[ChatText]) -> str:
    """Offline there is no translator: give the input back unchanged rather than invent one."""
    for text in _instruction_texts(messages):
        end = text.rfind("</translate_input>")
        start = text.rfind("<translate_input>", 0, end) if end >= 0 else -1
        if start >= 0:
            return text[start + len("<translate_input>") : end].strip()
    return messages[-1].text if messages else ""


def _language_reply(messages: Sequence[ChatText]) -> str:
    text = messages[-1].text if messages else ""
    inner = re.fullmatch(r"\s*\{(.*)\}\s*", text, re.DOTALL)
    return _language_code(inner.group(1) if inner else text)


def _summary_reply(messages: Sequence[ChatText]) -> str:
    """One line naming what the user said, so a later context keeps the gist."""
    said = [s for s in embedded_user_sentences(messages) if not _GREETING.match(s)]
    said = list(dict.fromkeys(" ".join(s.split()) for s in said))[:5]
    everything = "\n".join(m.text for m in messages)
    chinese = _has_cjk(everything)
    if not said:
        return "此前对话没有要点。" if chinese else "Nothing to carry over from the earlier conversation."
    if chinese:
        return "此前对话：用户提到" + "；".join(f"“{s}”" for s in said) + "。"
    return "Earlier in this conversation the user said: " + "; ".join(said) + "."


def _memory_reply(messages: Sequence[ChatText]) -> str:
    """No facts are extracted offline; an empty list in the demanded key is a valid answer."""
    instruction = _instruction(messages)
    key = demanded_json_key(instruction)
    if "'facts' key" in instruction or key == "facts":
        return json_dumps({"facts": []})
    return json_dumps({key: []}) if key else ""


def _tool_picker_reply(messages: Sequence[ChatText]) -> str:
    return json_dumps({"tool_calls": []})


def _emoji_reply(messages: Sequence[ChatText]) -> str:
    return _EMOJI


def _continuation_reply(messages: Sequence[ChatText]) -> str:
    """Nothing: the client appends this to the answer it continues, whose last line is its record."""
    return ""


def _other_reply(messages: Sequence[ChatText]) -> str:
    instruction = _instruction(messages)
    merged = re.search(r'Responses from models:\s*"""(.*?)"""', instruction, re.DOTALL)
    if merged:
        return merged.group(1).strip()  # Open WebUI "merge responses": keep the first answer
    key = demanded_json_key(instruction)
    if key:
        return json_dumps({key: ""})
    if len(messages) == 1 and messages[0].text.strip().lower() == "hi":
        return "Hi!"
    return "OK"


_REPLIES: Mapping[AuxKind, Callable[[Sequence[ChatText]], str]] = {
    AuxKind.TITLE: _title_reply,
    AuxKind.TAGS: _tags_reply,
    AuxKind.FOLLOW_UPS: _follow_ups_reply,
    AuxKind.SEARCH_QUERIES: _search_reply,
    AuxKind.AUTOCOMPLETE: _autocomplete_reply,
    AuxKind.TRANSLATE: _translate_reply,
    AuxKind.LANGUAGE_DETECT: _language_reply,
    AuxKind.SUMMARY: _summary_reply,
    AuxKind.MEMORY: _memory_reply,
    AuxKind.TOOL_PICKER: _tool_picker_reply,
    AuxKind.EMOJI: _emoji_reply,
    AuxKind.CONTINUATION: _continuation_reply,
    AuxKind.OTHER: _other_reply,
}


# --- response_format ------------------------------------------------------------------------


def _schema_reply(messages: Sequence[ChatText], extras: Mapping[str, Any] | None) -> str | None:
    """A ``response_format`` JSON schema is the client's contract: fill its required fields."""
    fmt = (extras or {}).get("response_format")
    if not isinstance(fmt, Mapping) or fmt.get("type") != "json_schema":
        return None
    spec = fmt.get("json_schema")
    schema = spec.get("schema") if isinstance(spec, Mapping) else None
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        return None
    title = offline_title(messages)
    fills = {"title": title, "language": _language_code(title)}
    return json_dumps(_minimal_instance(schema, fills, name=""))


def _minimal_instance(schema: Mapping[str, Any], fills: Mapping[str, str], *, name: str) -> object:
    kind = schema.get("type")
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties") or {}
        required = schema.get("required") or list(props)
        return {
            key: _minimal_instance(props.get(key) or {}, fills, name=key) for key in required if isinstance(key, str)
        }
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 0
    if kind == "boolean":
        return False
    return fills.get(name, "")


# --- a model's answer to a request that demands JSON -------------------------------------------

_DECODER = json.JSONDecoder()


def demanded_json(reply: str, offline_answer: str) -> str | None:
    """The model's ``reply`` as the client may parse it, or None when it cannot be used.

    The offline answer has the shape the client's template (or its ``response_format`` schema)
    demands; when it is a JSON object, so must the reply be: the first JSON object in the reply
    (bare, in a ```json fence or among prose) that has every key of the offline answer with a value
    of the same JSON type. Anything else the client would fail to parse. A template that demands no
    JSON takes the reply as it is.
    """
    shape = _json_object(offline_answer.strip())
    if shape is None:
        return reply
    for found in _json_objects(reply):
        if all(key in found and _same_type(found[key], value) for key, value in shape.items()):
            return json_dumps(found)
    return None


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _json_objects(text: str) -> list[dict[str, Any]]:
    """Every JSON object that starts at a ``{`` of ``text`` and parses, in order."""
    found: list[dict[str, Any]] = []
    at = text.find("{")
    while at >= 0:
        try:
            value, end = _DECODER.raw_decode(text, at)
        except ValueError:
            at = text.find("{", at + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        at = text.find("{", end)
    return found


def _same_type(value: object, like: object) -> bool:
    if isinstance(like, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(like, bool)
    if isinstance(like, (int, float)):
        return isinstance(value, (int, float))
    return isinstance(value, type(like)) if like is not None else True
