"""JSON logs in production: one object per line with the ids of the work being done
(request, task, message, lead, tenant), masked like every other line, tracebacks too."""

from __future__ import annotations

import io
import json
import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import dramatiq
import pytest

from cerniq import log_context
from cerniq.log_context import REQUEST_ID_HEADER, bind
from cerniq.logging import JSONFormatter, MaskPIIFilter, log_format
from tests.cerniq.test_settings import PRODUCTION_ENV, run_python
from tests.drain import running_workers, wait_until


@contextmanager
def json_lines(logger_name: str = "") -> Iterator[list[dict]]:
    """What a handler configured like settings.LOGGING's (mask, context, JSON) writes for
    `logger_name`, parsed, one dict per line."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(MaskPIIFilter())
    handler.addFilter(log_context.ContextFilter())
    handler.setFormatter(JSONFormatter())
    logger = logging.getLogger(logger_name)
    logger.addHandler(handler)
    lines: list[dict] = []
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        lines.extend(json.loads(line) for line in stream.getvalue().splitlines())


# --- the format -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "environ, expected",
    [
        ({}, "json"),
        ({"DEBUG": "false"}, "json"),
        ({"DEBUG": "true"}, "text"),
        ({"DEBUG": "true", "LOG_FORMAT": "json"}, "json"),
        ({"DEBUG": "false", "LOG_FORMAT": "TEXT"}, "text"),
    ],
)
def test_json_in_production_text_in_development(environ, expected):
    assert log_format(environ) == expected


def test_an_unknown_format_is_refused_naming_the_setting():
    with pytest.raises(ValueError, match="LOG_FORMAT must be one of json, text, not 'xml'"):
        log_format({"LOG_FORMAT": "xml"})


def test_a_traceback_is_masked_in_json():
    with json_lines("cerniq.test.json") as lines:
        try:
            raise RuntimeError("no answer from +40722999888 (ion.popescu@agro-iasi.ro)")
        except RuntimeError:
            logging.getLogger("cerniq.test.json").exception(
                "send to %s failed", "maria.ionescu@ferma.ro"
            )
    (entry,) = lines
    assert entry["level"] == "ERROR" and entry["logger"] == "cerniq.test.json"
    assert entry["message"] == "send to m***@ferma.ro failed"
    assert "Traceback (most recent call last)" in entry["exception"]
    assert "RuntimeError: no answer from +407***888 (i***@agro-iasi.ro)" in entry["exception"]
    raw = json.dumps(entry)
    assert "40722999888" not in raw and "popescu" not in raw and "maria.ionescu" not in raw


def test_bound_ids_are_on_every_line_and_unbound_after():
    with json_lines("cerniq.test.ids") as lines:
        log = logging.getLogger("cerniq.test.ids")
        with bind(message_id=7, lead_id=3):
            with bind(tenant_id=1):
                log.warning("inside")
            log.warning("outer")
        log.warning("after")
    inside, outer, after = lines
    assert (inside["message_id"], inside["lead_id"], inside["tenant_id"]) == ("7", "3", "1")
    assert "tenant_id" not in outer and outer["message_id"] == "7"
    assert not set(log_context.FIELDS) & set(after)


def test_bind_refuses_an_unknown_field():
    with pytest.raises(ValueError, match="unknown log context field"), bind(phone="+40722"):
        pass


def test_production_settings_log_json_through_the_masks():
    code = (
        "import django, logging; django.setup(); "
        "logging.getLogger('cerniq.probe').warning('reply from %s', '+40722999888')"
    )
    result = run_python(code, PRODUCTION_ENV)
    assert result.returncode == 0, result.stderr
    entry = json.loads(result.stderr.strip().splitlines()[-1])
    assert entry["logger"] == "cerniq.probe" and entry["message"] == "reply from +407***888"


# --- request ids ------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_request_gets_an_id_echoed_in_the_response_and_its_log_lines(client):
    with json_lines("django.request") as lines:
        response = client.get("/no-such-page/")
    assert response.status_code == 404
    request_id = response[REQUEST_ID_HEADER]
    assert len(request_id) == 32 and int(request_id, 16) >= 0
    assert lines[-1]["request_id"] == request_id and "Not Found" in lines[-1]["message"]
    assert client.get("/no-such-page/")[REQUEST_ID_HEADER] != request_id


@pytest.mark.django_db
def test_a_sane_incoming_request_id_is_kept(client):
    incoming = "lb-7f3c9a1e.5b2d:8f4c"
    response = client.get("/login/", HTTP_X_REQUEST_ID=incoming)
    assert response[REQUEST_ID_HEADER] == incoming


@pytest.mark.django_db
@pytest.mark.parametrize(
    "incoming", ["has space", "x" * 200, 'quote"d', "new\r\nline", "-leading-dash", "ion@agro.ro"]
)
def test_an_odd_incoming_request_id_is_replaced(client, incoming):
    response = client.get("/login/", HTTP_X_REQUEST_ID=incoming)
    assert response[REQUEST_ID_HEADER] != incoming and len(response[REQUEST_ID_HEADER]) == 32


# --- task ids ---------------------------------------------------------------------------

TASK_IDS: dict[str, str] = {}


@dramatiq.actor(queue_name="default", actor_name="log_context_test_actor", max_retries=0)
def logs_something(key: str) -> None:
    TASK_IDS[key] = log_context.current().get("task_id", "")
    logging.getLogger("cerniq.test.task").warning("working on %s", key)


def test_an_actors_log_lines_carry_its_task_id():
    dramatiq.get_broker().flush_all()
    key = uuid.uuid4().hex
    with json_lines("cerniq.test.task") as lines:
        message = logs_something.send(key)
        with running_workers():
            wait_until(lambda: key in TASK_IDS, timeout=30)
    assert TASK_IDS[key] == message.message_id
    assert lines[-1]["task_id"] == message.message_id
    assert "task_id" not in log_context.current()
