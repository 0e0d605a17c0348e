"""Benchmark the webhook intake under gunicorn against a bare DRF one-INSERT endpoint.

    .venv/bin/python bench/webhooks.py [--duration 20] [--rounds 3] [--warmup 5]
        [--connections 2] [--wrk-threads 2] [--workers 2] [--worker-class sync]
        [--database-url postgres://…/any_name] [--smoke] [--strict]
        [--redis-url redis://127.0.0.1:6379/9] [--profile-requests 1000] [--no-profile]
        [--quiet-cpus 0.35] [--quiet-wait 120] [--retries 2] [--prototype]

Issue #10: throughput and p50/p99 of `POST /webhooks/timelinesai/<token>/` next to the
ceiling, `POST /bench/insert/` (bench/webhook_urls.py: the same APIView machinery, reads the
raw body, one INSERT), both served by one gunicorn (`gunicorn -c gunicorn.conf.py
cerniq.wsgi`, as the Dockerfile starts it, with bench/webhook_settings.py: production
settings, DEBUG off, ALLOWED_HOSTS 127.0.0.1, behind-a-TLS-proxy header; the masked access
log is written to /dev/null so it is formatted as in production but never piped) and
loaded by wrk (Debian's `wrk`) in alternating rounds. Every request posts the real fixture
integrations/timelinesai/fixtures/webhooks/message_received_new__text.json with a message_uid
of its own (the Lua script builds UUIDs from a per-round nonce, the wrk thread and a
counter), so each one is a new event on the accepted path, never the duplicate answer.

Server settings, the same for both endpoints: 2 sync workers, as the Dockerfile runs them
(gunicorn's default class; 2 for the 2 CPUs that also run PostgreSQL, Redis and wrk). A sync
worker serves one request at a time and closes the connection after it, as behind the
production proxy (which opens a connection per request to gunicorn); `--worker-class
gthread` keeps connections alive instead. 2 wrk connections keep both workers busy without
a queue in front of them, so latency is service time, not waiting in the listen backlog.

The intake hands each stored event to the workers through cerniq.relay (the production
default window, settings.WEBHOOK_RELAY_WAIT: one `process_webhook_events` message per batch
gathered by a gunicorn worker's relay thread) on a real Redis broker (a database of
its own, 9 by default: 10 is bench/faults.py's, 11 send_pipeline.py's, 12-15 the tests'; and
the Dramatiq namespace `cerniq-bench-webhooks`, emptied before each round, never the whole
database); no worker runs (the issue measures intake). Uses its own PostgreSQL database
(bench/harness.py: any name, created if missing, migrated, emptied); the webhook table
and the ceiling table are emptied before each round. After each round the bench checks
that every answered request left exactly one row (RECEIVED, distinct keys; one ceiling row)
and that the broker messages carry every webhook row's id exactly once (it prints how many
events a message carried on average).

Per round: requests, req/s, p50/p90/p99/max latency (wrk), CPU per request of the gunicorn
workers (/proc utime+stime), of the PostgreSQL backends of the bench database and of
redis-server (shared with other users of this Redis), transactions per request
(pg_stat_database, read once the backends have flushed their statistics), how busy the
machine's CPUs were, the CPUs other processes used and the load average. The box is small
and may be shared: a round starts once other processes use fewer than --quiet-cpus CPUs
(waiting --quiet-wait seconds at most) and is repeated (--retries times at most) when they
used more during it; a round still disturbed is marked `*`. CPU per request is the figure
that depends least on all that.

Then, in this process, through Django's WSGI handler exactly as gunicorn calls it
(request_started/finished included, so CONN_HEALTH_CHECKS' `SELECT 1` shows): the database
round trips of one request on each endpoint (every statement psycopg sends, BEGIN, SAVEPOINT
and COMMIT included) and the Redis commands; CPU and wall per request without a profiler;
a cProfile breakdown of the intake; and the cost of each step of the intake measured on its
own, beside the alternatives (a cached tenant, one INSERT ... ON CONFLICT DO NOTHING).
`--prototype` also loads `/bench/lean/...` (bench/webhook_urls.py's LeanIntakeView: the
same accepted path with a cached tenant and one INSERT ... ON CONFLICT DO NOTHING) and
`/bench/lean-noenqueue/...` (the same without the broker enqueue) in every round: what the
suggested changes are worth, and what the broker round trip costs, measured beside both.

Prints the tables and whether the goals are met (webhook req/s >= 80 % of the ceiling's,
p99 < 50 ms). Exits 1 only on errors (a refused or lost request, a duplicate answer, a
missing broker message, a gunicorn worker that died, wrk socket errors), never on a goal.
"""

from __future__ import annotations

import argparse
import cProfile
import http.client
import io
import json
import os
import pstats
import re
import resource
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import harness  # noqa: E402
from bench.dispatch import shape  # noqa: E402
from bench.harness import BenchError  # noqa: E402
from bench.import_leads import ROOT, configure  # noqa: E402

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/9"
NAMESPACE = "cerniq-bench-webhooks"
QUEUE = "webhooks"  # cerniq.tasks.process_webhook_event's queue
TENANT_SLUG = "bench-webhooks"
PROVIDER = "timelinesai"
FIXTURE = ROOT / "integrations/timelinesai/fixtures/webhooks/message_received_new__text.json"
CEILING_PATH = "/bench/insert/"
LEAN = "prototype"  # bench/webhook_urls.py's LeanIntakeView, with --prototype
NO_ENQUEUE = "proto-noenq"  # its LeanNoEnqueueView, with --prototype
GOAL_SHARE = 0.80
GOAL_P99_MS = 50.0
LOCK_KEY = 0x5E4D_B3C5  # a session advisory lock: one run of this bench at a time
STATS_FLUSH_SECONDS = 11.0  # PostgreSQL 15 backends flush idle statistics within 10 s

