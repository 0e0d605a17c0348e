"""Benchmark the lead import on a realistic file (default 50,000 rows, ~2% bad).

    .venv/bin/python bench/import_leads.py [--rows 50000] [--seed 7] [--smoke]
        [--database-url postgres://…/any_name]

Uses a database of its own (bench/harness.py: created and migrated if missing, production
settings), recreates a `bench-import` tenant, then times a first import (all new), a
re-import of the same file (all unchanged) and an import of the same companies renamed
(all updated), with the SQL statements of each.

Ceiling, in the same run: the same rows written by one plain `Lead.objects.bulk_create`
(no parsing, no validation, no matching): the least an import of these rows can cost.
The product states no goal for the import; the ratio to the ceiling is reported.
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
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
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


def configure(
    bench: str = "import", args: argparse.Namespace | None = None, **settings: str
) -> None:
    """Point Django at the bench's database (bench/harness.py: created, claimed, migrated)
    with production settings. Without `args`, DATABASE_URL as the caller set it."""
    from bench import harness

    if args is None:
        args = argparse.Namespace(database_url=os.environ.get("DATABASE_URL"), smoke=False)
    harness.setup(bench, args, **settings)


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


def timed(label: str, rows: int, action: Callable[[], object]) -> float:
    """Run the import once and print its speed, report and statement count; its seconds."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        report = action()
        elapsed = time.perf_counter() - started
    print(
        f"{label}: {elapsed:.2f} s, {rows / elapsed:,.0f} rows/s, "
        f"{len(queries)} statements — {report.summary()}",  # type: ignore[attr-defined]
        flush=True,
    )
    return elapsed


def ceiling(rows: int, seed: int) -> float:
    """Seconds for one plain bulk_create of `rows` leads (rolled back)."""
    from django.db import transaction

    from cerniq.models import Tenant
    from outreach import companies
    from outreach.models import Lead

    rng = random.Random(seed)
    cuis = [valid_cui(base) for base in rng.sample(range(1_000_000, 49_999_999), rows)]
    with transaction.atomic():
        tenant = Tenant.objects.create(name="Bench import ceiling", slug="bench-import-ceiling")
        leads = [
            Lead(
                tenant=tenant,
                name=f"Agro {i} SRL",
                cui=cui,
                county="Iași",
                locality="Iași",
                phone=f"+4072{i:07d}",
                email=f"office@agro-{i}.ro",
                source="bench",
            )
            for i, cui in enumerate(cuis, start=1)
        ]
        companies.companies_for_new_leads(tenant, leads)  # not timed: the leads' part is
        started = time.perf_counter()
        Lead.objects.bulk_create(leads, batch_size=2000)
        elapsed = time.perf_counter() - started
        transaction.set_rollback(True)
    print(f"ceiling (one bulk_create): {elapsed:.2f} s, {rows / elapsed:,.0f} rows/s", flush=True)
    return elapsed


def main() -> int:
    from bench import harness

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=7)
    harness.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.rows = 300
    configure("import", args)

    from django.db import connection

    from cerniq.models import Tenant
    from outreach.importing import import_csv

    Tenant.objects.filter(slug=TENANT_SLUG).delete()
    tenant = Tenant.objects.create(name="Bench import", slug=TENANT_SLUG)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "leads.csv"
        bad = write_csv(path, args.rows, args.seed)
        size = path.stat().st_size / 1e6
        print(
            f"{connection.vendor} {connection.settings_dict['NAME']}: {args.rows:,} rows "
            f"({bad} spoiled), {size:.1f} MB; {harness.load_note()}"
        )

        renamed = Path(folder) / "renamed.csv"
        write_csv(renamed, args.rows, args.seed, renamed=True)

        def run(source: Path) -> Callable[[], object]:
            def action() -> object:
                with source.open("rb") as fileobj:
                    return import_csv(tenant, fileobj, source="bench")

            return action

        floor = ceiling(args.rows, args.seed + 1)
        first = timed("first import  ", args.rows, run(path))
        timed("re-import     ", args.rows, run(path))
        timed("all renamed   ", args.rows, run(renamed))
    print(
        f"first import / ceiling: {first / floor:.1f}x the time of a plain bulk_create "
        "(no goal is set for the import; reported only)"
    )
    return harness.exit_status(args)


if __name__ == "__main__":
    sys.exit(main())
