"""The composition root of actions: the one place features are registered with the router.

Adding an action is its own package (which declares its `ACTION`: handler, routing, explain, MCP
tools, change kinds, metrics labels; see core/action.py) and one `register` line here.
"""

from __future__ import annotations

from dayplan.action import ACTION as DAY_PLAN
from quicknote.action import ACTION as QUICK_NOTE
from route.chat import CHAT_ACTION
from route.registry import ActionRegistry
from taskcomplete.action import ACTION as TASK_COMPLETE
from taskdelete.action import ACTION as TASK_DELETE
from taskquery.action import ACTION as TASK_QUERY
from taskrepeat.action import ACTION as TASK_REPEAT
from taskupdate.action import ACTION as TASK_UPDATE
from undo.action import ACTION as UNDO


def build_registry() -> ActionRegistry:
    registry = ActionRegistry(fallback="chat")
    registry.register(CHAT_ACTION)
    registry.register(QUICK_NOTE)
    registry.register(TASK_QUERY)
    registry.register(TASK_COMPLETE)
    registry.register(TASK_UPDATE)
    registry.register(TASK_DELETE)
    registry.register(TASK_REPEAT)
    registry.register(UNDO)
    registry.register(DAY_PLAN)
    return registry
