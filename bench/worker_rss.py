"""Memory of a product Dramatiq worker after 1,000 real sends, next to a bare Django Dramatiq
worker after 1,000 trivial messages, measured in the same run (goal: RSS <= 1.2 x bare).

    .venv/bin/python bench/worker_rss.py [--messages 1000] [--phones 20] [--processes 2]
        [--threads 8] [--database-url postgres://postgres@127.0.0.1:5432/cerniq_bench_rss]
        [--redis-url redis://127.0.0.1:6379/8] [--imports]

Product: what `manage.py rundramatiq` starts (`python -m dramatiq` with the task modules it
discovers; production settings, DEBUG off), `--processes` x `--threads`. `--messages` leads
enrolled in a 1-step WhatsApp sequence over `--phones` TimelinesAI phones (pacing off, the
window open all week) are queued by `dispatch_due` and sent by the phones' runs through the
real TimelinesAI client to bench/send_pipeline.py's local fake TimelinesAI. Bare:
bench/bare_worker (startproject's apps plus django_dramatiq, the product's broker
middleware), the same processes x threads and Python, `--messages` messages of one actor
that does nothing.

Each is measured idle twice: when every worker process has said it is ready (imports done),
and when its messages are done (what the work added). VmRSS (/proc/<pid>/status) summed over
the worker processes, the children of the `dramatiq` parent (which only supervises, imports
nothing of the app, and is shown apart), and their PSS (/proc/<pid>/smaps_rollup: pages
shared between processes split among them). The goal is on VmRSS after the messages.
`--imports` adds where the product worker's memory goes: RSS of a fresh interpreter after
django.setup() and after each task module, and Python's allocations by package.

Uses its own PostgreSQL database (bench/harness.py: any name, created if missing, migrated
and emptied; `--smoke`: a tiny run in a throwaway database) and its own Redis namespaces
(`cerniq-bench-rss`, `cerniq-bench-rss-bare`, emptied first). Exits 1 only when the bench fails (a
worker dies, messages not processed), never on a missed goal. Worker logs are kept in a temporary
directory (printed)."""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import harness  # noqa: E402
from bench.harness import BenchError  # noqa: E402
from bench.import_leads import ROOT, configure  # noqa: E402
from bench.send_pipeline import (  # noqa: E402
    FakeTimelinesAI,
    Workers,
    build_world,
    empty_database,
    set_environment,
    worker_command,
)

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/8"
NAMESPACE = "cerniq-bench-rss"
BARE_NAMESPACE = "cerniq-bench-rss-bare"
TENANT_SLUG = "bench-send"  # build_world's numbering for the send bench's tenant
BARE_SETTINGS = "bench.bare_worker.settings"
# What `rundramatiq` discovers for the bare project: django_dramatiq's own tasks and ours.
BARE_MODULES = ("django_dramatiq.setup", "django_dramatiq.tasks", "bench.bare_worker.tasks")
GOAL = 1.2
READY_LINE = "Worker process is ready for action."
STALL_SECONDS = 90.0
SETTLE_SECONDS = 2.0  # idle after the last message, before the second measurement


# --- memory from /proc ---------------------------------------------------------------------


def _kb(path: Path, field: str) -> int:
    for line in path.read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise BenchError(f"no {field} in {path}")


