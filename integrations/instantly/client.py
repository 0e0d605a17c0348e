"""Instantly API v2 client (docs/providers.md §2): campaigns, bulk leads, replies, webhooks.

Base `https://api.instantly.ai`, every path under `/api/v2`, `Authorization: Bearer <key>`,
JSON bodies; errors come as `{"statusCode", "error", "message"}`. There is no idempotency
key at Instantly (docs/providers.md §2.1): a `POST /api/v2/campaigns` whose answer was lost may
have created the campaign (ProviderTimeout, `uncertain`), while a repeated bulk lead add is
harmless because we always send `skip_if_in_workspace`.

Cold email is not sent one message at a time through Instantly: leads are pushed into a
campaign in bulk and Instantly sends on its schedule; backend.py is the `EmailBackend` that
does it with this client.

Every call takes a slot of the workspace's shared limits first (ratelimit.py), makes one
HTTP request with (connect, read) timeouts and raises the `cerniq.provider_errors` class the
retry table (cerniq.retry) understands:

| answer | error |
| --- | --- |
| 400, 404, 409, 422, other 4xx | RejectedRequest |
| 401, 403 | AuthenticationFailed |
| 402 "no active paid plan" | RejectedRequest, error_code "payment_required" (permanent) |
| 429 | RateLimited (Retry-After, else 60 s); every process backs off |
| 5xx, connection refused, connect timeout | ProviderUnavailable |
| no answer in time (read timeout) | ProviderTimeout |

`error_code` is Instantly's `error` text as a slug ("payment_required", "not_found").
The key is never logged; lead addresses are masked in log lines.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any
from urllib.parse import quote

from cerniq.logging import mask_pii
from cerniq.provider_errors import (
    AuthenticationFailed,
    ProviderError,
    ProviderUnavailable,
    RateLimited,
    RejectedRequest,
)
from cerniq.provider_http import Answer, ProviderHTTP, json_value
from integrations.instantly.ratelimit import WorkspaceLimiter, workspace_key
from integrations.instantly.results import AddLeadsResult, add_leads_result

logger = logging.getLogger(__name__)

API_BASE = "https://api.instantly.ai"
USER_AGENT = "CerniqOutreach/0.1 (+https://cerniq.app)"
MAX_LEADS_PER_CALL = 1000  # POST /api/v2/leads/add, `leads` maxItems
PAGE = 100  # the largest `limit` of a list call
MAX_PAGES = 100  # 10,000 rows: far more than any one question of ours returns
DEFAULT_RETRY_AFTER = 60
_EXCERPT = 200
_ID = re.compile(r"[A-Za-z0-9-]{1,64}")
_SCALARS = (str, int, float, bool, type(None))


class InstantlyClient:
    def __init__(
        self,
        *,
        api_key: str,
        base_url: str = API_BASE,
        timeout: tuple[float, float] = (5.0, 30.0),
        limiter: WorkspaceLimiter | None = None,
        **_: Any,
    ) -> None:
        self._key = (api_key or "").strip()
        self.base_url = (base_url or API_BASE).rstrip("/")
        self.http = ProviderHTTP(
            "Instantly",
            self.base_url,
            timeout=timeout,
            headers={"Authorization": f"Bearer {self._key}"},
            default_retry_after=DEFAULT_RETRY_AFTER,
        )
        self.timeout = self.http.timeout
        self.limiter = limiter or WorkspaceLimiter(workspace_key(self._key))

    def __repr__(self) -> str:  # never show the key
        return f"<InstantlyClient {self.base_url}>"

    # --- campaigns ------------------------------------------------------------------------

    def create_campaign(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """`POST /api/v2/campaigns` (build `payload` with campaigns.campaign_payload): the
        campaign as created, a draft (status 0) that sends nothing until activated."""
        if not payload.get("name") or not payload.get("campaign_schedule"):
            raise RejectedRequest("a campaign needs a name and a campaign_schedule")
        return self._object("POST", "/api/v2/campaigns", body=dict(payload))

    def find_campaigns(self, search: str) -> list[dict[str, Any]]:
        """`GET /api/v2/campaigns?search=…`: the campaigns whose name matches (all pages)."""
        return self._pages("GET", "/api/v2/campaigns", params=[("search", search)])

    def delete_lead(self, lead_id: str) -> bool:
        """`DELETE /api/v2/leads/{id}`: Instantly stops writing to the lead. False when it
        is not there any more (404), which is what we wanted."""
        try:
            self._request("DELETE", f"/api/v2/leads/{_id(lead_id)}")
        except RejectedRequest as error:
            if error.status_code == 404:
                return False
            raise
        return True

    def get_lead(self, lead_id: str) -> dict[str, Any] | None:
        """`GET /api/v2/leads/{id}`: the Lead (its `status`, `timestamp_last_contact`), or
        None when Instantly no longer has it (404)."""
        try:
            return self._object("GET", f"/api/v2/leads/{_id(lead_id)}")
        except RejectedRequest as error:
            if error.status_code == 404:
                return None
            raise

    def get_campaign(self, campaign_id: str) -> dict[str, Any]:
        return self._object("GET", f"/api/v2/campaigns/{_id(campaign_id)}")

    def activate_campaign(self, campaign_id: str) -> dict[str, Any]:
        """Start (or resume) sending on the campaign's schedule."""
        return self._object("POST", f"/api/v2/campaigns/{_id(campaign_id)}/activate")

    def pause_campaign(self, campaign_id: str) -> dict[str, Any]:
        return self._object("POST", f"/api/v2/campaigns/{_id(campaign_id)}/pause")

    def sending_status(self, campaign_id: str) -> str:
        """Why the campaign is (not) sending: `diagnostics.status` while it runs, else
        `summary.status` ("campaign_draft", "out_of_schedule", "daily_limit_met", "healthy",
        …); "" when Instantly has no data yet (both null)."""
        answer = self._object("GET", f"/api/v2/campaigns/{_id(campaign_id)}/sending-status")
        for part in ("diagnostics", "summary"):
            section = answer.get(part)
            if isinstance(section, dict) and isinstance(section.get("status"), str):
                return section["status"]
        return ""

    def campaign_analytics(
        self, campaign_id: str, *, start: date | None = None, end: date | None = None
    ) -> dict[str, Any] | None:
        """`GET /api/v2/campaigns/analytics?id=…` → the campaign's totals (`emails_sent_count`,
        `bounced_count`, `reply_count_unique`, …), None before it has sent anything
        (Instantly answers `[]` until then)."""
        params = [("id", _id(campaign_id)), *_dates(start, end)]
        rows = self._list("GET", "/api/v2/campaigns/analytics", params=params)
        return next((row for row in rows if row.get("campaign_id") == campaign_id), None)

    def daily_analytics(
        self, campaign_id: str, *, start: date | None = None, end: date | None = None
    ) -> list[dict[str, Any]]:
        """`GET /api/v2/campaigns/analytics/daily` → `[{date, sent, opened, replies, …}]`."""
        params = [("campaign_id", _id(campaign_id)), *_dates(start, end)]
        return self._list("GET", "/api/v2/campaigns/analytics/daily", params=params)

    # --- leads ----------------------------------------------------------------------------

    def add_leads(
        self,
        campaign_id: str,
        leads: Sequence[Mapping[str, Any]],
        *,
        verify: bool = False,
        skip_if_in_workspace: bool = True,
    ) -> AddLeadsResult:
        """`POST /api/v2/leads/add`: up to 1,000 leads into the campaign, by default skipping
        any address already anywhere in the workspace, so a repeated push adds nothing twice
        (campaigns.lead_payload builds each lead)."""
        if not leads:
            raise RejectedRequest("no leads to add")
        if len(leads) > MAX_LEADS_PER_CALL:
            raise RejectedRequest(
                f"{len(leads)} leads in one call; Instantly takes at most {MAX_LEADS_PER_CALL}"
            )
        for index, lead in enumerate(leads):
            if not isinstance(lead.get("email"), str) or "@" not in lead["email"]:
                raise RejectedRequest(f"lead {index} has no email address")
            variables = lead.get("custom_variables") or {}
            bad = [k for k, v in variables.items() if not isinstance(v, _SCALARS)]
            if bad:
                raise RejectedRequest(f"lead {index}: custom_variables {bad} are not scalars")
        body = {
            "campaign_id": _id(campaign_id),
            "skip_if_in_workspace": skip_if_in_workspace,
            "verify_leads_on_import": verify,
            "leads": [dict(lead) for lead in leads],
        }
        answer = self._object("POST", "/api/v2/leads/add", body=body)
        return add_leads_result(answer)

    def find_leads(self, *, contacts: Sequence[str], campaign_id: str = "") -> list[dict[str, Any]]:
        """`POST /api/v2/leads/list` with `contacts` (addresses) and, if given, `campaign`:
        every matching lead of the workspace (all pages; `limit` and `starting_after` go in
        the body). A lead's custom variables are its `payload`."""
        found: list[dict[str, Any]] = []
        wanted = [c for c in dict.fromkeys(contacts) if c]
        for start in range(0, len(wanted), PAGE):
            body: dict[str, Any] = {"contacts": wanted[start : start + PAGE], "limit": PAGE}
            if campaign_id:
                body["campaign"] = _id(campaign_id)
            found += self._pages("POST", "/api/v2/leads/list", body=body)
        return found

    def update_interest_status(
        self, lead_email: str, interest_value: int | None, *, campaign_id: str = ""
    ) -> str:
        """`POST /api/v2/leads/update-interest-status` (202: a background job at Instantly;
        returns its message). `None` resets the lead to "Lead"."""
        body: dict[str, Any] = {"lead_email": lead_email, "interest_value": interest_value}
        if campaign_id:
            body["campaign_id"] = _id(campaign_id)
        answer = self._object("POST", "/api/v2/leads/update-interest-status", body=body)
        return str(answer.get("message") or "")

    # --- replies --------------------------------------------------------------------------

    def reply(
        self, *, reply_to_uuid: str, eaccount: str, subject: str, html: str = "", text: str = ""
    ) -> dict[str, Any]:
        """`POST /api/v2/emails/reply`: answer in the thread of the email `reply_to_uuid`
        (a webhook's `email_id`) from the sending account `eaccount`."""
        if not (html or text):
            raise RejectedRequest("a reply needs an html or a text body")
        body_part = {k: v for k, v in (("html", html), ("text", text)) if v}
        body = {
            "reply_to_uuid": _id(reply_to_uuid),
            "eaccount": eaccount,
            "subject": subject,
            "body": body_part,
        }
        return self._object("POST", "/api/v2/emails/reply", body=body)

    def recent_emails(
        self, *, lead: str, eaccount: str, email_type: str = "manual", limit: int = 20
    ) -> list[dict[str, Any]]:
        """`GET /api/v2/emails`, newest first, one page only: the endpoint allows 20 calls a
        minute, so this is for rare look-ups (reconciling an answer), never for polling.
        `email_type` "manual" is every email except campaign steps (our answers and the
        lead's replies)."""
        params = [
            ("lead", lead),
            ("eaccount", eaccount),
            ("email_type", email_type),
            ("sort_order", "desc"),
            ("limit", str(limit)),
        ]
        page = self._object("GET", "/api/v2/emails", params=params)
        items = page.get("items")
        if not isinstance(items, list):
            raise _unexpected("GET /api/v2/emails", "no items list", page)
        return [item for item in items if isinstance(item, dict)]

    # --- webhooks -------------------------------------------------------------------------

    def accounts(self) -> list[dict[str, Any]]:
        """`GET /api/v2/accounts`: every sending account of the workspace (all pages), with
        its `status` (1 active, 2 paused, 3 maintenance, -1/-2/-3 connection, soft-bounce
        and sending errors), `warmup_status` (1 active, 0 paused, -1 banned, -2 spam folder
        unknown, -3 permanently suspended), `setup_pending` and `stat_warmup_score`."""
        return self._pages("GET", "/api/v2/accounts")

    def list_webhooks(self) -> list[dict[str, Any]]:
        """Every webhook subscription of the workspace (all pages)."""
        return self._pages("GET", "/api/v2/webhooks")

    def create_webhook(
        self,
        *,
        target_hook_url: str,
        event_type: str = "all_events",
        headers: Mapping[str, str] | None = None,
        name: str = "",
        campaign_id: str = "",
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"target_hook_url": target_hook_url, "event_type": event_type}
        if headers:
            body["headers"] = dict(headers)
        if name:
            body["name"] = name
        if campaign_id:
            body["campaign"] = _id(campaign_id)
        return self._object("POST", "/api/v2/webhooks", body=body)

    def update_webhook(self, webhook_id: str, **fields: Any) -> dict[str, Any]:
        return self._object("PATCH", f"/api/v2/webhooks/{_id(webhook_id)}", body=fields)

    def resume_webhook(self, webhook_id: str) -> dict[str, Any]:
        """Re-enable a subscription Instantly disabled after failed deliveries (status -1)."""
        return self._object("POST", f"/api/v2/webhooks/{_id(webhook_id)}/resume")

    def delete_webhook(self, webhook_id: str) -> dict[str, Any]:
        return self._object("DELETE", f"/api/v2/webhooks/{_id(webhook_id)}")

    # --- HTTP -----------------------------------------------------------------------------

    def _pages(
        self,
        method: str,
        path: str,
        *,
        params: list[tuple[str, str]] | None = None,
        body: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """Every item of a cursor-paginated list (`{items, next_starting_after}`): the cursor
        goes in the query of a GET, in the body of a POST (docs/providers.md §2.1)."""
        found: list[dict[str, Any]] = []
        after = ""
        for _ in range(MAX_PAGES):
            if method == "GET":
                cursor = [("starting_after", after)] if after else []
                page = self._object(
                    method, path, params=[*(params or []), ("limit", str(PAGE)), *cursor]
                )
            else:
                page_body = {**(body or {}), **({"starting_after": after} if after else {})}
                page = self._object(method, path, params=params, body=page_body)
            items = page.get("items")
            if not isinstance(items, list):
                raise _unexpected(f"{method} {path}", "no items list", page)
            found += [item for item in items if isinstance(item, dict)]
            after = page.get("next_starting_after") or ""
            if not items or not after:
                break
        return found

    def _object(self, method: str, path: str, **kw: Any) -> dict[str, Any]:
        answer = self._request(method, path, **kw)
        if not isinstance(answer, dict):
            raise _unexpected(f"{method} {path}", "not a JSON object", answer)
        return answer

    def _list(self, method: str, path: str, **kw: Any) -> list[dict[str, Any]]:
        answer = self._request(method, path, **kw)
        if not isinstance(answer, list):
            raise _unexpected(f"{method} {path}", "not a JSON array", answer)
        return [row for row in answer if isinstance(row, dict)]

    def _request(
        self,
        method: str,
        path: str,
        *,
        params: list[tuple[str, str]] | None = None,
        body: dict[str, Any] | None = None,
    ) -> Any:
        """One HTTP call after a rate-limit slot; the parsed JSON of a 2xx answer."""
        if not self._key:
            raise AuthenticationFailed("Instantly API key is not configured (INSTANTLY_API_KEY)")
        self.limiter.acquire()
        answer = self.http.request(method, path, params=params, json_body=body)
        try:
            parsed = json_value(answer.content)
        except ValueError:
            parsed = None
        if answer.ok:
            if parsed is None:
                raise self.http.unexpected(answer, "non-JSON body", uncertain=False)
            return parsed
        error = self._classify(answer, parsed if isinstance(parsed, dict) else {})
        if isinstance(error, RateLimited):
            self.limiter.back_off(error.retry_after or DEFAULT_RETRY_AFTER)
        raise error

    def _classify(self, answer: Answer, body: dict[str, Any]) -> ProviderError:
        """Instantly's `{"statusCode", "error", "message"}`; 402 is its own row."""
        message = str(body.get("message") or body.get("error") or "")
        code = _slug(str(body.get("error") or "")) or f"http_{answer.status}"
        if answer.status == 402:
            return RejectedRequest(
                f"Instantly {answer.where}: HTTP 402: {mask_pii(message)}"
                " (the workspace needs a paid plan)",
                status_code=402,
                provider_message=message,
                error_code="payment_required",
            )
        return self.http.error(answer, message=message, code=code)


def _id(value: str) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise RejectedRequest(f"not an Instantly id: {str(value)[:80]!r}")
    return quote(value, safe="-")


def _dates(start: date | None, end: date | None) -> list[tuple[str, str]]:
    return [(k, v.isoformat()) for k, v in (("start_date", start), ("end_date", end)) if v]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def _unexpected(where: str, what: str, answer: Any) -> ProviderError:
    """A 2xx whose JSON is not shaped as documented."""
    shown = mask_pii(json.dumps(answer, ensure_ascii=False, default=str)[:_EXCERPT])
    return ProviderUnavailable(f"Instantly {where}: unexpected answer ({what}): {shown}")
