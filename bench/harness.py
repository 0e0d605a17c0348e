"""What every bench shares: a database of its own (any name), production settings, the
smoke size, and the verdict against the product's goals.

Database. `--database-url` names it exactly (any name). Without it, a bench takes the
server of DATABASE_URL when that is PostgreSQL (else postgres@127.0.0.1:5432) and a name
of its own: `<DATABASE_URL's name>_bench_<bench>`, or `cerniq_bench_<bench>`. It creates
the database when missing (from BENCH_TEMPLATE_DB, an already migrated one, when bench/
run_all.py made one) and marks it as a bench's (a COMMENT ON DATABASE). It empties only a
database it marked, or one that holds no tenant and no user yet; anything else is refused
before a row is touched. With `--smoke` the name gets `_smoke_<pid>` and the database is
dropped when the bench ends.

Settings. Production's: DEBUG off (so JSON logs, no query log, no template debug data),
whatever the calling shell says; a throwaway SECRET_KEY.

Verdicts. `judge()` prints one `goal MET` / `goal MISSED` line per goal with the figures
(a ratio to the ceiling measured in the same run and/or the absolute figure) and appends it
to BENCH_VERDICTS (JSON lines) for bench/run_all.py's summary. A bench exits 1 when it
breaks (an error, a wrong count), 0 when it ran, whatever the goals; `--strict` makes a
missed goal exit 3. At the smoke size the goals are printed but not judged: tiny runs
measure start-up, not the product.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import secrets
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432/"
MARK = "cerniq bench"
TEMPLATE_ENV = "BENCH_TEMPLATE_DB"
VERDICTS_ENV = "BENCH_VERDICTS"
PG_SCHEMES = ("postgres", "postgresql", "pgsql")


class BenchError(Exception):
    """The bench itself failed (not a missed goal)."""


# --- arguments -------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--smoke",
        action="store_true",
        default=os.environ.get("BENCH_SMOKE") == "1",
        help="a tiny size in a throwaway database: proves the bench runs (BENCH_SMOKE=1)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        default=os.environ.get("BENCH_STRICT") == "1",
        help="exit 3 when a goal is missed (BENCH_STRICT=1)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="this exact PostgreSQL database (any name); default: one of the bench's own",
    )


# --- the database ----------------------------------------------------------------------


def database_url(bench: str, given: str | None = None, *, smoke: bool = False) -> str:
    """The bench's database URL (see the module docstring)."""
    if given:
        return given
    env = os.environ.get("DATABASE_URL", "")
    if urlsplit(env).scheme in PG_SCHEMES and urlsplit(env).path.strip("/"):
        parts = urlsplit(env)
        name = f"{parts.path.strip('/')}_bench_{bench}"
    else:
        parts = urlsplit(DEFAULT_SERVER)
        name = f"cerniq_bench_{bench}"
    if smoke:
        name += f"_smoke_{os.getpid()}"
    return urlunsplit(parts._replace(path="/" + name[-63:]))


def _connect_params(url: str, dbname: str) -> dict:
    import environ

    config = environ.Env.db_url_config(url)
    params = {
        "dbname": dbname,
        "user": config.get("USER") or None,
        "password": config.get("PASSWORD") or None,
        "host": config.get("HOST") or None,
        "port": config.get("PORT") or None,
    }
    return {key: value for key, value in params.items() if value}


def _name(url: str) -> str:
    return urlsplit(url).path.strip("/")


def claim_database(url: str, bench: str, *, drop_at_exit: bool = False) -> str:
    """Create the database if missing and mark it as this bench's; refuse one that holds
    someone's data. Returns the name. With `drop_at_exit`, a database created here is
    dropped when the process ends."""
    import psycopg
    from psycopg import sql

    if urlsplit(url).scheme not in PG_SCHEMES:
        raise BenchError(f"the benches need PostgreSQL, not {urlsplit(url).scheme!r}")
    name = _name(url)
    with psycopg.connect(**_connect_params(url, "postgres"), autocommit=True) as conn:
        row = conn.execute(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s",
            [name],
        ).fetchone()
        if row is None:
            template = os.environ.get(TEMPLATE_ENV)
            create = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
            if template:
                create += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
            conn.execute(create)
            print(f"created database {name}" + (f" from {template}" if template else ""))
            if drop_at_exit:
                atexit.register(drop_database, url)
        elif not (row[0] or "").startswith(MARK) and _holds_data(url):
            raise BenchError(
                f"database {name} holds tenants or users and no bench made it: name another "
                "(--database-url) or drop it; a bench empties the database it uses"
            )
        comment = sql.SQL("COMMENT ON DATABASE {} IS {}").format(
            sql.Identifier(name), sql.Literal(f"{MARK}: {bench}")
        )
        conn.execute(comment)
    return name


