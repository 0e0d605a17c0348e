"""Our Resend sending domain's readiness, as Resend reports it (email_channels.readiness):
the domain of RESEND_FROM must be in the account (`GET /domains`), verified, with sending
enabled and its SPF and DKIM records verified (`GET /domains/{id}`)."""

from __future__ import annotations

from cerniq import reasons
from cerniq.providers import get_backend
from email_channels import reasons as codes
from email_channels.addresses import domain_of
from email_channels.readiness import SenderState
from integrations.resend.client import ResendEmail

SENDING_RECORDS = ("SPF", "DKIM")


def senders() -> list[SenderState]:
    backend = get_backend("email.resend")
    if not isinstance(backend, ResendEmail):  # the demo's sandbox: nothing to ask
        return []
    domain = domain_of(backend.sender_address())
    if not domain:
        return []
    listed = {str(d.get("name") or "").lower(): d for d in backend.domains()}
    found = listed.get(domain)
    if found is None:
        return [SenderState(domain, [reasons.code(codes.SENDER_DOMAIN_MISSING, domain=domain)])]
    full = backend.domain(str(found.get("id") or ""))
    status = str(full.get("status") or "")
    problems = []
    if status != "verified":
        problems.append(reasons.code(codes.SENDER_DOMAIN_STATUS, domain=domain, status=status))
    if (full.get("capabilities") or {}).get("sending") == "disabled":
        problems.append(reasons.code(codes.SENDER_SENDING_DISABLED, domain=domain))
    records = [r for r in full.get("records") or [] if isinstance(r, dict)]
    for record in records:
        if record.get("record") in SENDING_RECORDS and record.get("status") != "verified":
            problems.append(
                reasons.code(
                    codes.SENDER_DNS_RECORD,
                    record=record.get("record"),
                    name=record.get("name"),
                    type=record.get("type"),
                    status=record.get("status"),
                )
            )
    details = {
        "status": status,
        "records": [{k: r.get(k) for k in ("record", "name", "type", "status")} for r in records],
    }
    return [SenderState(domain, problems, details)]
