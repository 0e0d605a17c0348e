"""Benchmark dispatch: queue the first WhatsApp step for 10,000 enrolled leads.

    .venv/bin/python bench/dispatch.py [--leads 10000] [--batch-size 500] [--smoke]
        [--strict] [--database-url postgres://…/any_name] [--redis-url redis://…/6]

Uses a database of its own (bench/harness.py: created if missing, migrated), production
settings (DEBUG off) and a real Redis broker (database 6 by default, namespace
`cerniq-bench-dispatch`, emptied before and after), as production runs. Recreates a
`bench-dispatch` tenant with 20 phones, a 2-step WhatsApp sequence and `--leads` enrolled
leads, then times a dry run and `dispatch_due` batches until nothing is due, with the SQL
query count of every batch. Twice: a plain world (a company per lead), then one with two
contacts per company and step 1 conditioned, a third of the leads having replied (their
step skipped, the enrollment moved past it).

Ceiling, in the same run: Dramatiq's own enqueue rate on the same broker (`--leads`
messages of an actor that does nothing, bench/ceiling_actors.py, sent one by one).
Goals: dispatch's leads/s at least 50 % of that rate, and the same number of queries in
every full batch after the day's first (which also creates the day's quota rows): a
constant per batch, whatever its leads.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.import_leads import COUNTIES, FIRST_NAMES, LAST_NAMES, PLACES, configure  # noqa: E402

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/6"
NAMESPACE = "cerniq-bench-dispatch"
GOAL_SHARE = 0.5  # of Dramatiq's enqueue rate on the same broker
TENANT_SLUG = "bench-dispatch"
PHONES = 20
# A Monday, 10:00 in Bucharest: the window is open, and the quota day is this day.
NOW = datetime(2025, 3, 3, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
BODIES = (
    "{Bună ziua|Salut|Bună}, {{contact_name|stimate client}}! {Suntem|Lucrăm la} Cerniq "
    "și {ajutăm|sprijinim} ferme ca {{company_name}} din {{county}}. {Vă interesează?|Vorbim?}",
    "{Revin|Vă scriu din nou} {cu privire la|despre} oferta pentru {{company_name}}. "
    "{Aveți 5 minute săptămâna aceasta?|Putem vorbi mâine?}",
)


# The second world: two contacts per company, step 1 with conditions, a third of the leads
# already replied (their step is skipped: the enrollment moves on, the skip is recorded).
SHAPES = ("plain", "contacts+conditions")
CONDITIONS = {"all": [{"kind": "no_reply"}, {"kind": "stage_not", "stages": ["DEAD"]}]}
REPLIED_EVERY = 3


def build_world(leads: int, shape: str = "plain") -> object:
    """A fresh tenant: phones, a 2-step WhatsApp sequence and `leads` enrolled leads (with
    `shape` "contacts+conditions": two contacts per company, step 1 conditioned, every
    third lead already replied)."""
    from cerniq.models import Tenant
    from outreach import companies
    from outreach.models import Channel, Journey, Lead, Sequence, SequenceStep, Template
    from outreach.sequences import enroll_many
    from whatsapp.models import Phone

    # Steps first: SequenceStep.template is PROTECT, so the tenant's cascade alone fails.
    SequenceStep.objects.filter(tenant__slug=TENANT_SLUG).delete()
    Tenant.objects.filter(slug=TENANT_SLUG).delete()
    tenant = Tenant.objects.create(name="Bench dispatch", slug=TENANT_SLUG)
    Phone.objects.bulk_create(
        Phone(
            tenant=tenant,
            number=f"+40740000{i:03d}",
            label=f"Telefon {i:02d}",
            daily_limit=1000,
            warmup_started_at=None,  # established numbers: no warm-up ramp
        )
        for i in range(1, PHONES + 1)
    )  # status defaults to ACTIVE
    sequence = Sequence.objects.create(tenant=tenant, name="Bench WA")
    for position, body in enumerate(BODIES, start=1):
        template = Template.objects.create(
            tenant=tenant, name=f"Pas {position}", channel=Channel.WHATSAPP
        )
        template.versions.create(tenant=tenant, version=1, body=body)
        sequence.steps.create(
            tenant=tenant,
            position=position,
            channel=Channel.WHATSAPP,
            delay_value=0 if position == 1 else 2,
            delay_unit="WORKING_DAYS",
            template=template,
        )
    rng = random.Random(7)
    rows = [fake_lead(Lead, tenant, rng, i) for i in range(1, leads + 1)]
    conditioned = shape == "contacts+conditions"
    if conditioned:  # each firm's second contact shares the first one's company
        firms = rows[::2]
        companies.companies_for_new_leads(tenant, firms)
        for first, second in zip(rows[::2], rows[1::2], strict=False):
            for field in ("name", "cui", "county", "locality"):
                setattr(second, field, getattr(first, field))
            second.company = first.company
        sequence.steps.filter(position=1).update(conditions=CONDITIONS)
    else:
        companies.companies_for_new_leads(tenant, rows)
    Lead.objects.bulk_create(rows, batch_size=2000)
    Journey.objects.bulk_create(
        [
            Journey(
                tenant=tenant,
                lead=lead,
                last_reply_at=NOW if conditioned and i % REPLIED_EVERY == 0 else None,
            )
            for i, lead in enumerate(rows)
        ],
        batch_size=2000,
    )
    enrolled = enroll_many(rows, sequence, at=NOW)  # first step due at NOW
    assert enrolled.enrolled == leads, enrolled
    return tenant


def fake_lead(model: type, tenant: object, rng: random.Random, i: int) -> object:
    """A farm company with a unique, valid, reachable RO mobile (+4072…)."""
    county = rng.choice(tuple(COUNTIES))
    contact = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
    name = f"Agro {rng.choice(PLACES)} {i} SRL"
    return model(tenant=tenant, name=name, county=county, locality=rng.choice(COUNTIES[county]),
                 contact_name=contact, phone=f"+4072{i:07d}", phone_reachable=True)  # fmt: skip


def shape(sql: str) -> str:
    """A query without its literals, so two batches' queries can be compared."""
    sql = re.sub(r"'(?:[^']|'')*'", "?", sql)
    sql = re.sub(r'"s\d+_x\d+"', '"s…"', sql)  # savepoint names
    sql = re.sub(r"\b\d+(\.\d+)?\b", "?", sql)
    return re.sub(r"\?(, \?)+", "?…", sql)[:200]  # long IN/CASE lists differ only in length


