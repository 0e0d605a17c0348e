"""The leads list: filters, search, sorting, pagination and bulk actions (import: lead_import)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db import models
from django.db.models import F, QuerySet
from django.http import HttpResponse, QueryDict
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from cerniq import reasons
from cerniq.params import parse_id, parse_ids, text_param
from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, scope_for
from console.searches import SEARCH_KEY, recall, remember
from console.views import lead_order
from console.views.lead_controls import bulk_html, filters_html, sort_head_html
from console.views.lead_rows import lead_rows_html, with_contacts, with_stalled
from outreach import optout_manual, sequences, stages
from outreach.lead_filters import count_from_journeys, filter_leads
from outreach.models import (
    Journey,
    Lead,
    Sequence,
)
from outreach.readiness import ContactPolicy
from outreach.reasons import STAGE_PAUSED_BY_OPERATOR, STAGE_RESUMED_BY_OPERATOR
from whatsapp.models import Phone

PER_PAGE = 50
# The columns a row prints or its readiness reads (console/views/lead_rows.py,
# outreach.readiness): loading whole leads, journeys and phones decoded ~600 values a page
# for nothing. A field missing here would cost a query per row (the query-count tests).
ROW_FIELDS = (
    *("tenant_id", "company_id", "name", "cui", "county", "contact_name", "phone"),
    "phone_reachable",
    *("email", "email_status"),
    *("journey__lead_id", "journey__stage", "journey__last_contact_at"),
    *("journey__whatsapp_opted_out", "journey__email_opted_out", "journey__taken_over_by_id"),
    *("journey__requires_human_review", "journey__review_priority"),
    *("journey__assigned_phone_id", "journey__assigned_phone__number"),
)
FETCH_ALL_IDS = 2000  # a result this small: read all its ids, cut the page in Python

# ?sort=<key> or ?sort=-<key>; anything else falls back to the default order.
SORTS = {
    "name": "name",
    "cui": "cui",
    "county": "county",
    "contact": "contact_name",
    "stage": "journey__stage",
    "phone": "journey__assigned_phone__number",
    "last_contact": "journey__last_contact_at",
    "created": "created_at",
}
DEFAULT_SORT = "name"

# Filters read from the query string (all optional).
FILTER_KEYS = (
    "q",
    "stage",
    "county",
    "channel",
    "phone",
    "sequence",
    "review",
    "opted_out",
    "email_status",
    "contactable",
    "stalled",
    "company",
)

# Email statuses shown as a badge in the list: the address cannot be written to.
EMAIL_PROBLEMS = (
    Lead.EmailStatus.INVALID,
    Lead.EmailStatus.BOUNCED,
    Lead.EmailStatus.UNSUBSCRIBED,
    Lead.EmailStatus.COMPLAINED,
)

# The search box takes phone numbers and emails, which must not sit in URLs: the filter form
# is POSTed and the URL carries ?s=<opaque key> in its place (console.searches). A ?q= link
# still works, but the page's own links (pages, sorting, back from bulk actions) carry the key.


def filtered_leads(scope: TenantScope, params) -> QuerySet[Lead]:
    """The tenant's leads narrowed by the GET filters and the search box."""
    qs = scope.queryset(Lead).select_related(
        "journey", "journey__assigned_phone", "journey__current_sequence"
    )
    return filter_leads(qs, params)


def _sort(params) -> tuple[str, list]:
    """Order for ?sort=; leads with no value (never contacted, no phone) come last either
    way, as on SQLite, where PostgreSQL would put them first when descending."""
    raw = params.get("sort") or DEFAULT_SORT
    key = raw.removeprefix("-")
    if key not in SORTS:
        raw, key = DEFAULT_SORT, DEFAULT_SORT
    path = SORTS[key]
    field = F(path)
    # "NULLS LAST" only where a NULL can be: a column of a NOT NULL lead field with it
    # would not match its index's order, and PostgreSQL would sort every lead for a page
    # (a descending created_at sort, page 900: 30 ms instead of an index walk).
    nulls_last = True if _nullable(path) else None
    if raw.startswith("-"):
        return raw, [field.desc(nulls_last=nulls_last), F("pk").desc()]
    return raw, [field.asc(nulls_last=nulls_last), F("pk").asc()]


def _nullable(path: str) -> bool:
    """Whether the sort column can be NULL: a nullable lead field, or any column of a
    joined row (a lead without a journey has none)."""
    if "__" in path:
        return True
    field = Lead._meta.get_field(path)
    return not isinstance(field, models.Field) or field.null


