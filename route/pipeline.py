"""One chat turn end to end: auxiliary-prompt check, routing, the chosen action's handler."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from core.locale import Locale
from core.trace import TurnResult
from core.turn import Answer, Turn
from route import proposal, reanswer
from route.aux import AuxKind, classify_aux
from route.aux_reply import offline_aux_reply
from route.chat import HELD_LIST, answer_aux, settle_list
from route.registry import ActionRegistry
from route.router import Decision, Router

# When an action that writes does not declare a clarifying reply in the user's language.
GENERIC_CLARIFY: dict[Locale, str] = {
    "zh": "我不太确定你想让我做什么，所以什么都没有改动。可以说得更具体一点吗？",
    "en": "I'm not sure what you want me to do, so I haven't changed anything. Could you say it more specifically?",
}


@dataclass(frozen=True)
class TurnOutcome:
    action: str
    content: str
    aux_kind: str | None
    decision: Decision | None
    elapsed_ms: float
    data: Mapping[str, Any] = field(default_factory=dict)  # the action's structured result (Answer.data)
    change_ids: tuple[int, ...] = ()  # the changes the turn made (Answer.change_ids)


class Pipeline:
    """Holds the registry and router; `run` handles one turn."""

    def __init__(self, registry: ActionRegistry) -> None:
        self.registry = registry
        self.router = Router(registry)

    async def run(self, turn: Turn, *, request_extras: Mapping[str, Any] | None = None) -> TurnOutcome:
        began = time.perf_counter()
        aux = classify_aux(turn.messages, request_extras=request_extras)
        if aux is not None:
            # A client's own housekeeping request: never a note or a query, and no stage events,
            # because clients parse these replies (often as JSON).
            offline_answer = offline_aux_reply(aux, turn.messages, request_extras=request_extras)
            if aux is AuxKind.CONTINUATION:  # never a model's text appended after an answer's record
                content = offline_answer
                turn.on_content(content)
            else:
                content = await answer_aux(turn, offline_answer)
            return TurnOutcome("chat", content, str(aux), None, _ms(began))

        again = reanswer.previous_answer(turn.messages)
        if again is not None:  # "添加详情" / "More Concise": the same answer, nothing written again
            turn.trace.emit("route", "end", "重新生成上一条回答：内容不变，不再写入", {"action": "reanswer"})
            turn.on_content(again)
            turn.trace.result = TurnResult(self.registry.fallback, "offline", None, {})
            return TurnOutcome(self.registry.fallback, again, None, None, _ms(began))

        route_began = time.perf_counter()
        reply = proposal.answered(turn, self.registry)
        if reply is not None:  # a yes or no to the question the last answer asked
            turn = reply.turn
            decision = Decision(reply.action or self.registry.fallback, 1.0, "回答了上一轮的提议")
        else:
            decision = await self.router.decide(turn)
        self._report(turn, decision, _ms(route_began))

        if reply is not None and reply.action is None:
            answer = Answer(proposal.DECLINED[turn.locale], {"proposal": "declined"}, outcome="declined")
        elif decision.proposed is not None:
            answer = Answer(
                await self._propose(decision.proposed, turn), {"proposed": decision.proposed}, outcome="clarify"
            )
        else:
            answer = await self.registry[decision.action].handler(replace(turn, reading=decision.reading))
        answer = await self._replace_invented_list(turn, answer)
        if not answer.streamed:  # the pipeline delivers the answer; only a streaming action sent its own
            turn.on_content(answer.text)
        outcome, tally = self.registry.counted(decision.action, answer)
        if decision.proposed is not None:
            outcome = "clarify"
        elif reply is not None and reply.action is None:
            outcome = "declined"
        turn.trace.result = TurnResult(decision.action, _routed_by(turn), outcome, tally)
        return TurnOutcome(decision.action, answer.text, None, decision, _ms(began), answer.data, answer.change_ids)

    async def _replace_invented_list(self, turn: Turn, answer: Answer) -> Answer:
        """A list a chat reply held back (route.chat): delivered, or replaced when it lists tasks
        chat cannot know — by the task query the words ask for, read from the store by code."""
        if HELD_LIST not in answer.data:
            return answer
        query = self.registry.for_intent("query")
        rules = self.router.rules_decision(turn.text, turn.history)
        asks = query is not None and rules.action == query
        run = (lambda: self.registry[query].handler(replace(turn, reading=rules.reading))) if query else None
        return await settle_list(turn, answer, asks_query=asks, run_query=run)

    async def _propose(self, name: str, turn: Turn) -> str:
        """The proposed action's own question (with the record a yes runs), else its clarifying reply."""
        action = self.registry[name]
        if action.propose is None:
            return action.clarify.get(turn.locale) or GENERIC_CLARIFY[turn.locale]
        return proposal.attach(await action.propose(turn), name, turn)

    def _report(self, turn: Turn, decision: Decision, elapsed_ms: float) -> None:
        data = {
            "action": decision.action,
            "confidence": round(decision.confidence, 2),
            "reason": decision.reason,
        }
        if decision.proposed:
            data["proposed"] = decision.proposed
            message = f"像是 {decision.proposed}（{decision.confidence:.2f}），但不够确定：先问一句，不写入"
        else:
            message = f"分流到 {decision.action}（置信度 {decision.confidence:.2f}）：{decision.reason}"
        turn.trace.emit("route", "end", message, data, elapsed_ms)


def _routed_by(turn: Turn) -> str:
    """Who chose the action: the offline rules, a model, or the rules after a model failed."""
    trace = turn.trace
    if any(e.stage == "fallback" and e.data.get("node") == "route" for e in trace.events):
        return "fallback"
    return "model" if trace.model_calls.get("route") else "offline"


def _ms(began: float) -> float:
    return (time.perf_counter() - began) * 1000