def _holds_data(url: str) -> bool:
    import psycopg

    with psycopg.connect(**_connect_params(url, _name(url)), autocommit=True) as conn:
        for table in ("cerniq_tenant", "auth_user"):
            exists = conn.execute("SELECT to_regclass(%s)", [table]).fetchone()[0]
            if exists and conn.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone()[0]:  # noqa: S608 - a constant
                return True
    return False


def drop_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    try:
        from django.db import connections

        connections.close_all()
    except Exception:  # noqa: S110 - Django never set up: nothing to close
        pass
    with psycopg.connect(**_connect_params(url, "postgres"), autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(_name(url)))
        )


def empty_database() -> None:
    """Every row of the bench's database gone, the schema kept (claim_database made sure
    the database is a bench's)."""
    from django.core.management import call_command

    call_command("flush", interactive=False, verbosity=0)


# --- settings --------------------------------------------------------------------------


def production_environment(url: str, **extra: str) -> None:
    """Production settings for this process and whatever it starts: DEBUG off (JSON logs,
    no query log), the bench's database."""
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "cerniq.settings",
            "DEBUG": "false",
            "SECRET_KEY": os.environ.get("BENCH_SECRET_KEY") or secrets.token_urlsafe(40),
            "ALLOWED_HOSTS": "localhost,testserver,127.0.0.1",
            "DATABASE_URL": url,
            **extra,
        }
    )
    os.environ.pop("LOG_FORMAT", None)  # production's: JSON
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def setup(bench: str, args: argparse.Namespace, *, migrate: bool = True, **extra: str) -> str:
    """Claim the database, set production settings, django.setup() and migrate. Returns the
    database URL (also args.database_url)."""
    url = database_url(bench, args.database_url, smoke=args.smoke)
    args.database_url = url
    claim_database(url, bench, drop_at_exit=args.smoke)
    production_environment(url, **extra)
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
    return url


# --- verdicts --------------------------------------------------------------------------


@dataclass
class Verdict:
    bench: str
    goal: str
    met: bool
    figures: str
    judged: bool


_verdicts: list[Verdict] = []


def judge(bench: str, goal: str, met: bool, figures: str, *, smoke: bool = False) -> bool:
    """Print and record one goal's verdict."""
    verdict = Verdict(bench, goal, bool(met), figures, judged=not smoke)
    _verdicts.append(verdict)
    word = "smoke  " if smoke else ("MET    " if met else "MISSED ")
    print(f"goal {word} {goal}: {figures}", flush=True)
    path = os.environ.get(VERDICTS_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(asdict(verdict), ensure_ascii=False) + "\n")
    return bool(met)


def exit_status(args: argparse.Namespace) -> int:
    """0 when the bench ran; 3 with --strict when a judged goal was missed."""
    missed = [v for v in _verdicts if v.judged and not v.met]
    if args.smoke:
        print("smoke size: the figures prove the bench runs; no goal is judged on them")
    elif missed:
        print(f"{len(missed)} goal(s) missed: {', '.join(v.goal for v in missed)}")
    return 3 if args.strict and missed else 0


def load_note() -> str:
    """The machine's load, for every report: the box may be shared."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f}) on {os.cpu_count()} CPUs"


# --- logs ------------------------------------------------------------------------------


TEXT_ERRORS = (" ERROR ", "[ERROR]", "[CRITICAL]")
# outreach.tasks.run_phone logs "phone %s: %s" with pacing.run_phone's outcome.
RUN_OUTCOME = re.compile(r"phone (\d+): (?:message \d+: )?(\w+)")
# settings.LOGGING's text format: "%(asctime)s %(levelname)s %(name)s %(message)s".
_TEXT_LINE = re.compile(r"\S+ \S+ (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (\S+) (.*)")


def log_messages(text: str) -> Iterator[tuple[str, str]]:
    """(logger, message) of each line our logging wrote, JSON (production) or text."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("{"):
            try:
                entry = json.loads(stripped)
            except ValueError:
                continue
            if isinstance(entry, dict) and "logger" in entry:
                yield str(entry["logger"]), str(entry.get("message", ""))
            continue
        match = _TEXT_LINE.match(stripped)
        if match:
            yield match[1], match[2]


def error_lines(text: str) -> list[str]:
    """The lines of a process's log that report an error, whatever the format: our JSON
    lines (level ERROR or CRITICAL, or an exception), text lines (`[ERROR]`, ` ERROR `,
    dramatiq's and gunicorn's own), a bare traceback."""
    found = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("{"):
            try:
                entry = json.loads(stripped)
            except ValueError:
                entry = None
            if isinstance(entry, dict):
                if entry.get("level") in ("ERROR", "CRITICAL") or "exception" in entry:
                    found.append(line)
                continue
        if any(mark in line for mark in TEXT_ERRORS) or line.startswith("Traceback"):
            found.append(line)
    return found
