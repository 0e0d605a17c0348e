"""Sends under faults (issue #10 §3): worker kills, a broker flush, a database outage and a
misbehaving provider, against a local fake TimelinesAI; counts duplicates, lost and stuck
messages, over-quota sends and the time to recover.

    .venv/bin/python bench/faults.py [--scenarios kill flush db provider] [--messages 200]
        [--provider-messages 100] [--phones 20] [--daily-limit 8] [--processes 2]
        [--threads 4] [--latency 1.5] [--max-minutes 7]
        [--database-url postgres://…/any_name] [--smoke] [--strict]
        [--redis-url redis://127.0.0.1:6379/10]

Every scenario starts from a fresh state: its own PostgreSQL database emptied (created and
migrated if missing; any name, bench/harness.py), its own Redis database
flushed (database 10 by default, namespace `cerniq-bench-faults`; never database 0), a
tenant with `--phones` TimelinesAI phones (pacing off, the window open all week), leads
enrolled in a 1-step WhatsApp sequence and queued by `dispatch_due`. Then it runs what
production runs: `python -m dramatiq` with `rundramatiq`'s task modules (DEBUG off), and a
scheduler process with the settings' own periodic jobs `requeue-stale` (every minute) and
`dispatch` (every 5 minutes) through cerniq.scheduler, as `manage.py scheduler` does. No
command is run by hand: whatever is lost must come back by itself.

The fake TimelinesAI behaves like the real one where the send path looks (docs/providers.md §1,
integrations/timelinesai/fixtures/api): `POST /messages` answers `{"status": "ok", "data":
{"message_uid": …}}` after `--latency` seconds (which also stretches a run to a minute, so
the faults land mid-run), and the message shows up in `GET /chats?phone=…` and `GET
/chats/{id}/messages` only after a visibility lag (the provider queues sends), with its
text, uid and a `YYYY-MM-DD HH:MM:SS ±ZZZZ` timestamp. A send is delivered as soon as the
provider has read the request, whatever becomes of the answer. It counts deliveries per
recipient and text. Fault switches: drop the connection after accepting a send, answer
after the client's 30 s read timeout, 5xx bursts (503: not sent; 500: not sent, and the
client cannot know), 429 with Retry-After, quota_exceeded after a number of sends from an
account.

Scenarios (each ends when nothing is left to do before tomorrow, or after `--max-minutes`):

1. kill: `kill -9` of every worker process at 8, 18 and 28 s, each time restarted 2 s
   later; the phones' daily_limit is `--daily-limit`, so quota matters (the leads beyond
   it wait for tomorrow);
2. flush: Redis FLUSHDB at 10 s with the workers running, and at 20 s with the workers
   down (kill -9, flush, restart), so that the work they had fetched is gone too;
3. db: a PostgreSQL outage of the bench database only, at 12 s for 15 s: new connections
   refused (ALLOW_CONNECTIONS false) and every backend of it terminated. Not a
   `pg_ctlcluster restart`: other people's tests use the same server;
4. provider: 15 % of sends accepted and their connection dropped unanswered, visible 40 s
   later (other sends 0-40 s later), 3 % answered after 35 s (read timeout), 5xx on every
   call from 3 to 10 s (a fifth of them 500, which leaves the client unsure), 5 % of all
   calls 429 with Retry-After: 5, and the first phone's account out of provider quota after
   3 sends (its other messages wait for tomorrow).

Per scenario: messages queued by dispatch; SENT rows; rows delivered at the fake provider;
duplicates (deliveries beyond one per message); lost (a row SENT without a delivery, or
ended as anything but SENT or held); stuck (QUEUED/SENDING more than 5 minutes past its
scheduled time at the end); held (dead letter or failed, left for a person); waiting
(QUEUED on purpose: until tomorrow, or still in progress at the deadline); over-quota
(QuotaUsage.used above its limit, or new contacts sent by an account beyond its phone's
daily_limit); the first send after the last fault; the longest any phone that had work due
at a fault went without settling a message after it (recovery); and when the last message
settled. Goals (issue #10): no duplicate, none lost, lost broker work back within 5
minutes. Exits 1 only when the bench itself fails (setup, a worker or the scheduler dying on
its own, the fake server erring), never on a missed goal (`--strict`: 3). No ceiling: these
goals are about correctness, not speed. `--smoke` runs the machinery end to end (a few
sends, workers, scheduler, fake server, the checks) with no fault: the faults need
minutes. Worker and scheduler logs are kept
in a temporary directory (printed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import harness  # noqa: E402
from bench.harness import RUN_OUTCOME, BenchError  # noqa: E402
from bench.import_leads import ROOT, configure  # noqa: E402
from bench.send_pipeline import (  # noqa: E402
    build_world,
    set_environment,
    worker_command,
)

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/10"
NAMESPACE = "cerniq-bench-faults"
TENANT_SLUG = "bench-faults"
API_PREFIX = "/integrations/api"
ZONE = ZoneInfo("Europe/Bucharest")
LOCK_KEY = 0x5E4D_FA17  # a session advisory lock: one run of this bench at a time
SCHEDULED_JOBS = ("requeue-stale", "dispatch")  # from settings.PERIODIC_JOBS
STUCK_AFTER = timedelta(minutes=5)
RECOVERY_GOAL = 300.0  # seconds
BURST = (3.0, 10.0)  # the provider scenario's 5xx burst, seconds after the workers start
LATER = timedelta(minutes=30)  # QUEUED beyond this: waiting on purpose (tomorrow's quota)
CHAT_MESSAGES = re.compile(re.escape(API_PREFIX) + r"/chats/(\d+)/messages")
MESSAGE_INFO = re.compile(re.escape(API_PREFIX) + r"/messages/([A-Za-z0-9-]+)")
# Error bodies as in integrations/timelinesai/fixtures/api/error_*.json.
INTERNAL_ERROR = {
    "status": "error",
    "error_code": "internal_error",
    "message": "Internal server error",
}
UNAVAILABLE = {"status": "error", "message": "Service temporarily unavailable"}
RATE_LIMITED = {
    "error": "Too Many Requests",
    "message": "Rate limit exceeded. Please retry after a short delay.",
}
QUOTA_EXCEEDED = {
    "status": "error",
    "error_code": "quota_exceeded",
    "message": "Message quota exceeded",
}
NOT_FOUND = {"status": "error", "error_code": "not_found", "message": "Not found"}


# --- the fake TimelinesAI ------------------------------------------------------------------


@dataclass
class Faults:
    """What the fake does wrong; times are seconds after the workers first started."""

    latency: float = 1.5  # a send is answered this long after it is read
    lag: tuple[float, float] = (0.0, 10.0)  # accepted -> visible in the chat history
    drop: float = 0.0  # share of accepted sends whose connection is closed unanswered
    drop_lag: float = 40.0  # … and visible this long after
    slow: float = 0.0  # share of accepted sends answered after `slow_seconds`
    slow_seconds: float = 35.0  # beyond the client's 30 s read timeout
    throttle: float = 0.0  # share of all calls answered 429
    retry_after: int = 5
    bursts: list[tuple[float, float, float]] = field(default_factory=list)  # start, end, 500s
    quota: dict[str, int] = field(default_factory=dict)  # account phone -> sends allowed


@dataclass
class Delivery:
    at: float  # epoch seconds the provider read the send
    account: str
    recipient: str
    text: str
    uid: str
    new_contact: bool


class FakeTimelinesAI(ThreadingHTTPServer):
    """TimelinesAI's Public API as far as the send path and its reconcile call it."""

    daemon_threads = True
    request_queue_size = 256

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.reset(Faults())

    def reset(self, faults: Faults, seed: int = 10) -> None:
        with getattr(self, "lock", threading.Lock()):
            self.faults = faults
            self.rng = random.Random(seed)
            self.t0: float | None = None
            self.chats: dict[tuple[str, str], dict] = {}  # (account, recipient) -> chat
            self.by_id: dict[int, dict] = {}
            self.messages: dict[int, list[dict]] = defaultdict(list)  # chat id -> newest last
            self.by_uid: dict[str, dict] = {}
            self.deliveries: list[Delivery] = []
            self.calls: Counter[str] = Counter()
            self.injected: Counter[str] = Counter()
            self.open_sends = 0  # sends read and not yet answered
            self.errors: list[str] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}{API_PREFIX}"

    def start(self) -> None:
        threading.Thread(target=self.serve_forever, name="fake-timelinesai", daemon=True).start()

    # --- behaviour, under the lock ---------------------------------------------------

    def failure(self, call: str) -> tuple[int, dict, dict] | None:
        """A 5xx burst or a 429 for this call, if one is due (nothing is sent then)."""
        now = time.time()
        faults = self.faults
        elapsed = now - self.t0 if self.t0 else -1.0
        for start, end, share_500 in faults.bursts:
            if start <= elapsed < end:
                if self.rng.random() < share_500:
                    self.injected[f"500 {call}"] += 1
                    return 500, INTERNAL_ERROR, {}
                self.injected[f"503 {call}"] += 1
                return 503, UNAVAILABLE, {}
        if faults.throttle and self.rng.random() < faults.throttle:
            self.injected[f"429 {call}"] += 1
            return 429, RATE_LIMITED, {"Retry-After": str(faults.retry_after)}
        return None

    def accept(self, account: str, recipient: str, text: str, chat: dict | None) -> tuple:
        """Queue a send: delivered from now on; returns (uid, what to do with the answer)."""
        now = time.time()
        faults = self.faults
        key = (account, recipient)
        new_contact = chat is None and key not in self.chats
        if chat is None:
            chat = self.chats.get(key)
        if chat is None:
            chat_id = 27_616_000 + len(self.by_id) + 1
            chat = {"id": chat_id, "account": account, "recipient": recipient, "created": now}
            self.chats[key], self.by_id[chat_id] = chat, chat
        roll = self.rng.random()
        answer = "ok"
        if roll < faults.drop:
            answer, lag = "drop", faults.drop_lag
        else:
            if roll < faults.drop + faults.slow:
                answer = "slow"
            lag = self.rng.uniform(*faults.lag)
        uid = str(uuid.uuid4())
        message = {"uid": uid, "chat_id": chat["id"], "text": text, "at": now,
                   "visible_at": now + lag, "account": account, "recipient": recipient}  # fmt: skip
        self.messages[chat["id"]].append(message)
        self.by_uid[uid] = message
        self.deliveries.append(Delivery(now, account, recipient, text, uid, new_contact))
        if answer != "ok":
            self.injected[f"{answer} POST"] += 1
        return uid, answer

    def quota_left(self, account: str) -> bool:
        allowed = self.faults.quota.get(account)
        if allowed is None:
            return True
        sent = sum(1 for d in self.deliveries if d.account == account)
        return sent < allowed

    def visible_chats(self, phone: str, account_id: str) -> list[dict]:
        now = time.time()
        found = []
        for (account, recipient), chat in self.chats.items():
            if recipient != phone or (account_id and _jid(account) != account_id):
                continue
            shown = [m for m in self.messages[chat["id"]] if m["visible_at"] <= now]
            if shown:
                found.append(_chat_info(chat, shown[-1]))
        return found

    def chat_messages(self, chat_id: int, query: dict[str, list[str]]) -> dict | None:
        if chat_id not in self.by_id:
            return None
        now = time.time()
        shown = [m for m in self.messages[chat_id] if m["visible_at"] <= now]
        after = _query_time(query.get("after"))
        if after is not None:
            shown = [m for m in shown if m["visible_at"] >= after]
        before = _query_time(query.get("before"))
        if before is not None:
            shown = [m for m in shown if m["visible_at"] <= before]
        if (query.get("from_me") or ["true"])[0].lower() == "false":
            shown = []  # every message here is ours
        shown.sort(key=lambda m: m["visible_at"])
        if (query.get("sorting_order") or ["desc"])[0] != "asc":
            shown.reverse()
        page = max(1, int((query.get("page") or ["1"])[0]))
        rows = shown[(page - 1) * 50 : page * 50]
        return {"has_more_pages": len(shown) > page * 50, "messages": [_info(m) for m in rows]}


