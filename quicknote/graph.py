"""The quick-note graph: extract → time_anchor → priority → persist → confirm, or a clarifying question,
or (an open task already says the same) a question whether to write it again."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import anyio
from pydantic_graph import BaseNode, End, GraphBuilder, GraphRunContext, StepContext
from pydantic_graph.graph_builder import Graph

from core import changes, series
from core.display import group_label
from quicknote import remind, steps
from quicknote.pending import attach_pending, pending_of
from quicknote.rendering import (
    UNREAD_REPEAT,
    confirmation,
    duplicate_warning,
    no_title_question,
    unclear_time_question,
)
from quicknote.state import NoteDeps, NoteState

Ctx = GraphRunContext[NoteState, NoteDeps]


@dataclass
class Extract(BaseNode[NoteState, NoteDeps, str]):
    async def run(self, ctx: Ctx) -> TimeAnchor | Clarify:
        with ctx.deps.turn.trace.node("extract", "理解要记的事") as span:
            draft = await steps.extract_step(ctx.state, ctx.deps.turn)
            extra = {"overridden": ctx.state.overridden} if ctx.state.overridden else {}
            span.done(
                f"标题：{draft.title or '（无）'}", draft=draft.model_dump(mode="json", exclude_none=True), **extra
            )
        if not draft.title:
            return Clarify(no_title_question(ctx.state.locale), "no_title")
        return TimeAnchor()


@dataclass
class TimeAnchor(BaseNode[NoteState, NoteDeps, str]):
    async def run(self, ctx: Ctx) -> Priority | Clarify:
        state = ctx.state
        assert state.draft is not None
        with ctx.deps.turn.trace.node("time_anchor", "换算截止时间") as span:
            understood = steps.anchor_deadline(state)
            deadline = state.deadline_at.isoformat() if state.deadline_at else None
            message = f"截止：{deadline or '无'}" if understood else "没看懂时间"
            if state.repeat is not None:  # the rule as read, or the words said unreadable
                rule = series.rule_words(state.recurrence, "zh")
                message += f"；重复：{rule}" if rule else f"；重复：「{state.repeat.words}」还不会按规律重复"
            span.done(message, deadline_at=deadline, recurrence=state.recurrence)
        if not understood:
            question = unclear_time_question(state.draft.title or "", state.draft.time_text or "", state.locale)
            return Clarify(question, "time")
        return Priority()


@dataclass
class Priority(BaseNode[NoteState, NoteDeps, str]):
    async def run(self, ctx: Ctx) -> Persist | AskDuplicate:
        state = ctx.state
        with ctx.deps.turn.trace.node("priority", "确定优先级") as span:
            reason = steps.priority_step(state)
            threshold = state.urgency_threshold_at.isoformat() if state.urgency_threshold_at else None
            span.done(
                f"{group_label(state.priority_group)}：{reason}",
                priority_group=state.priority_group,
                urgency_threshold_at=threshold,
            )
        if ctx.deps.check_duplicates:
            found = await anyio.to_thread.run_sync(steps.near_duplicates, ctx.deps.turn, [steps.note_data(state)])
            if found:
                state.duplicate_of = found[0]
                return AskDuplicate()
        return Persist()


@dataclass
class Persist(BaseNode[NoteState, NoteDeps, str]):
    async def run(self, ctx: Ctx) -> Confirm:
        with ctx.deps.turn.trace.node("persist", "保存任务") as span:
            await steps.persist_step(ctx.state, ctx.deps.turn)
            assert ctx.state.task is not None
            span.done(
                "已保存" if ctx.state.created else "这一轮已经记过了，没有重复创建",
                task_id=ctx.state.task.id,
                created=ctx.state.created,
            )
        return Confirm()


@dataclass
class Confirm(BaseNode[NoteState, NoteDeps, str]):
    async def run(self, ctx: Ctx) -> End[str]:
        state = ctx.state
        assert state.task is not None
        with ctx.deps.turn.trace.node("confirm", "确认") as span:
            # A concurrent copy of this attempt may have written first: then say so.
            estimate = state.draft.estimate_text if state.draft is not None else None
            text = confirmation(
                state.task, state.tz, state.now, state.locale, again=not state.created, estimate=estimate
            )
            if state.unread_repeat and state.created:
                text += UNREAD_REPEAT[state.locale].format(words=state.unread_repeat)
            if reminder := remind.said_line(state, state.task):
                text += "\n" + reminder
            if state.change_ids:
                text = changes.marker(text, state.change_ids, ctx.deps.turn.seal)
            span.done("已确认")
        return End(text)


@dataclass
class AskDuplicate(BaseNode[NoteState, NoteDeps, str]):
    """An open task already says this: ask before writing it again (nothing written)."""

    async def run(self, ctx: Ctx) -> End[str]:
        state = ctx.state
        assert state.duplicate_of is not None
        ctx.deps.turn.trace.emit(
            "duplicate",
            "info",
            f"已有相近的任务「{state.duplicate_of.title}」，先问要不要再记，什么都没写入",
            {"task_id": state.duplicate_of.id},
        )
        text = duplicate_warning([state.duplicate_of], 1, state.tz, state.now, state.locale)
        estimate = state.draft.estimate_text if state.draft is not None else None
        pending = pending_of([steps.note_data(state)], [estimate])
        return End(attach_pending(text, pending, ctx.deps.turn.seal))


@dataclass
class Clarify(BaseNode[NoteState, NoteDeps, str]):
    question: str
    reason: str

    async def run(self, ctx: Ctx) -> End[str]:
        ctx.deps.turn.trace.emit("clarify", "info", "需要补充信息，什么都没写入", {"reason": self.reason})
        return End(self.question)


@cache
def quick_note_graph() -> Graph:
    g = GraphBuilder(
        name="quick_note", state_type=NoteState, deps_type=NoteDeps, output_type=str, auto_instrument=False
    )

    @g.step
    async def start(ctx: StepContext) -> Extract:
        return Extract()

    g.add(
        g.node(Extract),
        g.node(TimeAnchor),
        g.node(Priority),
        g.node(Persist),
        g.node(Confirm),
        g.node(AskDuplicate),
        g.node(Clarify),
        g.edge_from(g.start_node).to(start),
    )
    return g.build()
