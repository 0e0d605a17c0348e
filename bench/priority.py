"""How the product ranks replies (issue 19 §2, docs/review-queue.md), on the labelled sets:
the old set (tests/hitl/triage_cases.py), the development replies (tests/hitl/triage_dev.py
and tests/hitl/priority_dev.py) and the held-out set (tests/hitl/triage_heldout.py).

    .venv/bin/python bench/priority.py

The expected priority is read from the labels as the table says (a complaint or a
legal threat URGENT; interest and meetings URGENT; prices and questions HIGH; declines and
wrong people LOW; the rest MEDIUM; opt-outs and out-of-office replies get no item), the
product's from the whole path (the opt-out vocabulary, the offline triage,
hitl.routing.route for a tenant whose auto-replies are off). Labels do not mark deferrals
("maybe in autumn", MEDIUM by design) nor trigger keywords (at least HIGH), so "exact" is
a floor. Only aggregate figures are printed: the held-out set is never tuned on.
"""

from __future__ import annotations

import os
import sys
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DEBUG", "true")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cerniq.settings")

import django  # noqa: E402

django.setup()

from cerniq.models import Tenant  # noqa: E402
from hitl.routing import RANK, route  # noqa: E402
from hitl.triage import OfflineTriage  # noqa: E402
from outreach import optout  # noqa: E402
from tests.hitl import priority_dev, triage_dev  # noqa: E402
from tests.hitl.triage_cases import CASES, Case  # noqa: E402
from tests.hitl.triage_heldout import HELD_OUT  # noqa: E402

TODAY = date(2024, 12, 10)
VALUE = {
    "interested": "URGENT",
    "meeting_request": "URGENT",
    "price_request": "HIGH",
    "question": "HIGH",
    "not_interested": "LOW",
    "wrong_person": "LOW",
}


def expected(case: Case) -> str:
    if case.wants_out:
        return "OPT_OUT"
    if case.intent == "out_of_office":
        return "NONE"
    if case.complains:
        return "URGENT"
    return VALUE.get(case.intent, "MEDIUM")


def product(text: str, backend: OfflineTriage, tenant: Tenant) -> str:
    result = backend.analyse(text, today=TODAY)
    if optout.is_opt_out(text) or result.intent == "unsubscribe":
        return "OPT_OUT"
    if result.intent == "out_of_office":
        return "NONE"
    decision = route(
        tenant,
        sentiment=result.sentiment,
        intent=result.intent,
        keywords=tuple(result.keywords),
        signals=tuple(result.signals),
        confidence=result.confidence,
    )
    return str(decision.priority)


def ratio(rows, chosen, ok) -> str:
    picked = [row for row in rows if chosen(row)]
    if not picked:
        return "n/a"
    hits = sum(1 for row in picked if ok(row))
    return f"{hits}/{len(picked)} {hits / len(picked):6.1%}"


def report(name: str, rows: list[tuple[str, str, str, bool]]) -> None:
    """rows: (expected, product, labelled intent, labelled complaint)."""
    ranked = [row for row in rows if row[0] in RANK]
    print(f"\n{name} ({len(rows)} replies, {len(ranked)} that open a review item)")
    measures = (
        ("exact priority", lambda r: r[0] in RANK, lambda r: r[1] == r[0]),
        (
            "interest / meeting → URGENT",
            lambda r: r[2] in ("interested", "meeting_request") and r[0] == "URGENT",
            lambda r: r[1] == "URGENT",
        ),
        (
            "price / question → HIGH or above",
            lambda r: r[2] in ("price_request", "question") and r[0] == "HIGH",
            lambda r: r[1] in ("HIGH", "URGENT"),
        ),
        ("complaint → URGENT", lambda r: r[3] and r[0] == "URGENT", lambda r: r[1] == "URGENT"),
        (
            "plain decline → LOW",
            lambda r: r[2] == "not_interested" and r[0] == "LOW",
            lambda r: r[1] == "LOW",
        ),
        (
            "plain decline → URGENT (the bug)",
            lambda r: r[2] == "not_interested" and r[0] == "LOW",
            lambda r: r[1] == "URGENT",
        ),
    )
    for label, chosen, ok in measures:
        print(f"  {label:<36}{ratio(rows, chosen, ok):>16}")


def main() -> int:
    backend = OfflineTriage()
    tenant = Tenant(name="bench", ai_auto_reply_enabled=False)
    labelled = {"old": CASES, "development": triage_dev.CASES, "held-out": HELD_OUT}
    for name, cases in labelled.items():
        rows = [
            (expected(c), product(c.text, backend, tenant), c.intent, c.complains) for c in cases
        ]
        report(name, rows)
    dev = [(c.outcome, product(c.text, backend, tenant)) for c in priority_dev.CASES]
    hits = sum(want == got for want, got in dev)
    print(f"\npriority_dev.py (issue 19 wordings): {hits}/{len(dev)} as labelled")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