def _jid(phone: str) -> str:
    return f"{phone.lstrip('+')}@s.whatsapp.net"


def _stamp(epoch: float) -> str:
    """TimelinesAI's `2026-05-18 10:44:21 +0300`."""
    return datetime.fromtimestamp(epoch, ZONE).strftime("%Y-%m-%d %H:%M:%S %z")


def _query_time(values: list[str] | None) -> float | None:
    """`after`/`before`: an ISO date or datetime; without an offset, read as UTC."""
    if not values:
        return None
    try:
        parsed = datetime.fromisoformat(values[0].strip().replace(" ", "T", 1))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _chat_info(chat: dict, last: dict) -> dict:
    """A ChatInfo as in fixtures/api/chats_by_phone.json."""
    return {
        "id": chat["id"],
        "name": chat["recipient"],
        "phone": chat["recipient"],
        "jid": _jid(chat["recipient"]),
        "is_group": False,
        "closed": False,
        "read": True,
        "labels": [],
        "chatgpt_autoresponse_enabled": False,
        "responsible_email": None,
        "responsible_name": None,
        "whatsapp_account_id": _jid(chat["account"]),
        "chat_url": f"https://app.timelines.ai/chat/{chat['id']}/messages/",
        "created_timestamp": _stamp(chat["created"]),
        "last_message_uid": last["uid"],
        "last_message_timestamp": _stamp(last["visible_at"]),
        "unattended": False,
        "photo": "/static/img/default_avatar.0e8b3da1e44b.jpeg",
        "is_allowed_to_message": True,
    }


