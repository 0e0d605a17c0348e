"""Benchmark the WhatsApp send pipeline against Dramatiq's own ceiling on this machine.

    .venv/bin/python bench/send_pipeline.py [--messages 5000] [--phones 20] [--processes 2]
        [--threads 8] [--ceiling-messages 10000] [--paced-messages 200]
        [--database-url postgres://postgres@127.0.0.1:5432/cerniq_bench_send]
        [--redis-url redis://127.0.0.1:6379/11] [--explain] [--only PHASE ...]

Uses its own PostgreSQL database (bench/harness.py: any name, created if missing, migrated
and emptied at the start; `--smoke`: a tiny run in a throwaway database) and its own Redis
database and Dramatiq namespace (`cerniq-bench-send`, emptied before each phase; CI's tests
use databases 12-15). The workers are what `manage.py rundramatiq` starts (`python -m dramatiq`
with the task modules it discovers) plus bench/ceiling_actors.py: `--processes` x `--threads`,
production settings (DEBUG off), started afresh for each phase with its messages already queued, so
every rate runs from the first to the last message processed, (n - 1) / seconds:

1. no-op: `--ceiling-messages` messages of an actor that does nothing (Dramatiq's own cost);
2. one INSERT: as many messages of an actor that inserts one row (the ceiling for an actor
   that touches the database);
3. send: `--messages` leads enrolled in a 1-step WhatsApp sequence over `--phones`
   TimelinesAI phones (pacing off, the window open all week), queued by `dispatch_due`
   (batches of 500, which also plans each phone's run), then sent by the phones' planned
   runs (`outreach.tasks.run_phone`) through the real TimelinesAI client, pointed at a
   local fake TimelinesAI HTTP server; from the first to the last `Message.sent_at`;
   actor runs counted in the workers (bench/ceiling_actors.py's Stamps middleware, with
   each run's wait in its queue and its run time, and each run's outcome read from its
   `outreach.tasks` log record as it is logged, not from the log's text);
4. production pacing: `--paced-messages` first messages on one phone with the tenant
   defaults (30 s + random(0-120 s) gaps, Mon-Fri 09:00-18:00) cannot run in real time: it
   is simulated in-process, as tests/outreach/test_pacing.py does, with a frozen clock moved
   to each planned run and a recorded delay queue instead of the broker's; every run is the
   real `pacing.run_phone` (same client, same fake server).

Prints one table and the verdicts (bench/harness.py): the send rate >= 50 % of the
one-INSERT rate (the ceiling), <= 1.2 actor runs per send, about one run per send with
production pacing, and at most 12 SQL statements per send (the paced phase's runs that
sent, BEGIN/COMMIT included). Beside the rates: worker CPU per message (each worker
process's CPU from its first message to its last), PostgreSQL CPU per message (the bench
database's backends, from /proc), transactions per message and the load average: the machine may be
shared, and CPU per message is the figure that does not depend on that. Exits 1 only on errors
(messages not sent, a worker crash, a message sent twice), never on a missed goal. Worker logs are
kept in a temporary directory (printed).
"""

from __future__ import annotations

import argparse
import heapq
import io
import itertools
import json
import logging
import os
import random
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from datetime import time as wall
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import harness  # noqa: E402
from bench.dispatch import fake_lead, shape  # noqa: E402
from bench.harness import BenchError, error_lines  # noqa: E402
from bench.import_leads import ROOT, configure  # noqa: E402

# The real TimelinesAI client class (settings read it from TIMELINESAI_BACKEND): the one
# line to change should it move again.
TIMELINESAI_BACKEND = "integrations.timelinesai.client.TimelinesAI"

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/11"
NAMESPACE = "cerniq-bench-send"
TENANT_SLUG = "bench-send"
PACED_SLUG = "bench-send-paced"
API_PREFIX = "/integrations/api"
ZONE = ZoneInfo("Europe/Bucharest")
PACED_START = datetime(2026, 11, 23, 9, 0, tzinfo=ZONE)  # a Monday, the window opening
BODY = (
    "{Bună ziua|Salut|Bună}, {{contact_name|stimate client}}! {Suntem|Lucrăm la} Cerniq "
    "și {ajutăm|sprijinim} ferme ca {{company_name}} din {{county}}. {Vă interesează?|Vorbim?}"
)
GOAL_SHARE = 0.5  # of the one-INSERT rate
GOAL_RUNS = 1.2  # actor runs per send, pacing off
GOAL_PACED_RUNS = 1.05  # "no more than ~200 actor runs" for 200 messages
GOAL_STATEMENTS = 12  # SQL statements per send, transaction statements included
STALL_SECONDS = 90.0  # no progress this long = an error
LOCK_KEY = 0x5E4D_B3C4  # a session advisory lock: one run of this bench at a time
CHAT_MESSAGES = re.compile(re.escape(API_PREFIX) + r"/chats/\d+/messages")


