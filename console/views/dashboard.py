"""The dashboard: today's and the week's numbers, the phones' quota grid, recent activity.

Every figure comes from a fixed number of aggregate queries, whatever the number of
phones or messages; the stats block is also served alone for htmx polling.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_GET

from cerniq.templatetags.numbers import num
from cerniq.tenancy import TenantScope, scope_for
from console.rows import Dates, render_rows
from console.views.lead_rows import pk_url
from hitl.response_times import waiting_longest
from hitl.review import review_stats
from outreach.analytics import local_day_bounds, message_stats
from outreach.analytics.reach import reach
from outreach.models import Message
from outreach.next_send import NextSend, phone_answers
from outreach.templatetags.sending_window import next_send
from whatsapp import quota
from whatsapp.models import Phone

RECENT_ACTIVITY = 15

# Model choice labels the templates translate at run time ({% translate value %}); listed
# here so that makemessages keeps them in the catalogue.
CHOICE_LABELS = (
    gettext_noop("WhatsApp"),
    gettext_noop("Cold email"),
    gettext_noop("Warm email"),
    gettext_noop("Urgent"),
    gettext_noop("High"),
    gettext_noop("Medium"),
    gettext_noop("Low"),
    gettext_noop("Queued"),
    gettext_noop("Sending"),
    gettext_noop("Sent"),
    gettext_noop("Delivered"),
    gettext_noop("Read"),
    gettext_noop("Failed"),
    gettext_noop("Bounced"),
    gettext_noop("Cancelled"),
    gettext_noop("Dead letter"),
    gettext_noop("Received"),
)


@dataclass(frozen=True)
class PhoneRow:
    phone: Phone
    used: int
    limit: int
    colour: str
    status_label: str
    next_send: NextSend  # when it may send next and why not now (outreach.next_send)
    usable: bool  # active and enabled: it will send
    why: quota.DayLimit | None = None  # what set today's limit (warm-up, throttle)

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.used / self.limit)) if self.limit else 100


def phone_colour(phone: Phone, used: int, limit: int) -> tuple[str, str]:
    """A status colour class and a short label for a phone card or grid cell."""
    if not phone.is_enabled:
        return "muted", _("Disabled")
    if phone.status == Phone.Status.BANNED:
        return "bad", _("Banned")
    if phone.status == Phone.Status.OFFLINE:
        return "bad", _("Offline")
    if phone.status == Phone.Status.PAUSED:
        if phone.health == Phone.Health.PAUSED:
            return "warn", _("Paused by the health guard")
        return "warn", _("Paused")
    if phone.new_contacts_paused:  # a restriction sign (outreach.restriction_signs)
        return "warn", _("No new chats for now")
    if limit and used >= limit:
        return "warn", _("Quota full")
    if phone.health == Phone.Health.THROTTLED:
        return "warn", _("Throttled")
    return "ok", _("Active")


def phone_rows(scope: TenantScope, today: date, now: datetime) -> list[PhoneRow]:
    """All the tenant's phones with today's quota and next send: two queries."""
    phones = list(scope.queryset(Phone).order_by("number"))
    statuses = quota.status_many(phones, today)
    answers = phone_answers(scope.tenant, phones, now)
    rows = []
    for phone in phones:
        st = statuses[phone.pk]
        colour, label = phone_colour(phone, st.used, st.limit)
        rows.append(
            PhoneRow(
                phone, st.used, st.limit, colour, label, answers[phone.pk], phone.is_usable, st.why
            )
        )
    return rows


def quota_cells(rows: list[PhoneRow], today: date) -> SafeString:
    """The quota grid's cells, printed by the compiled rows template (console.rows); the
    next send on `today` (the tenant's date) as its time alone."""
    dates = Dates()
    cells = [
        {
            "number": row.phone.number,
            "colour": row.colour,
            "status_label": row.status_label,
            "used": row.used,
            "limit": row.limit,
            "used_text": num(row.used),
            "limit_text": num(row.limit),
            "percent": row.percent,
            "last_sent": dates.format(row.phone.last_sent_at, "TIME_FORMAT") or "—",
            "next_send": next_send(row.next_send, today),
        }
        for row in rows
    ]
    words = {"last_send": _("Last send")}
    return render_rows("outreach/_quota_cells.jinja", cells=cells, words=words)


def activity_rows(recent: list[Message]) -> SafeString:
    """The recent activity's rows, printed by the compiled rows template: each distinct
    channel and status label translated once, the inbox link reversed once."""
    inbox_url = pk_url("outreach:inbox_thread")
    dates = Dates()
    labels: dict[str, str] = {}

    def label(text: str) -> str:  # a choice's label, in the reader's language
        if text not in labels:
            labels[text] = _(text)
        return labels[text]

    rows = [
        {
            "when": dates.short_datetime(m.created_at),
            "inbound": m.direction == Message.Direction.INBOUND,
            "channel": label(str(m.get_channel_display())),
            "lead": m.lead.name if m.lead else None,
            "inbox_url": inbox_url(m.lead.pk) if m.lead else "",
            "counterpart": m.counterpart,
            "phone": m.phone.number if m.phone else "—",
            "status_css": f"s-{m.status.lower()}",
            "status": label(str(m.get_status_display())),
        }
        for m in recent
    ]
    words = {
        "inbound": _("Inbound"),
        "outbound": _("Outbound"),
        "open_in_inbox": _("Open in inbox"),
    }
    return render_rows("outreach/_recent_activity.jinja", rows=rows, words=words)


def dashboard_context(request: HttpRequest) -> dict:
    scope = scope_for(request)
    now = timezone.now()
    today, today_start, week_start = local_day_bounds(scope.tenant, now)
    recent = list(
        scope.queryset(Message)
        .select_related("lead", "phone")
        .only(
            "channel",
            "direction",
            "status",
            "quota_cost",
            "is_manual",
            "created_at",
            "sent_at",
            "lead__name",
            "phone__number",
            "phone__label",
            "counterpart",
        )
        .order_by("-created_at", "-pk")[:RECENT_ACTIVITY]
    )
    return {
        "today": today,
        "now": now,
        **message_stats(scope.tenant, today_start, week_start),
        "review": review_stats(scope.tenant, now),
        "reach": reach(scope.tenant),
        "phones_html": quota_cells(phone_rows(scope, today, now), today),
        "recent_html": activity_rows(recent),
        # Replies waiting longest for a person (hitl.response_times): one query.
        "waiting_replies": waiting_longest(scope.tenant, now),
    }


@login_required
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(request, "outreach/dashboard.html", dashboard_context(request))


@require_GET
def dashboard_partial(request: HttpRequest) -> HttpResponse:
    """The stats block alone, for htmx polling.

    A poll after the session ended must not swap the login page into the dashboard: htmx
    gets an HX-Redirect to the login page instead; other clients get the usual redirect.
    """
    if not request.user.is_authenticated:
        if request.headers.get("HX-Request") == "true":
            response = HttpResponse(status=204)
            response["HX-Redirect"] = f"{settings.LOGIN_URL}?next={reverse('outreach:dashboard')}"
            return response
        return redirect_to_login(request.get_full_path())
    return render(request, "outreach/_dashboard_stats.html", dashboard_context(request))
