"""The layout shows the architecture: core/ at the bottom, one package per action on top of it,
route/ on the registry, app/ composing them (README "Development", docs/fdr/0012)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("core", "route", "app")
# Every other package at the top is an action's (a new action needs no line here).
ACTIONS = tuple(
    sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name not in (*LAYERS, "tests", "bench"))
)
PACKAGES = (*LAYERS, *ACTIONS)
# Which packages each may import besides itself.
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "route": {"core"},
    **{action: {"core"} for action in ACTIONS},
    "app": set(PACKAGES),
}


def _imports() -> dict[str, set[str]]:
    """Module name -> the project modules it imports (at any depth of the file)."""
    graph: dict[str, set[str]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            targets: set[str] = set()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names: list[str] = []
                if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    # "from core import carry" imports the module core.carry (kept if it is one)
                    names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
                elif isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                targets |= {n for n in names if n.split(".")[0] in PACKAGES}
            graph[module] = targets
    return graph


def test_the_packages_exist() -> None:
    assert all((ROOT / package / "__init__.py").exists() for package in PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_only_what_it_may(package: str) -> None:
    wrong = {
        (module, target)
        for module, targets in _imports().items()
        if module.split(".")[0] == package
        for target in targets
        if target.split(".")[0] not in ALLOWED[package] | {package}
    }
    assert wrong == set()


def test_no_import_cycles_between_modules() -> None:
    graph = _imports()

    def resolve(target: str) -> str | None:  # "from core import carry" names the module core.carry
        return target if target in graph else None

    edges = {m: {t for t in map(resolve, targets) if t and t != m} for m, targets in graph.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt) :], nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_the_action_packages_are_found() -> None:
    assert {"taskquery", "quicknote", "taskcomplete", "taskupdate", "undo"} <= set(ACTIONS)


# Where a task or the write log is written: nowhere but the one write path (core/writes.py) and
# the modules it is built on. A surface that wrote a row itself would skip the log and the attempt.
_WRITE_PRIMITIVES = {
    "core.store.create_task",
    "core.store.update_task",
    "core.store.complete_task",
    "core.store.delete_task",
    "core.store.apply_update",
    "core.store.apply_completion",
    "core.changes.record",
    "core.changes.undo",
}
_WRITERS = {"core.writes", "core.store", "core.changes", "core.kinds", "core.attempts"}


def test_only_the_write_path_writes() -> None:
    offenders = {
        (module, target)
        for module, targets in _imports().items()
        if module not in _WRITERS
        for target in targets
        if target in _WRITE_PRIMITIVES
    }
    assert offenders == set()
