"""Reply latency under the webhook bench's load: received → visible as being analysed →
triaged and in the review queue (the hardening issue's point 10).

    .venv/bin/python bench/reply_latency.py [--duration 20] [--rounds 3] [--rate 2]
        [--load wrk|none ...] [--connections 2] [--wrk-threads 2] [--workers 2]
        [--processes 2] [--threads 8] [--drain-timeout 600] [--quiet-cpus 0.35]
        [--quiet-wait 120] [--retries 2] [--model-seconds 0]
        [--database-url postgres://postgres@127.0.0.1:5432/cerniq_bench_replies]
        [--redis-url redis://127.0.0.1:6379/6]

What runs, as production runs it (production settings, DEBUG off): gunicorn
(`gunicorn -c gunicorn.conf.py`, 2 sync workers, bench/webhooks.py's `Gunicorn`), the
Dramatiq workers of docker-compose.yml (`manage.py rundramatiq --processes 2 --threads 8`:
every queue, `webhooks` and `ai.triage` included; bench/send_pipeline.py's `Workers`), the
offline triage (the default `ai.triage` backend), PostgreSQL and Redis. `--model-seconds S`
swaps the offline triage for bench/slow_triage.py: the same answer after S seconds, as a
remote model's (what the reply path must never wait for inside the webhook's transaction).

The load (`--load wrk`) is bench/webhooks.py's, unchanged: wrk with 2 threads and 2
connections posting the TimelinesAI `message:received:new` fixture as fast as the intake
answers, each with a message_uid of its own (a new event every time, from a sender who is
no lead: stored, processed by the workers, kept). `--load none` runs the same without it.
Meanwhile this process posts `--rate` replies a second from real leads (enrolled in a
2-step sequence, a follow-up planned), each text one of REPLIES (replies that go to the
review queue), through the same door. A watcher (another database session, as a page
would be) looks every 0.1 s for what is committed; per measured reply:

- received: `WebhookEvent.received_at`, the intake stored the delivery (its 200 answer);
- visible: the first look that finds its inbound `Message`, committed with its
  `ReplyTriage` row PENDING by the webhook's worker: from then on the review page and the
  lead's page show it as "being analysed" (a page already open polls every 2 s);
- in queue: the first look that finds its `ReviewItem`, created in the transaction that
  routes the triaged reply (checked: created after that `ReplyTriage.triaged_at`): the
  next load or poll of the review page shows it in its tab.

The box is small and may be shared: as bench/webhooks.py does, a round starts once other
processes use fewer than --quiet-cpus CPUs (waiting --quiet-wait seconds at most) and is
repeated (--retries times at most) when they used more during it (the machine's busy time
less that of gunicorn, the Dramatiq processes, the bench database's PostgreSQL backends,
redis-server, wrk and this process); a round still disturbed is marked `*`.

Prints per round and for all rounds p50/p95/max of received → visible,
visible → in queue and received → in queue, the intake's rate, how many load events were
still waiting for a worker when the load stopped, and whether the goal is met (p95 received
→ in the review queue <= 5 s), once every measured reply is in the queue and before the
next round, the backlog drained (at most `--drain-timeout` seconds each).
Uses its own PostgreSQL database (created if missing, migrated, emptied; only a name
containing "bench") and Redis database 6 with the namespace `cerniq-bench-replies` (its keys
deleted at the start, never the whole database). Exits 1 on errors (a refused or lost
reply, a reply not triaged in time, a worker or gunicorn that died), never on a missed goal.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.import_leads import configure  # noqa: E402
from bench.send_pipeline import Workers, worker_command  # noqa: E402
from bench.webhooks import (  # noqa: E402
    FIXTURE,
    LUA,
    BenchError,
    CpuMeter,
    Gunicorn,
    children,
    cpu_busy,
    proc_cpu,
)

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/cerniq_bench_replies"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/6"
NAMESPACE = "cerniq-bench-replies"
TENANT_SLUG = "bench-replies"
EVENT_TYPE = "message:received:new"
SLOW_TRIAGE = "bench.slow_triage.SlowTriage"
GOAL_P95_SECONDS = 5.0
PERCENTILE = 95
WATCH_INTERVAL = 0.1  # seconds between two looks of the watcher
# Replies a person must read (interest, a price, a question, a meeting): each opens a
# review item with the default tenant (automatic answers off).
REPLIES = (
    "Bună ziua! Da, ne interesează semințele de grâu. Ce preț aveți pentru 20 de tone?",
    "Sunt interesat, trimiteți-mi vă rog oferta completă.",
    "Cât costă îngrășământul NPK livrat la Slobozia?",
    "Aveți și livrare în județul Iași? Ce termen?",
    "Putem vorbi mâine la ora 11?",
    "Da, sunați-mă după-amiază, vă rog.",
    "Ce discount aveți la o comandă de 50 de tone?",
    "Yes, please send me the details and the price list.",
    "Lucrăm deja cu un furnizor, dar aș vrea să compar prețurile.",
    "Bună, cine sunteți și de unde aveți numărul meu de telefon?",
)


@dataclass
class Sent:
    uid: str
    lead_id: int
    posted: float  # epoch seconds, before the request
    answered: float = 0.0
    status: int = 0


@dataclass
class RoundResult:
    load: str
    number: int
    seconds: float
    sent: list[Sent]
    intake_requests: int = 0  # wrk's requests (the load), 0 without it
    intake_p99_ms: float = 0.0  # wrk's p99 latency of the load's requests
    backlog: int = 0  # load events not yet processed when the load stopped
    drained_after: float = 0.0  # seconds from the end of the load to the last reply triaged
    busy: float = 0.0
    others: float = 0.0  # CPUs other processes used during the round
    attempts: int = 1
    rows: list[dict] = field(default_factory=list)


# --- setup -------------------------------------------------------------------------------


def set_environment(args: argparse.Namespace) -> None:
    """Production-like settings for this process, the gunicorn and the workers it starts."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "bench.webhook_settings",
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(40),
            "ALLOWED_HOSTS": "127.0.0.1",
            "DATABASE_URL": args.database_url,
            "REDIS_URL": args.redis_url,
            "DRAMATIQ_NAMESPACE": NAMESPACE,
            "ALLOW_SANDBOX_PROVIDERS": "true",  # the demo phones' backend; nothing is sent
            "AI_TRIAGE_BACKEND": SLOW_TRIAGE if args.model_seconds else "hitl.triage.OfflineTriage",
            "AI_TIMEOUT": str(args.model_seconds or 20),
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
    )


