"""Outgoing webhooks (docs/outbound-webhooks.md): a tenant's endpoints hear of its events.

`events.emit` (one line at each event's owner) writes one outbox row per subscribed
endpoint in the caller's transaction; `delivery` signs and posts them (Standard Webhooks),
retries with back-off and records what the receiver said; `endpoints` makes and checks the
endpoints (secrets, URLs, the SSRF guard). The platform knows no domain: the data of an
event is whatever its owner passes.
"""
