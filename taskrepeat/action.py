"""The `task_repeat` action (重复): skip an occurrence, end a series, change its rule."""

from __future__ import annotations

from core.action import Action, ask_about
from taskrepeat.corpus import CORPUS
from taskrepeat.handler import CLARIFY, DESCRIPTION, OUTCOMES, explain_repeat, handle_repeat
from taskrepeat.offline import offline_signal

__all__ = ["ACTION"]

ACTION = Action(
    "task_repeat",
    DESCRIPTION,
    handle_repeat,
    writes=True,
    clarify=CLARIFY,
    explain=explain_repeat,
    offline=offline_signal,
    corpus=CORPUS,
    propose=ask_about(
        "是要调整「{text}」说的重复任务吗？", "Do you want to change the repeating task “{text}” is about?"
    ),
    examples=("这周的周报不用交了", "跳过这次", "周报以后不用交了", "打卡改成每周一三五", "stop repeating the report"),
    outcomes=OUTCOMES,
)
