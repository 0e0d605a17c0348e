"""The lead page's lawful basis rows: what is recorded per channel and what the workspace's
policy asks of a first message there (outreach.lawful_basis)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from outreach import lawful_basis
from outreach.models import Channel, Lead

MODE_LABELS = {
    lawful_basis.OFF: gettext_lazy("not asked"),
    lawful_basis.WARN: gettext_lazy("a first message without one is sent and marked"),
    lawful_basis.REQUIRE: gettext_lazy("a first message waits until one is recorded"),
}
CHANNELS = ((lawful_basis.WHATSAPP, Channel.WHATSAPP), (lawful_basis.EMAIL, Channel.EMAIL_COLD))
CHANNEL_CHOICES = (
    ("both", gettext_lazy("WhatsApp and email")),
    (lawful_basis.WHATSAPP, gettext_lazy("WhatsApp")),
    (lawful_basis.EMAIL, gettext_lazy("Email")),
)


def basis_rows(lead: Lead) -> list[dict]:
    """One row per channel: the current basis (or none), the policy, whether a first
    message there is still to come."""
    rows = []
    for kind, channel in (
        (lawful_basis.WHATSAPP, Channel.WHATSAPP),
        (lawful_basis.EMAIL, Channel.EMAIL_COLD),
    ):
        check = lawful_basis.check(lead, channel)
        rows.append(
            {
                "kind": kind,
                "label": _("WhatsApp") if kind == lawful_basis.WHATSAPP else _("Email"),
                "basis": check.basis,
                "mode": check.mode,
                "mode_label": MODE_LABELS[check.mode],
                "country": check.country,
                "first": check.first,
                "held": check.held,
            }
        )
    return rows