# --- the fake TimelinesAI ------------------------------------------------------------------


class FakeTimelinesAI(ThreadingHTTPServer):
    """TimelinesAI's Public API as far as the send path calls it (docs/providers.md §1): a send
    answers the documented `{"status": "ok", "data": {"message_uid": ...}}` with a fresh
    uid; a chat look-up finds no chat. Counts calls, and sends per recipient."""

    daemon_threads = True
    request_queue_size = 256  # many workers connect at once (one connection per call)

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.calls: Counter[str] = Counter()
        self.recipients: Counter[str] = Counter()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}{API_PREFIX}"

    def sends(self) -> int:
        with self.lock:
            return self.calls["POST /messages"] + self.calls["POST /chats/{id}/messages"]

    def start(self) -> None:
        threading.Thread(target=self.serve_forever, name="fake-timelinesai", daemon=True).start()


class _Handler(BaseHTTPRequestHandler):
    server: FakeTimelinesAI

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        path = urlsplit(self.path).path
        if path == f"{API_PREFIX}/messages":
            self._count("POST /messages", body.get("phone", ""))
        elif CHAT_MESSAGES.fullmatch(path):
            self._count("POST /chats/{id}/messages", path)
        else:
            self._count(f"POST {path} (unknown)")
            self._json(404, {"status": "error", "message": "Not found"})
            return
        self._json(200, {"status": "ok", "data": {"message_uid": str(uuid.uuid4())}})

    def do_GET(self) -> None:  # noqa: N802
        path = urlsplit(self.path).path
        if path == f"{API_PREFIX}/chats":
            self._count("GET /chats")
            self._json(200, {"status": "ok", "data": {"has_more_pages": False, "chats": []}})
        else:
            self._count(f"GET {path} (unknown)")
            self._json(404, {"status": "error", "message": "Not found"})

    def _count(self, call: str, recipient: str = "") -> None:
        with self.server.lock:
            self.server.calls[call] += 1
            if recipient:
                self.server.recipients[recipient] += 1

    def _json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet: thousands of requests."""


# --- measuring ---------------------------------------------------------------------------


@dataclass
class Phase:
    name: str
    messages: int
    seconds: float | None = None  # first -> last processed
    rate: float | None = None
    runs: int | None = None  # actor runs (send phases)
    statements: float | None = None  # median SQL statements of a run that sent (paced)
    worker_cpu: float | None = None  # seconds
    db_cpu: float | None = None
    xacts: int | None = None
    load: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def measured(self, first: float, last: float) -> None:
        self.seconds = last - first
        self.rate = (self.messages - 1) / self.seconds if self.seconds > 0 else None


class PgCpuMeter:
    """CPU seconds of the PostgreSQL backends serving the bench database, sampled while the
    workers run (a backend that exits keeps its last reading), from /proc: PostgreSQL must
    run on this machine and be readable (else: None)."""

    def __init__(self, dbname: str, maintenance) -> None:
        self.dbname, self.maintenance = dbname, maintenance
        self.tick = os.sysconf("SC_CLK_TCK")
        self.backends: dict[int, float] = {}
        self.readable = True
        self.sample()
        self.before = dict(self.backends)  # the bench's own connection, before the phase

    def sample(self) -> None:
        pids = self.maintenance.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.dbname]
        ).fetchall()
        for (pid,) in pids:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                self.readable = False
                continue
            fields = stat.rsplit(")", 1)[1].split()
            self.backends[pid] = (int(fields[11]) + int(fields[12])) / self.tick  # utime+stime

    def total(self) -> float | None:
        used = [cpu - self.before.get(pid, 0.0) for pid, cpu in self.backends.items()]
        return sum(used) if self.readable and used else None


class Workers:
    """`--processes` x `--threads` Dramatiq workers, as `manage.py rundramatiq` runs them."""

    def __init__(self, command: list[str], env: dict[str, str], log: Path) -> None:
        self.command, self.env, self.log = command, env, log
        self.proc: subprocess.Popen | None = None
        self.started = 0.0  # epoch seconds

    def __enter__(self) -> Workers:
        out = self.log.open("ab")
        self.started = time.time()
        self.proc = subprocess.Popen(
            self.command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        out.close()
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def __exit__(self, *exc: object) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@dataclass
class Stamps:
    """What the workers' Stamps middleware (bench/ceiling_actors.py) wrote, per actor:
    count, failed, first, last (epoch seconds), waited and ran (summed seconds)."""

    actors: dict[str, dict[str, float]]
    cpu: float  # the worker processes' CPU seconds from their first message to their last
    outcomes: Counter = field(default_factory=Counter)  # phone runs by outcome
    errors: list[str] = field(default_factory=list)  # records logged at ERROR or above
    started: float = 0.0  # when the workers were launched
    log: Path | None = None

    @classmethod
    def read(cls, directory: Path, processes: int) -> Stamps:
        files = sorted(directory.glob("*.json"))
        if len(files) != processes:
            raise BenchError(f"{len(files)} of {processes} worker processes wrote their stamps")
        actors: dict[str, dict[str, float]] = {}
        cpu = 0.0
        outcomes: Counter = Counter()
        errors: list[str] = []
        for path in files:
            stamps = json.loads(path.read_text())
            outcomes.update(stamps.get("outcomes", {}))
            errors.extend(stamps.get("errors", []))
            first, last = stamps["cpu"]
            cpu += (last - first) if first is not None and last is not None else 0.0
            for actor, seen in stamps["actors"].items():
                if actor not in actors:
                    actors[actor] = seen
                    continue
                entry = actors[actor]
                for key in ("count", "failed", "waited", "ran"):
                    entry[key] += seen[key]
                entry["first"] = min(entry["first"], seen["first"])
                entry["last"] = max(entry["last"], seen["last"])
        return cls(actors, cpu, outcomes, errors)

    def of(self, actor: str) -> dict[str, float]:
        empty = {"count": 0, "failed": 0, "first": 0.0, "last": 0.0, "waited": 0.0, "ran": 0.0}
        return self.actors.get(actor, empty)

    def timing(self, actor: str, *, waits: bool) -> str:
        """Mean wall times; the wait in the queue only means something when messages are
        not all queued up front (a phone's next run waits from when it was enqueued)."""
        seen = self.of(actor)
        n = seen["count"] or 1
        waited = f"waited in its queue {seen['waited'] * 1000 / n:.1f} ms, " if waits else ""
        return (
            f"{actor}: {waited}ran {seen['ran'] * 1000 / n:.1f} ms on average (wall); first "
            f"processed {seen['first'] - self.started:.1f} s after the workers were launched"
        )


class Bench:
    def __init__(self, args: argparse.Namespace, server: FakeTimelinesAI, logs: Path) -> None:
        import psycopg
        import redis
        from django.db import connection

        self.args, self.server, self.logs = args, server, logs
        self.redis = redis.Redis.from_url(args.redis_url)
        self.dbname = connection.settings_dict["NAME"]
        params = {k: v for k, v in connection.get_connection_params().items() if k != "dbname"}
        # Watching happens on another database, so the bench's own queries never show up in
        # the bench database's transaction counts.
        self.maintenance = psycopg.connect(dbname="postgres", autocommit=True, **params)
        locked = self.maintenance.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY]).fetchone()
        if not locked[0]:
            raise BenchError("another bench/send_pipeline.py is running on this PostgreSQL")
        self.command = worker_command(args)
        self.env = dict(os.environ)

    # --- shared ---------------------------------------------------------------------

    def flush_broker(self) -> None:
        keys = list(self.redis.scan_iter(match=f"{NAMESPACE}:*", count=1000))
        for start in range(0, len(keys), 1000):
            self.redis.delete(*keys[start : start + 1000])

    def pending(self, queue: str | None = None) -> int:
        """Messages enqueued and not yet acknowledged: on `queue`, or on every queue of the
        namespace (delayed ones included, dead-lettered ones not)."""
        if queue:
            return self.redis.hlen(f"{NAMESPACE}:{queue}.msgs")
        keys = self.redis.scan_iter(match=f"{NAMESPACE}:*.msgs", count=1000)
        return sum(self.redis.hlen(key) for key in keys if not key.endswith(b".XQ.msgs"))

    def dead_letters(self) -> int:
        keys = self.redis.scan_iter(match=f"{NAMESPACE}:*.XQ.msgs", count=1000)
        return sum(self.redis.hlen(key) for key in keys)

    def xact_commit(self) -> int:
        self.maintenance.execute("SELECT pg_stat_clear_snapshot()")
        row = self.maintenance.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = %s",
            [self.dbname],
        ).fetchone()
        return int(row[0])

    def run_workers(self, phase: Phase, key: str, done, progress) -> Stamps:
        """Start the workers, wait until `done()`, stop them; fill CPU, load and xacts and
        return what the workers' Stamps middleware (bench/ceiling_actors.py) recorded."""
        before = self.xact_commit()
        log, stamps = self.logs / f"{key}.log", self.logs / f"stamps-{key}"
        env = {**self.env, "BENCH_STAMPS_DIR": str(stamps), "BENCH_LAUNCHED_AT": str(time.time())}
        with Workers(self.command, env, log) as workers:
            meter = PgCpuMeter(self.dbname, self.maintenance)
            last, last_change = progress(), time.monotonic()
            while not done():
                time.sleep(0.25)
                meter.sample()
                phase.load.append(os.getloadavg()[0])
                current, now = progress(), time.monotonic()
                if current != last:
                    last, last_change = current, now
                if not workers.alive():
                    raise BenchError(f"{phase.name}: the workers exited; see {log}")
                if now - last_change > STALL_SECONDS:
                    raise BenchError(f"{phase.name}: no progress for {STALL_SECONDS:.0f} s; {log}")
            meter.sample()
        time.sleep(1.0)  # ended backends have flushed their statistics
        phase.db_cpu = meter.total()
        phase.xacts = self.xact_commit() - before
        if self.dead_letters():
            raise BenchError(f"{phase.name}: {self.dead_letters()} dead-lettered message(s)")
        result = Stamps.read(stamps, self.args.processes)
        errors = result.errors + error_lines(log.read_text())
        if errors:
            raise BenchError(f"{phase.name}: {len(errors)} error(s) logged, see {log}: {errors[0]}")
        result.started, result.log = workers.started, log
        phase.worker_cpu = result.cpu
        return result

    # --- ceilings -------------------------------------------------------------------

    def ceiling(self, kind: str) -> Phase:
        from django.db import connection

        from bench import ceiling_actors

        n = self.args.ceiling_messages
        phase = Phase("no-op" if kind == "noop" else "one INSERT", n)
        actor = ceiling_actors.noop if kind == "noop" else ceiling_actors.insert_one
        with connection.cursor() as cursor:
            cursor.execute(
                f"CREATE TABLE IF NOT EXISTS {ceiling_actors.TABLE} (id bigserial PRIMARY KEY, "
                "n integer NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())"
            )
            cursor.execute(f"TRUNCATE {ceiling_actors.TABLE}")
        self.flush_broker()
        for i in range(n):
            actor.send(i)
        if self.pending(ceiling_actors.QUEUE) != n:
            raise BenchError(f"{phase.name}: {self.pending(ceiling_actors.QUEUE)} queued, want {n}")

        def left() -> int:
            return self.pending(ceiling_actors.QUEUE)

        stamps = self.run_workers(phase, kind, lambda: left() == 0, left)
        seen = stamps.of(actor.actor_name)
        count, failed = int(seen["count"]), int(seen["failed"])
        if count != n or failed:
            raise BenchError(f"{phase.name}: {count} processed ({failed} failed), want {n}")
        if kind == "insert":
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT count(*) FROM {ceiling_actors.TABLE}")  # noqa: S608
                if cursor.fetchone()[0] != n:
                    raise BenchError(f"{phase.name}: rows missing")
        phase.measured(seen["first"], seen["last"])
        phase.notes.append(stamps.timing(actor.actor_name, waits=False))
        return phase

    # --- the send pipeline ----------------------------------------------------------

    def send(self) -> Phase:
        from django.db.models import Count, Max, Min

        from outreach.dispatch import dispatch_due
        from outreach.models import Message

        n, phones = self.args.messages, self.args.phones
        t0 = time.perf_counter()
        tenant = build_world(
            TENANT_SLUG, leads=n, phones=phones, daily_limit=1000, at=None, open_all_week=True
        )
        built = time.perf_counter() - t0
        self.flush_broker()
        t0 = time.perf_counter()
        dispatched = Counter()
        while True:
            result = dispatch_due(tenant, batch_size=500)
            if not result.eligible:
                break
            dispatched.update(result.dispatched)
            if result.skipped:
                raise BenchError(f"dispatch skipped {dict(result.skipped)}")
        dispatch_seconds = time.perf_counter() - t0
        queued = Message.objects.filter(tenant=tenant, status=Message.Status.QUEUED)
        per_phone = sorted(
            queued.order_by().values("phone_id").annotate(n=Count("pk")).values_list("n", flat=True)
        )
        if dispatched["WHATSAPP"] != n or queued.count() != n:
            raise BenchError(f"dispatch queued {dict(dispatched)}, want {n} WHATSAPP")
        planned = self.pending()
        phase = Phase("send (TimelinesAI client, fake server)", n)
        phase.notes.append(
            f"world {built:.1f} s; dispatch {n:,} in {dispatch_seconds:.1f} s "
            f"({n / dispatch_seconds:,.0f}/s), {min(per_phone)}-{max(per_phone)} per phone over "
            f"{len(per_phone)} phones, {planned} planned runs enqueued"
        )
        sends_before = self.server.sends()
        calls_before = Counter(self.server.calls)

        def sent() -> int:
            return self.server.sends() - sends_before

        stamps = self.run_workers(phase, "send", lambda: sent() >= n and self.pending() == 0, sent)
        done = Message.objects.filter(tenant=tenant, status=Message.Status.SENT)
        agg = done.aggregate(
            count=Count("pk"),
            uids=Count("provider_message_id", distinct=True),
            first=Min("sent_at"),
            last=Max("sent_at"),
        )
        if agg["count"] != n or agg["uids"] != n:
            others = dict(
                Message.objects.filter(tenant=tenant).values_list("status").annotate(Count("pk"))
            )
            raise BenchError(
                f"send: {agg['count']} SENT ({agg['uids']} provider ids), want {n}: {others}"
            )
        twice = [r for r, c in self.server.recipients.items() if c > 1]
        if twice:
            raise BenchError(f"send: {len(twice)} recipients got more than one message")
        phase.measured(agg["first"].timestamp(), agg["last"].timestamp())
        runs = stamps.of("run_phone")
        phase.runs, failed = int(runs["count"]), int(runs["failed"])
        outcomes = stamps.outcomes
        if failed or sum(outcomes.values()) != phase.runs:
            raise BenchError(f"send: {phase.runs} runs ({failed} failed), logged {outcomes}")
        calls = Counter(self.server.calls)
        calls.subtract(calls_before)
        phase.notes.append(
            f"actor runs by outcome {dict(outcomes)}; HTTP calls {dict(+calls)}; wall from "
            f"worker start to last SENT {agg['last'].timestamp() - stamps.started:.1f} s "
            f"(first SENT {agg['first'].timestamp() - stamps.started:.1f} s after start)"
        )
        phase.notes.append(stamps.timing("run_phone", waits=True))
        return phase

    # --- production pacing, simulated -------------------------------------------------

    def paced(self) -> Phase:
        import time_machine
        from django.db import connection
        from django.test.utils import CaptureQueriesContext
        from django.utils import timezone

        from outreach import pacing
        from outreach.dispatch import dispatch_due
        from outreach.models import Message

        n = self.args.paced_messages
        tenant = build_world(
            PACED_SLUG, leads=n, phones=1, daily_limit=200, at=PACED_START, open_all_week=False
        )
        phase = Phase("production pacing (simulated day)", n)
        planned: list[tuple[datetime, int, int]] = []
        order = itertools.count()
        runs, queries, example, sent_queries = Counter(), [], [], []

        def record(phone_id: int, at: datetime) -> None:
            heapq.heappush(planned, (at, next(order), phone_id))

        random.seed(9)  # the pacing gaps (outreach.pacing.gap_for)
        original = pacing._enqueue_run
        pacing._enqueue_run = record  # the broker's delay queue, recorded
        sends_before = self.server.sends()
        try:
            with time_machine.travel(PACED_START, tick=False) as clock:
                result = dispatch_due(tenant, batch_size=500)
                if result.dispatched["WHATSAPP"] != n:
                    raise BenchError(f"paced dispatch: {result.summary()}")
                while planned and runs["sent"] < n and sum(runs.values()) < 5 * n:
                    at, _, phone_id = heapq.heappop(planned)
                    if at > timezone.now():
                        clock.move_to(at)
                    with CaptureQueriesContext(connection) as ctx:
                        outcome = pacing.run_phone(phone_id)
                    queries.append(len(ctx.captured_queries))
                    match = re.match(r"(?:message \d+: )?(\w+)", outcome)
                    runs[match.group(1) if match else outcome] += 1
                    if match and match.group(1) == "sent":
                        sent_queries.append(len(ctx.captured_queries))
                    if runs["sent"] == 2 and not example:  # a warm run that sent
                        example = [q["sql"] for q in ctx.captured_queries]
        finally:
            pacing._enqueue_run = original
        sent = Message.objects.filter(tenant=tenant, status=Message.Status.SENT)
        times = sorted(sent.values_list("sent_at", flat=True))
        if len(times) != n or self.server.sends() - sends_before != n:
            raise BenchError(f"paced: {len(times)} SENT, want {n}")
        gaps = [(b - a).total_seconds() for a, b in zip(times, times[1:], strict=False)]
        local = [t.astimezone(ZONE) for t in times]
        phase.measured(times[0].timestamp(), times[-1].timestamp())
        phase.rate = None  # simulated time: a rate means nothing
        phase.runs = sum(runs.values())
        phase.statements = statistics.median(sent_queries) if sent_queries else None
        phase.notes.append(
            f"simulated with a frozen clock (time_machine) and a recorded delay queue, not "
            f"in real time; {local[0]:%a %H:%M:%S} -> {local[-1]:%a %H:%M:%S} local, "
            f"gaps min {min(gaps):.0f} s, mean {statistics.mean(gaps):.0f} s; runs by "
            f"outcome {dict(runs)}; SQL per run median {statistics.median(queries):.0f} "
            f"(min {min(queries)}, max {max(queries)}, BEGIN/SAVEPOINT/COMMIT included)"
        )
        if self.args.explain:
            phase.notes.append(f"the {len(example)} statements of one run that sent:")
            phase.notes.extend(f"  {i:>2}. {shape(sql)}" for i, sql in enumerate(example, 1))
        return phase


