"""Benchmark: task-query throughput of `suikou serve --workers N` for N = 1, 2, 4.

    .venv/bin/python bench/workers.py                                  # SQLite, 16 clients, 5 s per run
    .venv/bin/python bench/workers.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test

The same seeded database and query as bench/http_throughput.py (its helpers are reused), driven
by bench/loadgen.py (raw keep-alive sockets, one request in flight per connection). Each N gets
a fresh server (`suikou serve --workers N`), a warm-up, then ``--rounds`` runs of non-streaming
and streaming queries; the best run per mode is printed (the machine is shared: the best run is
the least disturbed one). The load generator runs on the same machine: on 2 cores it takes
about one of them, so N > 2 shows what oversubscription costs rather than what 4 cores give.
A PostgreSQL URL is used as given (its tables are migrated, and 2,000 tasks added for ``local``).
Numbers only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.http_throughput import (  # noqa: E402
    CHAT_PATH,
    MODES,
    seed_database,
    spawn,
    suikou_argv,
    suikou_env,
)
from bench.loadgen import run_load  # noqa: E402


def one_setting(workers: int, db_url: str, tmp: Path, args: argparse.Namespace) -> dict[str, dict[str, float]]:
    from bench.http_throughput import free_port

    port = free_port()
    argv = [*suikou_argv(port), "--workers", str(workers)]
    best: dict[str, dict[str, float]] = {}
    with spawn(f"suikou-w{workers}", argv, env=suikou_env(db_url), cwd=tmp, port=port):
        for body in MODES.values():
            run_load(port, [body], path=CHAT_PATH, conc=args.concurrency, max_n=10**6, max_t=args.warmup)
        for _ in range(args.rounds):
            for mode, body in MODES.items():
                res = run_load(port, [body], path=CHAT_PATH, conc=args.concurrency, max_n=10**6, max_t=args.duration)
                if res["errors"] == 0 and res["rps"] > best.get(mode, {}).get("rps", 0.0):
                    best[mode] = {"rps": res["rps"], "p50_ms": res["p50_ms"], "p99_ms": res["p99_ms"]}
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--database-url", help="default: a temporary SQLite file")
    args = parser.parse_args(argv)
    from datetime import UTC, datetime

    with tempfile.TemporaryDirectory(prefix="suikou-workers-") as name:
        tmp = Path(name)
        db_url = args.database_url or f"sqlite:///{tmp / 'bench.db'}"
        seed_database(db_url, args.tasks, now=datetime.now(UTC))
        print(f"{'workers':>7} {'mode':<14} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}")
        for workers in args.workers:
            for mode, run in one_setting(workers, db_url, tmp, args).items():
                print(f"{workers:>7} {mode:<14} {run['rps']:>8.0f} {run['p50_ms']:>8.1f} {run['p99_ms']:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
