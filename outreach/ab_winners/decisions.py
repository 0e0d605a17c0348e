"""A/B decisions on a template: evaluate (periodically and on demand), suggest or apply,
and a person's confirm or dismiss. The rule is `rule.judge`; the counts `figures`.

Every change to a template's decisions and weights happens with the template's row locked,
as the template editor saves its versions (outreach.template_versions.save_versions), so a
decision never applies to versions someone is changing at that moment.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq.models import Tenant
from outreach.ab_winners import figures
from outreach.ab_winners.rule import DEFAULT_RULE, Arm, Rule, Verdict, changes, judge, settle
from outreach.models import ABDecision, Template, TemplateVersion

log = logging.getLogger(__name__)

Mode = Template.ABMode
Status = ABDecision.Status


class Refused(ValueError):
    """A person's confirm or dismiss cannot be done; the message says why."""


@dataclass(frozen=True)
class Evaluation:
    """One evaluation: the verdict, and the decision it made or kept (None: none)."""

    verdict: Verdict
    decision: ABDecision | None = None

    @property
    def applied(self) -> bool:
        return self.decision is not None and self.decision.status == Status.APPLIED


def standing(
    template: Template, *, now: datetime | None = None, rule: Rule = DEFAULT_RULE
) -> Verdict:
    """What the rule says of the template's versions now, changing nothing (the page shows
    it); losers a person already kept are left out (`rule.settle`)."""
    now = now or timezone.now()
    versions = figures.in_split([template.pk]).get(template.pk, [])
    counts = figures.counted(template.tenant, versions, now=now, rule=rule)
    verdict = judge(figures.arms(versions, counts), rule)
    if verdict.winner is None:
        return verdict
    return settle(verdict, _kept(template, verdict.winner.version_id))


def _kept(template: Template, winner_id: int) -> set[int]:
    """Versions already ruled on under this winner: retired by an applied decision (a
    person may have turned them back on since) or kept by a dismissed one."""
    kept: set[int] = set()
    for losers in ABDecision.objects.filter(
        template=template, winner_id=winner_id, status__in=[Status.APPLIED, Status.DISMISSED]
    ).values_list("losers", flat=True):
        kept.update(losers)
    return kept


def _lock(template: Template) -> Template:
    """The template's row, locked (its tenant read along, not locked: a lock on the tenant
    would hold every insert that refers to it until this transaction ends)."""
    return (
        Template.objects.select_for_update(no_key=True, of=("self",))
        .select_related("tenant")
        .get(pk=template.pk)
    )


def _open(template: Template) -> ABDecision | None:
    return ABDecision.objects.filter(template=template, status=Status.SUGGESTED).first()


def _withdraw(decision: ABDecision | None, why: str, now: datetime) -> None:
    if decision is None:
        return
    ABDecision.objects.filter(pk=decision.pk, status=Status.SUGGESTED).update(
        status=Status.SUPERSEDED, withdrawn_because=why, decided_at=now
    )
    decision.refresh_from_db()


def _planned(verdict: Verdict) -> list[dict]:
    assert verdict.winner is not None
    return [change.as_dict() for change in changes(verdict.winner, verdict.losers)]


def _record(template: Template, verdict: Verdict, now: datetime) -> Evaluation:
    """Keep, replace, withdraw or make the template's decision for this verdict, and apply
    it in automatic mode. The template's row is locked."""
    current = _open(template)
    if template.ab_mode == Mode.OFF:
        _withdraw(current, ABDecision.Withdrawn.OFF, now)
        return Evaluation(verdict)
    if verdict.key is None or verdict.winner is None:
        _withdraw(current, _why_replaced(current, verdict), now)
        return Evaluation(verdict)
    fields = {
        "rule": verdict.rule_dict(),
        "figures": verdict.figures(),
        "changes": _planned(verdict),
        "updated_at": now,
    }
    if current is not None and current.key == verdict.key:
        ABDecision.objects.filter(pk=current.pk).update(**fields)
        current.refresh_from_db()
        decision = current
    else:
        _withdraw(current, _why_replaced(current, verdict), now)
        decision = ABDecision.objects.create(
            tenant_id=template.tenant_id,
            template=template,
            winner_id=verdict.winner.version_id,
            losers=sorted(arm.version_id for arm in verdict.losers),
            created_at=now,
            **fields,
        )
        log.info(
            "A/B winner found",
            extra={"template": template.pk, "decision": decision.pk, "mode": template.ab_mode},
        )
    if template.ab_mode == Mode.AUTO:
        _apply(decision, by=None, now=now)
    return Evaluation(verdict, decision)


def _why_replaced(decision: ABDecision | None, verdict: Verdict) -> str:
    """A suggestion the verdict no longer gives: one of its versions left the split, or
    the figures moved."""
    if decision is None:
        return ""
    compared = {standing.arm.version_id for standing in verdict.standings}
    if not {decision.winner_id, *decision.losers} <= compared:
        return ABDecision.Withdrawn.VERSIONS
    return ABDecision.Withdrawn.FIGURES