def run(tenant: object, batch_size: int, *, dry_run: bool) -> tuple[int, float, list[int]]:
    """Call dispatch_due until nothing is eligible (one call for a dry run) and report."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from outreach.dispatch import dispatch_due

    batches: list[tuple[int, float, list[str]]] = []  # eligible, seconds, queries
    dispatched, skipped = Counter(), Counter()
    final: int | str = "n/a"  # queries of the last call, which finds nothing due
    started = time.perf_counter()
    while True:
        with CaptureQueriesContext(connection) as ctx:
            t0 = time.perf_counter()
            result = dispatch_due(tenant, batch_size=batch_size, now=NOW, dry_run=dry_run)
            seconds = time.perf_counter() - t0
        if not result.eligible:
            final = len(ctx.captured_queries)
            break
        batches.append((result.eligible, seconds, [q["sql"] for q in ctx.captured_queries]))
        dispatched.update(result.dispatched)
        skipped.update(result.skipped)
        if dry_run:
            break
    wall = time.perf_counter() - started
    total = sum(dispatched.values())
    times = [b[1] for b in batches]
    counts = [len(b[2]) for b in batches]
    full = [len(b[2]) for b in batches if b[0] == batch_size] or counts
    label = "dry run " if dry_run else "dispatch"
    print(
        f"{label}: {total:,} leads in {len(batches)} batch(es) of ≤{batch_size}, {wall:.2f} s, "
        f"{total / wall:,.0f} leads/s; batch median {statistics.median(times):.3f} s, "
        f"max {max(times):.3f} s; queries/batch min {min(counts)} max {max(counts)} "
        f"(full batches {min(full)}–{max(full)}); by batch {counts}, final empty call {final}"
    )
    by_channel = ", ".join(f"{channel} {n:,}" for channel, n in sorted(dispatched.items()))
    print(f"  dispatched: {by_channel or 'none'}; skipped: {dict(skipped) or 'none'}")
    explain_differences(batches)
    return total, wall, full


def explain_differences(batches: list[tuple[int, float, list[str]]]) -> None:
    """Print the queries by which a batch differs from the batch before it."""
    shapes = [Counter(shape(sql) for sql in queries) for _, _, queries in batches]
    for n in range(1, len(batches)):
        if shapes[n] == shapes[n - 1]:
            continue
        sizes = f"{batches[n - 1][0]} → {batches[n][0]} leads"
        print(f"  batch {n} → {n + 1} ({sizes}): queries that differ")
        for sql, count in (shapes[n - 1] - shapes[n]).items():
            print(f"    - ×{count} {sql}")
        for sql, count in (shapes[n] - shapes[n - 1]).items():
            print(f"    + ×{count} {sql}")


def expected_sends(leads: int, shape: str) -> int:
    """The leads whose step 1 goes (the others replied: their step is skipped)."""
    if shape != "contacts+conditions":
        return leads
    return leads - len(range(0, leads, REPLIED_EVERY))


def verify(tenant: object, leads: int) -> None:
    from django.db.models import Sum

    from outreach.models import Message
    from whatsapp.models import QuotaUsage

    messages = Message.objects.filter(tenant=tenant).count()
    used = QuotaUsage.objects.filter(tenant=tenant).aggregate(n=Sum("used"))["n"] or 0
    days = [str(d) for d in QuotaUsage.objects.filter(tenant=tenant).values_list("day", flat=True)]
    print(f"check: {messages:,} messages, quota used {used:,} on {set(days)}; want {leads:,}")
    assert messages == leads, f"Message count {messages} != {leads}"
    assert used == leads, f"QuotaUsage total {used} != {leads}"


def flush_namespace(redis_url: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(match=f"{NAMESPACE}:*", count=1000))
    for start in range(0, len(keys), 1000):
        client.delete(*keys[start : start + 1000])


def enqueue_ceiling(messages: int) -> float:
    """Dramatiq's enqueue rate on the configured broker: `messages` no-op messages sent one
    by one (messages/s)."""
    from bench import ceiling_actors

    started = time.perf_counter()
    for n in range(messages):
        ceiling_actors.noop.send(n)
    rate = messages / (time.perf_counter() - started)
    print(f"ceiling: Dramatiq enqueues {messages:,} no-op messages at {rate:,.0f}/s")
    return rate


def judge(shape: str, args: argparse.Namespace, rate: float, per_s: float, full: list) -> None:
    """The goals of one world: leads (sent or skipped) per second against the enqueue
    ceiling, and a constant number of queries per full batch."""
    from bench import harness

    share = per_s / rate
    harness.judge(
        "dispatch",
        f"[{shape}] dispatch >= {GOAL_SHARE:.0%} of Dramatiq's enqueue rate",
        share >= GOAL_SHARE,
        f"{per_s:,.0f} leads/s / {rate:,.0f} msgs/s = {share:.1%}",
        smoke=args.smoke,
    )
    later = full[1:] or full  # the day's first batch also creates the quota rows
    harness.judge(
        "dispatch",
        f"[{shape}] the same number of queries in every full batch (after the day's first)",
        len(set(later)) == 1,
        f"queries per full batch: first {full[0]}, then {sorted(set(later))} over "
        f"{len(later)} batch(es) of {args.batch_size} leads",
        smoke=args.smoke,
    )


def main() -> int:
    from bench import harness

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leads", type=int, default=10_000)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    harness.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.leads, args.batch_size = 60, 20
    os.environ["REDIS_URL"] = args.redis_url
    os.environ["DRAMATIQ_NAMESPACE"] = NAMESPACE
    configure("dispatch", args)

    import dramatiq
    from django.db import connection

    from outreach.hours import SendingWindow

    flush_namespace(args.redis_url)
    broker = dramatiq.get_broker()
    try:
        rate = enqueue_ceiling(args.leads)
        for shape in SHAPES:
            flush_namespace(args.redis_url)
            t0 = time.perf_counter()
            tenant = build_world(args.leads, shape)
            assert SendingWindow.for_tenant(tenant).is_open(NOW), "the window must be open"
            print(
                f"\n[{shape}] {connection.vendor}: {args.leads:,} leads, {PHONES} phones built "
                f"and enrolled in {time.perf_counter() - t0:.1f} s; now = {NOW.isoformat()}; "
                f"broker {type(broker).__name__}; {harness.load_note()}"
            )
            run(tenant, args.leads, dry_run=True)
            total, wall, full = run(tenant, args.batch_size, dry_run=False)
            verify(tenant, expected_sends(args.leads, shape))
            judge(shape, args, rate, args.leads / wall, full)
    finally:
        flush_namespace(args.redis_url)
    print(f"at the end: {harness.load_note()}")
    return harness.exit_status(args)


if __name__ == "__main__":
    sys.exit(main())
