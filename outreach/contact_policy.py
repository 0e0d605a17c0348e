"""The tenant's contact policy: are numbers and addresses nobody has checked yet contacted?

The rule that reads it is outreach.readiness; this module only changes it, and wakes the
leads a change may unblock so the next dispatch judges them under the new policy.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from cerniq.models import Tenant
from outreach import stalls
from outreach.models import Enrollment

POLICY_FIELDS = ("contact_unverified_whatsapp", "contact_unverified_email")


@transaction.atomic
def change_contact_policy(
    tenant: Tenant, *, whatsapp: bool, email: bool, now: datetime | None = None
) -> int:
    """Save the policy; when it changed, the tenant's stalled enrollments are due again.
    Returns how many leads were woken."""
    if (tenant.contact_unverified_whatsapp, tenant.contact_unverified_email) == (whatsapp, email):
        return 0
    tenant.contact_unverified_whatsapp, tenant.contact_unverified_email = whatsapp, email
    tenant.save(update_fields=list(POLICY_FIELDS))
    stalled = Enrollment.objects.filter(
        tenant=tenant, status=Enrollment.Status.ACTIVE, stalled_since__isnull=False
    ).values_list("lead_id", flat=True)
    return stalls.wake(list(stalled), now or timezone.now())