def build_world(leads: int) -> tuple[str, list[tuple[int, str]]]:
    """A fresh tenant with one phone, a 2-step WhatsApp sequence and `leads` leads enrolled
    (step 1 sent, step 2 planned for tomorrow). Returns its webhook token and the leads'
    (id, phone)."""
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from bench.dispatch import fake_lead
    from cerniq.models import Tenant
    from outreach import companies
    from outreach.models import Channel, Enrollment, Journey, Lead, Sequence, Template
    from outreach.sequences import enroll_many
    from whatsapp.models import Phone

    if "bench" not in connection.settings_dict["NAME"]:
        raise BenchError(f"refusing to empty {connection.settings_dict['NAME']!r}")
    call_command("flush", interactive=False, verbosity=0)
    tenant = Tenant.objects.create(name="Bench replies", slug=TENANT_SLUG)
    Phone.objects.create(tenant=tenant, number="+40740000101", label="Telefon 01")
    sequence = Sequence.objects.create(tenant=tenant, name="Bench WA")
    for position in (1, 2):
        template = Template.objects.create(
            tenant=tenant, name=f"Pas {position}", channel=Channel.WHATSAPP
        )
        template.versions.create(tenant=tenant, version=1, body="Bună ziua, {{company_name}}!")
        sequence.steps.create(
            tenant=tenant,
            position=position,
            channel=Channel.WHATSAPP,
            delay_value=0 if position == 1 else 2,
            delay_unit="WORKING_DAYS",
            template=template,
        )
    rng = random.Random(10)
    rows = [fake_lead(Lead, tenant, rng, i) for i in range(1, leads + 1)]
    companies.companies_for_new_leads(tenant, rows)
    Lead.objects.bulk_create(rows, batch_size=2000)
    Journey.objects.bulk_create([Journey(tenant=tenant, lead=lead) for lead in rows])
    tomorrow = timezone.now() + timedelta(days=1)
    assert enroll_many(rows, sequence, at=tomorrow).enrolled == leads
    Journey.objects.filter(tenant=tenant).update(stage="CONTACTED_WA", next_action_at=tomorrow)
    Enrollment.objects.filter(tenant=tenant).update(current_step=1)
    return tenant.webhook_token, [(lead.pk, lead.phone) for lead in rows]


