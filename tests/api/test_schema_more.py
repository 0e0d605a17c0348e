"""Every Phones, Reviews, Messages and Analytics endpoint is in the schema with its
errors in the one error shape."""

from __future__ import annotations

import pytest

READ_ONLY = {"401", "429"}
ONE = {"401", "404", "429"}
WRITE = {"400", "401", "403", "404", "429"}

EXPECTED = [
    ("/api/v1/phones/", "get", READ_ONLY | {"400"}),
    ("/api/v1/phones/{id}/", "get", ONE),
    ("/api/v1/phones/{id}/", "patch", WRITE),
    ("/api/v1/phones/{id}/pause/", "post", WRITE | {"409"}),
    ("/api/v1/phones/{id}/resume/", "post", WRITE | {"409"}),
    ("/api/v1/phones/{id}/reactivate/", "post", WRITE | {"409"}),
    ("/api/v1/phones/warmup/", "get", READ_ONLY),
    ("/api/v1/phones/warmup/", "put", READ_ONLY | {"400", "403"}),
    ("/api/v1/reviews/", "get", READ_ONLY | {"400"}),
    ("/api/v1/reviews/{id}/", "get", ONE),
    *(
        (f"/api/v1/reviews/{{id}}/{name}/", "post", WRITE | {"409"})
        for name in ("assign", "approve", "send", "reject", "resolve")
    ),
    ("/api/v1/messages/", "post", READ_ONLY | {"400", "403", "409"}),
    ("/api/v1/messages/{id}/", "get", ONE),
    ("/api/v1/analytics/overview/", "get", READ_ONLY),
    *(
        (f"/api/v1/analytics/{name}/", "get", READ_ONLY | {"400"})
        for name in ("daily", "templates", "phones")
    ),
]


@pytest.fixture(scope="module")
def paths(django_db_blocker):
    from rest_framework.test import APIClient

    with django_db_blocker.unblock():
        return APIClient().get("/api/schema/?format=json").json()["paths"]


@pytest.mark.parametrize(("path", "method", "codes"), EXPECTED)
def test_documented_with_its_errors(paths, path, method, codes):
    responses = paths[path][method]["responses"]
    success = {code for code in responses if code.startswith("2")}
    assert success  # 201 and, for a retried message, 200
    assert codes <= set(responses)
    for code in codes:
        schema = responses[code]["content"]["application/json"]["schema"]
        assert schema == {"$ref": "#/components/schemas/Error"}
