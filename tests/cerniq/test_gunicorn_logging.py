"""gunicorn's access and error logs, as configured by the shipped gunicorn.conf.py: the
webhook token and searched phones are masked there too (gunicorn is not started)."""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings
from gunicorn.app.base import Application

ROOT = Path(settings.BASE_DIR)
TOKEN = "Zx9Qw7-secretTOKENvalue_0123456789abcdefgh"


class _ShippedConfig(Application):
    def __init__(self, **overrides):
        self.overrides = overrides
        super().__init__()

    def load_config(self):
        self.load_config_from_file(str(ROOT / "gunicorn.conf.py"))
        for key, value in self.overrides.items():
            self.cfg.set(key, value)

    def load(self):  # pragma: no cover - never served
        raise NotImplementedError


@pytest.fixture
def gunicorn_log(tmp_path):
    access, error = tmp_path / "access.log", tmp_path / "error.log"
    cfg = _ShippedConfig(accesslog=str(access), errorlog=str(error)).cfg
    logger = cfg.logger_class(cfg)
    yield logger, access, error
    for log in (logger.access_log, logger.error_log):
        for handler in log.handlers[:]:
            handler.close()
            log.removeHandler(handler)
        log.filters.clear()


def _access(logger, uri: str, referer: str = "-") -> None:
    path, _, query = uri.partition("?")
    environ = {
        "REQUEST_METHOD": "POST",
        "RAW_URI": uri,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "10.0.0.7",
        "HTTP_REFERER": referer,
    }
    response = SimpleNamespace(status="400 Bad Request", sent=31, headers=[])
    request = SimpleNamespace(headers=[("REFERER", referer)])
    logger.access(response, request, environ, timedelta(milliseconds=3))


def test_the_shipped_config_writes_an_access_log_with_the_masking_logger():
    cfg = _ShippedConfig().cfg
    assert cfg.logger_class.__module__ == "cerniq.gunicorn_logging"
    assert cfg.accesslog == "-"


def test_access_lines_mask_the_webhook_token_and_searched_phones(gunicorn_log):
    logger, access, _ = gunicorn_log
    _access(logger, f"/webhooks/timelinesai/{TOKEN}/")
    _access(logger, f"/webhooks/timelinesai/{TOKEN}")
    _access(
        logger,
        "/outreach/leads/?q=%2B40722999888&sort=name",
        referer="https://cerniq.example/outreach/leads/?q=ion.popescu%40agro-iasi.ro",
    )
    lines = access.read_text().splitlines()
    assert len(lines) == 3
    assert f'"POST /webhooks/timelinesai/{TOKEN[:4]}***/ HTTP/1.1" 400 31' in lines[0]
    assert f"/webhooks/timelinesai/{TOKEN[:4]}*** HTTP/1.1" in lines[1]
    text = access.read_text()
    assert TOKEN not in text and "40722999888" not in text and "popescu" not in text
    assert "sort=name" in text and "10.0.0.7" in text


def test_a_custom_format_with_the_bare_query_string_is_masked(tmp_path):
    access = tmp_path / "access.log"
    cfg = _ShippedConfig(
        accesslog=str(access), access_log_format="%(U)s %(q)s %({query_string}e)s"
    ).cfg
    logger = cfg.logger_class(cfg)
    try:
        _access(logger, f"/webhooks/timelinesai/{TOKEN}/?q=%2B40722999888")
    finally:
        for handler in logger.access_log.handlers[:]:
            handler.close()
            logger.access_log.removeHandler(handler)
    text = access.read_text()
    assert TOKEN not in text and "40722999888" not in text and TOKEN[:4] in text


def test_error_log_masks_messages_and_tracebacks(gunicorn_log):
    logger, _, error = gunicorn_log
    try:
        raise ValueError(f"lead +40722999888 at /webhooks/timelinesai/{TOKEN}/")
    except ValueError:
        logger.exception("Error handling request %s", f"/webhooks/timelinesai/{TOKEN}/")
    text = error.read_text()
    assert "Error handling request /webhooks/timelinesai/Zx9Q***/" in text
    assert "Traceback" in text and "ValueError: lead +407***888" in text
    assert TOKEN not in text and "40722999888" not in text


def test_reopening_the_logs_does_not_stack_filters(gunicorn_log):
    logger, _, _ = gunicorn_log
    logger.setup(logger.cfg)  # what gunicorn does on HUP
    assert len(logger.access_log.filters) == 2 and len(logger.error_log.filters) == 2
    assert logging.getLogger("gunicorn.access") is logger.access_log


@pytest.mark.parametrize("path", ["Dockerfile", "docker-compose.yml"])
def test_the_image_and_compose_start_gunicorn_with_the_config(path):
    text = (ROOT / path).read_text()
    assert "-c gunicorn.conf.py" in text or '"-c", "gunicorn.conf.py"' in text


def test_with_json_logs_both_logs_write_masked_json(tmp_path, monkeypatch):
    monkeypatch.setenv("LOG_FORMAT", "json")
    access, error = tmp_path / "access.log", tmp_path / "error.log"
    cfg = _ShippedConfig(accesslog=str(access), errorlog=str(error)).cfg
    logger = cfg.logger_class(cfg)
    try:
        _access(logger, f"/webhooks/timelinesai/{TOKEN}/")
        try:
            raise ValueError("lead +40722999888")
        except ValueError:
            logger.exception("Error handling request %s", f"/webhooks/timelinesai/{TOKEN}/")
    finally:
        for log in (logger.access_log, logger.error_log):
            for handler in log.handlers[:]:
                handler.close()
                log.removeHandler(handler)
            log.filters.clear()
    (line,) = access.read_text().splitlines()
    entry = json.loads(line)
    assert entry["logger"] == "gunicorn.access" and f"{TOKEN[:4]}***" in entry["message"]
    failure = json.loads(error.read_text().splitlines()[-1])
    assert failure["level"] == "ERROR" and "ValueError: lead +407***888" in failure["exception"]
    assert TOKEN not in access.read_text() + error.read_text()


@pytest.mark.parametrize("query", ['"a=1&q=%2B40722999888', "<x>&q=%2B40722999888"])
def test_a_bare_query_string_starting_with_a_quote_or_bracket_is_masked(tmp_path, query):
    # gunicorn passes such a query string on as it came; masking the `q` atom failed on it.
    access = tmp_path / "access.log"
    cfg = _ShippedConfig(accesslog=str(access), access_log_format="%(U)s %(q)s").cfg
    logger = cfg.logger_class(cfg)
    try:
        _access(logger, f"/outreach/leads/?{query}")
    finally:
        for handler in logger.access_log.handlers[:]:
            handler.close()
            logger.access_log.removeHandler(handler)
    (line,) = access.read_text().splitlines()
    assert line.startswith("/outreach/leads/ ") and "q=+407***888" in line
    assert "40722999888" not in line
