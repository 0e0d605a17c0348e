"""`{% next_send answer %}`: a `NextSend` (outreach.next_send) as every page shows it, the
moment in the tenant's local time and why it is not now as the tooltip, so the dashboard,
the phone cards, the queue view and the lead page read the same."""

from __future__ import annotations

from datetime import UTC, date

from django import template
from django.utils import dateformat, formats
from django.utils.html import format_html
from django.utils.translation import gettext as _

from outreach.next_send import NextSend
from outreach.next_send_text import banner_text, moment, reason_text

register = template.Library()


@register.simple_tag
def next_send(answer: NextSend, today: date | None = None) -> str:
    """`today` (the tenant's local date): a moment on that day shows as its time alone,
    "14:30", where a narrow cell has no room for "Sat 28 Nov 14:30" (the tooltip keeps the
    whole moment)."""
    title = reason_text(answer)
    if answer.at is None:
        label, stamp = "—", "never"
    elif answer.is_now:
        label, stamp = _("now"), "now"
    else:
        assert answer.window is not None
        label, stamp = moment(answer.at, answer.window), answer.at.astimezone(UTC).isoformat()
        local = answer.at.astimezone(answer.window.tz)
        if local.date() == today:
            title = f"{label} · {title}" if title else label
            label = dateformat.time_format(local, formats.get_format("TIME_FORMAT"))
    return format_html(
        '<span class="next-send" data-next-send="{}" data-reason="{}" title="{}">{}</span>',
        stamp,
        answer.reason.value,
        title,
        label,
    )


@register.simple_tag
def window_banner(answer: NextSend) -> str:
    """ "Sending is paused until Wed 2 Dec 09:00 (weekend, then public holidays: …)"."""
    return banner_text(answer)


@register.simple_tag
def next_send_reason(answer: NextSend) -> str:
    """Why the next send is not now, in words."""
    return reason_text(answer)