class _WithJourneyFirst:
    """The ids of a list sorted by a journey column: leads with a journey in that order,
    then the (rare) leads without one, which have nothing to sort by.

    Asking for the two parts separately lets PostgreSQL walk the journey column's index
    through an inner join and stop after a page, instead of LEFT JOINing and sorting every
    lead. Sized by the cheap count of all the filtered leads; the journey part is counted
    only when a page reaches its end. `with_journey`, when given, is that first part read
    another way (console.views.lead_order: the whole list, from the journeys alone).
    """

    def __init__(
        self,
        leads: QuerySet[Lead],
        order: list,
        descending: bool,
        with_journey=None,
        total: int | None = None,
    ) -> None:
        self.total = leads.count if total is None else lambda: total
        ids = leads.values_list("pk", flat=True)
        if with_journey is None:
            with_journey = ids.filter(journey__isnull=False).order_by(*order)
        self.with_journey = with_journey
        self.without = ids.filter(journey__isnull=True).order_by("-pk" if descending else "pk")

    def count(self) -> int:
        return self.total()

    def __iter__(self):
        yield from self.with_journey
        yield from self.without

    def __getitem__(self, window: slice) -> list[int]:
        start, stop = window.start or 0, window.stop
        found = list(self.with_journey[start:stop])
        if len(found) < stop - start:
            first = self.with_journey.count()
            found += self.without[max(start - first, 0) : stop - first]
        return found


class _Counted:
    """A list's ids with their count known already (counted another way, more cheaply)."""

    def __init__(self, ids, total: int) -> None:
        self.ids, self.total = ids, total

    def count(self) -> int:
        return self.total

    def __iter__(self):
        return iter(self.ids)

    def __getitem__(self, window: slice):
        return self.ids[window]  # lazy, as the queryset's own slice: read only if used


def _ids(scope: TenantScope, params, sort: str, order: list):
    leads = filtered_leads(scope, params).select_related(None)
    key, descending = sort.removeprefix("-"), sort.startswith("-")
    total = count_from_journeys(scope.tenant.pk, params)
    if SORTS[key].startswith("journey__"):
        base = scope.queryset(Lead)
        whole = filter_leads(base, params) is base  # no filter: the tenant's whole list
        fast = {"stage": lead_order.by_stage, "phone": lead_order.ByPhone}.get(key)
        journeys = fast(scope.tenant.pk, descending) if whole and fast else None
        return _WithJourneyFirst(leads, order, descending, with_journey=journeys, total=total)
    ids = leads.order_by(*order).values_list("pk", flat=True)
    return ids if total is None else _Counted(ids, total)


def _page(scope: TenantScope, params, sort: str, order: list):
    """The requested page of leads, in two steps: the page's ids first (a narrow query the
    database can sort or walk an index for, however deep the page), then those rows with
    their journey, phone and sequence. Sorting whole joined rows was the slow part.

    When the filters leave few leads, all their ids are read and the page is cut here: with
    a LIMIT as small as the (known) count, PostgreSQL would rather walk an index in sort
    order, filtering as it goes, than use the search's trigram indexes — a bad bet when
    the matches are rare (a search for one email read every lead)."""
    ids = _ids(scope, params, sort, order)
    paginator = Paginator(ids, PER_PAGE)
    page = paginator.get_page(params.get("page"))
    if paginator.count <= FETCH_ALL_IDS:
        start = (page.number - 1) * PER_PAGE
        pks = list(ids)[start : start + PER_PAGE]
    else:
        pks = list(page.object_list)
    rows = scope.queryset(Lead).select_related("journey", "journey__assigned_phone")
    found = with_contacts(with_stalled(rows.only(*ROW_FIELDS))).in_bulk(pks) if pks else {}
    page.object_list = [found[pk] for pk in pks if pk in found]
    return page


def _params(request: AuthenticatedHttpRequest) -> tuple[QueryDict, QueryDict, bool]:
    """(the filters to apply, the query string for the page's own links, whether ?s= named
    a search this session does not know: another browser's, or an expired session's)."""
    params, links = request.GET.copy(), request.GET.copy()
    text = text_param(params, "q")
    key = params.pop(SEARCH_KEY, [None])[-1]
    links.pop("q", None)
    if text:
        links[SEARCH_KEY] = remember(request, text)
        return params, links, False
    if key:
        found = recall(request, key)
        if found is None:
            links.pop(SEARCH_KEY)
            return params, links, True
        params["q"] = found
    return params, links, False


def _search_url(request: AuthenticatedHttpRequest) -> str:
    """Where the POSTed filter form leads: its filled-in fields, the search as a key."""
    query = QueryDict(mutable=True)
    for name in (*FILTER_KEYS, "sort"):
        value = (request.POST.get(name) or "").strip()
        if not value:
            continue
        if name == "q":
            query[SEARCH_KEY] = remember(request, value)
        else:
            query[name] = value
    url = reverse("outreach:leads")
    return f"{url}?{query.urlencode()}" if query else url


