"""Actors of the reply path that must not wait for a periodic job, and the fetch of a
chat's history."""

from __future__ import annotations

import dramatiq

from hitl import chat_backfill_run, hot_replies, triage_jobs


@dramatiq.actor(queue_name="alerts", max_retries=0, time_limit=60_000)
def email_hot_reply(message_id: int, user_id: int, intent: str) -> None:
    """E-mail the lead's operator about a hot reply (the alert channels if that fails)."""
    hot_replies.email(message_id, user_id, intent)


@dramatiq.actor(
    queue_name=triage_jobs.QUEUE,
    max_retries=triage_jobs.RETRIES,
    min_backoff=triage_jobs.BACKOFF_MS,
    time_limit=120_000,
)
def triage_reply(message_id: int) -> None:
    """Triage a stored reply and route it, once (guarded, so safe to run twice); raises to
    be retried, and after the last attempt a person reads it (hitl.triage_jobs)."""
    triage_jobs.run(message_id)


@dramatiq.actor(queue_name="wa.status", max_retries=0, time_limit=300_000)
def backfill_chat(backfill_id: int) -> None:
    """Fetch a known WhatsApp chat's earlier messages (hitl.chat_backfill_run). A provider
    fault waits as the retry table says: this run queues the next one for then."""
    ran = chat_backfill_run.run(backfill_id)
    if ran.retry_in is not None:
        delay = int(ran.retry_in.total_seconds() * 1000)
        backfill_chat.send_with_options(args=(backfill_id,), delay=delay)