def _info(message: dict) -> dict:
    """A MessageInfo as in fixtures/api/chat_messages_page1.json."""
    return {
        "uid": message["uid"],
        "chat_id": message["chat_id"],
        "timestamp": _stamp(message["visible_at"]),
        "sender_phone": message["account"],
        "sender_name": "Bench",
        "recipient_phone": message["recipient"],
        "recipient_name": message["recipient"],
        "from_me": True,
        "text": message["text"],
        "attachment_url": None,
        "attachment_filename": None,
        "status": "Sent",
        "origin": "Public API",
        "has_attachment": False,
        "message_type": "whatsapp",
        "reactions": {"users": [], "reactions": {}, "total": 0},
        "data": {"whatsapp_from_me": True},
        "created_by": "Bench (bench@cerniq.app)",
    }


class _Handler(BaseHTTPRequestHandler):
    server: FakeTimelinesAI
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        try:
            self._post()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client is gone (killed, or timed out): the send stands
        except Exception as error:  # noqa: BLE001 - reported by the bench
            self.server.errors.append(f"POST {self.path}: {error!r}")
            raise

    def do_GET(self) -> None:  # noqa: N802
        try:
            self._get()
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as error:  # noqa: BLE001
            self.server.errors.append(f"GET {self.path}: {error!r}")
            raise

    def _post(self) -> None:
        server = self.server
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if len(raw) < length:
            return  # the client died mid-request: nothing was accepted
        body = json.loads(raw or b"{}")
        path = urlsplit(self.path).path
        chat_match = CHAT_MESSAGES.fullmatch(path)
        call = "POST /messages" if path == f"{API_PREFIX}/messages" else "POST /chats/{id}/messages"
        if path != f"{API_PREFIX}/messages" and not chat_match:
            self._json(404, NOT_FOUND)
            return
        with server.lock:
            server.calls[call] += 1
            failure = server.failure("POST")
            chat = None
            if failure is None and chat_match:
                chat = server.by_id.get(int(chat_match.group(1)))
                if chat is None:
                    failure = (404, NOT_FOUND, {})
            account = chat["account"] if chat else str(body.get("whatsapp_account_phone") or "")
            recipient = chat["recipient"] if chat else str(body.get("phone") or "")
            if failure is None and not server.quota_left(account):
                server.injected["quota_exceeded POST"] += 1
                failure = (403, QUOTA_EXCEEDED, {})
            if failure is None:
                uid, answer = server.accept(account, recipient, str(body.get("text") or ""), chat)
                server.open_sends += 1
        if failure is not None:
            self._json(*failure)
            return
        try:
            if answer == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            time.sleep(server.faults.slow_seconds if answer == "slow" else server.faults.latency)
            self._json(200, {"status": "ok", "data": {"message_uid": uid}})
        finally:
            with server.lock:
                server.open_sends -= 1

    def _get(self) -> None:
        server = self.server
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        chat_match = CHAT_MESSAGES.fullmatch(path)
        info_match = MESSAGE_INFO.fullmatch(path)
        with server.lock:
            if path == f"{API_PREFIX}/chats":
                call = "GET /chats"
            elif chat_match:
                call = "GET /chats/{id}/messages"
            elif path == f"{API_PREFIX}/whatsapp_accounts":
                call = "GET /whatsapp_accounts"
            elif info_match:
                call = "GET /messages/{uid}"
            else:
                call = f"GET {path} (unknown)"
            server.calls[call] += 1
            answer = server.failure("GET")
            if answer is None:
                answer = self._read(call, query, chat_match, info_match)
        self._json(*answer)

    def _read(self, call: str, query: dict, chat_match, info_match) -> tuple[int, dict, dict]:
        server = self.server
        if call == "GET /chats":
            phone = (query.get("phone") or [""])[0]
            account_id = (query.get("whatsapp_account_id") or [""])[0]
            chats = server.visible_chats(phone, account_id)
            return 200, {"status": "ok", "data": {"has_more_pages": False, "chats": chats}}, {}
        if call == "GET /chats/{id}/messages":
            data = server.chat_messages(int(chat_match.group(1)), query)
            if data is None:
                return 404, NOT_FOUND, {}
            return 200, {"status": "ok", "data": data}, {}
        if call == "GET /whatsapp_accounts":
            accounts = sorted({d.account for d in server.deliveries})
            rows = [{"id": _jid(a), "phone": a, "status": "active"} for a in accounts]
            return 200, {"status": "ok", "data": {"whatsapp_accounts": rows}}, {}
        if call == "GET /messages/{uid}":
            message = server.by_uid.get(info_match.group(1))
            if message is None or message["visible_at"] > time.time():
                return 404, NOT_FOUND, {}
            return 200, {"status": "ok", "data": _info(message)}, {}
        return 404, NOT_FOUND, {}

    def _json(self, status: int, payload: dict, headers: dict | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet."""


# --- processes ---------------------------------------------------------------------------


class Process:
    """A process group started in its own session (killed as a whole), logging to a file."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.command, self.env, self.log = name, command, env, log
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                self.command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """kill -9 of the whole group (the dramatiq parent and its worker processes)."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self, timeout: float = 20.0) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()


def run_scheduler() -> int:
    """`manage.py scheduler` with only the send path's jobs (`--scheduler`, a child)."""
    import django

    django.setup()
    from apscheduler.schedulers.blocking import BlockingScheduler
    from django.conf import settings

    from cerniq.scheduler import add_jobs

    jobs = [job for job in settings.PERIODIC_JOBS if job["name"] in SCHEDULED_JOBS]
    scheduler = BlockingScheduler(timezone=settings.TIME_ZONE)
    add_jobs(scheduler, jobs)
    print(f"scheduler: {[job['name'] for job in jobs]}", flush=True)
    try:
        scheduler.start()
    except (KeyboardInterrupt, SystemExit):
        scheduler.shutdown(wait=False)
    return 0


# --- scenarios ---------------------------------------------------------------------------


@dataclass
class Scenario:
    key: str
    title: str
    messages: int
    daily_limit: int
    faults: Faults
    events: list[tuple[float, str]]  # (seconds after the workers start, action)


@dataclass
class Result:
    scenario: Scenario
    queued: int = 0
    sent: int = 0
    delivered: int = 0
    duplicates: int = 0
    lost: int = 0
    stuck: int = 0
    held: int = 0
    waiting: int = 0
    later: int = 0  # of `waiting`: not before tomorrow
    over_quota: int = 0
    first_send: float | None = None  # seconds after the (last) fault
    recovered: float | None = None
    all_done: float | None = None
    notes: list[str] = field(default_factory=list)


def scenarios(args: argparse.Namespace) -> list[Scenario]:
    plain = Faults(latency=args.latency)
    every = {
        "none": Scenario("none", "no fault (smoke)", args.messages, args.daily_limit, plain, []),
        "kill": Scenario(
            "kill",
            f"kill -9 workers x3 (quota {args.daily_limit}/phone)",
            args.messages,
            args.daily_limit,
            plain,
            [(8.0, "kill"), (18.0, "kill"), (28.0, "kill")],
        ),
        "flush": Scenario(
            "flush",
            "Redis flushed x2",
            args.messages,
            1000,
            plain,
            [(10.0, "flush"), (20.0, "flush-down")],
        ),
        "db": Scenario("db", "PostgreSQL outage 15 s", args.messages, 1000, plain, [(12.0, "db")]),
        "provider": Scenario(
            "provider",
            "provider faults",
            args.provider_messages,
            1000,
            Faults(
                latency=args.latency,
                lag=(0.0, 40.0),
                drop=0.15,
                drop_lag=40.0,
                slow=0.03,
                throttle=0.05,
                retry_after=5,
                bursts=[(BURST[0], BURST[1], 0.2)],
                quota={"+40740000501": 3},  # build_world's first phone for this tenant
            ),
            [(BURST[0], "burst")],
        ),
    }
    return [every[key] for key in args.scenarios]


class Bench:
    def __init__(self, args: argparse.Namespace, server: FakeTimelinesAI, logs: Path) -> None:
        import psycopg
        import redis
        from django.db import connection

        self.args, self.server, self.logs = args, server, logs
        self.redis = redis.Redis.from_url(args.redis_url)
        self.dbname = connection.settings_dict["NAME"]
        params = {k: v for k, v in connection.get_connection_params().items() if k != "dbname"}
        self.maintenance = psycopg.connect(dbname="postgres", autocommit=True, **params)
        locked = self.maintenance.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY]).fetchone()
        if not locked[0]:
            raise BenchError("another bench/faults.py is running on this PostgreSQL")
        self.allow_connections(True)  # should an earlier run have died mid-outage
        self.workers_command = worker_command(args, shutdown_ms=20_000, extra_modules=())
        self.env = dict(os.environ)
        self.workers: Process | None = None
        self.scheduler: Process | None = None

    # --- state ------------------------------------------------------------------------

    def fresh(self) -> None:
        from django.core.management import call_command
        from django.db import connection

        connection.close()  # bench/harness.py made sure the database is a bench's
        call_command("flush", interactive=False, verbosity=0)
        self.flush_redis()

    def flush_redis(self) -> tuple[int, int]:
        """FLUSHDB of the bench's own Redis database; returns the broker messages it held,
        and how many of them no worker had fetched yet."""
        held = waiting = 0
        for key in self.redis.scan_iter(match=f"{NAMESPACE}:*", count=1000):
            name = key.decode()
            if name.endswith(".msgs"):
                held += self.redis.hlen(key)
            elif self.redis.type(key) == b"list":
                waiting += self.redis.llen(key)
        self.redis.flushdb()
        return held, waiting

    def allow_connections(self, allowed: bool) -> None:
        from psycopg import sql

        self.maintenance.execute(
            sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS {}").format(
                sql.Identifier(self.dbname), sql.SQL("true" if allowed else "false")
            )
        )

    def terminate_backends(self) -> int:
        row = self.maintenance.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            [self.dbname],
        ).fetchone()
        return int(row[0])

    # --- one scenario -----------------------------------------------------------------

    def run(self, scenario: Scenario) -> Result:
        from outreach.dispatch import dispatch_due

        result = Result(scenario)
        self.fresh()
        self.server.reset(scenario.faults)
        tenant = build_world(
            TENANT_SLUG, leads=scenario.messages, phones=self.args.phones,
            daily_limit=scenario.daily_limit, at=None, open_all_week=True,
        )  # fmt: skip
        dispatched, skipped = Counter(), Counter()
        while True:
            batch = dispatch_due(tenant, batch_size=500)
            if not batch.eligible:
                break
            dispatched.update(batch.dispatched)
            skipped.update(batch.skipped)
        from outreach.reasons import QUOTA_EXHAUSTED  # skips are counted by reason code

        unexpected = {k: v for k, v in skipped.items() if k != QUOTA_EXHAUSTED}
        if unexpected:
            raise BenchError(f"{scenario.key}: dispatch skipped {unexpected}")
        result.queued = dispatched["WHATSAPP"]
        if skipped:
            result.notes.append(
                f"{skipped[QUOTA_EXHAUSTED]} leads not queued: the phones' daily "
                f"quota ({scenario.daily_limit}) is used up, they wait for tomorrow"
            )
        env = {**self.env, "TIMELINESAI_BASE_URL": self.server.base_url}
        log = self.logs / f"{scenario.key}-workers.log"
        self.workers = Process("workers", self.workers_command, env, log)
        scheduler_log = self.logs / f"{scenario.key}-scheduler.log"
        command = [sys.executable, str(Path(__file__).resolve()), "--scheduler"]
        self.scheduler = Process("scheduler", command, env, scheduler_log)
        self.scheduler.start()
        t0 = time.time()
        with self.server.lock:
            self.server.t0 = t0
        self.workers.start()
        faults: list[tuple[float, float, set[int]]] = []  # (start, end, phones with work due)
        try:
            self.watch(scenario, tenant, t0, faults, result)
        finally:
            self.workers.stop()
            self.scheduler.stop(timeout=5)
            self.allow_connections(True)
        self.evaluate(scenario, tenant, t0, faults, result)
        outcomes = Counter(
            match[2]
            for logger, message in harness.log_messages(log.read_text())
            if logger == "outreach.tasks" and (match := RUN_OUTCOME.match(message))
        )
        errors = len(harness.error_lines(log.read_text()))
        woken = [
            int(m.group(1))
            for m in re.finditer(r"woke (\d+) phones", scheduler_log.read_text())
            if int(m.group(1))
        ]
        result.notes.append(
            f"phone runs by outcome {dict(outcomes)}; {errors} error/traceback lines in the "
            f"worker log; requeue_stale woke phones {len(woken)} times ({sum(woken)} phones)"
        )
        with self.server.lock:
            calls, injected = dict(self.server.calls), dict(self.server.injected)
            server_errors = list(self.server.errors)
        result.notes.append(f"provider calls {calls}; faults injected {injected}")
        if server_errors:
            raise BenchError(f"{scenario.key}: the fake server failed: {server_errors[:3]}")
        return result

    def watch(self, scenario: Scenario, tenant, t0: float, faults: list, result: Result) -> None:
        """Fire the scenario's faults on time; return when nothing is left to do before
        tomorrow, or at the deadline."""
        events = sorted(scenario.events)
        deadline = t0 + self.args.max_minutes * 60
        last_check = 0.0
        while time.time() < deadline:
            elapsed = time.time() - t0
            while events and events[0][0] <= elapsed:
                _, action = events.pop(0)
                faults.append(self.inject(action, tenant, result))
            if self.workers is not None and not self.workers.alive():
                raise BenchError(f"{scenario.key}: the workers exited; see {self.workers.log}")
            if not self.scheduler.alive():
                raise BenchError(f"{scenario.key}: the scheduler exited; {self.scheduler.log}")
            if not events and time.time() - last_check >= 2.0:
                last_check = time.time()
                if self.unsettled(tenant) == 0:
                    return
            time.sleep(0.25)
        result.notes.append(f"stopped at the {self.args.max_minutes}-minute deadline")

    def unsettled(self, tenant) -> int | None:
        from django.db import connection
        from django.db.models import Q
        from django.db.utils import Error
        from django.utils import timezone

        from outreach.models import Message

        try:
            return (
                Message.objects.filter(
                    tenant=tenant,
                    direction=Message.Direction.OUTBOUND,
                    status__in=(Message.Status.QUEUED, Message.Status.SENDING),
                )
                .filter(
                    Q(status=Message.Status.SENDING)
                    | Q(scheduled_for__isnull=True)
                    | Q(scheduled_for__lte=timezone.now() + LATER)
                )
                .count()
            )
        except Error:
            connection.close()
            return None

    def due_phones(self, tenant) -> set[int]:
        """Phones with a message due now (or one in flight): those a fault can stall."""
        from django.db.models import Q
        from django.utils import timezone

        from outreach.models import Message

        return set(
            Message.objects.filter(
                tenant=tenant,
                direction=Message.Direction.OUTBOUND,
                status__in=(Message.Status.QUEUED, Message.Status.SENDING),
            )
            .filter(
                Q(status=Message.Status.SENDING)
                | Q(scheduled_for__isnull=True)
                | Q(scheduled_for__lte=timezone.now())
            )
            .values_list("phone_id", flat=True)
            .distinct()
        )

    def inject(self, action: str, tenant, result: Result) -> tuple[float, float, set[int]]:
        from django.db import connection

        phones = self.due_phones(tenant)
        start = time.time()
        with self.server.lock:
            in_flight = self.server.open_sends
        if action == "kill":
            self.workers.kill()
            time.sleep(2.0)
            self.workers.start()
            result.notes.append(
                f"kill -9 at {start - self.server.t0:.0f} s: {in_flight} sends open at the "
                f"provider, {len(phones)} phones with work due; restarted 2 s later"
            )
            return start, start, phones
        if action in ("flush", "flush-down"):
            down = action == "flush-down"
            if down:  # Redis lost while the workers are down: their prefetched work too
                self.workers.kill()
            held, waiting = self.flush_redis()
            if down:
                time.sleep(2.0)
                self.workers.start()
            what = "kill -9 of the workers, FLUSHDB, restart" if down else "FLUSHDB"
            result.notes.append(
                f"{what} at {start - self.server.t0:.0f} s: {held} broker messages dropped "
                f"({waiting} not fetched yet, the rest held by workers); {in_flight} sends "
                f"open at the provider, {len(phones)} phones with work due"
            )
            return start, start, phones
        if action == "burst":  # the fake does it; marked here to time the recovery
            end = self.server.t0 + BURST[1]
            result.notes.append(
                f"5xx on every call from {BURST[0]:.0f} to {BURST[1]:.0f} s; {len(phones)} "
                f"phones with work due when it began"
            )
            return start, end, phones
        if action == "db":
            connection.close()
            self.allow_connections(False)
            try:
                terminated = self.terminate_backends()
                time.sleep(15.0)
                terminated += self.terminate_backends()
            finally:
                self.allow_connections(True)
            end = time.time()
            result.notes.append(
                f"database outage at {start - self.server.t0:.0f} s for {end - start:.0f} s: "
                f"{terminated} backends terminated, connections refused meanwhile; "
                f"{in_flight} sends open at the provider, {len(phones)} phones with work due"
            )
            return start, end, phones
        raise BenchError(f"unknown fault {action!r}")

    # --- counting ---------------------------------------------------------------------

    def evaluate(self, scenario: Scenario, tenant, t0: float, faults: list, result: Result):
        from django.db import connection
        from django.utils import timezone

        from outreach.models import Message
        from whatsapp.models import Phone, QuotaUsage

        connection.close()
        now = timezone.now()
        rows = list(
            Message.objects.filter(tenant=tenant, direction=Message.Direction.OUTBOUND).values(
                "pk",
                "phone_id",
                "counterpart",
                "body",
                "status",
                "scheduled_for",
                "provider_message_id",
                "sent_at",
                "failed_at",
                "error",
                "quota_cost",
                "needs_reconcile",
            )  # fmt: skip
        )
        with self.server.lock:
            deliveries = list(self.server.deliveries)
        got: dict[tuple[str, str], list[Delivery]] = defaultdict(list)
        for delivery in deliveries:
            got[(delivery.recipient, delivery.text)].append(delivery)
        want = Counter((row["counterpart"], row["body"]) for row in rows)
        result.duplicates = sum(max(0, len(d) - want[key]) for key, d in got.items())
        strays = sum(len(d) for key, d in got.items() if key not in want)
        S = Message.Status
        states = Counter(row["status"] for row in rows)
        held_delivered = unrecorded = wrong_uid = 0
        lost_rows, stuck_rows = [], []
        for row in rows:
            sent_here = got.get((row["counterpart"], row["body"]), [])
            status = row["status"]
            if sent_here:
                result.delivered += 1
            if status == S.SENT:
                result.sent += 1
                if not sent_here:
                    lost_rows.append(row)
                elif row["provider_message_id"] not in {d.uid for d in sent_here}:
                    wrong_uid += 1
            elif status in (S.DEAD_LETTER, S.FAILED):
                result.held += 1
                held_delivered += bool(sent_here)
            elif status in (S.QUEUED, S.SENDING):
                unrecorded += bool(sent_here)
                scheduled = row["scheduled_for"] or now
                if scheduled < now - STUCK_AFTER:
                    stuck_rows.append(row)
                else:
                    result.waiting += 1
                    result.later += scheduled > now + LATER
            else:
                lost_rows.append(row)
        result.lost, result.stuck = len(lost_rows), len(stuck_rows)
        result.notes.append(f"final states {dict(states)}")
        if result.waiting:
            result.notes.append(
                f"waiting: {result.later} until tomorrow (provider quota), "
                f"{result.waiting - result.later} still in progress"
            )
        if result.held:
            reasons = Counter(
                re.sub(r"\(([A-Za-z]+)\b.*", r"(\1)", row["error"])[:80]
                for row in rows
                if row["status"] in (S.DEAD_LETTER, S.FAILED)
            )
            result.notes.append(
                f"held: {result.held} ({held_delivered} of them were in fact delivered); "
                f"reasons {dict(reasons)}"
            )
        # A failure the client knows did not send (quota, 429, 503) leaves nothing to look
        # for at the provider: a row marked for reconcile after one waits out the window.
        certain = ("QuotaExceeded", "RateLimited", "ProviderUnavailable: TimelinesAI POST "
                   "/messages: HTTP 503")  # fmt: skip
        marked = [
            row["pk"]
            for row in rows
            if row["needs_reconcile"]
            and row["status"] == S.QUEUED
            and row["error"].startswith(certain)
        ]
        if marked:
            result.notes.append(
                f"{len(marked)} QUEUED rows marked needs_reconcile after a failure that "
                f"cannot have sent (quota, 429, 503): messages {marked[:10]}"
            )
        if unrecorded:
            result.notes.append(f"{unrecorded} delivered but still QUEUED/SENDING (resend risk)")
        if wrong_uid:
            result.notes.append(f"{wrong_uid} SENT rows carry a uid the provider did not give")
        if strays:
            result.notes.append(f"{strays} deliveries match no message row")
        for row in (lost_rows + stuck_rows)[:5]:
            result.notes.append(
                f"  lost/stuck: message {row['pk']} phone {row['phone_id']} {row['status']} "
                f"scheduled {row['scheduled_for']} error {row['error'][:120]!r}"
            )
        # Over quota: the durable counter above its limit, or an account's new contacts at
        # the provider beyond its phone's daily limit.
        limits = dict(Phone.objects.filter(tenant=tenant).values_list("number", "daily_limit"))
        new_contacts = Counter(d.account for d in deliveries if d.new_contact)
        beyond = sum(max(0, n - limits.get(account, 0)) for account, n in new_contacts.items())
        usage = list(QuotaUsage.objects.filter(tenant=tenant).values_list("used", "limit"))
        over = sum(max(0, used - limit) for used, limit in usage)
        result.over_quota = beyond + over
        charged = sum(row["quota_cost"] for row in rows if row["status"] != S.CANCELLED)
        result.notes.append(
            f"quota: {sum(u for u, _ in usage)} used of {sum(lim for _, lim in usage)} "
            f"(rows holding a slot: {charged}); most new contacts by one account at the "
            f"provider {max(new_contacts.values(), default=0)} (daily_limit "
            f"{scenario.daily_limit})"
        )
        self.recovery(t0, faults, rows, deliveries, result)

    def recovery(self, t0: float, faults: list, rows: list, deliveries: list, result: Result):
        """The first send after the last fault; the longest any phone that had work due at
        a fault went without settling a message after it; the last message settled, from
        the last fault (from the start when the faults run throughout)."""
        finals = [
            ((row["sent_at"] or row["failed_at"]).timestamp(), row["phone_id"])
            for row in rows
            if row["sent_at"] or row["failed_at"]
        ]
        start, end, _ = faults[-1] if faults else (t0, t0, set())
        after = [d.at for d in deliveries if d.at >= end]
        if after:
            result.first_send = min(after) - start
        stalls, never = [], 0
        for fault_start, fault_end, phones in faults:
            for phone in phones:
                moved = [at for at, phone_id in finals if phone_id == phone and at >= fault_end]
                if moved:
                    stalls.append(min(moved) - fault_start)
                else:
                    never += 1
        if never:
            result.notes.append(f"{never} phones never moved again after a fault")
        elif stalls:
            result.recovered = max(stalls)
        in_progress = result.waiting - result.later
        if finals and not result.stuck and not in_progress:
            result.all_done = max(at for at, _ in finals) - start


