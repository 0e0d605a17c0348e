"""A lead's contact readiness as the API shows it (outreach.readiness, the one rule)."""

from __future__ import annotations

from collections.abc import Iterable

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.fields import reason_code
from cerniq import reasons
from cerniq.models import Tenant
from outreach.models import Enrollment, Lead
from outreach.readiness import ContactPolicy, Readiness, State, readiness_many
from outreach.readiness import for_tenant as readiness_of


class ChannelReadinessSerializer(serializers.Serializer):
    state = serializers.ChoiceField(
        State.choices,
        help_text="`ready`: checked and usable; `unverified`: nobody has checked the number "
        "or address yet (contacted when the workspace's policy says so, see `usable`); "
        "`blocked`: cannot be contacted (see the reason).",
    )
    usable = serializers.BooleanField(help_text="Outreach may send on this channel now.")
    reason_code = serializers.CharField(
        help_text="Why not ready, as a stable code (e.g. `readiness.not_on_whatsapp`, "
        "`readiness.opted_out`, `readiness.phone_unchecked`); empty when ready."
    )
    reason = serializers.CharField(help_text="The same, in the request's language.")
    text = serializers.CharField(help_text="The state and reason in words, as the pages say.")


class StalledSerializer(serializers.Serializer):
    since = serializers.DateTimeField()
    reason_code = serializers.CharField(help_text="e.g. `dispatch.no_channel`.")
    reason = serializers.CharField(help_text="In the request's language.")


class ReadinessSerializer(serializers.Serializer):
    whatsapp = ChannelReadinessSerializer()
    email = ChannelReadinessSerializer()
    contactable = serializers.BooleanField(
        help_text="Some channel is usable now (the `contactable` filter selects on it)."
    )
    stalled = StalledSerializer(
        allow_null=True,
        help_text="The running enrollment that dispatch cannot move on, and why; null "
        "when none (the `stalled` filter selects on it).",
    )


def _channel(channel) -> dict:
    return {
        "state": channel.state,
        "usable": channel.usable,
        "reason_code": reason_code(channel.reason),
        "reason": reasons.render(channel.reason),
        "text": channel.text,
    }


def _stalled(enrollment: Enrollment | None) -> dict | None:
    if enrollment is None:
        return None
    return {
        "since": enrollment.stalled_since,
        "reason_code": reason_code(enrollment.stalled_reason),
        "reason": reasons.render(enrollment.stalled_reason),
    }


def _stalled_of(lead_ids: list[int]) -> dict[int, Enrollment]:
    return {
        e.lead_id: e
        for e in Enrollment.objects.filter(
            lead_id__in=lead_ids, status=Enrollment.Status.ACTIVE, stalled_since__isnull=False
        ).only("lead_id", "stalled_since", "stalled_reason")
    }


def attach_readiness(leads: Iterable[Lead], tenant: Tenant) -> None:
    """Compute the readiness of a page of leads at once (two or three queries), so the
    serializer does not ask per lead."""
    leads = list(leads)
    ready = readiness_many(leads, policy=ContactPolicy.of(tenant))
    stalled = _stalled_of([lead.pk for lead in leads])
    for lead in leads:
        lead.api_readiness = (ready[lead.pk], stalled.get(lead.pk))


@extend_schema_field(ReadinessSerializer)
class ReadinessField(serializers.Field):
    """`readiness` of a lead: per channel, contactable, stalled."""

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, lead: Lead) -> dict:
        found: tuple[Readiness, Enrollment | None] | None = getattr(lead, "api_readiness", None)
        if found is None:
            found = (readiness_of(lead), _stalled_of([lead.pk]).get(lead.pk))
        ready, stalled = found
        return {
            "whatsapp": _channel(ready.whatsapp),
            "email": _channel(ready.email),
            "contactable": ready.contactable,
            "stalled": _stalled(stalled),
        }


class ReasonCountSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    reason_code = serializers.CharField()
    reason = serializers.CharField(help_text="In the request's language.")


class ImportReadinessSerializer(serializers.Serializer):
    ready = serializers.IntegerField(help_text="Can be contacted now on a checked channel.")
    unverified = ReasonCountSerializer(
        many=True,
        help_text="Will be contacted though nobody has checked the number or address yet "
        "(the workspace's policy), per reason.",
    )
    not_contactable = ReasonCountSerializer(many=True, help_text="Cannot be contacted, per reason.")


def _counts(found: dict[str, int]) -> list[dict]:
    rows = [
        {"count": n, "reason_code": reason_code(code) or code, "reason": reasons.render(code)}
        for code, n in found.items()
    ]
    return sorted(rows, key=lambda row: (-row["count"], row["reason_code"]))


@extend_schema_field(ImportReadinessSerializer(allow_null=True))
class ImportReadinessField(serializers.Field):
    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, job) -> dict | None:
        tally = job.readiness
        if tally is None:
            return None
        return {
            "ready": tally.ready,
            "unverified": _counts(tally.unchecked),
            "not_contactable": _counts(tally.blocked),
        }


class RejectedRowSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    reason = serializers.CharField()
    reason_code = serializers.CharField()


@extend_schema_field(RejectedRowSerializer(many=True))
class RejectedRowsField(serializers.Field):
    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)

    def to_representation(self, rows: list) -> list[dict]:
        return [
            {
                "line": row.get("line"),
                "reason": reasons.render(row.get("reason", "")),
                "reason_code": reason_code(row.get("reason", "")),
            }
            for row in rows or []
        ]
