"""Benchmark the offline reply triage on the labelled replies: the old set
(tests/hitl/triage_cases.py) and the held-out set of issue #10 (tests/hitl/triage_heldout.py).

    .venv/bin/python bench/triage.py [--split all|dev|holdout|fresh|fresh2|fresh3] [--repeat 20]
    .venv/bin/python bench/triage.py --markdown     # the issue #10 table only, as markdown
    .venv/bin/python bench/triage.py --rules-only   # without the shipped intent model

On the old set (or one of its splits) it prints intent, sentiment-band and language
accuracy, per-intent recall, every miss as "expected → got", routing safety and how many
replies a second the offline backend triages.

Then, for the old set and the held-out set side by side, the measures of issue #10:
intent accuracy, macro-F1 over intents, opt-out recall and precision, complaint recall,
negative replies on the auto-reply path (and sarcasm on it, concrete meeting times routed
to a person URGENT), plus per-language breakdowns. Those are read on the *product path* of a
reply, as
`hitl.replies.process_reply` decides today (keep `product_path` in step with it):

1. `outreach.optout.is_opt_out(text)` → opted out; the triage still reads it, and a
   complaint (intent or signal, `hitl.replies.is_complaint`) opens an URGENT review item;
2. the offline triage; intent "unsubscribe" → opted out the same way;
3. intent "out_of_office" → the sequence waits (no reply, no review item);
4. else `hitl.routing.route` (keywords and signals) for a tenant with auto-replies on for
   every intent (the most permissive setting): "auto_reply", "approval" or "review", at the
   priority of docs/review-queue.md (bench/priority.py measures that priority).

A complaint counts as handled when it is put in front of a person as an URGENT or HIGH
review item (on the opt-out path too); a complaint that also asks to stop is handled as
issue #10 wants it only when it is opted out **and** reviewed URGENT. A negative reply is
one labelled with a negative band, or intent not_interested / unsubscribe / complaint, or as
an opt-out or a complaint.

The held-out set is never tuned on: only its aggregate figures are printed, never its
individual misses. Needs Django settings (DEBUG=true is enough), no database, no network.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cerniq.settings")

import django  # noqa: E402

django.setup()

from cerniq.models import Tenant  # noqa: E402
from hitl.replies import is_complaint  # noqa: E402
from hitl.routing import route  # noqa: E402
from hitl.triage import INTENTS, OfflineTriage, TriageResult  # noqa: E402
from outreach import optout  # noqa: E402
from outreach.models import Priority  # noqa: E402
from tests.hitl.triage_cases import DEV, FRESH, FRESH2, FRESH3, HOLDOUT, Case  # noqa: E402
from tests.hitl.triage_heldout import HELD_OUT, MIXED, SARCASM, TIME  # noqa: E402

SPLITS = {"dev": DEV, "holdout": HOLDOUT, "fresh": FRESH, "fresh2": FRESH2, "fresh3": FRESH3}
OLD: tuple[Case, ...] = DEV + HOLDOUT + FRESH + FRESH2 + FRESH3
TODAY = date(2024, 12, 10)  # a Tuesday; fixed so return dates are reproducible
NEGATIVE_INTENTS = ("not_interested", "unsubscribe", "complaint")
VARIETIES = ("ro-comma", "ro-cedilla", "ro-aai", "ro-plain", "en", "mixed")


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


# --- the product path (hitl.replies.process_reply, today) ------------------------------


@dataclass(frozen=True)
class ReplyPath:
    opted_out: bool
    action: str  # "opt_out" | "out_of_office" | "auto_reply" | "approval" | "review"
    priority: str  # the review item's priority; "" when none is opened
    result: TriageResult | None


def permissive_tenant() -> Tenant:
    """A tenant (never saved) that lets the AI answer every intent automatically."""
    return Tenant(name="bench", ai_auto_reply_enabled=True, ai_auto_reply_intents=[])


def product_path(text: str, backend: OfflineTriage, tenant: Tenant) -> ReplyPath:
    stop = optout.is_opt_out(text)
    result = backend.analyse(text, today=TODAY)
    if stop or result.intent == "unsubscribe":
        return ReplyPath(True, "opt_out", Priority.URGENT if is_complaint(result) else "", result)
    if result.intent == "out_of_office":
        return ReplyPath(False, "out_of_office", "", result)
    decision = route(
        tenant,
        sentiment=result.sentiment,
        intent=result.intent,
        keywords=tuple(result.keywords),
        signals=tuple(result.signals),
        confidence=result.confidence,
    )
    priority = "" if decision.action == "auto_reply" else str(decision.priority)
    return ReplyPath(False, decision.action, priority, result)


# --- the issue #10 measures ------------------------------------------------------------


def variety(case: Case) -> str:
    """How the reply is written: RO with comma-below ș/ț, with cedilla ş/ţ, with only ă/â/î,
    without diacritics; English; mixed RO/EN (labelled)."""
    if MIXED in case.tags:
        return "mixed"
    if case.language == "en":
        return "en"
    if any(ch in case.text for ch in "şţŞŢ"):
        return "ro-cedilla"
    if any(ch in case.text for ch in "șțȘȚ"):
        return "ro-comma"
    if any(ch in case.text for ch in "ăâîĂÂÎ"):
        return "ro-aai"
    return "ro-plain"


def is_negative(case: Case) -> bool:
    return (
        case.band == "negative"
        or case.intent in NEGATIVE_INTENTS
        or case.wants_out
        or case.complains
    )


def macro_f1(pairs: list[tuple[str, str]]) -> float:
    """Macro-averaged F1 over the intents that occur in the labels or the predictions."""
    labels = [i for i in INTENTS if any(i in pair for pair in pairs)]
    scores = []
    for intent in labels:
        tp = sum(t == intent and p == intent for t, p in pairs)
        fp = sum(t != intent and p == intent for t, p in pairs)
        fn = sum(t == intent and p != intent for t, p in pairs)
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(scores) / len(scores) if scores else 0.0


@dataclass(frozen=True)
class Ratio:
    hit: int
    total: int

    def __str__(self) -> str:
        if not self.total:
            return "n/a"
        return f"{self.hit}/{self.total} {self.hit / self.total:6.1%}"


def measure(cases: tuple[Case, ...], backend: OfflineTriage) -> dict[str, object]:
    tenant = permissive_tenant()
    rows = [
        (case, backend.analyse(case.text, today=TODAY), product_path(case.text, backend, tenant))
        for case in cases
    ]
    labelled_out = [(c, p) for c, _, p in rows if c.wants_out]
    said_out = [(c, p) for c, _, p in rows if p.opted_out]
    complaints = [(c, p) for c, _, p in rows if c.complains]
    complaint_stops = [(c, p) for c, p in complaints if c.wants_out]
    negatives = [(c, p) for c, _, p in rows if is_negative(c)]
    sarcasm = [(c, p) for c, _, p in rows if SARCASM in c.tags]
    times = [(c, p) for c, _, p in rows if TIME in c.tags]
    handled = (Priority.URGENT, Priority.HIGH)
    paths = Counter(
        p.action if not p.priority or p.action == "approval" else f"{p.action} {p.priority}"
        for _, p in complaints
    )
    return {
        "n": len(rows),
        "intent": Ratio(sum(r.intent == c.intent for c, r, _ in rows), len(rows)),
        "macro_f1": macro_f1([(c.intent, r.intent) for c, r, _ in rows]),
        "band": Ratio(sum(band(r.sentiment) == c.band for c, r, _ in rows), len(rows)),
        "language": Ratio(sum(r.language == c.language for c, r, _ in rows), len(rows)),
        "optout_recall": Ratio(sum(p.opted_out for _, p in labelled_out), len(labelled_out)),
        "optout_precision": Ratio(sum(c.wants_out for c, _ in said_out), len(said_out)),
        "complaint_recall": Ratio(
            sum(p.action in ("review", "opt_out") and p.priority in handled for _, p in complaints),
            len(complaints),
        ),
        "complaint_stop": Ratio(
            sum(p.opted_out and p.priority == Priority.URGENT for _, p in complaint_stops),
            len(complaint_stops),
        ),
        "complaint_paths": paths,
        "negative_auto": Ratio(sum(p.action == "auto_reply" for _, p in negatives), len(negatives)),
        "sarcasm_auto": Ratio(sum(p.action == "auto_reply" for _, p in sarcasm), len(sarcasm)),
        "time_high": Ratio(
            sum(p.action == "review" and p.priority == Priority.URGENT for _, p in times),
            len(times),
        ),
        "rows": rows,
    }


MEASURES = (
    ("intent accuracy", "intent"),
    ("macro-F1 over intents", "macro_f1"),
    ("sentiment band accuracy", "band"),
    ("language accuracy", "language"),
    ("opt-out recall", "optout_recall"),
    ("opt-out precision", "optout_precision"),
    ("complaint recall (review URGENT/HIGH)", "complaint_recall"),
    ("complaint+stop: opted out AND URGENT", "complaint_stop"),
    ("negatives on the auto-reply path", "negative_auto"),
    ("sarcasm on the auto-reply path", "sarcasm_auto"),
    ("concrete meeting time → review URGENT", "time_high"),
)


def cell(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def breakdown(sets: dict[str, dict[str, object]]) -> list[tuple[str, list[str]]]:
    """Per set and per way of writing: cases, intent accuracy, opt-out recall."""
    lines = []
    for name, row in sets.items():
        for kind in VARIETIES:
            picked = [(c, r, p) for c, r, p in row["rows"] if variety(c) == kind]
            outs = [p for c, _, p in picked if c.wants_out]
            lines.append(
                (
                    f"{name} / {kind}",
                    [
                        str(len(picked)),
                        str(Ratio(sum(r.intent == c.intent for c, r, _ in picked), len(picked))),
                        str(Ratio(sum(p.opted_out for p in outs), len(outs))),
                    ],
                )
            )
    return lines


def print_measures(sets: dict[str, dict[str, object]], *, markdown: bool) -> None:
    names = list(sets)
    header = [f"{name} ({sets[name]['n']})" for name in names]
    if markdown:
        print("| measure | " + " | ".join(header) + " |")
        print("|---|" + "---:|" * len(names))
        for label, key in MEASURES:
            print(f"| {label} | " + " | ".join(cell(sets[n][key]) for n in names) + " |")
        print("\nComplaints, where they go today:\n")
        print("| set | " + " | ".join(["path", "count"]) + " |\n|---|---|---:|")
        for name in names:
            for path, count in sorted(sets[name]["complaint_paths"].items()):
                print(f"| {name} | {path} | {count} |")
        print("\nBy way of writing:\n")
        print("| set / writing | cases | intent accuracy | opt-out recall |\n|---|---:|---:|---:|")
        for label, values in breakdown(sets):
            print(f"| {label} | " + " | ".join(values) + " |")
        return
    print("\nissue #10 measures (product path; tenant with auto-replies on for every intent):")
    print(f"  {'':<40}" + "".join(f"{h:>20}" for h in header))
    for label, key in MEASURES:
        print(f"  {label:<40}" + "".join(f"{cell(sets[n][key]):>20}" for n in names))
    print("\ncomplaints, where they go today:")
    for name in names:
        paths = ", ".join(f"{p} {c}" for p, c in sorted(sets[name]["complaint_paths"].items()))
        print(f"  {name:<10}{paths}")
    print(f"\n  {'by way of writing':<24}{'cases':>6}{'intent':>16}{'opt-out recall':>18}")
    for label, values in breakdown(sets):
        print(f"  {label:<24}{values[0]:>6}{values[1]:>16}{values[2]:>18}")


def print_intent_recall(title: str, results: list[tuple[Case, TriageResult]]) -> None:
    totals: Counter[str] = Counter(case.intent for case, _ in results)
    hits: Counter[str] = Counter(c.intent for c, r in results if r.intent == c.intent)
    print(f"\n{title}")
    for intent, total in sorted(totals.items()):
        print(f"  {intent:<16}{hits[intent]:>3}/{total:<3} {hits[intent] / total:>6.1%}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("all", *SPLITS), default="all")
    parser.add_argument("--repeat", type=int, default=20, help="passes for the speed figure")
    parser.add_argument(
        "--markdown", action="store_true", help="print only the issue #10 tables, as markdown"
    )
    parser.add_argument(
        "--rules-only", action="store_true", help="the rules alone, without the intent model"
    )
    args = parser.parse_args()
    chosen = SPLITS if args.split == "all" else {args.split: SPLITS[args.split]}
    backend = OfflineTriage(intent_model=None) if args.rules_only else OfflineTriage()
    everything: tuple[Case, ...] = ()
    for cases in chosen.values():
        everything += cases
    old_name = "old" if args.split == "all" else f"old/{args.split}"
    sets = {old_name: measure(everything, backend), "held-out": measure(HELD_OUT, backend)}
    if args.markdown:
        print_measures(sets, markdown=True)
        return 0

    print(f"{'split':<9}{'cases':>6}{'intent':>9}{'band':>9}{'language':>10}")
    for name, cases in chosen.items():
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
    print_intent_recall("recall by intent:", results)

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

    print_measures(sets, markdown=False)
    held_out = [(c, r) for c, r, _ in sets["held-out"]["rows"]]
    print_intent_recall("held-out recall by intent (misses deliberately not listed):", held_out)

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
