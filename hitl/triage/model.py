"""The intent model: character n-grams and word n-grams, TF-IDF and a linear classifier
(multinomial logistic regression), trained on our own labelled replies and shipped with the
package as `intent_model.json.gz`.

It is trained by `bench/train_intent_model.py` (scikit-learn, a development dependency) on
the old labelled set (`tests/hitl/triage_cases.py`) and the development replies
(`tests/hitl/triage_dev.py`) only — never on the held-out set. Here it is only *applied*:
plain Python, loaded once, offline, deterministic; no numpy or scikit-learn at run time.

The offline triage blends it with the rules (`OfflineTriage`): opt-outs and trigger
keywords stay rule-based, out-of-office autoreplies too; between the other intents the
model's probability plus a bonus for the rules' answer (weighted by the rules' own
confidence) decides.

`features` is the one analyser, used by the training script and at run time alike.
"""

from __future__ import annotations

import functools
import gzip
import json
import math
from collections import Counter
from pathlib import Path

from hitl.triage.base import normalise

MODEL_PATH = Path(__file__).with_name("intent_model.json.gz")
CHAR_NGRAMS = (2, 5)
NEGATION_SCOPE = 3  # tokens after a negator that it covers


def features(text: str) -> list[str]:
    """A reply's features: character 2..5-grams of each normalised word (padded with
    spaces, as scikit-learn's "char_wb"), and word unigrams and bigrams of each clause
    (tokens as the rules see them: "don't" → "dont", typos of key words corrected)."""
    from hitl.triage.offline import clauses  # the rules' tokenisation
    from hitl.triage.rules import NEGATORS

    norm = normalise(text)
    found: list[str] = []
    low, high = CHAR_NGRAMS
    for word in norm.split():
        padded = f" {word} "
        for n in range(low, high + 1):
            if len(padded) < n:
                break
            found.extend("c" + padded[i : i + n] for i in range(len(padded) - n + 1))
    for tokens in clauses(norm):
        found.extend("w" + token for token in tokens)
        found.extend(f"b{a} {b}" for a, b in zip(["<s>", *tokens], tokens, strict=False))
        left = 0
        for token in tokens:  # what a negation covers: "nu sunt interesat" → "!interesat"
            if left:
                found.append("!" + token)
            left = NEGATION_SCOPE if token in NEGATORS else max(left - 1, 0)
    return found


class IntentModel:
    """A fitted model as exported by the training script."""

    def __init__(self, data: dict) -> None:
        self.classes: tuple[str, ...] = tuple(data["classes"])
        self.intercept: list[float] = data["intercept"]
        self.weights: dict[str, list[float]] = data["features"]  # [idf, weight per class]
        self.meta: dict = data.get("meta", {})

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> IntentModel:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            return cls(json.load(handle))

    def probabilities(self, text: str) -> dict[str, float]:
        """P(intent | text): sublinear TF × IDF, L2-normalised, one linear score per
        intent, softmax — what the scikit-learn pipeline computes."""
        vector: list[tuple[float, list[float]]] = []
        norm = 0.0
        for feature, count in Counter(features(text)).items():
            row = self.weights.get(feature)
            if row is None:  # not in the vocabulary: not in the vector, not in its norm
                continue
            value = (1.0 + math.log(count)) * row[0]
            vector.append((value, row))
            norm += value * value
        scores = list(self.intercept)
        if norm:
            scale = 1.0 / math.sqrt(norm)
            for value, row in vector:
                value *= scale
                for k in range(len(scores)):
                    scores[k] += value * row[k + 1]
        top = max(scores)
        exps = [math.exp(score - top) for score in scores]
        total = sum(exps)
        return {intent: e / total for intent, e in zip(self.classes, exps, strict=True)}


@functools.cache
def shipped() -> IntentModel | None:
    """The model shipped with the package (None if the file is missing: rules only)."""
    if not MODEL_PATH.exists():
        return None
    return IntentModel.load()
