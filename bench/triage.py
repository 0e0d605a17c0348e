"""Benchmark the offline reply triage on the labelled replies in tests/hitl/triage_cases.py.

    .venv/bin/python bench/triage.py [--split all|dev|holdout|fresh|fresh2|fresh3] [--repeat 20]

Prints intent, sentiment-band and language accuracy (overall and per split), per-intent
recall, every miss as "expected → got", and how many replies a second the offline backend
triages. No database, no network, no Django settings needed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from hitl.triage import OfflineTriage, TriageResult  # noqa: E402
from tests.hitl.triage_cases import DEV, FRESH, FRESH2, FRESH3, HOLDOUT, Case  # noqa: E402

SPLITS = {"dev": DEV, "holdout": HOLDOUT, "fresh": FRESH, "fresh2": FRESH2, "fresh3": FRESH3}
TODAY = date(2024, 12, 10)  # a Tuesday; fixed so return dates are reproducible


def band(sentiment: int) -> str:
    if sentiment >= 50:
        return "positive"
    return "neutral" if sentiment >= 0 else "negative"


def evaluate(cases: tuple[Case, ...], backend: OfflineTriage) -> dict[str, object]:
    results: list[tuple[Case, TriageResult]] = [
        (case, backend.analyse(case.text, today=TODAY)) for case in cases
    ]
    n = len(results) or 1
    return {
        "n": len(results),
        "intent": sum(r.intent == c.intent for c, r in results) / n,
        "band": sum(band(r.sentiment) == c.band for c, r in results) / n,
        "language": sum(r.language == c.language for c, r in results) / n,
        "results": results,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("all", *SPLITS), default="all")
    parser.add_argument("--repeat", type=int, default=20, help="passes for the speed figure")
    args = parser.parse_args()
    chosen = SPLITS if args.split == "all" else {args.split: SPLITS[args.split]}
    backend = OfflineTriage()

    print(f"{'split':<9}{'cases':>6}{'intent':>9}{'band':>9}{'language':>10}")
    everything: tuple[Case, ...] = ()
    for name, cases in chosen.items():
        everything += cases
        row = evaluate(cases, backend)
        print(
            f"{name:<9}{row['n']:>6}{row['intent']:>9.1%}{row['band']:>9.1%}"
            f"{row['language']:>10.1%}"
        )
    if len(chosen) > 1:
        row = evaluate(everything, backend)
        print(
            f"{'all':<9}{row['n']:>6}{row['intent']:>9.1%}{row['band']:>9.1%}"
            f"{row['language']:>10.1%}"
        )
    results = evaluate(everything, backend)["results"]

    totals: Counter[str] = Counter(case.intent for case in everything)
    hits: Counter[str] = Counter(c.intent for c, r in results if r.intent == c.intent)
    print("\nrecall by intent:")
    for intent, total in sorted(totals.items()):
        print(f"  {intent:<16}{hits[intent]:>3}/{total:<3} {hits[intent] / total:>6.1%}")

    misses = [
        (c, r)
        for c, r in results
        if (r.intent, band(r.sentiment), r.language) != (c.intent, c.band, c.language)
    ]
    print(f"\nmisses ({len(misses)}): expected → got")
    for case, result in misses:
        wrong = []
        if result.intent != case.intent:
            wrong.append(f"intent {case.intent} → {result.intent}")
        if band(result.sentiment) != case.band:
            wrong.append(f"band {case.band} → {band(result.sentiment)} ({result.sentiment})")
        if result.language != case.language:
            wrong.append(f"language {case.language} → {result.language}")
        print(f"  {case.text[:70]!r}: {'; '.join(wrong)}")

    # Routing safety: the misses that matter are the ones that change the path.
    auto_wrong = [(c, r) for c, r in results if r.sentiment >= 50 and c.band != "positive"]
    urgent_missed = [(c, r) for c, r in results if c.band == "negative" and r.sentiment >= 0]
    optout_missed = [
        (c, r) for c, r in results if c.intent == "unsubscribe" and r.intent != "unsubscribe"
    ]
    print("\nrouting safety:")
    print(f"  auto-reply path but labelled < 50 (would auto-answer wrongly): {len(auto_wrong)}")
    print(f"  labelled negative but scored >= 0 (URGENT review missed):      {len(urgent_missed)}")
    print(f"  opt-outs not detected as unsubscribe:                          {len(optout_missed)}")

    started = time.perf_counter()
    for _ in range(args.repeat):
        for case in everything:
            backend.analyse(case.text, today=TODAY)
    elapsed = time.perf_counter() - started
    count = args.repeat * len(everything)
    print(f"\nspeed: {count} analyses in {elapsed:.2f}s = {count / elapsed:,.0f} cases/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
