"""Benchmark the REST API's leads endpoints on a big tenant (50,000 leads, 1,000,000
messages: bench/pages.py's fill and database) next to a bare DRF list in the same run.

    .venv/bin/python bench/api.py [--requests 100] [--explain] [--only TEXT] [--what-if]
        [--smoke] [--strict] [--database-url postgres://…/any_name]

Fills the database as bench/pages.py does when it is missing or holds another fill (the same
functions and database, `cerniq_bench_pages` by default; `--refill` rebuilds it). Production
settings (DEBUG off). Creates a read API key for the `bench-pages` tenant through
cerniq.api_keys (as a tenant admin; earlier bench keys are revoked), then requests every
case through Django's test client with `Authorization: Api-Key ...` (the bench URLconf
bench/api_urls.py adds the bare lists beside every real URL): warm-up requests, then
`--requests` timed ones, reporting p50/p95/max server time, the SQL queries of each request
and the ratio to the ceiling, the bare DRF list (`/bench/bare/`: same pagination, no auth),
measured in the same interleaved rounds. The throttle counts in Redis (`--redis-url`,
database 7) as in production; the rate is raised so the bench is never refused.
`--what-if` adds the leads lists with a nested journey serializer (bench/api_urls.py; not
the app's code, not held to the goal).

Goal: every API list and read p95 under 50 ms at this size (judged on the absolute p95;
`p95/bare` is the figure to compare across runs on a machine whose load varies).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from urllib.parse import quote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.import_leads import configure  # noqa: E402
from bench.pages import (  # noqa: E402
    BENCH,
    TENANT_SLUG,
    ensure_fill,
    explain,
    measure_in_rounds,
    use_bench_urls,
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
    """The URL of page `pages + 1` (or the last), reached by following `next` links (not
    timed)."""
    for _ in range(pages):
        response = client.get(url, secure=True)
        if response.status_code != 200:
            raise SystemExit(f"bench failed: {url} answered {response.status_code}")
        link = response.json()["next"]
        if not link:  # a small fill (--smoke): the last page there is
            break
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


def main() -> int:
    from bench import harness

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
    harness.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.leads, args.messages, args.requests, args.rounds, args.warmup = 200, 1000, 1, 1, 0
    os.environ["API_THROTTLE_RATE"] = "1000000/min"  # counted, never refusing
    if args.redis_url:
        os.environ["REDIS_URL"] = args.redis_url
    else:
        os.environ.pop("REDIS_URL", None)
    configure(BENCH, args)
    use_bench_urls()
    from django.conf import settings

    ensure_fill(args)

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
        f"{GOAL_MS:.0f} ms; {harness.load_note()}; random_page_cost {args.random_page_cost}"
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
    print(f"at the end: {harness.load_note()}")
    held = [(label, found) for label, found in rows[2:] if not label.startswith("what-if")]
    worst_label, worst = max(held, key=lambda row: row[1]["p95"])
    slow = [f"{label} {found['p95']:.0f}" for label, found in held if found["p95"] >= GOAL_MS]
    harness.judge(
        "api",
        f"every API list and read p95 < {GOAL_MS:.0f} ms",
        not slow,
        f"{len(held) - len(slow)} of {len(held)} under; slowest {worst_label} "
        f"{worst['p95']:.0f} ms = {worst['p95'] / bare['p95']:.1f}x the bare DRF list's p95 "
        f"({bare['p95']:.1f} ms)" + (f"; over: {', '.join(slow)}" if slow else ""),
        smoke=args.smoke,
    )
    return harness.exit_status(args)


if __name__ == "__main__":
    sys.exit(main())
