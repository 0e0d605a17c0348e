"""Benchmark the REST API's leads endpoints on a big tenant (50,000 leads, 1,000,000
messages: bench/pages.py's fill and database) next to a bare DRF list in the same run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/cerniq_bench_pages \\
        .venv/bin/python bench/api.py [--requests 100] [--explain] [--only TEXT] [--what-if]

Fills the database as bench/pages.py does when it is missing or holds another fill (the same
functions; `--refill` rebuilds it). Creates a read API key for the `bench-pages` tenant
through cerniq.api_keys (as a tenant admin; earlier bench keys are revoked), then requests
every case through Django's test client with `Authorization: Api-Key ...` (the bench
URLconf bench/api_urls.py adds the bare lists beside every real URL): warm-up requests,
then `--requests` timed ones, reporting p50/p95/max server time, the SQL queries of each
request and the ratio to the bare DRF list (`/bench/bare/`: same pagination, no auth).
The throttle counts in Redis (`--redis-url`, database 7) as in production; the rate is
raised so the bench is never refused. `--what-if` adds the leads lists with a nested journey
serializer (bench/api_urls.py; not the app's code, not held to the goal). Goal p95 < 50 ms:
reported, not an exit status; exits 1 only when the bench itself fails (a request not
answered 200, no fill).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path
from urllib.parse import quote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.import_leads import configure  # noqa: E402
from bench.pages import (  # noqa: E402
    DEFAULT_URL,
    TENANT_SLUG,
    empty_database,
    explain,
    fill,
    filled,
    measure,
    summarize,
)

GOAL_MS = 50.0
KEY_NAME = "bench-api"
ADMIN = "bench-api-admin"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/7"
LATER_LEADS_PAGE = 200  # the leads list's page reached by following `next` (of 1,000)
PAGE_SIZE = 50  # REST_FRAMEWORK["PAGE_SIZE"]
BARE = "bare DRF list"


def api_client(tenant_slug: str = TENANT_SLUG, admin_name: str = ADMIN, key_name: str = KEY_NAME):
    """A test client sending a fresh read key of a bench tenant, made by cerniq.api_keys as
    a tenant admin (earlier keys of that name revoked). bench/search.py uses it too."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from cerniq.api_keys import create_key, list_keys, revoke_key
    from cerniq.models import Membership, Tenant, TenantAPIKey

    tenant = Tenant.objects.get(slug=tenant_slug)
    admin, _ = get_user_model().objects.get_or_create(username=admin_name)
    Membership.objects.get_or_create(
        tenant=tenant, user=admin, defaults={"role": Membership.Role.ADMIN}
    )
    for old in list_keys(tenant).filter(name=key_name, revoked=False):
        revoke_key(tenant, old.prefix, user=admin)
    _key, secret = create_key(tenant, name=key_name, scope=TenantAPIKey.Scope.READ, user=admin)
    return Client(
        HTTP_HOST="localhost",
        HTTP_ACCEPT="application/json",
        HTTP_ACCEPT_LANGUAGE="en",
        HTTP_AUTHORIZATION=f"Api-Key {secret}",
    )


def follow(client, url: str, pages: int) -> str:
    """The URL of page `pages + 1`, reached by following `next` links (not timed)."""
    for _ in range(pages):
        response = client.get(url, secure=True)
        if response.status_code != 200:
            raise SystemExit(f"bench failed: {url} answered {response.status_code}")
        link = response.json()["next"]
        if not link:
            raise SystemExit(f"bench failed: {url} has no next page")
        parts = urlsplit(link)
        url = f"{parts.path}?{parts.query}"
    return url


