"""The lawful basis in an import file (outreach.lawful_basis): four optional columns.

- `basis` (temei, temei_legal, lawful_basis): consent / consimțământ, customer / client
  (an existing customer: soft opt-in), legitimate_interest / interes legitim, none;
- `basis_channel` (canal_temei): whatsapp, email, or empty / both / ambele for both;
- `basis_evidence` (dovada, consent_text): the consent's wording, a page's address...;
- `basis_date` (data_consimtamant, consent_date): 2026-11-20 or 20.11.2026.

A row with a basis records it for the lead it creates or updates, with the file's line as
its source; a value that is not one of these is the row's error, and nothing of the row is
imported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, time

from django.utils import timezone
from django.utils.dateparse import parse_date

from cerniq import reasons
from cerniq.models import Tenant
from outreach import lawful_basis, stalls
from outreach import reasons as codes
from outreach.models import ContactBasis

BASIS_COLUMNS: dict[str, tuple[str, ...]] = {
    "basis": ("basis", "temei", "temei_legal", "lawful_basis"),
    "basis_channel": ("basis_channel", "canal_temei"),
    "basis_evidence": ("basis_evidence", "dovada", "consent_text"),
    "basis_date": ("basis_date", "data_consimtamant", "consent_date"),
}
BASIS_BY_HEADER = {alias: name for name, aliases in BASIS_COLUMNS.items() for alias in aliases}

_BASIS_WORDS = {
    "consent": "consent",
    "consimtamant": "consent",
    "acord": "consent",
    "customer": "customer",
    "client": "customer",
    "client_existent": "customer",
    "soft_opt_in": "customer",
    "legitimate_interest": "legitimate_interest",
    "interes_legitim": "legitimate_interest",
    "none": "none",
    "fara": "none",
    "niciunul": "none",
}
_CHANNEL_WORDS = {
    "": lawful_basis.KINDS,
    "both": lawful_basis.KINDS,
    "all": lawful_basis.KINDS,
    "ambele": lawful_basis.KINDS,
    "toate": lawful_basis.KINDS,
    "whatsapp": (lawful_basis.WHATSAPP,),
    "wa": (lawful_basis.WHATSAPP,),
    "email": (lawful_basis.EMAIL,),
    "e_mail": (lawful_basis.EMAIL,),
}


@dataclass(frozen=True, slots=True)
class RowBasis:
    basis: str
    channels: tuple[str, ...]
    evidence: str
    given_at: datetime | None


def _word(value: str) -> str:
    from outreach.importing.reading import normalise_header

    return normalise_header(value)


def _date(value: str) -> datetime | None:
    text = value.strip()
    if "." in text:
        parts = text.split(".")
        text = "-".join(reversed(parts)) if len(parts) == 3 else text
    day = parse_date(text)
    if day is None:
        raise ValueError(value)
    return timezone.make_aware(datetime.combine(day, time(12)))


def parse(cells: dict[str, str]) -> tuple[RowBasis | None, list[str]]:
    """The row's basis (None when it gives none) and its problems (stored reason codes)."""
    if not any(cells.values()):
        return None, []
    problems = []
    basis = _BASIS_WORDS.get(_word(cells.get("basis", "")))
    if basis is None:
        problems.append(reasons.code(codes.IMPORT_BASIS, value=cells.get("basis", "")[:60]))
    channels = _CHANNEL_WORDS.get(_word(cells.get("basis_channel", "")))
    if channels is None:
        value = cells.get("basis_channel", "")[:60]
        problems.append(reasons.code(codes.IMPORT_BASIS_CHANNEL, value=value))
    given_at = None
    if cells.get("basis_date"):
        try:
            given_at = _date(cells["basis_date"])
        except ValueError:
            value = cells["basis_date"][:60]
            problems.append(reasons.code(codes.IMPORT_BASIS_DATE, value=value))
    evidence = cells.get("basis_evidence", "").strip()
    if len(evidence) > lawful_basis.EVIDENCE_MAX:
        problems.append(
            reasons.code(
                codes.IMPORT_TOO_LONG, field="basis_evidence", max=lawful_basis.EVIDENCE_MAX
            )
        )
    if problems or basis is None or channels is None:
        return None, problems
    return RowBasis(basis, tuple(channels), evidence, given_at), []


def record(tenant: Tenant, rows: Iterable[tuple[int, int, RowBasis]], source: str) -> int:
    """Record the bases of imported rows ((lead id, line, basis)) in one insert; a lead held
    for want of one moves on. How many were recorded."""
    bases = [
        ContactBasis(
            tenant=tenant,
            lead_id=lead_id,
            channel=channel,
            basis=row.basis,
            source=ContactBasis.Source.IMPORT,
            source_detail=f"{source or 'import'}, line {line}"[:255],
            evidence=row.evidence,
            given_at=row.given_at,
        )
        for lead_id, line, row in rows
        for channel in row.channels
    ]
    ContactBasis.objects.bulk_create(bases, batch_size=1000)
    stalls.wake({basis.lead_id for basis in bases})
    return len(bases)
