"""Contact readiness: can outreach reach this lead on WhatsApp, on email, and if not, why.

The one place that answers it. Each channel is READY (checked and usable), UNCHECKED (a
number or address nobody has checked yet: the tenant's contact policy says whether it is
contacted) or BLOCKED with a reason code (outreach.reasons). The lead page, the leads list,
enrollment, dispatch, the API, the import report and the dashboard all read it from here.

Two forms of the same rules, built from one table (`_WHATSAPP`, `_EMAIL`):
- `readiness(lead, journey, policy=...)` in Python, for one lead or a page of them;
- `with_readiness(leads)` annotates a queryset in SQL (states, reason codes, `contactable`),
  so the list's filters and the counts run in the database at any size. The SQL form reads
  the policy from the lead's tenant row. tests/outreach/test_readiness.py checks that both
  forms agree on every combination of inputs.

What is a lead-level condition (it blocks both channels): a closed stage (dead, converted,
paused) and a takeover. Whether the workspace has a WhatsApp number able to send is a
tenant-level condition, not the lead's: dispatch marks the enrollment stalled for it and
the dashboard shows the phones; readiness stays about the lead's own addresses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from django.db import models
from django.db.models import Case, Exists, OuterRef, Q, QuerySet, Value, When
from django.db.models.functions import Lower
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from cerniq import reasons
from cerniq.models import Tenant
from outreach import reasons as codes
from outreach import stages
from outreach.models import Journey, Lead, Suppression
from outreach.suppression import LeadListed, email_domain_sql, lead_listed, listed_for_leads

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class State(models.TextChoices):
    READY = "ready", _("Ready")
    UNCHECKED = "unverified", _("Not checked yet")
    BLOCKED = "blocked", _("Cannot be contacted")


WHATSAPP, EMAIL = "whatsapp", "email"


@dataclass(frozen=True)
class ContactPolicy:
    """Does the tenant contact numbers and addresses nobody has checked yet?"""

    whatsapp_unchecked: bool = True
    email_unchecked: bool = True

    @classmethod
    def of(cls, tenant: Tenant) -> ContactPolicy:
        return cls(tenant.contact_unverified_whatsapp, tenant.contact_unverified_email)

    def allows(self, channel: str) -> bool:
        return self.whatsapp_unchecked if channel == WHATSAPP else self.email_unchecked


@dataclass(frozen=True)
class ChannelReadiness:
    channel: str  # WHATSAPP or EMAIL
    state: str  # a State value
    reason: str = ""  # a stored reason code; "" when READY
    allowed: bool = True  # UNCHECKED: does the tenant's policy contact it

    @property
    def usable(self) -> bool:
        """Outreach may send on this channel now."""
        return self.state == State.READY or (self.state == State.UNCHECKED and self.allowed)

    @property
    def reason_text(self) -> str:
        return reasons.render(self.reason)

    def get_state_label(self) -> str:
        return str(State(self.state).label)

    @property
    def short(self) -> str:
        """A word or two for a list's cell (the reason itself when blocked)."""
        if self.state == State.READY:
            return gettext("ready")
        if self.state == State.UNCHECKED:
            return gettext("not checked yet") if self.allowed else gettext("not contacted")
        return self.reason_text

    @property
    def text(self) -> str:
        """The state in words, in the active language (titles and the API), short enough to
        scan after the channel's name: "number not checked yet — the first message checks
        it", "bounced"."""
        if self.state == State.READY:
            return gettext("ready")
        if self.state == State.UNCHECKED:
            return f"{self.reason_text} — {self._unchecked_then}"
        return self.reason_text

    @property
    def detail(self) -> str:
        """What the lead page shows after the state's badge, without repeating it."""
        if self.state == State.READY:
            return ""
        if self.state == State.UNCHECKED and reasons.is_code(
            self.reason, codes.PHONE_UNCHECKED, codes.EMAIL_UNCHECKED
        ):
            return self._unchecked_then  # the badge says "Not checked yet"
        return self.text

    @property
    def _unchecked_then(self) -> str:
        if self.allowed:
            return gettext("the first message checks it")
        return gettext("not contacted (workspace setting)")


@dataclass(frozen=True)
class Readiness:
    whatsapp: ChannelReadiness
    email: ChannelReadiness

    @property
    def contactable(self) -> bool:
        return self.whatsapp.usable or self.email.usable

    @property
    def channels(self) -> tuple[ChannelReadiness, ChannelReadiness]:
        return (self.whatsapp, self.email)


