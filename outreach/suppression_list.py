"""The do-not-contact list as people manage it: add and remove entries (phone, email,
email domain, company CUI), bulk CSV import and export, and what each entry blocks.

The page (console), the API and the admin all call these functions. An entry a person
added may be taken off again with a stated reason (audited in SuppressionRemoval); an entry
the recipient caused (an opt-out, an unsubscribe, a bounce, a complaint) is lifted on the
lead's page only (outreach.optout_manual), where the reason is asked and audited too.
"""

from __future__ import annotations

import contextlib
import csv
import io
from collections import defaultdict
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import DomainNameValidator, validate_email
from django.db import IntegrityError, transaction
from django.db.models import Count, Q, QuerySet
from django.db.models.functions import Lower
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from stdnum.exceptions import ValidationError as NumberValidationError
from stdnum.ro import cui as ro_cui

from cerniq.models import Tenant
from cerniq.phone_numbers import NotAPhoneNumber, to_e164
from cerniq.text_input import UNPRINTABLE
from outreach.models import Lead, Suppression, SuppressionRemoval
from outreach.optout_manual import MIN_REASON
from outreach.suppression import email_domain_sql

Kind = Suppression.Kind
Source = Suppression.Source

MAX_CSV_BYTES = 5 * 1024 * 1024
MAX_CSV_ROWS = 50_000
MAX_ERRORS_SHOWN = 20
MAX_REMOVAL_REASON = 2000  # characters, as the API takes it
_CSV_KINDS = {kind.value for kind in Suppression.ADDABLE_KINDS}


