import io
import logging

import pytest
from django.test import RequestFactory
from django.utils.log import configure_logging

from cerniq.logging import MaskingFormatter, MaskPIIFilter, mask_log_text, mask_pii

TOKEN = "Zx9Qw7-secretTOKENvalue_0123456789abcdefgh"  # shaped like secrets.token_urlsafe(32)
HOOK = f"/webhooks/timelinesai/{TOKEN}/"


def test_phone_numbers_and_emails_are_masked():
    text = mask_pii("sent to +40712345678 and ion.popescu@agro-iasi.ro")
    assert "+40712345678" not in text
    assert "ion.popescu" not in text
    assert "@agro-iasi.ro" in text


def test_filter_masks_formatted_arguments():
    record = logging.LogRecord(
        "x", logging.INFO, __file__, 1, "reply from %s", ("+40722000111",), None
    )
    MaskPIIFilter().filter(record)
    assert "+40722000111" not in record.getMessage()
    assert record.getMessage().startswith("reply from +40")


# --- the webhook token ----------------------------------------------------------------


def _record(msg, args=(), **extra) -> logging.LogRecord:
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, msg, args, None)
    record.__dict__.update(extra)
    return record


def test_webhook_token_is_masked_in_text():
    for text in (
        f"Bad Request: {HOOK}",
        f'"POST {HOOK} HTTP/1.1" 400 31',
        f'"POST /webhooks/timelinesai/{TOKEN} HTTP/1.1" 400 31',  # no trailing slash
        f"https://cerniq.example{HOOK}?x=1",
    ):
        masked = mask_log_text(text)
        assert TOKEN not in masked and TOKEN[4:12] not in masked
        assert f"/webhooks/timelinesai/{TOKEN[:4]}***" in masked
    assert mask_log_text(mask_log_text(HOOK)) == mask_log_text(HOOK)  # idempotent
    assert mask_log_text("/webhooks/resend/") == "/webhooks/resend/"  # no token, no change


@pytest.mark.parametrize(
    "msg, args",
    [
        ("Bad Request: %s", (HOOK,)),
        ('"%s" %s %s', (f"POST {HOOK} HTTP/1.1", "400", "31")),  # runserver's access line
        ("%(r)s %(s)s", {"r": f"POST {HOOK} HTTP/1.1", "s": "400"}),  # gunicorn's atoms
        (f"Bad Request: {HOOK}", ()),
    ],
    ids=["arg", "several-args", "mapping", "message"],
)
def test_filter_masks_the_token_in_the_message_and_its_args(msg, args):
    record = _record(msg, args)
    assert MaskPIIFilter().filter(record) is True
    assert TOKEN not in record.getMessage()
    assert TOKEN not in repr(record.args)
    assert f"{TOKEN[:4]}***" in record.getMessage()


def test_filter_masks_the_request_attached_by_django():
    request = RequestFactory().post(HOOK, b"{", content_type="application/json")
    record = _record("Bad Request: %s", (request.path,), request=request, status_code=400)
    MaskPIIFilter().filter(record)
    assert TOKEN not in str(record.request) and TOKEN not in repr(record.request)
    assert record.request.method == "POST"  # still usable as the request
    line = MaskingFormatter("%(request)s %(message)s").format(_record("x", request=request))
    assert TOKEN not in line


def test_a_message_that_cannot_be_formatted_is_masked_not_raised():
    record = _record("reply from %s to %s", ("+40722000111",))  # one argument short
    assert MaskPIIFilter().filter(record) is True
    assert "+40722000111" not in record.getMessage()


# --- query strings ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "query, secret",
    [
        ("q=%2B40722999888", "40722999888"),
        ("q=+40722999888", "40722999888"),
        ("q=0722999888", "0722999888"),
        ("q=0722+999+888", "999+888"),
        ("q=722999", "722999"),  # part of a phone
        ("q=ion.popescu%40agro-iasi.ro", "popescu"),
        ("q=ion.popescu@agro-iasi.ro", "popescu"),
        ("q=ion.popescu%40", "popescu"),  # part of an email
    ],
)
def test_phones_and_emails_in_query_strings_are_masked(query, secret):
    line = f'"GET /outreach/leads/?stage=COLD&{query}&sort=-name HTTP/1.1" 200 5120'
    masked = mask_log_text(line)
    assert secret not in masked
    assert "stage=COLD" in masked and "sort=-name" in masked and "HTTP/1.1" in masked


