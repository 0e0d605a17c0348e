"""Actors of the reply path that must not wait for a periodic job."""

from __future__ import annotations

import dramatiq

from hitl import hot_replies


@dramatiq.actor(queue_name="alerts", max_retries=0, time_limit=60_000)
def email_hot_reply(message_id: int, user_id: int, intent: str) -> None:
    """E-mail the lead's operator about a hot reply (the alert channels if that fails)."""
    hot_replies.email(message_id, user_id, intent)