def children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (from /proc/*/stat)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return sorted(found)


@dataclass
class Sample:
    rss: list[int]  # kB, one per worker process
    pss: list[int]
    parent_rss: int

    @classmethod
    def take(cls, parent: int) -> Sample:
        pids = children(parent)
        rss = [_kb(Path(f"/proc/{pid}/status"), "VmRSS") for pid in pids]
        pss = [_kb(Path(f"/proc/{pid}/smaps_rollup"), "Pss") for pid in pids]
        return cls(rss, pss, _kb(Path(f"/proc/{parent}/status"), "VmRSS"))

    def text(self) -> str:
        each = " + ".join(f"{kb / 1024:.1f}" for kb in self.rss)
        return (
            f"VmRSS {sum(self.rss) / 1024:6.1f} MiB ({each}), PSS {sum(self.pss) / 1024:6.1f} "
            f"MiB; parent {self.parent_rss / 1024:.1f} MiB"
        )


@dataclass
class Measured:
    name: str
    messages: int
    started: Sample
    done: Sample
    seconds: float  # from the first message queued to the last processed
    notes: list[str]


# --- the two workers -----------------------------------------------------------------------


class Bench:
    def __init__(self, args: argparse.Namespace, server: FakeTimelinesAI, logs: Path) -> None:
        import redis

        self.args, self.server, self.logs = args, server, logs
        self.redis = redis.Redis.from_url(args.redis_url)

    def flush(self, namespace: str) -> None:
        keys = list(self.redis.scan_iter(match=f"{namespace}:*", count=1000))
        for start in range(0, len(keys), 1000):
            self.redis.delete(*keys[start : start + 1000])

    def pending(self, namespace: str, *, delayed: bool = True) -> int:
        """Messages enqueued and not yet acknowledged (with or without the delayed ones)."""
        skipped = (b".XQ.msgs",) if delayed else (b".XQ.msgs", b".DQ.msgs")
        keys = self.redis.scan_iter(match=f"{namespace}:*.msgs", count=1000)
        return sum(self.redis.hlen(key) for key in keys if not key.endswith(skipped))

    def dead_letters(self, namespace: str) -> int:
        keys = self.redis.scan_iter(match=f"{namespace}:*.XQ.msgs", count=1000)
        return sum(self.redis.hlen(key) for key in keys)

    def run(self, name, command, env, namespace, enqueue, done, progress) -> Measured:
        """Start the workers on empty queues, measure them once ready, `enqueue()`, wait
        for `done()`, let them settle, measure again, stop them."""
        self.flush(namespace)
        log = self.logs / f"{namespace}.log"
        with Workers(command, env, log) as workers:
            self.wait_ready(workers, log)
            started = Sample.take(workers.proc.pid)
            t0 = time.monotonic()
            notes = enqueue()
            last, last_change = progress(), time.monotonic()
            while not done():
                time.sleep(0.25)
                if not workers.alive():
                    raise BenchError(f"{name}: the workers exited; see {log}")
                current = progress()
                if current != last:
                    last, last_change = current, time.monotonic()
                elif time.monotonic() - last_change > STALL_SECONDS:
                    raise BenchError(f"{name}: no progress for {STALL_SECONDS:.0f} s; {log}")
            seconds = time.monotonic() - t0
            time.sleep(SETTLE_SECONDS)
            finished = Sample.take(workers.proc.pid)
        errors = harness.error_lines(log.read_text())  # JSON (production) or text
        if errors:
            raise BenchError(f"{name}: {len(errors)} error line(s) in {log}: {errors[0]}")
        if self.dead_letters(namespace):
            raise BenchError(f"{name}: {self.dead_letters(namespace)} dead-lettered message(s)")
        if len(started.rss) != self.args.processes:
            raise BenchError(
                f"{name}: {len(started.rss)} worker processes, not {self.args.processes}"
            )
        return Measured(name, self.args.messages, started, finished, seconds, notes)

    def wait_ready(self, workers: Workers, log: Path, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while log.read_text().count(READY_LINE) < self.args.processes:
            if not workers.alive() or time.monotonic() > deadline:
                raise BenchError(f"the workers did not start; see {log}")
            time.sleep(0.2)
        time.sleep(SETTLE_SECONDS)  # the consumer threads start after the line

    def product(self) -> Measured:
        from outreach.dispatch import dispatch_due
        from outreach.models import Message

        n = self.args.messages
        tenant = build_world(
            TENANT_SLUG, leads=n, phones=self.args.phones, daily_limit=1000, at=None,
            open_all_week=True,
        )  # fmt: skip
        before = self.server.sends()

        def enqueue() -> list[str]:
            dispatched = Counter()
            while True:
                result = dispatch_due(tenant, batch_size=500)
                if not result.eligible:
                    break
                dispatched.update(result.dispatched)
            if dispatched["WHATSAPP"] != n:
                raise BenchError(f"dispatch queued {dict(dispatched)}, want {n} WHATSAPP")
            return [
                f"{n:,} WhatsApp messages queued by dispatch_due over {self.args.phones} phones"
            ]

        def sent() -> int:
            return self.server.sends() - before

        measured = self.run(
            "product",
            worker_command(self.args, extra_modules=()),
            dict(os.environ),
            NAMESPACE,
            enqueue,
            # A phone may plan a later run (a lease still held); it is not this bench's work.
            lambda: sent() >= n and self.pending(NAMESPACE, delayed=False) == 0,
            sent,
        )
        later = self.pending(NAMESPACE)
        rows = Message.objects.filter(tenant=tenant, status=Message.Status.SENT).count()
        twice = sum(1 for count in self.server.recipients.values() if count > 1)
        if rows != n or sent() != n or twice:
            raise BenchError(f"product: {rows} SENT rows, {sent()} sends, {twice} sent twice")
        measured.notes.append(
            f"{rows:,} SENT, each delivered once to the fake TimelinesAI; {later} phone runs "
            "planned for later were left in the delay queues"
        )
        return measured

    def bare(self) -> Measured:
        from dramatiq import Message
        from dramatiq.brokers.redis import RedisBroker

        n = self.args.messages
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": BARE_SETTINGS,
            "DRAMATIQ_NAMESPACE": BARE_NAMESPACE,
        }
        command = [
            sys.executable, "-m", "dramatiq", "--path", ".",
            "--processes", str(self.args.processes), "--threads", str(self.args.threads),
            "--worker-shutdown-timeout", "600000", *BARE_MODULES,
        ]  # fmt: skip
        broker = RedisBroker(url=self.args.redis_url, namespace=BARE_NAMESPACE)

        def enqueue() -> list[str]:
            for i in range(n):
                broker.enqueue(
                    Message(queue_name="bare", actor_name="trivial", args=(i,), kwargs={},
                            options={})
                )  # fmt: skip
            return [f"{n:,} messages of bench.bare_worker.tasks.trivial"]

        def left() -> int:
            return self.pending(BARE_NAMESPACE)

        try:
            return self.run("bare", command, env, BARE_NAMESPACE, enqueue, lambda: left() == 0,
                            left)  # fmt: skip
        finally:
            broker.close()


# --- where the product's memory goes (--imports) --------------------------------------------

# Run in a fresh interpreter: `modules` (import after django.setup(), bare or product settings)
# then `extra` (modules whose cost is measured), printing RSS and sys.modules.
IMPORTS_PROBE = """
import json, sys
from pathlib import Path

def rss():
    return int(Path("/proc/self/status").read_text().split("VmRSS:")[1].split()[0])

modules, extra = json.loads(sys.argv[1]), json.loads(sys.argv[2])
import django
django.setup()
for name in modules:
    __import__(name)
from django.db import connection
connection.ensure_connection()
before, failed = rss(), []
for name in extra:
    try:
        __import__(name)
    except Exception as exc:
        failed.append(f"{name}: {type(exc).__name__}")
print(json.dumps({"before": before, "after": rss(), "modules": sorted(sys.modules),
                  "failed": failed}))
"""
OWN_PACKAGES = {"cerniq", "outreach", "whatsapp", "email_channels", "hitl", "integrations"}


def _probe(settings: str, modules: list[str], extra: list[str] = ()) -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings}
    if settings == BARE_SETTINGS:
        env["DRAMATIQ_NAMESPACE"] = BARE_NAMESPACE
    result = subprocess.run(
        [sys.executable, "-c", IMPORTS_PROBE, json.dumps(modules), json.dumps(list(extra))],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    if result.returncode != 0:
        raise BenchError(f"imports probe failed: {result.stderr[-2000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def imports_report(product_modules: list[str]) -> list[str]:
    """The packages a product worker imports and a bare one does not, each with what it adds
    on its own to a bare worker (its modules the product loads, imported in a fresh bare
    interpreter; shared dependencies count in each package that pulls them in)."""
    bare = _probe(BARE_SETTINGS, list(BARE_MODULES))
    product = _probe("cerniq.settings", product_modules)
    extra = sorted(set(product["modules"]) - set(bare["modules"]))
    by_package: dict[str, list[str]] = {}
    for name in extra:
        top = name.split(".")[0]
        if top not in OWN_PACKAGES and top not in sys.stdlib_module_names:
            by_package.setdefault(top, []).append(name)
    lines = [
        f"one interpreter, idle after the imports: bare {bare['before'] / 1024:.1f} MiB, "
        f"product {product['before'] / 1024:.1f} MiB; {len(extra)} modules more, of which "
        f"{sum(1 for n in extra if n.split('.')[0] in OWN_PACKAGES)} the app's own",
        "third-party packages only the product imports, each alone on top of a bare worker:",
    ]
    costs = []
    for package, names in by_package.items():
        measured = _probe(BARE_SETTINGS, list(BARE_MODULES), names)
        added = len(set(measured["modules"]) - set(bare["modules"]))
        costs.append((measured["after"] - measured["before"], package, added, measured["failed"]))
    for kb, package, added, failed in sorted(costs, reverse=True):
        if failed and not added:  # a compiled extension's name, not a package
            continue
        note = f"  (not importable alone: {', '.join(failed)})" if failed else ""
        lines.append(f"  {package:<22} +{kb / 1024:5.1f} MiB  +{added:>3} modules{note}")
    return lines


# --- report --------------------------------------------------------------------------------


def report(product: Measured, bare: Measured, args: argparse.Namespace) -> float:
    print()
    header = f"{'worker':<10} {'messages':>8} {'seconds':>8}  {'when':<16} memory"
    print(header)
    print("-" * 120)
    for m in (product, bare):
        print(f"{m.name:<10} {m.messages:>8,} {m.seconds:>8.1f}  {'ready (idle)':<16} "
              f"{m.started.text()}")  # fmt: skip
        print(f"{'':<10} {'':>8} {'':>8}  {'messages done':<16} {m.done.text()}")
    print()
    for m in (product, bare):
        for note in m.notes:
            print(f"  {m.name}: {note}")
    ratio = sum(product.done.rss) / sum(bare.done.rss)
    ratio_ready = sum(product.started.rss) / sum(bare.started.rss)
    ratio_pss = sum(product.done.pss) / sum(bare.done.pss)
    memory = _kb(Path("/proc/meminfo"), "MemTotal") / 2**20
    print(
        f"\nmachine: {os.cpu_count()} CPUs, {memory:.1f} GiB RAM, Python "
        f"{platform.python_version()}, load average {os.getloadavg()[0]:.2f}; workers: "
        f"{args.processes} processes x {args.threads} threads each"
    )
    print(f"product / bare: VmRSS ready {ratio_ready:.2f}x, done {ratio:.2f}x; PSS done "
          f"{ratio_pss:.2f}x")  # fmt: skip
    harness.judge(
        "worker_rss",
        f"product worker VmRSS <= {GOAL} x a bare Django Dramatiq worker's",
        ratio <= GOAL,
        f"{sum(product.done.rss) / 1024:.1f} / {sum(bare.done.rss) / 1024:.1f} MiB = {ratio:.2f}x",
        smoke=args.smoke,
    )
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--phones", type=int, default=20)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--redis-url", default=DEFAULT_REDIS_URL)
    parser.add_argument("--imports", action="store_true", help="where the product's memory goes")
    harness.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.messages, args.phones, args.processes, args.threads = 20, 2, 1, 2
    if args.phones > 20 or args.messages > args.phones * 1000:
        parser.error("at most 20 phones (the per-phone queues) and 1,000 messages a phone")

    server = FakeTimelinesAI()
    server.start()
    args.database_url = harness.database_url("rss", args.database_url, smoke=args.smoke)
    set_environment(args, server, NAMESPACE)
    configure("rss", args)  # claims and migrates the database; production settings
    logs = Path(tempfile.mkdtemp(prefix="bench-rss-"))
    try:
        bench = Bench(args, server, logs)
        empty_database()
        print(f"fake TimelinesAI at {server.base_url}; worker logs in {logs}", flush=True)
        product = bench.product()
        print(f"  product: {product.done.text()}", flush=True)
        bare = bench.bare()
        print(f"  bare:    {bare.done.text()}", flush=True)
        bench.flush(NAMESPACE)
        bench.flush(BARE_NAMESPACE)
        if args.imports:
            from django_dramatiq.management.commands.rundramatiq import Command

            modules = Command(stdout=io.StringIO()).discover_tasks_modules()
            print("\nwhere the product worker's memory goes:", flush=True)
            for line in imports_report(modules):
                print(f"  {line}")
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    report(product, bare, args)
    return harness.exit_status(args)


if __name__ == "__main__":
    sys.exit(main())
