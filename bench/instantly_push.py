"""Benchmark the cold-email push: 10,000 due leads handed to Instantly by the real workers.

    .venv/bin/python bench/instantly_push.py [--leads 10000] [--processes 1] [--threads 2]
        [--redis-url redis://127.0.0.1:6379/5] [--in-process] [--one-transaction]
        [--database-url postgres://…/any_name] [--smoke] [--strict]

Uses its own PostgreSQL database (created if missing, migrated, and the `bench-instantly`
tenant recreated at the start; any name, bench/harness.py; production settings) and its own
Redis database and Dramatiq namespace (`cerniq-bench-instantly`, emptied at the start).
Builds a tenant with a one-step cold-email sequence and `--leads` enrolled leads with valid
addresses and queues their first email with `dispatch_due` (in this process, its planned
pushes dropped), then enqueues ONE `outreach.tasks.push_cold_email` for the tenant and
starts the workers `manage.py rundramatiq` starts (`--processes` x `--threads`, production
settings) plus bench/push_stamps.py, which times each push run in the worker and counts the
SQL statements it runs. The workers use the real `InstantlyEmail` backend and
`InstantlyClient` pointed at a local fake Instantly HTTP server (threaded `http.server`:
campaigns, activate, leads/add with the documented answer and `skip_if_in_workspace`,
leads/list). A second push is enqueued once the first ended: it must hand nothing over.

`--in-process` runs the push in this process instead (no Redis, no workers) and adds where
the time and the statements go, the push's functions timed by wrapping them;
`--one-transaction` (with it) runs the whole push in one transaction.

Reports leads/s (from the push run's start to its end, in the worker), HTTP calls per 1,000
leads and SQL statements per lead, and checks that every lead was pushed exactly once (the
fake counts each address it receives), that every message is SENT with its Instantly lead
id, and that the second push handed nothing over. Exits 1 only on errors (a lead not
pushed, pushed twice, a message not SENT, a worker error), never on a slow figure.

Ceiling, in the same run: the least a push of these leads can do: their addresses posted to
a second fake's leads/add in batches of 1,000 and one UPDATE marking their messages SENT
(rolled back). Goals: >= 500 leads/s and <= 0.5 SQL statements per lead (judged), with the
push's time over the ceiling's beside them.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import harness  # noqa: E402
from bench.dispatch import shape  # noqa: E402

GOAL_RATE = 500  # leads/s handed to Instantly
GOAL_STATEMENTS = 0.5  # SQL statements per lead
TENANT_SLUG = "bench-instantly"
NAMESPACE = "cerniq-bench-instantly"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/5"
PUSH_DEADLINE = 1800  # seconds a push may take before the bench gives up on it
ROOT = Path(__file__).resolve().parent.parent
# A Monday, 10:00 in Bucharest: the window is open.
NOW = datetime(2025, 3, 3, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
SUBJECT = "Ofertă pentru {{company_name}}"
BODY = (
    "{Bună ziua|Salut}, {{contact_name|stimate client}}! {Suntem|Lucrăm la} Cerniq și "
    "{ajutăm|sprijinim} ferme ca {{company_name}} din {{county}}. {Vă interesează?|Vorbim?}"
)


# --- the fake Instantly ------------------------------------------------------------------


class FakeInstantly:
    """Instantly's workspace as far as the push sees it: campaigns and leads in memory."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.received: Counter[str] = Counter()  # every address sent to leads/add
        self.leads: dict[str, dict] = {}  # address -> the lead (workspace-wide)
        self.campaigns: dict[str, dict] = {}

    def answer(self, method: str, path: str, body: dict) -> tuple[int, dict]:
        with self.lock:
            self.calls[f"{method} {_shape(path)}"] += 1
            if method == "POST" and path == "/api/v2/campaigns":
                campaign = {"id": str(uuid.uuid4()), "name": body["name"], "status": 0}
                self.campaigns[campaign["id"]] = campaign
                return 200, campaign
            if method == "POST" and path.endswith("/activate"):
                campaign = self.campaigns[path.split("/")[4]]
                campaign["status"] = 1
                return 200, campaign
            if method == "GET" and path == "/api/v2/campaigns":
                return 200, {"items": [], "next_starting_after": None}
            if method == "POST" and path == "/api/v2/leads/add":
                return 200, self.add(body)
            if method == "POST" and path == "/api/v2/leads/list":
                wanted = set(body.get("contacts") or [])
                items = [
                    lead
                    for email, lead in self.leads.items()
                    if email in wanted and body.get("campaign") in (None, lead["campaign"])
                ]
                return 200, {"items": items, "next_starting_after": None}
        return 404, {"statusCode": 404, "error": "Not Found", "message": path}

    def add(self, body: dict) -> dict:
        created, skipped = [], 0
        for index, lead in enumerate(body["leads"]):
            email = lead["email"].lower()
            self.received[email] += 1
            if email in self.leads:  # skip_if_in_workspace
                skipped += 1
                continue
            row = {
                "id": str(uuid.uuid4()),
                "email": email,
                "campaign": body["campaign_id"],
                "payload": lead.get("custom_variables") or {},
            }
            self.leads[email] = row
            created.append({"index": index, "id": row["id"], "email": email})
        return {
            "status": "success",
            "total_sent": len(body["leads"]),
            "leads_uploaded": len(created),
            "in_blocklist": 0,
            "blocklist_used": None,
            "duplicated_leads": 0,
            "skipped_count": skipped,
            "invalid_email_count": 0,
            "incomplete_count": 0,
            "duplicate_email_count": 0,
            "remaining_in_plan": None,
            "created_leads": created,
        }


