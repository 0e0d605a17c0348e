"""The counts the A/B rule judges: per template version, its sends old enough to count and
how many of them drew a positive reply.

Not the versions' running counters (`sent_count`, `positive_reply_count`): those count
positive *replies* (a lead who answers twice counts twice), and every send at once, so a
version added last week, whose sends are still waiting for their answers, would look worse
than an old one. Here a send counts once it is `Rule.maturity_hours` old, and as positive
when at least one positive reply is attributed to it, whenever it came: the cohort view of
the sequence results (outreach.analytics.sequences), with the definitions every figure
shares (outreach.analytics.definitions: SENT, POSITIVE, the attribution rule).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db.models import Count, Q

from cerniq.models import Tenant
from outreach.ab_winners.rule import Arm, Rule
from outreach.analytics.definitions import POSITIVE, SENT
from outreach.analytics.sequences import answered
from outreach.models import Message, TemplateVersion


def in_split(template_ids: Iterable[int]) -> dict[int, list[TemplateVersion]]:
    """The versions dispatch chooses from (active, approved, weight above 0), per template,
    oldest first: the versions the rule compares."""
    found: dict[int, list[TemplateVersion]] = {}
    for version in TemplateVersion.objects.filter(
        template_id__in=list(template_ids), is_active=True, draft=False, weight__gt=0
    ).order_by("template_id", "version"):
        found.setdefault(version.template_id, []).append(version)
    return found


def counted(
    tenant: Tenant, versions: Iterable[TemplateVersion], *, now: datetime, rule: Rule
) -> dict[int, tuple[int, int]]:
    """(sends, positive sends) per version id, of sends made before now − maturity: one
    query, however many versions."""
    ids = [version.pk for version in versions]
    if not ids:
        return {}
    before = now - timedelta(hours=rule.maturity_hours)
    cohort = (
        Message.objects.filter(tenant=tenant, template_version_id__in=ids, is_manual=False)
        .filter(SENT & Q(sent_at__lt=before))
        .order_by()
    )
    rows = cohort.values("template_version").annotate(
        sent=Count("pk"),
        positive=Count("pk", filter=Q(pk__in=answered(tenant, cohort, None, POSITIVE))),
    )
    return {row["template_version"]: (row["sent"], row["positive"]) for row in rows}


def arms(versions: list[TemplateVersion], counts: dict[int, tuple[int, int]]) -> list[Arm]:
    """The rule's view of these versions, with their counts (0 when none yet)."""
    return [
        Arm(
            version_id=version.pk,
            version=version.version,
            weight=version.weight,
            sent=counts.get(version.pk, (0, 0))[0],
            positive=counts.get(version.pk, (0, 0))[1],
        )
        for version in versions
    ]
