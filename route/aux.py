"""Recognise chat clients' auxiliary requests (titles, tags, follow-ups, search rewrites, ...).

Chat clients call the model on their own to name a conversation, tag it, suggest follow-ups,
rewrite a search query, translate, detect a language or summarise memory (see
``docs/client-aux-prompts.md`` in the shared docs). Those requests quote the user's earlier
sentences ("帮我记一下明天下午三点交报告"), so acting on them would create or query tasks the user
never asked for a second time. ``classify_aux`` recognises them deterministically; the caller
answers them as chat, without stage events, and ``offline_aux_reply`` (``route.aux_reply``) gives
the minimal well-formed answer each client expects.

Recognition, most reliable first:

1. Only a final ``user`` message can be a new user turn.
2. Fingerprints of known clients' templates, on the last user message and any system message.
3. Generic signals scored together, for clients we have not seen.

Deliberate decisions (documented because they are judgement calls):

* A user typing "把'写周报'翻译成英文" is a user turn (``None``): we recognise the *clients'*
  templates and shapes, not the user's intent. The router will pick ``chat`` for it, and a real
  chat model then translates it, which the offline echo reply could not do.
* A request made of exactly one user message "hi" is Cherry Studio's connectivity check. Treating
  it as auxiliary is harmless (a greeting is chat either way) and keeps the check cheap.
* The NextChat memory prefix "这是历史聊天总结作为前情提要：" alone is not auxiliary: NextChat also
  sends it, as a system message, inside real chat requests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from core.turn import ChatText


class AuxKind(StrEnum):
    """What an auxiliary request asks for; decides the shape of the offline answer."""

    TITLE = "title"
    TAGS = "tags"
    FOLLOW_UPS = "follow_ups"
    SEARCH_QUERIES = "search_queries"
    AUTOCOMPLETE = "autocomplete"
    TRANSLATE = "translate"
    LANGUAGE_DETECT = "language_detect"
    SUMMARY = "summary"
    MEMORY = "memory"
    TOOL_PICKER = "tool_picker"
    EMOJI = "emoji"
    CONTINUATION = "continuation"
    OTHER = "other"


_INSTRUCTION_ROLES = frozenset({"system", "developer"})

# Generic signals must add up to this before an unknown request counts as auxiliary: no single
# signal is enough, so a user pasting a JSON snippet or asking for a summary stays a user turn.
_GENERIC_THRESHOLD = 3
# Client instructions are long; a user's own meta request ("总结一下我们的对话") is short.
_INSTRUCTION_LENGTH = 40


@dataclass(frozen=True)
class _Fingerprint:
    """A template marker: every pattern must occur in one text. ``kind=None`` = read the JSON key."""

    patterns: tuple[re.Pattern[str], ...]
    kind: AuxKind | None


def _fp(kind: AuxKind | None, *literals: str) -> _Fingerprint:
    return _Fingerprint(tuple(re.compile(re.escape(lit)) for lit in literals), kind)


def _fp_re(kind: AuxKind | None, *patterns: str) -> _Fingerprint:
    return _Fingerprint(tuple(re.compile(p, re.MULTILINE) for p in patterns), kind)


_K = AuxKind

# Substrings that stay the same across client versions (client-aux-prompts.md, "Fingerprints").
# Order matters: specific markers come before the broad Open WebUI "### Task:" one.
_FINGERPRINTS: tuple[_Fingerprint, ...] = (
    # Open WebUI
    _fp(_K.AUTOCOMPLETE, "You are an autocompletion system"),
    _fp(_K.SUMMARY, "Summarize the conversation history that will be compacted"),
    _fp(_K.EMOJI, "reflect the speaker's likely facial expression"),
    _fp(_K.OTHER, "responses from various models to the latest user query"),
    _fp(_K.TITLE, "RESPOND ONLY WITH THE TITLE TEXT"),
    _fp_re(_K.TOOL_PICKER, r"^Query: History:"),
    _fp(_K.TOOL_PICKER, "Available Tools:", '"tool_calls"'),
    _fp(None, "### Task:", "<chat_history>"),
    _fp(None, "### Task:", "### Chat History:"),
    # LobeChat
    _fp(_K.TITLE, "你是一名擅长会话的助理，你需要将用户的会话总结为"),
    _fp(_K.TITLE, "请总结上述对话为"),
    _fp(_K.TITLE, "You are a professional conversation summarizer"),
    _fp(_K.TITLE, "<task>", "Generate a concise title"),
    _fp(_K.TRANSLATE, "You are a professional translator. Translate the input text to"),
    _fp(_K.LANGUAGE_DETECT, "你是一名精通全世界语言的语言专家"),
    _fp(_K.SUMMARY, "good at extracting key takeaways"),
    _fp(_K.SEARCH_QUERIES, "Follow Up Input:", "standalone query"),
    _fp(_K.SEARCH_QUERIES, "rephrase the follow up question to be a standalone question"),
    _fp(_K.FOLLOW_UPS, "You are a sidecar that extracts", "quick-reply suggestions"),
    # Cherry Studio
    _fp(_K.TITLE, "总结给出的会话，将其总结为语言为"),
    _fp(_K.TITLE, "Summarize the conversation into a title in"),
    _fp(_K.SEARCH_QUERIES, "You are an AI question rephraser"),
    _fp(_K.SEARCH_QUERIES, "Rephrased question:", "Follow up question:"),
    _fp(_K.TRANSLATE, "<translate_input>", "</translate_input>"),
    _fp(_K.MEMORY, "You are a Personal Information Organizer"),
    _fp(_K.MEMORY, "You are a smart memory manager"),
    # NextChat (app/locales: cn, en, tw, jp Topic and Summarize prompts)
    _fp(_K.TITLE, "使用四到五个字直接返回这句话的简要主题"),
    _fp(_K.TITLE, "Please generate a four to five word title summarizing our conversation"),
    _fp(_K.TITLE, "to generate a title (at most 6 words) summarizing our conversation"),
    _fp(_K.TITLE, "この文の簡潔なテーマを四から五文字で返してください"),
    _fp(_K.SUMMARY, "简要总结一下对话内容，用作后续的上下文提示"),
    _fp(_K.SUMMARY, "Summarize the discussion briefly in 200 words or less"),
    _fp(_K.SUMMARY, "to summarise the conversation in at most 200 words"),
    _fp(_K.SUMMARY, "対話の内容を簡潔に要約し、後続のコンテキストプロンプトとして使用します"),
    # LibreChat
    _fp(_K.TITLE, "5-word-or-less title"),
    _fp(_K.TITLE, "||>Title:"),
    _fp(_K.TITLE, "Only return the title itself"),
    _fp(_K.TITLE, "Analyze this conversation and provide:"),
    # Chatbox
    _fp(_K.TITLE, "give this conversation a name"),
    _fp(_K.TITLE, "Name this conversation", "The name is:"),
    _fp(_K.SUMMARY, "Provide a detailed summary for continuing this conversation"),
    _fp_re(_K.SEARCH_QUERIES, r"As a professional (?:web|knowledge base) researcher"),
    _fp(_K.OTHER, "You MUST answer with a JSON object that matches the JSON schema above"),
    # Jan, Page Assist
    _fp(_K.TITLE, "Give the title only."),
    _fp(_K.TITLE, "as a title for the previous query"),
)

# The JSON key an Open WebUI "### Task:" template demands decides its kind.
_KIND_BY_JSON_KEY: Mapping[str, AuxKind] = {
    "title": AuxKind.TITLE,
    "tags": AuxKind.TAGS,
    "follow_ups": AuxKind.FOLLOW_UPS,
    "queries": AuxKind.SEARCH_QUERIES,
    "text": AuxKind.AUTOCOMPLETE,
    "tool_calls": AuxKind.TOOL_PICKER,
    "facts": AuxKind.MEMORY,
    "chips": AuxKind.FOLLOW_UPS,
}

_JSON_KEY = re.compile(r'\{\s*"([A-Za-z_]+)"\s*:')

# Purpose words for requests from unknown clients; first match wins, so "title" beats the
# "summarising" wording most title prompts also use.
_PURPOSES: tuple[tuple[re.Pattern[str], AuxKind], ...] = (
    (re.compile(r"\btitle\b|标题|主题|\bname (?:this|the) conversation", re.I), AuxKind.TITLE),
    (re.compile(r"\btags?\b|标签", re.I), AuxKind.TAGS),
    (re.compile(r"follow[- ]?ups?\b|后续问题|追问", re.I), AuxKind.FOLLOW_UPS),
    (re.compile(r"search quer|standalone (?:question|query)|搜索词|检索词", re.I), AuxKind.SEARCH_QUERIES),
    (re.compile(r"translat|翻译", re.I), AuxKind.TRANSLATE),
    (re.compile(r"\bfacts?\b|\bmemor(?:y|ies)\b|记忆", re.I), AuxKind.MEMORY),
    (re.compile(r"summar|总结|摘要|概括|compact", re.I), AuxKind.SUMMARY),
    (re.compile(r"autocomplet|continue the text|补全", re.I), AuxKind.AUTOCOMPLETE),
    (re.compile(r"\bemoji\b", re.I), AuxKind.EMOJI),
)

_CONVERSATION_REF = re.compile(r"conversation|chat history|discussion|dialog|对话|会话|聊天记录|这句话|上述", re.I)
_FORMAT_ORDER = re.compile(
    r"\bJSON\b|\bonly (?:give|return|provide|output|respond)|\bnothing else\b|"
    r"without (?:any )?(?:lead-in|explanation|punctuation|quotation)|\bno (?:punctuation|quotes)\b|"
    r"\b\d+[- ]?words?\b|RESPOND ONLY|output only|不要(?:解释|标点|多余)|只(?:输出|返回)|字以内|字内",
    re.I,
)
# Only JSON orders count: "Respond only in Chinese" is an ordinary persona, not a template.
_SYSTEM_FORMAT_DEMAND = re.compile(
    r"JSON schema|\b(?:only|must|strictly|exclusively)\b.*\bJSON\b|\bJSON\b.*\b(?:only|must)\b|"
    r"(?:只|仅)(?:输出|返回).*JSON",
    re.I,
)
_ROLE_LINE = re.compile(r"^\s*(?:\|\|>)?(user|human|assistant|ai|response|bot)\s*:", re.IGNORECASE | re.MULTILINE)
_WRAPPER = re.compile(r"<(?:chat_history|chatHistory|conversation|translate_input|text|history)>|### Chat History")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_LATIN = re.compile(r"[A-Za-z]")


def classify_aux(messages: Sequence[ChatText], *, request_extras: Mapping[str, Any] | None = None) -> AuxKind | None:
    """Return the auxiliary kind of a request, or ``None`` for a genuine new user turn."""
    if not messages:
        return AuxKind.OTHER  # nothing a user said now: never a note or a query
    last = messages[-1]
    if last.role != "user":
        return _classify_trailing(last)
    texts = [last.text, *(m.text for m in messages if m.role in _INSTRUCTION_ROLES)]
    kind = _match_fingerprints(texts)
    if kind is not None:
        return kind
    if _is_connectivity_check(messages):
        return AuxKind.OTHER
    if _is_language_detect_few_shot(messages):
        return AuxKind.LANGUAGE_DETECT
    if _generic_score(messages, request_extras) >= _GENERIC_THRESHOLD:
        return _purpose_kind(strip_transcript(last.text)) or AuxKind.OTHER
    return None


def _classify_trailing(last: ChatText) -> AuxKind:
    """A request not ending in a user message is not a new turn (NextChat memory, LibreChat title)."""
    if last.role == "assistant":
        # Open WebUI's "Continue" (and any prefill): the history ends with an answer. Every
        # Suikou answer is complete, so continuing one adds nothing (route.aux_reply).
        return AuxKind.CONTINUATION
    if last.role not in _INSTRUCTION_ROLES:
        return AuxKind.OTHER  # a tool result: never read as instructions
    kind = _match_fingerprints([last.text])
    if kind is not None:
        return kind
    if _purpose_kind(last.text) is AuxKind.SUMMARY:
        return AuxKind.SUMMARY
    return AuxKind.OTHER


def _match_fingerprints(texts: Sequence[str]) -> AuxKind | None:
    for fingerprint in _FINGERPRINTS:
        for text in texts:
            if all(p.search(text) for p in fingerprint.patterns):
                return fingerprint.kind or _kind_from_json_key(text)
    return None


def _kind_from_json_key(text: str) -> AuxKind:
    key = demanded_json_key(text)
    return _KIND_BY_JSON_KEY.get(key, AuxKind.OTHER) if key else AuxKind.OTHER


def demanded_json_key(text: str) -> str | None:
    """The first key of a JSON object the instruction (outside any quoted transcript) shows."""
    match = _JSON_KEY.search(strip_transcript(text))
    return match.group(1) if match else None


def _is_connectivity_check(messages: Sequence[ChatText]) -> bool:
    # Cherry Studio's "check" button sends exactly this one message.
    return len(messages) == 1 and messages[0].text.strip().lower() == "hi"


def _is_language_detect_few_shot(messages: Sequence[ChatText]) -> bool:
    """Fake few-shot turns: every user turn wrapped in {…}, answered by a bare locale code."""
    users = [m.text.strip() for m in messages if m.role == "user"]
    answers = [m.text.strip() for m in messages if m.role == "assistant"]
    if len(users) < 2 or not answers:
        return False
    wrapped = all(u.startswith("{") and u.endswith("}") and "\n" not in u for u in users)
    return wrapped and all(re.fullmatch(r"[a-z]{2,3}(?:-[A-Za-z]{2,4})?", a) for a in answers)


def _purpose_kind(text: str) -> AuxKind | None:
    for pattern, kind in _PURPOSES:
        if pattern.search(text):
            return kind
    return None


def _generic_score(messages: Sequence[ChatText], extras: Mapping[str, Any] | None) -> int:
    """Score the weak signals of an unknown client's auxiliary request (see module docstring)."""
    last = messages[-1].text
    systems = [m.text for m in messages if m.role in _INSTRUCTION_ROLES]
    return (
        _transcript_score(last)
        + max(_meta_instruction_score(t) for t in [last, *systems])
        + _follows_history_score(messages)
        + _system_demand_score(systems, last)
        + _language_mismatch_score(last)
        + _extras_score(extras)
    )


