"""Shared by the hostile-input tests (tests/api/test_hostile_shapes.py, tests/test_hostile_
inputs.py): a tenant with one row of everything, the ids each API collection's routes take,
a snapshot of the whole database (to show a refused request changed nothing), and the API's
error shape."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db import models

from tests.factories import make_one_of_everything

# Columns a request may touch without changing anything a person would call data.
VOLATILE = {("cerniq", "tenantapikey"): {"last_used_at"}}


def one_of_everything(tenant: Any) -> tuple[dict[str, Any], dict[str, int]]:
    """The rows, and a real id for each collection of /api/v1/<collection>/{id}/."""
    rows = make_one_of_everything(tenant)
    ids = {
        "leads": rows["lead"].pk,
        "phones": rows["phone"].pk,
        "reviews": rows["review"].pk,
        "messages": rows["message"].pk,
        "sequences": rows["sequence"].pk,
        "templates": rows["template"].pk,
        "webhooks": rows["webhook_endpoint"].pk,
        "webhook-deliveries": rows["webhook_delivery"].pk,
        "imports": rows["import_job"].pk,
    }
    return rows, ids


def api_path(template: str, ids: dict[str, int]) -> str:
    """/api/v1/leads/{id}/pause/ with a real lead's id."""
    collection = template.split("/")[3]
    return template.replace("{id}", str(ids.get(collection, ids["leads"])))


def snapshot() -> dict[str, list[dict]]:
    """Every row of every table, as values (volatile columns left out)."""
    found = {}
    for model in apps.get_models():
        meta = model._meta
        if meta.proxy or not meta.managed:
            continue
        skip = VOLATILE.get((meta.app_label, meta.model_name), set())
        names = [
            f.attname
            for f in meta.concrete_fields
            if f.attname not in skip and not isinstance(f, models.FileField)
        ]
        found[meta.label] = list(model._default_manager.order_by("pk").values(*names))
    return found


def changed_tables(before: dict[str, list[dict]], after: dict[str, list[dict]]) -> list[str]:
    return [label for label in before if before[label] != after.get(label)]


def assert_error_shape(response: Any, where: str) -> dict:
    """The API's one error shape: {"error": {"code", "message", "fields"}}, a message said."""
    assert response["Content-Type"].startswith("application/json"), (where, response.content[:200])
    error = response.json()["error"]
    assert set(error) >= {"code", "message", "fields"}, (where, error)
    assert error["message"], where
    return error
