"""Outgoing webhooks, counted by outcome (cerniq.outbound.delivery calls this)."""

from __future__ import annotations

from prometheus_client import Counter

DELIVERIES = Counter(
    "cerniq_outbound_webhook_attempts_total",
    "Outgoing webhook attempts by outcome (delivered, retry, failed, gone).",
    ["outcome"],
)
