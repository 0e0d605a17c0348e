"""Hostile values in every documented property of every API write (the operations read from
the OpenAPI schema, so a new field is covered without a new test): oversize strings, control
characters and NUL, lone surrogates, bytes that are not UTF-8, values nested deep, huge
numbers, huge counts, wrong types.

Each property gets a fixed set of values hostile whatever the field, then hypothesis draws
more (wrong types among them). The property: never a 5xx; a hostile value is refused with a
4xx in the error shape; a refusal changes nothing. A wrong type may be a value the field
takes, so it only has to be answered without a 5xx (and, refused, change nothing).

The body around the hostile value is the operation's documented example (a valid request),
so the value is what gets refused, not the rest of the body.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import pytest
from hypothesis import strategies as st
from rest_framework.test import APIClient

from cerniq import api_keys
from tests.factories import make_user
from tests.hostile import (
    Hostile,
    api_path,
    assert_error_shape,
    control,
    errors_logged,
    failed,
    fuzz,
    hostile_text,
    huge_list,
    huge_number,
    huge_object,
    nested,
    not_utf8,
    one_of_everything,
    oversize,
    run_case,
    snapshot,
    wrong_types,
)

pytestmark = pytest.mark.django_db

EXAMPLES = 10  # drawn per operation, after the fixed values of each property
WRONG_TYPES = ["null", "true", "0", "-1", "1.5", '""', "[]", "{}", '"1"']


def text_like(schema: dict) -> bool:
    return schema.get("type") == "string" and "enum" not in schema


def fixed_values(schema: dict) -> list[Hostile]:
    """What every property of this schema must refuse."""
    values = [oversize(), control("\x1b"), not_utf8(), nested(25)]
    if not text_like(schema):
        values.append(huge_number(4_000, must_refuse=True))
    if schema.get("type") == "array":
        values.append(huge_list(sample(schema.get("items", {}))))
    if schema.get("type") == "object":
        values += [huge_object(), inside(oversize()), inside(control("\x00"))]
    return values


def sample(item: dict) -> bytes:
    """A valid-looking item of a list (a huge count of valid items is still too many)."""
    if item.get("enum"):
        return json.dumps(item["enum"][0]).encode()
    return {"object": b"{}", "array": b"[1, 20]", "string": b'"x"'}.get(item.get("type"), b"1")


def inside(hostile: Hostile) -> Hostile:
    """The value one level down, in an object's field."""
    return Hostile(
        f"{hostile.kind} inside", b'{"notes":' + hostile.raw + b"}", True, hostile.marker
    )


def drawn_values(schema: dict) -> st.SearchStrategy[Hostile]:
    return st.one_of(
        hostile_text(),
        st.integers(20, 32).map(nested),
        st.integers(20, 4_000).map(lambda n: huge_number(n, must_refuse=not text_like(schema))),
        wrong_types(WRONG_TYPES),
    )


def resolved(schema: dict, components: dict) -> dict:
    while "$ref" in schema:
        schema = components[schema["$ref"].split("/")[-1]]
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return resolved(schema["allOf"][0], components)
    return schema


def body_with(base: dict, name: str, hostile: Hostile) -> bytes:
    if not name:  # the body as a whole (a list of rows)
        return hostile.raw
    return (
        json.dumps({**base, name: "\x00HOSTILE"}).encode().replace(b'"\\u0000HOSTILE"', hostile.raw)
    )


def bound(check: Any, method: str, path: str, base: dict) -> Any:
    """One operation's check of a drawn (property, value) case."""

    def run(case: tuple[str, Hostile]) -> None:
        check(method, path, base, *case)

    return run


@pytest.fixture
def api(tenant, settings) -> tuple[APIClient, dict[str, int]]:
    settings.API_THROTTLE_RATE = "100000/min"
    admin = make_user(tenant, role="ADMIN")
    _, key = api_keys.create_key(tenant, name="fuzz", scope="write", user=admin)
    _, ids = one_of_everything(tenant)
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en", HTTP_AUTHORIZATION=f"Api-Key {key}")
    client.get("/api/v1/leads/")  # the key's last use is written now, not in every case
    return client, ids


def operations(schema: dict) -> list[tuple[str, str, dict[str, dict], dict]]:
    """(method, path template, writable properties, documented example) of each JSON write."""
    components = schema["components"]["schemas"]
    found = []
    for template, methods in schema["paths"].items():
        for method, operation in methods.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if not body:
                continue
            shape = resolved(body["schema"], components)
            properties = {
                name: resolved(value, components)
                for name, value in shape.get("properties", {}).items()
                if not value.get("readOnly")
            } or {"": shape}  # a list of rows (imports): the rows as a whole
            for prop in properties.values():
                if "items" in prop:
                    prop["items"] = resolved(prop["items"], components)
            examples = [e["value"] for e in (body.get("examples") or {}).values()]
            base = examples[0] if examples and isinstance(examples[0], dict) else {}
            found.append((method.upper(), template, properties, base))
    return found


def test_every_api_write_refuses_hostile_values(api, client):
    api_client, ids = api
    schema = client.get("/api/schema/?format=json").json()
    before = snapshot()
    failures: list[str] = []
    tried = 0
    with errors_logged() as last:

        def check(method: str, path: str, base: dict, name: str, hostile: Hostile) -> None:
            where = f"{method} {path} {name}={hostile.kind}"
            response, outcome = run_case(
                before,
                lambda: api_client.generic(
                    method, path, body_with(base, name, hostile), content_type="application/json"
                ),
            )
            assert response.status_code < 500, (where, response.content[:300], last.text)
            refused = response.status_code >= 400
            if hostile.must_refuse:
                assert refused, (where, response.status_code, response.content[:200])
            if refused:
                assert_error_shape(response, where)
                assert not outcome.changed(), (where, outcome.changed())

        for method, template, properties, base in operations(schema):
            path = api_path(template, ids)
            for name, property_schema in properties.items():
                for hostile in fixed_values(property_schema):
                    failures += failed(partial(check, method, path, base, name, hostile))
                    tried += 1
            drawn = st.sampled_from(sorted(properties)).flatmap(
                lambda name, properties=properties: st.tuples(
                    st.just(name), drawn_values(properties[name])
                )
            )
            failures += failed(fuzz(drawn, EXAMPLES)(bound(check, method, path, base)))
    assert not failures, "\n".join(failures)
    assert tried > 300  # every property of every write got the fixed values
