"""Webhook intake: verify, store, acknowledge; process later in a Dramatiq actor.

One thin view (`WebhookIntakeView`, STYLE B4) serves every provider at
`/webhooks/<provider>/<token>/`. A `Receiver` per provider (declared by its integration,
cerniq.integrations) says who sent the request (`authenticate`), what it is and how to dedupe it
(`identify`), and what to do with it (`handle`, run by `process_event` in a worker).

The request path never calls a provider and never runs domain code: it reads the raw
body, authenticates, stores a `WebhookEvent` row (raw bytes, a few headers) and answers.
Every request that passes authentication leaves a row, even a malformed one (stored
as MALFORMED, never processed), so nothing a provider sent us is lost.

What passes the door is strict JSON (`parse_payload`): UTF-8, no NaN/Infinity, no
duplicated key, no NUL or lone surrogate in any string or key, nesting bounded, the body
no larger than the receiver's cap. A receiver whose provider posts another encoding reads
it in `parse_body` under the same rules (Mailchimp's forms); one whose provider checks its
URL with a GET first answers it in `answer_get` (405 otherwise). The receiver's `identify`
then checks the event against the provider's documented schema. A body refused for a field
is answered
`400 {"error": "invalid payload", "field": "message.message_uid", "problem": "not a UUID"}`
and kept as a MALFORMED row: refused and malformed are one thing here (neither is ever
processed or replayed; the row is evidence of what was sent, the error says why).
"""

from __future__ import annotations

import copy
import functools
import hmac
import json
import logging
import time
import traceback
from collections.abc import Mapping
from datetime import timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from django.db import connection, transaction
from django.db.models import F
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver as on_signal
from django.http import HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.module_loading import import_string

from cerniq import integrations, webhook_alerts
from cerniq.metrics import webhooks as metrics
from cerniq.model_fields import max_length
from cerniq.models import Tenant, WebhookEvent
from cerniq.relay import relay
from cerniq.signatures import verify_hmac, verify_svix  # noqa: F401 (part of the framework)

if TYPE_CHECKING:  # DRF's request: workers importing this need none of DRF
    from rest_framework.request import Request

log = logging.getLogger(__name__)

Status = WebhookEvent.Status


# Only these request headers are kept (never Authorization or Cookie).
STORED_HEADERS = ("Content-Type", "User-Agent", "X-Forwarded-For")
ERROR_TEXT_LIMIT = 4000
_EVENT_TYPE_MAX = max_length(WebhookEvent, "event_type")
_EVENT_ID_MAX = max_length(WebhookEvent, "provider_event_id")
_TOKEN_MAX = max_length(Tenant, "webhook_token")


class MalformedPayload(ValueError):
    """The body cannot be understood or breaks the provider's contract: stored as
    MALFORMED, answered 400, never processed.

    With `field` (a path such as "message.attachments[0].size") and `problem`, the answer
    names them: {"error": "invalid payload", "field": ..., "problem": ...}."""

    def __init__(
        self, message: str = "", *, event_type: str = "", field: str = "", problem: str = ""
    ) -> None:
        if field and not message:
            message = f"invalid payload: {field}: {problem}"
        super().__init__(message)
        self.event_type = event_type
        self.field = field
        self.problem = problem


