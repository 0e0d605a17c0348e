"""Reason codes of the outreach engine (cerniq.reasons): what a stage change, a skip or a
hold says, in the reader's language.

Several people add codes here: keep each topic in its own block.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons
from outreach.models import Channel

# --- stage changes written by outreach.stages' callers (the lead's history) -------------
# (a reason an operator types stays their own words; these are the ones the product writes)
STAGE_SENT = reasons.define("stage.sent", _("First message sent on %(channel)s"), channel=Channel)
STAGE_PAUSED_BY_OPERATOR = reasons.define("stage.paused_by_operator", _("Paused by an operator"))
STAGE_RESUMED_BY_OPERATOR = reasons.define("stage.resumed_by_operator", _("Resumed by an operator"))
STAGE_CHANGED_BY_OPERATOR = reasons.define("stage.changed_by_operator", _("Changed by an operator"))
STAGE_PAUSED_IN_ADMIN = reasons.define("stage.paused_in_admin", _("Paused in the administration"))
STAGE_RESUMED_IN_ADMIN = reasons.define(
    "stage.resumed_in_admin", _("Resumed in the administration")
)
STAGE_PAUSED_BY_API = reasons.define("stage.paused_by_api", _("Paused through the API (%(key)s)"))
STAGE_RESUMED_BY_API = reasons.define(
    "stage.resumed_by_api", _("Resumed through the API (%(key)s)")
)
STAGE_CHANGED_BY_API = reasons.define(
    "stage.changed_by_api", _("Changed through the API (%(key)s)")
)
STAGE_HANDED_BACK = reasons.define("stage.handed_back", _("Handed back by the operator"))
STAGE_DEAD_LETTER = reasons.define(
    "stage.dead_letter_discarded", _("Paused: a message that could not be sent was discarded")
)
STAGE_EMAIL_EVENT = reasons.define("stage.email_event", _("Cold email provider event: %(event)s"))
