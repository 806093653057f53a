"""Probe: copies of one write sent at once to two server processes; rows written per attempt.

    .venv/bin/python bench/exactly_once.py                                   # SQLite file, 2 processes
    .venv/bin/python bench/exactly_once.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test

Two `suikou serve` processes share one database (keyless local mode). For each write — a note, a
completion, a correction ("优先级调低"), an undo — the same conversation is sent ``--copies`` times at
once, alternating between the processes, over ``--trials`` fresh attempts. Printed per write: the
copies sent, the 5xx answers, the change rows the attempt wrote or undid (the log's own count), how
many distinct answers the copies got (a note's first copy says "已记下", the others "刚才已经记下了"),
and how many distinct write records they carried (an undo carries none). Numbers only;
nothing is asserted (tests/route/test_exactly_once.py holds the assertions).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.http_throughput import free_port, http_call, spawn, suikou_argv, suikou_env  # noqa: E402

CHAT = "/v1/chat/completions"


def chat(port: int, messages: list[tuple[str, str]]) -> tuple[int, str]:
    body = {"model": "suikou", "messages": [{"role": r, "content": c} for r, c in messages]}
    status, _, raw = http_call(port, "POST", CHAT, body, timeout=60)
    if status != 200:
        return status, ""
    return status, json.loads(raw)["choices"][0]["message"]["content"]


def _record(text: str) -> str:
    """The write record an answer carries ("" for none): every copy should carry the same."""
    return next((line for line in text.splitlines() if line.startswith('[suikou]: # "w1.')), "")


def copies_at_once(ports: list[int], messages: list[tuple[str, str]], n: int) -> list[tuple[int, str]]:
    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(lambda i: chat(ports[i % len(ports)], messages), range(n)))


def trial(ports: list[int], copies: int, count_rows: Any) -> dict[str, dict[str, Any]]:
    tag = uuid.uuid4().hex[:6]  # a fresh title each trial: a fresh attempt, no near-duplicate question
    note = f"帮我记一下下周三交报告{tag}"
    rows: dict[str, dict[str, Any]] = {}

    def measure(name: str, messages: list[tuple[str, str]]) -> str:
        before = count_rows()
        answers = copies_at_once(ports, messages, copies)
        rows[name] = {
            "copies": copies,
            "5xx": sum(status >= 500 for status, _ in answers),
            "rows": count_rows() - before,
            "answers": len({text for _, text in answers}),
            "records": len({_record(text) for _, text in answers}),
        }
        return next(text for status, text in answers if status == 200)

    noted = measure("note", [("user", note)])
    history = [("user", note), ("assistant", noted)]
    lowered = measure("correction", [*history, ("user", "优先级调低")])
    history += [("user", "优先级调低"), ("assistant", lowered)]
    measure("completion", [*history, ("user", f"交报告{tag}做完了")])
    measure("undo", [*history, ("user", "撤销")])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--trials", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'probe.db'}"
        import sqlalchemy as sa

        from core.db import make_engine, migrate

        engine = make_engine(url)
        migrate(engine)

        def count_rows() -> int:
            with engine.connect() as conn:
                # Rows written, and rows undone: an undo marks the changes it reverts.
                query = "SELECT count(*) + count(undone_at) FROM task_changes"
                return int(conn.execute(sa.text(query)).scalar_one())

        ports = []
        for i in range(2):
            port = free_port()
            stack.enter_context(spawn(f"s{i}", suikou_argv(port), env=suikou_env(url), cwd=Path(tmp), port=port))
            ports.append(port)
        totals: dict[str, dict[str, list[int]]] = {}
        for _ in range(args.trials):
            for name, row in trial(ports, args.copies, count_rows).items():
                for key, value in row.items():
                    totals.setdefault(name, {}).setdefault(key, []).append(value)
        print(f"{engine.dialect.name}, 2 processes, {args.copies} copies at once, {args.trials} trials")
        print(f"{'write':<12} {'copies':>7} {'5xx':>5} {'rows/attempt':>13} {'answers':>8} {'records':>8}")
        for name, cols in totals.items():
            print(
                f"{name:<12} {sum(cols['copies']):>7} {sum(cols['5xx']):>5} {','.join(map(str, cols['rows'])):>13} "
                f"{','.join(map(str, cols['answers'])):>8} {','.join(map(str, cols['records'])):>8}"
            )
        engine.dispose()


if __name__ == "__main__":
    main()
