"""Property-based runs of the API against its own OpenAPI schema (schemathesis): no 5xx,
and no response that the schema does not describe (status, headers, body).

Three runs: every operation on its own (ids aimed at real rows 3 times in 4); the same with
data that breaks the schema (each must be refused in the one error shape, never a 5xx);
and stateful
sequences that follow OpenAPI links (create a lead, then read, patch, move, pause it;
register a webhook, then rotate, test, disable and delete it; ...), so operations are also
tried on the rows the API itself just made. Derandomized; the budget (SCHEMATHESIS_BUDGET,
quick by default, deep in `make test-api-deep` and CI) sets the cases per run; run with
`--hypothesis-show-statistics` to see the number of generated cases.

Receivers of the webhooks' test events are faked at the HTTP boundary (`responses`): the
generated URLs are arbitrary hosts.
"""

from __future__ import annotations

import copy
import os
import re
import zlib
from collections import Counter

import pytest
import responses
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, given, settings
from schemathesis import DataGenerationMethod
from schemathesis.internal.result import Ok
from schemathesis.serializers import TextSerializer

from cerniq import api_keys
from cerniq.models import WebhookEndpoint
from cerniq.outbound import endpoints as webhook_endpoints
from cerniq.wsgi import application
from outreach.models import ImportJob, Suppression, Template
from tests.factories import make_lead, make_message, make_sequence, make_template, make_user
from tests.fake_dns import fake_dns

# The example budget: small in `make test` (every operation, every run, a few cases each),
# larger in `make test-api-deep` (CI runs both). SCHEMATHESIS_BUDGET=deep selects the larger.
# The stateful run keeps 100 sequences in both: 50 followed links into all five linked
# collections only just (a sixth, the do-not-contact list, made it miss one on PostgreSQL:
# that list is tried by the other two runs, not by links), and 75 missed the sequences
# once the API had its erase and lawful-basis operations.
BUDGETS = {
    "quick": {"max": 8, "negative": 5, "stateful": 100},
    "deep": {"max": 25, "negative": 15, "stateful": 100},
}
BUDGET_NAME = os.environ.get("SCHEMATHESIS_BUDGET", "quick")
if BUDGET_NAME not in BUDGETS:
    raise pytest.UsageError(f"SCHEMATHESIS_BUDGET={BUDGET_NAME!r}: use one of {sorted(BUDGETS)}")
BUDGET = BUDGETS[BUDGET_NAME]
MAX_EXAMPLES = BUDGET["max"]
NEGATIVE_EXAMPLES = BUDGET["negative"]  # per operation
STATEFUL_EXAMPLES = BUDGET["stateful"]  # sequences of up to STATEFUL_STEPS calls, by links
STATEFUL_STEPS = 8


@schemathesis.serializer("text/csv")
class CSVBody(TextSerializer):
    """A body documented as text/csv alone (the do-not-contact list's import) is sent as the
    generated text; an endpoint that also takes JSON gets JSON from schemathesis anyway."""


@pytest.fixture
def raw_schema(db, client) -> dict:
    """Read before `world`: the test client reconnects the signals `world` disconnects."""
    return client.get("/api/schema/?format=json").json()


@pytest.fixture
def api_schema(raw_schema):
    return schemathesis.from_dict(raw_schema, app=application)


schema = schemathesis.from_pytest_fixture("api_schema")


