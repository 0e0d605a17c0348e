"""Benchmark the lead import on a realistic file (default 50,000 rows, ~2% bad).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cerniq_bench \\
        .venv/bin/python bench/import_leads.py [--rows 50000] [--seed 7]

Creates the database if missing, migrates it, recreates a `bench-import` tenant, then times
a first import (all new), a re-import of the same file (all unchanged) and an import of the
same companies renamed (all updated).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/cerniq_bench"
TENANT_SLUG = "bench-import"
HEADER = (
    "denumire;cui;judet;localitate;contact_principal_nume;telefon_principal;hlr_reachable;"
    "email_principal;status_email;cod_caen;suprafata_ha"
)

PREFIXES = ("Agro", "Ferma", "Cereale", "Legume", "Vita", "Pomicola", "Agricola", "Zootehnia")
PLACES = ("Câmpia", "Bărăgan", "Dobrogea", "Moldova", "Mureș", "Olt", "Siret", "Someș", "Tisa")
SUFFIXES = ("SRL", "SRL", "SRL", "SA", "SCA", "II", "PFA")
COUNTIES = {
    "Iași": ("Iași", "Pașcani", "Hârlău", "Târgu Frumos"),
    "Constanța": ("Constanța", "Medgidia", "Mangalia", "Cernavodă"),
    "Călărași": ("Călărași", "Oltenița", "Lehliu-Gară"),
    "Ialomița": ("Slobozia", "Fetești", "Urziceni"),
    "Timiș": ("Timișoara", "Lugoj", "Jimbolia", "Deta"),
    "Dolj": ("Craiova", "Băilești", "Calafat"),
    "Teleorman": ("Alexandria", "Roșiori de Vede", "Turnu Măgurele"),
    "Brăila": ("Brăila", "Ianca", "Însurăței"),
    "Mureș": ("Târgu Mureș", "Reghin", "Luduș"),
    "Olt": ("Slatina", "Caracal", "Balș"),
}
FIRST_NAMES = ("Ion", "Maria", "Gheorghe", "Elena", "Vasile", "Ioana", "Mihai", "Ana", "Ștefan")
LAST_NAMES = ("Popescu", "Ionescu", "Popa", "Rusu", "Munteanu", "Ciobanu", "Ungureanu", "Țurcanu")
CAEN = ("0111", "0113", "0121", "0124", "0141", "0146", "0150", "0161")
STATUSES = ("valid", "valid", "valid", "risky", "catch-all", "unknown", "invalid", "")


def configure() -> None:
    """Point Django at the bench database (created if missing) and migrate it."""
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("DATABASE_URL", DEFAULT_URL)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cerniq.settings")
    sys.path.insert(0, str(ROOT))
    ensure_database(os.environ["DATABASE_URL"])

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def ensure_database(url: str) -> None:
    """CREATE DATABASE through the `postgres` maintenance database when it does not exist."""
    import environ
    import psycopg
    from psycopg import sql

    config = environ.Env.db_url_config(url)
    if "postgresql" not in config["ENGINE"]:
        return
    params = {
        "dbname": "postgres",
        "user": config.get("USER") or None,
        "password": config.get("PASSWORD") or None,
        "host": config.get("HOST") or None,
        "port": config.get("PORT") or None,
    }
    with psycopg.connect(**{k: v for k, v in params.items() if v}, autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [config["NAME"]]
        ).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(config["NAME"])))
            print(f"created database {config['NAME']}")


def valid_cui(base: int) -> str:
    from stdnum.ro import cui

    digits = str(base)
    return digits + cui.calc_check_digit(digits)


def company_row(rng: random.Random, index: int, cui: str, renamed: bool) -> list[str]:
    """One plausible gold-company row, with the formatting mess real exports have."""
    name = f"{rng.choice(PREFIXES)} {rng.choice(PLACES)} {index} {rng.choice(SUFFIXES)}"
    name += " (nou)" if renamed else ""
    county = rng.choice(tuple(COUNTIES))
    mobile = f"07{rng.randint(2, 8)}{index:07d}"
    phone = rng.choice(
        (mobile, f"{mobile[:4]} {mobile[4:7]} {mobile[7:]}", f"+4{mobile}", f"0040 {mobile[1:]}")
    )
    slug = name.split()[0].lower()
    has_phone = rng.random() < 0.9
    has_email = not has_phone or rng.random() < 0.8  # every good row has a way to reach it
    return [
        name,
        rng.choice((cui, cui, f"RO{cui}", f"RO {cui}")),
        county,
        rng.choice(COUNTIES[county]),
        f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
        phone if has_phone else "",
        rng.choice(("da", "nu", "true", "false", "")),
        f"office@{slug}-{index}.ro" if has_email else "",
        rng.choice(STATUSES),
        rng.choice(CAEN),
        str(rng.randint(5, 3000)) if rng.random() < 0.7 else "",
    ]


def spoil(rng: random.Random, row: list[str], earlier: list[str]) -> list[str]:
    """Make a row bad in one of the ways real files are bad."""
    kind = rng.randrange(6)
    if kind == 0:
        row[1] = row[1][:-1] + str((int(row[1][-1]) + 1) % 10)  # wrong check digit
    elif kind == 1:
        row[5] = "0722 12"
    elif kind == 2:
        row[7] = "office@"
    elif kind == 3:
        row[5] = row[7] = ""
    elif kind == 4:
        row[1] = earlier[1]  # duplicate CUI within the file
    else:
        row = row[:4]  # wrong number of fields
    return row


def write_csv(path: Path, rows: int, seed: int, *, renamed: bool = False) -> int:
    """Write the file (BOM, `;`, CRLF like Romanian Excel); return the number of bad rows.

    `renamed` gives every company a new name, same keys otherwise: an all-updates file."""
    rng = random.Random(seed)
    cuis = [valid_cui(base) for base in rng.sample(range(1_000_000, 49_999_999), rows)]
    bad = 0
    previous = ["", "18547290"]
    with path.open("w", encoding="utf-8-sig", newline="") as out:
        out.write(HEADER + "\r\n")
        for index, cui in enumerate(cuis, start=1):
            row = company_row(rng, index, cui, renamed)
            if rng.random() < 0.02:
                row = spoil(rng, row, previous)
                bad += 1
            else:
                previous = row
            out.write(";".join(row) + "\r\n")
    return bad


def timed(label: str, rows: int, action: Callable[[], object]) -> None:
    """Run the import once and print its speed, report and query count."""
    from django.db import connection, reset_queries

    reset_queries()
    started = time.perf_counter()
    report = action()
    elapsed = time.perf_counter() - started
    print(
        f"{label}: {elapsed:.2f} s, {rows / elapsed:,.0f} rows/s, "
        f"{len(connection.queries)} queries — {report.summary()}"  # type: ignore[attr-defined]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    configure()

    from django.db import connection

    from cerniq.models import Tenant
    from outreach.importing import import_csv

    Tenant.objects.filter(slug=TENANT_SLUG).delete()
    tenant = Tenant.objects.create(name="Bench import", slug=TENANT_SLUG)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "leads.csv"
        bad = write_csv(path, args.rows, args.seed)
        size = path.stat().st_size / 1e6
        print(f"{connection.vendor}: {args.rows:,} rows ({bad} spoiled), {size:.1f} MB")

        renamed = Path(folder) / "renamed.csv"
        write_csv(renamed, args.rows, args.seed, renamed=True)

        def run(source: Path) -> Callable[[], object]:
            def action() -> object:
                with source.open("rb") as fileobj:
                    return import_csv(tenant, fileobj, source="bench")

            return action

        timed("first import  ", args.rows, run(path))
        timed("re-import     ", args.rows, run(path))
        timed("all renamed   ", args.rows, run(renamed))


if __name__ == "__main__":
    main()
