"""Secrets in URLs never reach a log line: a query parameter whose name says secret
(`?api_key=`, `&accessToken=`, `X-Amz-Signature=`, `pwd=`…) is logged as `***` on every
path a URL takes to the log: gunicorn's access line, the embedded server's request line,
Django's 4xx warnings (and the request they carry), our own lines with a URL in the
message or its arguments, a provider's HTTP error in a traceback, the JSON formatter."""

from __future__ import annotations

import io
import json
import logging
import os
import string
from datetime import timedelta
from types import SimpleNamespace
from unittest import mock
from urllib.parse import quote, quote_plus

import pytest
import requests
import responses
from django.core.servers.basehttp import WSGIRequestHandler
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cerniq.logging import (
    JSONFormatter,
    MaskingFormatter,
    MaskPIIFilter,
    is_secret_name,
    mask_log_text,
    mask_query_string,
)
from tests.cerniq.test_gunicorn_logging import _ShippedConfig
from tests.cerniq.test_logging import log_output  # noqa: F401 - the configured handlers

SECRET_WORDS = (
    "api_key", "apikey", "api-key", "key", "token", "access_token", "auth", "authorization",
    "secret", "client_secret", "password", "passwd", "pwd", "signature", "sig", "session",
    "sessionid", "code", "x-api-key", "refresh_token", "private_key", "hub.verify_token",
    "X-Amz-Signature", "X-Amz-Security-Token", "PHPSESSID", "auth_token", "credentials",
)  # fmt: skip
PREFIXES = ("", "x-", "X_", "my_", "hub.", "oauth_", "provider.", "new_")
SUFFIXES = ("", "_1", "2", "[]", "-v2", "_value")
READABLE = (
    "q", "stage", "county", "page", "sort", "tab", "search", "cursor", "limit",
    "monkey", "signal", "author", "keyword", "design", "assigned_to", "opted_out",
)  # fmt: skip


def _camel(name: str) -> str:
    words = [w for w in name.replace("-", "_").replace(".", "_").split("_") if w]
    return words[0].lower() + "".join(w[:1].upper() + w[1:] for w in words[1:])


@st.composite
def secret_names(draw) -> str:
    name = draw(st.sampled_from(PREFIXES)) + draw(st.sampled_from(SECRET_WORDS))
    name += draw(st.sampled_from(SUFFIXES))
    shape = draw(st.sampled_from(("as is", "lower", "upper", "camel", "encoded")))
    if shape == "lower":
        return name.lower()
    if shape == "upper":
        return name.upper()
    if shape == "camel":
        return _camel(name)
    if shape == "encoded":
        return quote(name, safe="").replace("_", "%5F")
    return name


# Long enough not to turn up by chance elsewhere in a line (a time, an id, "HTTP/1.1").
token_values = st.text(string.ascii_letters + string.digits + "-_.~", min_size=12, max_size=48)
text_values = st.text(min_size=12, max_size=30).filter(lambda v: v.strip() == v and v.strip())
secret_values = st.one_of(token_values, text_values)


@st.composite
def secret_urls(draw) -> tuple[str, str]:
    """(a URL with a secret parameter among ordinary ones, the secret's value)."""
    name, value = draw(secret_names()), draw(secret_values)
    params = [("limit", "50"), (name, quote_plus(value)), ("page", "2")]
    params = params[draw(st.integers(0, 1)) :] if draw(st.booleans()) else params
    query = "&".join(f"{key}={val}" for key, val in params)
    host = draw(st.sampled_from(("https://api.instantly.ai", "https://app.timelines.ai", "")))
    return f"{host}/api/v2/leads?{query}", value


def _assert_hidden(output: str, value: str) -> None:
    assert value not in output
    assert quote_plus(value) not in output
    assert quote(value, safe="") not in output


SLOW = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


# --- the rule ---------------------------------------------------------------------------


@given(name=secret_names())
def test_every_shape_of_a_secret_name_is_recognised(name):
    assert is_secret_name(name)


@pytest.mark.parametrize("name", READABLE)
def test_ordinary_parameters_stay_readable(name):
    assert not is_secret_name(name)
    line = f'"GET /outreach/leads/?{name}=cereale&api_key=k3y-value-123 HTTP/1.1" 200 5120'
    assert mask_log_text(line) == line.replace("k3y-value-123", "***")


@given(url_and_value=secret_urls())
def test_a_secret_query_value_is_masked_in_any_text(url_and_value):
    url, value = url_and_value
    for text in (
        f'"GET {url} HTTP/1.1" 401 58',
        f"401 Client Error: Unauthorized for url: {url}",
        f"Max retries exceeded with url: {url} (Caused by NewConnectionError(...))",
        f"<WSGIRequest: GET '{url}'>",
    ):
        masked = mask_log_text(text)
        _assert_hidden(masked, value)
        assert "***" in masked
        assert mask_log_text(masked) == masked  # idempotent
    _assert_hidden(mask_query_string(url.partition("?")[2]), value)


