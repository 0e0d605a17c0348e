"""Run every bench (`make bench`), or every bench at a tiny size (`make bench-smoke`, CI).

    .venv/bin/python bench/run_all.py [--smoke] [--strict] [--only NAME ...]

Each bench runs as its own process, in turn, with production settings and a database of
its own (bench/harness.py). First one database is migrated here, once, and each bench that
creates its database copies it (CREATE DATABASE … TEMPLATE), so no bench pays for the
migrations; it is dropped at the end. Every goal verdict is gathered (BENCH_VERDICTS) and
printed in one table at the end.

Exit status: 1 when a bench broke (an error, a wrong count, a crash), else 0: a missed goal
is a figure to act on, not a broken bench (`--strict` or BENCH_STRICT=1: a missed goal
fails too). `--smoke` judges nothing: it proves that every bench still runs, so none rots
unnoticed between real runs (91 s measured on a 2-CPU machine at load average 1.4-2.8, 3.9
minutes at load average 6; most of it is starting processes: workers, gunicorn, Django).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import harness  # noqa: E402

# Every bench with a goal from the product's performance targets (or, for the import and
# the faults, a figure of its own), in the order `make bench` runs them.
BENCHES = (
    "import_leads",
    "pages",
    "search",
    "api",
    "hostile",
    "dispatch",
    "send_pipeline",
    "instantly_push",
    "webhooks",
    "propagation",
    "faults",
    "worker_rss",
)


def migrated_template() -> str:
    """A freshly migrated database for the benches to copy; its name."""
    url = harness.database_url("template", smoke=True)
    harness.claim_database(url, "template", drop_at_exit=True)
    env = {**os.environ}
    harness.production_environment(url)
    env.update(os.environ)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--skip-checks", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    print(f"run_all: migrated {url.rsplit('/', 1)[-1]} in {time.perf_counter() - started:.0f} s")
    return url.rsplit("/", 1)[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--smoke", action="store_true", default=os.environ.get("BENCH_SMOKE") == "1"
    )
    parser.add_argument(
        "--strict", action="store_true", default=os.environ.get("BENCH_STRICT") == "1"
    )
    parser.add_argument("--only", nargs="+", choices=BENCHES, help="these benches only")
    args = parser.parse_args()
    chosen = args.only or BENCHES
    original = dict(os.environ)
    template = migrated_template()
    os.environ.clear()
    os.environ.update(original)
    verdicts = Path(tempfile.mkstemp(prefix="bench-verdicts-", suffix=".jsonl")[1])
    env = {**original, harness.TEMPLATE_ENV: template, harness.VERDICTS_ENV: str(verdicts)}
    flags = [*(["--smoke"] if args.smoke else []), *(["--strict"] if args.strict else [])]
    ran: list[tuple[str, int, float]] = []
    started = time.perf_counter()
    for name in chosen:
        print(f"\n=== bench/{name}.py {' '.join(flags)}", flush=True)
        t0 = time.perf_counter()
        code = subprocess.run(
            [sys.executable, f"bench/{name}.py", *flags], cwd=ROOT, env=env, check=False
        ).returncode
        ran.append((name, code, time.perf_counter() - t0))
    total = time.perf_counter() - started
    found = [json.loads(line) for line in verdicts.read_text().splitlines() if line.strip()]
    verdicts.unlink()
    print(f"\n=== {len(ran)} benches in {total:.0f} s; {harness.load_note()}")
    for name, code, seconds in ran:
        status = {0: "ran", 3: "ran, goal missed"}.get(code, f"BROKE (exit {code})")
        print(f"  {name:<15} {seconds:6.0f} s  {status}")
    for verdict in found:
        word = "smoke " if not verdict["judged"] else ("MET   " if verdict["met"] else "MISSED")
        print(f"  {word} {verdict['bench']:<15} {verdict['goal']}: {verdict['figures']}"[:300])
    broke = [name for name, code, _ in ran if code not in (0, 3)]
    missed = [v for v in found if v["judged"] and not v["met"]]
    if broke:
        print(f"broken: {', '.join(broke)}")
        return 1
    if args.strict and missed:
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
