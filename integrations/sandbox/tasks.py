"""Sandbox actors (demo only)."""

from __future__ import annotations

import dramatiq

from integrations.sandbox.demo_replies import post_reply


@dramatiq.actor(queue_name="default", max_retries=3, time_limit=30_000)
def post_sandbox_reply(account_phone: str, to: str, chat_id: str) -> None:
    """A sandbox lead answers through the real webhook endpoint."""
    post_reply(account_phone, to, chat_id)


@dramatiq.actor(queue_name="default", max_retries=3, time_limit=30_000)
def post_sandbox_email_event(event: str, tenant_id: str, to: str, subject: str, email_id: str):
    """A sandbox email provider reports what its recipient did, through our webhook door."""
    from integrations.sandbox.demo_email import post_event

    post_event(event, tenant_id, to, subject, email_id)
