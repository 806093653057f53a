"""Score the offline router on a probe table: ``python scripts/eval_router.py tests/data/router_probe_fresh.jsonl``.

Each line is ``{"text", "expect", "family", "lang"}``. Printed per family and language: routed
right; handled (right, or a question proposing the right action); and the two failures that cost
the most — a message that is not a write routed to one (``wrote``), and a cancellation routed to a
new note. ``--rules-only`` scores the rules without the intent model (the before of docs/fdr/0026);
``--misses`` lists what went wrong.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlmodel import Session

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.actions import build_registry  # noqa: E402
from core.llm import ModelHub  # noqa: E402
from core.turn import ChatText, TurnConfig, new_turn  # noqa: E402
from route import router as router_module  # noqa: E402
from route.router import Decision, Router  # noqa: E402

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


def _no_db() -> Session:
    raise RuntimeError("routing never touches the database")


async def decide(router: Router, text: str) -> Decision:
    turn = new_turn(
        [ChatText("user", text)],
        user_id=0,
        now=NOW,
        tz="Asia/Shanghai",
        hub=ModelHub(),
        sessions=_no_db,
        config=TurnConfig(),
        turn_key="eval",
    )
    return await router.decide(turn)


async def score(rows: list[dict[str, str]], *, misses: bool) -> dict[str, dict[str, float]]:
    registry = build_registry()
    router = Router(registry)
    tallies: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    wrong: list[str] = []
    for row in rows:
        decision = await decide(router, row["text"])
        # A question is not the answer: it is "handled" when it proposes the expected action.
        expect, got = row["expect"], (decision.action if decision.proposed is None else "clarify")
        for key in (f"{row['family']}/{row['lang']}", row["family"], "all"):
            t = tallies[key]
            t["n"] += 1
            t["right"] += got == expect
            t["handled"] += got == expect or decision.proposed == expect
            t["asked"] += decision.proposed is not None
            t["wrote"] += registry.writes(got) and not registry.writes(expect)
            t["cancel_to_note"] += expect == "task_delete" and got == "quick_note_create"
        if got != expect:
            wrong.append(
                f"{row['family']:>9} {expect:>18} → {got}{'?' + decision.proposed if decision.proposed else ''}"
                f"  {decision.confidence:.2f}  {row['text']}"
            )
    if misses:
        print("\n".join(wrong))
    return {k: {m: v / t["n"] if m != "n" else v for m, v in t.items()} for k, t in sorted(tallies.items())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="+", type=Path)
    parser.add_argument("--rules-only", action="store_true", help="the rules without the intent model")
    parser.add_argument("--misses", action="store_true", help="list the messages routed wrong")
    args = parser.parse_args()
    if args.rules_only:
        router_module.load_model = lambda *a, **k: None  # type: ignore[assignment]
    for path in args.tables:
        print(f"# {path}{' (rules only)' if args.rules_only else ''}")
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        for key, m in asyncio.run(score(rows, misses=args.misses)).items():
            print(
                f"{key:>16}  n={int(m['n']):>4}  right {m['right']:.3f}  handled {m['handled']:.3f}  "
                f"asked {m['asked']:.3f}  wrote {m['wrote']:.3f}  cancel→note {m['cancel_to_note']:.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