class Receiver:
    """One provider's webhook contract. Subclasses set `provider` and the event sets."""

    provider: str = ""
    # Events we act on (status RECEIVED, processed by a worker).
    HANDLED_EVENTS: frozenset[str] = frozenset()
    # Known events we deliberately do not act on: stored as IGNORED and answered 200
    # so the provider does not retry them.
    IGNORED_EVENTS: frozenset[str] = frozenset()
    IGNORED_PREFIXES: tuple[str, ...] = ()
    # Status answered when authenticate() fails. Signing providers: 401.
    auth_failure_status: int = 401
    # Largest body taken in (bytes; 413 above it), unless settings.WEBHOOK_MAX_BODY_BYTES
    # names this provider. None: only Django's DATA_UPLOAD_MAX_MEMORY_SIZE applies.
    MAX_BODY_BYTES: int | None = None
    # Deepest nesting of objects and arrays accepted (the body itself is level 1).
    MAX_DEPTH: int = 32
    # The request's headers, set by the intake before `authenticate` and `identify`: for
    # providers whose event id travels in a header (Svix's `svix-id`). Empty in workers.
    headers: Mapping[str, str] = MappingProxyType({})

    def authenticate(self, request: Request, raw: bytes, token: str | None) -> Tenant | None:
        """The tenant this request is for, or None when it is not genuine."""
        raise NotImplementedError

    def identify(self, payload: dict[str, Any]) -> tuple[str, str]:
        """(event_type, natural dedupe key). Raises MalformedPayload (with the field and
        the problem) when a handled event breaks the provider's schema: it is checked here,
        before anything is stored as accepted. The key may be "" for events that are not
        handled (never deduped)."""
        raise NotImplementedError

    def dedupe_key(self, tenant: Tenant, event_type: str, key: str, payload: dict[str, Any]) -> str:
        """The key a handled event is stored under, knowing its tenant: `identify`'s key by
        default. A provider that sends nothing telling one occurrence of an event from a
        later one (no id, no time of its own) can scope the key here with what is already
        stored, so a retry stays a duplicate and a later occurrence is a new event."""
        return key

    def parse_body(self, raw: bytes, content_type: str) -> dict[str, Any]:
        """The body as a dict, or MalformedPayload: strict JSON (`parse_payload`) whatever
        the Content-Type says, as providers label JSON loosely. A provider that posts
        another encoding (Mailchimp's forms) overrides this, applying the same hostile-input
        rules (`check_strings_and_depth`). Run at the door and again in the worker (with the
        stored Content-Type)."""
        return parse_payload(raw, max_depth=self.MAX_DEPTH)

    def answer_get(self, request: Request, token: str | None) -> HttpResponse:
        """The answer to a GET at the provider's URL: 405 by default. A provider that checks
        a URL with a GET before it sends to it (Mailchimp's validator, Meta's `hub.*`
        handshake) overrides this; nothing is stored either way."""
        return JsonResponse({"error": "method not allowed"}, status=405, headers={"Allow": "POST"})

    def max_body_bytes(self) -> int | None:
        from django.conf import settings

        configured = getattr(settings, "WEBHOOK_MAX_BODY_BYTES", None) or {}
        return configured.get(self.provider) or self.MAX_BODY_BYTES

    def handle(self, event: WebhookEvent, payload: dict[str, Any]) -> bool:
        """Act on a stored event (in a worker). True when handled, False when ignored.
        Raise to fail (the row becomes FAILED and Dramatiq retries)."""
        raise NotImplementedError

    def delivery(self, tenant: Tenant, raw: bytes) -> tuple[str | None, dict[str, str]]:
        """How the provider would deliver `raw` to `tenant`: (URL token, headers). Used to
        replay fixtures (`replay_webhook`, the fixture test every integration gets).
        Providers that sign override this to sign with the tenant's secret."""
        return tenant.webhook_token, {}

    def is_handled(self, event_type: str) -> bool:
        return event_type in self.HANDLED_EVENTS

    def is_ignored(self, event_type: str) -> bool:
        return event_type in self.IGNORED_EVENTS or event_type.startswith(self.IGNORED_PREFIXES)


def receivers() -> dict[str, str]:
    """URL segment → dotted path of the Receiver, from the integration registry. The key
    is also the `provider` stored on the row; it equals the receiver's `provider`."""
    return integrations.receivers()


def get_receiver(provider: str) -> Receiver | None:
    path = receivers().get(provider)
    return import_string(path)() if path else None


# --- Authentication helpers ------------------------------------------------------------


