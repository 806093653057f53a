"""core.graphrun: the sequential driver follows the built graph's edges and nothing else."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from pydantic_graph import BaseNode, End, GraphBuilder, GraphRunContext, StepContext
from pydantic_graph.exceptions import GraphRuntimeError

from core.graphrun import run_nodes, successors
from quicknote.graph import quick_note_graph
from taskquery.graph import task_query_graph


@dataclass
class Counter:
    seen: list[str] = field(default_factory=list)
    rogue: bool = False


Ctx = GraphRunContext[Counter, None]


@dataclass
class Ping(BaseNode[Counter, None, str]):
    async def run(self, ctx: Ctx) -> Pong | Stray | End[str]:  # Stray: an edge of Ping only
        ctx.state.seen.append("ping")
        if len(ctx.state.seen) >= 5:
            return End("done after " + ",".join(ctx.state.seen))
        return Pong()


@dataclass
class Pong(BaseNode[Counter, None, str]):
    async def run(self, ctx: Ctx) -> Ping:
        ctx.state.seen.append("pong")
        if ctx.state.rogue:
            return Stray()  # type: ignore[return-value]  # a bug: not an edge of Pong
        return Ping()


@dataclass
class Stray(BaseNode[Counter, None, str]):
    async def run(self, ctx: Ctx) -> End[str]:
        return End("should never run")


def _graph():  # type: ignore[no-untyped-def]
    g = GraphBuilder(name="ping", state_type=Counter, output_type=str, auto_instrument=False)

    @g.step
    async def start(ctx: StepContext) -> Ping:
        return Ping()

    g.add(g.node(Ping), g.node(Pong), g.node(Stray), g.edge_from(g.start_node).to(start))
    return g.build()


async def test_same_result_and_path_as_graph_run() -> None:
    graph = _graph()
    by_graph, by_driver = Counter(), Counter()
    expected = await graph.run(state=by_graph, inputs=None)
    assert (
        await run_nodes(graph, Ping(), state=by_driver, deps=None) == expected == "done after ping,pong,ping,pong,ping"
    )
    assert by_driver.seen == by_graph.seen


async def test_a_transition_outside_the_edges_is_refused() -> None:
    with pytest.raises(GraphRuntimeError, match="Pong returned Stray"):
        await run_nodes(_graph(), Ping(), state=Counter(rogue=True), deps=None)


def test_the_action_graphs_edges() -> None:
    assert successors(task_query_graph()) == {
        "__start__": {"start"},
        "start": {"Plan"},
        "Plan": {"Quadrant"},
        "Quadrant": {"TimeAnchor"},
        "TimeAnchor": {"ToolQuery", "__end__"},  # ends when the day asked about does not exist
        "ToolQuery": {"Reflect"},
        "Reflect": {"ToolQuery", "__end__"},
    }
    assert successors(quick_note_graph()) == {
        "__start__": {"start"},
        "start": {"Extract"},
        "Extract": {"TimeAnchor", "Clarify"},
        "TimeAnchor": {"Priority", "Clarify"},
        "Priority": {"Persist", "AskDuplicate"},
        "AskDuplicate": {"__end__"},
        "Persist": {"Confirm"},
        "Confirm": {"__end__"},
        "Clarify": {"__end__"},
    }
