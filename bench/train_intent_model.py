"""Train the intent model shipped as hitl/triage/intent_model.json.gz (issue #10 §2).

    .venv/bin/python bench/train_intent_model.py            # evaluate, then write the model
    .venv/bin/python bench/train_intent_model.py --check    # evaluate only

Training data: the old labelled set (tests/hitl/triage_cases.py) and the development
replies written for issue #10 (tests/hitl/triage_dev.py). Never the held-out set
(tests/hitl/triage_heldout.py): it is not imported here, and the model records a
fingerprint of exactly what it was trained on (tests check it matches these two sets).

The evaluation printed first is what chose the settings, and uses no held-out data:
train on one set and test on the other (the old set was written by another hand than the
development set, so this is the closest thing to unseen replies), and 5-fold
cross-validation over both. It compares the rules alone, the model alone and the blend the
offline triage uses (`hitl.triage.offline.blend`).

Deterministic: scikit-learn's lbfgs logistic regression on fixed data, weights rounded,
JSON with sorted keys, gzip without a timestamp; the same data gives the same bytes.
Needs scikit-learn (a development dependency), DEBUG=true settings, no network.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import sys
from collections import Counter
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cerniq.settings")

import django  # noqa: E402

django.setup()

import sklearn  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import StratifiedKFold  # noqa: E402

from hitl.triage import INTENTS, OfflineTriage  # noqa: E402
from hitl.triage.model import MODEL_PATH, IntentModel, features  # noqa: E402
from tests.hitl import triage_cases, triage_dev  # noqa: E402

C = 10.0  # inverse regularisation, chosen by the evaluation below
DECIMALS = 4
MIN_DF = 2  # features seen in one reply only are dropped: half the file, about as accurate
TODAY = date(2024, 12, 10)


def training_sets() -> dict[str, tuple]:
    return {"old": triage_cases.CASES, "dev": triage_dev.CASES}


def fingerprint(cases) -> str:
    """sha256 of the training replies and their labels, in order."""
    digest = hashlib.sha256()
    for case in cases:
        digest.update(f"{case.intent}\t{case.text}\n".encode())
    return digest.hexdigest()


def fit(cases) -> tuple[TfidfVectorizer, LogisticRegression]:
    vectorizer = TfidfVectorizer(analyzer=features, sublinear_tf=True, min_df=MIN_DF)
    matrix = vectorizer.fit_transform([case.text for case in cases])
    classifier = LogisticRegression(C=C, max_iter=10_000)
    classifier.fit(matrix, [case.intent for case in cases])
    return vectorizer, classifier


def export(vectorizer, classifier, cases, sets) -> dict:
    coef = classifier.coef_
    rows = {}
    for feature, column in vectorizer.vocabulary_.items():
        rows[feature] = [round(float(vectorizer.idf_[column]), DECIMALS)] + [
            round(float(coef[k, column]), DECIMALS) for k in range(coef.shape[0])
        ]
    return {
        "classes": [str(c) for c in classifier.classes_],
        "intercept": [round(float(b), DECIMALS) for b in classifier.intercept_],
        "features": rows,
        "meta": {
            "trained_on": {name: len(cases_) for name, cases_ in sets.items()},
            "fingerprint": fingerprint(cases),
            "C": C,
            "min_df": MIN_DF,
            "scikit_learn": sklearn.__version__,
        },
    }


def write(data: dict, path: Path = MODEL_PATH) -> int:
    raw = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    with open(path, "wb") as handle, gzip.GzipFile(fileobj=handle, mode="wb", mtime=0) as gz:
        gz.write(raw.encode("utf-8"))
    return path.stat().st_size


# --- evaluation (old and development sets only) ----------------------------------------


def predict(model: IntentModel | None, cases) -> list[str]:
    backend = OfflineTriage(intent_model=model)
    return [backend.analyse(case.text, today=TODAY).intent for case in cases]


def accuracy(predicted, cases) -> float:
    return sum(p == c.intent for p, c in zip(predicted, cases, strict=True)) / len(cases)


def macro_f1(predicted, cases) -> float:
    scores = []
    for intent in INTENTS:
        tp = sum(p == intent and c.intent == intent for p, c in zip(predicted, cases, strict=True))
        fp = sum(p == intent and c.intent != intent for p, c in zip(predicted, cases, strict=True))
        fn = sum(p != intent and c.intent == intent for p, c in zip(predicted, cases, strict=True))
        if tp + fp + fn:
            scores.append(2 * tp / (2 * tp + fp + fn))
    return sum(scores) / len(scores)


def as_model(vectorizer, classifier, cases) -> IntentModel:
    return IntentModel(export(vectorizer, classifier, cases, {}))


def evaluate(sets: dict[str, tuple]) -> None:
    old, dev = sets["old"], sets["dev"]
    print(f"{'evaluation':<34}{'rules':>14}{'model+rules':>14}{'macro-F1':>10}")
    for name, train, test in (
        ("train old → test dev", old, dev),
        ("train dev → test old", dev, old),
    ):
        vectorizer, classifier = fit(train)
        blended = predict(as_model(vectorizer, classifier, train), test)
        rules = predict(None, test)
        print(
            f"{name:<34}{accuracy(rules, test):>14.1%}{accuracy(blended, test):>14.1%}"
            f"{macro_f1(blended, test):>10.3f}"
        )
    both = old + dev
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    blended_all, rules_all, seen = [], [], []
    for train_index, test_index in folds.split(both, [case.intent for case in both]):
        train = [both[i] for i in train_index]
        test = [both[i] for i in test_index]
        vectorizer, classifier = fit(train)
        blended_all += predict(as_model(vectorizer, classifier, train), test)
        rules_all += predict(None, test)
        seen += test
    print(
        f"{'5-fold CV over old + dev':<34}{accuracy(rules_all, seen):>14.1%}"
        f"{accuracy(blended_all, seen):>14.1%}{macro_f1(blended_all, seen):>10.3f}"
    )
    confusions = Counter(
        (c.intent, p) for p, c in zip(blended_all, seen, strict=True) if p != c.intent
    )
    print("  most frequent CV confusions (label → predicted):")
    for (label, got), count in confusions.most_common(8):
        print(f"    {label} → {got}: {count}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="evaluate only, write nothing")
    args = parser.parse_args()
    sets = training_sets()
    evaluate(sets)
    if args.check:
        return 0
    cases = tuple(case for cases_ in sets.values() for case in cases_)
    vectorizer, classifier = fit(cases)
    data = export(vectorizer, classifier, cases, sets)
    size = write(data)
    print(
        f"\nwrote {MODEL_PATH}: {len(data['features']):,} features × "
        f"{len(data['classes'])} intents, {size / 1024:,.0f} KiB, "
        f"trained on {len(cases)} replies ({data['meta']['trained_on']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
