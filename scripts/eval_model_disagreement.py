"""Turns through with a misbehaving router model: ``python scripts/eval_model_disagreement.py``.

Each write and list turn below (the team's own sentences, none from the issue) runs end to end on
a fresh SQLite store with a few tasks, with a scripted router model that misbehaves in one way:

- ``chat``: says "chat" to everything (a weak model that never picks an action);
- ``wrong-write``: names a write the words do not ask for (note for a list, delete for a note, ...);
- ``task_query``: says "task_query" to everything;
- ``offline``: no router model at all (the baseline).

A write is *through* when the change it asks for happened on the turn itself, or after one "是"
to the question the turn asked (never more than one confirming turn). A list is through when the
answer is a task list rendered from the store. Also counted: a write nobody asked for.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

from core.llm import ModelHub  # noqa: E402
from support.harness import Harness, make_harness  # noqa: E402

# (message, the change kind it asks for)
WRITES: list[tuple[str, str]] = [
    ("帮我记下后天上午十点去银行", "create"),
    ("周四晚上八点给妈妈打电话", "create"),
    ("提醒我下班前交水电费", "create"),
    ("记一下：明早九点开周会", "create"),
    ("remind me to water the plants on friday", "create"),
    ("add a task: renew passport next month", "create"),
    ("整理发票那个做完了", "complete"),
    ("发票整理好了", "complete"),
    ("i finished the slides", "complete"),
    ("把整理发票改到下周一", "update"),
    ("做幻灯片推迟到周五下午", "update"),
    ("move the slides to tomorrow", "update"),
    ("把给房东回电话删了", "delete"),
    ("不用给房东回电话了，删掉吧", "delete"),
    ("delete the landlord call", "delete"),
]
LISTS: list[str] = [
    "明天有啥要做的",
    "这礼拜还剩哪些没干完",
    "有没有过期的",
    "最急的三件事",
    "前两个任务",
    "what's on my plate this week",
    "anything overdue?",
    "show me my top 3",
]
BEHAVIOURS = ["offline", "chat", "wrong-write", "task_query"]
MISSES: list[bool] = []
WRONG_WRITE = {
    "create": "task_delete",
    "complete": "quick_note_create",
    "update": "task_delete",
    "delete": "task_complete",
}


def router(says: str | dict[str, str]) -> FunctionModel:
    def route(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        [tool] = info.output_tools
        action = says if isinstance(says, str) else says["__turn__"]
        args = {"action": action, "confidence": 0.95, "reason": "scripted"}
        return ModelResponse(parts=[ToolCallPart(tool.name, args)])

    return FunctionModel(route)


def seeded(url: str, says: str | dict[str, str]) -> Harness:
    injected = {} if says == "offline" else {"route": router(says)}
    h = make_harness(url, hub=ModelHub(injected=injected))
    h.add("整理发票", 1, "2026-12-01 18:00")
    h.add("做幻灯片", 2, "2026-12-03 15:00")
    h.add("给房东回电话", 3, "2026-11-29 12:00")  # overdue
    return h


async def write_turn(h: Harness, message: str, kind: str) -> tuple[bool, bool, int]:
    """(through, wrote something else, turns it took)."""
    first = await h.ask(message)
    kinds = [c.kind for c in h.changes()]
    if kinds:
        return kinds == [kind], kinds != [kind], 1
    if "[suikou]" not in first.content or "p1." not in first.content:
        return False, False, 1  # no question a yes could answer
    await h.ask("是", history=[("user", message), ("assistant", first.content)])
    kinds = [c.kind for c in h.changes()]
    return kinds == [kind], bool(kinds) and kinds != [kind], 2


async def list_turn(h: Harness, message: str) -> tuple[bool, bool]:
    answer = await h.ask(message)
    listed = answer.action == "task_query" and "filter" in answer.data
    return listed, bool(h.changes())


async def run(behaviour: str, folder: Path) -> Counter[str]:
    tally: Counter[str] = Counter()
    for i, (message, kind) in enumerate(WRITES):
        says: str | dict[str, str] = {"__turn__": WRONG_WRITE[kind]} if behaviour == "wrong-write" else behaviour
        h = seeded(f"sqlite:///{folder}/{behaviour}-w{i}.db", says)
        through, wrong, turns = await write_turn(h, message, kind)
        tally.update(writes=1, writes_through=through, writes_wrong=wrong, writes_asked=through and turns == 2)
        if not through and MISSES:
            print(f"  missed ({behaviour}): {message}")
        h.state.engine.dispose()
    for i, message in enumerate(LISTS):
        says = "quick_note_create" if behaviour == "wrong-write" else behaviour
        h = seeded(f"sqlite:///{folder}/{behaviour}-l{i}.db", says)
        listed, wrote = await list_turn(h, message)
        tally.update(lists=1, lists_through=listed, lists_wrote=wrote)
        if not listed and MISSES:
            print(f"  missed ({behaviour}): {message}")
        h.state.engine.dispose()
    return tally


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--behaviour", choices=BEHAVIOURS, action="append")
    parser.add_argument("--misses", action="store_true", help="list the turns that did not go through")
    args = parser.parse_args()
    MISSES.append(True) if args.misses else None
    behaviours = args.behaviour or BEHAVIOURS
    with tempfile.TemporaryDirectory() as folder:
        for behaviour in behaviours:
            t = await run(behaviour, Path(folder))
            print(
                f"{behaviour:12} writes through {t['writes_through']}/{t['writes']} "
                f"(after one yes: {t['writes_asked']}), wrong writes {t['writes_wrong']}; "
                f"lists through {t['lists_through']}/{t['lists']}, lists that wrote {t['lists_wrote']}"
            )


if __name__ == "__main__":
    asyncio.run(main())
