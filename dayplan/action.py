"""The `day_plan` action (排一天), as the registry takes it: handler, routing, explain."""

from __future__ import annotations

from core.action import Action, ask_about
from dayplan.corpus import CORPUS
from dayplan.handler import DESCRIPTION, OUTCOMES, explain_plan, handle_plan
from dayplan.offline import offline_signal

__all__ = ["ACTION"]

ACTION = Action(
    "day_plan",
    DESCRIPTION,
    handle_plan,
    explain=explain_plan,
    offline=offline_signal,
    corpus=CORPUS,
    propose=ask_about(
        "要我按你的任务排一下今天的时间吗？（「{text}」）", "Shall I plan your day from your tasks (“{text}”)?"
    ),
    examples=(
        "今天怎么安排",
        "今天先做什么",
        "帮我把今天的任务排个时间",
        "明天怎么安排",
        "这周哪天最闲",
        "plan my day",
    ),
    outcomes=OUTCOMES,
)
