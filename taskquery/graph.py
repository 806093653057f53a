"""The task-query graph: plan → quadrant → time_anchor → tool_query → reflect (→ tool_query)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from pydantic_graph import BaseNode, End, GraphBuilder, GraphRunContext, StepContext
from pydantic_graph.graph_builder import Graph

from taskquery import steps
from taskquery.carried import attach_query
from taskquery.rendering import render_answer
from taskquery.state import QueryDeps, QueryState

Ctx = GraphRunContext[QueryState, QueryDeps]


@dataclass
class Plan(BaseNode[QueryState, QueryDeps, str]):
    async def run(self, ctx: Ctx) -> Quadrant:
        turn = ctx.deps.turn
        with turn.trace.node("plan", "理解问题") as span:
            message = await steps.plan_step(ctx.state, turn)
            assert ctx.state.plan is not None
            data: dict[str, object] = {"overridden": ctx.state.overridden} if ctx.state.overridden else {}
            if ctx.state.continued:
                data["continued"] = ctx.state.continued
            span.done(
                message,
                plan=ctx.state.plan.model_dump(mode="json", exclude_none=True),
                explicit_limit=ctx.state.lock.explicit,
                wants_all=ctx.state.lock.wants_all,
                **data,
            )
        return Quadrant()


@dataclass
class Quadrant(BaseNode[QueryState, QueryDeps, str]):
    async def run(self, ctx: Ctx) -> TimeAnchor:
        with ctx.deps.turn.trace.node("quadrant", "整理象限") as span:
            span.done(steps.quadrant_step(ctx.state), quadrants=ctx.state.quadrants)
        return TimeAnchor()


@dataclass
class TimeAnchor(BaseNode[QueryState, QueryDeps, str]):
    async def run(self, ctx: Ctx) -> ToolQuery | End[str]:
        turn = ctx.deps.turn
        with turn.trace.node("time_anchor", "换算时间") as span:
            message = steps.time_anchor_step(ctx.state, turn)
            flt = ctx.state.filter
            assert flt is not None
            span.done(
                message,
                time_field=flt.time_field,
                time_after=flt.time_after.isoformat() if flt.time_after else None,
                time_before=flt.time_before.isoformat() if flt.time_before else None,
                no_deadline=flt.no_deadline,
                limit=flt.limit,
            )
        said = steps.no_such_day(ctx.state)  # "2019年2月29日": said so, nothing listed
        return End(said) if said is not None else ToolQuery()


@dataclass
class ToolQuery(BaseNode[QueryState, QueryDeps, str]):
    async def run(self, ctx: Ctx) -> Reflect:
        state, turn = ctx.state, ctx.deps.turn
        assert state.filter is not None
        with turn.trace.node("tool_query", "查询任务") as span:
            if state.plan is not None and state.plan.scope and "keyword" not in state.broadened:
                await steps.resolve_scope_step(state, turn)  # the words read against the user's lists
            state.page = await steps.run_query(turn, state.filter, state.now)
            page = state.page
            exact = {} if page.total_exact else {"total_exact": False}
            scope = state.scope
            named = {"scope": {"kind": scope.kind, "name": scope.name}} if scope is not None else {}
            span.done(f"匹配 {page.total_label} 条，本页 {len(page.items)} 条", total=page.total, **exact, **named)
        first_attempt = state.retries == 0 and not state.broadened
        if state.page.total == 0 and first_attempt and turn.config.max_reflect_retries > 0:
            with turn.trace.node("broaden", "没有结果，自动放宽条件") as span:
                await steps.broaden(state, turn)
                assert state.page is not None
                span.done(
                    f"放宽为{steps.relaxed_text(state.broadened, 'zh') or '（无可放宽）'}，匹配 {state.page.total} 条",
                    broadened=state.broadened,
                    total=state.page.total,
                )
        return Reflect()


@dataclass
class Reflect(BaseNode[QueryState, QueryDeps, str]):
    async def run(self, ctx: Ctx) -> ToolQuery | End[str]:
        state, turn = ctx.state, ctx.deps.turn
        with turn.trace.node("reflect", "检查结果") as span:
            reflection = await steps.reflect_step(state, turn)
            facts = {"facts": steps.facts_data(state.facts)} if state.facts is not None else {}
            span.done(
                steps.verdict_line(state, reflection),
                satisfied=reflection.satisfied,
                need_retry=reflection.need_retry,
                **facts,
            )
        can_retry = state.retries < turn.config.max_reflect_retries
        notes = None
        if reflection.need_retry and reflection.patch is not None and can_retry:
            notes = steps.apply_reflection(state, reflection, turn)
            if notes is None:
                turn.trace.emit("retry", "info", "建议的调整改变不了查询（时间、条数和你说的条件由代码决定），不重试")
        if notes is not None:
            turn.trace.emit(
                "retry",
                "info",
                f"第 {state.retries} 次重试：{'；'.join(notes) or '按建议调整'}",
                {"retry": state.retries, "changes": notes, "limit": state.filter.limit if state.filter else None},
            )
            return ToolQuery()
        assert state.page is not None and state.prefix is not None
        offer_all = state.filter is None or state.filter.limit < turn.config.max_limit
        said = steps.done_verdict(state)
        if said is not None and said.alone:
            answer = said.text  # one task: the sentence says all the list would
        else:
            answer = render_answer(
                f"{said.text}\n{state.prefix}" if said is not None else state.prefix,
                state.page,
                state.tz,
                offset=state.offset,
                now=state.now,
                offer_all=offer_all,
                locale=state.locale,
                hint=state.hint,
            )
        record = steps.carried(state)
        return End(attach_query(answer, record, turn.seal) if record is not None else answer)


@cache
def task_query_graph() -> Graph:
    g = GraphBuilder(
        name="task_query", state_type=QueryState, deps_type=QueryDeps, output_type=str, auto_instrument=False
    )

    @g.step
    async def start(ctx: StepContext) -> Plan:
        return Plan()

    g.add(
        g.node(Plan),
        g.node(Quadrant),
        g.node(TimeAnchor),
        g.node(ToolQuery),
        g.node(Reflect),
        g.edge_from(g.start_node).to(start),
    )
    return g.build()
