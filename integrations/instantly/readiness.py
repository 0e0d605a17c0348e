"""Each Instantly sending account's readiness, as Instantly reports it
(email_channels.readiness, `GET /api/v2/accounts`): active, set up, its warm-up not banned or
suspended, and a warm-up score of at least MIN_WARMUP_SCORE. A paused warm-up is fine: the
account still sends."""

from __future__ import annotations

from cerniq import reasons
from email_channels import reasons as codes
from email_channels.readiness import MIN_WARMUP_SCORE, SenderState
from integrations.instantly import config

ACTIVE = 1
WARMUP_BROKEN = (-1, -2, -3)  # banned, spam folder unknown, permanently suspended


def senders() -> list[SenderState]:
    if not config.talks_to_instantly():
        return []
    states = []
    for account in config.client().accounts():
        email = str(account.get("email") or "").strip().lower()
        if not email:
            continue
        problems = []
        status = account.get("status")
        if status != ACTIVE:
            problems.append(reasons.code(codes.SENDER_ACCOUNT_STATUS, state=str(status)))
        if account.get("setup_pending"):
            problems.append(reasons.code(codes.SENDER_SETUP_PENDING))
        warmup = account.get("warmup_status")
        if warmup in WARMUP_BROKEN:
            problems.append(reasons.code(codes.SENDER_WARMUP_STATUS, state=str(warmup)))
        score = account.get("stat_warmup_score")
        if isinstance(score, int | float) and score < MIN_WARMUP_SCORE:
            problems.append(
                reasons.code(codes.SENDER_WARMUP_SCORE, score=score, minimum=MIN_WARMUP_SCORE)
            )
        details = {k: account.get(k) for k in ("status", "warmup_status", "stat_warmup_score")}
        message = account.get("status_message")
        if isinstance(message, dict) and message.get("response"):
            details["status_message"] = str(message["response"])[:200]
        states.append(SenderState(email, problems, details))
    return states
