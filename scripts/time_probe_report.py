"""Per-kind counts of every time-anchor probe table (tests/core/test_timeanchor_*probes*.py,
test_timeanchor_peer_*.py, test_timeanchor_blind_*.py): the numbers the closing notes and docs/fdr/0043 quote.

    .venv/bin/python scripts/time_probe_report.py [-v]      (-v also prints the misses)
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support.timeprobe import probe_ok  # noqa: E402


def _tables() -> list[Path]:
    core = ROOT / "tests" / "core"
    tables = sorted(core.glob("test_timeanchor_*probes*.py")) + sorted(core.glob("test_timeanchor_peer_*.py"))
    return tables + sorted(core.glob("test_timeanchor_blind_*.py"))


def main() -> None:
    verbose = "-v" in sys.argv
    grand = [0, 0]
    for path in _tables():
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        right: Counter[str] = Counter()
        total: Counter[str] = Counter()
        for p in getattr(mod, "PROBES", []):
            ok, why = probe_ok(p)
            total[p.kind or "-"] += 1
            right[p.kind or "-"] += ok
            if verbose and not ok:
                print(f"  MISS [{p.kind}] {p.now} {p.sentence}: {why}")
        print(f"{path.stem}: {sum(right.values())}/{sum(total.values())}")
        for kind in sorted(total):
            print(f"  {kind:22s} {right[kind]:4d}/{total[kind]:4d}")
        grand[0] += sum(right.values())
        grand[1] += sum(total.values())
    print(f"all tables: {grand[0]}/{grand[1]}")


if __name__ == "__main__":
    main()
