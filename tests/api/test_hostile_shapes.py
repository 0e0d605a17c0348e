"""Hostile request shapes on every API operation that takes a body, the operations read
from the OpenAPI schema (a new route is covered as soon as it is documented): JSON nested
thousands deep, a form with 1,500 fields, a multipart body over the upload limit, JSON over
the size limit, bytes that are not UTF-8. Each is refused with a 400 or 413 in the one error
shape naming what was wrong, and changes nothing; a media type the operation does not take
is a 415. OPTIONS on every route of the URLconf answers, never a 5xx.

The schemathesis runs (tests/api/test_schemathesis.py) generate values inside a body; these
are the shapes of the body itself, which a generator never makes.
"""

from __future__ import annotations

import json
import re
from functools import partial

import pytest
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.urls.exceptions import NoReverseMatch
from rest_framework.test import APIClient

from api.views.imports import ImportJSONParser
from cerniq import api_keys
from tests.factories import make_user
from tests.hostile import (
    api_path,
    assert_error_shape,
    changed_tables,
    one_of_everything,
    run_case,
    snapshot,
)

pytestmark = pytest.mark.django_db

SMALL_LIMIT = 64 * 1024  # the tests' body ceilings: hostile bodies stay small and quick
FORM = "application/x-www-form-urlencoded"
JSON = "application/json"


@pytest.fixture
def world(tenant, settings, monkeypatch):
    settings.API_THROTTLE_RATE = "100000/min"
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = SMALL_LIMIT
    settings.UPLOAD_MAX_REQUEST_BYTES = SMALL_LIMIT
    monkeypatch.setattr(ImportJSONParser, "limit", SMALL_LIMIT)
    admin = make_user(tenant, role="ADMIN")
    _, key = api_keys.create_key(tenant, name="hostile", scope="write", user=admin)
    _, ids = one_of_everything(tenant)
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en", HTTP_AUTHORIZATION=f"Api-Key {key}")
    client.get("/api/v1/leads/")  # the key's last use is written now, not in every case
    return client, ids, admin


@pytest.fixture
def body_operations(client) -> list[tuple[str, str, set[str]]]:
    """(method, path, media types) of every documented operation that takes a body."""
    schema = client.get("/api/schema/?format=json").json()
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if content:
                found.append((method.upper(), path, set(content)))
    return found


def deep_json() -> bytes:
    return b'{"name": ' + b"[" * 20_000 + b"]" * 20_000 + b"}"


def many_fields() -> bytes:
    return "&".join(f"field{n}=x" for n in range(1_500)).encode()


def big_multipart() -> bytes:
    return encode_multipart(BOUNDARY, {"name": "Agro", "file": ("x" * (SMALL_LIMIT + 1))})


def big_json() -> bytes:
    return json.dumps({"name": "Agro", "notes": "x" * (SMALL_LIMIT + 1)}).encode()


# (name, body, media type, the answer's status, its error code)
SHAPES = [
    ("deep JSON", deep_json, JSON, 400, "parse_error"),
    ("1,500 form fields", many_fields, FORM, 400, "too_many_fields"),
    ("multipart over the upload limit", big_multipart, MULTIPART_CONTENT, 413, "too_large"),
    ("JSON over the size limit", big_json, JSON, 413, "too_large"),
    ("JSON that is not UTF-8", lambda: b'{"name": "\xff\xfe\xfa"}', JSON, 400, "parse_error"),
]


