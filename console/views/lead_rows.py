"""The leads list's rows, ready to print.

Every label, CSS class and link of a row is worked out here once per page, and each distinct
label is translated once, not once per row: the template's loop then only prints plain
dict fields. Rendering fifty rows through per-row includes, `{% with %}`, filters,
`{% url %}` and `{% translate %}` cost ~45 ms of CPU a page; printing the plain fields
through Django's engine still ~12 ms, through the compiled rows template (console.rows) 2.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_noop, ngettext

from cerniq import reasons
from console.rows import Dates, blocktranslate, render_rows
from outreach.models import Enrollment, Journey, Lead, Priority, Stage
from outreach.readiness import ChannelReadiness, ContactPolicy, Readiness, State, readiness_many

DASH = "—"
_PK = 987654321  # stands for a lead's id in a reversed URL, replaced per row


def pk_url(name: str) -> Callable[[int], str]:
    """The URL named `name` for any object's id, reversed once for a whole list."""
    before, after = reverse(name, args=[_PK]).split(str(_PK))
    return lambda pk: f"{before}{pk}{after}"


def badge_class(channel: ChannelReadiness) -> str:
    """The badge colour of one channel's readiness."""
    if channel.state == State.READY:
        return "st-ok"
    return "st-warn" if channel.usable else "st-bad"


class _Badges:
    """One channel's badge fields, computed once per distinct readiness on the page."""

    def __init__(self) -> None:
        self.names = {"whatsapp": gettext("WhatsApp"), "email": gettext("Email")}
        self.known: dict[ChannelReadiness, dict[str, str]] = {}

    def __call__(self, channel: ChannelReadiness) -> dict[str, str]:
        found = self.known.get(channel)
        if found is None:
            found = self.known[channel] = {
                "state": channel.state,
                "name": self.names[channel.channel],
                "css": badge_class(channel),
                "short": channel.short,
                "title": f"{self.names[channel.channel]}: {channel.text}",
            }
        return found


def with_stalled(leads: QuerySet[Lead]) -> QuerySet[Lead]:
    """The leads with the stall of their active sequence, if any (`stalled_since`,
    `stalled_reason`, NULL when none): read with the rows (the partial index of stalled
    enrollments, `enrollment_stalled_idx`), not by a query of their own."""
    stalled = Enrollment.objects.filter(
        lead=OuterRef("pk"), status=Enrollment.Status.ACTIVE, stalled_since__isnull=False
    ).order_by("-stalled_since", "-pk")
    return leads.annotate(
        stalled_since=Subquery(stalled.values("stalled_since")[:1]),
        stalled_reason=Subquery(stalled.values("stalled_reason")[:1]),
    )


def with_contacts(leads: QuerySet[Lead]) -> QuerySet[Lead]:
    """The leads with how many contacts their company has (`company_contacts`), read with
    the rows (the index of leads by company), not by a query of their own."""
    colleagues = (
        Lead.objects.filter(company_id=OuterRef("company_id"))
        .order_by()
        .values("company_id")
        .annotate(count=Count("pk"))
        .values("count")
    )
    return leads.annotate(company_contacts=Subquery(colleagues[:1]))


def _contacts_label(count: int | None, known: dict[int, str]) -> str:
    """ "3 contacts" for a company with several, once per distinct count on the page."""
    if not count or count < 2:
        return ""
    if count not in known:
        known[count] = ngettext("%(count)s contact", "%(count)s contacts", count) % {"count": count}
    return known[count]


def lead_rows(
    leads: list[Lead], policy: ContactPolicy, email_problems: tuple[str, ...]
) -> list[dict]:
    """One dict per lead (read `with_stalled`) with what its row shows (readiness: one
    query for the page, the suppression list)."""
    ready = readiness_many(leads, policy=policy)
    stage_labels = {value: str(label) for value, label in Stage.choices}
    priority_labels = {value: str(label) for value, label in Priority.choices}
    email_labels = {value: str(label) for value, label in Lead.EmailStatus.choices}
    lead_url, inbox_url = pk_url("outreach:lead"), pk_url("outreach:inbox_thread")
    company_url = pk_url("outreach:company")
    contact_labels: dict[int, str] = {}
    badges = _Badges()
    dates = Dates()
    rows = []
    for lead in leads:
        try:
            journey: Journey | None = lead.journey
        except Journey.DoesNotExist:
            journey = None
        readiness: Readiness | None = ready.get(lead.pk)
        row = {
            "pk": lead.pk,
            "name": lead.name,
            "url": lead_url(lead.pk),
            "inbox_url": inbox_url(lead.pk),
            "company_url": company_url(lead.company_id),
            # Annotated by with_contacts (a page read without it shows none).
            "contacts": _contacts_label(getattr(lead, "company_contacts", 0), contact_labels),
            "cui": lead.cui or DASH,
            "county": lead.county or DASH,
            "contact": lead.contact_name or DASH,
            "email": lead.email,
            "email_problem": (
                email_labels.get(lead.email_status, lead.email_status)
                if lead.email_status in email_problems
                else ""
            ),
            "phone": lead.phone or DASH,
            "contactable": "true" if readiness and readiness.contactable else "false",
            "whatsapp": badges(readiness.whatsapp) if readiness else None,
            "email_ready": badges(readiness.email) if readiness else None,
            # Annotated by with_stalled.
            "stalled": _stalled_line(
                lead.stalled_since,  # type: ignore[attr-defined]
                lead.stalled_reason,  # type: ignore[attr-defined]
                dates,
            ),
            "journey": journey is not None,
            "stage": "",
            "opted_out": False,
            "assigned_phone": DASH,
            "last_contact": DASH,
            "priority": "",
            "priority_css": "",
        }
        if journey is not None:
            phone = journey.assigned_phone
            row["stage"] = stage_labels.get(journey.stage, journey.stage)
            row["opted_out"] = journey.whatsapp_opted_out or journey.email_opted_out
            row["assigned_phone"] = (phone.number if phone else "") or DASH
            row["last_contact"] = dates.short_datetime(journey.last_contact_at) or DASH
            if journey.requires_human_review:
                row["priority"] = priority_labels.get(journey.review_priority, "")
                row["priority_css"] = f"prio-{journey.review_priority.lower()}"
        rows.append(row)
    return rows


def _stalled_line(since: datetime | None, reason: str | None, dates: Dates) -> SafeString | str:
    """The line "Stalled since <day>: <reason>" for a lead whose sequence waits on something."""
    if since is None:
        return ""
    line = blocktranslate(
        gettext_noop("Stalled since %(since)s"), since=dates.format(since, "SHORT_DATE_FORMAT")
    )
    return line + ": " + conditional_escape(reasons.render(reason or ""))


def lead_rows_html(
    leads: list[Lead], policy: ContactPolicy, email_problems: tuple[str, ...]
) -> SafeString:
    """The list's rows, printed by the compiled rows template."""
    words = {
        "select": gettext("Select"),
        "open_in_inbox": gettext("Open in inbox"),
        "opted_out": gettext("opted out"),
    }
    return render_rows(
        "outreach/_lead_rows.jinja", rows=lead_rows(leads, policy, email_problems), words=words
    )
