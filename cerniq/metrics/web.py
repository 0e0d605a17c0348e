"""HTTP requests and database statements, counted where they happen.

`RequestMetricsMiddleware` labels a request by its URL pattern's name, never by its path:
a path carries tenants' webhook tokens and unbounded ids. Database statements are timed by
an execute wrapper every connection gets when it opens (`install_query_metrics`, on
`connection_created`), so web, workers and commands are all counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.http import HttpRequest, HttpResponse
from prometheus_client import Counter, Histogram

HTTP_REQUESTS = Counter(
    "cerniq_http_requests_total",
    "HTTP requests answered, by method, URL pattern name and status code.",
    ["method", "view", "status"],
)
HTTP_DURATION = Histogram(
    "cerniq_http_request_duration_seconds",
    "Time to answer an HTTP request, by method and URL pattern name.",
    ["method", "view"],
)
DB_QUERIES = Histogram(
    "cerniq_db_query_duration_seconds",
    "Database statements and their duration, by connection alias and statement kind.",
    ["alias", "statement"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0),
)
DB_ERRORS = Counter(
    "cerniq_db_errors_total",
    "Database statements that raised, by connection alias and exception class.",
    ["alias", "error"],
)

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
STATEMENTS = ("SELECT", "INSERT", "UPDATE", "DELETE")


def view_label(request: HttpRequest) -> str:
    """The URL pattern's name (`webhook-intake`, `admin:index`), "unresolved" for a 404
    that matched nothing, "unnamed" for a pattern without a name."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "unresolved"
    return match.view_name or "unnamed"


class RequestMetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        method = request.method if request.method in METHODS else "other"
        view = view_label(request)
        HTTP_REQUESTS.labels(method, view, str(response.status_code)).inc()
        HTTP_DURATION.labels(method, view).observe(time.perf_counter() - started)
        return response


def statement_kind(sql: Any) -> str:
    head = str(sql).lstrip()[:6].upper()
    return head if head in STATEMENTS else "other"


def time_query(
    execute: Callable[..., Any], sql: Any, params: Any, many: bool, context: dict[str, Any]
) -> Any:
    """An execute wrapper (Django's `connection.execute_wrappers` protocol)."""
    alias = context["connection"].alias
    started = time.perf_counter()
    try:
        return execute(sql, params, many, context)
    except Exception as exc:
        DB_ERRORS.labels(alias, type(exc).__name__).inc()
        raise
    finally:
        DB_QUERIES.labels(alias, statement_kind(sql)).observe(time.perf_counter() - started)


def install_query_metrics(sender: Any, connection: BaseDatabaseWrapper, **kwargs: Any) -> None:
    """On `connection_created`: time every statement of this connection. Put first in the
    list, so a caller's `with connection.execute_wrapper(...)` (which pops the last one)
    never takes ours off."""
    if time_query not in connection.execute_wrappers:
        connection.execute_wrappers.insert(0, time_query)
