"""The trained intent model: which action a message is for, with calibrated probabilities (docs/fdr/0026).

A multinomial logistic regression over hashed features of the message — character 1–3-grams, English
words and word pairs, and the offline rules' own vote (which action they chose, and how sure, in buckets) — trained by
``scripts/train_intent.py`` on the corpora the actions declare (``Action.corpus``). The shipped
artifact, ``intent_model.json``, holds int8 weights of the buckets training saw; inference is plain
Python over them (no numpy, no scikit-learn), well under a millisecond a message.

The probabilities are the softmax of the logits divided by a temperature fitted on held-out templates,
so 0.7 means "right about 70% of the time" on wording the model never saw; the router's thresholds
(``route.router``) are stated on that scale.
"""

from __future__ import annotations

import base64
import itertools
import json
import logging
import math
import re
import struct
import unicodedata
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from core.hanzi import fold

__all__ = ["BUCKETS", "MODEL_PATH", "IntentModel", "features", "load_model"]

log = logging.getLogger("suikou.router")

BUCKETS = 1 << 18
MODEL_PATH = Path(__file__).with_name("intent_model.json")
_WORD = re.compile(r"[a-z0-9']+")
_DIGITS = re.compile(r"\d+")
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """What the features see: NFKC (full-width → half-width), traditional → simplified (core.hanzi),
    lower case, digits as 0, one space."""
    folded = fold(unicodedata.normalize("NFKC", text)).lower()
    return _SPACE.sub(" ", _DIGITS.sub("0", folded)).strip()


def _bucket(feature: str) -> int:
    return zlib.crc32(feature.encode()) % BUCKETS


def feature_names(text: str, rule: tuple[str, float] | None) -> set[str]:
    """The message's features: char n-grams (with edges marked), words, and the rules' vote."""
    norm = normalise(text)
    padded = f"^{norm}$"
    names = {f"c{n}:{padded[i : i + n]}" for n in (1, 2, 3) for i in range(len(padded) - n + 1)}
    words = _WORD.findall(norm)
    names.update(f"w:{word}" for word in words)
    names.update(f"b:{a} {b}" for a, b in itertools.pairwise(words))
    names.add(f"len:{min(len(norm) // 4, 12)}")
    if rule is not None:
        action, confidence = rule
        names.add(f"rule:{action}")
        names.add(f"rule:{action}:{min(int(confidence * 10), 9)}")
    return names


def features(text: str, rule: tuple[str, float] | None) -> list[int]:
    """The hashed feature buckets of a message (sorted, distinct)."""
    return sorted({_bucket(name) for name in feature_names(text, rule)})


@dataclass(frozen=True)
class IntentModel:
    """int8 weights per feature bucket and class, one scale, biases and a temperature."""

    classes: tuple[str, ...]
    bias: tuple[float, ...]
    scale: float
    temperature: float
    rows: Mapping[int, tuple[int, ...]]

    def logits(self, buckets: Iterable[int]) -> list[float]:
        sums = [0] * len(self.classes)
        for bucket in buckets:
            row = self.rows.get(bucket)
            if row is not None:
                for k, weight in enumerate(row):
                    sums[k] += weight
        return [b + s * self.scale for b, s in zip(self.bias, sums, strict=True)]

    def probabilities(self, text: str, rule: tuple[str, float] | None) -> dict[str, float]:
        """Calibrated probability per action for ``text`` given the rules' vote."""
        scaled = [z / self.temperature for z in self.logits(features(text, rule))]
        top = max(scaled)
        exps = [math.exp(z - top) for z in scaled]
        total = sum(exps)
        return {name: e / total for name, e in zip(self.classes, exps, strict=True)}

    # --- the artifact -------------------------------------------------------------------------------

    def to_json(self) -> str:
        width = len(self.classes)
        packed = b"".join(struct.pack(f"<I{width}b", b, *self.rows[b]) for b in sorted(self.rows))
        doc = {
            "format": "suikou-intent/1",
            "buckets": BUCKETS,
            "classes": list(self.classes),
            "bias": [round(b, 6) for b in self.bias],
            "scale": round(self.scale, 9),
            "temperature": round(self.temperature, 4),
            "rows": base64.b64encode(zlib.compress(packed, 9)).decode(),
        }
        return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> IntentModel:
        doc = json.loads(text)
        if doc.get("format") != "suikou-intent/1" or doc.get("buckets") != BUCKETS:
            raise ValueError("intent model: unknown format or bucket count (retrain with scripts/train_intent.py)")
        classes: Sequence[str] = doc["classes"]
        width = len(classes)
        packed = zlib.decompress(base64.b64decode(doc["rows"]))
        rows = {row[0]: tuple(row[1:]) for row in struct.iter_unpack(f"<I{width}b", packed)}
        return cls(tuple(classes), tuple(doc["bias"]), float(doc["scale"]), float(doc["temperature"]), rows)


@cache
def load_model(path: Path = MODEL_PATH) -> IntentModel | None:
    """The shipped model, read once; None when the file is absent (the router then uses its rules,
    and says so once in the log)."""
    try:
        return IntentModel.from_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        log.warning("no intent model at %s: routing by the offline rules alone", path)
        return None
