"""Cold email through Instantly: the `EmailBackend` behind `email.instantly`.

Instantly does not send one email per call: leads are added to a campaign (up to 1,000 per
`POST /api/v2/leads/add`) and Instantly sends on the campaign's schedule. So `send_many`
is the real operation (outreach.pushing hands over batches of `max_batch`):

1. the emails are grouped by their campaign key (`tenant:<id>:sequence:<id>`), each
   resolved to the tenant's Instantly campaign for that sequence (campaign_sync, created
   and activated the first time); a paused or completed campaign refuses its group with a
   retryable `CampaignNotSending` (the messages wait; operators resume the campaign);
2. each lead carries our rendered subject and body as `subject_1` / `body_1` and the
   message's idempotency key as `cerniq_key` (campaigns.lead_payload), and is added with
   `skip_if_in_workspace`, so a repeated push adds nothing twice;
3. a created lead is sent (its Instantly lead id is the provider message id). A lead not
   created is looked up in the campaign (`POST /api/v2/leads/list`): there with our key
   (a push whose answer was lost) it is sent, never pushed twice; otherwise Instantly
   refused it (`InvalidRecipient` when it counted invalid addresses and nothing else
   explains the refusal or the address is malformed, else `RejectedRequest`);
4. a failed call fails every message of its chunk with that error (nothing is raised).

`find_sent` (reconciling an attempt whose worker died) finds the lead by its address and
its `cerniq_key`; an in-thread answer (`POST /api/v2/emails/reply`, which takes no
idempotency key) is found among the lead's recent non-campaign emails: one sent from the
answering account, with the answer's subject, since the attempt began.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from cerniq import reasons
from cerniq.models import Tenant
from cerniq.provider_errors import (
    InvalidRecipient,
    ProviderError,
    QuotaExceeded,
    RejectedRequest,
    SendResult,
)
from email_channels.backends import EmailBackend, OutgoingEmail, SentQuery
from email_channels.models import EmailCampaign
from integrations.instantly import campaigns
from integrations.instantly.campaign_sync import PROVIDER, ensure_campaign
from integrations.instantly.client import API_BASE, MAX_LEADS_PER_CALL, InstantlyClient
from integrations.instantly.results import AddLeadsResult
from outreach.models import Sequence as OutreachSequence

KEY_VARIABLE = "cerniq_key"
_CAMPAIGN_KEY = re.compile(r"tenant:(\d+):sequence:(\d+)")
Result = SendResult | ProviderError


class CampaignNotSending(QuotaExceeded):
    """The tenant's Instantly campaign is paused or completed: its messages wait for the
    next day's window (the retry table's quota row), until operators resume it."""


def variables(lead: dict[str, Any]) -> dict[str, Any]:
    """A listed lead's custom variables (Instantly's Lead `payload`)."""
    found = lead.get("payload")
    if not isinstance(found, dict):
        found = lead.get("custom_variables")
    return found if isinstance(found, dict) else {}


def lead_for(email: OutgoingEmail, key: str) -> dict[str, Any]:
    """The `leads/add` item of one email: our rendered text and the idempotency key."""
    body = email.html or campaigns.text_to_html(email.text)
    return campaigns.lead_payload(
        email=email.to, steps=[(email.subject, body)], variables={KEY_VARIABLE: key}
    )


def _valid_address(address: str) -> bool:
    try:
        validate_email(address)
    except ValidationError:
        return False
    return True


class InstantlyEmail(EmailBackend):
    max_batch = MAX_LEADS_PER_CALL
    required_options = ("senders",)  # a campaign cannot be created without its accounts

    def __init__(
        self,
        *,
        api_key: str = "",
        base_url: str = API_BASE,
        senders: str = "",
        daily_limit: str | int = "",
        client: InstantlyClient | None = None,
        **_: Any,
    ) -> None:
        self.client = client or InstantlyClient(api_key=api_key, base_url=base_url or API_BASE)
        self.senders = senders
        self.daily_limit = daily_limit

    def __repr__(self) -> str:
        return f"<InstantlyEmail {self.client.base_url}>"

    # --- the EmailBackend interface ---------------------------------------------------------

    def send(self, email: OutgoingEmail, *, idempotency_key: str) -> SendResult:
        if email.in_reply_to:
            return self._reply(email)
        result = self.send_many([(email, idempotency_key)])[0]
        if isinstance(result, ProviderError):
            raise result
        return result

    def send_many(self, emails: Sequence[tuple[OutgoingEmail, str]]) -> list[Result]:
        results: list[Result | None] = [None] * len(emails)
        groups: dict[str, list[int]] = {}
        for index, (email, _key) in enumerate(emails):
            groups.setdefault(email.campaign, []).append(index)
        for campaign_key, indexes in groups.items():
            try:
                campaign_id = self.campaign_for(campaign_key)
            except ProviderError as error:
                for index in indexes:
                    results[index] = error
                continue
            for start in range(0, len(indexes), MAX_LEADS_PER_CALL):
                chunk = indexes[start : start + MAX_LEADS_PER_CALL]
                pushed = self._push(campaign_id, [emails[i] for i in chunk])
                for index, result in zip(chunk, pushed, strict=True):
                    results[index] = result
        return [r for r in results if r is not None]

    def _reply(self, email: OutgoingEmail) -> SendResult:
        """An answer in the thread of a lead's reply (`POST /api/v2/emails/reply`), from the
        account that received it. Instantly takes no idempotency key here: an answer whose
        outcome is unknown is looked for by `_find_answer` before it is sent again."""
        if not email.sender:
            raise RejectedRequest("the Instantly account that received the reply is unknown")
        answer = self.client.reply(
            reply_to_uuid=email.in_reply_to,
            eaccount=email.sender,
            subject=email.subject,
            html=email.html,
            text=email.text,
        )
        return SendResult(str(answer.get("id") or ""), answer, thread_id=email.in_reply_to)

    def find_sent(
        self,
        *,
        idempotency_key: str,
        to: str,
        since: datetime,
        email: OutgoingEmail | None = None,
    ) -> SendResult | None:
        query = SentQuery(idempotency_key=idempotency_key, to=to, since=since, email=email)
        return self.find_sent_many([query])[0]

    def find_sent_many(self, sends: Sequence[SentQuery]) -> list[SendResult | None]:
        """Pushed leads are looked up by their addresses in one `leads/list` search (paged,
        100 addresses a page): ours carries our key (`cerniq_key`), or was pushed into one
        of our campaigns without one (by hand, or before keys existed). An answer in a
        thread is looked for on its own (`_find_answer`)."""
        found: list[SendResult | None] = [None] * len(sends)
        pushed = []
        for n, query in enumerate(sends):
            if query.email is not None and query.email.in_reply_to:
                found[n] = self._find_answer(query.email, query.since)
            else:
                pushed.append(n)
        if not pushed:
            return found
        by_address: dict[str, list[dict[str, Any]]] = {}
        for lead in self.client.find_leads(contacts=[sends[n].to for n in pushed]):
            by_address.setdefault(str(lead.get("email") or "").lower(), []).append(lead)
        ours: set[Any] | None = None
        for n in pushed:
            leads = by_address.get(sends[n].to.lower(), [])
            keyed = [lead for lead in leads if variables(lead).get(KEY_VARIABLE)]
            for lead in keyed:
                if variables(lead)[KEY_VARIABLE] == sends[n].idempotency_key:
                    found[n] = _result(lead, found=True)
                    break
            if found[n] is not None or len(keyed) == len(leads):
                continue
            if ours is None:
                ours = set(
                    EmailCampaign.objects.filter(provider=PROVIDER)
                    .exclude(external_id="")
                    .values_list("external_id", flat=True)
                )
            for lead in leads:  # pushed without our key (by hand, or before keys existed)
                if lead.get("campaign") in ours and KEY_VARIABLE not in variables(lead):
                    found[n] = _result(lead, found=True)
                    break
        return found

    def _find_answer(self, email: OutgoingEmail, since: datetime) -> SendResult | None:
        """Our in-thread answer if Instantly has it: among the lead's newest non-campaign
        emails (one `GET /api/v2/emails`, 20 a minute, so only when reconciling), one sent
        from the answering account with this subject no earlier than the attempt. An
        answer someone typed in Instantly's Unibox meanwhile, with the same subject, counts
        too: the lead is answered either way, and a second answer is what must not happen."""
        if not email.sender:
            return None
        sender = email.sender.strip().lower()
        subject = _subject_key(email.subject)
        for item in self.client.recent_emails(lead=email.to, eaccount=email.sender):
            sent_by = str(item.get("from_address_email") or "")  # not eaccount: the inbox
            created = _timestamp(item.get("timestamp_created"))
            if (
                sent_by.strip().lower() == sender
                and created is not None
                and created >= since
                and _subject_key(str(item.get("subject") or "")) == subject
            ):
                return SendResult(str(item.get("id") or ""), item, thread_id=email.in_reply_to)
        return None

    # --- campaigns ----------------------------------------------------------------------

    def activate_campaign(self, external_id: str) -> None:
        """Start or resume sending (operators resume a paused campaign this way)."""
        self.client.activate_campaign(external_id)

    def pause_campaign(self, external_id: str) -> None:
        self.client.pause_campaign(external_id)

    def campaign_status(self, external_id: str) -> str:
        """Instantly's reason the campaign is (not) sending ("out_of_schedule", …)."""
        return self.client.sending_status(external_id)

    def campaign_for(self, campaign_key: str) -> str:
        """The Instantly campaign id of our key, created if need be; an error when the
        key names nothing of ours or the campaign does not take leads now."""
        match = _CAMPAIGN_KEY.fullmatch(campaign_key or "")
        if match is None:
            raise RejectedRequest(
                f"cold email through Instantly needs a campaign key, not {campaign_key!r}"
            )
        tenant = Tenant.objects.filter(pk=int(match[1])).first()
        sequence = OutreachSequence.objects.filter(pk=int(match[2]), tenant=tenant).first()
        if tenant is None or sequence is None:
            raise RejectedRequest(f"campaign key {campaign_key!r}: no such tenant sequence")
        row = ensure_campaign(
            tenant,
            sequence,
            client=self.client,
            senders=self.senders or None,
            daily_limit=self.daily_limit or None,
        )
        if row.status in (EmailCampaign.Status.PAUSED, EmailCampaign.Status.COMPLETED):
            reason = f": {reasons.render(row.status_reason)}" if row.status_reason else ""
            raise CampaignNotSending(
                f"Instantly campaign {row.name!r} is {row.get_status_display().lower()}"
                f"{reason}; its leads wait until it is resumed"
            )
        return row.external_id

    # --- leads --------------------------------------------------------------------------

    def _push(self, campaign_id: str, pairs: list[tuple[OutgoingEmail, str]]) -> list[Result]:
        """One `leads/add` call (≤ 1,000): a result per pair, in order."""
        out: list[Result | None] = [None] * len(pairs)
        leads: list[dict[str, Any]] = []
        positions: list[int] = []
        for position, (email, key) in enumerate(pairs):
            try:
                leads.append(lead_for(email, key))
                positions.append(position)
            except ValueError as exc:
                out[position] = RejectedRequest(f"not a lead Instantly can take: {exc}")
        if not leads:
            return [r for r in out if r is not None]
        try:
            answer = self.client.add_leads(campaign_id, leads, skip_if_in_workspace=True)
        except ProviderError as error:  # the whole call failed: every lead retries
            return [error if r is None else r for r in out]
        ids = answer.id_by_index()
        try:
            listed: dict[str, list[dict[str, Any]]] | ProviderError
            listed = self._listed(campaign_id, leads, ids)
        except ProviderError as error:  # the created ones are still sent
            listed = error
        for n, (lead, position) in enumerate(zip(leads, positions, strict=True)):
            if n in ids:
                out[position] = SendResult(
                    ids[n], raw={"campaign_id": campaign_id, "lead_id": ids[n]}
                )
            elif isinstance(listed, ProviderError):
                out[position] = listed
            else:
                out[position] = _not_created(lead, pairs[position][1], listed, answer)
        return [r for r in out if r is not None]

    def _listed(
        self, campaign_id: str, leads: list[dict[str, Any]], ids: dict[int, str]
    ) -> dict[str, list[dict[str, Any]]]:
        """The campaign's leads with the addresses Instantly did not create, by address."""
        missing = [lead["email"] for n, lead in enumerate(leads) if n not in ids]
        if not missing:
            return {}
        found: dict[str, list[dict[str, Any]]] = {}
        for lead in self.client.find_leads(contacts=missing, campaign_id=campaign_id):
            if lead.get("campaign") in (None, campaign_id):
                found.setdefault(str(lead.get("email") or "").lower(), []).append(lead)
        return found


