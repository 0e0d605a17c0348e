"""The do-not-contact list (/outreach/settings/do-not-contact/): its entries (phone numbers,
email addresses, email domains, companies by CUI), what each blocks now, who took entries
off and why. Every member sees the list and downloads it as CSV; the workspace's admins add,
import and take off entries, as they change its other settings. outreach.suppression_list
holds every rule (what a valid entry is, which entries a person may take off, the CSV
layouts); this module shows its answers."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import F
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from cerniq.formats import shown
from cerniq.params import parse_page, text_param
from cerniq.tenancy import AuthenticatedHttpRequest, TenantScope, scope_for
from console.searches import SEARCH_KEY, recall, remember
from console.views.alerts import is_channel_admin
from outreach import suppression_list as dnc
from outreach.models import Suppression
from outreach.optout_manual import MIN_REASON

Kind = Suppression.Kind
PER_PAGE = 50
RECENT_REMOVALS = 20
LIST_KEYS = ("kind", SEARCH_KEY)  # what the page's own links carry

# What an entry of each kind stops (outreach.suppression and outreach.readiness decide it).
BLOCKS = {
    Kind.PHONE: gettext_lazy("WhatsApp messages to this number."),
    Kind.EMAIL: gettext_lazy("Email to this address."),
    Kind.DOMAIN: gettext_lazy("Email to any address at this domain."),
    Kind.CUI: gettext_lazy("WhatsApp and email to the company's leads."),
    Kind.ERASED: gettext_lazy(
        "Everything to an erased person's number or address, and their return by import."
    ),
}
ADDED = {
    Kind.PHONE: gettext_lazy(
        "%(value)s is on the do-not-contact list: no WhatsApp message goes to this number."
    ),
    Kind.EMAIL: gettext_lazy(
        "%(value)s is on the do-not-contact list: no email goes to this address."
    ),
    Kind.DOMAIN: gettext_lazy(
        "%(value)s is on the do-not-contact list: no email goes to any address at this domain."
    ),
    Kind.CUI: gettext_lazy(
        "%(value)s is on the do-not-contact list: neither WhatsApp nor email reaches the "
        "company's leads."
    ),
}


class EntryForm(forms.Form):
    """The fields as typed; outreach.suppression_list.add_entry says what is wrong."""

    kind = forms.ChoiceField(
        label=gettext_lazy("Kind"), choices=[(k.value, k.label) for k in Suppression.ADDABLE_KINDS]
    )
    value = forms.CharField(
        label=gettext_lazy("Value"),
        max_length=254,
        required=False,
        widget=forms.TextInput(attrs={"required": True, "autocomplete": "off"}),
        help_text=gettext_lazy(
            "As people write it: 0722 123 456, ana@ferma.ro, ferma.ro, RO 22732040."
        ),
    )
    reason = forms.CharField(
        label=gettext_lazy("Why"),
        max_length=255,
        required=False,
        widget=forms.TextInput(attrs={"required": True}),
        help_text=gettext_lazy("Kept with the entry, for your colleagues."),
    )


def _may_change(request: AuthenticatedHttpRequest, scope: TenantScope) -> bool:
    return is_channel_admin(request, scope)


def _admin_scope(request: AuthenticatedHttpRequest) -> TenantScope:
    scope = scope_for(request)
    if not _may_change(request, scope):
        raise PermissionDenied(
            _("Only the workspace's admins add, import or take off do-not-contact entries.")
        )
    return scope


def _list_url(query: QueryDict | None = None) -> str:
    url = reverse("outreach:suppressions")
    return f"{url}?{query.urlencode()}" if query else url


def _filters(request: AuthenticatedHttpRequest, params: QueryDict) -> tuple[str, str, QueryDict]:
    """(kind, search text, the query the page's own links carry): a ?q= is kept in the
    session and the links carry its key, so a searched number stays out of URLs."""
    kind = params.get("kind", "")
    kind = kind if kind in Kind.values else ""
    q = text_param(params, "q")
    key = text_param(params, SEARCH_KEY)
    if not q and key:
        q = recall(request, key) or ""
    links = QueryDict(mutable=True)
    if kind:
        links["kind"] = kind
    if q:
        links[SEARCH_KEY] = remember(request, q)
    return kind, q, links


def _returned(raw: str) -> QueryDict:
    """The list's own query posted back by a form, without anything else it may carry."""
    given = QueryDict(raw[:500])
    kept = QueryDict(mutable=True)
    for name in (*LIST_KEYS, "page"):
        if value := given.get(name):
            kept[name] = value
    return kept


def _page_context(
    request: AuthenticatedHttpRequest, scope: TenantScope, params: QueryDict, **extra: object
) -> dict:
    tenant = scope.tenant
    kind, q, links = _filters(request, params)
    found = dnc.entries(tenant, kind=kind, q=q).annotate(source_lead=F("source_message__lead_id"))
    page = Paginator(found, PER_PAGE).get_page(parse_page(params.get("page")))
    rows = list(page.object_list)
    blocked = dnc.blocked_counts(tenant, rows)  # one count for the page, whatever its rows
    for entry in rows:
        entry.kind_label = Kind(entry.kind).label
        entry.blocked = blocked.get(entry.pk, 0)
        # What the leads list's search finds the entry's leads by ("@ferma.ro": an address
        # at the domain, not a company named Ferma).
        entry.lead_search = f"@{entry.value}" if entry.kind == Kind.DOMAIN else entry.value
    here = links.copy()
    if page.number > 1:
        here["page"] = str(page.number)
    context = {
        "settings_tab": "do_not_contact",
        "page": page,
        "entries": rows,
        "kind": kind,
        "q": q,
        "kinds": Kind.choices,
        "filtered": bool(kind or q),
        "links": links.urlencode(),
        "return_query": here.urlencode(),
        "may_change": _may_change(request, scope),
        "form": EntryForm(initial={"kind": Kind.PHONE}),
        "blocks": [(Kind(k).label, BLOCKS[Kind(k)]) for k in Kind.values],
        "min_reason": MIN_REASON,
        "max_removal_reason": dnc.MAX_REMOVAL_REASON,
        "max_csv_mb": dnc.MAX_CSV_BYTES >> 20,
        "removals": dnc.removals(tenant)[:RECENT_REMOVALS],
    }
    context.update(extra)
    return context


def _render(
    request: AuthenticatedHttpRequest,
    scope: TenantScope,
    params: QueryDict,
    *,
    status: int = 200,
    **extra: object,
) -> HttpResponse:
    context = _page_context(request, scope, params, **extra)
    return render(request, "outreach/suppressions.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def suppression_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    if request.method == "POST":  # the search form: back here by GET, the text as a key
        _kind, _q, links = _filters(request, request.POST)
        return redirect(_list_url(links))
    return _render(request, scope_for(request), request.GET)


@login_required
@require_POST
def suppression_add(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = _admin_scope(request)
    params = _returned(request.POST.get("return_query", ""))
    form = EntryForm(request.POST)
    if form.is_valid():
        try:
            entry, created = dnc.add_entry(
                scope.tenant,
                kind=form.cleaned_data["kind"],
                value=form.cleaned_data["value"],
                reason=form.cleaned_data["reason"],
                source=Suppression.Source.MANUAL,
                user=request.user,
            )
        except dnc.EntryInvalid as invalid:
            form.add_error(invalid.field if invalid.field in form.fields else None, str(invalid))
        else:
            _say_added(request, entry, created)
            return redirect(_list_url())
    messages.error(request, _("Nothing was added: correct the fields marked below."))
    return _render(request, scope, params, status=400, form=form)


def _say_added(request: AuthenticatedHttpRequest, entry: Suppression, created: bool) -> None:
    if created:
        messages.success(request, ADDED[Kind(entry.kind)] % {"value": entry.value})
        return
    messages.info(
        request,
        _("%(value)s was already on the list (since %(since)s); nothing changed.")
        % {"value": entry.value, "since": shown(entry.created_at, "SHORT_DATE_FORMAT")},
    )


@login_required
@require_POST
def suppression_remove(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    scope = _admin_scope(request)
    entry = scope.get_or_404(Suppression, pk=pk)
    params = _returned(request.POST.get("return_query", ""))
    reason = request.POST.get("reason", "")
    try:
        dnc.remove_entry(entry, user=request.user, reason=reason)
    except dnc.RemovalRefused as refused:
        if not refused.field:  # the entry's own state: a reason would not change it
            messages.error(request, str(refused))
            return redirect(_list_url(params))
        messages.error(request, _("Nothing was taken off the list: say why, below."))
        removal_error = {"pk": entry.pk, "message": str(refused), "reason": reason}
        return _render(request, scope, params, status=400, removal_error=removal_error)
    messages.success(
        request,
        _("%(value)s is off the do-not-contact list; who took it off and why is kept below.")
        % {"value": entry.value},
    )
    return redirect(_list_url(params))


@login_required
@require_POST
def suppression_import(request: AuthenticatedHttpRequest) -> HttpResponse:
    scope = _admin_scope(request)
    params = _returned(request.POST.get("return_query", ""))
    upload = request.FILES.get("file")
    if upload is None:
        errors = [(0, _("Choose a CSV file to import."))]
        return _render(request, scope, params, status=400, import_errors=errors)
    # One byte past the limit is enough for the service to refuse the file as too large.
    data = upload.read(dnc.MAX_CSV_BYTES + 1)
    try:
        result = dnc.import_csv(
            scope.tenant, data, user=request.user, source=Suppression.Source.IMPORT
        )
    except dnc.CsvInvalid as invalid:
        messages.error(request, _("%(file)s was not imported; nothing was added.") % _named(upload))
        return _render(
            request,
            scope,
            params,
            status=400,
            import_errors=invalid.errors,
            import_name=upload.name,
        )
    _say_imported(request, _named(upload), result)
    return redirect(_list_url())


def _say_imported(
    request: AuthenticatedHttpRequest, named: dict[str, str], result: dnc.CsvImported
) -> None:
    if not result.lines:
        messages.warning(request, _("%(file)s holds no entries; nothing was added.") % named)
        return
    added = ngettext("%(n)s entry added", "%(n)s entries added", result.added)
    already = ngettext(
        "%(n)s was already on the list", "%(n)s were already on the list", result.already
    )
    messages.success(
        request,
        _("%(file)s imported: %(added)s, %(already)s.")
        % {
            **named,
            "added": added % {"n": result.added},
            "already": already % {"n": result.already},
        },
    )


def _named(upload) -> dict[str, str]:  # noqa: ANN001 - an UploadedFile
    return {"file": upload.name or _("The file")}


@login_required
@require_GET
def suppression_export(request: AuthenticatedHttpRequest) -> HttpResponse:
    tenant = scope_for(request).tenant
    day = timezone.localdate(timezone.now(), ZoneInfo(tenant.time_zone))  # the tenant's day
    response = HttpResponse(dnc.export_csv(tenant), content_type="text/csv; charset=utf-8")
    name = f"do-not-contact-{tenant.slug}-{day.isoformat()}.csv"  # a slug: nothing to quote
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
