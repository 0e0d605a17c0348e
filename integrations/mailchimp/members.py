"""What a lead becomes in the audience (its hash, merge fields, tags and the digest of what
is sent), or why it is never sent; its record in a person's export and erasure."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from django.db.models import QuerySet

from cerniq import reasons
from integrations.mailchimp import reasons as codes
from integrations.mailchimp.client import subscriber_hash
from integrations.mailchimp.models import MailchimpAudience, MailchimpMember
from outreach.models import Journey, Lead
from outreach.suppression import is_suppressed

# Mailchimp holds the address so that we never subscribe it again.
# "compliance": Mailchimp refused to subscribe it ("Member In Compliance State"), which is
# one of the first two without saying which.
KEPT_OUT_STATUSES = frozenset({"unsubscribed", "cleaned", "compliance", "forgotten", "archived"})
# An email status that says the address must not be written to.
DEAD_ADDRESS = frozenset(
    {
        Lead.EmailStatus.INVALID,
        Lead.EmailStatus.BOUNCED,
        Lead.EmailStatus.UNSUBSCRIBED,
        Lead.EmailStatus.COMPLAINED,
    }
)
TEXT_MAX = 255  # a text merge field
TAG_MAX = 100  # a tag's name


@dataclass(frozen=True)
class Wanted:
    """The member as it should be in the audience."""

    email: str
    subscriber_hash: str
    merge_fields: dict[str, str]
    tags: list[str]
    digest: str  # of the member body (address, status if new, merge fields, audience)


def why_not(lead: Lead, journey: Journey | None, record: MailchimpMember | None = None) -> str:
    """The stored reason this lead is never sent, or "" when it may be: erased, no address,
    opted out, listed, a dead address, or one Mailchimp keeps out."""
    if lead.erased_at is not None:
        return reasons.code(codes.ERASED)
    if not lead.email.strip():
        return reasons.code(codes.NO_EMAIL)
    # An opt-out stops every channel (outreach.optout), so it shows on email; a WhatsApp flag
    # alone is a listed phone (another lead's stop on a shared number), not this address.
    if journey is not None and journey.email_opted_out:
        return reasons.code(codes.OPTED_OUT)
    if is_suppressed(lead.tenant_id, email=lead.email):
        return reasons.code(codes.SUPPRESSED)
    if lead.email_status in DEAD_ADDRESS:
        return reasons.code(codes.BAD_ADDRESS, status=lead.email_status)
    if record is not None and record.subscriber_hash == subscriber_hash(lead.email):
        return kept_out_reason(record.mailchimp_status)
    return ""


def kept_out_reason(status: str) -> str:
    """Why Mailchimp's status keeps the address out ("" when it does not)."""
    if status == "forgotten":
        return reasons.code(codes.FORGOTTEN)
    if status == "compliance":
        return reasons.code(codes.COMPLIANCE)
    if status == "archived":
        return reasons.code(codes.DELETED_THERE)
    if status in KEPT_OUT_STATUSES:
        return reasons.code(codes.KEPT_OUT, status=status)
    return ""


def merge_fields(lead: Lead, allowed: list[str]) -> dict[str, str]:
    """FNAME/LNAME (the contact's name), PHONE, COMPANY: those the audience has, non-empty."""
    first, _, last = " ".join(lead.contact_name.split()).partition(" ")
    values = {"FNAME": first, "LNAME": last, "PHONE": lead.phone, "COMPANY": lead.name}
    return {
        tag: value[:TEXT_MAX] for tag, value in values.items() if tag in allowed and value.strip()
    }


def tags_of(lead: Lead, stage: str, audience: MailchimpAudience) -> list[str]:
    """The tags the settings ask for: `stage:<stage>`, `county:<county>`, `crop:<crop>`."""
    found = []
    if audience.tag_stage and stage:
        found.append(f"stage:{stage.lower()}")
    if audience.tag_county and lead.county.strip():
        found.append(f"county:{lead.county.strip()}")
    crop = str((lead.custom_fields or {}).get(audience.crop_field) or "").strip()
    if audience.tag_crop and audience.crop_field and crop:
        found.append(f"crop:{crop}")
    return sorted({tag[:TAG_MAX] for tag in found})


def wanted(lead: Lead, stage: str, audience: MailchimpAudience) -> Wanted:
    email = lead.email.strip()
    fields = merge_fields(lead, list(audience.merge_fields or []))
    body = {
        "list_id": audience.list_id,
        "email": email.lower(),
        "status_if_new": audience.status_if_new,
        "merge_fields": fields,
    }
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return Wanted(
        email=email,
        subscriber_hash=subscriber_hash(email),
        merge_fields=fields,
        tags=tags_of(lead, stage, audience),
        digest=hashlib.sha256(text.encode()).hexdigest(),
    )


def tag_changes(record: MailchimpMember | None, want: Wanted) -> dict[str, bool]:
    """The tags to make active (new) or inactive (sent before, wanted no more)."""
    before = set(record.sent_tags or []) if record is not None else set()
    if record is not None and record.subscriber_hash != want.subscriber_hash:
        before = set()  # another member: its tags start empty
    after = set(want.tags)
    return {**dict.fromkeys(after - before, True), **dict.fromkeys(before - after, False)}


def unchanged(record: MailchimpMember | None, want: Wanted) -> bool:
    """Synced already exactly so: nothing to send."""
    return (
        record is not None
        and record.state == MailchimpMember.State.SYNCED
        and record.subscriber_hash == want.subscriber_hash
        and record.digest == want.digest
        and not tag_changes(record, want)
    )


def register_person_data() -> None:
    """A person's records are in their export, and blanked by their erasure (the erasure's
    receipt carries what Mailchimp needs: optouts.py)."""
    from outreach.person_data import Section, register
    from outreach.scrubbing import blank

    def rows(lead: Lead) -> QuerySet[MailchimpMember]:
        return MailchimpMember.objects.filter(lead=lead)

    register(
        Section(
            "mailchimp_members",
            MailchimpMember,
            rows,
            blank(
                subscriber_hash="",
                digest="",
                sent_tags=[],
                detail="",
                note="",
                reason=codes.ERASED,
                state=MailchimpMember.State.NOT_SYNCED,
            ),
        )
    )
