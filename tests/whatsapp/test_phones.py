from __future__ import annotations

from cerniq.models import Alert
from outreach.dispatch import dispatch_due
from outreach.models import Journey, Message
from outreach.replanning import take_phone_offline as mark_offline
from tests.factories import make_outreach_world
from whatsapp.models import Phone, QuotaUsage
from whatsapp.phones import mark_active


def test_offline_phone_work_is_replanned_onto_other_phones(tenant, clock):
    world = make_outreach_world(tenant, phones=2, leads=6)
    down, up = world["phones"]
    dispatch_due(tenant)
    on_down = list(Message.objects.filter(phone=down))
    assert len(on_down) == 3
    assert mark_offline(down, "account disconnected") == 3
    assert set(Message.objects.filter(phone=down).values_list("status", flat=True)) == {"CANCELLED"}
    assert QuotaUsage.objects.get(phone=down).used == 0
    alert = Alert.objects.get(kind="PHONE_OFFLINE")
    assert alert.severity == "CRITICAL" and down.number in alert.subject
    result = dispatch_due(tenant)
    assert result.dispatched["WHATSAPP"] == 3
    replanned = Message.objects.filter(status="QUEUED", lead__in=[m.lead_id for m in on_down])
    assert set(replanned.values_list("phone", flat=True)) == {up.pk}
    assert QuotaUsage.objects.get(phone=up).used == 6


def test_second_offline_report_counts_on_the_same_alert_and_reconnect_resolves(tenant, clock):
    phone = make_outreach_world(tenant, phones=1, leads=0)["phones"][0]
    mark_offline(phone, "disconnected")
    mark_offline(phone, "still disconnected")
    alert = Alert.objects.get()
    assert alert.occurrences == 2
    mark_active(phone)
    alert.refresh_from_db()
    assert alert.resolved_at is not None
    assert Phone.objects.get().status == "ACTIVE"
    assert not Journey.objects.filter(assigned_phone=phone).exists()


def test_a_repeated_alert_keeps_the_higher_severity(tenant):
    from cerniq.alerts import raise_alert

    raise_alert(tenant, "SLA_BREACH", "review:1", "late", severity="WARNING")
    raise_alert(tenant, "SLA_BREACH", "review:1", "very late", severity="CRITICAL")
    raise_alert(tenant, "SLA_BREACH", "review:1", "still late", severity="WARNING")
    alert = Alert.objects.get()
    assert (alert.severity, alert.occurrences, alert.message) == ("CRITICAL", 3, "still late")