LUA = r"""
-- bench/webhooks.py: one POST per request, each with a message_uid of its own.
local prefix = [====[@PREFIX@]====]
local suffix = [====[@SUFFIX@]====]
local headers = {
  ["Content-Type"] = "application/json",
  ["User-Agent"] = "bench-webhooks",
  ["X-Forwarded-Proto"] = "https",
}
local threads = 0
local path, nonce, n = "/", "00000000", 0

function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

function init(args)
  path, nonce = args[1], args[2]
  math.randomseed(tid * 7919 + os.time())
end

function request()
  n = n + 1
  local uid = string.format("%s-%04x-4%03x-8%03x-%012x", nonce, tid,
    math.random(0, 4095), math.random(0, 4095), n)
  return wrk.format("POST", path, headers, prefix .. uid .. suffix)
end

function done(summary, latency, requests)
  io.write(string.format(
    'BENCH-RESULT {"requests": %d, "duration_us": %d, "bytes": %d, "connect": %d, ' ..
    '"read": %d, "write": %d, "status": %d, "timeout": %d, "p50": %.0f, "p90": %.0f, ' ..
    '"p99": %.0f, "max": %.0f, "mean": %.1f}\n',
    summary.requests, summary.duration, summary.bytes, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    latency.mean))
end
"""


# --- measuring ---------------------------------------------------------------------------