class EntryInvalid(ValueError):
    """A value that cannot be an entry of its kind; `field` names the input at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class RemovalRefused(ValueError):
    """An entry that cannot be taken off here (`field` "" : the entry's own state), or no
    usable reason (`field` "reason")."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def normalize(kind: str, raw: str) -> str:
    """The stored form of `raw` as an entry of `kind`; EntryInvalid when it is not one."""
    value = (raw or "").strip()
    if kind not in _CSV_KINDS:
        raise EntryInvalid("kind", _("Choose phone, email, domain or cui."))
    if not value:
        raise EntryInvalid("value", _("Enter the value to list."))
    if kind == Kind.PHONE:
        try:
            return to_e164(value)
        except NotAPhoneNumber:
            raise EntryInvalid(
                "value", _("“%(value)s” is not a phone number.") % {"value": value}
            ) from None
    if kind == Kind.EMAIL:
        email = value.lower()
        try:
            validate_email(email)
        except ValidationError:
            raise EntryInvalid(
                "value", _("“%(value)s” is not an email address.") % {"value": value}
            ) from None
        return email
    if kind == Kind.DOMAIN:
        domain = value.lower().removeprefix("@").rstrip(".")
        try:
            if "." not in domain:
                raise ValidationError("no dot")
            DomainNameValidator()(domain)
        except ValidationError:
            raise EntryInvalid(
                "value",
                _("“%(value)s” is not an email domain (write it as ferma.ro).") % {"value": value},
            ) from None
        return domain
    try:
        return ro_cui.validate(value)
    except NumberValidationError:
        raise EntryInvalid(
            "value", _("“%(value)s” is not a valid CUI.") % {"value": value}
        ) from None


def add_entry(
    tenant: Tenant,
    *,
    kind: str,
    value: str,
    reason: str,
    source: str = Source.MANUAL,
    user=None,
) -> tuple[Suppression, bool]:
    """List `value` (normalised) as a `kind` entry; (the entry, True) when new, (the entry
    already there, False) otherwise: an address is listed once, its first reason kept."""
    stored = normalize(kind, value)
    reason = (reason or "").strip()
    if not reason:
        raise EntryInvalid("reason", _("Say why this is on the list."))
    try:
        with transaction.atomic():
            entry, created = Suppression.objects.get_or_create(
                tenant=tenant,
                **{kind: stored},
                defaults={"reason": reason[:255], "source": source, "created_by": user},
            )
    except IntegrityError:  # listed by a concurrent request in between
        entry, created = Suppression.objects.get(tenant=tenant, **{kind: stored}), False
    return entry, created


@transaction.atomic
def remove_entry(entry: Suppression, *, user, reason: str) -> SuppressionRemoval:
    """Take a person-added entry off the list, audited with who and why."""
    if not entry.removable:
        raise RemovalRefused(
            _(
                "This entry records what the recipient did (%(source)s): lift it on the "
                "lead's page, where the reason is kept with the opt-out."
            )
            % {"source": entry.get_source_display()}
        )
    reason = (reason or "").strip()
    if len(reason) < MIN_REASON:
        raise RemovalRefused(
            _("Say why it comes off the list (at least %(n)d characters).") % {"n": MIN_REASON},
            field="reason",
        )
    if len(reason) > MAX_REMOVAL_REASON:
        raise RemovalRefused(
            _("The reason can be at most %(n)d characters long.") % {"n": MAX_REMOVAL_REASON},
            field="reason",
        )
    removal = SuppressionRemoval.objects.create(
        tenant_id=entry.tenant_id,
        kind=entry.kind,
        value=entry.value,
        entry_reason=entry.reason,
        entry_source=entry.source,
        entry_created_at=entry.created_at,
        reason=reason,
        by_user=user,
    )
    entry.delete()
    return removal


def entries(tenant: Tenant, *, kind: str = "", q: str = "") -> QuerySet[Suppression]:
    """The tenant's entries, newest first, of one kind and/or containing `q`."""
    found = Suppression.objects.filter(tenant=tenant).select_related("created_by")
    if kind in _CSV_KINDS:
        found = found.exclude(**{kind: ""})
    elif kind == Kind.ERASED:
        found = found.exclude(digest="")
    if q := q.strip().lower():
        match = (
            Q(phone__contains=q)
            | Q(email__contains=q)
            | Q(domain__contains=q.removeprefix("@"))
            | Q(cui__contains=q.upper().removeprefix("RO"))
            | Q(reason__icontains=q)
        )
        with contextlib.suppress(NotAPhoneNumber):  # 0722 000 003 finds +40722000003
            match |= Q(phone=to_e164(q))
        found = found.filter(match)
    return found.order_by("-created_at", "-pk")


def removals(tenant: Tenant) -> QuerySet[SuppressionRemoval]:
    """What people took off the tenant's list, the latest first, with who did it."""
    return (
        SuppressionRemoval.objects.filter(tenant=tenant)
        .select_related("by_user")
        .order_by("-created_at", "-pk")
    )


def blocked_counts(tenant: Tenant, shown: list[Suppression]) -> dict[int, int]:
    """How many of the tenant's leads each entry names now, by entry id: a query per kind
    shown (four at most, whatever the number of entries)."""
    by_kind: dict[str, dict[str, int]] = defaultdict(dict)
    for entry in shown:
        if entry.kind != Kind.ERASED:  # a hash names no lead: the erased lead holds none
            by_kind[entry.kind][entry.value] = entry.pk
    leads = Lead.objects.filter(tenant=tenant).order_by()
    counts: dict[int, int] = {entry.pk: 0 for entry in shown}
    for kind, values in by_kind.items():
        if kind == Kind.DOMAIN:
            grouped = leads.annotate(key=email_domain_sql("email")).filter(key__in=list(values))
        elif kind == Kind.EMAIL:
            grouped = leads.annotate(key=Lower("email")).filter(key__in=list(values))
        else:
            grouped = leads.annotate(key=Lower(kind)).filter(**{f"{kind}__in": list(values)})
        for key, n in grouped.values_list("key").annotate(n=Count("pk")):
            if key in values:
                counts[values[key]] = n
    return counts


# --- CSV ----------------------------------------------------------------------------------


@dataclass
class CsvRow:
    line: int
    kind: str
    value: str
    reason: str


class CsvInvalid(ValueError):
    """The file cannot be imported; `errors` are (line, message), the file's first line 1.
    Nothing was listed."""

    def __init__(self, errors: list[tuple[int, str]]) -> None:
        super().__init__("; ".join(f"line {line}: {message}" for line, message in errors))
        self.errors = errors


@dataclass
class CsvImported:
    added: int = 0
    already: int = 0
    lines: int = 0
    kinds: dict[str, int] = field(default_factory=dict)  # added, by kind


def _text_of(data: bytes | str) -> str:
    if isinstance(data, str):
        return data
    if len(data) > MAX_CSV_BYTES:
        raise CsvInvalid([(0, _("The file is over %(n)d MB.") % {"n": MAX_CSV_BYTES >> 20})])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CsvInvalid([(0, _("The file is not UTF-8 text (save it as CSV UTF-8)."))]) from None


_NO_HEADER = gettext_noop(
    "The first line must name the columns: kind,value,reason or phone,email,domain,cui."
)


def read_csv(data: bytes | str) -> list[CsvRow]:
    """The file's entries, every line checked first: CsvInvalid lists the lines at fault.

    Two layouts: `kind,value[,reason]` (what `export_csv` writes; its other columns are
    ignored), or one column per kind (`phone`, `email`, `domain`, `cui`, any of them, and
    an optional `reason`), every filled cell an entry."""
    text = _text_of(data)
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    header = [h.strip().lower() for h in next(reader, [])]
    by_kind_column = "kind" not in header
    wanted = {"kind", "value"}
    named = bool(set(header) & _CSV_KINDS) if by_kind_column else wanted <= set(header)
    if not named:
        raise CsvInvalid([(1, _(_NO_HEADER))])
    at = {name: i for i, name in enumerate(header)}
    rows: list[CsvRow] = []
    errors: list[tuple[int, str]] = []
    for line, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(rows) >= MAX_CSV_ROWS:
            raise CsvInvalid([(line, _("The file has over %(n)d entries.") % {"n": MAX_CSV_ROWS})])

        reason = _cell(cells, at, "reason")
        if unprintable := UNPRINTABLE.search(reason):
            errors.append((line, _unprintable(unprintable[0])))
            continue
        pairs = (
            [(kind, _cell(cells, at, kind)) for kind in sorted(_CSV_KINDS)]
            if by_kind_column
            else [(_cell(cells, at, "kind").lower(), _cell(cells, at, "value"))]
        )
        for kind, raw in pairs:
            if by_kind_column and not raw:
                continue
            try:
                rows.append(CsvRow(line, kind, normalize(kind, raw), reason))
            except EntryInvalid as exc:
                errors.append((line, str(exc)))
    if errors:
        raise CsvInvalid(errors[:MAX_ERRORS_SHOWN])
    return rows


def _unprintable(character: str) -> str:
    return _("The reason holds a control character (U+%(code)04X); remove it.") % {
        "code": ord(character)
    }


def _cell(cells: list[str], at: dict[str, int], name: str) -> str:
    i = at.get(name)
    return cells[i].strip() if i is not None and i < len(cells) else ""


def import_csv(
    tenant: Tenant,
    data: bytes | str,
    *,
    user=None,
    source: str = Source.IMPORT,
    default_reason: str = "",
) -> CsvImported:
    """List every entry of the file, or none when a line is wrong (CsvInvalid)."""
    rows = read_csv(data)
    result = CsvImported(lines=len({row.line for row in rows}))
    fallback = default_reason or _("Imported from a CSV file")
    with transaction.atomic():
        for row in rows:
            _entry, created = add_entry(
                tenant,
                kind=row.kind,
                value=row.value,
                reason=row.reason or fallback,
                source=source,
                user=user,
            )
            if created:
                result.added += 1
                result.kinds[row.kind] = result.kinds.get(row.kind, 0) + 1
            else:
                result.already += 1
    return result


EXPORT_COLUMNS = ("kind", "value", "reason", "source", "created_at", "created_by")


def export_csv(tenant: Tenant) -> str:
    """Every entry of the tenant, `kind,value,reason,…`: `import_csv` reads it back. An
    erased person's hashes are the erasure's (kept by its ledger too), not written."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(EXPORT_COLUMNS)
    for entry in entries(tenant).filter(digest="").iterator(chunk_size=2000):
        writer.writerow(
            (
                entry.kind,
                entry.value,
                _safe_cell(entry.reason),
                entry.source,
                entry.created_at.isoformat(),
                entry.created_by.get_username() if entry.created_by else "",
            )
        )
    return out.getvalue()


def _safe_cell(text: str) -> str:
    """A cell a spreadsheet will not run as a formula (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
