"""Reason codes of the WhatsApp numbers (cerniq.reasons): why a number's status or
health changed, and the alerts about it. Stored as codes, shown in the reader's language
on the phones page, the alerts, the admin and the API."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons
from whatsapp.models import Phone


def _nested(stored: object) -> str:
    return reasons.render(str(stored or "")) or "—"


_when = reasons.moment


# --- phone status and health (whatsapp.phones, outreach.phone_health) --------------------
PAUSED_BY_OPERATOR = reasons.define("phone.paused_by_operator", _("Paused by an operator"))
PAUSED_THROUGH_API = reasons.define("phone.paused_through_api", _("Paused through the API"))
RESUMED_BY_OPERATOR = reasons.define(
    "phone.resumed_by_operator", _("Resumed by an operator (before: %(before)s)"), before=_nested
)
RECOVERING = reasons.define(
    "phone.recovering", _("Recovering (before: %(before)s)"), before=_nested
)
BACK_IN_ROTATION = reasons.define(
    "phone.back_in_rotation", _("Back in rotation (before: %(before)s)"), before=_nested
)
HEALTH_SCORE = reasons.define(
    "phone.health_score", _("Health %(score)s/100: %(signals)s"), signals=reasons.render_all
)
RESTRICTED = reasons.define("phone.restricted", _("Restricted by the provider: %(detail)s"))
NEW_CHATS_FAILING = reasons.define(
    "phone.new_chats_failing",
    _(
        "%(failed)s of its last %(tried)s new chats failed while messages in existing chats "
        "went out: WhatsApp's sign of a restriction on new chats"
    ),
)
NEW_CHATS_UNDELIVERED = reasons.define(
    "phone.new_chats_undelivered",
    _(
        "%(undelivered)s new contacts accepted more than %(hours)s hours ago were never "
        "delivered while messages in existing chats were: WhatsApp's sign of a restriction"
    ),
)
NEW_CONTACTS_PAUSED = reasons.define(
    "phone.new_contacts_paused",
    _(
        "%(phone)s starts no new chat until %(until)s (follow-ups in its existing chats go "
        "on), then ramps up again: %(why)s"
    ),
    until=_when,
    why=_nested,
)
SEND_FAILED = reasons.define("phone.send_failed", _("The provider refused a send: %(detail)s"))
ACCOUNT_STATUS = reasons.define(
    "phone.account_status", _("%(provider)s reports the account as “%(status)s”")
)
PROVIDER_EVENT = reasons.define(
    "phone.provider_event", _("%(provider)s reports the number “%(event)s”")
)
# The signals a health score names (outreach.phone_health.score).
SIGNAL_FAILURES = reasons.define("phone.signal_failures", _("%(n)s sends failed in a row"))
SIGNAL_DISCONNECTS = reasons.define("phone.signal_disconnects", _("disconnected %(n)s times"))
SIGNAL_UNDELIVERED = reasons.define(
    "phone.signal_undelivered", _("first messages undelivered: %(percent)s%%")
)
SIGNAL_NEGATIVE = reasons.define(
    "phone.signal_negative", _("new contacts who opted out or blocked: %(percent)s%%")
)

# --- alerts about numbers ----------------------------------------------------------------
ALERT_DOWN = reasons.define(
    "phone.alert_down", _("%(phone)s: %(status)s. %(reason)s"), status=Phone.Status,
    reason=_nested,
)  # fmt: skip
ALERT_HEALTH = reasons.define(
    "phone.alert_health", _("%(phone)s: %(health)s. %(reason)s"), health=Phone.Health,
    reason=_nested,
)  # fmt: skip
ALERT_QUOTA = reasons.define(
    "quota.alert_nearly_exhausted",
    _(
        "WhatsApp quota nearly exhausted: %(used)s of %(limit)s new contacts used today "
        "(%(percent)s%%) on %(phones)s usable phones"
    ),
)


def before_of(stored: str) -> str:
    """The reason a wrapper ("recovering, before: …") wraps, so wrappers never nest."""
    parsed = reasons.parse(stored)
    if parsed and parsed[0] in (RESUMED_BY_OPERATOR, RECOVERING, BACK_IN_ROTATION):
        return str(parsed[1].get("before", ""))
    return stored