def reply_body(template: dict, uid: str, phone: str, chat_id: int, text: str) -> bytes:
    body = json.loads(json.dumps(template))
    body["chat"].update(phone=phone, chat_id=chat_id, full_name="Bench lead")
    body["message"].update(message_uid=uid, text=text)
    body["message"]["sender"]["phone"] = phone
    return json.dumps(body, ensure_ascii=False).encode()


# --- one round ---------------------------------------------------------------------------


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        found += kids
        todo += kids
    return found


class Sampler(threading.Thread):
    """Samples the CPU meters of this bench's processes every half second while a round
    runs (a PostgreSQL backend that exits keeps its last reading)."""

    def __init__(self, meters: list[CpuMeter]) -> None:
        super().__init__(daemon=True)
        self.meters, self.stop = meters, threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.5):
            for meter in self.meters:
                meter.sample()
        for meter in self.meters:
            meter.sample()


class Watcher(threading.Thread):
    """What another database session sees, every WATCH_INTERVAL seconds (as a page that
    loads then would): when each measured reply was first there, being analysed, and when
    its review item first was. `sent` grows while the replies are posted."""

    def __init__(self, sent: list[Sent]) -> None:
        super().__init__(daemon=True)
        self.sent = sent
        self.stop = threading.Event()
        self.visible: dict[str, tuple[int, float]] = {}  # uid -> (message id, epoch)
        self.queued: dict[int, float] = {}  # message id -> epoch
        self.error: Exception | None = None

    def run(self) -> None:
        from django.db import connection

        try:
            while not self.stop.is_set():
                self.look()
                self.stop.wait(WATCH_INTERVAL)
            self.look()
        except Exception as error:  # reported by the round
            self.error = error
        finally:
            connection.close()

    def look(self) -> None:
        from hitl.models import ReviewItem
        from outreach.models import Message

        now = time.time()  # what this look finds was committed by now
        waiting = [s.uid for s in list(self.sent) if s.uid not in self.visible]
        if waiting:
            for uid, pk in Message.objects.filter(provider_message_id__in=waiting).values_list(
                "provider_message_id", "pk"
            ):
                self.visible[uid] = (pk, now)
        ids = [pk for pk, _ in self.visible.values() if pk not in self.queued]
        if ids:
            for pk in ReviewItem.objects.filter(message_id__in=ids).values_list(
                "message_id", flat=True
            ):
                self.queued[pk] = now

    def done(self) -> int:
        return len(self.queued)


