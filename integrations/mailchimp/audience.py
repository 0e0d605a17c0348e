"""The audience settings as an admin saves them on Settings → Mailchimp: each value checked
(a refusal names its field, and nothing is saved), the audience read from Mailchimp when the
sync is on (its merge fields; a wrong id or key is said at once), and a backfill queued when
what goes into the audience changed."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cerniq.models import Tenant
from cerniq.provider_errors import AuthenticationFailed, ProviderError, RejectedRequest
from integrations.mailchimp import config
from integrations.mailchimp.models import MailchimpAudience, default_stages
from outreach.models import Stage

_LIST_ID = re.compile(r"[A-Za-z0-9]{1,32}")
_FIELD_NAME_MAX = 64
# Settings whose change changes what goes into the audience: a backfill follows.
SYNCED_SETTINGS = (
    "enabled",
    "list_id",
    "stages",
    "status_if_new",
    "tag_stage",
    "tag_county",
    "tag_crop",
    "crop_field",
)


class SettingsRefused(ValueError):
    """A value the settings cannot take; `field` names it (the form's input)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def audience_of(tenant: Tenant) -> MailchimpAudience:
    """The tenant's settings (unsaved defaults before the first save)."""
    found = MailchimpAudience.objects.filter(tenant=tenant).first()
    return found or MailchimpAudience(tenant=tenant, stages=default_stages())


def _checked(data: Mapping[str, Any]) -> dict[str, Any]:
    """The form's values, each checked (SettingsRefused naming the first bad one)."""
    enabled = data.get("enabled") in ("on", "true", "1", True)
    list_id = str(data.get("list_id") or "").strip()
    if list_id and not _LIST_ID.fullmatch(list_id):
        raise SettingsRefused(
            "list_id",
            _(
                "The audience ID is letters and digits (e.g. a6b5da1054), as Mailchimp shows "
                "it under Audience → Settings → Audience name and defaults."
            ),
        )
    if enabled and not list_id:
        raise SettingsRefused("list_id", _("Give the audience ID to turn the sync on."))
    getlist = getattr(data, "getlist", None)
    stages = list(getlist("stages") if getlist else data.get("stages") or [])
    unknown = [stage for stage in stages if stage not in Stage.values]
    if unknown:
        raise SettingsRefused("stages", _("Unknown stage %(stage)s.") % {"stage": unknown[0][:40]})
    if enabled and not stages:
        raise SettingsRefused("stages", _("Choose at least one stage whose leads are added."))
    status = str(data.get("status_if_new") or MailchimpAudience.StatusIfNew.SUBSCRIBED)
    if status not in MailchimpAudience.StatusIfNew.values:
        raise SettingsRefused("status_if_new", _("Choose how a new address is added."))
    tag_crop = data.get("tag_crop") in ("on", "true", "1", True)
    crop_field = str(data.get("crop_field") or "").strip()
    if len(crop_field) > _FIELD_NAME_MAX:
        raise SettingsRefused("crop_field", _("At most %(n)d characters.") % {"n": _FIELD_NAME_MAX})
    if tag_crop and not crop_field:
        raise SettingsRefused(
            "crop_field", _("Name the lead's field that holds its crop to tag it.")
        )
    return {
        "enabled": enabled,
        "list_id": list_id,
        "stages": [value for value in Stage.values if value in stages],
        "status_if_new": status,
        "tag_stage": data.get("tag_stage") in ("on", "true", "1", True),
        "tag_county": data.get("tag_county") in ("on", "true", "1", True),
        "tag_crop": tag_crop,
        "crop_field": crop_field,
    }


def _read_audience(list_id: str) -> list[str]:
    """The audience's merge tags, or SettingsRefused saying why Mailchimp cannot be used."""
    if problem := config.problem():
        raise SettingsRefused("enabled", _("Mailchimp is not set up on the server: %s.") % problem)
    try:
        return config.client().merge_fields(list_id)
    except AuthenticationFailed:
        raise SettingsRefused(
            "enabled", _("Mailchimp refused the server's API key (MAILCHIMP_API_KEY).")
        ) from None
    except RejectedRequest as refused:
        if refused.status_code == 404:
            raise SettingsRefused(
                "list_id", _("Mailchimp has no audience with this ID in this account.")
            ) from None
        raise SettingsRefused("list_id", _("Mailchimp refused: %s") % refused) from None
    except ProviderError as error:
        raise SettingsRefused(
            "enabled", _("Mailchimp did not answer (%s): try again.") % type(error).__name__
        ) from None


def save_settings(tenant: Tenant, data: Mapping[str, Any]) -> tuple[MailchimpAudience, bool]:
    """Check and save the settings; (the audience, whether a backfill was queued)."""
    values = _checked(data)
    audience = audience_of(tenant)
    before = {name: getattr(audience, name) for name in SYNCED_SETTINGS}
    if values["enabled"]:
        values["merge_fields"] = _read_audience(values["list_id"])
    for name, value in values.items():
        setattr(audience, name, value)
    changed = audience.pk is None or before != {n: values[n] for n in SYNCED_SETTINGS}
    with transaction.atomic():
        audience.save()
        queued = bool(audience.enabled and changed)
        if queued:
            request_backfill(audience)
    return audience, queued


def request_backfill(audience: MailchimpAudience) -> None:
    """Queue the backfill once the current transaction commits ("sync now")."""
    audience.backfill_requested_at = timezone.now()
    audience.save(update_fields=["backfill_requested_at", "updated_at"])
    tenant_id = audience.tenant_id

    def queue() -> None:
        from integrations.mailchimp.tasks import backfill

        backfill.send(tenant_id)

    transaction.on_commit(queue)