def _subject_key(subject: str) -> str:
    """A subject as mail clients keep it: case and runs of white space do not matter."""
    return " ".join(subject.split()).casefold()


def _timestamp(value: Any) -> datetime | None:
    """An Instantly ISO 8601 timestamp ("2026-10-06T09:20:00.000Z"), aware; None if not one."""
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


def _result(lead: dict[str, Any], *, found: bool) -> SendResult:
    raw = {"campaign_id": lead.get("campaign"), "lead_id": str(lead["id"]), "found": found}
    return SendResult(str(lead["id"]), raw=raw)


def _not_created(
    lead: dict[str, Any],
    key: str,
    listed: dict[str, list[dict[str, Any]]],
    answer: AddLeadsResult,
) -> Result:
    there = [row for row in listed.get(lead["email"].lower(), []) if row.get("id")]
    for row in there:
        if variables(row).get(KEY_VARIABLE) in (key, None):
            return _result(row, found=True)  # pushed before: never pushed twice
    if there:
        return RejectedRequest(
            "the address is already in this Instantly campaign for another message"
        )
    counts = (
        f"invalid {answer.invalid_email}, blocklisted {answer.in_blocklist}, "
        f"skipped {answer.skipped}, duplicated {answer.duplicated}"
    )
    others = answer.in_blocklist + answer.skipped + answer.duplicated
    if answer.invalid_email and (not others or not _valid_address(lead["email"])):
        return InvalidRecipient(f"Instantly refused the address as invalid ({counts})")
    return RejectedRequest(f"blocklisted or skipped by Instantly, not added ({counts})")
