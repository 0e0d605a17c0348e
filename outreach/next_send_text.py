"""The words for a `NextSend` (outreach.next_send), in the reader's language (the active
translation), with moments in the tenant's local time: the pages and the API say the same."""

from __future__ import annotations

from datetime import datetime

from django.utils import dateformat, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from cerniq.formats import shown
from outreach.hours import Closure, SendingWindow, holiday_names
from outreach.next_send import NextSend, Reason


def moment(at: datetime, window: SendingWindow) -> str:
    """A moment as the tenant's clock shows it: "Wed 2 Dec 09:00" ("miercuri, 2 decembrie,
    09:00": Romanian writes day and month names in lower case)."""
    local = at.astimezone(window.tz)
    text = dateformat.format(local, pgettext("a moment of the sending window", "D j M H:i"))
    return text.lower() if translation.get_language() == "ro" else text


def holiday_list(next_send: NextSend) -> list[str]:
    """The names of the holidays that keep the window shut, in the reader's language."""
    window = next_send.window
    if window is None or not next_send.holidays:
        return []
    language = translation.get_language() or "en"
    names: list[str] = []
    for day in next_send.holidays:
        name = holiday_names(window.holiday_country, day.year, language).get(day, "")
        for part in name.split("; "):
            if part and part not in names:
                names.append(part)
    return names


def closure_text(next_send: NextSend) -> str:
    """Why the window is closed now, and what keeps it closed until it opens."""
    window = next_send.window
    if next_send.closure is None or window is None:
        return ""
    if next_send.closure == Closure.OUTSIDE_HOURS:
        now = _("outside sending hours, %(start)s–%(end)s") % {
            "start": shown(window.start, "TIME_FORMAT"),
            "end": shown(window.end, "TIME_FORMAT"),
        }
    elif next_send.closure == Closure.WEEKEND:
        now = _("weekend")
    elif next_send.closure == Closure.DAY_OFF:
        now = _("not a working day")
    else:
        now = ""
    names = holiday_list(next_send)
    if not names:
        return now
    count, holidays = len(names), "; ".join(names)  # a name may hold commas
    if not now:
        return ngettext("public holiday: %(names)s", "public holidays: %(names)s", count) % {
            "names": holidays
        }
    return ngettext(
        "%(now)s, then public holiday: %(names)s", "%(now)s, then public holidays: %(names)s", count
    ) % {"now": now, "names": holidays}


def reason_text(next_send: NextSend) -> str:
    """One sentence: why the next send is not now (or that it is)."""
    if next_send.reason == Reason.WINDOW_CLOSED:
        return _("The sending window is closed (%(why)s).") % {"why": closure_text(next_send)}
    return str(_REASONS[next_send.reason])


def banner_text(next_send: NextSend) -> str:
    """The closed-window banner: until when and why."""
    assert next_send.at is not None and next_send.window is not None
    return _("Sending is paused until %(moment)s (%(why)s).") % {
        "moment": moment(next_send.at, next_send.window),
        "why": closure_text(next_send),
    }


_REASONS = {
    Reason.NOW: translation.gettext_lazy("It can send now."),
    Reason.SENDING: translation.gettext_lazy("A send is in progress."),
    Reason.PACING: translation.gettext_lazy("The pause between two sends of the number."),
    Reason.PHONE_DISABLED: translation.gettext_lazy("The number is disabled."),
    Reason.PHONE_PAUSED: translation.gettext_lazy("The number is paused."),
    Reason.PHONE_OFFLINE: translation.gettext_lazy("The number is offline."),
    Reason.PHONE_BANNED: translation.gettext_lazy("The number is banned."),
    Reason.SCHEDULED: translation.gettext_lazy("The next step of the sequence is due then."),
    Reason.NOTHING_PLANNED: translation.gettext_lazy("No next step is planned."),
    Reason.STALLED: translation.gettext_lazy("Its sequence is stalled: see why under Stalled."),
    Reason.IN_REVIEW: translation.gettext_lazy("It waits for a person's review."),
    Reason.TAKEN_OVER: translation.gettext_lazy("A colleague has taken over the conversation."),
    Reason.NOT_AUTOMATED: translation.gettext_lazy("Its stage is outside automated outreach."),
}