def _apply(decision: ABDecision, *, by: AbstractBaseUser | None, now: datetime) -> bool:
    """Raise the winner's weight and retire the losers, as the versions stand now. False
    (and the suggestion withdrawn) when one of them left the split meanwhile."""
    ids = [decision.winner_id, *decision.losers]
    versions = {
        version.pk: version
        for version in TemplateVersion.objects.filter(template_id=decision.template_id, pk__in=ids)
    }
    in_split = all(
        (v := versions.get(pk)) is not None and v.is_active and not v.draft and v.weight > 0
        for pk in ids
    )
    if not in_split:
        _withdraw(decision, ABDecision.Withdrawn.VERSIONS, now)
        return False

    def arm(pk: int) -> Arm:
        version = versions[pk]
        return Arm(pk, version.version, version.weight, 0, 0)

    made = changes(arm(decision.winner_id), [arm(pk) for pk in decision.losers])
    for change in made:
        TemplateVersion.objects.filter(pk=change.version_id).update(
            weight=change.weight_after, is_active=change.active_after
        )
    ABDecision.objects.filter(pk=decision.pk).update(
        status=Status.APPLIED,
        changes=[change.as_dict() for change in made],
        automatic=by is None,
        decided_by=by,
        decided_at=now,
    )
    decision.refresh_from_db()
    log.info(
        "A/B decision applied",
        extra={"template": decision.template_id, "decision": decision.pk, "automatic": by is None},
    )
    return True


def evaluate(
    template: Template, *, now: datetime | None = None, rule: Rule = DEFAULT_RULE
) -> Evaluation:
    """Judge the template's versions now and record what follows from its mode: nothing
    (off), a suggestion (suggest), or the change made (automatic)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = _lock(template)
        return _record(locked, standing(locked, now=now, rule=rule), now)


def evaluate_all(now: datetime | None = None, rule: Rule = DEFAULT_RULE) -> dict[str, int]:
    """The periodic run: every template of the active workspaces that has two versions in
    its split or a suggestion waiting. Each template is judged in a transaction of its own."""
    now = now or timezone.now()
    done = {"templates": 0, "suggested": 0, "applied": 0}
    for tenant in Tenant.objects.filter(is_active=True).order_by("pk"):
        for template in candidates(tenant):
            evaluation = evaluate(template, now=now, rule=rule)
            done["templates"] += 1
            if evaluation.applied:
                done["applied"] += 1
            elif evaluation.decision is not None:
                done["suggested"] += 1
    return done


def candidates(tenant: Tenant) -> Iterable[Template]:
    """The tenant's templates worth judging: not off with two versions or more in the
    split, and any with a suggestion waiting (to withdraw it if need be)."""
    waiting = ABDecision.objects.filter(tenant=tenant, status=Status.SUGGESTED).values("template")
    templates = list(
        Template.objects.filter(tenant=tenant)
        .filter(~Q(ab_mode=Mode.OFF) | Q(pk__in=waiting))
        .select_related("tenant")
        .order_by("pk")
    )
    split = figures.in_split(t.pk for t in templates)
    waiting_ids = set(waiting.values_list("template", flat=True))
    return [t for t in templates if len(split.get(t.pk, [])) >= 2 or t.pk in waiting_ids]


def _waiting(template: Template, decision_id: int) -> ABDecision:
    decision = _open(template)
    if decision is None:
        raise Refused(_("No A/B suggestion is waiting for this template."))
    if decision.pk != decision_id:
        raise Refused(_("That suggestion was replaced by a newer one: look at its figures first."))
    return decision


def confirm(
    template: Template,
    decision_id: int,
    by: AbstractBaseUser,
    *,
    now: datetime | None = None,
    rule: Rule = DEFAULT_RULE,
) -> ABDecision:
    """A person confirms the waiting suggestion: applied if today's figures still give
    the same decision (else it is replaced by what they give, and Refused says so)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = _lock(template)
        decision = _waiting(locked, decision_id)
        verdict = standing(locked, now=now, rule=rule)
        if locked.ab_mode != Mode.OFF and verdict.key == decision.key:
            if _apply(decision, by=by, now=now):
                return decision
        else:
            _record(locked, verdict, now)
        decision.refresh_from_db()
    raise Refused(withdrawn_text(decision.withdrawn_because))


def withdrawn_text(why: str) -> str:
    """Why a person's confirm found the suggestion withdrawn, in their language."""
    if why == ABDecision.Withdrawn.OFF:
        return _("A/B decisions are off for this template; the suggestion was withdrawn.")
    if why == ABDecision.Withdrawn.VERSIONS:
        return _("A version it compared was changed or turned off; it was withdrawn.")
    return _("The figures changed since this was suggested; it was withdrawn.")


def dismiss(
    template: Template, decision_id: int, by: AbstractBaseUser, *, now: datetime | None = None
) -> ABDecision:
    """A person dismisses the waiting suggestion: nothing changes, and the same decision is
    not suggested again (`rule.settle`)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = _lock(template)
        decision = _waiting(locked, decision_id)
        ABDecision.objects.filter(pk=decision.pk).update(
            status=Status.DISMISSED, decided_by=by, decided_at=now
        )
        decision.refresh_from_db()
        return decision


def set_mode(template: Template, mode: str, *, now: datetime | None = None) -> Template:
    """Change what the rule may do with the template; turning it off withdraws a waiting
    suggestion. The next evaluation applies the mode."""
    if mode not in Mode.values:
        raise ValueError(f"unknown A/B mode {mode!r}")
    now = now or timezone.now()
    with transaction.atomic():
        locked = _lock(template)
        Template.objects.filter(pk=locked.pk).update(ab_mode=mode)
        if mode == Mode.OFF:
            _withdraw(_open(locked), ABDecision.Withdrawn.OFF, now)
    template.ab_mode = mode
    return template


def last_applied(template: Template) -> int:
    """The id of the template's latest applied decision (0: none): the editor refuses a
    form opened before it, whose weights would undo it."""
    found = (
        ABDecision.objects.filter(template=template, status=Status.APPLIED)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )
    return found or 0
