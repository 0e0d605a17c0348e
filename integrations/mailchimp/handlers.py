"""What each Mailchimp event does to our leads (run by a worker, `MailchimpReceiver.handle`).

- `unsubscribe`: the person left the audience: every channel stops for the leads with the
  address (outreach.email_events.unsubscribed, "Unsubscribed (Mailchimp)" on the lead and
  its do-not-contact entry, the lead's receipts "Mailchimp: unsubscribed there"); a spam
  report (`reason` abuse) counts as a complaint. Mailchimp is not called back: it holds
  the member as unsubscribed already. An admin's delete
  (`action` delete) is no wish of the person's: the lead is only never added again.
- `cleaned`: the address bounced for good there (hard bounce semantics of
  outreach.email_events: marked bounced, listed, never written to); `abuse` a complaint.
- `upemail`: the person changed their address in Mailchimp; our lead follows if the new
  address is valid, no other lead of the tenant has it and it is not listed or erased.
  Otherwise nothing changes and the record says why.
- `subscribe`: what Mailchimp now holds of the address is noted on the lead's record; it
  never lifts an opt-out of ours (only a person does, on the lead page).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from cerniq import reasons
from cerniq.logging import mask_pii
from cerniq.models import Tenant
from email_channels.addresses import is_email
from integrations.mailchimp import reasons as codes
from integrations.mailchimp import schemas
from integrations.mailchimp.client import subscriber_hash
from integrations.mailchimp.models import MailchimpMember
from outreach import email_events
from outreach.lead_entry import DuplicateLead, LeadInvalid, update_lead
from outreach.models import Lead
from outreach.suppression import erased, is_suppressed

log = logging.getLogger(__name__)

SOURCE = "Mailchimp"  # how the lead and its do-not-contact entry name where it came from


def _members(tenant: Tenant, email: str):
    """The records of the tenant's leads whose address Mailchimp means."""
    return MailchimpMember.objects.filter(tenant=tenant, subscriber_hash=subscriber_hash(email))


def handle_unsubscribe(tenant: Tenant, event: schemas.MailchimpEvent) -> None:
    data = event.data
    assert isinstance(data, schemas.UnsubscribeData)
    if data.action == "delete":
        _members(tenant, data.email).update(
            mailchimp_status="archived",
            state=MailchimpMember.State.NOT_SYNCED,
            reason=reasons.code(codes.DELETED_THERE),
            digest="",
        )
        return
    # Noted first: the opt-out below tells every provider, and Mailchimp needs no call (its
    # receipt on the lead's page says the opt-out came from Mailchimp: optouts.py).
    for lead in email_events.leads_with_email(tenant, data.email):
        MailchimpMember.objects.get_or_create(
            lead=lead,
            defaults={
                "tenant": tenant,
                "list_id": data.list_id,
                "subscriber_hash": subscriber_hash(data.email),
                "state": MailchimpMember.State.NOT_SYNCED,
            },
        )
    _members(tenant, data.email).update(
        mailchimp_status="unsubscribed",
        state=MailchimpMember.State.NOT_SYNCED,
        reason=reasons.code(codes.OPTED_OUT),
        digest="",
    )
    if data.reason == "abuse":
        found = email_events.complained(tenant, email=data.email)
    else:
        found = email_events.unsubscribed(tenant, email=data.email, source=SOURCE)
    log.info("mailchimp unsubscribe (%s): %d leads opted out", data.reason or "-", len(found))


def handle_cleaned(tenant: Tenant, event: schemas.MailchimpEvent) -> None:
    data = event.data
    assert isinstance(data, schemas.CleanedData)
    _members(tenant, data.email).update(
        mailchimp_status="cleaned",
        state=MailchimpMember.State.NOT_SYNCED,
        reason=reasons.code(codes.KEPT_OUT, status="cleaned"),
        digest="",
    )
    if data.reason == "abuse":
        email_events.complained(tenant, email=data.email)
        return
    email_events.bounced(
        tenant, email=data.email, permanent=True, reason=f"{SOURCE} cleaned the address"
    )


def handle_upemail(tenant: Tenant, event: schemas.MailchimpEvent) -> None:
    data = event.data
    assert isinstance(data, schemas.UpemailData)
    new = data.new_email.strip()
    leads = list(Lead.objects.filter(tenant=tenant, email__iexact=data.old_email.strip()))
    for lead in leads:
        why = _refusal(tenant, lead, new)
        if not why:
            try:
                update_lead(lead, {"email": new, "email_status": Lead.EmailStatus.UNKNOWN})
            except (LeadInvalid, DuplicateLead) as refused:
                why = str(refused)
        if why:
            note = reasons.code(codes.EMAIL_CHANGE_REFUSED, email=new, why=why)
            record, _ = MailchimpMember.objects.get_or_create(
                lead=lead,
                defaults={
                    "tenant": tenant,
                    "list_id": data.list_id,
                    "state": MailchimpMember.State.NOT_SYNCED,
                },
            )
            record.note = note
            record.save(update_fields=["note", "updated_at"])
            log.info("mailchimp upemail for lead %s refused: %s", lead.pk, mask_pii(why))
            continue
        note = reasons.code(codes.EMAIL_CHANGED, email=data.old_email)
        MailchimpMember.objects.filter(lead=lead).update(
            subscriber_hash=subscriber_hash(new), note=note
        )
        log.info("mailchimp upemail: lead %s has its new address", lead.pk)


def _refusal(tenant: Tenant, lead: Lead, new: str) -> str:
    """Why the lead cannot take the new address ("" when it can)."""
    if not is_email(new):
        return "not a valid address"
    if lead.erased_at is not None:
        return "the person was erased"
    if Lead.objects.filter(tenant=tenant, email__iexact=new).exclude(pk=lead.pk).exists():
        return "another lead has this address"
    if new.lower() in erased(tenant, emails=[new]):
        return "an erased person's address"
    if is_suppressed(tenant, email=new):
        return "the address is on the do-not-contact list"
    return ""


def handle_subscribe(tenant: Tenant, event: schemas.MailchimpEvent) -> None:
    data = event.data
    assert isinstance(data, schemas.MemberData)
    _members(tenant, data.email).update(mailchimp_status="subscribed")


HANDLERS: dict[str, Callable[[Tenant, schemas.MailchimpEvent], None]] = {
    "unsubscribe": handle_unsubscribe,
    "cleaned": handle_cleaned,
    "upemail": handle_upemail,
    "subscribe": handle_subscribe,
}
