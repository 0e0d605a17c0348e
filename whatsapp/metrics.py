"""WhatsApp's scrape-time facts: each phone's new-contact quota today (registered by
WhatsappConfig.ready). Two queries, whatever the number of phones."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import Metric

from cerniq.logging import mask_pii
from cerniq.metrics.collectors import gauge
from whatsapp.models import Phone, QuotaUsage
from whatsapp.quota import day_limits, quota_day


def collect() -> Iterator[Metric]:
    """`cerniq_wa_quota_used` and `cerniq_wa_quota_limit` per phone, on the phone's quota
    day (its tenant's local day). Labels: tenant slug, phone id, and the phone's name (its
    label, or its number masked)."""
    phones = list(Phone.objects.select_related("tenant").order_by("pk"))
    days = {phone.pk: quota_day(phone.tenant) for phone in phones}
    usage = {
        (phone_id, day): (used, limit)
        for phone_id, day, used, limit in QuotaUsage.objects.filter(
            phone_id__in=list(days), day__in=set(days.values())
        )
        .order_by()
        .values_list("phone_id", "day", "used", "limit")
    }
    # A phone without today's row yet: the limit its row will get (warm-up, throttle).
    limits: dict[int, int] = {}
    for day in set(days.values()):
        on_day = [phone for phone in phones if days[phone.pk] == day]
        limits.update({pk: found.limit for pk, found in day_limits(on_day, day).items()})
    rows = []
    for phone in phones:
        used, limit = usage.get((phone.pk, days[phone.pk]), (0, limits[phone.pk]))
        rows.append(((phone.tenant.slug, phone.pk, mask_pii(str(phone))), used, limit))
    labels = ["tenant", "phone", "name"]
    yield gauge(
        "cerniq_wa_quota_used",
        "New contacts a WhatsApp phone used on its quota day.",
        labels,
        ((key, used) for key, used, _ in rows),
    )
    yield gauge(
        "cerniq_wa_quota_limit",
        "A WhatsApp phone's new-contact limit on its quota day.",
        labels,
        ((key, limit) for key, _, limit in rows),
    )