def proc_cpu(pid: int) -> float | None:
    """utime + stime of a process, seconds (None when it is gone or unreadable)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return sorted(found)


def cpu_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


class CpuMeter:
    """CPU seconds of a changing set of processes, sampled while a round runs: a process
    that exits keeps its last reading."""

    def __init__(self, pids: Callable[[], list[int]]) -> None:
        self.pids = pids
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.sample()

    def sample(self) -> None:
        for pid in self.pids():
            cpu = proc_cpu(pid)
            if cpu is not None:
                self.first.setdefault(pid, cpu)
                self.last[pid] = cpu

    def total(self) -> float:
        return sum(self.last[pid] - self.first[pid] for pid in self.last)


@dataclass
class Round:
    endpoint: str  # "ceiling" | "webhook"
    number: int
    wrk: dict
    rows: int = 0
    server_cpu: float = 0.0
    pg_cpu: float = 0.0
    redis_cpu: float = 0.0
    wrk_cpu: float = 0.0
    xacts: int = 0
    busy: float = 0.0  # share of the machine's CPU time in use
    others: float = 0.0  # CPUs used by everything not measured here (other people's work)
    attempts: int = 1
    messages: int = 0  # broker messages that carried the round's events
    load: list[float] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return self.wrk["requests"]

    @property
    def rate(self) -> float:
        return self.requests / (self.wrk["duration_us"] / 1e6)

    def ms(self, key: str) -> float:
        return self.wrk[key] / 1000

    def per_request(self, seconds: float) -> float:
        return seconds * 1000 / self.requests if self.requests else float("nan")


# --- the server --------------------------------------------------------------------------


class Gunicorn:
    """`gunicorn -c gunicorn.conf.py cerniq.wsgi` with the bench settings, as production
    starts it (Dockerfile), on a free loopback port."""

    def __init__(self, args: argparse.Namespace, log: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.log = log
        self.command = [
            str(Path(sys.executable).parent / "gunicorn"), "-c", "gunicorn.conf.py",
            "cerniq.wsgi", "--bind", f"127.0.0.1:{self.port}",
            "--workers", str(args.workers), "--worker-class", args.worker_class,
            *(["--threads", str(args.threads)] if args.worker_class == "gthread" else []),
            "--timeout", "30", "--access-logfile", "/dev/null", "--error-logfile", "-",
        ]  # fmt: skip
        self.proc: subprocess.Popen | None = None
        self.workers: list[int] = []

    def __enter__(self) -> Gunicorn:
        out = self.log.open("ab")
        self.proc = subprocess.Popen(
            self.command, cwd=ROOT, env=dict(os.environ), stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        out.close()
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise BenchError(f"gunicorn exited ({self.proc.returncode}); see {self.log}")
            try:
                status = self.get("/health/live")  # up; readiness would ask for workers
            except OSError:
                status = 0
            if status == 200:
                break
            if time.monotonic() > deadline:
                raise BenchError(f"gunicorn did not answer within 60 s; see {self.log}")
            time.sleep(0.2)
        self.workers = children(self.proc.pid)
        return self

    def get(self, path: str) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request("GET", path, headers={"X-Forwarded-Proto": "https"})
            return conn.getresponse().status
        finally:
            conn.close()

    def check_workers(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            raise BenchError(f"gunicorn exited; see {self.log}")
        now = children(self.proc.pid)
        if now != self.workers:
            raise BenchError(f"gunicorn workers changed {self.workers} -> {now}; see {self.log}")

    def __exit__(self, *exc: object) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


# --- the bench ---------------------------------------------------------------------------


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
        locked = self.maintenance.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY]).fetchone()
        if not locked[0]:
            raise BenchError("another bench/webhooks.py is running on this PostgreSQL")
        raw = FIXTURE.read_bytes()
        self.fixture_uid = json.loads(raw)["message"]["message_uid"]
        if raw.count(self.fixture_uid.encode()) != 1:
            raise BenchError(f"{FIXTURE.name}: its message_uid must appear exactly once")
        self.body = raw
        self.token = ""
        self.script = work / "post.lua"
        self.meters: list[CpuMeter] = []
        self.load: list[float] = []

    # --- setup ------------------------------------------------------------------------

    def prepare(self) -> None:
        """Empty the bench database, create the ceiling table and the tenant."""
        from django.core.management import call_command
        from django.db import connection

        from bench.webhook_urls import CREATE_TABLE
        from cerniq.models import Tenant

        call_command("flush", interactive=False, verbosity=0)
        with connection.cursor() as cursor:
            cursor.execute(CREATE_TABLE)
        tenant = Tenant.objects.create(name="Bench webhooks", slug=TENANT_SLUG)
        self.token = tenant.webhook_token
        prefix, suffix = self.body.decode().split(self.fixture_uid)
        if "]====]" in prefix + suffix:
            raise BenchError("the fixture contains the Lua string delimiter")
        self.script.write_text(LUA.replace("@PREFIX@", prefix).replace("@SUFFIX@", suffix))

    def webhook_path(self) -> str:
        return f"/webhooks/{PROVIDER}/{self.token}/"

    def path_of(self, endpoint: str) -> str:
        if endpoint == LEAN:
            return f"/bench/lean/{PROVIDER}/{self.token}/"
        if endpoint == NO_ENQUEUE:
            return f"/bench/lean-noenqueue/{PROVIDER}/{self.token}/"
        return CEILING_PATH if endpoint == "ceiling" else self.webhook_path()

    def endpoints(self) -> tuple[str, ...]:
        if self.args.prototype:
            return ("ceiling", "webhook", LEAN, NO_ENQUEUE)
        return ("ceiling", "webhook")

    def reset(self) -> None:
        """Empty both tables and the broker namespace before a round."""
        from django.db import connection

        from bench.webhook_urls import TABLE
        from cerniq.models import WebhookEvent

        with connection.cursor() as cursor:
            cursor.execute(f"TRUNCATE {WebhookEvent._meta.db_table}, {TABLE}")
        connection.close()  # its backend exits: its statistics are flushed, not the round's
        self.flush_broker()

    def flush_broker(self) -> None:
        keys = list(self.redis.scan_iter(match=f"{NAMESPACE}:*", count=1000))
        for start in range(0, len(keys), 1000):
            self.redis.delete(*keys[start : start + 1000])

    def xacts(self) -> int:
        self.maintenance.execute("SELECT pg_stat_clear_snapshot()")
        row = self.maintenance.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = %s",
            [self.dbname],
        ).fetchone()
        return int(row[0])

    def backends(self) -> list[int]:
        rows = self.maintenance.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.dbname]
        ).fetchall()
        return [pid for (pid,) in rows]

    # --- load ---------------------------------------------------------------------------

    def wrk(self, endpoint: str, seconds: float, server: Gunicorn) -> tuple[dict, float]:
        """One wrk run; its result (the Lua `done` line) and wrk's own CPU seconds."""
        nonce = secrets.token_hex(4)
        command = [
            shutil.which("wrk") or "wrk", "-t", str(self.args.wrk_threads),
            "-c", str(self.args.connections), "-d", f"{seconds:g}s", "--latency",
            "--timeout", "5s", "-s", str(self.script), f"http://127.0.0.1:{server.port}",
            "--", self.path_of(endpoint), nonce,
        ]  # fmt: skip
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.during(proc)
        output = proc.stdout.read().decode() if proc.stdout else ""
        proc.wait()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        match = re.search(r"^BENCH-RESULT (\{.*\})$", output, re.MULTILINE)
        if proc.returncode or not match:
            raise BenchError(f"wrk failed ({proc.returncode}):\n{output}")
        return json.loads(match.group(1)), cpu

    def during(self, proc: subprocess.Popen) -> None:
        """Sample the meters until `proc` ends (set by `round` before the run)."""
        while proc.poll() is None:
            time.sleep(0.5)
            for meter in self.meters:
                meter.sample()
            self.load.append(os.getloadavg()[0])

    def wait_quiet(self) -> float:
        """Wait (at most --quiet-wait seconds) until other processes use less than
        --quiet-cpus CPUs, measured over 2 s with nothing of ours running; return the last
        measure."""
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

    def measured_round(self, endpoint: str, number: int, server: Gunicorn) -> Round:
        """A round; repeated (--retries times at most) when other processes used more than
        --quiet-cpus CPUs during it."""
        for attempt in range(self.args.retries + 1):
            self.wait_quiet()
            found = self.round(endpoint, number, server)
            if found.others < self.args.quiet_cpus:
                break
            if attempt < self.args.retries:
                print(
                    f"    {endpoint} round {number}: other processes used {found.others:.2f} "
                    f"CPUs ({found.rate:,.0f} req/s); repeating it",
                    flush=True,
                )
        found.attempts = attempt + 1
        return found

    def round(self, endpoint: str, number: int, server: Gunicorn) -> Round:
        self.reset()
        time.sleep(0.5)
        xacts = self.xacts()
        server_meter = CpuMeter(lambda: server.workers)
        pg_meter = CpuMeter(self.backends)
        redis_meter = CpuMeter(lambda: self.redis_pids)
        self.meters, self.load = [server_meter, pg_meter, redis_meter], []
        busy0, own0 = cpu_busy(), time.process_time()
        result, wrk_cpu = self.wrk(endpoint, self.args.duration, server)
        busy1, own = cpu_busy(), time.process_time() - own0
        for meter in self.meters:
            meter.sample()
        server.check_workers()
        time.sleep(self.args.settle)  # the backends flush their statistics when idle
        found = Round(endpoint, number, result, load=self.load, wrk_cpu=wrk_cpu)
        found.server_cpu, found.pg_cpu = server_meter.total(), pg_meter.total()
        found.redis_cpu = redis_meter.total()
        found.xacts = self.xacts() - xacts
        found.busy = (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1])
        ours = found.server_cpu + found.pg_cpu + found.redis_cpu + wrk_cpu + own
        busy_seconds = (busy1[0] - busy0[0]) / os.sysconf("SC_CLK_TCK")
        found.others = max(0.0, busy_seconds - ours) / (result["duration_us"] / 1e6)
        found.rows = self.check(found)
        return found

    def check(self, found: Round) -> int:
        """Every answered request left its row (and its broker message); nothing else."""
        from django.db import connection
        from django.db.models import Count

        from bench.webhook_urls import TABLE
        from cerniq.models import WebhookEvent

        result, name = found.wrk, f"{found.endpoint} round {found.number}"
        errors = {k: result[k] for k in ("connect", "read", "write", "timeout", "status")}
        if any(errors.values()):
            raise BenchError(f"{name}: wrk errors {errors} (status: non-2xx/3xx answers)")
        slack = self.args.connections  # requests still in flight when wrk stopped
        if found.endpoint == "ceiling":
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT count(*) FROM {TABLE}")  # noqa: S608 - a constant
                rows = cursor.fetchone()[0]
            if not result["requests"] <= rows <= result["requests"] + slack:
                raise BenchError(f"{name}: {rows} rows for {result['requests']} answers")
            if WebhookEvent.objects.exists():
                raise BenchError(f"{name}: webhook rows appeared")
            return rows
        events = WebhookEvent.objects.all()
        statuses = dict(events.values_list("status").annotate(n=Count("pk")).order_by())
        rows = statuses.get(WebhookEvent.Status.RECEIVED, 0)
        distinct = events.values("provider_event_id").distinct().count()
        if set(statuses) != {WebhookEvent.Status.RECEIVED} or distinct != rows:
            raise BenchError(f"{name}: rows by status {statuses}, {distinct} distinct keys")
        if not result["requests"] <= rows <= result["requests"] + slack:
            raise BenchError(f"{name}: {rows} RECEIVED rows for {result['requests']} answers")
        expected = sorted(events.values_list("pk", flat=True))
        if found.endpoint == NO_ENQUEUE:
            expected = []
        deadline = time.monotonic() + 5  # the relay threads send within their window
        while True:
            messages, queued = self.queued_event_ids()
            if queued == expected or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        if queued != expected:
            raise BenchError(
                f"{name}: {len(queued)} event ids in {messages} broker messages for {rows} "
                f"rows ({len(set(expected) - set(queued))} rows not queued)"
            )
        found.messages = messages
        return rows

    def queued_event_ids(self) -> tuple[int, list[int]]:
        """(broker messages, the event ids they carry, sorted): one id per
        process_webhook_event message, a batch per process_webhook_events (cerniq.relay)."""
        ids: list[int] = []
        raw_messages = self.redis.hvals(f"{NAMESPACE}:{QUEUE}.msgs")
        for raw in raw_messages:
            message = json.loads(raw)
            (arg,) = message["args"]
            ids.extend(arg if isinstance(arg, list) else [arg])
        return len(raw_messages), sorted(ids)

    # --- in process: statements, CPU, profile -----------------------------------------

    def call(self, handler, path: str, body: bytes) -> tuple[str, bytes]:
        """One request through Django's WSGI handler, as gunicorn makes it."""
        environ = {
            "REQUEST_METHOD": "POST", "PATH_INFO": path, "SCRIPT_NAME": "", "QUERY_STRING": "",
            "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
            "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1", "HTTP_USER_AGENT": "bench-webhooks",
            "HTTP_X_FORWARDED_PROTO": "https", "REMOTE_ADDR": "127.0.0.1",
            "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http", "wsgi.multithread": False, "wsgi.multiprocess": True,
            "wsgi.run_once": False,
        }  # fmt: skip
        status: list[str] = []
        result = handler(environ, lambda s, headers, exc_info=None: status.append(s))
        try:
            content = b"".join(result)
        finally:
            result.close()  # request_finished: close_old_connections, as gunicorn does
        return status[0], content

    def fresh_body(self) -> bytes:
        return self.body.replace(self.fixture_uid.encode(), str(uuid.uuid4()).encode())

    def statements(self, handler) -> dict[str, list[str]]:
        """Every statement psycopg sends (cursor executes, and the BEGIN / COMMIT /
        ROLLBACK it issues itself) and every Redis command, for one warm request per
        endpoint."""
        import psycopg
        import redis
        from psycopg._connection_base import BaseConnection

        seen: list[str] = []
        execute, command, redis_execute = (
            psycopg.Cursor.execute, BaseConnection._exec_command, redis.Redis.execute_command,
        )  # fmt: skip

        def counted_execute(cursor, query, *a, **k):
            try:
                return execute(cursor, query, *a, **k)
            finally:  # after the BEGIN psycopg sends first, when it does
                seen.append(f"SQL   {shape(query if isinstance(query, str) else str(query))}")

        def counted_command(conn, query, *a, **k):
            text = query.decode() if isinstance(query, bytes) else str(query)
            seen.append(f"SQL   {text}")
            return command(conn, query, *a, **k)

        def counted_redis(client, *args, **k):
            seen.append(f"Redis {' '.join(str(a)[:40] for a in args[:2])}")
            return redis_execute(client, *args, **k)

        found = {}
        for endpoint in self.endpoints():
            for warm in (True, False):
                seen.clear()
                psycopg.Cursor.execute = counted_execute
                BaseConnection._exec_command = counted_command
                redis.Redis.execute_command = counted_redis
                try:
                    status, content = self.call(handler, self.path_of(endpoint), self.fresh_body())
                finally:
                    psycopg.Cursor.execute = execute
                    BaseConnection._exec_command = command
                    redis.Redis.execute_command = redis_execute
                if not status.startswith("200") or b"accepted" not in content:
                    raise BenchError(f"{endpoint} in process: {status} {content[:200]!r}")
                if not warm:
                    found[endpoint] = list(seen)
        return found

    def timed(self, handler, endpoint: str, n: int) -> tuple[float, float]:
        """Median CPU and wall ms per request, in process, no profiler."""
        path, cpu, wall = self.path_of(endpoint), [], []
        bodies = [self.fresh_body() for _ in range(n)]
        for body in bodies:
            c0, w0 = time.process_time(), time.perf_counter()
            status, _ = self.call(handler, path, body)
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
            if not status.startswith("200"):
                raise BenchError(f"{endpoint} in process: {status}")
        return statistics.median(cpu) * 1000, statistics.median(wall) * 1000

    def profile(self, handler, n: int) -> pstats.Stats:
        bodies = [self.fresh_body() for _ in range(n)]
        path = self.webhook_path()
        profiler = cProfile.Profile()
        profiler.enable()
        for body in bodies:
            self.call(handler, path, body)
        profiler.disable()
        return pstats.Stats(profiler)

    def steps(self, n: int) -> list[tuple[str, float, float, int]]:
        """Each step of the intake on its own, and the alternatives: (label, wall ms, CPU
        ms, statements) per call, medians of `n`."""
        from django.core.cache import cache
        from django.db import connection, transaction
        from django.test.utils import CaptureQueriesContext

        from cerniq import webhooks
        from cerniq.models import Tenant, WebhookEvent
        from cerniq.tasks import process_webhook_event

        receiver = webhooks.get_receiver(PROVIDER)
        tenant = Tenant.objects.get(slug=TENANT_SLUG)
        payload = webhooks.parse_payload(self.body)
        event_type, _ = receiver.identify(payload)
        row = {
            "tenant": tenant, "raw_body": self.body, "verified": True,
            "headers": {"Content-Type": "application/json", "User-Agent": "bench-webhooks"},
            "remote_addr": "127.0.0.1",
        }  # fmt: skip
        local: dict[str, Tenant] = {}
        cache.set(f"bench-webhooks:{self.token}", tenant.pk, 60)
        table = WebhookEvent._meta.db_table
        insert_sql = (
            f"INSERT INTO {table} (tenant_id, provider, event_type, provider_event_id, "  # noqa: S608
            "raw_body, headers, remote_addr, verified, status, error, attempts, received_at) "
            "VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s, true, 'RECEIVED', '', 0, now()) "
            "ON CONFLICT (provider, provider_event_id) WHERE NOT (provider_event_id = '') "
            "DO NOTHING RETURNING id"
        )

        def get_or_create() -> None:
            with transaction.atomic():
                WebhookEvent.objects.get_or_create(
                    provider=PROVIDER, provider_event_id=f"bench:{uuid.uuid4()}",
                    defaults={"event_type": event_type, "status": "RECEIVED", **row},
                )  # fmt: skip

        def create() -> None:
            WebhookEvent.objects.create(
                provider=PROVIDER, provider_event_id=f"bench:{uuid.uuid4()}",
                event_type=event_type, status="RECEIVED", **row,
            )  # fmt: skip

        def on_conflict() -> None:
            with connection.cursor() as cursor:
                cursor.execute(
                    insert_sql,
                    [tenant.pk, PROVIDER, event_type, f"bench:{uuid.uuid4()}", self.body,
                     json.dumps(row["headers"]), "127.0.0.1"],
                )  # fmt: skip
                cursor.fetchone()

        cases: list[tuple[str, Callable[[], object]]] = [
            ("tenant lookup, ORM (tenant_for_url_token)",
             lambda: webhooks.tenant_for_url_token(self.token)),
            ("tenant lookup, Django cache (Redis GET)",
             lambda: cache.get(f"bench-webhooks:{self.token}")),
            ("tenant lookup, process-local dict",
             lambda: local.get(self.token) or local.setdefault(self.token, tenant)),
            ("parse_payload (json.loads + strict checks)",
             lambda: webhooks.parse_payload(self.body)),
            ("json.loads only", lambda: json.loads(self.body)),
            ("receiver.identify (pydantic schema)", lambda: receiver.identify(payload)),
            ("store: get_or_create in atomic() (today)", get_or_create),
            ("store: ORM create() in autocommit", create),
            ("store: INSERT ... ON CONFLICT DO NOTHING", on_conflict),
            ("enqueue: process_webhook_event.send (Redis)",
             lambda: process_webhook_event.send(0)),
        ]  # fmt: skip
        found = []
        for label, step in cases:
            for _ in range(min(50, n)):
                step()
            with CaptureQueriesContext(connection) as ctx:
                step()
            statements = len(ctx.captured_queries)
            cpu, wall = [], []
            for _ in range(n):
                c0, w0 = time.process_time(), time.perf_counter()
                step()
                cpu.append(time.process_time() - c0)
                wall.append(time.perf_counter() - w0)
            found.append(
                (label, statistics.median(wall) * 1000, statistics.median(cpu) * 1000, statements)
            )
        return found