def _context(request: AuthenticatedHttpRequest, scope: TenantScope) -> dict:
    params, links, expired = _params(request)
    if expired:
        messages.warning(request, _("This search has expired; search again."))
    sort, order = _sort(params)
    page = _page(scope, params, sort, order)
    kept = links.copy()
    kept.pop("page", None)
    without_sort = kept.copy()
    without_sort.pop("sort", None)
    # The filters' and the bulk actions' options: plain values, no model instances.
    sequences = list(scope.queryset(Sequence).order_by("name").values("pk", "name"))
    return {
        "page": page,
        "rows_html": lead_rows_html(
            page.object_list, ContactPolicy.of(scope.tenant), EMAIL_PROBLEMS
        ),
        "filters_html": filters_html(
            {key: params.get(key, "") for key in FILTER_KEYS},
            phones=scope.queryset(Phone).order_by("number").values("pk", "number"),
            sequences=sequences,
            sort=sort,
            csrf_token=get_token(request),
        ),
        "bulk_html": bulk_html(sequences),
        "sort_head_html": sort_head_html(sort, without_sort.urlencode()),
        "query_without_page": kept.urlencode(),
        "return_query": links.urlencode(),
    }


@login_required
@require_http_methods(["GET", "POST"])
def lead_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    if request.method == "POST":  # the filter form: back here by GET, no search in the URL
        return redirect(_search_url(request))
    scope = scope_for(request)
    return render(request, "outreach/leads.html", _context(request, scope))


def _selected(request: AuthenticatedHttpRequest, scope: TenantScope) -> QuerySet[Lead]:
    ids = parse_ids(request.POST.getlist("ids"))
    return scope.queryset(Lead).filter(pk__in=ids)


def _back(request: AuthenticatedHttpRequest) -> HttpResponse:
    query = request.POST.get("return_query", "")
    return redirect(f"/outreach/leads/?{query}" if query else "/outreach/leads/")


@login_required
@require_POST
def lead_bulk(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = scope_for(request)
    action = request.POST.get("action")
    leads = _selected(request, scope)
    if not leads.exists():
        messages.error(request, _("Select at least one lead."))
        return _back(request)
    if action == "enroll":
        sequence_id = parse_id(request.POST.get("sequence"))
        sequence = scope.queryset(Sequence).filter(pk=sequence_id).first() if sequence_id else None
        if sequence is None:
            messages.error(request, _("Choose a sequence to enroll the leads in."))
            return _back(request)
        try:
            result = sequences.enroll_many(leads, sequence)
        except sequences.EnrollmentError as refused:
            messages.error(request, str(refused))
            return _back(request)
        messages.success(
            request,
            _("%(n)d lead(s) enrolled in %(sequence)s.")
            % {"n": result.enrolled, "sequence": sequence.name},
        )
        _report_skips(request, result.skipped)
    elif action in ("pause", "resume"):
        done, skipped = 0, dict[str, int]()
        journeys = scope.queryset(Journey).filter(lead__in=leads).select_related("lead")
        for journey in journeys:
            try:
                if action == "pause":
                    paused = reasons.code(STAGE_PAUSED_BY_OPERATOR)
                    stages.pause(journey, reason=paused, by_user=request.user)
                else:
                    resumed = reasons.code(STAGE_RESUMED_BY_OPERATOR)
                    stages.resume(journey, reason=resumed, by_user=request.user)
                done += 1
            except stages.IllegalTransition as refused:
                skipped[str(refused)] = skipped.get(str(refused), 0) + 1
        if action == "pause":
            messages.success(request, _("%(n)d lead(s) paused.") % {"n": done})
        else:
            messages.success(request, _("%(n)d lead(s) resumed.") % {"n": done})
        _report_skips(request, skipped)
    elif action == "opt-out":
        _record_opt_outs(request, leads)
    else:
        messages.error(request, _("Unknown action."))
    return _back(request)


def _record_opt_outs(request: AuthenticatedHttpRequest, leads: QuerySet[Lead]) -> None:
    try:
        result = optout_manual.record_opt_outs(
            leads.order_by("pk"),
            user=request.user,
            channel=request.POST.get("opt_out_channel", ""),
            reason=request.POST.get("opt_out_reason", ""),
        )
    except optout_manual.OptOutRefused as refused:
        messages.error(request, str(refused))
        return
    messages.success(
        request,
        _("Opt-out recorded for %(done)d lead(s); %(already)d had already opted out.")
        % {"done": result.done, "already": result.already_out},
    )
    _report_skips(request, result.refused)


def _report_skips(request: AuthenticatedHttpRequest, skipped: dict[str, int]) -> None:
    if skipped:
        # Reasons are codes (or a refusal's text): shown in the reader's language.
        shown = sorted((reasons.render(reason), n) for reason, n in skipped.items())
        detail = "; ".join(f"{reason}: {n}" for reason, n in shown)
        messages.warning(request, _("Skipped — %(detail)s") % {"detail": detail})
