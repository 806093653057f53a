"""Auxiliary client requests are recognised, and genuine user turns are left alone."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from core.turn import ChatText
from route.aux import AuxKind, classify_aux
from route.aux_reply import offline_aux_reply

DATA = Path(__file__).resolve().parents[1] / "data"
EXAMPLE_FILES = ("aux_prompts.jsonl", "aux_prompts_more.jsonl")

# The kind each example's `purpose` implies.
KIND_BY_PURPOSE = {
    "title": AuxKind.TITLE,
    "tags": AuxKind.TAGS,
    "follow_ups": AuxKind.FOLLOW_UPS,
    "search_query": AuxKind.SEARCH_QUERIES,
    "search_decision": AuxKind.SEARCH_QUERIES,
    "autocomplete": AuxKind.AUTOCOMPLETE,
    "translate": AuxKind.TRANSLATE,
    "language_detect": AuxKind.LANGUAGE_DETECT,
    "memory_summary": AuxKind.SUMMARY,
    "history_summary": AuxKind.SUMMARY,
    "context_compaction": AuxKind.SUMMARY,
    "memory_extraction": AuxKind.MEMORY,
    "tool_selection": AuxKind.TOOL_PICKER,
    "emoji": AuxKind.EMOJI,
    "image_prompt": AuxKind.OTHER,
    "merge_responses": AuxKind.OTHER,
    "connectivity_check": AuxKind.OTHER,
}

# Examples whose template demands a JSON object, and the key it must carry.
JSON_KEY_BY_ID = {
    "ow-title-v06-note": "title",
    "ow-title-v06-query": "title",
    "ow-title-new-note": "title",
    "ow-tags-v06-note-multiturn": "tags",
    "ow-tags-query": "tags",
    "ow-followups-v06-query": "follow_ups",
    "ow-followups-new-note": "follow_ups",
    "ow-queries-websearch-note": "queries",
    "ow-queries-retrieval-query": "queries",
    "ow-autocomplete-note-prefix": "text",
    "ow-autocomplete-query-prefix": "text",
    "ow-tools-fc-note": "tool_calls",
    "ow-image-prompt-note": "prompt",
    "lc-title-new-structured-query": "title",
    "lc-followup-chips": "chips",
    "cs-memory-facts-note": "facts",
    "cs-memory-facts-meeting": "facts",
    "cb-search-action-note": "action",
    "cb-kb-search-action-query": "action",
    "lb-agents-title-structured-note": "title",
}

# Title templates that want a bare title: no quotes, no punctuation, short.
_TITLE_FORBIDDEN = re.compile(r"[\"'“”‘’「」，。,.!?！？：:；;（）()]")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content if part.get("type") == "text")


def _load_examples() -> list[dict[str, Any]]:
    examples: list[dict[str, Any]] = []
    for name in EXAMPLE_FILES:
        with (DATA / name).open(encoding="utf-8") as fh:
            examples.extend(json.loads(line) for line in fh if line.strip())
    return examples


EXAMPLES = _load_examples()


def _messages(example: dict[str, Any]) -> list[ChatText]:
    return [ChatText(m["role"], _text(m["content"])) for m in example["messages"]]


def test_all_examples_present() -> None:
    assert len(EXAMPLES) == 59
    assert {e["purpose"] for e in EXAMPLES} <= set(KIND_BY_PURPOSE)
    assert set(JSON_KEY_BY_ID) <= {e["id"] for e in EXAMPLES}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_example_is_auxiliary_with_expected_kind(example: dict[str, Any]) -> None:
    kind = classify_aux(_messages(example), request_extras=example["request_extras"])
    assert kind is not None
    assert kind is KIND_BY_PURPOSE[example["purpose"]]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
@pytest.mark.parametrize("with_extras", [False, True], ids=["plain", "extras"])
def test_offline_reply_is_well_formed(example: dict[str, Any], with_extras: bool) -> None:
    messages = _messages(example)
    extras = example["request_extras"]
    kind = classify_aux(messages, request_extras=extras)
    assert kind is not None
    reply = offline_aux_reply(kind, messages, request_extras=extras if with_extras else None)
    assert reply.strip()
    key = JSON_KEY_BY_ID.get(example["id"])
    if key is not None:
        assert key in json.loads(reply)
    elif kind is AuxKind.TITLE:
        assert "\n" not in reply
        assert not _TITLE_FORBIDDEN.search(reply), reply
        assert len(reply) <= 40
    assert "reasoning" not in reply  # aux replies never carry stage events


def _by_id(example_id: str) -> list[ChatText]:
    return _messages(next(e for e in EXAMPLES if e["id"] == example_id))


@pytest.mark.parametrize(
    ("example_id", "expected"),
    [
        ("ow-title-v06-note", {"title": "交报告"}),
        ("ow-tags-query", {"tags": ["General"]}),
        ("ow-followups-v06-query", {"follow_ups": ["只看紧急的", "明天有什么要做的？", "这周有什么要交的"]}),
        ("ow-queries-websearch-note", {"queries": []}),
        ("ow-autocomplete-note-prefix", {"text": ""}),
        ("ow-tools-fc-note", {"tool_calls": []}),
        ("cb-search-action-note", {"action": "proceed"}),
        ("cs-memory-facts-note", {"facts": []}),
        ("lc-followup-chips", {"chips": []}),
    ],
)
def test_json_replies_are_minimal(example_id: str, expected: dict[str, Any]) -> None:
    messages = _by_id(example_id)
    kind = classify_aux(messages)
    assert kind is not None
    assert json.loads(offline_aux_reply(kind, messages)) == expected


@pytest.mark.parametrize(
    ("example_id", "expected"),
    [
        ("lc-title-v1zh-note", "交报告"),  # from the service's own confirmation
        ("cs-title-json-en-note", "给妈妈打电话"),
        ("nc-topic-cn-query", "来一个简单的任务"),  # the first real user sentence
        ("lb-legacy-title-query", "3个优先级低的任务"),  # lead-in "给我" dropped
        ("pageassist-title-note", "周五前把发票寄给财务"),
        ("jan-title-query", "top5 紧急任务"),
    ],
)
def test_plain_titles_come_from_the_users_words(example_id: str, expected: str) -> None:
    messages = _by_id(example_id)
    assert offline_aux_reply(AuxKind.TITLE, messages) == expected


def test_translation_echoes_the_input_unchanged() -> None:
    for example_id, source in [
        ("lc-translate-note", "帮我记一下明天下午三点交报告"),
        ("cs-translate-system-note", "帮我记一下明天下午三点交报告"),
        ("cs-translate-user-query", "来一个简单的任务"),
    ]:
        assert offline_aux_reply(AuxKind.TRANSLATE, _by_id(example_id)) == source


def test_language_detection_answers_a_locale_code() -> None:
    assert offline_aux_reply(AuxKind.LANGUAGE_DETECT, _by_id("lc-langdetect-note")) == "zh-CN"
    english = [*_by_id("lc-langdetect-note")[:-1], ChatText("user", "{remind me to call mom}")]
    assert classify_aux(english) is AuxKind.LANGUAGE_DETECT
    assert offline_aux_reply(AuxKind.LANGUAGE_DETECT, english) == "en-US"


def test_summary_is_one_line_and_keeps_the_gist() -> None:
    reply = offline_aux_reply(AuxKind.SUMMARY, _by_id("nc-summarize-cn"))
    assert "\n" not in reply
    assert "交报告" in reply


def test_response_format_schema_is_honoured() -> None:
    extras = {
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "t",
                "schema": {
                    "type": "object",
                    "properties": {"language": {"type": "string"}, "title": {"type": "string"}},
                    "required": ["language", "title"],
                },
            },
        }
    }
    reply = offline_aux_reply(AuxKind.TITLE, _by_id("lb-agents-title-structured-note"), request_extras=extras)
    assert json.loads(reply) == {"language": "zh-CN", "title": "和王经理开会"}


# --- requests not ending in a user message ------------------------------------------------------


def test_trailing_system_summary_is_summary() -> None:
    messages = [
        ChatText("user", "帮我记一下明天下午三点交报告"),
        ChatText("assistant", "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"),
        ChatText("system", "Please summarise what we talked about so far."),
    ]
    assert classify_aux(messages) is AuxKind.SUMMARY


@pytest.mark.parametrize("role", ["tool", "system"])
def test_trailing_non_user_message_is_never_a_user_turn(role: str) -> None:
    messages = [ChatText("user", "帮我记一下明天下午三点交报告"), ChatText(role, "好的")]
    assert classify_aux(messages) is AuxKind.OTHER


def test_history_ending_with_an_answer_is_a_continuation_answered_with_nothing() -> None:
    # Open WebUI's "Continue" button: whatever comes back is appended to the stored answer.
    messages = [ChatText("user", "帮我记一下明天下午三点交报告"), ChatText("assistant", "好，已记下：交报告")]
    assert classify_aux(messages) is AuxKind.CONTINUATION
    assert offline_aux_reply(AuxKind.CONTINUATION, messages) == ""


def test_empty_request_is_not_a_user_turn() -> None:
    assert classify_aux([]) is AuxKind.OTHER


# --- generic signals (clients we have no fingerprint for) --------------------------------------


def test_unknown_client_title_template_is_caught_by_generic_signals() -> None:
    text = (
        "Write a short title for the following conversation. Output only the title, nothing else.\n\n"
        "User: 帮我记一下明天下午三点交报告\n"
        "Assistant: 好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"
    )
    messages = [ChatText("user", text)]
    assert classify_aux(messages) is AuxKind.TITLE
    assert offline_aux_reply(AuxKind.TITLE, messages) == "交报告"


def test_unknown_client_json_decision_in_system_prompt() -> None:
    messages = [
        ChatText("system", 'Decide whether to search. You must reply with JSON only: {"search": bool}.'),
        ChatText("user", "帮我记一下明天下午三点交报告"),
    ]
    assert classify_aux(messages, request_extras={"response_format": {"type": "json_object"}}) is not None


# --- genuine user turns ------------------------------------------------------------------------

SUIKOU_HISTORY = [
    ChatText("user", "帮我记一下明天下午三点交报告"),
    ChatText("assistant", "好，已记下：交报告（重要且紧急；截止 12月1日 周二 15:00）"),
]

OW_RAG_TEMPLATE = (
    "### Task:\nRespond to the user query using the provided context, incorporating inline citations "
    "in the format [id] **only when the <source> tag includes an explicit id attribute**.\n\n"
    "### Guidelines:\n- If you don't know the answer, clearly state that.\n\n"
    '<context>\n<source id="1">周报模板</source>\n</context>\n'
)

NEGATIVE_USER_TURNS = [
    "帮我记一下明天下午三点交报告",
    "记一下：下周一上午10点和王经理开会",
    "提醒我周五前把发票寄给财务",
    "明早8点提醒我给妈妈打电话",
    "来一个简单的任务",
    "给我3个优先级低的任务",
    "今天还有什么要做的？",
    "top5 紧急任务",
    "总结一下我这周的任务",
    "总结一下我们刚才的对话",
    "把'写周报'翻译成英文",
    "我的任务标题怎么改",
    "有哪些 tags 的任务",
    "帮我把交报告这个任务的标题改成“交季度报告”，不要加标点",
    "请用 JSON 格式列出我明天的任务",
    '{"title": "写周报", "deadline": "明天"}',
    '[{"title": "写周报"}, {"title": "交报告"}]',
    "你好",
    "hello",
    "hi，帮我记一下明天交报告",
    "Remind me to call mom at 8am tomorrow",
    "What's on my list today? Give me the top 3 only.",
    "Summarize my tasks for this week",
    "记一下：写一个 JSON 解析器，周五前",
    "下周有什么重要的事",
    "周末给我安排点轻松的",
    "我昨天完成了哪些任务？",
    "user: 这个字段名要改吗",  # one role-like prefix alone is not a transcript
    "帮我记一下：周三前给标签系统起个名字",
]


@pytest.mark.parametrize("text", NEGATIVE_USER_TURNS)
def test_single_user_turn_is_not_auxiliary(text: str) -> None:
    assert classify_aux([ChatText("user", text)]) is None


@pytest.mark.parametrize("text", NEGATIVE_USER_TURNS)
def test_user_turn_after_history_and_persona_is_not_auxiliary(text: str) -> None:
    messages = [ChatText("system", "你是一个助手"), *SUIKOU_HISTORY, ChatText("user", text)]
    assert classify_aux(messages, request_extras={"stream": True}) is None


@pytest.mark.parametrize(
    "messages",
    [
        # NextChat chat request after a memory summary: the prefix alone is not auxiliary.
        [
            ChatText("system", "这是历史聊天总结作为前情提要：用户让助手记下了交报告。"),
            ChatText("user", "再来两个简单的任务"),
        ],
        [
            ChatText("system", "This is a summary of the chat history as a recap: the user noted a report."),
            ChatText("user", "帮我记一下明天下午三点交报告"),
        ],
        # Chatbox's real request after the search decision said "proceed".
        [
            ChatText("system", "You are a helpful assistant."),
            ChatText("user", "帮我记一下明天下午三点交报告"),
        ],
        # Ordinary personas, including ones that order a language or a style.
        [
            ChatText("system", "You are a concise assistant. Respond only in Chinese."),
            ChatText("user", "来一个简单的任务"),
        ],
        [ChatText("developer", "你是随口助手，回答要简短。"), ChatText("user", "今天还有什么要做的？")],
        [ChatText("system", "你是一名翻译助手"), ChatText("user", "写周报")],
        # Open WebUI's RAG template wraps a real request; it has no <chat_history>.
        [ChatText("system", OW_RAG_TEMPLATE), ChatText("user", "帮我记一下明天下午三点交报告")],
        # Multi-turn with earlier confirmations and lists.
        [
            *SUIKOU_HISTORY,
            ChatText("user", "来一个简单的任务"),
            ChatText(
                "assistant",
                "给你挑了 1 个简单任务：\n1. 整理下载文件夹（不重要但紧急；截止 12月1日 周二 18:00）",
            ),
            ChatText("user", "再来两个"),
        ],
        [*SUIKOU_HISTORY, ChatText("user", "改成后天")],
        # A user quoting a bracketed phrase is not LobeChat's few-shot language detection.
        [ChatText("user", "{写周报}")],
    ],
)
def test_real_chat_requests_are_not_auxiliary(messages: list[ChatText]) -> None:
    assert classify_aux(messages, request_extras={"stream": True, "max_tokens": 1000}) is None


def test_small_token_budget_alone_does_not_make_a_request_auxiliary() -> None:
    messages = [ChatText("user", "帮我记一下明天下午三点交报告")]
    assert classify_aux(messages, request_extras={"max_tokens": 16, "stream": False}) is None


def test_generic_signals_alone_catch_most_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without any fingerprint, the scored signals still recognise most templates (unknown clients)."""
    import route.aux

    monkeypatch.setattr(route.aux, "_FINGERPRINTS", ())
    caught = [e["id"] for e in EXAMPLES if classify_aux(_messages(e), request_extras=e["request_extras"])]
    assert len(caught) >= 45