# --- report ------------------------------------------------------------------------------

# (label, file suffix, function, "cum" or "own") whose time the profile reports per request:
# cumulative (the function and what it calls) or its own. "~": a built-in whose name
# contains the function. psycopg's C waits run inside `Connection.wait`, its sends inside
# `_execute_send` (cProfile does not see Cython functions), hence their own time.
PROFILE_PARTS = (
    ("whole request (WSGIHandler.__call__)", "django/core/handlers/wsgi.py", "__call__", "cum"),
    ("  request signals (close_old_connections)", "django/db/__init__.py",
     "close_old_connections", "cum"),
    ("  APIView.dispatch", "rest_framework/views.py", "dispatch", "cum"),
    ("    WebhookIntakeView.post", "cerniq/webhook_intake.py", "post", "cum"),
    ("      get_receiver", "cerniq/webhooks.py", "get_receiver", "cum"),
    ("      tenant_for_url_token", "cerniq/webhooks.py", "tenant_for_url_token", "cum"),
    ("      parse_payload", "cerniq/webhooks.py", "parse_payload", "cum"),
    ("      _checked_identity (identify)", "cerniq/webhooks.py", "_checked_identity", "cum"),
    ("      get_or_create", "django/db/models/query.py", "get_or_create", "cum"),
    ("      Atomic.__exit__ (RELEASE, COMMIT, on_commit)", "django/db/transaction.py",
     "__exit__", "cum"),
    ("      Actor.send (enqueue to Redis)", "dramatiq/actor.py", "send", "cum"),
    ("    finalize_response", "rest_framework/views.py", "finalize_response", "cum"),
    ("  rendered_content (JSONRenderer)", "rest_framework/response.py", "rendered_content",
     "cum"),
    ("  PostgreSQL: waiting for answers (own)", "psycopg/connection.py", "wait", "own"),
    ("  PostgreSQL: sending queries (own)", "psycopg/client_cursor.py", "_execute_send", "own"),
    ("  PostgreSQL: BEGIN/COMMIT/SAVEPOINT (own)", "psycopg/_connection_base.py",
     "_exec_command", "own"),
    ("  Redis: socket send and receive", "~", "_socket.socket", "own"),
)  # fmt: skip


