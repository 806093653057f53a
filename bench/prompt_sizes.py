"""What each model-backed node sends a provider: instructions, prompt and output schema, in characters.

Runs a few turns with every node on a recording model (pydantic-ai FunctionModel) that answers a
minimal valid output, and prints per node the size of what it was sent. Not a test: numbers for the
trust-boundary FDR (docs/fdr/0007), compared across commits by running this file in each checkout.

    .venv/bin/python bench/prompt_sizes.py
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from core.llm import ModelHub
from support.harness import make_harness

ANSWERS: dict[str, dict[str, Any]] = {
    "plan": {},
    "reflect": {"satisfied": True, "need_retry": False, "prefix": ""},
    "extract": {"title": "交报告", "time_text": "明天下午三点", "priority_group": 1},
}
TURNS = [
    ("task_query", "下周三之前要交什么"),
    ("task_query", "来一个简单的任务"),
    ("quick_note_create", "帮我记一下明天下午三点交报告"),
]

sizes: dict[str, list[tuple[int, int]]] = defaultdict(list)


def recorder(node: str, action: str) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        text = sum(len(getattr(part, "content", "") or "") for m in messages for part in m.parts)
        text += len(info.instructions or "")
        schema = sum(len(json.dumps(t.parameters_json_schema, ensure_ascii=False)) for t in info.output_tools)
        sizes[node].append((text, schema))
        if not info.output_tools:
            return ModelResponse(parts=[TextPart("ok")])
        args = {"action": action, "confidence": 0.9, "reason": "x"} if node == "route" else ANSWERS[node]
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)])

    return FunctionModel(respond, model_name=f"rec-{node}")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for action, sentence in TURNS:
            hub = ModelHub(injected={n: recorder(n, action) for n in ("route", "plan", "reflect", "extract")})
            h = make_harness(f"sqlite:///{tmp}/b.db", hub=hub)
            h.add("交周报", 1, "2026-12-01 18:00")
            await h.ask(sentence)
            h.state.engine.dispose()
    print(f"{'node':<8} {'calls':>5} {'prompt chars':>13} {'schema chars':>13}")
    for node, rows in sizes.items():
        prompt = sum(r[0] for r in rows) // len(rows)
        schema = sum(r[1] for r in rows) // len(rows)
        print(f"{node:<8} {len(rows):>5} {prompt:>13} {schema:>13}")


if __name__ == "__main__":
    asyncio.run(main())