# A process remembers a token's tenant for TENANT_CACHE_SECONDS: the intake then needs no
# query to authenticate (issue #10's intake bench). A tenant saved or deleted in this process
# empties the cache at once; another process sees a deactivated tenant or a rotated token
# within the TTL (a provider's deliveries in those seconds are still stored, never lost, and
# the worker's handler reads the tenant afresh). Misses are never cached: a wrong token costs
# its query every time, so a guess learns nothing from timing either.
TENANT_CACHE_SECONDS = 10.0
_TENANT_CACHE_SIZE = 1024
_tenant_cache: dict[str, tuple[float, Tenant]] = {}


@on_signal([post_save, post_delete], sender=Tenant, dispatch_uid="webhooks-tenant-cache")
def forget_tenants(**kwargs: Any) -> None:
    _tenant_cache.clear()


def tenant_for_url_token(token: str | None) -> Tenant | None:
    """The active tenant whose `webhook_token` is `token` (for providers that sign nothing).

    The candidate is fetched by exact match on the unique column (an index lookup says
    nothing about how close a guess was), then compared in constant time, so a
    case-insensitive collation or a prefix match can never let a wrong token through.
    A hit is reused for TENANT_CACHE_SECONDS (see above); the caller gets its own copy.
    """
    if not token or len(token) > _TOKEN_MAX:
        return None
    now = time.monotonic()
    cached = _tenant_cache.get(token)
    if cached is not None and now < cached[0]:
        candidate: Tenant | None = cached[1]
    else:
        candidate = Tenant.objects.filter(webhook_token=token, is_active=True).first()
    if candidate is None or not hmac.compare_digest(
        candidate.webhook_token.encode(), token.encode()
    ):
        return None
    if cached is None or now >= cached[0]:
        if len(_tenant_cache) >= _TENANT_CACHE_SIZE:
            _tenant_cache.clear()
        _tenant_cache[token] = (now + TENANT_CACHE_SECONDS, candidate)
    return copy.copy(candidate)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {_shown(key)!r}")
            seen.add(key)
    return result


def parse_payload(raw: bytes, *, max_depth: int = Receiver.MAX_DEPTH) -> dict[str, Any]:
    """The body as a JSON object, or MalformedPayload.

    Strict: the bytes are UTF-8 (no other encoding guessed), NaN/Infinity and duplicated
    keys are refused ("malformed JSON: ..."); then no string or key holds a NUL or a lone
    surrogate and nesting stays within `max_depth` (MalformedPayload naming the field)."""
    try:
        payload = json.loads(
            raw.decode("utf-8"), parse_constant=_no_constants, object_pairs_hook=_unique_keys
        )
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
        detail = str(exc) or type(exc).__name__
        raise MalformedPayload(f"malformed JSON: {detail}") from None
    if not isinstance(payload, dict):
        raise MalformedPayload(f"malformed JSON: expected an object, got {type(payload).__name__}")
    check_strings_and_depth(payload, max_depth=max_depth)
    return payload


_PATH_LIMIT = 200


def _shown(key: str) -> str:
    """A key as it may appear in an answer or a log line: printable, bounded."""
    text = "".join(ch if ch.isprintable() and ch != "\x00" else "?" for ch in key[:64])
    return text + ("…" if len(key) > 64 else "")


def _path_text(path: tuple[str | int, ...]) -> str:
    text = ""
    for part in path:
        text += (
            f"[{part}]" if isinstance(part, int) else (f".{_shown(part)}" if text else _shown(part))
        )
    return text[:_PATH_LIMIT] or "(body)"


def _string_problem(value: str) -> str:
    if "\x00" in value:
        return "contains a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate"
    return ""


