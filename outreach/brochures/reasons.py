"""Reason codes of brochure drafting (cerniq.reasons): why a brochure job failed, why its
drafts are the offline ones. Loaded with outreach.reasons."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from cerniq import reasons

# --- why a brochure job failed (Brochure.error) ------------------------------------------
NO_TEXT = reasons.define(
    "brochure.no_text",
    _(
        "The PDF has no text to read (a scanned document?): export it from the program it "
        "was made in, or run it through text recognition, and upload it again."
    ),
)
UNREADABLE = reasons.define("brochure.unreadable", _("The PDF cannot be read here (%(detail)s)."))
MISSING_FILE = reasons.define(
    "brochure.missing_file", _("The uploaded file is no longer in storage: upload it again.")
)
CRASHED = reasons.define(
    "brochure.crashed", _("Drafting stopped on an unexpected error; no template was saved.")
)

# --- why the drafts are the offline ones (Brochure.fallback_reason) ----------------------
AI_NOT_CONFIGURED = reasons.define(
    "brochure.ai_not_configured",
    _("no AI model is configured: drafted from the brochure's headings and prices"),
)
AI_BUDGET = reasons.define(
    "brochure.ai_budget",
    _("the workspace's AI budget (%(limit)s requests a minute) was used up at that moment"),
)
AI_FAILED = reasons.define("brochure.ai_failed", _("the AI model could not answer (%(detail)s)"))
AI_BAD_ANSWER = reasons.define(
    "brochure.ai_bad_answer", _("the AI model's answer was not usable (%(detail)s)")
)