def profile_table(stats: pstats.Stats, n: int) -> list[str]:
    entries = stats.stats  # type: ignore[attr-defined]
    lines = []
    for label, suffix, name, kind in PROFILE_PARTS:
        total, calls = 0.0, 0
        for (filename, _, function), (_, ncalls, own, cumulative, _) in entries.items():
            hit = (
                name in function and filename == "~"
                if suffix == "~"
                else function == name and filename.endswith(suffix)
            )
            if hit:
                total, calls = total + (own if kind == "own" else cumulative), calls + ncalls
        if calls:
            lines.append(f"  {label:<46} {total * 1000 / n:7.2f} ms  {calls / n:5.1f} calls")
        else:
            lines.append(f"  {label:<46}       —    (not found)")
    top = sorted(entries.items(), key=lambda item: item[1][2], reverse=True)[:15]
    lines.append("  top functions by own time (ms per request, calls per request):")
    for (filename, line, function), (_, ncalls, own, _, _) in top:
        where = filename.replace(str(ROOT) + "/", "").split("site-packages/")[-1]
        lines.append(f"    {own * 1000 / n:6.3f} ms {ncalls / n:6.1f}  {where}:{line} {function}")
    return lines


def report(rounds: list[Round], args: argparse.Namespace, server: Gunicorn) -> None:
    print()
    header = (
        f"{'endpoint':<11} {'round':>5} {'requests':>9} {'req/s':>7} {'p50 ms':>7} {'p90 ms':>7} "
        f"{'p99 ms':>7} {'max ms':>7} {'server':>7} {'PG':>6} {'Redis':>6} {'wrk':>6} "
        f"{'xacts':>6} {'CPUs':>5} {'others':>6} {'load 1m':>11}"
    )
    print(header)
    print(f"{'':<11} {'':>5} {'':>9} {'':>7} {'':>7} {'':>7} {'':>7} {'':>7} "
          f"{'CPU ms/request':^30} {'/req':>6} {'busy':>5} {'CPUs':>6} "
          f"{'mean (max)':>11}")  # fmt: skip
    print("-" * len(header))
    for r in rounds:
        load = f"{statistics.mean(r.load):.2f} ({max(r.load):.2f})" if r.load else "—"
        number = f"{'*' if r.others >= args.quiet_cpus else ''}{r.number}"
        print(
            f"{r.endpoint:<11} {number:>5} {r.requests:>9,} {r.rate:>7,.0f} {r.ms('p50'):>7.2f} "
            f"{r.ms('p90'):>7.2f} {r.ms('p99'):>7.2f} {r.ms('max'):>7.1f} "
            f"{r.per_request(r.server_cpu):>7.2f} {r.per_request(r.pg_cpu):>6.2f} "
            f"{r.per_request(r.redis_cpu):>6.2f} {r.per_request(r.wrk_cpu):>6.2f} "
            f"{r.xacts / r.requests:>6.2f} {r.busy:>5.0%} {r.others:>6.2f} {load:>11}"
        )
    print("-" * len(header))
    summary = {}
    endpoints = list(dict.fromkeys(r.endpoint for r in rounds))
    for endpoint in endpoints:
        mine = [r for r in rounds if r.endpoint == endpoint]
        requests = sum(r.requests for r in mine)
        seconds = sum(r.wrk["duration_us"] for r in mine) / 1e6
        summary[endpoint] = {
            "rate": requests / seconds,
            "p50": statistics.median(r.ms("p50") for r in mine),
            "p99": max(r.ms("p99") for r in mine),
            "cpu": sum(r.server_cpu for r in mine) * 1000 / requests,
            "pg": sum(r.pg_cpu for r in mine) * 1000 / requests,
        }
        s = summary[endpoint]
        print(
            f"{endpoint:<11} {'all':>5} {requests:>9,} {s['rate']:>7,.0f} {s['p50']:>7.2f} "
            f"{'':>7} {s['p99']:>7.2f} {'':>7} {s['cpu']:>7.2f} {s['pg']:>6.2f}"
        )
    print(
        "(all: req/s over all rounds, median p50, worst p99; CPU: the 2 gunicorn workers, "
        "the bench database's PostgreSQL backends, redis-server (shared), wrk itself; CPUs "
        "busy: the whole machine; others: CPUs used by processes not measured here; "
        f"*: others used >= {args.quiet_cpus:g} CPUs even after {args.retries} repeat(s))"
    )
    print()
    print(
        f"gunicorn: {' '.join(server.command[1:])}\nwrk: -t{args.wrk_threads} "
        f"-c{args.connections} -d{args.duration:g}s --latency, {args.rounds} rounds per "
        f"endpoint alternating after {args.warmup:g} s warm-up each; {os.cpu_count()} CPUs"
    )
    ceiling = summary["ceiling"]
    for endpoint in endpoints[1:]:
        pairs = [
            w.rate / c.rate
            for c, w in zip(
                [r for r in rounds if r.endpoint == "ceiling"],
                [r for r in rounds if r.endpoint == endpoint],
                strict=True,
            )
        ]
        mine = summary[endpoint]
        print(
            f"ratio {endpoint} / ceiling: {mine['rate']:,.0f} / {ceiling['rate']:,.0f} req/s = "
            f"{mine['rate'] / ceiling['rate']:.2f} (per round: "
            f"{', '.join(f'{p:.2f}' for p in pairs)}); gunicorn CPU per request "
            f"{mine['cpu']:.2f} ms vs {ceiling['cpu']:.2f} ms ({ceiling['cpu'] / mine['cpu']:.2f})"
        )
    webhook = summary["webhook"]
    share = webhook["rate"] / ceiling["rate"]
    goals = (
        (f"webhook req/s >= {GOAL_SHARE:.0%} of the ceiling", share >= GOAL_SHARE,
         f"{share:.1%}"),
        (f"webhook p99 < {GOAL_P99_MS:.0f} ms", webhook["p99"] < GOAL_P99_MS,
         f"worst round {webhook['p99']:.1f} ms"),
    )  # fmt: skip
    for goal, met, figures in goals:
        harness.judge("webhooks", goal, met, figures, smoke=args.smoke)