class Bench:
    def __init__(self, args: argparse.Namespace, work: Path) -> None:
        import psycopg
        import redis
        from django.db import connection

        self.args, self.work = args, work
        self.redis = redis.Redis.from_url(args.redis_url)
        redis_pid = int(self.redis.info("server")["process_id"])
        self.redis_pids = [redis_pid] if proc_cpu(redis_pid) is not None else []
        self.dbname = connection.settings_dict["NAME"]
        params = {k: v for k, v in connection.get_connection_params().items() if k != "dbname"}
        # Watching happens from another database, so it never counts in the bench's.
        self.maintenance = psycopg.connect(dbname="postgres", autocommit=True, **params)
        self.template = json.loads(FIXTURE.read_bytes())
        self.token, self.leads = build_world(args.leads)
        self.script = work / "post.lua"
        raw = FIXTURE.read_bytes()
        uid = self.template["message"]["message_uid"]
        prefix, suffix = raw.decode().split(uid)
        self.script.write_text(LUA.replace("@PREFIX@", prefix).replace("@SUFFIX@", suffix))
        self.next_lead = 0

    def path(self) -> str:
        return f"/webhooks/timelinesai/{self.token}/"

    def flush_broker(self) -> None:
        keys = list(self.redis.scan_iter(match=f"{NAMESPACE}:*", count=1000))
        for start in range(0, len(keys), 1000):
            self.redis.delete(*keys[start : start + 1000])

    def post_replies(self, port: int, stop: threading.Event, sent: list[Sent]) -> None:
        """`--rate` replies a second from leads that have not replied yet, until `stop`."""
        interval = 1.0 / self.args.rate
        due = time.monotonic()
        while not stop.is_set():
            lead_id, phone = self.leads[self.next_lead % len(self.leads)]
            self.next_lead += 1
            uid = str(uuid.uuid4())
            text = REPLIES[self.next_lead % len(REPLIES)]
            body = reply_body(self.template, uid, phone, 90_000_000 + lead_id, text)
            record = Sent(uid, lead_id, time.time())
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            try:
                conn.request(
                    "POST",
                    self.path(),
                    body,
                    {"Content-Type": "application/json", "X-Forwarded-Proto": "https"},
                )
                response = conn.getresponse()
                record.status = response.status
                response.read()
            finally:
                conn.close()
            record.answered = time.time()
            sent.append(record)
            due += interval
            stop.wait(max(0.0, due - time.monotonic()))

    def wrk(self, port: int, seconds: float) -> dict:
        command = [
            shutil.which("wrk") or "wrk", "-t", str(self.args.wrk_threads),
            "-c", str(self.args.connections), "-d", f"{seconds:g}s", "--latency",
            "--timeout", "5s", "-s", str(self.script), f"http://127.0.0.1:{port}",
            "--", self.path(), secrets.token_hex(4),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        line = next((ln for ln in done.stdout.splitlines() if ln.startswith("BENCH-RESULT ")), None)
        if done.returncode or line is None:
            raise BenchError(f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
        return json.loads(line.removeprefix("BENCH-RESULT "))

    def backends(self) -> list[int]:
        rows = self.maintenance.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.dbname]
        ).fetchall()
        return [pid for (pid,) in rows]

    def measured_round(
        self, load: str, number: int, server: Gunicorn, workers: Workers
    ) -> RoundResult:
        """A round; repeated (--retries times at most) when other processes used
        --quiet-cpus CPUs or more during it."""
        for attempt in range(self.args.retries + 1):
            found = self.round(load, number, server, workers)
            self.wait_for_backlog(workers)
            if found.others < self.args.quiet_cpus:
                break
            if attempt < self.args.retries:
                print(
                    f"    {load} round {number}: other processes used {found.others:.2f} "
                    "CPUs; repeating it",
                    flush=True,
                )
        found.attempts = attempt + 1
        return found

    def wait_quiet(self) -> float:
        """Wait (at most --quiet-wait seconds) until the machine's CPUs are busy less than
        --quiet-cpus, measured over 2 s (ours idle between rounds); the last measure."""
        deadline = time.monotonic() + self.args.quiet_wait
        while True:
            before = cpu_busy()
            time.sleep(2.0)
            after = cpu_busy()
            busy = (after[0] - before[0]) / os.sysconf("SC_CLK_TCK") / 2.0
            if busy < self.args.quiet_cpus or time.monotonic() > deadline:
                return busy
            print(f"    waiting for a quieter machine: {busy:.2f} CPUs busy", flush=True)
            time.sleep(8.0)

    def round(self, load: str, number: int, server: Gunicorn, workers: Workers) -> RoundResult:
        from cerniq.models import WebhookEvent

        self.wait_quiet()
        stop = threading.Event()
        sent: list[Sent] = []
        poster = threading.Thread(target=self.post_replies, args=(server.port, stop, sent))
        watcher = Watcher(sent)
        assert server.proc is not None and workers.proc is not None
        gunicorn_pids = [server.proc.pid, *server.workers]
        worker_pid = workers.proc.pid
        sampler = Sampler(
            [
                CpuMeter(lambda: gunicorn_pids),
                CpuMeter(lambda: [worker_pid, *descendants(worker_pid)]),
                CpuMeter(self.backends),
                CpuMeter(lambda: self.redis_pids),
            ]
        )
        busy0, own0 = cpu_busy(), time.process_time()
        wrk0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        sampler.start()
        watcher.start()
        poster.start()
        try:
            if load == "wrk":
                result = self.wrk(server.port, self.args.duration)
            else:
                time.sleep(self.args.duration)
                result = {"requests": 0}
        finally:
            stop.set()
            poster.join()
            sampler.stop.set()
            sampler.join()
        ended = time.monotonic()
        busy1, own = cpu_busy(), time.process_time() - own0
        wrk1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        wrk_cpu = (wrk1.ru_utime - wrk0.ru_utime) + (wrk1.ru_stime - wrk0.ru_stime)
        ours = sum(meter.total() for meter in sampler.meters) + wrk_cpu + own
        busy_seconds = (busy1[0] - busy0[0]) / os.sysconf("SC_CLK_TCK")
        backlog = WebhookEvent.objects.filter(status=WebhookEvent.Status.RECEIVED).count()
        found = RoundResult(load, number, ended - started, sent, result["requests"], backlog)
        found.others = max(0.0, busy_seconds - ours) / (ended - started)
        found.intake_p99_ms = result.get("p99", 0) / 1000
        found.busy = (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1])
        refused = [s for s in sent if s.status != 200]
        if refused:
            raise BenchError(f"{len(refused)} replies refused (first: {refused[0]})")
        try:
            self.wait_triaged(found, watcher, workers, server)
        finally:
            watcher.stop.set()
            watcher.join()
        found.drained_after = time.monotonic() - ended
        found.rows = self.read(sent, watcher)
        return found

    def wait_triaged(
        self, found: RoundResult, watcher: Watcher, workers: Workers, server: Gunicorn
    ) -> None:
        deadline = time.monotonic() + self.args.drain_timeout
        while watcher.done() < len(found.sent):
            if watcher.error is not None:
                raise BenchError(f"the watcher failed: {watcher.error!r}")
            if not workers.alive():
                raise BenchError(f"the workers exited; see {workers.log}")
            server.check_workers()
            if time.monotonic() > deadline:
                raise BenchError(
                    f"{watcher.done()} of {len(found.sent)} replies in the review queue "
                    f"({len(watcher.visible)} stored) after {self.args.drain_timeout:g} s"
                )
            time.sleep(0.25)

    def wait_for_backlog(self, workers: Workers) -> None:
        """Let the workers finish the load's events before the next round starts."""
        from cerniq.models import WebhookEvent

        deadline = time.monotonic() + self.args.drain_timeout
        while WebhookEvent.objects.filter(status=WebhookEvent.Status.RECEIVED).exists():
            if not workers.alive() or time.monotonic() > deadline:
                raise BenchError("the load's events were not processed in time")
            time.sleep(0.5)

    def read(self, sent: list[Sent], watcher: Watcher) -> list[dict]:
        """Per reply: received (the intake's row) → seen being analysed → seen in the review
        queue, in seconds; checked against what the database says of each reply."""
        from cerniq.models import WebhookEvent
        from hitl.models import ReplyTriage, ReviewItem
        from outreach.models import Message

        keys = {f"{EVENT_TYPE}:{s.uid}": s.uid for s in sent}  # the receiver's dedupe key
        received = {
            keys[key]: at.timestamp()
            for key, at in WebhookEvent.objects.filter(
                provider_event_id__in=list(keys)
            ).values_list("provider_event_id", "received_at")
        }
        leads = dict(
            Message.objects.filter(provider_message_id__in=list(keys.values())).values_list(
                "provider_message_id", "lead_id"
            )
        )
        message_ids = [pk for pk, _ in watcher.visible.values()]
        triaged = dict(
            ReplyTriage.objects.filter(pk__in=message_ids, state="DONE").values_list(
                "pk", "triaged_at"
            )
        )
        items = dict(
            ReviewItem.objects.filter(message_id__in=message_ids).values_list(
                "message_id", "created_at"
            )
        )
        rows = []
        for record in sent:
            if record.uid not in received or record.uid not in watcher.visible:
                raise BenchError(f"reply {record.uid}: no event or no message stored")
            if leads.get(record.uid) != record.lead_id:
                raise BenchError(f"reply {record.uid}: stored for lead {leads.get(record.uid)}")
            message_id, seen = watcher.visible[record.uid]
            if message_id not in triaged or items[message_id] < triaged[message_id]:
                raise BenchError(f"reply {record.uid}: its review item is not its triage's")
            at = received[record.uid]
            queued = watcher.queued[message_id]
            rows.append({"visible": seen - at, "analysed": queued - seen, "queued": queued - at})
        return rows


