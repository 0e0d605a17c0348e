"""Webhook intake and processing, counted by provider (cerniq.webhooks calls these)."""

from __future__ import annotations

from prometheus_client import Counter

INTAKE = Counter(
    "cerniq_webhook_requests_total",
    "Webhook deliveries answered by the intake, by provider and outcome (accepted, "
    "duplicate, ignored, malformed, unauthorized, too_large, unknown_provider).",
    ["provider", "status"],
)
PROCESSED = Counter(
    "cerniq_webhook_events_processed_total",
    "Stored webhook events run by a worker, by provider and outcome (processed, ignored, failed).",
    ["provider", "outcome"],
)

_BY_CODE = {400: "malformed", 401: "unauthorized", 403: "unauthorized", 413: "too_large"}


def intake_outcome(known_provider: bool, status_code: int, answer: object) -> str:
    """The outcome label of one intake answer."""
    if not known_provider:
        return "unknown_provider"
    if status_code == 200 and isinstance(answer, dict) and isinstance(answer.get("status"), str):
        return answer["status"]  # accepted | duplicate | ignored
    if status_code == 404:  # a provider that answers an unknown token with 404
        return "unauthorized"
    return _BY_CODE.get(status_code, str(status_code))
