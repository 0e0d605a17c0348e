"""Meta Lead Ads: a form submitted on Facebook or Instagram becomes a lead within minutes.

The webhook brings ids only (`leadgen_id`, page, form). The notification is stored once per
`leadgen_id` (LeadAd; Meta retries for up to 36 hours), answered at once, and an actor
fetches the lead from the Graph API with the page's token, then:

1. maps the form's answers by the form's field map (LeadForm): the phone to E.164, the
   address checked, the CUI when the form asks for one; a submission without a usable
   phone or address, or without a required CUI, is refused with the reason;
2. creates the lead as any other entry does (outreach.lead_entry: the same checks, the same
   duplicate rule as the import; a person we have already is matched, not doubled);
3. records the form's consent as the lawful basis for both channels (source Lead Ads, the
   form's consent text as the evidence, the submission's time);
4. the lead-created rules (outreach.lead_rules) take it, as a person who asked to be
   contacted when the form is set so (create_lead hands every new lead to them).

Every outcome is on the LeadAd row (the Lead Ads page lists them): created, matched,
refused and why, or failed after the retry table gave up (an alert then).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq import retry
from cerniq.models import Tenant
from cerniq.phone_numbers import NotAPhoneNumber, to_e164
from cerniq.provider_errors import ProviderError
from cerniq.provider_http import ProviderHTTP
from integrations.meta import config, errors, schemas
from integrations.meta.cloud import API_VERSION, GRAPH
from integrations.meta.models import LeadAd, LeadForm
from outreach import lawful_basis
from outreach.lead_entry import DuplicateLead, LeadInvalid, create_or_join
from outreach.models import Lead
from outreach.privacy_models import ContactBasis

log = logging.getLogger(__name__)

LEAD_FIELDS = "created_time,field_data,form_id,ad_id,adset_id,campaign_id,is_organic,platform"
MAPPED = ("name", "contact_name", "phone", "email", "cui", "county", "locality")
MAX_ATTEMPTS = 8


@dataclass(frozen=True)
class Fetched:
    retry_in_seconds: int | None = None  # set when the actor must try again later


def notified(tenant: Tenant, notice: schemas.Leadgen) -> LeadAd | None:
    """Store a notification once; the fetch runs after the commit. None for a repeat."""
    created_time = (
        datetime.fromtimestamp(notice.created_time, tz=UTC) if notice.created_time else None
    )
    try:
        with transaction.atomic():
            row = LeadAd.objects.create(
                tenant=tenant,
                leadgen_id=notice.leadgen_id,
                page_id=notice.page_id,
                form_id=notice.form_id,
                ad_id=notice.ad_id or notice.adgroup_id or "",
                created_time=created_time,
            )
    except IntegrityError:
        log.info("Lead Ads lead %s notified again: already stored", notice.leadgen_id)
        return None
    from integrations.meta.tasks import fetch_lead_ad

    transaction.on_commit(lambda: fetch_lead_ad.send(row.pk))
    return row


def graph(page_token: str) -> ProviderHTTP:
    return ProviderHTTP(
        "Meta Graph API",
        f"{config.graph_base() or GRAPH}/{config.graph_version() or API_VERSION}",
        headers={"Authorization": f"Bearer {page_token}"},
    )


def fetch_answers(row: LeadAd, page_token: str) -> schemas.FetchedLead:
    """`GET /{leadgen_id}?fields=…` with the page's token."""
    http = graph(page_token)
    answer = http.request("GET", f"/{row.leadgen_id}", params=[("fields", LEAD_FIELDS)])
    if not answer.ok:
        raise errors.answer_error(http, answer)
    if answer.payload is None:
        raise http.unexpected(answer, "not a JSON object")
    return schemas.validate(schemas.FetchedLead, answer.payload, "leadgen")


def process(row_id: int) -> Fetched:
    """Fetch a notified lead and make it ours (the module's steps). Idempotent: a row that
    is not NOTIFIED any more is left as it is."""
    row = LeadAd.objects.select_related("tenant").filter(pk=row_id).first()
    if row is None or row.status != LeadAd.Status.NOTIFIED:
        return Fetched()
    form = LeadForm.objects.filter(tenant=row.tenant, form_id=row.form_id, is_enabled=True).first()
    if form is None:
        _finish(
            row,
            LeadAd.Status.REFUSED,
            _("Form %(form)s is not set up for this workspace: add it on Settings → Lead Ads.")
            % {"form": row.form_id},
        )
        return Fetched()
    token = config.page_tokens().get(row.page_id)
    if not token:
        _finish(
            row,
            LeadAd.Status.FAILED,
            _("No page token for page %(page)s (META_PAGE_TOKENS): the lead cannot be read.")
            % {"page": row.page_id},
        )
        return Fetched()
    LeadAd.objects.filter(pk=row.pk).update(attempts=row.attempts + 1)
    row.attempts += 1
    try:
        fetched = fetch_answers(row, token)
    except ProviderError as error:
        decision = retry.decide(error, row.attempts)
        if decision.retry_in is None or row.attempts >= MAX_ATTEMPTS:
            _finish(row, LeadAd.Status.FAILED, str(error))
            return Fetched()
        LeadAd.objects.filter(pk=row.pk).update(reason=str(error)[:500])
        return Fetched(int(decision.retry_in.total_seconds()))
    except Exception as error:  # a malformed answer: never retried into a loop
        _finish(row, LeadAd.Status.FAILED, str(error))
        return Fetched()
    answers = {item.name: item.values[0] if item.values else "" for item in fetched.field_data}
    LeadAd.objects.filter(pk=row.pk).update(answers=answers, fetched_at=timezone.now())
    row.answers = answers
    make_lead(row, form, answers)
    return Fetched()


