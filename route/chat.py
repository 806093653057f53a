"""The `chat` action: an ordinary assistant reply, and the answer to client auxiliary requests."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from core import carry
from core.action import Action
from core.context import bound_messages
from core.grounding import claims_write
from core.llm import NodeSpec, stream_text
from core.locale import Locale
from core.prompting import language_line, now_line
from core.trace import Trace
from core.turn import Answer, ChatText, Turn
from route.aux_reply import demanded_json
from route.corpus import CORPUS

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

log = logging.getLogger("suikou.chat")

CHAT_INSTRUCTIONS = """\
You are Suikou (随口), a friendly assistant inside a personal task app. Reply briefly in the user's
language. In this reply you cannot create, change or look up tasks: never say that you saved,
noted, added, scheduled or found anything. If the user wants that, tell them how to ask: a task is
captured by saying e.g. "帮我记一下明天下午三点交报告", and their tasks are listed by asking e.g.
"这周有什么要交的". You cannot see the user's tasks: never list tasks, deadlines or a schedule of
theirs.
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


# Why the rules answer a chat turn, in the words the reply opens with: only a deployment with no
# chat model may say it is offline; one whose model failed says so (issue 22).
Why = Literal["offline", "failed", "language"]
_WHY: dict[Why, dict[Locale, str]] = {
    "offline": {"zh": "我现在用的是离线模式，闲聊能力有限", "en": "I'm running offline, so small talk is limited"},
    "failed": {
        "zh": "模型这次没有回应，我先用规则回答：闲聊能力有限",
        "en": "The model didn't answer this time, so the rules answer: small talk is limited",
    },
    "language": {
        "zh": "模型这次没有用中文回答，我先用规则回答：闲聊能力有限",
        "en": "The model didn't answer in your language, so the rules answer: small talk is limited",
    },
}