@dataclass(frozen=True)
class _Facts:
    """What the rules read, from a lead, its journey (or none) and the suppression list."""

    phone: str
    phone_reachable: bool | None
    email: str
    email_status: str
    whatsapp_opted_out: bool
    email_opted_out: bool
    stage: str
    taken_over: bool
    listed: LeadListed  # which of its addresses the suppression list names


@dataclass(frozen=True)
class _Rule:
    code: str
    state: str
    python: Callable[[_Facts], bool]
    sql: Callable[[], Q | Exists]


def _phone_suppressed_sql() -> Q:
    listed = Suppression.objects.filter(tenant_id=OuterRef("tenant_id"), phone=OuterRef("phone"))
    return ~Q(phone="") & Q(Exists(listed))


def _email_suppressed_sql() -> Q:
    listed = Suppression.objects.filter(
        tenant_id=OuterRef("tenant_id"), email=Lower(OuterRef("email"))
    )
    return ~Q(email="") & Q(Exists(listed))


def _domain_suppressed_sql() -> Q:
    listed = Suppression.objects.exclude(domain="").filter(
        tenant_id=OuterRef("tenant_id"), domain=email_domain_sql(OuterRef("email"))
    )
    return ~Q(email="") & Q(Exists(listed))


def _company_suppressed_sql() -> Q:
    listed = Suppression.objects.exclude(cui="").filter(
        tenant_id=OuterRef("tenant_id"), cui=OuterRef("cui")
    )
    return ~Q(cui="") & Q(Exists(listed))


# A lead-level condition blocks both channels; it comes after the channel's own opt-out and
# suppression (those are permanent and say more), before the address checks. A listed
# company comes first of them: it is the company's own wish, whatever the lead's stage.
_LEAD_LEVEL = (
    _Rule(
        codes.COMPANY_SUPPRESSED,
        State.BLOCKED,
        lambda f: f.listed.cui,
        _company_suppressed_sql,
    ),
    _Rule(
        codes.STAGE_CLOSED,
        State.BLOCKED,
        lambda f: f.stage in stages.CLOSED,
        lambda: Q(journey__stage__in=sorted(stages.CLOSED)),
    ),
    _Rule(
        codes.TAKEN_OVER,
        State.BLOCKED,
        lambda f: f.taken_over,
        lambda: Q(journey__taken_over_by__isnull=False),
    ),
)

_WHATSAPP = (
    _Rule(
        codes.OPTED_OUT,
        State.BLOCKED,
        lambda f: f.whatsapp_opted_out,
        lambda: Q(journey__whatsapp_opted_out=True),
    ),
    _Rule(
        codes.SUPPRESSED,
        State.BLOCKED,
        lambda f: f.listed.phone,
        _phone_suppressed_sql,
    ),
    *_LEAD_LEVEL,
    _Rule(codes.NO_PHONE, State.BLOCKED, lambda f: not f.phone, lambda: Q(phone="")),
    _Rule(
        codes.NOT_ON_WHATSAPP,
        State.BLOCKED,
        lambda f: f.phone_reachable is False,
        lambda: Q(phone_reachable=False),
    ),
    _Rule(
        codes.PHONE_UNCHECKED,
        State.UNCHECKED,
        lambda f: f.phone_reachable is None,
        lambda: Q(phone_reachable__isnull=True),
    ),
)

_S = Lead.EmailStatus
_EMAIL_STATUS_RULES = (
    (codes.EMAIL_BOUNCED, State.BLOCKED, _S.BOUNCED),
    (codes.EMAIL_UNSUBSCRIBED, State.BLOCKED, _S.UNSUBSCRIBED),
    (codes.EMAIL_COMPLAINED, State.BLOCKED, _S.COMPLAINED),
    (codes.EMAIL_INVALID, State.BLOCKED, _S.INVALID),
    (codes.EMAIL_UNCHECKED, State.UNCHECKED, _S.UNKNOWN),
    (codes.EMAIL_RISKY, State.UNCHECKED, _S.RISKY),
)


def _status_rule(code: str, state: str, status: str) -> _Rule:
    return _Rule(code, state, lambda f: f.email_status == status, lambda: Q(email_status=status))


