"""Benchmark: what the intent model adds to routing, per message and at start-up.

    .venv/bin/python bench/intent_model.py

Side by side in one run, over every sentence of the probe tables (tests/data/router_probe_*.jsonl)
and a sample of the corpus: the offline rules alone (``Router.rules_decision``) against the whole
offline decision (rules, intent model, cascade: ``Router.offline_decision`` on a one-message turn),
and the model's own inference (features + logits + softmax) by itself. Median of 7 passes, in ms
per message. Start-up: reading and unpacking ``route/intent_model.json`` (median of 7 cold loads).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.actions import build_registry  # noqa: E402
from core.llm import ModelHub  # noqa: E402
from core.turn import ChatText, TurnConfig, new_turn  # noqa: E402
from route.intent import MODEL_PATH, IntentModel, load_model  # noqa: E402
from route.router import Router  # noqa: E402

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


def _texts(registry: object) -> list[str]:
    texts = [
        json.loads(line)["text"]
        for path in sorted((ROOT / "tests" / "data").glob("router_probe_*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    for action in build_registry():
        if action.corpus is not None:
            texts += [e.text for e in list(action.corpus.examples())[::40]]
    return texts


def _per_message(fn: object, texts: list[str]) -> float:
    runs = []
    for _ in range(7):
        began = time.perf_counter()
        for text in texts:
            fn(text)  # type: ignore[operator]
        runs.append((time.perf_counter() - began) * 1000 / len(texts))
    return statistics.median(runs)


def main() -> None:
    registry = build_registry()
    router = Router(registry)
    model = load_model()
    assert model is not None
    texts = _texts(registry)

    def turn_for(text: str) -> object:
        return new_turn(
            [ChatText("user", text)],
            user_id=0,
            now=NOW,
            tz="Asia/Shanghai",
            hub=ModelHub(),
            sessions=lambda: None,
            config=TurnConfig(),
            turn_key="bench",
        )  # type: ignore[arg-type,return-value]

    turns = {t: turn_for(t) for t in texts}
    rules = _per_message(lambda t: router.rules_decision(t, ()), texts)
    whole = _per_message(lambda t: router.offline_decision(turns[t]), texts)  # type: ignore[arg-type]
    infer = _per_message(lambda t: model.probabilities(t, ("chat", 0.7)), texts)
    loads = []
    for _ in range(7):
        began = time.perf_counter()
        IntentModel.from_json(MODEL_PATH.read_text(encoding="utf-8"))
        loads.append((time.perf_counter() - began) * 1000)
    print(f"messages: {len(texts)}")
    print(f"rules alone            {rules:.3f} ms/message")
    print(f"rules + model + cascade {whole:.3f} ms/message  (ratio {whole / rules:.2f})")
    print(f"model inference alone  {infer:.3f} ms/message")
    print(f"model load             {statistics.median(loads):.1f} ms ({MODEL_PATH.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
