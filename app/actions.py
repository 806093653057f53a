"""The composition root of actions: the one place features are registered with the router."""

from __future__ import annotations

from quicknote.handler import DESCRIPTION as QUICK_NOTE_DESCRIPTION
from quicknote.handler import handle_quick_note
from route.chat import handle_chat
from route.registry import Action, ActionRegistry
from taskquery.handler import DESCRIPTION as TASK_QUERY_DESCRIPTION
from taskquery.handler import handle_task_query

CHAT_DESCRIPTION = (
    "闲聊: anything else — greetings, general questions, advice on planning, questions about "
    "Suikou itself, and requests that are neither capturing a task nor asking about the user's tasks."
)


def build_registry() -> ActionRegistry:
    registry = ActionRegistry(fallback="chat")
    registry.register(Action("chat", CHAT_DESCRIPTION, handle_chat))
    registry.register(Action("quick_note_create", QUICK_NOTE_DESCRIPTION, handle_quick_note, side_effects=True))
    registry.register(Action("task_query", TASK_QUERY_DESCRIPTION, handle_task_query))
    return registry