def _shape(path: str) -> str:
    parts = path.split("/")
    return "/".join("{id}" if len(p) == 36 and p.count("-") == 4 else p for p in parts)


def serve(fake: FakeInstantly) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _reply(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(size) or b"{}") if size else {}
            status, answer = fake.answer(self.command, urlsplit(self.path).path, body)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _reply

        def log_message(self, *args) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# --- the world ------------------------------------------------------------------------------


def build_world(leads: int):
    from bench.dispatch import fake_lead
    from cerniq.models import Tenant
    from email_channels.models import EmailCampaign
    from outreach import companies
    from outreach.models import Channel, Journey, Lead, Sequence, SequenceStep, Template
    from outreach.sequences import enroll_many

    SequenceStep.objects.filter(tenant__slug=TENANT_SLUG).delete()  # PROTECTs the template
    Tenant.objects.filter(slug=TENANT_SLUG).delete()
    tenant = Tenant.objects.create(name="Bench Instantly", slug=TENANT_SLUG)
    sequence = Sequence.objects.create(tenant=tenant, name="Ferme cold")
    template = Template.objects.create(tenant=tenant, name="Cold 1", channel=Channel.EMAIL_COLD)
    template.versions.create(tenant=tenant, version=1, subject=SUBJECT, body=BODY)
    sequence.steps.create(
        tenant=tenant, position=1, channel=Channel.EMAIL_COLD, delay_value=0, template=template
    )
    rng = random.Random(11)
    rows = []
    for i in range(1, leads + 1):
        lead = fake_lead(Lead, tenant, rng, i)
        lead.email, lead.email_status = f"office{i}@ferma{i}.ro", Lead.EmailStatus.VALID
        rows.append(lead)
    companies.companies_for_new_leads(tenant, rows)
    Lead.objects.bulk_create(rows, batch_size=2000)
    Journey.objects.bulk_create([Journey(tenant=tenant, lead=r) for r in rows], batch_size=2000)
    assert enroll_many(rows, sequence, at=NOW).enrolled == leads
    # The campaign row (its hourly limit lets the whole run through in one push); no
    # Instantly id yet: the push creates and activates the campaign at the fake.
    EmailCampaign.objects.create(
        tenant=tenant,
        provider="instantly",
        sequence=sequence,
        name="Bench Instantly · Ferme cold",
        status=EmailCampaign.Status.DRAFT,
        hourly_limit=leads,
    )
    return tenant


# --- timing the push's phases (--in-process) -------------------------------------------------


