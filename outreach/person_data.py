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
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import phonenumbers
from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import BinaryField, Lookup, Model, Q, QuerySet
from django.utils import timezone

from cerniq.models import WebhookDelivery, WebhookEvent
from outreach.models import (
    Enrollment,
    ImportJob,
    Journey,
    Lead,
    Message,
    MessageAttachment,
    OptOutLift,
    OptOutRecord,
    StageTransition,
    Suppression,
    SuppressionRemoval,
)
from outreach.suppression import email_domain

FORMAT = "cerniq.person-export/1"


@dataclass(frozen=True)
class Section:
    """One kind of row naming a person: `rows(lead)` finds them in the lead's tenant."""

    name: str
    model: type[Model]
    rows: Callable[[Lead], QuerySet]


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
    (whether written +40722…, 40722… or 0722…) and the address as stored (lowercase)."""
    found = []
    if lead.phone:
        found.append(str(phonenumbers.parse(lead.phone).national_number).encode())
    if lead.email:
        found.append(lead.email.strip().lower().encode())
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


for _section in (
    Section("lead", Lead, lambda lead: Lead.objects.filter(pk=lead.pk)),
    Section("journey", Journey, lambda lead: Journey.objects.filter(lead=lead)),
    Section(
        "stage_history",
        StageTransition,
        lambda lead: StageTransition.objects.filter(journey__lead=lead),
    ),
    Section("enrollments", Enrollment, lambda lead: Enrollment.objects.filter(lead=lead)),
    Section("messages", Message, lambda lead: Message.objects.filter(lead=lead)),
    Section(
        "attachments",
        MessageAttachment,
        lambda lead: MessageAttachment.objects.filter(message__lead=lead),
    ),
    Section("opt_out_records", OptOutRecord, lambda lead: OptOutRecord.objects.filter(lead=lead)),
    Section("opt_out_lifts", OptOutLift, lambda lead: OptOutLift.objects.filter(lead=lead)),
    Section("suppression_entries", Suppression, suppressions_of),
    Section("suppression_removals", SuppressionRemoval, removals_of),
    Section("import_files", ImportJob, lambda lead: _holding(lead, ImportJob, "content")),
    Section("provider_webhooks", WebhookEvent, webhook_events_of),
    Section(
        "outbound_webhooks",
        WebhookDelivery,
        lambda lead: WebhookDelivery.objects.filter(
            tenant_id=lead.tenant_id, payload__data__lead_id=lead.pk
        ),
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