@pytest.mark.parametrize(("shape", "body", "media_type", "status", "code"), SHAPES)
def test_every_body_taking_operation_refuses_the_shape(
    world, body_operations, shape, body, media_type, status, code
):
    client, ids, _ = world
    payload = body()
    failures = []
    before = snapshot()  # every request runs in a savepoint rolled back after it
    for method, template, media_types in body_operations:
        path = api_path(template, ids)
        response, outcome = run_case(
            before,
            partial(client.generic, method, path, payload, content_type=media_type),
        )
        where = f"{shape}: {method} {path}"
        expected = (status, code)
        if media_type.split(";")[0] not in media_types:
            expected = (415, "unsupported_media_type")  # the operation takes no such body
        got = (response.status_code, assert_error_shape(response, where)["code"])
        if got != expected:
            failures.append((where, got, response.content[:200]))
        if changed := outcome.changed():
            failures.append((where, "changed", changed))
    assert not failures, failures
    assert len(body_operations) >= 25  # the schema really listed the API's writes


def test_the_refusals_name_the_limit(world):
    client, _, _ = world
    deep = client.generic("POST", "/api/v1/leads/", deep_json(), content_type=JSON).json()
    assert "nested deeper than 32 levels" in deep["error"]["message"]
    fields = client.generic("POST", "/api/v1/leads/", many_fields(), content_type=FORM).json()
    assert "more than 1,000 fields" in fields["error"]["message"]
    big = client.generic(
        "POST", "/api/v1/leads/", big_multipart(), content_type=MULTIPART_CONTENT
    ).json()
    assert big["error"]["message"] == (
        "The request is larger than 64.0 KB, the most this address takes."
    )


# --- OPTIONS on every route ----------------------------------------------------------------

SAMPLE = {"format": "json", "provider": "timelinesai", "token": "x", "rest": "x/"}


def routes(patterns: list, namespace: str = "") -> list[tuple[str, list[str]]]:
    """(name to reverse, its URL arguments) of every named route, admin's left out."""
    found = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.app_name == "admin":
                continue
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            found += routes(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            found.append((namespace + pattern.name, list(pattern.pattern.regex.groupindex)))
    return found


def sample_path(name: str, arguments: list[str], ids: dict[str, int]) -> str | None:
    collection = re.sub(r"^api:|-.*$", "", name)
    for value in (str(ids.get(f"{collection}s", ids["leads"])), "1", "x"):
        kwargs = {arg: SAMPLE.get(arg, value) for arg in arguments}
        try:
            return reverse(name, kwargs=kwargs)
        except NoReverseMatch:
            continue
    return None


def test_options_on_every_route_never_fails(world, client):
    api, ids, admin = world
    client.force_login(admin)
    tried, failures = 0, []
    for name, arguments in routes(get_resolver().url_patterns):
        path = sample_path(name, arguments, ids)
        if path is None:
            failures.append((name, "could not build a path"))
            continue
        answer = (api if path.startswith("/api/v1/") else client).options(path)
        tried += 1
        if answer.status_code >= 500:
            failures.append((path, answer.status_code, answer.content[:200]))
        elif path.startswith("/api/v1/") and answer.status_code >= 400:
            assert_error_shape(answer, path)
    assert not failures, failures
    assert tried > 100


def test_options_on_a_list_route_with_a_put_is_a_description(world):
    """The 500 this started from: OPTIONS built PUT's serializer through get_object."""
    client, _, _ = world
    response = client.options("/api/v1/phones/warmup/")
    assert response.status_code == 200
    assert response.json()["name"] == "Warmup"
    assert "actions" not in response.json()


def test_a_control_character_is_a_400_naming_the_field_before_any_serializer(world):
    client, ids, _ = world
    before = snapshot()
    response = client.patch(
        f"/api/v1/leads/{ids['leads']}/",
        {"custom_fields": {"notes": "a\x1bb"}, "name": "Agro\u0085 SRL"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid_text",
        "message": "custom_fields.notes contains a control character (U+001B); "
        "remove it and send again.",
        "fields": {
            "custom_fields.notes": [
                "contains a control character (U+001B); remove it and send again"
            ]
        },
    }
    form = client.generic("POST", "/api/v1/templates/preview/", "body=Salut%00", content_type=FORM)
    assert form.status_code == 400
    assert list(form.json()["error"]["fields"]) == ["body"]
    assert not changed_tables(before, snapshot())