_EMAIL = (
    _Rule(
        codes.OPTED_OUT,
        State.BLOCKED,
        lambda f: f.email_opted_out,
        lambda: Q(journey__email_opted_out=True),
    ),
    _Rule(
        codes.SUPPRESSED,
        State.BLOCKED,
        lambda f: f.listed.email,
        _email_suppressed_sql,
    ),
    _Rule(
        codes.DOMAIN_SUPPRESSED,
        State.BLOCKED,
        lambda f: f.listed.domain,
        _domain_suppressed_sql,
    ),
    *_LEAD_LEVEL,
    _Rule(codes.NO_EMAIL, State.BLOCKED, lambda f: not f.email, lambda: Q(email="")),
    *(_status_rule(*rule) for rule in _EMAIL_STATUS_RULES),
    # Anything but VALID left (an unknown status value): not an address to write to.
    _Rule(
        codes.EMAIL_INVALID,
        State.BLOCKED,
        lambda f: f.email_status != _S.VALID,
        lambda: ~Q(email_status=_S.VALID),
    ),
)

_RULES = {WHATSAPP: _WHATSAPP, EMAIL: _EMAIL}


def _facts(lead: Lead, journey: Journey | None, listed: LeadListed) -> _Facts:
    return _Facts(
        phone=lead.phone,
        phone_reachable=lead.phone_reachable,
        email=lead.email,
        email_status=lead.email_status,
        whatsapp_opted_out=bool(journey and journey.whatsapp_opted_out),
        email_opted_out=bool(journey and journey.email_opted_out),
        stage=journey.stage if journey else "",
        taken_over=bool(journey and journey.taken_over_by_id),
        listed=listed,
    )


def _channel(channel: str, facts: _Facts, policy: ContactPolicy) -> ChannelReadiness:
    for rule in _RULES[channel]:
        if rule.python(facts):
            code = (
                reasons.code(rule.code, stage=facts.stage)
                if rule.code == codes.STAGE_CLOSED
                else reasons.code(rule.code)
            )
            return ChannelReadiness(channel, rule.state, code, policy.allows(channel))
    return ChannelReadiness(channel, State.READY, "", policy.allows(channel))


def _journey_of(lead: Lead) -> Journey | None:
    try:
        return lead.journey
    except Journey.DoesNotExist:
        return None


def readiness(
    lead: Lead,
    journey: Journey | None = None,
    *,
    policy: ContactPolicy,
    listed: LeadListed | None = None,
) -> Readiness:
    """The lead's readiness on each channel. `journey` defaults to the lead's own; `listed`
    (which of its addresses the suppression list names) is looked up when not given (one
    query; `readiness_many` looks up a whole page at once)."""
    journey = journey if journey is not None else _journey_of(lead)
    if listed is None:
        listed = lead_listed(lead)
    facts = _facts(lead, journey, listed)
    return Readiness(_channel(WHATSAPP, facts, policy), _channel(EMAIL, facts, policy))


def readiness_many(leads: Iterable[Lead], *, policy: ContactPolicy) -> dict[int, Readiness]:
    """Readiness of each lead (journeys selected with the leads), by lead id: the
    suppression list is read once for all of them."""
    leads = list(leads)
    if not leads:
        return {}
    found = listed_for_leads(leads[0].tenant_id, leads)
    return {lead.pk: readiness(lead, policy=policy, listed=found.for_lead(lead)) for lead in leads}


def email_readiness(lead: Lead, journey: Journey | None, tenant: Tenant) -> ChannelReadiness:
    """The email channel alone, for the send path (suppression is checked there already,
    against the message's own address)."""
    facts = _facts(lead, journey, LeadListed())
    return _channel(EMAIL, facts, ContactPolicy.of(tenant))


def for_tenant(lead: Lead) -> Readiness:
    """One lead's readiness under its tenant's policy."""
    return readiness(lead, policy=ContactPolicy.of(lead.tenant))


# --- the SQL form -------------------------------------------------------------------------


def _cases(channel: str) -> tuple[Case, Case]:
    rules = _RULES[channel]
    state = Case(
        *(When(rule.sql(), then=Value(str(rule.state))) for rule in rules),
        default=Value(str(State.READY)),
        output_field=models.CharField(),
    )
    code = Case(
        *(When(rule.sql(), then=Value(rule.code)) for rule in rules),
        default=Value(""),
        output_field=models.CharField(),
    )
    return state, code


def _usable(channel: str) -> Q:
    policy_field = (
        "tenant__contact_unverified_whatsapp"
        if channel == WHATSAPP
        else "tenant__contact_unverified_email"
    )
    state = f"{channel}_state"
    return Q(**{state: State.READY}) | Q(**{state: State.UNCHECKED, policy_field: True})