def _transcript_score(text: str) -> int:
    """A conversation quoted inside the message: role lines or history wrappers."""
    if _WRAPPER.search(text) or _is_message_array(text):
        return 2
    roles = {_role_family(m.group(1)) for m in _ROLE_LINE.finditer(text)}
    return len(roles)  # 0, 1 (one speaker) or 2 (both speakers)


def _is_message_array(text: str) -> bool:
    """A JSON array of {"role": ...} objects: a conversation serialised into one message."""
    stripped = text.strip()
    if not (stripped.startswith("[") and '"role"' in stripped):
        return False
    try:
        items = json.loads(stripped)
    except ValueError:
        return False
    return isinstance(items, list) and all(isinstance(i, dict) and "role" in i for i in items)


def _follows_history_score(messages: Sequence[ChatText]) -> int:
    """An instruction-length meta request right after real turns (NextChat topic, Chatbox summary).

    Short requests such as "总结一下我们刚才的对话" are left out: they are what users type.
    """
    last = messages[-1].text
    answered = any(m.role == "assistant" for m in messages[:-1])
    if not answered or len(last) < _INSTRUCTION_LENGTH:
        return 0
    return 1 if _meta_instruction_score(last) else 0


def _role_family(label: str) -> str:
    return "user" if label.lower() in {"user", "human"} else "assistant"