# --- report ------------------------------------------------------------------------------


def report(results: list[Result], args: argparse.Namespace) -> None:
    def seconds(value: float | None) -> str:
        return "—" if value is None else f"{value:,.0f}"

    print()
    header = (
        f"{'scenario':<36} {'queued':>6} {'sent':>5} {'deliv':>5} {'dupl':>4} {'lost':>4} "
        f"{'stuck':>5} {'held':>4} {'wait':>4} {'over':>4} {'1st send':>8} {'recov':>6} "
        f"{'done':>6}"
    )
    print(header)
    print(f"{'':<36} {'':>6} {'':>5} {'':>5} {'':>4} {'':>4} {'':>5} {'':>4} {'':>4} "
          f"{'quota':>4} {'s':>8} {'s':>6} {'s':>6}")  # fmt: skip
    print("-" * len(header))
    for r in results:
        print(
            f"{r.scenario.title:<36} {r.queued:>6} {r.sent:>5} {r.delivered:>5} "
            f"{r.duplicates:>4} {r.lost:>4} {r.stuck:>4} {r.held:>5} {r.waiting:>4} "
            f"{r.over_quota:>4} {seconds(r.first_send):>8} {seconds(r.recovered):>6} "
            f"{seconds(r.all_done):>6}"
        )
    print()
    print(
        "1st send: from the last fault to the first send the provider read after it; recov: "
        "the longest any phone with work due at a fault went, from that fault, before one of "
        "its messages settled (sent or held); done: from the last fault (the start when the "
        "faults run throughout) to the last message settled. Seconds."
    )
    for r in results:
        for note in r.notes:
            print(f"  {r.scenario.key}: {note}")
    print()
    dups = sum(r.duplicates for r in results)
    lost = sum(r.lost + r.stuck for r in results)
    slow = [r.scenario.key for r in results if r.recovered is None or r.recovered > RECOVERY_GOAL]
    slow = [key for key in slow if key not in ("provider", "none")]
    smoke = args.smoke
    harness.judge("faults", "no duplicate", not dups, f"{dups}", smoke=smoke)
    harness.judge("faults", "none lost or stuck", not lost, f"{lost}", smoke=smoke)
    harness.judge(
        "faults",
        f"lost broker work back within {RECOVERY_GOAL / 60:.0f} minutes without a manual command",
        not slow,
        ", ".join(slow) or "every scenario",
        smoke=smoke,
    )


