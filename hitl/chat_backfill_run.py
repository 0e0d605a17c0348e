"""One run of a chat's history fetch (hitl.chat_backfill, docs/chat-history.md): page after
page, newest first, each stored once (hitl.whatsapp_history) and the fetch's place written
with it, so a run that stops (a fault, a crash) is continued by the next at the next page.

A run claims the fetch with a lease (`claimed_until`): two runs never fetch one chat at
once, and one that died lets go when its lease passes. It ends at the chat's first message,
at the page limit or at the age limit (`ChatBackfill.end`). A provider's fault goes
through the retry table (cerniq.retry.decide, each class of fault counting its own tries
on the row): the run says when to try again and the actor queues itself for then; past
the table, the fetch has FAILED with the provider's answer. The requests stay within the
provider's limits: its backend spaces them (TimelinesAI: integrations.timelinesai.history).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from cerniq import reasons, retry
from cerniq.logging import mask_pii
from cerniq.provider_errors import ProviderError
from hitl.chat_backfill import Limits, history_backend, limits, oldest_wanted
from hitl.models import ChatBackfill
from hitl.reasons import BACKFILL_ERASED, BACKFILL_FAILED, BACKFILL_RETRYING, BACKFILL_UNSUPPORTED
from hitl.whatsapp_history import StoredPage, store_past
from whatsapp.backends import HistoryPage

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=10)  # longer than the actor's time limit
LATER = timedelta(hours=1)  # a retry-table row that waits for "the next day's window"
_DETAIL = 150  # characters of a provider's answer kept in the reason

Status, End = ChatBackfill.Status, ChatBackfill.End


@dataclass(frozen=True)
class Ran:
    """What a run did: done, failed, retry (at `retry_in`), or busy (another run holds
    the fetch, or it is over)."""

    outcome: str
    retry_in: timedelta | None = None


def run(backfill_id: int) -> Ran:
    """Fetch the chat's history from where the fetch stands. Safe to run twice."""
    now = timezone.now()
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    claimed = (
        ChatBackfill.objects.filter(pk=backfill_id, status__in=[Status.QUEUED, Status.RUNNING])
        .filter(free)
        .update(status=Status.RUNNING, claimed_until=now + LEASE, retry_at=None, updated_at=now)
    )
    if not claimed:
        return Ran("busy")
    row = ChatBackfill.objects.select_related("tenant", "lead", "phone").get(pk=backfill_id)
    if row.started_at is None:
        row.started_at = now
        row.save(update_fields=["started_at"])
    try:
        return _fetch(row)
    except BaseException:
        ChatBackfill.objects.filter(pk=row.pk).update(claimed_until=None)  # a crash lets go
        raise


def _fetch(row: ChatBackfill) -> Ran:
    if row.lead.erased_at is not None:
        return _finish(row, Status.FAILED, error=reasons.code(BACKFILL_ERASED))
    backend = history_backend(row.provider)
    if backend is None:
        unsupported = reasons.code(BACKFILL_UNSUPPORTED, provider=row.provider)
        return _finish(row, Status.FAILED, error=unsupported)
    bounds = limits()
    since = oldest_wanted(row.tenant, row.requested_at, bounds)
    if row.pages >= bounds.max_pages:
        return _finish(row, Status.DONE, end=End.PAGES)
    try:
        pages = backend.chat_history(chat_id=row.chat_id, since=since, start_page=row.next_page)
        for page in pages:
            with transaction.atomic():
                stored = store_past(
                    row.tenant,
                    lead_id=row.lead_id,
                    phone=row.phone,
                    messages=page.messages,
                    since=since,
                    until=row.requested_at,
                    backfill_id=row.pk,
                )
                _progress(row, page, stored)
            end = _end(page, row, bounds, since)
            if end:
                return _finish(row, Status.DONE, end=end)
    except ProviderError as error:
        return _failed(row, error)
    return _finish(row, Status.DONE, end=End.START)


def _end(page: HistoryPage, row: ChatBackfill, bounds: Limits, since: datetime) -> str:
    """Why the fetch ends after this page ("" when the next page is wanted)."""
    if not page.has_more:
        return End.START
    if any(m.sent_at is not None and m.sent_at < since for m in page.messages):
        return End.DAYS  # newest first: every later page is older still
    if row.pages >= bounds.max_pages:
        return End.PAGES
    return ""


def _progress(row: ChatBackfill, page: HistoryPage, stored: StoredPage) -> None:
    row.next_page = page.number + 1
    row.pages += 1
    row.fetched += page.seen
    row.stored += stored.stored
    row.already += stored.already
    row.skipped += stored.skipped + page.seen - len(page.messages)
    row.save(
        update_fields=[
            "next_page",
            "pages",
            "fetched",
            "stored",
            "already",
            "skipped",
            "updated_at",
        ]
    )


def _finish(row: ChatBackfill, status: str, *, end: str = "", error: str = "") -> Ran:
    row.status, row.end, row.error = status, end, error
    row.finished_at = timezone.now()
    row.claimed_until = row.retry_at = None
    row.save(
        update_fields=[
            "status",
            "end",
            "error",
            "finished_at",
            "claimed_until",
            "retry_at",
            "updated_at",
        ]
    )
    log.info("chat %s history: %s, %s stored", row.chat_id, status, row.stored)
    return Ran("done" if status == Status.DONE else "failed")


def _failed(row: ChatBackfill, error: ProviderError) -> Ran:
    """The retry table decides: again later (the place kept), or the fetch has failed."""
    kind = retry.error_class(error)
    failures = dict(row.retries or {})
    failures[kind] = failures.get(kind, 0) + 1
    decision = retry.decide(error, failures[kind])
    detail = _said(error)
    row.retries = failures
    if decision.give_up:
        row.save(update_fields=["retries"])
        log.warning("chat %s history given up: %s", row.chat_id, detail)
        return _finish(row, Status.FAILED, error=reasons.code(BACKFILL_FAILED, error=detail))
    wait = decision.retry_in or LATER
    row.retry_at = timezone.now() + wait
    row.claimed_until = None
    row.error = reasons.code(BACKFILL_RETRYING, error=detail)
    row.save(update_fields=["retries", "retry_at", "claimed_until", "error", "updated_at"])
    log.info("chat %s history: %s; again in %s", row.chat_id, detail, wait)
    return Ran("retry", wait)


def _said(error: ProviderError) -> str:
    """The provider's own words when it gave some (masked), else what the client said."""
    name = type(error).__name__
    if error.provider_message:
        status = f"HTTP {error.status_code} " if error.status_code else ""
        return f"{status}{name}: {mask_pii(error.provider_message)}"[:_DETAIL]
    return f"{name}: {error}"[:_DETAIL]