@pytest.fixture
def world(tenant, settings):
    """The key's headers and the ids of the tenant's leads and import jobs."""
    settings.API_THROTTLE_RATE = "100000/min"  # the run itself must not be throttled
    admin = make_user(tenant, role="ADMIN")
    _, key = api_keys.create_key(tenant, name="schemathesis", scope="write", user=admin)
    leads = [make_lead(tenant, email=f"office{n}@example.ro") for n in range(3)]
    for lead in leads:
        make_message(lead)
    jobs = [
        ImportJob.objects.create(tenant=tenant, file_name=f"{n}.csv", content=b"name\nA\n")
        for n in range(3)
    ]
    sequences = [make_sequence(tenant) for _ in range(3)]
    entries = [
        Suppression.objects.create(
            tenant=tenant, domain=f"exclus{n}.ro", reason="a competitor", source="manual"
        )
        for n in range(3)
    ]
    templates = [make_template(tenant) for _ in range(3)]
    hooks = [
        WebhookEndpoint.objects.create(
            tenant=tenant,
            url=f"https://crm{n}.example.ro/hooks",
            events=["lead.replied", "lead.stage_changed"],
            secret=webhook_endpoints.new_secret(),
        )
        for n in range(3)
    ]
    # As Django's test client does: the WSGI handler would close the test's connection
    # (and its transaction) around every request.
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    receivers = responses.RequestsMock(assert_all_requests_are_fired=False)
    receivers.add(responses.POST, re.compile(r"https?://.*"), status=200, body="ok")
    receivers.start()
    # The receivers' names are public (the SSRF guard resolves them; no DNS in tests).
    names = {f"crm{n}.example.ro": ["93.184.215.14"] for n in ("", 0, 1, 2)}
    with fake_dns(names):
        yield (
            {"Authorization": f"Api-Key {key}"},
            {
                "leads": [lead.pk for lead in leads],
                "imports": [job.pk for job in jobs],
                "sequences": [sequence.pk for sequence in sequences],
                "templates": [template.pk for template in templates],
                "webhooks": [hook.pk for hook in hooks],
                "suppressions": [entry.pk for entry in entries],
            },
        )
    receivers.stop()
    receivers.reset()
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


def reproducible(max_examples: int, **more: object) -> settings:
    """The runs' settings: derandomized (CI sees the same cases every time), no deadline
    (a request's time is not under test here), no health check on slow or large data."""
    return settings(
        max_examples=max_examples,
        derandomize=True,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        **more,
    )


@schema.parametrize()
@reproducible(MAX_EXAMPLES)
def test_every_operation_conforms_to_the_schema(case, world):
    headers, ids = world
    aim_at_real_rows(case, ids)
    # On the case, not as call() arguments: the ignored-auth check then removes it to
    # see a 401.
    case.headers = {**(case.headers or {}), **headers}
    response = case.call()
    assert response.status_code < 500, response.get_data(as_text=True)[:500]
    case.validate_response(response)


def aim_at_real_rows(case, ids: dict[str, list[int]]) -> None:  # noqa: ANN001
    """3 in 4 generated ids are swapped for a real row of the operation's collection."""
    generated = (case.path_parameters or {}).get("id")
    if isinstance(generated, int) and generated % 4:
        collection = case.path.split("/")[3]  # /api/v1/<collection>/{id}/...
        real = ids[collection if collection in ids else "leads"]
        case.path_parameters["id"] = real[generated % len(real)]


def json_bodies_only(raw: dict) -> dict:
    """The schema with request bodies as JSON (or CSV) only: schemathesis 3 cannot encode a
    non-object negative body as a form, and the forms are the browsable API's."""
    schema = copy.deepcopy(raw)
    for path in schema["paths"].values():
        for operation in path.values():
            content = operation.get("requestBody", {}).get("content", {})
            for media_type in [m for m in content if m not in ("application/json", "text/csv")]:
                del content[media_type]
    return schema


NEGATIVE_SHARDS = 4  # the operations split four ways, so parallel workers share the run


