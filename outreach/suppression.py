"""The suppression list: addresses that asked us to stop, honoured on every path.

A WhatsApp stop suppresses the phone number, an email unsubscribe the address. Import
marks a lead whose address is suppressed as opted out of that channel; dispatch, manual
sends and the send path refuse to use a suppressed address (an opt-out confirmation
excepted). Emails are compared lowercased.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from cerniq.models import Tenant
from outreach.models import Channel, Journey, Message, Suppression


def _email(value: str) -> str:
    return (value or "").strip().lower()


def suppress(
    tenant: Tenant | int,
    *,
    phone: str = "",
    email: str = "",
    reason: str,
    message: Message | None = None,
) -> bool:
    """Add the address (once); True when it was new."""
    tenant_id = tenant if isinstance(tenant, int) else tenant.pk
    fields = {"phone": phone} if phone else {"email": _email(email)}
    if not (phone or email):
        raise ValueError("suppress() needs a phone or an email")
    try:
        with transaction.atomic():
            _, created = Suppression.objects.get_or_create(
                tenant_id=tenant_id,
                **fields,
                defaults={"reason": reason[:255], "source_message": message},
            )
    except IntegrityError:  # a concurrent stop for the same address won the insert
        created = False
    flag_journeys(tenant_id, phones=[phone] if phone else [], emails=[email] if email else [])
    return created


def flag_journeys(
    tenant_id: int,
    *,
    phones: Iterable[str] = (),
    emails: Iterable[str] = (),
    lead_ids: Iterable[int] | None = None,
) -> int:
    """Opt the leads using these suppressed addresses out of the matching channel (all the
    tenant's leads, or only `lead_ids`). Returns how many journeys changed."""
    now = timezone.now()
    journeys = Journey.objects.filter(tenant_id=tenant_id)
    if lead_ids is not None:
        journeys = journeys.filter(lead_id__in=list(lead_ids))
    changed = 0
    phones, emails = [p for p in phones if p], [_email(e) for e in emails if e]
    if phones:
        changed += journeys.filter(lead__phone__in=phones, whatsapp_opted_out=False).update(
            whatsapp_opted_out=True, whatsapp_opted_out_at=now, updated_at=now
        )
    if emails:
        # Lead emails are stored lowercased (import, forms), as suppressed ones are.
        changed += journeys.filter(lead__email__in=emails, email_opted_out=False).update(
            email_opted_out=True, email_opted_out_at=now, updated_at=now
        )
    return changed


def flag_imported(tenant_id: int, lead_ids: Iterable[int]) -> int:
    """After an import: leads whose phone or email is suppressed are opted out of it."""
    lead_ids = list(lead_ids)
    if not lead_ids or not Suppression.objects.filter(tenant_id=tenant_id).exists():
        return 0
    phones = Suppression.objects.filter(tenant_id=tenant_id).exclude(phone="")
    emails = Suppression.objects.filter(tenant_id=tenant_id).exclude(email="")
    return flag_journeys(
        tenant_id,
        phones=phones.values_list("phone", flat=True),
        emails=emails.values_list("email", flat=True),
        lead_ids=lead_ids,
    )


def channel_address(channel: str, *, phone: str, email: str) -> dict[str, str]:
    """The address a channel uses: WhatsApp the phone, email the email."""
    return {"phone": phone} if channel == Channel.WHATSAPP else {"email": _email(email)}


def is_suppressed(tenant: Tenant | int, *, phone: str = "", email: str = "") -> bool:
    tenant_id = tenant if isinstance(tenant, int) else tenant.pk
    if phone:
        return Suppression.objects.filter(tenant_id=tenant_id, phone=phone).exists()
    if email:
        return Suppression.objects.filter(tenant_id=tenant_id, email=_email(email)).exists()
    return False


def suppressed(
    tenant: Tenant | int, *, phones: Iterable[str] = (), emails: Iterable[str] = ()
) -> tuple[set[str], set[str]]:
    """Which of these phones and emails are suppressed: (phones, emails), one query at most
    (a list page asks for its fifty leads' phones and emails at once)."""
    tenant_id = tenant if isinstance(tenant, int) else tenant.pk
    phones = {p for p in phones if p}
    emails = {_email(e) for e in emails if e}
    if not phones and not emails:
        return set(), set()
    matching = Q(phone__in=phones) | Q(email__in=emails)  # an empty side matches nothing
    found = list(
        Suppression.objects.filter(matching, tenant_id=tenant_id).values_list("phone", "email")
    )
    return {p for p, _ in found if p in phones}, {e for _, e in found if e in emails}