def offline_chat_reply(text: str, why: Why = "offline") -> str:
    """The rules' chat answer: what Suikou can do, in the user's language, with examples."""
    chinese = bool(_CJK.search(text)) or not text.strip()
    greeting = _GREETING.match(text.strip())
    if chinese:
        opener = f"{greeting.group(0)}！" if greeting else "我是随口（Suikou），你的任务小助手。"
        return (
            f"{opener}{_WHY[why]['zh']}，但管任务很在行：\n"
            "- 随口记：说「帮我记一下明天下午三点交报告」，我就帮你建好任务；\n"
            "- 随口问：问「这周有什么要交的」「来一个简单的任务」「前 3 个重要的」，我从你的任务里找给你。"
        )
    opener = "Hi! " if greeting else "I'm Suikou, your task assistant. "
    return (
        f"{opener}{_WHY[why]['en']}, but I'm good with tasks:\n"
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


# --- what code checks in a chat reply (docs/fdr/0029) ------------------------------------------

# A list item: "1. ", "2)", "3、", "（4）", "一、", "- ", "* ", "• ", optionally in markdown bold.
_ITEM = re.compile(
    r"^[ \t>]*(?:\*\*)?(?:\d{1,2}[.)、．:：](?!\d)|[（(]\d{1,2}[)）]|[一二三四五六七八九十]{1,2}、|[-*•·+](?=\s))"
)
# A line start that may still become one: held until it can be told (a digit, a dash, a bracket...).
_MAYBE_ITEM = re.compile(r"^[ \t>]*(?:\*{0,2}\d{0,2}|[-*•·+]\s*|[（(]\d{0,2}|[一二三四五六七八九十]{1,2})$")
# A date or a time inside an item: what makes "1. 交报告 明天 15:00" read as someone's task.
_WHEN = re.compile(
    r"\d{1,2}[:：]\d{2}|\d{1,2}\s*(?:点|时)|[上下中]午|早上|晚上|今天|明天|后天|周[一二三四五六日天]|星期|"
    r"\d{1,2}月\d{1,2}|截止|ddl|deadline|\b(?:today|tomorrow|tonight|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|[ap]\.?m\.?|due|by)\b",
    re.I,
)
# Words about the user's own tasks (not advice about tasks in general).
_OWN_TASKS = re.compile(
    r"我的(?:任务|待办|日程|安排)|待办|要做|要交|日程|to-?dos?|my (?:tasks|schedule|agenda|day)|do i have", re.I
)
MIN_ITEMS = 2  # one marked line is a sentence, not a list
HELD_LIST = "_held_list"  # Answer.data key: list lines chat held back, for the pipeline to settle
# Until a streamed reply to a Chinese message shows CJK, it is held: it may be in the wrong language.
HOLD_FOR_CJK = True

STRIP_NOTE: dict[Locale, str] = {
    "zh": "（这里原本列了几条任务，但闲聊看不到你的任务，已删去。想看真实的任务，可以问「明天有什么要做的」。）",
    "en": '(A list of tasks was removed here: chat cannot see your tasks. To see the real ones, ask "what do I have to do tomorrow?")',
}
REPLACED_STAGE = "闲聊回复里列了任务，已换成你任务里的真实结果"
STRIPPED_STAGE = "闲聊回复里列了不存在的任务，已删去列表"
LANGUAGE_STAGE = "模型没有用中文回复中文消息，已换成中文的规则回复"


def list_items(text: str) -> list[str]:
    """The list-item lines of ``text``."""
    return [line for line in text.splitlines() if _ITEM.match(line)]


def invented_list(items: Sequence[str], words: str, *, asks_query: bool) -> bool:
    """Whether list items a chat reply wrote are tasks it cannot know (docs/fdr/0029).

    They are when the user's words ask for their tasks (the offline rules read a task query), or
    when the words are about their own tasks and most items carry a date or a time; advice
    ("给我三个提高效率的建议") is neither and stays.
    """
    if len(items) < MIN_ITEMS:
        return False
    if asks_query:
        return True
    dated = sum(1 for item in items if _WHEN.search(item))
    return bool(_OWN_TASKS.search(words)) and 2 * dated >= len(items)


@dataclass
class Holdback:
    """The chat stream's gate: prose passes as it comes, a list is held from its first marker on.

    ``need_cjk``: the reply answers a Chinese message, so nothing passes until it shows a CJK
    character (an English reply is then replaced whole, never shown half).
    """

    emit: Callable[[str], None]
    need_cjk: bool = False
    text: str = ""
    shown: int = 0  # how much of text was emitted
    list_at: int | None = None  # where the first list line starts

    def feed(self, delta: str) -> None:
        self.text += delta
        if self.list_at is not None or (self.need_cjk and not _CJK.search(self.text)):
            return
        self._release()

    def _release(self) -> None:
        start = self.text.rfind("\n", 0, self.shown) + 1  # the line the shown text ends in
        while True:
            end = self.text.find("\n", start)
            line = self.text[start:] if end < 0 else self.text[start:end]
            if _ITEM.match(line):
                self.list_at = max(start, self.shown)
                self._emit_to(self.list_at)
                return
            if end < 0:
                # An unfinished line that may still turn into an item waits for more text.
                self._emit_to(start if _MAYBE_ITEM.match(line) and start >= self.shown else len(self.text))
                return
            start = end + 1

    def _emit_to(self, upto: int) -> None:
        if upto > self.shown:
            self.emit(self.text[self.shown : upto])
            self.shown = upto

    @property
    def held(self) -> str:
        return self.text[self.shown :]

    def flush(self) -> None:
        self._emit_to(len(self.text))


def chat_instructions(turn: Turn) -> str:
    """The per-turn facts chat needs: today's date, and the language to answer in."""
    return f"{now_line(turn.now, turn.tz)}\n{language_line(turn.locale)}"


async def handle_chat(turn: Turn) -> Answer:
    """The chat reply, streamed as it comes, with what code must check held back (docs/fdr/0029)."""
    used_rules = False
    model_failed = not turn.hub.is_offline("chat")

    def offline() -> str:
        nonlocal used_rules
        used_rules = True
        return offline_chat_reply(turn.text, "failed" if model_failed else "offline")

    gate = Holdback(turn.on_content, need_cjk=HOLD_FOR_CJK and turn.locale == "zh")
    reply = await stream_text(
        CHAT,
        None,
        instructions=chat_instructions(turn),
        node="chat",
        hub=turn.hub,
        trace=turn.trace,
        offline=offline,
        on_delta=gate.feed,
        live=turn.streaming,
        message_history=lambda: to_model_messages(bound_messages(turn.messages[-MAX_CHAT_MESSAGES:], "chat")),
    )
    if used_rules:  # the rules' own text (its examples are a list): nothing to judge
        gate.flush()
        return Answer(_corrected(turn, reply), streamed=True)
    if gate.need_cjk and not _CJK.search(reply):
        reply = offline_chat_reply(turn.text, "language")
        turn.trace.emit("chat", "info", LANGUAGE_STAGE, {"replaced": "language"})
        turn.on_content(reply)  # nothing of the English reply was shown
        return Answer(reply, streamed=True)
    if gate.list_at is not None and len(list_items(gate.held)) >= MIN_ITEMS:
        # Shown so far, and the list for the pipeline to settle (settle_list): only it can query.
        return Answer(reply[: gate.shown], {HELD_LIST: gate.held}, streamed=True)
    gate.flush()
    return Answer(_corrected(turn, reply), streamed=True)


def _corrected(turn: Turn, reply: str) -> str:
    """Chat never writes; a reply that says it did is corrected in code, visibly."""
    if not claims_write(reply):
        return reply
    note = NO_WRITE_NOTE[turn.locale]
    turn.trace.emit("chat", "info", "闲聊回复声称做了没做的事，已附上更正", {"claim": True})
    turn.on_content(note)
    return reply + note


async def settle_list(
    turn: Turn, answer: Answer, *, asks_query: bool, run_query: Callable[[], Awaitable[Answer]] | None
) -> Answer:
    """Delivers the list a chat reply held back, or replaces it when it lists tasks chat cannot know:
    by the task query the words ask for (``run_query``: read from the store, rendered by code), else
    by a short note in the user's language."""
    held = str(answer.data.get(HELD_LIST, ""))
    data = {k: v for k, v in answer.data.items() if k != HELD_LIST}
    shown = answer.text
    if not invented_list(list_items(held), turn.text, asks_query=asks_query):
        turn.on_content(held)
        return replace(answer, text=_corrected(turn, shown + held), data=data)
    count = len(list_items(held))
    gap = "\n\n" if shown.strip() else ""
    if asks_query and run_query is not None:
        turn.trace.emit("chat", "info", REPLACED_STAGE, {"replaced": "task_list", "items": count})
        real = await run_query()
        turn.on_content(gap + real.text)
        return replace(real, text=shown + gap + real.text, streamed=True)
    turn.trace.emit("chat", "info", STRIPPED_STAGE, {"replaced": "stripped", "items": count})
    note = STRIP_NOTE[turn.locale]
    turn.on_content(gap + note)
    return replace(answer, text=shown + gap + note, data=data)


async def answer_aux(turn: Turn, offline_answer: str) -> str:
    """Passes a client's auxiliary request to the chat model as it is.

    Clients parse these replies, so nothing may reach them but the answer: a provider fallback is
    recorded on a separate trace whose usage is counted, but whose events are not streamed. Where
    the client asks for JSON (the offline answer is JSON), the model's reply counts only when it
    holds JSON of that shape (``route.aux_reply.demanded_json``); otherwise the offline answer is sent.
    """
    quiet = Trace(budget=turn.trace.budget)
    got: list[str] = []
    try:
        reply = await stream_text(
            PASSTHROUGH,
            None,
            node="chat",
            hub=turn.hub,
            trace=quiet,
            offline=lambda: offline_answer,
            on_delta=got.append,
            live=False,  # clients parse these whole (often JSON): never half an answer
            message_history=lambda: to_model_messages(bound_messages(turn.messages, "aux", pinned=_is_template)),
        )
    finally:
        turn.trace.absorb(quiet)
    shaped = demanded_json(reply, offline_answer)
    if shaped is None:  # the client would fail to parse it: its stage would be unseen, so it is logged
        log.info("aux reply was not the JSON the client demanded; the offline answer was sent instead")
        shaped = offline_answer
    turn.on_content(shaped)
    return shaped


def _is_template(message: ChatText) -> bool:
    return message.role in ("system", "developer")


CHAT_DESCRIPTION = (
    "闲聊: anything else — greetings, general questions, advice on planning, questions about "
    "Suikou itself, and requests that are neither capturing a task nor asking about the user's tasks."
)
# The fallback action: it streams its reply as it comes (a real model's tokens).
CHAT_ACTION = Action(
    "chat",
    CHAT_DESCRIPTION,
    handle_chat,
    intent="chat",
    corpus=CORPUS,
    examples=("你好", "你能做什么？", "怎么添加任务？", "tell me a joke"),
)