# --- the world ---------------------------------------------------------------------------


def build_world(
    slug: str, *, leads: int, phones: int, daily_limit: int, at: datetime | None,
    open_all_week: bool,
) -> object:  # fmt: skip
    """A tenant with TimelinesAI phones, a 1-step WhatsApp sequence and enrolled leads."""
    from django.utils import timezone

    from cerniq.models import Tenant
    from outreach import companies
    from outreach.models import Channel, Journey, Lead, Sequence, SequenceStep, Template
    from outreach.sequences import enroll_many
    from whatsapp.models import Phone

    window: dict[str, object] = {}
    if open_all_week:
        window = {
            "working_days": [0, 1, 2, 3, 4, 5, 6],
            "holiday_country": "",
            "window_start": wall(0, 0),
            "window_end": wall(23, 59, 59, 999999),
            "pacing_min_seconds": 0,
            "pacing_jitter_seconds": 0,
        }  # else the defaults: Mon-Fri 09-18, RO holidays, 30 s + random(0-120 s)
    tenant = Tenant.objects.create(name=slug, slug=slug, **window)
    base = 100 if slug == TENANT_SLUG else 500
    Phone.objects.bulk_create(
        Phone(
            tenant=tenant,
            number=f"+40740000{base + i:03d}",
            label=f"Telefon {i:02d}",
            provider="timelinesai",  # the integration key
            account_id=f"40740000{base + i:03d}@s.whatsapp.net",
            status=Phone.Status.ACTIVE,
            is_enabled=True,
            daily_limit=daily_limit,
            warmup_started_at=None,  # established numbers: no warm-up ramp
        )
        for i in range(1, phones + 1)
    )
    sequence = Sequence.objects.create(tenant=tenant, name=f"{slug} WA")
    template = Template.objects.create(tenant=tenant, name="Pas 1", channel=Channel.WHATSAPP)
    template.versions.create(tenant=tenant, version=1, body=BODY)
    SequenceStep.objects.create(
        tenant=tenant, sequence=sequence, position=1, channel=Channel.WHATSAPP, template=template
    )
    rng = random.Random(7)
    rows = [fake_lead(Lead, tenant, rng, i) for i in range(1, leads + 1)]
    companies.companies_for_new_leads(tenant, rows)
    Lead.objects.bulk_create(rows, batch_size=2000)
    Journey.objects.bulk_create([Journey(tenant=tenant, lead=lead) for lead in rows], 2000)
    enrolled = enroll_many(rows, sequence, at=at or timezone.now())
    assert enrolled.enrolled == leads, enrolled
    return tenant


