"""Everything the product holds about one person (a lead), as one JSON document: the
data-subject access export (GDPR art. 15) from the lead page, the API and a command.

Each kind of row that names a person is a `Section`: the model and how to find the person's
rows. Outreach registers its own here (the lead, its journey and stage history, enrolments,
messages and their attachments, opt-out records, suppression entries naming its addresses,
the provider webhooks that carried them, the outbound webhooks about it); hitl registers
review items, triages, responses, notes and read state (hitl.person_data). A test walks
every model of the project and fails when one that names a person is in no section and not
declared as holding none (tests/outreach/test_person_data.py): a new table cannot be
forgotten. Rows are exported whole, every field as stored (provider ids, raw provider
requests and responses included); files are listed, not embedded.

Each section also says how an erasure blanks its rows (`scrub`, outreach.scrubbing): the
same walk, run after an erasure, finds nothing of the person left.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote_plus

import phonenumbers
from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import BinaryField, Lookup, Model, Q, QuerySet
from django.utils import timezone

from cerniq.models import Alert, WebhookDelivery, WebhookEvent
from outreach import companies, scrubbing
from outreach.company_models import Company
from outreach.models import (
    ContactBasis,
    Enrollment,
    Erasure,
    ImportJob,
    Journey,
    Lead,
    Message,
    MessageAttachment,
    OptOutLift,
    OptOutRecord,
    Propagation,
    RuleFiring,
    SequenceEvent,
    StageTransition,
    Suppression,
    SuppressionRemoval,
)
from outreach.past_messages import raw_response_blanked
from outreach.scrubbing import ERASED, Person, Scrub, blank, nothing, redact
from outreach.suppression import email_domain

FORMAT = "cerniq.person-export/1"


@dataclass(frozen=True)
class Section:
    """One kind of row naming a person: `rows(lead)` finds them in the lead's tenant;
    `scrub(rows, person)` blanks them for an erasure."""

    name: str
    model: type[Model]
    rows: Callable[[Lead], QuerySet]
    scrub: Scrub


_SECTIONS: dict[str, Section] = {}


def register(section: Section) -> None:
    _SECTIONS[section.name] = section


def sections() -> list[Section]:
    return list(_SECTIONS.values())


class BytesContain(Lookup):
    """`raw_body__bytes_contain=b"..."`: a stored payload holding these bytes (PostgreSQL's
    position() on bytea, SQLite's instr() on a blob)."""

    lookup_name = "bytes_contain"

    def as_sql(self, compiler, connection):  # noqa: ANN001, ANN201 - Django's signature
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        if connection.vendor == "postgresql":
            return f"position({rhs} in {lhs}) > 0", [*rhs_params, *lhs_params]
        return f"instr({lhs}, {rhs}) > 0", [*lhs_params, *rhs_params]


BinaryField.register_lookup(BytesContain)


def needles(lead: Lead) -> list[bytes]:
    """What a stored payload or file about this person holds: the number's national digits
    (whether written +40722…, 40722… or 0722…) and the address as stored (lowercase), also
    as a form-encoded body writes it (`ion%40agro.ro`: Mailchimp's webhooks)."""
    found = []
    if lead.phone:
        found.append(str(phonenumbers.parse(lead.phone).national_number).encode())
    if lead.email:
        address = lead.email.strip().lower()
        found.append(address.encode())
        if (encoded := quote_plus(address)) != address:
            found.append(encoded.encode())
    return found


def _holding(lead: Lead, model: type[Model], field: str) -> QuerySet:
    """The tenant's `model` rows whose bytes `field` holds one of the person's needles."""
    rows = model._default_manager.all()
    wanted = Q()
    for needle in needles(lead):
        wanted |= Q(**{f"{field}__bytes_contain": needle})
    if not wanted:
        return rows.none()
    return rows.filter(wanted, tenant_id=lead.tenant_id)


def webhook_events_of(lead: Lead) -> QuerySet[WebhookEvent]:
    return _holding(lead, WebhookEvent, "raw_body")


def suppressions_of(lead: Lead) -> QuerySet[Suppression]:
    names = Q(phone=lead.phone) if lead.phone else Q()
    if lead.email:
        names |= Q(email=lead.email.strip().lower()) | Q(domain=email_domain(lead.email))
    if lead.cui:
        names |= Q(cui=lead.cui)
    if not names:
        return Suppression.objects.none()
    return Suppression.objects.filter(names, tenant_id=lead.tenant_id)


def removals_of(lead: Lead) -> QuerySet[SuppressionRemoval]:
    values = [lead.phone, lead.email.strip().lower(), email_domain(lead.email), lead.cui]
    return SuppressionRemoval.objects.filter(
        tenant_id=lead.tenant_id, value__in=[v for v in values if v]
    )


def messages_of(lead: Lead) -> QuerySet[Message]:
    """The lead's messages, and those from its addresses before it was a lead (an inbound
    message from an unknown sender keeps the address, not a lead)."""
    addresses = [a for a in (lead.phone, lead.email.strip().lower()) if a]
    mine = Q(lead=lead)
    if addresses:
        mine |= Q(lead__isnull=True, counterpart__in=addresses)
    return Message.objects.filter(mine, tenant_id=lead.tenant_id)


def alerts_of(lead: Lead) -> QuerySet[Alert]:
    """The workspace's alerts whose text names the person (a failed withdrawal, a
    delivery problem)."""
    named = Q()
    for text in Person.of(lead).texts:
        named |= Q(message__icontains=text) | Q(subject__icontains=text)
    return Alert.objects.filter(named, tenant_id=lead.tenant_id) if named else Alert.objects.none()


def _scrub_lead(rows: QuerySet, person: Person) -> int:
    return rows.update(
        name=ERASED,
        contact_name="",
        phone="",
        whatsapp_user_id="",
        email="",
        cui="",
        locality="",
        custom_fields={},
        search_text="",
        phone_reachable=None,
        erased_at=timezone.now(),
    )


def _scrub_messages(rows: QuerySet, person: Person) -> int:
    """Text, addresses and payloads go; status, times and the classification stay."""
    analysed = list(rows.exclude(analysis__isnull=True).values_list("pk", "analysis"))
    for pk, analysis in analysed:
        Message.objects.filter(pk=pk).update(analysis=scrubbing.analysis_kept(analysis))
    for pk, thread in rows.exclude(provider_thread_id="").values_list("pk", "provider_thread_id"):
        if person.named_in(thread):  # a chat id made of the number
            Message.objects.filter(pk=pk).update(provider_thread_id="")
    return rows.update(
        body="",
        subject="",
        counterpart="",
        raw_request=None,
        raw_response=raw_response_blanked(),  # a history row stays one
        error="",
        provider_url="",
        anonymised_at=timezone.now(),
    )


def _scrub_suppressions(rows: QuerySet, person: Person) -> int:
    """The person's own phone and address entries go (the erasure lists their hashes);
    a domain or company entry stays, its reason redacted."""
    deleted, _ = rows.filter(Q(domain="") & Q(cui="")).delete()
    return deleted + redact("reason")(rows.exclude(domain="", cui=""), person)


def _scrub_removals(rows: QuerySet, person: Person) -> int:
    addresses = rows.filter(kind__in=[Suppression.Kind.PHONE, Suppression.Kind.EMAIL])
    count = addresses.update(value=ERASED, reason=ERASED, entry_reason=ERASED)
    return count + redact("reason", "entry_reason")(rows.exclude(value=ERASED), person)


for _section in (
    Section("lead", Lead, lambda lead: Lead.objects.filter(pk=lead.pk), _scrub_lead),
    # The firm (after the lead: blanked only when nobody else is left at it, as a sole
    # trader's firm that bears the person's name).
    Section(
        "company",
        Company,
        lambda lead: Company.objects.filter(pk=lead.company_id),
        lambda rows, person: companies.scrub_erased(rows, ERASED),
    ),
    Section(
        "journey", Journey, lambda lead: Journey.objects.filter(lead=lead), blank(review_reason="")
    ),
    Section(
        "stage_history",
        StageTransition,
        lambda lead: StageTransition.objects.filter(journey__lead=lead),
        redact("reason"),
    ),
    Section(
        "enrollments",
        Enrollment,
        lambda lead: Enrollment.objects.filter(lead=lead),
        redact("stalled_reason", "stop_reason"),
    ),
    # What automation decided for the person without sending (reason codes, no text).
    Section(
        "sequence_decisions",
        SequenceEvent,
        lambda lead: SequenceEvent.objects.filter(lead=lead),
        redact("reason"),
    ),
    Section("messages", Message, messages_of, _scrub_messages),
    Section(
        "attachments",
        MessageAttachment,
        lambda lead: MessageAttachment.objects.filter(message__in=messages_of(lead)),
        scrubbing.delete_files("file"),
    ),
    Section(
        "opt_out_records",
        OptOutRecord,
        lambda lead: OptOutRecord.objects.filter(lead=lead),
        blank(reason=ERASED),
    ),
    Section(
        "opt_out_lifts",
        OptOutLift,
        lambda lead: OptOutLift.objects.filter(lead=lead),
        blank(reason=ERASED),
    ),
    Section("suppression_entries", Suppression, suppressions_of, _scrub_suppressions),
    Section("suppression_removals", SuppressionRemoval, removals_of, _scrub_removals),
    Section(
        "import_files",
        ImportJob,
        lambda lead: _holding(lead, ImportJob, "content"),
        scrubbing.drop_lines("content", "rejected", "flagged", "contact_readiness", "error"),
    ),
    Section("provider_webhooks", WebhookEvent, webhook_events_of, blank(raw_body=b"", error="")),
    Section(
        "outbound_webhooks",
        WebhookDelivery,
        lambda lead: WebhookDelivery.objects.filter(
            tenant_id=lead.tenant_id, payload__data__lead_id=lead.pk
        ),
        redact("payload", "last_error", "last_response_excerpt"),
    ),
    Section("alerts", Alert, alerts_of, redact("subject", "message")),
    Section(
        "lawful_basis",
        ContactBasis,
        lambda lead: ContactBasis.objects.filter(lead=lead),
        redact("evidence", "source_detail"),
    ),
    # The erasure's own records: they name nobody (a receipt's `lookup` address is dropped
    # once the provider confirmed, outreach.propagation).
    Section("erasures", Erasure, lambda lead: Erasure.objects.filter(lead=lead), nothing),
    Section(
        "propagation_receipts",
        Propagation,
        lambda lead: Propagation.objects.filter(lead=lead),
        nothing,
    ),
    # Which lead rule took them and what it did (codes and names, nothing of theirs).
    Section(
        "lead_rule_firings",
        RuleFiring,
        lambda lead: RuleFiring.objects.filter(lead=lead),
        nothing,
    ),
):
    register(_section)


def _plain(value: Any) -> Any:
    """A BinaryField's bytes as text when they are UTF-8 (a JSON payload), else base64."""
    if isinstance(value, bytes | memoryview):
        raw = bytes(value)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(raw).decode()}
    return value


def _rows(section: Section, lead: Lead) -> list[dict]:
    found = section.rows(lead).order_by("pk")
    binary = [f.name for f in section.model._meta.concrete_fields if isinstance(f, BinaryField)]
    raw = {row.pk: row for row in found} if binary else {}
    rows = serializers.serialize("python", list(raw.values()) if binary else found)
    for row in rows:
        row.pop("model", None)
        for name in binary:
            row["fields"][name] = _plain(getattr(raw[row["pk"]], name))
    return rows


def export_person(lead: Lead) -> dict:
    """The whole document: every section, its rows with every stored field."""
    return {
        "format": FORMAT,
        "exported_at": timezone.now(),
        "tenant": lead.tenant.slug,
        "lead_id": lead.pk,
        "sections": {section.name: _rows(section, lead) for section in sections()},
    }


def export_json(lead: Lead) -> str:
    return json.dumps(export_person(lead), cls=DjangoJSONEncoder, ensure_ascii=False, indent=2)