def test_query_strings_without_personal_data_are_unchanged():
    line = '"GET /outreach/leads/?county=Ia%C8%99i&page=2&q=cereale HTTP/1.1" 200 5120'
    assert mask_log_text(line) == line


# --- tracebacks ------------------------------------------------------------------------


def _raise_with_pii():
    raise ValueError(f"no lead +40722999888 / ion.popescu@agro-iasi.ro at {HOOK}")


def _assert_clean(text: str) -> None:
    assert "40722999888" not in text
    assert "ion.popescu" not in text
    assert TOKEN not in text


def test_tracebacks_and_stacks_are_masked_by_the_formatter():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(MaskingFormatter("%(levelname)s %(message)s"))
    log = logging.getLogger("tests.masking.formatter")
    log.addHandler(handler)
    log.propagate = False
    try:
        try:
            _raise_with_pii()
        except ValueError:
            log.exception("failed")
        log.warning("where", stack_info=True, extra={"x": HOOK})
    finally:
        log.removeHandler(handler)
    output = stream.getvalue()
    assert "ValueError: no lead +407***888" in output and "Stack (most recent call last)" in output
    _assert_clean(output)


def test_tracebacks_are_masked_by_the_filter_for_any_formatter():
    """A handler with a plain formatter (gunicorn's, a file handler) gets the masked text
    the filter cached on the record, never its own rendering of the exception."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.addFilter(MaskPIIFilter())
    log = logging.getLogger("tests.masking.filter")
    log.addHandler(handler)
    log.propagate = False
    try:
        try:
            _raise_with_pii()
        except ValueError:
            log.exception("failed on %s", HOOK)
        log.warning("where +40722999888", stack_info=True)
    finally:
        log.removeHandler(handler)
    output = stream.getvalue()
    assert "Traceback" in output and "ValueError: no lead" in output
    _assert_clean(output)


# --- the project's LOGGING, end to end -------------------------------------------------


@pytest.fixture
def log_output(settings):
    """What the configured handlers write, with DEBUG on (Django's own console handler is
    active then); the configuration is rebuilt afterwards."""
    settings.DEBUG = True
    configure_logging(settings.LOGGING_CONFIG, settings.LOGGING)
    buffer = io.StringIO()
    loggers = [logging.getLogger()] + [
        logger
        for logger in logging.root.manager.loggerDict.values()
        if isinstance(logger, logging.Logger)
    ]
    for logger in loggers:
        for handler in logger.handlers:
            if type(handler) is logging.StreamHandler:  # not pytest's capture handlers
                handler.setStream(buffer)
    yield buffer
    configure_logging(settings.LOGGING_CONFIG, settings.LOGGING)


@pytest.mark.django_db
def test_a_4xx_on_the_webhook_url_does_not_log_the_token(client, tenant, log_output):
    path = f"/webhooks/timelinesai/{tenant.webhook_token}/"
    response = client.post(path, b"{", content_type="application/json")
    assert response.status_code == 400
    output = log_output.getvalue()
    assert f"Bad Request: /webhooks/timelinesai/{tenant.webhook_token[:4]}***" in output
    assert tenant.webhook_token not in output


def test_runserver_access_lines_are_masked(log_output):
    # What django.core.servers.basehttp.WSGIRequestHandler.log_message logs.
    logging.getLogger("django.server").warning(
        '"%s" %s %s',
        f"POST {HOOK} HTTP/1.1",
        "400",
        "31",
        extra={"request": None, "server_time": "01/Jan/2026 10:00:00", "status_code": 400},
    )
    logging.getLogger("django.server").info(
        '"%s" %s %s',
        "GET /outreach/leads/?q=%2B40722999888 HTTP/1.1",
        "200",
        "5120",
        extra={"request": None, "server_time": "01/Jan/2026 10:00:00", "status_code": 200},
    )
    output = log_output.getvalue()
    assert f"{TOKEN[:4]}***" in output and "/outreach/leads/?q=" in output
    assert TOKEN not in output and "40722999888" not in output


def test_our_loggers_mask_tracebacks_with_the_configured_handlers(log_output):
    log = logging.getLogger("outreach.dispatch")
    try:
        _raise_with_pii()
    except ValueError:
        log.exception("dispatch failed for %s", "+40722999888")
    logging.getLogger("django.request").error("Internal Server Error: %s", HOOK, stack_info=True)
    output = log_output.getvalue()
    assert "dispatch failed for +407***888" in output and "Traceback" in output
    _assert_clean(output)
