"""Keeping a workspace's lead rules: check and save one, order, switch on and off, delete;
how many leads each took lately; which recent leads a rule (as being edited) would take.
The settings page and the tests call these; what is wrong is said per field."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Max, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq.models import Tenant
from outreach.lead_rules.matching import Intake, clean_tags, matches, source_of, winner
from outreach.models import Lead, LeadRule, RuleFiring, Sequence
from outreach.rule_models import MAX_TAG, MAX_TAGS
from whatsapp.models import Phone

MAX_NAME = 100
TAKEN_DAYS = 7  # the rules page: leads each rule took in the last 7 days
PREVIEW_LEADS = 50  # the preview: the tenant's latest leads


class RuleInvalid(ValueError):
    """Problems by field name; nothing was saved."""

    def __init__(self, problems: dict[str, list[str]]) -> None:
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in problems.items()))
        self.problems = problems


@dataclass
class RuleData:
    """A rule as typed (the page's form, the tests)."""

    name: str
    enabled: bool = True
    source: str = ""
    form_id: str = ""
    county: str = ""
    tags: list[str] = field(default_factory=list)
    has_phone: str = ""
    has_email: str = ""
    sequence: Sequence | None = None
    operator: User | None = None
    phone: Phone | None = None
    add_tags: list[str] = field(default_factory=list)


def sequences_of(tenant: Tenant) -> QuerySet[Sequence]:
    return Sequence.objects.filter(tenant=tenant, is_active=True).order_by("name")


def operators_of(tenant: Tenant) -> QuerySet[User]:
    return User.objects.filter(memberships__tenant=tenant, is_active=True).order_by("username")


def phones_of(tenant: Tenant) -> QuerySet[Phone]:
    return Phone.objects.filter(tenant=tenant).order_by("label", "number")


def _tag_problem(tags: list[str]) -> str:
    if len(tags) > MAX_TAGS:
        return _("At most %(count)d tags.") % {"count": MAX_TAGS}
    if any(len(tag) > MAX_TAG for tag in tags):
        return _("A tag has at most %(count)d characters.") % {"count": MAX_TAG}
    return ""


def problems(tenant: Tenant, data: RuleData, *, instance: LeadRule | None = None) -> dict:
    """What is wrong with `data`, by field (empty when it may be saved)."""
    found: dict[str, list[str]] = {}
    name = data.name.strip()
    if not name:
        found["name"] = [_("Give the rule a name.")]
    elif len(name) > MAX_NAME:
        found["name"] = [_("At most %(count)d characters.") % {"count": MAX_NAME}]
    else:
        taken = LeadRule.objects.filter(tenant=tenant, name=name)
        if instance is not None:
            taken = taken.exclude(pk=instance.pk)
        if taken.exists():
            found["name"] = [_("Another rule has this name.")]
    if data.source not in ("", *LeadRule.Source.values):
        found["source"] = [_("Choose one of the sources listed.")]
    if data.form_id and data.source not in ("", LeadRule.Source.LEAD_ADS):
        found["form_id"] = [_("A form id only comes with leads from Meta Lead Ads.")]
    for name_, tags in (("tags", data.tags), ("add_tags", data.add_tags)):
        if problem := _tag_problem(tags):
            found[name_] = [problem]
    for name_, value in (("has_phone", data.has_phone), ("has_email", data.has_email)):
        if value not in LeadRule.Has.values:
            found[name_] = [_("Choose yes, no or either.")]
    foreign = {
        "sequence": data.sequence is not None and data.sequence.tenant_id != tenant.pk,
        "phone": data.phone is not None and data.phone.tenant_id != tenant.pk,
        "operator": data.operator is not None
        and not operators_of(tenant).filter(pk=data.operator.pk).exists(),
    }
    for name_, wrong in foreign.items():
        if wrong:
            found[name_] = [_("Not one of this workspace's.")]
    return found


def _fill(rule: LeadRule, data: RuleData) -> None:
    rule.name = data.name.strip()
    rule.enabled = data.enabled
    rule.source, rule.form_id = data.source, data.form_id.strip()
    rule.county = data.county.strip()
    rule.tags, rule.add_tags = clean_tags(data.tags), clean_tags(data.add_tags)
    rule.has_phone, rule.has_email = data.has_phone, data.has_email
    rule.sequence, rule.operator, rule.phone = data.sequence, data.operator, data.phone


def draft(tenant: Tenant, data: RuleData, *, instance: LeadRule | None = None) -> LeadRule:
    """An unsaved rule holding `data` (in `instance`'s place): what the preview tries."""
    rule = LeadRule(tenant=tenant, position=instance.position if instance else 0)
    if instance is not None:
        rule.pk = instance.pk
    _fill(rule, data)
    return rule


def save(
    tenant: Tenant, data: RuleData, *, user: User | None = None, instance: LeadRule | None = None
) -> LeadRule:
    """Save a new rule (last in the order) or change one; RuleInvalid says what is wrong.
    It applies to leads created from now on."""
    found = problems(tenant, data, instance=instance)
    if found:
        raise RuleInvalid(found)
    with transaction.atomic():
        rule = instance or LeadRule(tenant=tenant, created_by=user)
        if instance is None:
            last = LeadRule.objects.filter(tenant=tenant).aggregate(last=Max("position"))
            rule.position = (last["last"] or 0) + 1
        _fill(rule, data)
        rule.save()
    return rule


def move(rule: LeadRule, step: int) -> bool:
    """Move the rule up (step -1) or down (+1) one place; False at either end. Positions
    are renumbered 1..n, so they stay distinct."""
    with transaction.atomic():
        ordered = list(
            LeadRule.objects.select_for_update()
            .filter(tenant_id=rule.tenant_id)
            .order_by("position", "pk")
        )
        index = next(i for i, r in enumerate(ordered) if r.pk == rule.pk)
        target = index + step
        if not 0 <= target < len(ordered):
            return False
        ordered[index], ordered[target] = ordered[target], ordered[index]
        for position, each in enumerate(ordered, 1):
            if each.position != position:
                LeadRule.objects.filter(pk=each.pk).update(position=position)
    return True


def set_enabled(rule: LeadRule, enabled: bool) -> None:
    LeadRule.objects.filter(pk=rule.pk).update(enabled=enabled, updated_at=timezone.now())
    rule.enabled = enabled


def delete(rule: LeadRule) -> None:
    """Delete the rule; the leads it took keep their firing (named as it was)."""
    rule.delete()


def taken_counts(tenant: Tenant, now: datetime | None = None) -> dict[int, int]:
    """Leads each rule took in the last TAKEN_DAYS days, by rule id (one query)."""
    since = (now or timezone.now()) - timedelta(days=TAKEN_DAYS)
    rows = (
        RuleFiring.objects.filter(tenant=tenant, rule__isnull=False, created_at__gte=since)
        .values("rule_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {row["rule_id"]: row["n"] for row in rows}


@dataclass(frozen=True)
class PreviewRow:
    """One recent lead: would the rule take it, or does an earlier rule take it first."""

    lead: Lead
    source: str  # a LeadRule.Source value
    matches: bool
    earlier: LeadRule | None  # an earlier enabled rule that takes the lead first

    @property
    def source_label(self) -> str:
        return str(LeadRule.Source(self.source).label)


def preview(tenant: Tenant, candidate: LeadRule, limit: int = PREVIEW_LEADS) -> list[PreviewRow]:
    """The tenant's latest `limit` leads under `candidate` (saved or not), each as if it
    were created now: its source from Lead.source, its form id from its firing if a rule
    recorded one. The rules before the candidate's place are tried first, as they would be."""
    leads = list(Lead.objects.filter(tenant=tenant).order_by("-created_at", "-pk")[:limit])
    forms = dict(
        RuleFiring.objects.filter(lead__in=leads)
        .exclude(form_id="")
        .order_by("created_at")
        .values_list("lead_id", "form_id")
    )
    enabled = list(LeadRule.objects.filter(tenant=tenant, enabled=True).order_by("position", "pk"))
    if candidate.pk is None:  # a new rule goes last
        before = enabled
    else:
        place = (candidate.position, candidate.pk)
        before = [r for r in enabled if r.pk != candidate.pk and (r.position, r.pk) < place]
    rows = []
    for lead in leads:
        intake = Intake(source_of(lead), forms.get(lead.pk, ""))
        earlier = winner(before, lead, intake)
        rows.append(PreviewRow(lead, intake.source, matches(candidate, lead, intake), earlier))
    return rows
