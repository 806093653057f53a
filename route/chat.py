"""The `chat` action: an ordinary assistant reply, and the answer to client auxiliary requests."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from core import carry
from core.action import Action, text_answer
from core.grounding import claims_write
from core.llm import NodeSpec, stream_text
from core.locale import Locale
from core.prompting import now_line
from core.trace import Trace
from core.turn import ChatText, Turn
from route.corpus import CORPUS

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

CHAT_INSTRUCTIONS = """\
You are Suikou (随口), a friendly assistant inside a personal task app. Reply briefly in the user's
language. In this reply you cannot create, change or look up tasks: never say that you saved,
noted, added, scheduled or found anything. If the user wants that, tell them how to ask: a task is
captured by saying e.g. "帮我记一下明天下午三点交报告", and their tasks are listed by asking e.g.
"这周有什么要交的".
"""

NO_WRITE_NOTE: dict[Locale, str] = {
    "zh": "\n\n（更正：这条消息没有保存任何任务。要记下的话，请说「帮我记一下……」。）",
    "en": '\n\n(Correction: nothing was saved from this message. To save a task, say "remind me to …".)',
}

MAX_CHAT_MESSAGES = 20

_CJK = re.compile(r"[\u4e00-\u9fff]")
_GREETING = re.compile(r"^(你好|您好|嗨|哈喽|hello|hi|hey|早上好|上午好|中午好|下午好|晚上好|早安|晚安)", re.I)


CHAT = NodeSpec("chat", str, CHAT_INSTRUCTIONS)
# Client auxiliary prompts: no persona, the client's own messages are the whole prompt.
PASSTHROUGH = NodeSpec("aux", str)


def offline_chat_reply(text: str) -> str:
    """The offline model's chat answer: what Suikou can do, in the user's language, with examples."""
    chinese = bool(_CJK.search(text)) or not text.strip()
    greeting = _GREETING.match(text.strip())
    if chinese:
        opener = f"{greeting.group(0)}！" if greeting else "我是随口（Suikou），你的任务小助手。"
        return (
            f"{opener}我现在用的是离线模式，闲聊能力有限，但管任务很在行：\n"
            "- 随口记：说「帮我记一下明天下午三点交报告」，我就帮你建好任务；\n"
            "- 随口问：问「这周有什么要交的」「来一个简单的任务」「前 3 个重要的」，我从你的任务里找给你。"
        )
    opener = "Hi! " if greeting else "I'm Suikou, your task assistant. "
    return (
        f"{opener}I'm running offline, so small talk is limited, but I'm good with tasks:\n"
        '- Quick notes: say "帮我记一下明天下午三点交报告" and I create the task;\n'
        '- Task questions: ask "这周有什么要交的" or "来一个简单的任务" and I look them up.'
    )


def to_model_messages(messages: Sequence[ChatText]) -> list[ModelMessage]:
    """The request's messages as pydantic-ai history, order kept, ending with a request."""
    from pydantic_ai.messages import (
        ModelRequest,
        ModelRequestPart,
        ModelResponse,
        SystemPromptPart,
        TextPart,
        UserPromptPart,
    )

    out: list[ModelMessage] = []
    pending: list[ModelRequestPart] = []
    for message in messages:
        if message.role == "assistant":
            if pending:
                out.append(ModelRequest(parts=pending))
                pending = []
            # A record an answer carries for code (core.carry) is not for the model to read or echo.
            out.append(ModelResponse(parts=[TextPart(carry.strip(message.text))]))
        elif message.role in ("system", "developer"):
            pending.append(SystemPromptPart(message.text))
        else:  # user, tool: content the model should read
            pending.append(UserPromptPart(message.text))
    if pending:
        out.append(ModelRequest(parts=pending))
    return out


async def handle_chat(turn: Turn) -> str:
    reply = await stream_text(
        CHAT,
        None,
        instructions=now_line(turn.now, turn.tz),  # so chat knows today's date
        node="chat",
        hub=turn.hub,
        trace=turn.trace,
        offline=lambda: offline_chat_reply(turn.text),
        on_delta=turn.on_content,
        live=turn.streaming,
        message_history=lambda: to_model_messages(turn.messages[-MAX_CHAT_MESSAGES:]),
    )
    if claims_write(reply):
        # Chat never writes; a reply that says it did is corrected in code, visibly.
        note = NO_WRITE_NOTE[turn.locale]
        turn.trace.emit("chat", "info", "闲聊回复声称做了没做的事，已附上更正", {"claim": True})
        turn.on_content(note)
        reply += note
    return reply


async def answer_aux(turn: Turn, offline_answer: str) -> str:
    """Passes a client's auxiliary request to the chat model as it is.

    Clients parse these replies, so nothing may reach them but the answer: a provider fallback is
    recorded on a separate trace whose usage is counted, but whose events are not streamed.
    """
    quiet = Trace(budget=turn.trace.budget)
    try:
        return await stream_text(
            PASSTHROUGH,
            None,
            node="chat",
            hub=turn.hub,
            trace=quiet,
            offline=lambda: offline_answer,
            on_delta=turn.on_content,
            live=False,  # clients parse these whole (often JSON): never half an answer
            message_history=lambda: to_model_messages(turn.messages),
        )
    finally:
        turn.trace.absorb(quiet)


CHAT_DESCRIPTION = (
    "闲聊: anything else — greetings, general questions, advice on planning, questions about "
    "Suikou itself, and requests that are neither capturing a task nor asking about the user's tasks."
)
# The fallback action: it streams its reply as it comes (a real model's tokens).
CHAT_ACTION = Action(
    "chat",
    CHAT_DESCRIPTION,
    text_answer(handle_chat, streamed=True),
    intent="chat",
    corpus=CORPUS,
    examples=("你好", "你能做什么？", "怎么添加任务？", "tell me a joke"),
)