def _meta_instruction_score(text: str) -> int:
    """An instruction about the conversation itself (title, summary, ...) plus output-format orders."""
    instruction = strip_transcript(text)
    if _purpose_kind(instruction) is None or not _CONVERSATION_REF.search(instruction):
        return 0
    return 2 if _FORMAT_ORDER.search(instruction) else 1


def _system_demand_score(systems: Sequence[str], last: str) -> int:
    """A system message ordering non-chat output (JSON schema, "output only") over a short user line."""
    if len(last) > 200:
        return 0
    return 2 if any(_SYSTEM_FORMAT_DEMAND.search(s) for s in systems) else 0


def _language_mismatch_score(text: str) -> int:
    """A long English instruction quoting Chinese (or other CJK) text."""
    latin = len(_LATIN.findall(text))
    cjk = len(_CJK.findall(text))
    return 1 if cjk and latin >= 80 and latin > 4 * cjk else 0


def _extras_score(extras: Mapping[str, Any] | None) -> int:
    """Request shape: structured output or a tiny token budget is unusual for a chat turn."""
    if not extras:
        return 0
    score = 1 if extras.get("response_format") else 0
    budget = extras.get("max_tokens") or extras.get("max_completion_tokens")
    if isinstance(budget, int) and 0 < budget <= 64:
        score += 1
    return score


_TRANSCRIPT_BLOCKS = re.compile(
    r"<(chat_history|chatHistory|conversation|translate_input)>.*?</\1>|```.*?```", re.DOTALL
)


def strip_transcript(text: str) -> str:
    """The instruction part of a template: quoted history blocks and role lines removed."""
    without_blocks = _TRANSCRIPT_BLOCKS.sub(" ", text)
    return _ROLE_LINE_FULL.sub("", without_blocks)


_ROLE_LINE_FULL = re.compile(
    r"^\s*(?:\|\|>)?(?:user|human|assistant|ai|response|bot)\s*:.*$", re.IGNORECASE | re.MULTILINE
)


def json_dumps(value: object) -> str:
    """Compact JSON that keeps Chinese readable, as clients show titles verbatim."""
    return json.dumps(value, ensure_ascii=False)
