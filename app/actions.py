"""The composition root of actions: the one place features are registered with the router.

Adding an action is one `register` call here; everything else about it lives in its package.
"""

from __future__ import annotations

from quicknote import handler as quicknote
from quicknote.rendering import CLARIFY as NOTE_CLARIFY
from route.chat import handle_chat
from route.registry import Action, ActionRegistry, text_answer
from taskquery import handler as taskquery

CHAT_DESCRIPTION = (
    "闲聊: anything else — greetings, general questions, advice on planning, questions about "
    "Suikou itself, and requests that are neither capturing a task nor asking about the user's tasks."
)


def build_registry() -> ActionRegistry:
    registry = ActionRegistry(fallback="chat")
    registry.register(Action("chat", CHAT_DESCRIPTION, text_answer(handle_chat)))
    registry.register(
        Action(
            "quick_note_create",
            quicknote.DESCRIPTION,
            quicknote.handle_quick_note,
            writes=True,
            clarify=NOTE_CLARIFY,
            explain=quicknote.explain_note,
        )
    )
    registry.register(
        Action("task_query", taskquery.DESCRIPTION, taskquery.handle_task_query, explain=taskquery.explain_query)
    )
    return registry