@pytest.mark.parametrize(
    "text, hidden, kept",
    [
        ("login at /login/?next=%2Fcb%3Fcode%3Dabc123secret%26x%3D1", "abc123secret", "next="),
        ("form body api_key=abc123secret&lang=ro", "abc123secret", "lang=ro"),
        ("TimelinesAI(token='abc123secret', base_url='x')", "abc123secret", "token='***'"),
        ("broker redis://:abc123secret@redis:6379/0 down", "abc123secret", "redis://:***@redis"),
        ("db postgres://cerniq:abc123secret@db:5432/cerniq", "abc123secret", "cerniq:***@db"),
    ],
    ids=["url-in-a-value", "form-body", "repr", "redis-url", "database-url"],
)
def test_secrets_outside_a_plain_query_string(text, hidden, kept):
    masked = mask_log_text(text)
    assert hidden not in masked and kept in masked


# --- every path to the log ------------------------------------------------------------


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_gunicorn_access_lines(tmp_path, log_format):
    access = tmp_path / "access.log"
    with mock.patch.dict(os.environ, {"LOG_FORMAT": log_format}):
        cfg = _ShippedConfig(
            accesslog=str(access),
            access_log_format='%(h)s "%(r)s" %(s)s "%(f)s" %(U)s %(q)s %({query_string}e)s',
        ).cfg
        logger = cfg.logger_class(cfg)
    try:

        @SLOW
        @given(url_and_value=secret_urls())
        def check(url_and_value):
            url, value = url_and_value
            path, _, query = url.partition("?")
            start = access.stat().st_size if access.exists() else 0
            environ = {
                "REQUEST_METHOD": "GET", "RAW_URI": url, "PATH_INFO": path, "QUERY_STRING": query,
                "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "10.0.0.7", "HTTP_REFERER": url,
            }  # fmt: skip
            response = SimpleNamespace(status="401 Unauthorized", sent=58, headers=[])
            request = SimpleNamespace(headers=[("REFERER", url)])
            logger.access(response, request, environ, timedelta(milliseconds=3))
            line = access.read_text()[start:]
            _assert_hidden(line, value)
            assert "limit=50" in line or "page=2" in line
            if log_format == "json":
                assert json.loads(line)["logger"] == "gunicorn.access"

        check()
    finally:
        for log in (logger.access_log, logger.error_log):
            for handler in log.handlers[:]:
                handler.close()
                log.removeHandler(handler)
            log.filters.clear()


@SLOW
@given(url_and_value=secret_urls())
def test_the_embedded_servers_request_lines(log_output, url_and_value):  # noqa: F811
    url, value = url_and_value
    server = SimpleNamespace(request=None, log_date_time_string=lambda: "01/Jan/2026 10:00:00")
    WSGIRequestHandler.log_message(server, '"%s" %s %s', f"GET {url} HTTP/1.1", "401", "58")
    output = log_output.getvalue()
    assert "api/v2/leads?" in output
    _assert_hidden(output, value)


@pytest.mark.django_db
@SLOW
@given(url_and_value=secret_urls())
def test_djangos_4xx_warning_and_the_request_it_carries(client, log_output, url_and_value):  # noqa: F811
    url, value = url_and_value
    query = url.partition("?")[2]
    # Also with the request in the line, as a handler formatting `%(request)s` would.
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(MaskPIIFilter())
    handler.setFormatter(MaskingFormatter("%(levelname)s %(message)s %(request)s"))
    logging.getLogger("django.request").addHandler(handler)
    try:
        response = client.get(f"/api/v1/leads/?{query}")
    finally:
        logging.getLogger("django.request").removeHandler(handler)
    assert response.status_code in (401, 403)
    line = stream.getvalue()
    assert line.startswith("WARNING ") and "<WSGIRequest: GET '/api/v1/leads/?" in line
    _assert_hidden(line + log_output.getvalue(), value)


@SLOW
@given(url_and_value=secret_urls())
def test_our_lines_with_a_url_in_the_message_or_its_arguments(log_output, url_and_value):  # noqa: F811
    url, value = url_and_value
    log = logging.getLogger("integrations.instantly.client")
    log.warning("instantly call failed: %s", url)
    log.warning(f"instantly call failed: {url}")
    log.warning("instantly %(what)s failed", {"what": url})
    _assert_hidden(log_output.getvalue(), value)


@SLOW
@given(url_and_value=secret_urls())
def test_a_providers_http_error_in_a_traceback(log_output, url_and_value):  # noqa: F811
    url, value = url_and_value
    if not url.startswith("https://"):
        url = "https://api.instantly.ai" + url
    log = logging.getLogger("integrations.instantly.client")
    with responses.RequestsMock() as fake:
        fake.get(url.partition("?")[0], status=401, json={"error": "Unauthorized"})
        try:
            requests.get(url, timeout=5).raise_for_status()
        except requests.HTTPError as error:
            assert value in str(error) or quote_plus(value) in str(error)  # requests says it
            log.exception("instantly refused the key")
    output = log_output.getvalue()
    assert "Traceback" in output and "401 Client Error" in output
    _assert_hidden(output, value)


@given(url_and_value=secret_urls())
def test_the_json_formatter_alone_and_after_the_filter(url_and_value):
    url, value = url_and_value
    for filtered in (False, True):
        record = logging.LogRecord("x", logging.WARNING, __file__, 1, "GET %s", (url,), None)
        record.request_id = url  # a field the formatter writes out
        if filtered:
            MaskPIIFilter().filter(record)
        entry = json.loads(JSONFormatter().format(record))
        _assert_hidden(json.dumps(entry, ensure_ascii=False), value)
        _assert_hidden(entry["message"] + entry["request_id"], value)