class Phases:
    """Seconds and SQL statements per phase of the push (the innermost wrapped call counts)."""

    REST = "push_due (the rest)"

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.queries: Counter[str] = Counter()
        self.stack: list[str] = [self.REST]
        self.shapes: dict[str, Counter[str]] = defaultdict(Counter)

    def wrap(self, name: str, function):
        def timed(*args, **kwargs):
            self.stack.append(name)
            started = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[name] += time.perf_counter() - started
                self.stack.pop()
                if self.stack[-1] != self.REST:  # keep exclusive time
                    self.seconds[self.stack[-1]] -= time.perf_counter() - started

        return timed

    def count(self, execute, sql, params, many, context):
        self.queries[self.stack[-1]] += 1
        self.shapes[self.stack[-1]][shape(sql)] += 1
        return execute(sql, params, many, context)


# The push's functions timed when the module has them (the push is rewritten over time).
PHASES = {
    "outreach.pushing": (
        "due_cold_messages", "why_not_send", "wanted", "hourly_room", "_claim", "claim",
        "reconcile", "record_sent", "record_sent_many", "record_failure", "record_failures",
        "cancel_message", "cancel_messages",
    ),
    "integrations.instantly.backend.InstantlyEmail": ("send_many",),
}  # fmt: skip


@contextmanager
def phases_of_push(phases: Phases):
    from django.utils.module_loading import import_string

    saved = []
    for path, attrs in PHASES.items():
        owner = import_string(path)
        for attr in attrs:
            original = getattr(owner, attr, None)
            if original is None:
                continue
            saved.append((owner, attr, original))
            label = "send_many (HTTP + campaign)" if attr == "send_many" else attr
            setattr(owner, attr, phases.wrap(label, original))
    try:
        yield
    finally:
        for owner, attr, original in saved:
            setattr(owner, attr, original)


# --- the run ---------------------------------------------------------------------------------


@dataclass
class Push:
    """One push as measured: seconds, SQL statements, what it handed over."""

    seconds: float
    queries: int
    outcome: str
    phases: Phases | None = None


def queue_cold_email(args: argparse.Namespace):
    from outreach import delivery, dispatch
    from outreach.dispatch import dispatch_due
    from outreach.models import Channel, Message

    # Dispatch plans pushes; the bench enqueues the one it measures itself.
    saved = delivery.plan_push, dispatch.plan_push
    delivery.plan_push = dispatch.plan_push = lambda tenant_id, at=None: None
    try:
        print(f"building {args.leads} leads …", flush=True)
        tenant = build_world(args.leads)
        while sum(dispatch_due(tenant, batch_size=1000, now=NOW).dispatched.values()):
            pass
    finally:
        delivery.plan_push, dispatch.plan_push = saved
    cold = Message.objects.filter(tenant=tenant, channel=Channel.EMAIL_COLD)
    return tenant, cold


def in_process(args: argparse.Namespace, tenant) -> tuple[Push, Push]:
    from django.db import connection, transaction

    from outreach.pushing import push_due

    phases = Phases()
    # --one-transaction: the whole push in one transaction.
    scope = transaction.atomic() if args.one_transaction else nullcontext()
    with phases_of_push(phases), connection.execute_wrapper(phases.count):
        started = time.perf_counter()
        with scope:
            outcome = push_due(tenant.pk)
        seconds = time.perf_counter() - started
    first = Push(seconds, sum(phases.queries.values()), str(outcome), phases)
    started = time.perf_counter()
    again = push_due(tenant.pk)
    return first, Push(time.perf_counter() - started, 0, str(again))