class ReadinessColumns(TypedDict):
    """What with_readiness adds to each lead (for the type checker's lookups)."""

    whatsapp_state: str
    whatsapp_reason: str
    email_state: str
    email_reason: str
    contactable: bool


def with_readiness(leads: QuerySet[Lead]) -> QuerySet[WithAnnotations[Lead, ReadinessColumns]]:
    """Annotate `whatsapp_state`, `whatsapp_reason`, `email_state`, `email_reason` (the
    reason *code*, without parameters) and `contactable` under each lead's tenant policy."""
    wa_state, wa_code = _cases(WHATSAPP)
    mail_state, mail_code = _cases(EMAIL)
    return leads.annotate(
        whatsapp_state=wa_state,
        whatsapp_reason=wa_code,
        email_state=mail_state,
        email_reason=mail_code,
    ).annotate(
        contactable=Case(
            When(_usable(WHATSAPP) | _usable(EMAIL), then=Value(True)),
            default=Value(False),
            output_field=models.BooleanField(),
        )
    )


def contactable(leads: QuerySet[Lead], wanted: bool = True) -> QuerySet[Lead]:
    """Only the leads outreach can reach now (or, `wanted=False`, only those it cannot)."""
    return with_readiness(leads).filter(contactable=wanted)


@dataclass
class Tally:
    """What a set of leads looks like to outreach: how many can be reached on a checked
    channel, how many only on a channel nobody has checked yet (per reason) and how many
    cannot be contacted (per reason). Reasons are codes without parameters."""

    ready: int = 0
    unchecked: dict[str, int] = field(default_factory=dict)
    blocked: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.ready + sum(self.unchecked.values()) + sum(self.blocked.values())

    @property
    def not_contactable(self) -> int:
        return sum(self.blocked.values())

    def add(self, other: Tally) -> None:
        self.ready += other.ready
        for mine, theirs in ((self.unchecked, other.unchecked), (self.blocked, other.blocked)):
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n

    def as_json(self) -> dict:
        return {"ready": self.ready, "unchecked": self.unchecked, "blocked": self.blocked}

    @classmethod
    def from_json(cls, data: dict | None) -> Tally | None:
        if not data:
            return None
        return cls(data.get("ready", 0), data.get("unchecked", {}), data.get("blocked", {}))

    def lines(self) -> list[tuple[str, int, str]]:
        """(state, count, reason in the active language), biggest first: for reports."""
        rows = [(State.UNCHECKED.value, n, reasons.render(k)) for k, n in self.unchecked.items()]
        rows += [(State.BLOCKED.value, n, reasons.render(k)) for k, n in self.blocked.items()]
        return sorted(rows, key=lambda row: (row[0] != State.BLOCKED, -row[1], row[2]))


def tally(leads: QuerySet[Lead], *, policy: ContactPolicy) -> Tally:
    """Count these leads (of one tenant) by readiness, in one grouped query."""
    rows = (
        with_readiness(leads)
        .order_by()
        .values("whatsapp_state", "whatsapp_reason", "email_state", "email_reason", "contactable")
        .annotate(n=models.Count("pk"))
    )
    found = Tally()
    for row in rows:
        wa = (row["whatsapp_state"], row["whatsapp_reason"])
        mail = (row["email_state"], row["email_reason"])
        if State.READY in (wa[0], mail[0]):
            found.ready += row["n"]
            continue
        if row["contactable"]:
            tried = wa if wa[0] == State.UNCHECKED and policy.whatsapp_unchecked else mail
            bucket = found.unchecked
            key = tried[1]
        else:
            bucket = found.blocked
            key = wa[1] or mail[1]  # the WhatsApp reason first, as the pages list them
        bucket[key] = bucket.get(key, 0) + row["n"]
    return found


def tally_ids(tenant: Tenant, lead_ids: list[int], *, chunk: int = 1000) -> Tally:
    """`tally` of these leads of `tenant` (an import's new leads), a chunk of ids at a time
    (a query's parameter limit)."""
    found = Tally()
    policy = ContactPolicy.of(tenant)
    for start in range(0, len(lead_ids), chunk):
        part = Lead.objects.filter(tenant=tenant, pk__in=lead_ids[start : start + chunk])
        found.add(tally(part, policy=policy))
    return found
