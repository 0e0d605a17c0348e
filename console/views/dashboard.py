"""The dashboard: today's and the week's numbers, the phones' quota grid, recent activity.

Every figure comes from a fixed number of aggregate queries, whatever the number of
phones or messages; the stats block is also served alone for htmx polling.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.db.models import BooleanField, Count, ExpressionWrapper, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_GET

from cerniq.models import Tenant
from cerniq.tenancy import TenantScope, scope_for
from hitl.models import ReviewItem
from outreach import quota
from outreach.analytics import FIRST_CONTACT, day_bounds, local_today, rate
from outreach.models import SENT_STATUSES, Channel, Message, Priority
from whatsapp.models import Phone

OPEN_REVIEW = (ReviewItem.Status.OPEN, ReviewItem.Status.ASSIGNED)
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
class Period:
    new_contacts: int
    followups: int
    replies: int


@dataclass(frozen=True)
class ChannelRate:
    channel: str
    label: str
    sent: int
    replies: int

    @property
    def rate(self) -> float | None:
        return rate(self.replies, self.sent)


@dataclass(frozen=True)
class PhoneRow:
    phone: Phone
    used: int
    limit: int
    colour: str
    status_label: str
    next_slot: datetime | None  # None: free now (if usable)
    usable: bool  # active and enabled: it will send

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.used / self.limit)) if self.limit else 100


def local_day_bounds(tenant: Tenant, now: datetime) -> tuple[date, datetime, datetime]:
    """The tenant's local day, its first instant, and the first instant of the 7-day window."""
    today = local_today(tenant, now)
    today_start = day_bounds(tenant, today)[0]
    week_start = day_bounds(tenant, today - timedelta(days=6))[0]
    return today, today_start, week_start


def _flag(condition: Q) -> ExpressionWrapper:
    return ExpressionWrapper(condition, output_field=BooleanField())


def message_stats(scope: TenantScope, today_start: datetime, week_start: datetime) -> dict:
    """Counts per channel for today and the week: two small grouped queries, added up here.

    Outbound: the week's sent messages (SENT/DELIVERED/READ by sent_at) grouped by channel,
    first contact or not (FIRST_CONTACT), manual or not, and today or not; a new contact is
    a first contact, a follow-up any other automated message. Inbound: the week's replies
    (by created_at) by channel and today or not. Both read a covering index only
    (message_tenant_sent_idx, message_tenant_dir_created_idx) and count `direction` (never
    null, in both indexes) so that no table row is fetched; grouping, rather than one
    FILTER per figure, evaluates each condition once per message.
    """
    messages = scope.queryset(Message).order_by()
    outbound = (
        messages.filter(
            direction=Message.Direction.OUTBOUND,
            status__in=SENT_STATUSES,
            sent_at__gte=week_start,
        )
        .annotate(first=_flag(FIRST_CONTACT), today=_flag(Q(sent_at__gte=today_start)))
        .values("channel", "first", "is_manual", "today")
        .annotate(n=Count("direction"))
    )
    inbound = (
        messages.filter(direction=Message.Direction.INBOUND, created_at__gte=week_start)
        .annotate(today=_flag(Q(created_at__gte=today_start)))
        .values("channel", "today")
        .annotate(n=Count("direction"))
    )
    by_channel: dict[str, Counter] = {}
    for row in outbound:
        counts = by_channel.setdefault(row["channel"], Counter())
        counts["sent_week"] += row["n"]
        if row["first"]:  # NULL (no step) is not a first contact
            kind = "new"
        elif not row["is_manual"]:
            kind = "fu"
        else:
            continue
        counts[f"{kind}_week"] += row["n"]
        if row["today"]:
            counts[f"{kind}_today"] += row["n"]
    for row in inbound:
        counts = by_channel.setdefault(row["channel"], Counter())
        counts["replies_week"] += row["n"]
        if row["today"]:
            counts["replies_today"] += row["n"]

    def total(key: str) -> int:
        return sum(row.get(key, 0) for row in by_channel.values())

    rates = [
        ChannelRate(
            channel=value,
            label=label,
            sent=by_channel.get(value, {}).get("sent_week", 0),
            replies=by_channel.get(value, {}).get("replies_week", 0),
        )
        for value, label in Channel.choices
    ]
    return {
        "today": Period(total("new_today"), total("fu_today"), total("replies_today")),
        "week": Period(total("new_week"), total("fu_week"), total("replies_week")),
        "rates": rates,
    }


def review_stats(scope: TenantScope, now: datetime) -> dict:
    """Open review items by priority and SLA breaches: one grouped query."""
    rows = (
        scope.queryset(ReviewItem)
        .filter(status__in=OPEN_REVIEW)
        .order_by()
        .values("priority")
        .annotate(open=Count("pk"), breached=Count("pk", filter=Q(sla_due_at__lt=now)))
    )
    found = {row["priority"]: row for row in rows}
    priorities = [
        {
            "value": value,
            "label": label,
            "open": found.get(value, {}).get("open", 0),
            "breached": found.get(value, {}).get("breached", 0),
        }
        for value, label in Priority.choices
    ]
    return {
        "priorities": priorities,
        "open_total": sum(p["open"] for p in priorities),
        "breached_total": sum(p["breached"] for p in priorities),
    }


def phone_colour(phone: Phone, used: int, limit: int) -> tuple[str, str]:
    """A status colour class and a short label for a phone card or grid cell."""
    if not phone.is_enabled:
        return "muted", _("Disabled")
    if phone.status == Phone.Status.BANNED:
        return "bad", _("Banned")
    if phone.status == Phone.Status.OFFLINE:
        return "bad", _("Offline")
    if phone.status == Phone.Status.PAUSED:
        return "warn", _("Paused")
    if limit and used >= limit:
        return "warn", _("Quota full")
    return "ok", _("Active")


def phone_rows(scope: TenantScope, today: date) -> list[PhoneRow]:
    """All the tenant's phones with today's quota: two queries."""
    phones = list(scope.queryset(Phone).order_by("number"))
    statuses = quota.status_many(
        [p.pk for p in phones], today, limits={p.pk: p.daily_limit for p in phones}
    )
    now = timezone.now()
    rows = []
    for phone in phones:
        st = statuses[phone.pk]
        colour, label = phone_colour(phone, st.used, st.limit)
        upcoming = phone.next_send_at if phone.next_send_at and phone.next_send_at > now else None
        usable = phone.is_usable
        rows.append(PhoneRow(phone, st.used, st.limit, colour, label, upcoming, usable))
    return rows


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
        **message_stats(scope, today_start, week_start),
        "review": review_stats(scope, now),
        "phones": phone_rows(scope, today),
        "recent": recent,
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