def mapped_values(form: LeadForm, answers: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """Our lead's fields from the form's answers, and the problems found."""
    field_map = form.field_map if isinstance(form.field_map, dict) else {}
    values: dict[str, Any] = {}
    for ours in MAPPED:
        question = field_map.get(ours, ours if ours in answers else "")
        value = str(answers.get(question, "") or "").strip()
        if value:
            values[ours] = value
    problems = []
    if values.get("phone"):
        try:
            values["phone"] = to_e164(values["phone"])
        except NotAPhoneNumber:
            problems.append(_("the phone %(value)s is not a number") % {"value": values["phone"]})
            values.pop("phone")
    if form.requires_cui and not values.get("cui"):
        problems.append(_("the form asks for a CUI and none was given"))
    if not values.get("name"):
        values["name"] = values.get("contact_name") or _("Lead Ads: %(form)s") % {
            "form": form.name or form.form_id
        }
    return values, problems


def make_lead(row: LeadAd, form: LeadForm, answers: dict[str, str]) -> None:
    """The lead and its consent in one transaction: what the rules start after it commits
    (a first message dispatched at once) already finds the lawful basis recorded."""
    values, problems = mapped_values(form, answers)
    if form.requires_cui and not values.get("cui"):
        _finish(row, LeadAd.Status.REFUSED, "; ".join(problems))
        return
    with transaction.atomic():
        _make_lead(row, form, values, problems)


def _make_lead(row: LeadAd, form: LeadForm, values: dict[str, Any], problems: list[str]) -> None:
    status = LeadAd.Status.CREATED
    try:
        lead = create_or_join(  # a known firm's new person becomes its contact
            row.tenant,
            values,
            source="lead_ads",
            form_id=form.form_id,
            requested_contact=form.asks_for_contact,
        )
    except DuplicateLead as duplicate:
        lead = Lead.objects.get(pk=duplicate.lead_id)
        status = LeadAd.Status.MERGED
    except LeadInvalid as invalid:
        refused = "; ".join([*problems, str(invalid)])
        _finish(row, LeadAd.Status.REFUSED, refused)
        return
    _record_consent(lead, row, form)
    note = "; ".join(problems)
    _finish(row, status, note, lead=lead)


def _record_consent(lead: Lead, row: LeadAd, form: LeadForm) -> None:
    evidence = form.consent_text.strip() or _(
        "Submitted Meta Lead Ads form %(form)s, asking to be contacted."
    ) % {"form": form.name or form.form_id}
    try:
        lawful_basis.record(
            lead,
            channels=["whatsapp", "email"],
            basis=ContactBasis.Basis.CONSENT,
            source=ContactBasis.Source.LEAD_ADS,
            detail=f"form {form.form_id}, lead {row.leadgen_id}",
            evidence=evidence[: lawful_basis.EVIDENCE_MAX],
            given_at=row.created_time,
        )
    except lawful_basis.BasisRefused as refused:
        log.info("Lead Ads lead %s: basis not recorded: %s", row.leadgen_id, refused)


def _finish(row: LeadAd, status: str, reason: str, *, lead: Lead | None = None) -> None:
    fields: dict[str, Any] = {"status": status, "reason": reason[:500]}
    if lead is not None:
        fields["lead"] = lead
    LeadAd.objects.filter(pk=row.pk).update(**fields)
    if status == LeadAd.Status.FAILED:
        from cerniq.alerts import raise_alert
        from cerniq.models import Alert

        raise_alert(
            row.tenant,
            Alert.Kind.WEBHOOK_FAILURE,
            f"Lead Ads lead {row.leadgen_id}",
            _("A Lead Ads lead could not be read: %(reason)s") % {"reason": reason[:300]},
        )


def waiting(older_than_minutes: int = 5, limit: int = 200) -> list[int]:
    """Notified rows nobody fetched for a while (their message was lost): fetch them."""
    before = timezone.now() - timedelta(minutes=older_than_minutes)
    return list(
        LeadAd.objects.filter(status=LeadAd.Status.NOTIFIED, received_at__lt=before)
        .order_by("received_at")
        .values_list("pk", flat=True)[:limit]
    )