@pytest.mark.parametrize("shard", range(NEGATIVE_SHARDS))
def test_invalid_input_is_refused_in_the_error_shape_never_a_5xx(raw_schema, world, shard):
    """Negative data (wrong types, missing fields, out-of-range and junk query values) for
    every operation that has any input: a 4xx with {"error": {code, message, fields}}."""
    headers, ids = world
    schema = schemathesis.from_dict(json_bodies_only(raw_schema), app=application)
    tried, answered = 0, []
    negative_settings = reproducible(NEGATIVE_EXAMPLES, database=None)

    def check(case) -> None:  # noqa: ANN001
        aim_at_real_rows(case, ids)
        case.headers = {**(case.headers or {}), **headers}
        response = case.call()
        where = f"{case.method} {case.formatted_path} {case.query} {case.body!r:.200}"
        assert response.status_code < 500, (where, response.get_data(as_text=True)[:300])
        if response.status_code >= 400:
            body = response.json
            assert body is not None, (where, response.status_code, response.get_data()[:200])
            error = body["error"]
            assert set(error) >= {"code", "message", "fields"}, (where, error)
            assert error["message"], where
        answered.append(response.status_code)

    for number, result in enumerate(schema.get_all_operations()):
        operation = result.ok() if isinstance(result, Ok) else None
        if number % NEGATIVE_SHARDS != shard:
            continue
        if operation is None or not has_input(operation.definition.raw):
            continue
        strategy = operation.as_strategy(data_generation_method=DataGenerationMethod.negative)
        run = given(case=strategy)(lambda case: check(case))  # a new test per operation
        negative_settings(run)()
        tried += 1
    print(f"shard {shard}: {tried} operations, {len(answered)} negative cases")  # noqa: T201
    assert tried >= 50 // NEGATIVE_SHARDS and len(answered) >= tried * NEGATIVE_EXAMPLES // 2


def has_input(operation: dict) -> bool:
    """Something a client can get wrong: parameters or a body (an operation without either
    has no negative case)."""
    return bool(operation.get("parameters") or operation.get("requestBody"))


# Source operation, status → target operations that take its `id`.
LINKS = {
    ("/api/v1/leads/", "POST", 201): [
        ("/api/v1/leads/{id}/", "GET"),
        ("/api/v1/leads/{id}/", "PATCH"),
        ("/api/v1/leads/{id}/transition/", "POST"),
        ("/api/v1/leads/{id}/timeline/", "GET"),
        ("/api/v1/leads/{id}/pause/", "POST"),
        ("/api/v1/leads/{id}/resume/", "POST"),
        ("/api/v1/leads/{id}/enroll/", "POST"),
        ("/api/v1/leads/{id}/take-over/", "POST"),
        ("/api/v1/leads/{id}/hand-back/", "POST"),
    ],
    ("/api/v1/imports/", "POST", 202): [("/api/v1/imports/{id}/", "GET")],
    ("/api/v1/sequences/", "POST", 201): [
        ("/api/v1/sequences/{id}/", "GET"),
        ("/api/v1/sequences/{id}/", "PATCH"),
        ("/api/v1/sequences/{id}/enroll/", "POST"),
        ("/api/v1/sequences/{id}/stop/", "POST"),
    ],
    ("/api/v1/templates/", "POST", 201): [
        ("/api/v1/templates/{id}/", "GET"),
        ("/api/v1/templates/{id}/versions/", "POST"),
    ],
    ("/api/v1/webhooks/", "POST", 201): [
        ("/api/v1/webhooks/{id}/", "GET"),
        ("/api/v1/webhooks/{id}/", "PATCH"),
        ("/api/v1/webhooks/{id}/", "DELETE"),
        ("/api/v1/webhooks/{id}/rotate-secret/", "POST"),
        ("/api/v1/webhooks/{id}/test/", "POST"),
    ],
    ("/api/v1/webhooks/{id}/test/", "POST", 200): [
        ("/api/v1/webhook-deliveries/{id}/", "GET"),
        ("/api/v1/webhook-deliveries/{id}/redeliver/", "POST"),
    ],
}


def linked_schema(raw: dict) -> schemathesis.specs.openapi.schemas.BaseOpenAPISchema:
    schema = schemathesis.from_dict(raw, app=application)
    for (path, method, status), targets in LINKS.items():
        for target_path, target_method in targets:
            schema.add_link(
                source=schema[path][method],
                target=schema[target_path][target_method],
                status_code=str(status),
                parameters={"id": "$response.body#/id"},
            )
    return schema