def empty_broker(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    for key in client.scan_iter(f"{NAMESPACE}*"):
        client.delete(key)


def wait_for_run(stamps: Path, n: int, workers: subprocess.Popen, logs: Path) -> dict:
    """The n-th push run's stamp, once the worker wrote it."""
    deadline = time.monotonic() + PUSH_DEADLINE
    while time.monotonic() < deadline:
        lines = stamps.read_text().splitlines() if stamps.exists() else []
        if len(lines) >= n:
            return json.loads(lines[n - 1])
        if workers.poll() is not None:
            raise harness.BenchError(f"the workers exited ({workers.returncode}); see {logs}")
        time.sleep(0.2)
    raise harness.BenchError(f"push {n} did not end within {PUSH_DEADLINE} s; see {logs}")


def through_workers(args: argparse.Namespace, tenant) -> tuple[Push, Push, list[str]]:
    from bench.send_pipeline import worker_command
    from outreach.tasks import push_cold_email

    empty_broker(args.redis_url)
    logs = Path(tempfile.mkdtemp(prefix="bench-instantly-"))
    stamps = logs / "pushes.jsonl"
    env = dict(os.environ, BENCH_PUSH_STAMPS=str(stamps))
    command = worker_command(args, shutdown_ms=30_000, extra_modules=("bench.push_stamps",))
    push_cold_email.send(tenant.pk)
    print(f"workers {args.processes} x {args.threads}; logs in {logs}", flush=True)
    with (logs / "workers.log").open("wb") as log:
        workers = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        try:
            first = wait_for_run(stamps, 1, workers, logs)
            push_cold_email.send(tenant.pk)  # a duplicate: hands nothing over
            second = wait_for_run(stamps, 2, workers, logs)
        finally:
            workers.send_signal(signal.SIGTERM)
            try:
                workers.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(workers.pid, signal.SIGKILL)
    errors = harness.error_lines((logs / "workers.log").read_text(errors="replace"))
    errors += [
        f"push run {n} raised; see {logs}" for n, r in ((1, first), (2, second)) if r["failed"]
    ]
    return (
        Push(first["ended"] - first["started"], first["queries"], f"cpu {first['cpu']:.2f} s"),
        Push(second["ended"] - second["started"], second["queries"], ""),
        errors[:10],
    )


def run(args: argparse.Namespace) -> int:
    from outreach.models import Message

    tenant, cold = queue_cold_email(args)
    queued = cold.filter(status=Message.Status.QUEUED).count()
    print(f"queued {queued} cold emails; {harness.load_note()}; pushing …", flush=True)
    floor = ceiling(cold, queued)
    if args.in_process:
        first, again = in_process(args, tenant)
        errors: list[str] = []
    else:
        first, again, errors = through_workers(args, tenant)
    errors += check(args, FAKE, cold, queued)
    report(args, first, again, queued)
    for error in errors:
        print(f"ERROR: {error}")
    if errors:
        return 1
    seconds = first.seconds
    statements = first.queries / queued
    harness.judge(
        "instantly_push",
        f">= {GOAL_RATE} leads/s handed to Instantly",
        queued / seconds >= GOAL_RATE,
        f"{queued / seconds:,.0f} leads/s; {seconds / floor:.1f}x the ceiling's time "
        f"({queued / floor:,.0f} leads/s)",
        smoke=args.smoke,
    )
    harness.judge(
        "instantly_push",
        f"<= {GOAL_STATEMENTS} SQL statements per lead",
        statements <= GOAL_STATEMENTS,
        f"{statements:.2f} per lead",
        smoke=args.smoke,
    )
    return harness.exit_status(args)


def ceiling(cold, queued: int) -> float:
    """Seconds for the least a push can do: the addresses to a fake's leads/add in batches
    of 1,000, one UPDATE marking the messages SENT (rolled back)."""
    import requests
    from django.db import transaction

    from outreach.models import Message

    emails = list(cold.values_list("counterpart", flat=True))
    fake = FakeInstantly()
    server = serve(fake)
    url = f"http://127.0.0.1:{server.server_port}/api/v2/leads/add"
    try:
        with requests.Session() as session:
            started = time.perf_counter()
            for at in range(0, len(emails), 1000):
                leads = [{"email": email} for email in emails[at : at + 1000]]
                session.post(url, json={"campaign_id": "ceiling", "leads": leads}, timeout=60)
            with transaction.atomic():
                cold.update(status=Message.Status.SENT)
                transaction.set_rollback(True)
            seconds = time.perf_counter() - started
    finally:
        server.shutdown()
    print(f"ceiling: {queued} leads handed over in {seconds:.2f} s ({queued / seconds:,.0f}/s)")
    return seconds


def check(args, fake: FakeInstantly, cold, queued: int) -> list[str]:
    from outreach.models import Message

    errors = []
    if queued != args.leads:
        errors.append(f"{queued} messages queued for {args.leads} leads")
    twice = [email for email, n in fake.received.items() if n > 1]
    if twice:
        errors.append(f"{len(twice)} addresses pushed more than once, e.g. {twice[:3]}")
    if len(fake.leads) != args.leads:
        errors.append(f"the fake holds {len(fake.leads)} leads, not {args.leads}")
    sent = dict(
        cold.filter(status=Message.Status.SENT).values_list("counterpart", "provider_message_id")
    )
    if len(sent) != args.leads:
        errors.append(f"{len(sent)} messages SENT of {args.leads}")
    wrong = [e for e, pid in sent.items() if fake.leads.get(e, {}).get("id") != pid]
    if wrong:
        errors.append(f"{len(wrong)} SENT rows without their Instantly lead id")
    if fake.calls["POST /api/v2/leads/add"] > -(-args.leads // 1000):
        errors.append(f"{fake.calls['POST /api/v2/leads/add']} leads/add calls: a push repeated")
    if fake.calls["POST /api/v2/campaigns"] != 1:
        errors.append(f"{fake.calls['POST /api/v2/campaigns']} campaigns created, not 1")
    return errors


def report(args, first: Push, again: Push, queued: int) -> None:
    total_calls = sum(FAKE.calls.values())
    print()
    mode = "in this process" if args.in_process else f"workers {args.processes}x{args.threads}"
    mode += ", one transaction" if args.one_transaction else ""
    print(f"| push of {queued} due cold emails ({mode}) | value |")
    print("| --- | --- |")
    print(f"| wall time | {first.seconds:.2f} s {first.outcome} |")
    print(f"| leads/s | {queued / first.seconds:,.0f} |")
    print(f"| HTTP calls | {total_calls} ({1000 * total_calls / queued:.1f} per 1,000 leads) |")
    for name, n in sorted(FAKE.calls.items()):
        print(f"| &nbsp; {name} | {n} |")
    print(f"| SQL statements | {first.queries} ({first.queries / queued:.2f} per lead) |")
    print(f"| second push | {again.seconds:.2f} s, {again.queries} statements {again.outcome} |")
    if first.phases is None:
        return
    phases = first.phases
    print()
    print("| phase | seconds | share | SQL statements | per lead |")
    print("| --- | --- | --- | --- | --- |")
    measured = dict(phases.seconds)
    measured[Phases.REST] = first.seconds - sum(v for k, v in measured.items() if k != Phases.REST)
    for name, value in sorted(measured.items(), key=lambda kv: -kv[1]):
        n = phases.queries.get(name, 0)
        share = 100 * value / first.seconds
        print(f"| {name} | {value:.2f} | {share:.0f} % | {n} | {n / queued:.2f} |")
    for name, shapes in phases.shapes.items():
        print(f"\nstatements of {name}, per lead:")
        for sql, n in shapes.most_common(12):
            print(f"  {n / queued:6.3f}  {sql[:150]}")


FAKE = FakeInstantly()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leads", type=int, default=10_000)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument(
        "--in-process", action="store_true", help="push in this process, with a phase table"
    )
    parser.add_argument(
        "--one-transaction", action="store_true", help="with --in-process: in one transaction"
    )
    harness.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.leads = 50
    server = serve(FAKE)
    os.environ.update(
        INSTANTLY_BACKEND="integrations.instantly.backend.InstantlyEmail",
        INSTANTLY_API_KEY="bench-key",
        INSTANTLY_BASE_URL=f"http://127.0.0.1:{server.server_port}",
        INSTANTLY_SENDERS="vanzari@cerniq-mail.ro",
        NO_PROXY="127.0.0.1,localhost",
        PYTHONUNBUFFERED="1",
        LOG_LEVEL="INFO",
    )
    if args.in_process:
        os.environ.pop("REDIS_URL", None)  # the stub broker and rate limiter
    else:
        os.environ.update(REDIS_URL=args.redis_url, DRAMATIQ_NAMESPACE=NAMESPACE)
    from bench.import_leads import configure

    configure("instantly", args)
    logging.disable(logging.INFO)  # the client logs every call; this process prints a table
    try:
        return run(args)
    except harness.BenchError as error:
        print(f"ERROR: {error}")
        return 1
    finally:
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
