"""Benchmark: resolve_time on every probe-table sentence, this tree against a base revision.

    .venv/bin/python bench/timeanchor.py [BASE_REV]      (default: 76cb374, before issue 28)

The base revision's `core/` is exported with `git archive` to a temporary folder; both trees run
in child processes, alternately, over the same sentences (the probe tables of this tree, at their
own `now`s), with resolve_time's cache cleared before every call. Prints the median µs per sentence
of each tree over 7 passes, and the ratio. Tokenising and the grammar are the whole cost.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from datetime import datetime
from core.timeanchor import resolve as r
cases = [(s, datetime.fromisoformat(n), p) for s, n, p in json.loads(sys.stdin.read())]
best = []
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    for s, n, p in cases:
        r._resolve_once.cache_clear()
        r.resolve_time(s, n, "Asia/Shanghai", prefer=p)
    best.append((time.perf_counter() - t0) / len(cases) * 1e6)
print(json.dumps(best))
"""


def _cases() -> list[tuple[str, str, str]]:
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from support.timeprobe import now_of

    out = []
    for path in sorted((ROOT / "tests" / "core").glob("test_timeanchor_*probes*.py")) + sorted(
        (ROOT / "tests" / "core").glob("test_timeanchor_peer_*.py")
    ):
        for p in getattr(_load(path), "PROBES", []):
            out.append((p.sentence, now_of(p.now).isoformat(), p.prefer))
    return out


def _load(path: Path) -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run(tree: Path, cases: str, passes: int) -> list[float]:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tree), str(passes)], input=cases, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def main() -> None:
    base = sys.argv[1] if len(sys.argv) > 1 else "76cb374"
    cases = _cases()
    feed = json.dumps(cases)
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "base.tar"
        subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), base, "core"], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(Path(tmp) / "base", filter="data")
        now_t, base_t = [], []
        for _ in range(7):  # alternate, so drift in the machine hits both alike
            now_t += _run(ROOT, feed, 1)
            base_t += _run(Path(tmp) / "base", feed, 1)
    now_t.sort()
    base_t.sort()
    med_now, med_base = now_t[len(now_t) // 2], base_t[len(base_t) // 2]
    print(f"{len(cases)} sentences, median of 7 passes, µs per sentence (uncached)")
    print(f"  base {base}: {med_base:8.1f}")
    print(f"  this tree:   {med_now:8.1f}   ratio {med_now / med_base:.2f}x")


if __name__ == "__main__":
    main()