def in_process_report(bench: Bench, n: int) -> None:
    from django.core.handlers.wsgi import WSGIHandler

    handler = WSGIHandler()
    print()
    print("In process (Django's WSGI handler as gunicorn calls it; DEBUG off, same settings):")
    found = bench.statements(handler)
    for endpoint, seen in found.items():
        sql = [s for s in seen if s.startswith("SQL")]
        others = len(seen) - len(sql)
        print(f"  {endpoint}: {len(sql)} SQL statements, {others} Redis commands per request:")
        for i, text in enumerate(seen, 1):
            print(f"    {i:>2}. {text[:150]}")
    if not n:
        return
    timed = {endpoint: bench.timed(handler, endpoint, n) for endpoint in bench.endpoints()}
    print(f"  median per request over {n:,} requests, no profiler:")
    for endpoint, (cpu, wall) in timed.items():
        print(f"    {endpoint:<11} CPU {cpu:6.2f} ms   wall {wall:6.2f} ms")
    stats = bench.profile(handler, n)
    print(f"  cProfile of {n:,} webhook requests (wall ms per request; the profiler inflates "
          "Python-heavy parts):")  # fmt: skip
    for line in profile_table(stats, n):
        print(line)
    print(f"  each step on its own, median of {n:,} calls (wall ms, CPU ms, statements as Django "
          "counts them: BEGIN, COMMIT and savepoints included, the health check not):")  # fmt: skip
    for label, wall, cpu, statements in bench.steps(n):
        print(f"    {label:<46} {wall:6.3f} {cpu:6.3f} {statements:>3}")


