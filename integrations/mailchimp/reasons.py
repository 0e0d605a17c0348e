"""Reason codes of the Mailchimp sync (cerniq.reasons): why a lead is not in the audience,
shown on Settings → Mailchimp in the reader's language."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons
from outreach.models import Lead

# --- ours: the lead is never sent -------------------------------------------------------
OPTED_OUT = reasons.define("mailchimp.opted_out", _("Opted out: never added to the audience"))
NO_EMAIL = reasons.define("mailchimp.no_email", _("No email address"))
ERASED = reasons.define("mailchimp.erased", _("Erased on request"))
SUPPRESSED = reasons.define("mailchimp.suppressed", _("The address is on the do-not-contact list"))
BAD_ADDRESS = reasons.define(
    "mailchimp.bad_address", _("The address is %(status)s"), status=Lead.EmailStatus
)
# --- theirs: Mailchimp holds the address so that we never subscribe it again ------------
KEPT_OUT = reasons.define(
    "mailchimp.kept_out",
    _("Mailchimp holds the address as %(status)s: it is never subscribed again"),
)
COMPLIANCE = reasons.define(
    "mailchimp.compliance",
    _("Mailchimp keeps the address out (unsubscribed or cleaned there): never subscribed again"),
)
FORGOTTEN = reasons.define(
    "mailchimp.forgotten",
    _("Permanently deleted in Mailchimp: only the person can sign up again"),
)
DELETED_THERE = reasons.define(
    "mailchimp.deleted_there", _("Deleted from the audience in Mailchimp: not added again")
)
# --- Mailchimp refused, or did not answer ----------------------------------------------
REFUSED = reasons.define("mailchimp.refused", _("Mailchimp refused it: %(detail)s"))
FAILED = reasons.define("mailchimp.failed", _("Not synced, gave up retrying: %(error)s"))
AUDIENCE_FAILED = reasons.define(
    "mailchimp.audience_failed", _("The audience cannot be written to: %(error)s")
)
# --- what Mailchimp told us that we did not apply --------------------------------------
EMAIL_CHANGE_REFUSED = reasons.define(
    "mailchimp.email_change_refused",
    _("Mailchimp changed the address to %(email)s; not applied: %(why)s"),
)
EMAIL_CHANGED = reasons.define(
    "mailchimp.email_changed", _("Address changed in Mailchimp (was %(email)s)")
)
