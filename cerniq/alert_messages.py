"""The words of an alert notice: a short title and a few lines a person reads on a phone,
in the channel's language (gettext; the lead's translation pass adds Romanian)."""

from __future__ import annotations

import zoneinfo
from datetime import datetime

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cerniq import reasons
from cerniq.formats import shown
from cerniq.models import Alert, AlertChannel

Notice = Alert.Notice


def _local(moment: datetime, alert: Alert) -> str:
    zone_name = alert.tenant.time_zone if alert.tenant else settings.TIME_ZONE
    try:
        zone = zoneinfo.ZoneInfo(zone_name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo(settings.TIME_ZONE)
    return shown(moment, "SHORT_DATETIME_FORMAT", zone)


def compose(alert: Alert, notice: str, language: str, link: str) -> tuple[str, str]:
    """(title, body) of one notice about `alert`."""
    with translation.override(language):
        said = {
            "severity": Alert.Severity(alert.severity).label,
            "kind": Alert.Kind(alert.kind).label,
            "subject": alert.subject,
        }
        if notice == Notice.RESOLVED:
            title = _("Resolved: %(kind)s, %(subject)s") % said
        elif notice == Notice.REMINDER:
            title = _("Still open: [%(severity)s] %(kind)s, %(subject)s") % said
        else:
            title = _("[%(severity)s] %(kind)s, %(subject)s") % said
        lines = [reasons.render(alert.message), ""]  # a reason code reads in the channel's language
        lines.append(_("Severity: %(severity)s · Kind: %(kind)s") % said)
        lines.append(_("About: %(subject)s") % said)
        if alert.tenant:
            lines.append(_("Workspace: %(name)s") % {"name": alert.tenant.name})
        lines.append(
            ngettext(
                "Seen %(count)s time, first %(first)s, last %(last)s.",
                "Seen %(count)s times, first %(first)s, last %(last)s.",
                alert.occurrences,
            )
            % {
                "count": alert.occurrences,
                "first": _local(alert.first_seen_at, alert),
                "last": _local(alert.last_seen_at, alert),
            }
        )
        if notice == Notice.RESOLVED and alert.resolved_at:
            lines.append(_("Resolved %(when)s.") % {"when": _local(alert.resolved_at, alert)})
        elif notice == Notice.REMINDER:
            lines.append(_("Nobody has acknowledged it yet."))
        lines.append(_("Alerts: %(link)s") % {"link": link})
        return title, "\n".join(lines)


def channel_check_message(channel: AlertChannel, language: str, link: str) -> tuple[str, str]:
    with translation.override(language):
        title = _("Test notification from Cerniq Outreach")
        body = _(
            "The alert channel “%(name)s” works: alerts of workspace %(tenant)s will arrive "
            "here.\nAlerts: %(link)s"
        ) % {"name": channel.name, "tenant": channel.tenant.name, "link": link}
        return title, body