def documented_bodies(raw: dict, tenant) -> dict[str, dict]:
    """The JSON request example each source POST documents, made to fit the test's rows (a
    sequence's steps name its templates). Positive generation from the schema alone seldom
    passes the business checks (a CUI checksum, a real phone number, a template per step),
    so chains would seldom start: half the first calls send the documented example."""
    bodies = {}
    for path, method, _status in LINKS:
        content = raw["paths"][path][method.lower()].get("requestBody", {}).get("content", {})
        examples = content.get("application/json", {}).get("examples") or {}
        if examples:
            bodies[path] = next(iter(examples.values()))["value"]
    bodies["/api/v1/sequences/"] = {
        **bodies["/api/v1/sequences/"],
        "steps": [
            {"channel": template.channel, "template": template.pk, "delay_value": n}
            for n, template in enumerate(Template.objects.filter(tenant=tenant)[:2])
        ],
    }
    return bodies


def test_linked_operations_conform_to_the_schema(raw_schema, world, tenant):
    """Stateful: calls chained through the links above, each answer checked like the
    stateless run's; the chains must really reach the operations on the new rows."""
    headers, _ = world
    Workflows = linked_schema(raw_schema).as_state_machine()
    examples = documented_bodies(raw_schema, tenant)
    followed: Counter[str] = Counter()
    calls = 0

    class APIWorkflows(Workflows):
        def setup(self) -> None:
            """Each sequence starts from the same rows (a savepoint, rolled back at the
            end): hypothesis replays a sequence to shrink it and needs the same answers."""
            self.rows = transaction.atomic()
            self.rows.__enter__()

        def teardown(self) -> None:
            transaction.set_rollback(True)
            self.rows.__exit__(None, None, None)

        def before_call(self, case):  # noqa: ANN001, ANN202 - schemathesis' hook
            case.headers = {**(case.headers or {}), **headers}
            example = examples.get(case.operation.path) if case.source is None else None
            if example and case.method == "POST" and zlib.crc32(repr(case.body).encode()) % 2:
                case.body, case.media_type = copy.deepcopy(example), "application/json"

        def after_call(self, response, case):  # noqa: ANN001, ANN202 - schemathesis' hook
            nonlocal calls
            calls += 1
            if case.source is not None:  # reached through a link
                followed[case.operation.verbose_name] += 1

        def _add_results_to_targets(self, targets, results):  # noqa: ANN001, ANN202
            """schemathesis 3 overrides hypothesis' `_add_result_to_targets`, which
            hypothesis has since renamed: without this, every answer landed in the
            catch-all bundle, no link was ever followed, and hypothesis stopped with "No
            progress can be made". The answer goes to the bundle of the link it matches."""
            for result in results:
                target = result and self._get_target_for_result(result)
                if target is not None:
                    super()._add_results_to_targets((target,), [result])

        def validate_response(self, response, case, additional_checks=()):  # noqa: ANN001, ANN202
            assert response.status_code < 500, response.get_data(as_text=True)[:500]
            case.validate_response(response)

    APIWorkflows.run(settings=reproducible(STATEFUL_EXAMPLES, stateful_step_count=STATEFUL_STEPS))
    print(f"{calls} calls, {followed.total()} through links:", dict(followed))  # noqa: T201 - for the note (pytest -s)
    reached = {name.split(" ", 1)[1].split("/")[3] for name in followed}
    assert {"leads", "webhooks", "sequences", "templates", "imports"} <= reached, followed


def test_every_link_names_a_real_operation(raw_schema):
    """A renamed route would silently drop its link (and the stateful run's coverage)."""
    schema = linked_schema(raw_schema)
    raw = schema.raw_schema["paths"]
    for (path, method, status), targets in LINKS.items():
        links = raw[path][method.lower()]["responses"][str(status)]["links"]
        assert len(links) == len(targets), (path, method)
