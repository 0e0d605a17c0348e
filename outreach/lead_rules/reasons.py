"""Reason codes of the lead rules (cerniq.reasons): what a rule did to a lead and what it
was refused, stored on its RuleFiring and shown on the lead's page. Loaded with
outreach.reasons."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons

# --- what a rule did (RuleFiring.done) ----------------------------------------------------
ENROLLED = reasons.define("lead_rule.enrolled", _("enrolled in the sequence %(sequence)s"))
OPERATOR = reasons.define("lead_rule.operator", _("given to %(operator)s"))
PHONE = reasons.define("lead_rule.phone", _("assigned to the number %(phone)s"))
TAGGED = reasons.define("lead_rule.tagged", _("tagged %(tags)s"))
NOTHING = reasons.define(
    "lead_rule.nothing", _("took the lead and did nothing more (later rules were not tried)")
)
ASKED = reasons.define(
    "lead_rule.asked",
    _(
        "the person asked to be contacted: the first message goes first, inside the sending "
        "hours, and does not count as a cold new contact"
    ),
)

# --- what a rule was refused (RuleFiring.refused) ----------------------------------------
NOT_ENROLLED = reasons.define(
    "lead_rule.not_enrolled",
    _("not enrolled in the sequence %(sequence)s: %(reason)s"),
    reason=reasons.render,
)
SEQUENCE_UNUSABLE = reasons.define(
    "lead_rule.sequence_unusable",
    _("not enrolled in the sequence %(sequence)s: it is not active or has no steps"),
)
ERASED = reasons.define(
    "lead_rule.erased", _("not enrolled in the sequence %(sequence)s: the person was erased")
)
OPERATOR_GONE = reasons.define(
    "lead_rule.operator_gone",
    _("not given to %(operator)s: no longer a member of the workspace"),
)