def check_strings_and_depth(payload: Any, *, max_depth: int) -> None:
    """MalformedPayload(field=..., problem=...) for a NUL or a lone surrogate in any string
    or key (PostgreSQL and UTF-8 refuse both, so the worker would fail on them every time),
    or for objects and arrays nested deeper than `max_depth`."""
    event_type = payload.get("event_type") if isinstance(payload, dict) else None
    event_type = (
        event_type if isinstance(event_type, str) and not _string_problem(event_type) else ""
    )
    event_type = event_type[:_EVENT_TYPE_MAX]
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(payload, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            problem = _string_problem(value)
            if problem:
                raise MalformedPayload(
                    field=_path_text(path), problem=problem, event_type=event_type
                )
            continue
        if isinstance(value, dict):
            items: Any = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        else:
            continue
        if len(path) + 1 > max_depth:
            raise MalformedPayload(
                field=_path_text(path),
                problem=f"objects and arrays nested deeper than {max_depth} levels",
                event_type=event_type,
            )
        for key, item in items:
            if isinstance(key, str):
                problem = _string_problem(key)
                if problem:
                    raise MalformedPayload(
                        field=_path_text(path), problem=f"a key {problem}", event_type=event_type
                    )
            stack.append((item, (*path, key)))


def _checked_identity(receiver: Receiver, payload: dict[str, Any]) -> tuple[str, str]:
    event_type, key = receiver.identify(payload)
    if not isinstance(event_type, str) or not event_type.strip():
        raise MalformedPayload("missing event type")
    if len(event_type) > _EVENT_TYPE_MAX or "\x00" in event_type:
        raise MalformedPayload("event type is too long or contains NUL")
    _checked_key(key, event_type)
    if receiver.is_handled(event_type) and not key:
        raise MalformedPayload("no event id to deduplicate on", event_type=event_type)
    return event_type, key


def _checked_key(key: str, event_type: str = "") -> str:
    if len(key) > _EVENT_ID_MAX or "\x00" in key:
        raise MalformedPayload("event id is too long or contains NUL", event_type=event_type)
    return key


# --- Intake ----------------------------------------------------------------------------


def enqueue_processing(event_id: int) -> None:
    """Hand the event to the workers once the current transaction commits (cerniq.relay:
    batched, off the request path).

    `robust`: a broker outage must not turn an already stored delivery into a 500 (the row
    stays RECEIVED and `requeue_stale_events` sends it again)."""
    transaction.on_commit(functools.partial(relay.submit, event_id), robust=True)


def store_event(event: WebhookEvent) -> int | None:
    """INSERT the unsaved `event` unless one with its (provider, key) is stored: its id, or
    None for a duplicate.

    One statement, `INSERT ... ON CONFLICT DO NOTHING RETURNING id`, on the partial unique
    constraint: in autocommit it is its own transaction (no BEGIN, no SELECT first, no
    savepoint), and two concurrent deliveries of one event cannot both get an id. The values
    are prepared by the model's fields, as `Model.save` would (auto_now_add, JSON, bytes), so
    this works on PostgreSQL and on SQLite (embedded mode) alike."""
    meta = WebhookEvent._meta
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    values = [f.get_db_prep_save(f.pre_save(event, add=True), connection) for f in fields]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    conflict = ""
    if event.provider_event_id:
        # The target names the partial unique index (webhookevent_unique_provider_event).
        conflict = (
            f" ON CONFLICT ({quote('provider')}, {quote('provider_event_id')})"
            f" WHERE NOT ({quote('provider_event_id')} = '') DO NOTHING"
        )
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({placeholders}){conflict}"  # noqa: S608
        f" RETURNING {quote(meta.pk.column)}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        row = cursor.fetchone()
    return row[0] if row else None


# --- Processing ------------------------------------------------------------------------

CLAIMABLE = (Status.RECEIVED, Status.FAILED)
REPLAYABLE = (Status.FAILED, Status.PROCESSED, Status.IGNORED, Status.RECEIVED)


def _error_text(exc: BaseException) -> str:
    summary = f"{type(exc).__name__}: {exc}"
    trace = "".join(traceback.format_exception(exc))
    text = f"{summary}\n\n{trace}"
    return (
        text if len(text) <= ERROR_TEXT_LIMIT else text[: ERROR_TEXT_LIMIT - 15] + "\n… (truncated)"
    )


def process_event(event_id: int) -> str:
    """Run the receiver's handler for one stored event, at most once at a time.

    Claims the row (RECEIVED/FAILED -> PROCESSING, attempts+1) with a conditional UPDATE,
    so a duplicate message or a second worker finds nothing to do. The handler and the
    PROCESSED/IGNORED mark commit together. On an exception the row becomes FAILED with
    the error and the exception propagates (Dramatiq retries; a retry re-claims FAILED).

    Returns "processed", "ignored", "skipped" (not claimable: already done, running,
    MALFORMED or unverified) or "missing".
    """
    claimed = WebhookEvent.objects.filter(pk=event_id, verified=True, status__in=CLAIMABLE).update(
        status=Status.PROCESSING, attempts=F("attempts") + 1
    )
    if not claimed:
        current = WebhookEvent.objects.filter(pk=event_id).values_list("status", flat=True).first()
        if current is None:
            log.warning("webhook event %s: not found", event_id)
            return "missing"
        log.info("webhook event %s: not claimable (%s), skipped", event_id, current)
        return "skipped"
    event = WebhookEvent.objects.select_related("tenant").get(pk=event_id)
    try:
        receiver = get_receiver(event.provider)
        if receiver is None:
            raise LookupError(f"no webhook receiver for provider {event.provider!r}")
        content_type = str((event.headers or {}).get("Content-Type") or "")
        payload = receiver.parse_body(bytes(event.raw_body), content_type)
        with transaction.atomic():
            handled = receiver.handle(event, payload)
            status = Status.PROCESSED if handled else Status.IGNORED
            WebhookEvent.objects.filter(pk=event_id).update(
                status=status, processed_at=timezone.now(), error=""
            )
    except BaseException as exc:  # also Dramatiq's TimeLimitExceeded/Shutdown interrupts,
        # which would otherwise leave the row PROCESSING, where no retry can claim it
        WebhookEvent.objects.filter(pk=event_id).update(
            status=Status.FAILED, error=_error_text(exc)
        )
        metrics.PROCESSED.labels(event.provider, "failed").inc()
        log.warning("webhook event %s failed: %s: %s", event_id, type(exc).__name__, exc)
        webhook_alerts.note_failure(event.tenant, event.provider, f"{type(exc).__name__}: {exc}")
        raise
    outcome = "processed" if handled else "ignored"
    metrics.PROCESSED.labels(event.provider, outcome).inc()
    return outcome


def requeue_stale_events(older_than: timedelta) -> int:
    """Enqueue events still RECEIVED after `older_than` (their broker message was lost).
    Processing claims the row first, so an event enqueued twice is processed once."""
    from cerniq.tasks import process_webhook_event

    events = list(
        WebhookEvent.objects.filter(
            status=Status.RECEIVED, received_at__lt=timezone.now() - older_than
        ).values_list("pk", flat=True)
    )
    for event_id in events:
        process_webhook_event.send(event_id)
    return len(events)


def replay(event: WebhookEvent, *, only: tuple[str, ...] = REPLAYABLE) -> bool:
    """Process an event again: FAILED/PROCESSED/IGNORED (or a RECEIVED row whose message
    was lost) -> RECEIVED, enqueued on commit. Handlers are idempotent, so replaying a
    PROCESSED event is safe. MALFORMED rows are never processed and cannot be replayed;
    PROCESSING rows are running. `only` narrows the statuses replayed (the dead letters
    retry FAILED events alone). Returns whether the event was queued."""
    with transaction.atomic():
        reset = WebhookEvent.objects.filter(
            pk=event.pk, verified=True, status__in=[s for s in only if s in REPLAYABLE]
        ).update(status=Status.RECEIVED, processed_at=None)
        if reset:
            enqueue_processing(event.pk)
    if reset:
        event.status, event.processed_at = Status.RECEIVED, None
    return bool(reset)
