"""Alert channel URLs: what may be stored, how it is shown, where a notice goes.

A channel is one apprise URL (https://appriseit.com/services/): `mailto://`, `slack://`
(or Slack's own `https://hooks.slack.com/services/…`), `tgram://`, `json://` / `form://`
for a generic webhook, and every other service apprise knows. The URL carries the secret
(a webhook path, a bot token, an SMTP password), so:

- it is stored in the database only because the tenant configures it there;
- it is never logged and never shown back: pages, the admin and log lines show `masked()`;
- it may instead be `env://ALERTS_SOMETHING`, the name of an environment variable holding
  the URL, for deployments that keep secrets in the environment. Only names starting with
  `ALERTS_` may be referenced, so a tenant can never point a channel at another secret of
  the deployment (SECRET_KEY, DATABASE_URL, provider keys).

Platform-wide alerts (no tenant) go to `settings.ALERT_URLS`, the deployment's channels.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from cerniq import net_guard
from cerniq.alerts import SEVERITY_RANK
from cerniq.models import Alert, AlertChannel

if TYPE_CHECKING:
    from apprise.plugins import NotifyBase

ENV_SCHEME = "env://"
ENV_PREFIX = "ALERTS_"
_ENV_NAME = re.compile(r"^ALERTS_[A-Z0-9_]{1,100}$")
_MASK_KEEP = 8  # path segments longer than this are masked like apprise masks tokens


class ChannelURLError(ValueError):
    """The URL cannot be used; the message says why without repeating the URL."""


def resolve(url: str) -> str:
    """The apprise URL itself: `url`, or the value of the environment variable it names."""
    url = url.strip()
    if not url.startswith(ENV_SCHEME):
        return url
    name = url[len(ENV_SCHEME) :]
    if not _ENV_NAME.match(name):
        raise ChannelURLError(
            _("env:// must name an environment variable starting with %(prefix)s, e.g. %(x)s.")
            % {"prefix": ENV_PREFIX, "x": "env://ALERTS_SLACK_URL"}
        )
    value = os.environ.get(name, "").strip()
    if not value:
        raise ChannelURLError(_("The environment variable %(name)s is not set.") % {"name": name})
    return value


def _apprise() -> ModuleType:
    """apprise, imported when first needed: it costs a process some 40 MB once its plugins
    load, which a worker that never sends a notice should not pay."""
    import apprise

    return apprise


def service(url: str) -> NotifyBase:
    """The apprise service for `url` (env:// resolved), or ChannelURLError."""
    plugin = _apprise().Apprise.instantiate(resolve(url))
    if plugin is None:
        raise ChannelURLError(
            _(
                "Apprise cannot use this URL. Use a service URL such as "
                "slack://…, tgram://…, mailto://… or json://host/path."
            )
        )
    return plugin


# The apprise services a tenant's channel may use, by plugin class: each speaks HTTP through
# requests, passing on `redirects` (or SMTP through smtplib), so net_guard sees every name
# it resolves and every address it connects to (tests/cerniq/test_alert_channel_guard.py
# reads apprise's source to hold it to that). The value names the plugin's attribute that
# holds the host the tenant chose, checked when the channel is saved and before every
# send; None: the service's own host (checked as it is resolved). Apprise's other services
# (syslog, D-Bus, MQTT, XMPP, IRC, …) talk to this machine or through sockets and
# libraries the guard cannot follow: refused.
GUARDED_SERVICES: dict[str, str | None] = {
    "NotifyEmail": "smtp_host",
    "NotifyJSON": "host",
    "NotifyForm": "host",
    "NotifyXML": "host",
    "NotifyNtfy": "host",
    "NotifyGotify": "host",
    "NotifyMatrix": "host",
    "NotifyMattermost": "host",
    "NotifyRocketChat": "host",
    "NotifyWorkflows": "host",
    "NotifySlack": None,
    "NotifyTelegram": None,
    "NotifyDiscord": None,
    "NotifyGoogleChat": None,
    "NotifyPushover": None,
    "NotifyPagerDuty": None,
    "NotifyOpsgenie": None,
}


@dataclass(frozen=True)
class ChannelService:
    """A tenant channel's apprise service and the host it was given ("" for none)."""

    plugin: NotifyBase
    host: str


def channel_service(url: str) -> ChannelService:
    """A tenant channel's service (env:// resolved): one apprise can use and the guard can
    follow; else ChannelURLError. Its host is not resolved here."""
    plugin = service(url)
    kind = type(plugin).__name__
    if kind not in GUARDED_SERVICES:
        raise ChannelURLError(
            _(
                "Alerts cannot go to %(service)s: use e-mail (mailto://), Slack, Telegram, "
                "Discord, Google Chat, Microsoft Teams (workflow://), Pushover, PagerDuty, "
                "Opsgenie, ntfy, Gotify, Matrix, Mattermost, Rocket.Chat or a webhook "
                "(json://, form://, xml://)."
            )
            % {"service": plugin.service_name}
        )
    attribute = GUARDED_SERVICES[kind]
    host = str(getattr(plugin, attribute, "") or "") if attribute else ""
    # Never follow a redirect (the URL's own ?redirect=yes included): the guard would
    # vet its host, but a redirect is nothing a notice needs.
    plugin.redirects = False
    return ChannelService(plugin, host.strip("[]"))


def check_url(url: str) -> ChannelService:
    """A tenant channel's URL may be saved: a service from GUARDED_SERVICES whose host
    resolves only to public addresses (net_guard). ChannelURLError, or DestinationRefused."""
    found = channel_service(url)
    if found.host:
        net_guard.check_host(found.host)
    return found


def validate_url(url: str) -> None:
    """Model and form validator for a tenant's channel: ValidationError naming the problem
    (never the secret)."""
    try:
        check_url(url)
    except ChannelURLError as problem:
        raise ValidationError(str(problem), code="invalid_alert_url") from None
    except net_guard.DestinationRefused as refused:
        raise ValidationError(refused.message, code="refused_alert_host") from None


def _mask_segment(segment: str) -> str:
    if len(segment) <= _MASK_KEEP or "..." in segment:
        return segment
    return f"{segment[0]}...{segment[-1]}"


def masked(url: str) -> str:
    """How a channel URL is shown and logged: `env://NAME` as it is (the name is no secret);
    otherwise apprise's privacy form (passwords and tokens as `****` / `T...Q`) without its
    query string, and every long path segment cut to `a...z` (a generic webhook's secret
    path). A URL apprise cannot read shows only its scheme."""
    url = url.strip()
    if url.startswith(ENV_SCHEME):
        return url
    plugin = _apprise().Apprise.instantiate(url)
    if plugin is None:
        scheme = urlsplit(url).scheme
        return f"{scheme}://…" if scheme else "…"
    parts = urlsplit(plugin.url(privacy=True))
    path = "/".join(_mask_segment(segment) for segment in parts.path.split("/"))
    return f"{parts.scheme}://{parts.netloc}{path}".rstrip("/")


@dataclass(frozen=True)
class Target:
    """One place a notice is sent: a tenant's channel or one of the deployment's URLs."""

    key: str  # stable: "channel:12", or "settings:<hash of the URL>"
    name: str
    url: str  # as configured (may be env://); never logged, see `label`
    language: str
    channel_id: int | None = None

    @property
    def label(self) -> str:
        return f"{self.name} ({masked(self.url)})"


def channel_target(channel: AlertChannel) -> Target:
    return Target(
        key=f"channel:{channel.pk}",
        name=channel.name,
        url=channel.url,
        language=channel.language,
        channel_id=channel.pk,
    )


def deployment_targets() -> list[Target]:
    """settings.ALERT_URLS, for alerts that belong to no tenant."""
    return [
        Target(
            key="settings:" + hashlib.sha256(url.encode()).hexdigest()[:12],
            name=_("deployment channel %(n)s") % {"n": n},
            url=url,
            language=settings.LANGUAGE_CODE,
        )
        for n, url in enumerate(settings.ALERT_URLS, start=1)
    ]


def takes(channel: AlertChannel, alert: Alert) -> bool:
    """Does this channel want this alert: its kind (all when none are listed), at or above
    its lowest severity. The "resolved" notice goes where the alert went."""
    if channel.kinds and alert.kind not in channel.kinds:
        return False
    return SEVERITY_RANK[alert.severity] >= SEVERITY_RANK[channel.min_severity]


def targets_for(alert: Alert, channels: Iterable[AlertChannel]) -> list[Target]:
    """Where `alert` goes: its tenant's enabled channels that take it (`channels` are the
    tenant's, loaded by the caller), or the deployment's URLs for a platform-wide alert."""
    if alert.tenant_id is None:
        return deployment_targets()
    return [
        channel_target(channel)
        for channel in channels
        if channel.enabled and channel.tenant_id == alert.tenant_id and takes(channel, alert)
    ]
