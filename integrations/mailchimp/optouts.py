"""An opt-out or an erasure reaches Mailchimp (the integration's `propagation` module,
outreach.propagation), with a receipt per call.

- An opt-out (on any channel: every channel stops) sets the member `unsubscribed` in the
  audience we synced it to (`PATCH …/members/{hash}`), so no campaign of the tenant's
  reaches the person there either. A lead never synced costs no call; one Mailchimp
  already holds as cleaned or deleted neither. One who unsubscribed in Mailchimp itself
  (its webhook) gets a receipt without a call, so the lead's page says where the opt-out
  came from.
- An erasure deletes the member permanently (`POST …/actions/delete-permanent`): from the
  audience we synced it to, or, never synced, from the tenant's audience at its address
  (someone may have put it there by hand). Mailchimp then refuses to add the address again.

A 404 is a member Mailchimp does not have: done. The subscriber hash travels in the
receipt as its `lookup`, which outreach.propagation drops once Mailchimp confirmed; the
record itself is blanked by the erasure (members.register_person_data).
"""

from __future__ import annotations

from typing import Any

from integrations.mailchimp import config
from integrations.mailchimp.client import subscriber_hash
from integrations.mailchimp.members import KEPT_OUT_STATUSES
from integrations.mailchimp.models import MailchimpAudience, MailchimpMember
from outreach.models import Lead, Propagation
from outreach.propagation import Target

UNSUBSCRIBE = "unsubscribe_member"
DELETE = "delete_member"
# The person unsubscribed in Mailchimp itself (its webhook): no call, but the lead's page
# says on its receipt that the opt-out came from there.
NOTED = "unsubscribed_there"


def targets(lead: Lead, cause: str) -> list[Target]:
    """What Mailchimp must do for this person (none when it holds nothing of ours)."""
    record = MailchimpMember.objects.filter(lead=lead).exclude(subscriber_hash="").first()
    if cause == Propagation.Cause.OPT_OUT:
        if record is not None and record.mailchimp_status == "unsubscribed":
            return [Target(NOTED, {"list_id": record.list_id})]
        if record is None or record.mailchimp_status in KEPT_OUT_STATUSES:
            return []
        return [Target(UNSUBSCRIBE, {"list_id": record.list_id, "lookup": record.subscriber_hash})]
    if record is not None:
        where, member = record.list_id, record.subscriber_hash
    else:
        audience = MailchimpAudience.objects.filter(tenant_id=lead.tenant_id).first()
        if audience is None or not audience.list_id or not lead.email.strip():
            return []
        where, member = audience.list_id, subscriber_hash(lead.email)
    return [Target(DELETE, {"list_id": where, "lookup": member})]


def apply(receipt: Propagation) -> dict[str, Any]:
    """Make the call; a provider error is raised (the receipt's retry decides what next)."""
    if receipt.action == NOTED:
        return {"unsubscribed_there": 1}
    list_id, member = receipt.target["list_id"], receipt.target.get("lookup", "")
    client = config.client()
    if receipt.action == UNSUBSCRIBE:
        done = client.unsubscribe(list_id, member)
        status, answer = "unsubscribed", {"unsubscribed": 1}
    else:
        done = client.delete_permanently(list_id, member)
        status, answer = "forgotten", {"deleted": 1}
    if receipt.lead_id is not None:
        MailchimpMember.objects.filter(lead_id=receipt.lead_id).update(mailchimp_status=status)
    return answer if done else {"already_gone": 1}