# --- setup -------------------------------------------------------------------------------


def worker_command(
    args: argparse.Namespace,
    *,
    shutdown_ms: int = 600_000,
    extra_modules: tuple[str, ...] = ("bench.ceiling_actors",),
) -> list[str]:
    """`manage.py rundramatiq`'s command line (plus this bench's ceiling actors; also used by
    bench/faults.py, with none)."""
    from django_dramatiq.management.commands.rundramatiq import Command

    modules = Command(stdout=io.StringIO()).discover_tasks_modules()
    return [
        sys.executable, "-m", "dramatiq", "--path", ".",
        "--processes", str(args.processes), "--threads", str(args.threads),
        "--worker-shutdown-timeout", str(shutdown_ms),
        *modules, *extra_modules,
    ]  # fmt: skip


def set_environment(
    args: argparse.Namespace, server: FakeTimelinesAI, namespace: str = NAMESPACE
) -> None:
    """Production-like settings for this process and the workers it starts."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "cerniq.settings",
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(40),
            "DATABASE_URL": args.database_url,
            "REDIS_URL": args.redis_url,
            "DRAMATIQ_NAMESPACE": namespace,
            "TIMELINESAI_BACKEND": TIMELINESAI_BACKEND,
            "TIMELINESAI_API_TOKEN": "bench",
            "TIMELINESAI_BASE_URL": server.base_url,
            "WHATSAPP_PHONE_QUEUES": "20",
            "LOG_LEVEL": "INFO",
            "NO_PROXY": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
        }
    )


def empty_database() -> None:
    from bench import harness

    harness.empty_database()  # bench/harness.py made sure the database is a bench's


# --- report ------------------------------------------------------------------------------


def report(phases: list[Phase], args: argparse.Namespace, command: list[str]) -> None:
    insert = next((p for p in phases if p.name == "one INSERT"), None)
    send = next((p for p in phases if p.name.startswith("send")), None)
    paced = next((p for p in phases if p.name.startswith("production")), None)
    print()
    header = (
        f"{'phase':<40} {'messages':>8} {'seconds':>9} {'msgs/s':>8} {'x INSERT':>8} "
        f"{'runs/send':>9} {'worker CPU':>10} {'PG CPU':>8} {'xacts':>6} {'load 1m':>11}"
    )
    print(header)
    print(f"{'':<40} {'':>8} {'':>9} {'':>8} {'ceiling':>8} {'':>9} {'ms/msg':>10} "
          f"{'ms/msg':>8} {'/msg':>6} {'mean (max)':>11}")  # fmt: skip
    print("-" * len(header))
    for p in phases:
        seconds = "—" if p.seconds is None else f"{p.seconds:,.1f}"
        if p is paced and p.seconds is not None:
            seconds = f"{p.seconds / 3600:.1f} h sim"
        rate = "—" if p.rate is None else f"{p.rate:,.0f}"
        share = "—"
        if p.rate and insert and insert.rate:
            share = f"{p.rate / insert.rate:.2f}"
        runs = "—" if p.runs is None else f"{p.runs / p.messages:.3f}"
        wcpu = "—" if p.worker_cpu is None else f"{p.worker_cpu * 1000 / p.messages:.2f}"
        dcpu = "—" if p.db_cpu is None else f"{p.db_cpu * 1000 / p.messages:.2f}"
        xacts = "—" if p.xacts is None else f"{p.xacts / p.messages:.1f}"
        load = "—" if not p.load else f"{statistics.mean(p.load):.2f} ({max(p.load):.2f})"
        print(
            f"{p.name:<40} {p.messages:>8,} {seconds:>9} {rate:>8} {share:>8} {runs:>9} "
            f"{wcpu:>10} {dcpu:>8} {xacts:>6} {load:>11}"
        )
    print()
    for p in phases:
        for note in p.notes:
            print(f"  {p.name}: {note}")
    print()
    print(f"machine: {os.cpu_count()} CPUs; workers: {args.processes} processes x "
          f"{args.threads} threads: {' '.join(command)}")  # fmt: skip
    goals = []
    if send and insert and send.rate and insert.rate:
        share = send.rate / insert.rate
        figures = f"{send.rate:,.0f} / {insert.rate:,.0f} msgs/s = {share:.1%}"
        goals.append((f"send rate >= {GOAL_SHARE:.0%} of the one-INSERT ceiling",
                      share >= GOAL_SHARE, figures))  # fmt: skip
    if send and send.runs is not None:
        runs = send.runs / send.messages
        figures = f"{send.runs:,} runs / {send.messages:,} sends = {runs:.3f}"
        goals.append((f"<= {GOAL_RUNS} actor runs per send (pacing off)", runs <= GOAL_RUNS,
                      figures))  # fmt: skip
    if paced and paced.runs is not None:
        runs = paced.runs / paced.messages
        figures = f"{paced.runs:,} runs / {paced.messages:,} sends = {runs:.3f} (simulated)"
        goals.append((f"production pacing: ~1 run per send (<= {GOAL_PACED_RUNS})",
                      runs <= GOAL_PACED_RUNS, figures))  # fmt: skip
    if paced and paced.statements is not None:
        figures = f"median {paced.statements:.0f} SQL statements per run that sent (simulated)"
        goals.append((f"<= {GOAL_STATEMENTS} SQL statements per send",
                      paced.statements <= GOAL_STATEMENTS, figures))  # fmt: skip
    for goal, met, figures in goals:
        harness.judge("send_pipeline", goal, met, figures, smoke=args.smoke)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--phones", type=int, default=20)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--ceiling-messages", type=int, default=10_000)
    parser.add_argument("--paced-messages", type=int, default=200)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument(
        "--explain", action="store_true", help="print the SQL of one send (paced phase)"
    )
    parser.add_argument(
        "--only", choices=("noop", "insert", "send", "paced"), nargs="*", help="phases to run"
    )
    harness.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.messages, args.phones, args.ceiling_messages, args.paced_messages = 40, 4, 200, 5
        args.processes, args.threads = 1, 4
    if args.phones > 20 or args.messages > args.phones * 1000:
        parser.error("at most 20 phones (the per-phone queues) and 1,000 messages a phone")

    server = FakeTimelinesAI()
    server.start()
    args.database_url = harness.database_url("send", args.database_url, smoke=args.smoke)
    set_environment(args, server)
    configure("send", args)  # claims, migrates the database; production settings
    logging.disable(logging.INFO)  # this process's own sends (paced phase) log per call

    from django.utils.module_loading import import_string

    try:
        import_string(TIMELINESAI_BACKEND)
    except ImportError as error:
        print(f"TIMELINESAI_BACKEND {TIMELINESAI_BACKEND!r}: {error}; update it at the top "
              "of bench/send_pipeline.py", file=sys.stderr)  # fmt: skip
        return 1
    logs = Path(tempfile.mkdtemp(prefix="bench-send-"))
    only = set(args.only or ("noop", "insert", "send", "paced"))
    try:
        bench = Bench(args, server, logs)
        empty_database()
        print(f"fake TimelinesAI at {server.base_url}; worker logs in {logs}; "
              f"load average {os.getloadavg()}")  # fmt: skip
        phases = []
        steps = (
            ("noop", lambda: bench.ceiling("noop")),
            ("insert", lambda: bench.ceiling("insert")),
            ("send", bench.send),
            ("paced", bench.paced),
        )
        for key, step in steps:
            if key in only:
                t0 = time.perf_counter()
                phases.append(step())
                print(f"  {phases[-1].name}: done in {time.perf_counter() - t0:.1f} s", flush=True)
        bench.flush_broker()
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    report(phases, args, bench.command)
    return harness.exit_status(args)


if __name__ == "__main__":
    sys.exit(main())