# --- report ------------------------------------------------------------------------------


def percentile(values: list[float], pct: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(pct) - 1]


def stats(rows: list[dict], key: str) -> tuple[float, float, float]:
    values = [row[key] for row in rows]
    return statistics.median(values), percentile(values, PERCENTILE), max(values)


def report(rounds: list[RoundResult], args: argparse.Namespace) -> None:
    print()
    print(
        "load  round  replies  intake/s  p99 ms  backlog  drained s  CPUs  others   "
        "received→visible s   visible→in queue s   received→in queue s"
    )
    print(
        "                                                           busy    CPUs   p50   p95   "
        "max      p50   p95   max      p50   p95   max"
    )
    print("-" * 139)

    def line(label: str, number: str, group: list[RoundResult]) -> str:
        rows = [row for r in group for row in r.rows]
        seconds = sum(r.seconds for r in group)
        intake = sum(r.intake_requests for r in group) / seconds if seconds else 0.0
        p99 = max(r.intake_p99_ms for r in group)
        backlog = max(r.backlog for r in group)
        drained = max(r.drained_after for r in group)
        busy = statistics.mean(r.busy for r in group)
        others = max(r.others for r in group)
        mark = "*" if others >= args.quiet_cpus else " "
        parts = [
            f"{label:<5} {number:>5} {len(rows):>8} {intake:>9,.0f} {p99:>7.1f} {backlog:>8,} "
            f"{drained:>10.1f} {busy:>5.0%} {others:>5.2f}{mark}"
        ]
        for key in ("visible", "analysed", "queued"):
            p50, p95, top = stats(rows, key)
            parts.append(f"  {p50:5.2f} {p95:5.2f} {top:5.2f}  ")
        return "".join(parts)

    for r in rounds:
        print(line(r.load, str(r.number), [r]))
    print("-" * 139)
    loads = list(dict.fromkeys(r.load for r in rounds))
    for load in loads:
        print(line(load, "all", [r for r in rounds if r.load == load]))
    print(
        f"(replies: from leads, {args.rate:g}/s for {args.duration:g} s a round; intake/s: "
        "the load's webhook requests a second (wrk); p99 ms: their latency, the worst "
        "round's; backlog: load events still waiting for a worker when the load stopped; "
        "drained: seconds from then to the last measured reply in the queue; CPUs busy: "
        "the whole machine during the load; others: CPUs used by processes not the bench's "
        f"during it; *: others used >= {args.quiet_cpus:g} CPUs even after {args.retries} "
        "repeat(s))"
    )
    for load in loads:
        rows = [row for r in rounds if r.load == load for row in r.rows]
        p95 = stats(rows, "queued")[1]
        met = "MET    " if p95 <= GOAL_P95_SECONDS else "MISSED "
        print(
            f"goal {met} load {load}: p{PERCENTILE} received → triaged and in the review "
            f"queue <= {GOAL_P95_SECONDS:g} s: {p95:.2f} s"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per load")
    parser.add_argument("--rate", type=float, default=2.0, help="measured replies a second")
    parser.add_argument("--load", nargs="+", default=["none", "wrk"], choices=("none", "wrk"))
    parser.add_argument(
        "--model-seconds", type=float, default=0.0,
        help="answer after this wait, as a remote model would (bench/slow_triage.py); 0: the "
        "offline triage",
    )  # fmt: skip
    parser.add_argument("--leads", type=int, default=2000)
    parser.add_argument("--connections", type=int, default=2)
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--processes", type=int, default=2, help="Dramatiq worker processes")
    parser.add_argument("--threads", type=int, default=8, help="per Dramatiq process")
    parser.add_argument("--drain-timeout", type=float, default=600.0)
    parser.add_argument(
        "--quiet-cpus", type=float, default=0.35,
        help="a round starts when the machine's CPUs are busy less than this",
    )  # fmt: skip
    parser.add_argument("--quiet-wait", type=float, default=120.0, help="seconds, per round")
    parser.add_argument("--retries", type=int, default=2, help="repeats of a disturbed round")
    parser.add_argument("--database-url", default=DEFAULT_URL)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    args = parser.parse_args()
    args.worker_class = "sync"  # what bench/webhooks.py's Gunicorn reads
    if args.wrk_threads > args.connections:
        parser.error("--wrk-threads cannot exceed --connections")
    per_round = int(args.rate * args.duration) + 1
    if args.leads < per_round * args.rounds * len(args.load):
        parser.error("--leads: fewer leads than measured replies (each lead replies once)")

    set_environment(args)
    configure()  # creates and migrates the database (DATABASE_URL is set above)
    work = Path(tempfile.mkdtemp(prefix="bench-replies-"))
    try:
        bench = Bench(args, work)
        bench.flush_broker()
        print(
            f"database {args.database_url.rsplit('/', 1)[-1]}, Redis {args.redis_url} "
            f"namespace {NAMESPACE}; {args.leads:,} leads; triage "
            f"{os.environ['AI_TRIAGE_BACKEND']}"
            f"{f' ({args.model_seconds:g} s)' if args.model_seconds else ''}; logs in {work}; "
            f"load average {os.getloadavg()}",
            flush=True,
        )
        env = dict(os.environ)
        command = worker_command(args, shutdown_ms=30_000, extra_modules=())
        rounds: list[RoundResult] = []
        with (
            Gunicorn(args, work / "gunicorn.log") as server,
            Workers(command, env, work / "workers.log") as workers,
        ):
            time.sleep(5)  # the workers import the app and declare their queues
            for number in range(1, args.rounds + 1):
                for load in args.load:
                    found = bench.measured_round(load, number, server, workers)
                    rounds.append(found)
                    p95 = stats(found.rows, "queued")[1]
                    print(
                        f"  {load} round {number}: {len(found.rows)} replies, p95 received "
                        f"→ in the queue {p95:.2f} s, backlog {found.backlog:,}, "
                        f"load {os.getloadavg()[0]:.2f}",
                        flush=True,
                    )
        report(rounds, args)
        print(f"load average at the end {os.getloadavg()}")
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
