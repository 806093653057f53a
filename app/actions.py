"""The composition root of actions: the one place features are registered with the router.

Adding an action is one `register` call here; everything else about it lives in its package.
"""

from __future__ import annotations

from quicknote import handler as quicknote
from quicknote.offline import offline_confirm_signal
from quicknote.rendering import CLARIFY as NOTE_CLARIFY
from route.chat import handle_chat
from route.registry import Action, ActionRegistry, text_answer
from taskcomplete import handler as taskcomplete
from taskcomplete.offline import offline_signal as complete_signal
from taskquery import handler as taskquery
from taskupdate import handler as taskupdate
from taskupdate.offline import offline_signal as update_signal
from undo import handler as undo
from undo.offline import offline_signal as undo_signal

CHAT_DESCRIPTION = (
    "闲聊: anything else — greetings, general questions, advice on planning, questions about "
    "Suikou itself, and requests that are neither capturing a task nor asking about the user's tasks."
)


def build_registry() -> ActionRegistry:
    registry = ActionRegistry(fallback="chat")
    registry.register(Action("chat", CHAT_DESCRIPTION, text_answer(handle_chat), intent="chat"))
    registry.register(
        Action(
            "quick_note_create",
            quicknote.DESCRIPTION,
            quicknote.handle_quick_note,
            writes=True,
            clarify=NOTE_CLARIFY,
            explain=quicknote.explain_note,
            offline=offline_confirm_signal,  # "要" after a near-duplicate warning
            intent="capture",
        )
    )
    registry.register(
        Action(
            "task_query",
            taskquery.DESCRIPTION,
            taskquery.handle_task_query,
            explain=taskquery.explain_query,
            intent="query",
        )
    )
    registry.register(
        Action(
            "task_complete",
            taskcomplete.DESCRIPTION,
            taskcomplete.handle_complete,
            writes=True,
            clarify=taskcomplete.CLARIFY,
            explain=taskcomplete.explain_complete,
            offline=complete_signal,
        )
    )
    registry.register(
        Action(
            "task_update",
            taskupdate.DESCRIPTION,
            taskupdate.handle_update,
            writes=True,
            clarify=taskupdate.CLARIFY,
            explain=taskupdate.explain_update,
            offline=update_signal,
        )
    )
    registry.register(
        Action(
            "undo",
            undo.DESCRIPTION,
            undo.handle_undo,
            writes=True,
            clarify=undo.CLARIFY,
            explain=undo.explain_undo,
            offline=undo_signal,
        )
    )
    return registry