# --- setup -------------------------------------------------------------------------------


def set_environment(args: argparse.Namespace) -> None:
    """Production-like settings for this process and the gunicorn it starts."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "bench.webhook_settings",
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(40),
            "ALLOWED_HOSTS": "127.0.0.1",
            "DATABASE_URL": args.database_url,
            "REDIS_URL": args.redis_url,
            "DRAMATIQ_NAMESPACE": NAMESPACE,
            # Nothing here sends (no worker runs); the WSGI module refuses sandbox providers
            # with DEBUG off unless they are allowed on purpose.
            "ALLOW_SANDBOX_PROVIDERS": "true",
            "LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
        }
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per endpoint")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds per endpoint")
    parser.add_argument("--connections", type=int, default=2)
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--worker-class", default="sync", choices=("sync", "gthread"))
    parser.add_argument("--threads", type=int, default=2, help="per gthread worker")
    parser.add_argument(
        "--settle", type=float, default=STATS_FLUSH_SECONDS,
        help="seconds after each round before reading pg_stat_database",
    )  # fmt: skip
    parser.add_argument(
        "--quiet-cpus", type=float, default=0.35,
        help="a round starts when other processes use fewer CPUs than this, and is repeated "
        "when they used more during it",
    )  # fmt: skip
    parser.add_argument("--quiet-wait", type=float, default=120.0, help="seconds, per round")
    parser.add_argument("--retries", type=int, default=2, help="repeats of a disturbed round")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument(
        "--profile-requests", type=int, default=1000,
        help="in-process requests timed and profiled (0: statements only)",
    )  # fmt: skip
    parser.add_argument("--no-profile", action="store_true", help="skip the in-process part")
    parser.add_argument(
        "--prototype", action="store_true",
        help="also measure bench/webhook_urls.py's LeanIntakeView (cached tenant, one INSERT "
        "... ON CONFLICT DO NOTHING): a what-if, not the app's code",
    )  # fmt: skip
    harness.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.duration, args.rounds, args.warmup, args.settle = 1.0, 1, 1.0, 1.0  # wrk: seconds
        args.quiet_wait, args.retries, args.profile_requests = 0.0, 0, 20
    if args.wrk_threads > args.connections:
        parser.error("--wrk-threads cannot exceed --connections")
    if not shutil.which("wrk"):
        print("wrk is not installed (Debian: apt-get install -y wrk)", file=sys.stderr)
        return 1

    args.database_url = harness.database_url("webhooks", args.database_url, smoke=args.smoke)
    set_environment(args)
    configure(  # claims and migrates the database; production settings and the bench URLs
        "webhooks",
        args,
        DJANGO_SETTINGS_MODULE="bench.webhook_settings",
        ALLOWED_HOSTS="127.0.0.1",
    )
    work = Path(tempfile.mkdtemp(prefix="bench-webhooks-"))
    try:
        bench = Bench(args, work)
        bench.prepare()
        print(
            f"database {bench.dbname}, Redis {args.redis_url} namespace {NAMESPACE}; "
            f"fixture {FIXTURE.name} ({len(bench.body):,} bytes, a fresh message_uid per "
            f"request); logs in {work}; load average {os.getloadavg()}"
        )
        with Gunicorn(args, work / "gunicorn.log") as server:
            print(f"gunicorn on 127.0.0.1:{server.port}, workers {server.workers}", flush=True)
            for endpoint in bench.endpoints():
                bench.reset()
                result, _ = bench.wrk(endpoint, args.warmup, server)
                print(f"  warm-up {endpoint}: {result['requests']:,} requests", flush=True)
            rounds = []
            for number in range(1, args.rounds + 1):
                for endpoint in bench.endpoints():
                    rounds.append(bench.measured_round(endpoint, number, server))
                    r = rounds[-1]
                    print(
                        f"  {endpoint} round {number}: {r.rate:,.0f} req/s, p99 "
                        f"{r.ms('p99'):.1f} ms, load {os.getloadavg()[0]:.2f}"
                        + (
                            f", {r.rows / r.messages:.1f} events per broker message"
                            if r.messages
                            else ""
                        ),
                        flush=True,
                    )
            errors = harness.error_lines((work / "gunicorn.log").read_text())
            if errors:
                raise BenchError(f"{len(errors)} error line(s) in {server.log}: {errors[0]}")
        report(rounds, args, server)
        bench.reset()
        if not args.no_profile:
            bench.wait_quiet()
            in_process_report(bench, args.profile_requests)
            bench.reset()
        print(f"at the end: {harness.load_note()}")
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return harness.exit_status(args)


if __name__ == "__main__":
    sys.exit(main())