def what_if(client, urls: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The same lists through bench/api_urls.py's nested-journey serializer, checked to
    answer the same JSON first."""
    cases = []
    for label, url in urls:
        proposed = url.replace("/api/v1/leads/", "/bench/what-if/leads/")
        shipped, candidate = client.get(url, secure=True), client.get(proposed, secure=True)
        if shipped.json()["results"] != candidate.json()["results"]:
            raise SystemExit(f"bench failed: the what-if answers other JSON than {url}")
        cases.append((f"what-if: {label}", proposed))
    return cases


def cases(client, with_what_if: bool) -> list[tuple[str, str]]:
    """(label, URL) of every case, with real ids from the fill."""
    from django.db.models import Count

    from cerniq.models import Tenant
    from outreach.models import Lead, Message

    tenant = Tenant.objects.get(slug=TENANT_SLUG)
    contacted = Lead.objects.filter(tenant=tenant, journey__stage="CONTACTED_WA").order_by("pk")
    sample = contacted[contacted.count() // 30]
    busy = (
        Message.objects.filter(tenant=tenant, lead__isnull=False)
        .values("lead_id")
        .annotate(n=Count("pk"))
        .order_by("-n")
        .first()
    )
    typical = Message.objects.filter(tenant=tenant, lead_id=sample.pk).count()
    fragment = sample.name.split()[1][:5].lower()
    county = quote(sample.county)
    stage_county = f"/api/v1/leads/?stage=CONTACTED_WA&county={county}"
    searched = f"{stage_county}&search={quote(fragment)}"
    matches = client.get(f"{searched}&page_size=200", secure=True).json()["results"]
    in_county = Lead.objects.filter(
        tenant=tenant, journey__stage="CONTACTED_WA", county=sample.county
    ).count()
    print(
        f"  typical lead #{sample.pk}: {typical} messages; busiest lead #{busy['lead_id']}: "
        f"{busy['n']}; CONTACTED_WA in {sample.county}: {in_county:,} leads, "
        f"of which {len(matches)}{'+' if len(matches) == 200 else ''} match {fragment!r}"
    )
    leads = [
        ("leads p1", "/api/v1/leads/"),
        ("leads page_size=200", "/api/v1/leads/?page_size=200"),
        ("leads stage+county+search", searched),
    ]
    timeline = f"/api/v1/leads/{busy['lead_id']}/timeline/"
    later = max(1, (busy["n"] - 1) // PAGE_SIZE)  # the busiest lead's last timeline page
    return [
        (BARE, "/bench/bare/"),
        ("bare DRF list + API key", "/bench/bare-auth/"),
        ("leads p1", "/api/v1/leads/"),
        (
            f"leads p{LATER_LEADS_PAGE} (cursor)",
            follow(client, "/api/v1/leads/", LATER_LEADS_PAGE - 1),
        ),
        ("leads page_size=200", "/api/v1/leads/?page_size=200"),
        ("leads stage+county", stage_county),
        ("leads stage+county p5", follow(client, stage_county, 4)),
        ("leads stage+county+search", searched),
        (f"leads search={fragment}", f"/api/v1/leads/?search={quote(fragment)}"),
        ("leads search=<CUI>", f"/api/v1/leads/?search={sample.cui}"),
        ("leads updated_since", "/api/v1/leads/?updated_since=2000-01-01T00:00:00Z"),
        (f"lead retrieve ({typical} msgs)", f"/api/v1/leads/{sample.pk}/"),
        (f"lead retrieve ({busy['n']} msgs)", f"/api/v1/leads/{busy['lead_id']}/"),
        (f"timeline p1 ({typical} msgs)", f"/api/v1/leads/{sample.pk}/timeline/"),
        (f"timeline p1 ({busy['n']} msgs)", timeline),
        (f"timeline p{later + 1} ({busy['n']} msgs)", follow(client, timeline, later)),
        *(what_if(client, leads) if with_what_if else []),
    ]


def measure_in_rounds(client, chosen, requests: int, rounds: int, warmup: int) -> list:
    """Every case a share of its requests per round, the cases in turn, so a burst of load
    from the machine's other work falls on all of them alike; the samples pooled."""
    pooled = {label: ([], [], [], [], (0.0, "")) for label, _ in chosen}
    for round_ in range(rounds):
        share = requests // rounds + (1 if round_ < requests % rounds else 0)
        for label, url in chosen:
            found = measure(client, url, share, warmup)
            *samples, slowest = pooled[label]
            for into, more in zip(samples, found["samples"], strict=True):
                into.extend(more)
            pooled[label] = (*samples, max(slowest, found["slowest"]))
        print(f"  round {round_ + 1}/{rounds} done, load average {os.getloadavg()[0]:.2f}")
    return [(label, summarize(*pooled[label])) for label, _ in chosen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leads", type=int, default=50_000)
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds of all cases")
    parser.add_argument("--warmup", type=int, default=2, help="untimed requests per round")
    parser.add_argument("--refill", action="store_true", help="empty the database and refill")
    parser.add_argument("--explain", action="store_true", help="EXPLAIN the slowest queries")
    parser.add_argument("--only", default="", help="measure only cases containing this text")
    parser.add_argument(
        "--what-if",
        action="store_true",
        help="add the leads lists with a nested journey serializer (bench/api_urls.py)",
    )
    parser.add_argument(
        "--redis-url",
        default=DEFAULT_REDIS_URL,
        help="the throttle's cache, as in production ('' for the in-process cache)",
    )
    parser.add_argument(
        "--random-page-cost",
        type=float,
        default=1.1,
        help="PostgreSQL's random_page_cost for the session, as bench/pages.py sets it",
    )
    args = parser.parse_args()
    os.environ.setdefault("DATABASE_URL", DEFAULT_URL)
    os.environ.setdefault("DEBUG", "false")  # as production runs: no query log
    os.environ.setdefault("SECRET_KEY", "bench-api-not-a-secret")
    os.environ.setdefault("ALLOWED_HOSTS", "localhost,testserver")
    os.environ["API_THROTTLE_RATE"] = "1000000/min"  # counted, never refusing
    if args.redis_url:
        os.environ["REDIS_URL"] = args.redis_url
    else:
        os.environ.pop("REDIS_URL", None)
    # WhiteNoise warns that collectstatic has not run; the API serves no static files.
    warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
    configure()
    from django.conf import settings
    from django.db import connection
    from django.urls import clear_url_caches

    settings.ROOT_URLCONF = "bench.api_urls"
    clear_url_caches()
    if connection.vendor != "postgresql":
        sys.exit("bench/api.py needs PostgreSQL (DATABASE_URL=postgres://…)")
    if args.refill:
        empty_database()
    if filled(args.leads):
        print(f"{connection.settings_dict['NAME']}: reusing the fill (--refill to rebuild)")
    else:
        if not args.refill:
            empty_database()  # a partial or different fill
        print(f"{connection.settings_dict['NAME']}: filling (bench/pages.py's fill)")
        fill(args.leads, args.messages)
    with connection.cursor() as cursor:
        cursor.execute("SET random_page_cost = %s", [args.random_page_cost])

    client = api_client()
    chosen = [
        (label, url)
        for label, url in cases(client, args.what_if)
        if not args.only or args.only in label or label == BARE
    ]
    cache = settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]
    print(
        f"{args.requests} requests per case in {args.rounds} interleaved rounds (each after "
        f"{args.warmup} warm-up); server time through Django's test client (middleware, "
        "authentication, throttle, view, serializer); `cpu ms`: this process's CPU per request "
        "(median; no PostgreSQL time, little waiting for a CPU); `sql ms`: the median "
        f"request's time in SQL; read API key; throttle cache {cache}; goal p95 < "
        f"{GOAL_MS:.0f} ms; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; "
        f"random_page_cost {args.random_page_cost}"
    )
    try:
        rows = measure_in_rounds(client, chosen, args.requests, args.rounds, args.warmup)
    except AssertionError as failed:
        sys.exit(f"bench failed: {failed}")
    header = (
        f"{'case':<36} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'cpu ms':>7} {'queries':>7}"
        f" {'sql ms':>6} {'p50/bare':>8} {'p95/bare':>8}  slowest query"
    )
    print(header)
    print("-" * len(header))
    bare = rows[0][1]
    for label, found in rows:
        low, high = found["queries"]
        queries = str(low) if low == high else f"{low}-{high}"
        print(
            f"{label:<36} {found['p50']:7.1f} {found['p95']:7.1f} {found['max']:7.1f} "
            f"{found['cpu']:7.1f} {queries:>7} {found['sql']:6.1f} "
            f"{found['p50'] / bare['p50']:8.1f} {found['p95'] / bare['p95']:8.1f}  "
            f"{found['slowest'][0]:.1f} ms",
            flush=True,
        )
        if args.explain and found["slowest"][0] > 5:
            print(f"    {found['slowest'][1][:3000]}")
            explain(found["slowest"][1])
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    missed = [
        f"{label} {found['p95']:.0f}"
        for label, found in rows
        if found["p95"] >= GOAL_MS and not label.startswith("what-if")
    ]
    if missed:
        print(f"p95 ≥ {GOAL_MS:.0f} ms (goal missed, reported only): {', '.join(missed)}")
    else:
        print(f"every case of the app's code is under p95 {GOAL_MS:.0f} ms")


if __name__ == "__main__":
    main()
