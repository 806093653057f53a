"""Run a sequential graph of ``BaseNode`` steps in the caller's task, along the built graph's edges.

Both action graphs are built with pydantic-graph's ``GraphBuilder`` (the definition, its checks
and its diagram stay pydantic-graph's), but they never fork: every node returns exactly one next
node or ``End``. ``Graph.run`` schedules each node as its own anyio task with a cancel scope and
a memory stream, which measured ~72 µs a node plus ~180 µs a run (``bench/overhead.py``): a
third of a task query's CPU. :func:`run_nodes` awaits ``node.run(ctx)`` in a loop instead, and
checks every transition against the edges the builder derived from the ``run`` annotations, as
``Graph.run`` would.
"""

from __future__ import annotations

from typing import Any

from pydantic_graph import BaseNode, End, GraphRunContext
from pydantic_graph.exceptions import GraphRuntimeError
from pydantic_graph.graph_builder import Graph

END = "__end__"


# id(graph) -> (graph, its successor table); the graph is kept so that its id is never reused.
_TABLES: dict[int, tuple[Graph, dict[str, frozenset[str]]]] = {}


def successors(graph: Graph) -> dict[str, frozenset[str]]:
    """Node id → the node ids (or ``__end__``) it may hand over to, through decisions."""
    cached = _TABLES.get(id(graph))
    if cached is None:
        cached = _TABLES[id(graph)] = (graph, _successor_table(graph))
    return cached[1]


def _successor_table(graph: Graph) -> dict[str, frozenset[str]]:
    nodes: dict[str, Any] = {str(k): v for k, v in graph.nodes.items()}

    def reach(node_id: str) -> set[str]:
        node = nodes.get(node_id)
        branches = getattr(node, "branches", None)
        if branches is None:
            return {node_id}
        found: set[str] = set()
        for branch in branches:
            for item in branch.path.items:
                if hasattr(item, "destination_id"):
                    found |= reach(item.destination_id)
        return found

    table: dict[str, frozenset[str]] = {}
    for source, paths in graph.edges_by_source.items():
        targets: set[str] = set()
        for path in paths:
            for item in path.items:
                if hasattr(item, "destination_id"):
                    targets |= reach(item.destination_id)
        table[source] = frozenset(targets)
    return table


async def run_nodes(graph: Graph, first: BaseNode[Any, Any, Any], *, state: Any, deps: Any) -> Any:
    """Run ``graph`` from ``first`` (a node the start step leads to) and return ``End.data``."""
    edges = successors(graph)
    ctx = GraphRunContext(state=state, deps=deps)
    node: BaseNode[Any, Any, Any] = first
    while True:
        source = type(node).__name__
        result = await node.run(ctx)
        target = END if isinstance(result, End) else type(result).__name__
        if target not in edges.get(source, ()):
            raise GraphRuntimeError(f"{source} returned {target}, which is not one of its edges in {graph.name!r}")
        if isinstance(result, End):
            return result.data
        node = result


__all__ = ["run_nodes", "successors"]
