"""Instantly campaign and lead payloads, built from plain inputs (pure functions, no I/O).

How our sequences become an Instantly campaign
----------------------------------------------
Our templates are spintax (outreach/spintax.py) rendered per lead with a seed, so a retry
sends the same words and analytics can tell the variants apart by their hash. Instantly has
variants of its own (`steps[].variants[]`), but it picks among them itself, per lead, and
would only ever send the few texts we enumerated. So we render per lead, as for WhatsApp,
and hand Instantly the finished text through the lead's `custom_variables`:

- the campaign's step N has one variant whose subject is `{{subject_N}}` and body
  `{{body_N}}` (`campaign_payload`);
- every lead carries `subject_1`, `body_1`, `subject_2`, … with our rendered text
  (`lead_payload`), plus whatever scalar variables the caller adds (e.g. the variant hash).

Every lead then receives exactly the text we rendered and recorded, and Instantly's own
A/B machinery stays out of the way. Instantly only accepts scalar custom variables
(docs/providers.md §2.6); a rendered text containing `{{` is refused, because Instantly would
read it as one of its variables.

The schedule is the tenant's sending window (outreach.hours.SendingWindow): its hours, its
working days, and its time zone mapped onto one Instantly accepts (timezones.py). Public
holidays cannot be told to Instantly (a schedule has weekdays only): the caller pauses the
campaign on those days.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import time

from integrations.instantly.timezones import instantly_timezone

MAX_STEPS = 30  # far more than any sequence of ours; keeps the payload bounded
Scalar = str | int | float | bool | None


@dataclass(frozen=True)
class Schedule:
    """When Instantly may send: local hours [start, end) on `days` (Python weekdays,
    Monday = 0, as Tenant.working_days) in the IANA zone `time_zone`."""

    time_zone: str
    start: time
    end: time
    days: frozenset[int]

    @classmethod
    def for_window(cls, window) -> Schedule:
        """From an outreach.hours.SendingWindow (SendingWindow.for_tenant(tenant))."""
        return cls(time_zone=window.tz.key, start=window.start, end=window.end, days=window.days)


def _hhmm(value: time) -> str:
    if value.second or value.microsecond:
        raise ValueError(f"Instantly schedules whole minutes, not {value.isoformat()}")
    return value.strftime("%H:%M")


def schedule_payload(schedule: Schedule, *, year: int | None = None) -> dict:
    """`campaign_schedule` for `POST /api/v2/campaigns`. Instantly numbers days as JavaScript
    does (0 = Sunday, per its OpenAPI), ours are Python weekdays (0 = Monday)."""
    if not schedule.days or not schedule.days <= frozenset(range(7)):
        raise ValueError(f"working days must be a non-empty subset of 0..6: {schedule.days}")
    if not schedule.start < schedule.end:
        raise ValueError(f"window start {schedule.start} must be before end {schedule.end}")
    sunday_first = {(weekday + 1) % 7 for weekday in schedule.days}
    return {
        "schedules": [
            {
                "name": "Sending window",
                "timing": {"from": _hhmm(schedule.start), "to": _hhmm(schedule.end)},
                "days": {str(day): day in sunday_first for day in range(7)},
                "timezone": instantly_timezone(schedule.time_zone, year=year),
            }
        ]
    }


def subject_variable(step: int) -> str:
    return f"subject_{step}"


def body_variable(step: int) -> str:
    return f"body_{step}"


def campaign_payload(
    *,
    name: str,
    step_delays_days: Sequence[int],
    schedule: Schedule,
    daily_limit: int,
    senders: Sequence[str],
    stop_on_auto_reply: bool = False,
    insert_unsubscribe_header: bool = True,
    open_tracking: bool = False,
    link_tracking: bool = False,
    stop_for_company: bool = False,
    text_only: bool = False,
    email_gap_minutes: int | None = None,
    year: int | None = None,
) -> dict:
    """The body of `POST /api/v2/campaigns` for a sequence of `len(step_delays_days)` emails.

    `step_delays_days[i]` is the wait before step i+1, in days after the previous step (our
    SequenceStep meaning; the first is ignored: step 1 goes when the lead is added). Instantly
    puts the wait on the step *before* (`delay`: "before sending the NEXT email"), so the
    list is shifted by one here.

    Defaults, and why:
    - `stop_on_reply` is always on: a reply goes to a person (hitl), never to step 2.
    - `stop_on_auto_reply` off: an out-of-office is handled by our triage, which resumes.
    - `insert_unsubscribe_header` on: Gmail and Yahoo require one-click List-Unsubscribe
      for bulk senders.
    - open and link tracking off: tracking pixels and rewritten links hurt cold email
      deliverability, and opens are unreliable (Apple Mail Privacy Protection).
    - `stop_for_company` off: Instantly's "company" is the address's domain, and many of our
      farms write from gmail.com or yahoo.com; one reply would stop them all. Our reply path
      stops the other contacts of the same company by its CUI instead.
    """
    name = (name or "").strip()
    if not name:
        raise ValueError("a campaign needs a name")
    if not 1 <= len(step_delays_days) <= MAX_STEPS:
        raise ValueError(f"a campaign has 1 to {MAX_STEPS} steps, not {len(step_delays_days)}")
    if any(not isinstance(d, int) or isinstance(d, bool) or d < 0 for d in step_delays_days):
        raise ValueError(f"step delays must be whole days >= 0: {list(step_delays_days)}")
    if not isinstance(daily_limit, int) or daily_limit < 1:
        raise ValueError(f"daily_limit must be a positive whole number, not {daily_limit!r}")
    senders = [s.strip() for s in senders if s and s.strip()]
    if not senders or any("@" not in s for s in senders):
        raise ValueError("at least one sending account (an email address) is required")
    steps = []
    for index in range(len(step_delays_days)):
        number = index + 1
        after = step_delays_days[index + 1] if number < len(step_delays_days) else 0
        steps.append(
            {
                "type": "email",
                "delay": after,
                "delay_unit": "days",
                "variants": [
                    {
                        "subject": "{{" + subject_variable(number) + "}}",
                        "body": "{{" + body_variable(number) + "}}",
                    }
                ],
            }
        )
    payload: dict = {
        "name": name,
        "campaign_schedule": schedule_payload(schedule, year=year),
        "sequences": [{"steps": steps}],  # Instantly reads sequences[0] only
        "email_list": senders,
        "daily_limit": daily_limit,
        "stop_on_reply": True,
        "stop_on_auto_reply": stop_on_auto_reply,
        "stop_for_company": stop_for_company,
        "insert_unsubscribe_header": insert_unsubscribe_header,
        "open_tracking": open_tracking,
        "link_tracking": link_tracking,
        "text_only": text_only,
    }
    if email_gap_minutes is not None:
        payload["email_gap"] = email_gap_minutes
    return payload


def text_to_html(text: str) -> str:
    """A plain-text body as Instantly wants HTML: escaped, line breaks as `<br/>`."""
    lines = html.escape(text.replace("\r\n", "\n"), quote=False).split("\n")
    return "<br/>".join(lines)


def _check_text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{where} must be text")
    if "{{" in value or "}}" in value:
        raise ValueError(f"{where} contains '{{{{' or '}}}}', which Instantly reads as a variable")
    return value


def lead_payload(
    *,
    email: str,
    steps: Sequence[tuple[str, str]],
    first_name: str = "",
    company_name: str = "",
    variables: Mapping[str, Scalar] | None = None,
) -> dict:
    """One lead of `POST /api/v2/leads/add`: `steps` are the rendered (subject, body_html) of
    every step, in order, and become `subject_N` / `body_N`; `variables` are extra scalar
    custom variables (e.g. {"cerniq_lead": 42, "variant_1": "<hash>"})."""
    email = (email or "").strip()
    if "@" not in email:
        raise ValueError(f"not an email address: {email[:80]!r}")
    if not steps:
        raise ValueError("a lead needs the rendered text of at least one step")
    custom: dict[str, Scalar] = {}
    for key, value in (variables or {}).items():
        if not isinstance(value, str | int | float | bool | type(None)):
            raise ValueError(
                f"custom variable {key!r} must be a scalar, not {type(value).__name__}"
            )
        custom[key] = value
    for index, (subject, body) in enumerate(steps, start=1):
        if not subject.strip() and index == 1:
            raise ValueError("the first email needs a subject")
        custom[subject_variable(index)] = _check_text(subject, f"step {index} subject")
        custom[body_variable(index)] = _check_text(body, f"step {index} body")
    lead: dict = {"email": email, "custom_variables": custom}
    if first_name:
        lead["first_name"] = first_name
    if company_name:
        lead["company_name"] = company_name
    return lead
