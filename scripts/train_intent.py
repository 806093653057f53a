"""Train the router's intent model on the actions' corpora: ``python scripts/train_intent.py``.

Writes ``route/intent_model.json`` (docs/fdr/0026). Needs scikit-learn (the ``train`` extra); the
service itself never imports it. The run is deterministic: ``--check`` retrains and fails unless the
result matches the shipped file byte for byte or, with another scikit-learn or SciPy build, agrees
with it on at least 99.5% of the corpus's predictions.

Held-out split: one template in five (``core.corpus.held_out``), whole, with any test sentence that
also occurs in training removed from training. The model ships trained on the training split; its
temperature is fitted on the held-out split, and the report (accuracy, confusion matrix, calibration)
is on that split.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.actions import build_registry  # noqa: E402
from core.corpus import held_out  # noqa: E402
from route.intent import BUCKETS, MODEL_PATH, IntentModel, features  # noqa: E402
from route.router import Router  # noqa: E402

C = 2.0
TOL = 1e-4


@dataclass(frozen=True)
class Row:
    text: str
    label: str
    template: str
    test: bool
    buckets: tuple[int, ...]


def corpus_rows() -> list[Row]:
    registry = build_registry()
    router = Router(registry)
    rows: list[Row] = []
    for action in registry:
        if action.corpus is None:
            continue
        for example in action.corpus.examples():
            rule = router.rule_vote(example.text, ())
            rows.append(
                Row(
                    example.text,
                    action.name,
                    example.template,
                    held_out(example.template),
                    tuple(features(example.text, rule)),
                )
            )
    test_texts = {r.text for r in rows if r.test}
    # A sentence in both splits stays only in the test split, so the report is on unseen sentences.
    return [r for r in rows if r.test or r.text not in test_texts]


def fit(rows: list[Row], classes: list[str]) -> IntentModel:
    import numpy as np
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    train = [r for r in rows if not r.test]
    indptr, indices = [0], list[int]()
    for r in train:
        indices.extend(r.buckets)
        indptr.append(len(indices))
    x = csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(train), BUCKETS))
    y = np.array([classes.index(r.label) for r in train])
    clf = LogisticRegression(C=C, tol=TOL, max_iter=2000)
    clf.fit(x, y)
    weights = clf.coef_  # classes × buckets
    seen = np.unique(np.array(indices))
    scale = float(np.abs(weights[:, seen]).max()) / 127
    quantised = np.clip(np.rint(weights[:, seen] / scale), -127, 127).astype(int)
    kept = {int(b): tuple(int(v) for v in quantised[:, i]) for i, b in enumerate(seen) if quantised[:, i].any()}
    model = IntentModel(tuple(classes), tuple(float(b) for b in clf.intercept_), scale, 1.0, kept)
    return calibrate(model, [r for r in rows if r.test])


def _nll(model: IntentModel, rows: list[Row], temperature: float) -> float:
    total = 0.0
    for r in rows:
        z = [v / temperature for v in model.logits(r.buckets)]
        top = max(z)
        log_sum = top + math.log(sum(math.exp(v - top) for v in z))
        total += log_sum - z[model.classes.index(r.label)]
    return total / max(len(rows), 1)


def calibrate(model: IntentModel, test: list[Row]) -> IntentModel:
    """The temperature that minimises held-out log loss (a grid: the fit is one number)."""
    grid = [0.25 + 0.05 * i for i in range(76)]
    best = min(grid, key=lambda t: _nll(model, test, t))
    return IntentModel(model.classes, model.bias, model.scale, round(best, 4), model.rows)


def predict(model: IntentModel, r: Row) -> tuple[str, float]:
    z = [v / model.temperature for v in model.logits(r.buckets)]
    top = max(z)
    exps = [math.exp(v - top) for v in z]
    k = max(range(len(z)), key=lambda i: z[i])
    return model.classes[k], exps[k] / sum(exps)


def report(model: IntentModel, rows: list[Row]) -> str:
    test = [r for r in rows if r.test]
    lines = [f"sentences: {len(rows)} ({len(test)} held out, {len({r.template for r in test})} templates)"]
    lines.append(f"by action: {dict(Counter(r.label for r in rows))}")
    confusion: Counter[tuple[str, str]] = Counter()
    bins: dict[int, list[bool]] = {}
    for r in test:
        guess, p = predict(model, r)
        confusion[(r.label, guess)] += 1
        bins.setdefault(min(int(p * 10), 9), []).append(guess == r.label)
    right = sum(v for (a, b), v in confusion.items() if a == b)
    lines.append(f"held-out accuracy: {right / len(test):.3f}  temperature {model.temperature}")
    names = list(model.classes)
    short = [n.split("_")[-1][:7] for n in names]
    lines.append("confusion (rows: truth, columns: predicted)")
    lines.append(" " * 18 + " ".join(f"{s:>7}" for s in short))
    for a in names:
        lines.append(f"{a:>18}" + " ".join(f"{confusion[(a, b)]:>7}" for b in names))
    lines.append("calibration (confidence bin: n, accuracy)")
    for b in sorted(bins):
        hits = bins[b]
        lines.append(f"  {b / 10:.1f}–{(b + 1) / 10:.1f}: {len(hits):>5}  {sum(hits) / len(hits):.3f}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="retrain and compare with the shipped model")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args()
    rows = corpus_rows()
    classes = sorted({r.label for r in rows})
    model = fit(rows, classes)
    print(report(model, rows))
    built = model.to_json()
    if not args.check:
        args.out.write_text(built, encoding="utf-8")
        print(f"wrote {args.out} ({len(built.encode()) // 1024} KiB, {len(model.rows)} buckets)")
        return 0
    shipped_text = MODEL_PATH.read_text(encoding="utf-8")
    if shipped_text == built:
        print("check: identical to the shipped model")
        return 0
    shipped = IntentModel.from_json(shipped_text)
    agree = sum(predict(shipped, r)[0] == predict(model, r)[0] for r in rows) / len(rows)
    print(f"check: not byte-identical; predictions agree on {agree:.4f} of the corpus")
    return 0 if agree >= 0.995 else 1


if __name__ == "__main__":
    raise SystemExit(main())