# --- setup -------------------------------------------------------------------------------


def main() -> int:
    if sys.argv[1:] == ["--scheduler"]:
        return run_scheduler()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scenarios", nargs="+", choices=("none", "kill", "flush", "db", "provider"),
        default=["kill", "flush", "db", "provider"],
    )  # fmt: skip
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--provider-messages", type=int, default=100)
    parser.add_argument("--phones", type=int, default=20)
    parser.add_argument("--daily-limit", type=int, default=8, help="kill scenario's phones")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--latency", type=float, default=1.5, help="the fake's answer to a send")
    parser.add_argument("--max-minutes", type=float, default=7.0, help="per scenario")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    harness.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:  # the machinery end to end, without the minutes the faults need
        args.scenarios, args.messages, args.phones, args.latency = ["none"], 6, 2, 0.2
        args.daily_limit = 2  # 2 leads wait for tomorrow: the quota path runs too
        args.max_minutes, args.processes, args.threads = 1.5, 1, 2
    if args.phones > 20:
        parser.error("at most 20 phones (the per-phone queues)")
    if urlsplit(args.redis_url).path.strip("/") in ("", "0"):
        parser.error("--redis-url must name a Redis database of its own (not 0): it is flushed")

    server = FakeTimelinesAI()
    server.start()
    args.database_url = harness.database_url("faults", args.database_url, smoke=args.smoke)
    set_environment(args, server, NAMESPACE)
    configure("faults", args)  # claims and migrates the database; production settings
    import logging

    logging.disable(logging.INFO)
    logs = Path(tempfile.mkdtemp(prefix="bench-faults-"))
    print(f"fake TimelinesAI at {server.base_url}; logs in {logs}; {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)  # fmt: skip
    results = []
    bench = None
    try:
        bench = Bench(args, server, logs)
        for scenario in scenarios(args):
            started = time.time()
            print(f"  {scenario.title}: {scenario.messages} leads over {args.phones} phones ...",
                  flush=True)  # fmt: skip
            results.append(bench.run(scenario))
            print(f"  {scenario.title}: done in {time.time() - started:.0f} s", flush=True)
        bench.flush_redis()
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    finally:
        if bench is not None:
            for process in (bench.workers, bench.scheduler):
                if process is not None:
                    process.kill()
            bench.allow_connections(True)
    report(results, args)
    return harness.exit_status(args)


if __name__ == "__main__":
    sys.exit(main())
