"""Mailchimp Marketing API v3 client: the calls the audience sync makes, nothing more.

Base `https://<dc>.api.mailchimp.com/3.0` (config.py), HTTP Basic with any user name and the
API key as password, JSON bodies; every call goes through cerniq.provider_http, so transport
failures and the generic statuses mean what they mean for every provider (cerniq.retry).

Errors come as `application/problem+json` (`type, title, status, detail, instance`, and an
`errors` list of `{field, message}` for a 400 "Invalid Resource"). Mailchimp's own rows,
before the generic ones:

| answer | raised |
| --- | --- |
| 400 "Member In Compliance State" (unsubscribed or cleaned there) | MemberKeptOut |
| 400 "Forgotten Email Not Subscribed" (permanently deleted there) | MemberKeptOut |
| other 400 ("Invalid Resource": a fake address, a bad merge field) | RejectedRequest |
| 401, 403 ("API Key Invalid") | AuthenticationFailed |
| 404 ("Resource Not Found") | RejectedRequest (the two deletes: done) |
| 429 (more than 10 simultaneous connections) | RateLimited |
| 5xx, no answer | ProviderUnavailable, ProviderTimeout |

`error_code` is the title as a slug ("member_in_compliance_state"). The key is never logged;
addresses in the paths are hashes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from cerniq.provider_errors import ProviderError, RejectedRequest
from cerniq.provider_http import Answer, ProviderHTTP

MAX_BATCH = 500  # POST /lists/{list_id}: members per call
KEPT_OUT_TITLES = {"Member In Compliance State", "Forgotten Email Not Subscribed"}
_LIST_ID = re.compile(r"[A-Za-z0-9]{1,32}")
_HASH = re.compile(r"[0-9a-f]{32}")
_DETAIL = 400


class MemberKeptOut(RejectedRequest):
    """Mailchimp holds the address so that it may not be subscribed by us: unsubscribed or
    cleaned ("Member In Compliance State"), or permanently deleted ("Forgotten Email Not
    Subscribed"). Never retried, never forced."""

    @property
    def forgotten(self) -> bool:
        return self.error_code == "forgotten_email_not_subscribed"


def subscriber_hash(email: str) -> str:
    """The member's id in every path: hex MD5 of the lower-cased, trimmed address."""
    return hashlib.md5(email.strip().lower().encode(), usedforsecurity=False).hexdigest()


def list_path(list_id: str) -> str:
    if not _LIST_ID.fullmatch(list_id or ""):
        raise RejectedRequest(f"not a Mailchimp audience id: {list_id[:40]!r}")
    return f"/lists/{list_id}"


def member_path(list_id: str, member: str) -> str:
    if not _HASH.fullmatch(member or ""):
        raise RejectedRequest("not a subscriber hash (32 hex digits)")
    return f"{list_path(list_id)}/members/{member}"


@dataclass(frozen=True)
class BatchAnswer:
    """What `POST /lists/{id}` did: the members written (by lower-cased address: their
    status there) and the addresses refused, with Mailchimp's text."""

    written: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    error_codes: dict[str, str] = field(default_factory=dict)


class MailchimpClient:
    def __init__(
        self, *, api_key: str, base_url: str, timeout: tuple[float, float] = (5.0, 30.0)
    ) -> None:
        if not base_url:
            raise RejectedRequest("Mailchimp: no API base (MAILCHIMP_API_KEY has no data centre)")
        self.http = ProviderHTTP(
            "Mailchimp",
            base_url,
            timeout=timeout,
            auth=("cerniq", (api_key or "").strip()),
            default_retry_after=60,
        )

    def __repr__(self) -> str:  # never show the key
        return f"<MailchimpClient {self.http.base_url}>"

    # --- members ----------------------------------------------------------------------

    def upsert_member(
        self, list_id: str, email: str, *, status_if_new: str, merge_fields: dict[str, str]
    ) -> dict[str, Any]:
        """`PUT /lists/{id}/members/{hash}`: the member as Mailchimp now holds it. Only
        `status_if_new` is sent, never `status`: an existing member keeps its status."""
        body: dict[str, Any] = {"email_address": email.strip(), "status_if_new": status_if_new}
        if merge_fields:
            body["merge_fields"] = merge_fields
        answer = self._call("PUT", member_path(list_id, subscriber_hash(email)), body=body)
        member = answer.payload
        if member is None or not isinstance(member.get("status"), str):
            raise self.http.unexpected(answer, "no member status", uncertain=False)
        return member

    def set_tags(self, list_id: str, member: str, tags: dict[str, bool]) -> None:
        """`POST …/members/{hash}/tags`: each tag made active (True) or inactive (204)."""
        body = {
            "tags": [
                {"name": name, "status": "active" if on else "inactive"}
                for name, on in sorted(tags.items())
            ]
        }
        self._call("POST", f"{member_path(list_id, member)}/tags", body=body)

    def unsubscribe(self, list_id: str, member: str) -> bool:
        """`PATCH …/members/{hash}` to `unsubscribed`. False when Mailchimp has no such
        member (404): nothing there to stop."""
        return self._unless_gone("PATCH", member_path(list_id, member), {"status": "unsubscribed"})

    def delete_permanently(self, list_id: str, member: str) -> bool:
        """`POST …/members/{hash}/actions/delete-permanent` (204): the address is erased
        there and cannot be re-added by the API. False when it is not there (404)."""
        return self._unless_gone("POST", f"{member_path(list_id, member)}/actions/delete-permanent")

    # --- the audience -----------------------------------------------------------------

    def batch_subscribe(
        self, list_id: str, members: list[dict[str, Any]], *, update_existing: bool = True
    ) -> BatchAnswer:
        """`POST /lists/{id}` with at most MAX_BATCH members. Mailchimp answers 200 even when
        some addresses were refused: those are in `errors`."""
        if not members or len(members) > MAX_BATCH:
            raise ValueError(f"a batch holds 1 to {MAX_BATCH} members, not {len(members)}")
        body = {"members": members, "update_existing": update_existing}
        answer = self._call("POST", list_path(list_id), body=body)
        found = answer.payload
        if found is None:
            raise self.http.unexpected(answer, "not a JSON object", uncertain=False)
        written: dict[str, str] = {}
        for key in ("new_members", "updated_members"):
            for member in found.get(key) or []:
                if isinstance(member, dict) and isinstance(member.get("email_address"), str):
                    written[member["email_address"].strip().lower()] = str(
                        member.get("status") or ""
                    )
        errors: dict[str, str] = {}
        codes: dict[str, str] = {}
        for refused in found.get("errors") or []:
            if not isinstance(refused, dict):
                continue
            address = str(refused.get("email_address") or "").strip().lower()
            field_message = str(refused.get("field_message") or "")
            text = str(refused.get("error") or field_message or "refused")
            if field_message and field_message not in text:
                text += f" ({refused.get('field')}: {field_message})"
            errors[address] = text[:_DETAIL]
            codes[address] = str(refused.get("error_code") or "")
        return BatchAnswer(written, errors, codes)

    def merge_fields(self, list_id: str) -> list[str]:
        """`GET /lists/{id}/merge-fields`: the audience's merge tags (FNAME, LNAME, …). A
        404 says there is no such audience."""
        answer = self._call("GET", f"{list_path(list_id)}/merge-fields", params=[("count", "100")])
        found = answer.payload
        if found is None or not isinstance(found.get("merge_fields"), list):
            raise self.http.unexpected(answer, "no merge_fields list")
        return [
            str(item["tag"])
            for item in found["merge_fields"]
            if isinstance(item, dict) and isinstance(item.get("tag"), str)
        ]

    # --- HTTP -------------------------------------------------------------------------

    def _unless_gone(self, method: str, path: str, body: dict[str, Any] | None = None) -> bool:
        try:
            self._call(method, path, body=body)
        except RejectedRequest as error:
            if error.status_code == 404:
                return False
            raise
        return True

    def _call(
        self,
        method: str,
        path: str,
        *,
        body: dict[str, Any] | None = None,
        params: list[tuple[str, str]] | None = None,
    ) -> Answer:
        answer = self.http.request(method, path, json_body=body, params=params)
        if answer.ok:
            return answer
        raise self._error(answer)

    def _error(self, answer: Answer) -> ProviderError:
        """Mailchimp's rows first (the problem's title), then the generic ones."""
        problem = answer.payload or {}
        title = str(problem.get("title") or "")
        # An "Invalid Resource" says what is wrong per field; its `detail` only says so.
        fields = [
            f"{item.get('field') or 'body'}: {item['message']}"
            for item in problem.get("errors") or []
            if isinstance(item, dict) and item.get("message")
        ]
        message = ("; ".join(fields) or str(problem.get("detail") or "") or title)[:_DETAIL]
        code = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")
        if answer.status == 400 and title in KEPT_OUT_TITLES:
            return MemberKeptOut(
                f"Mailchimp {answer.where}: HTTP 400 {code}",
                status_code=400,
                provider_message=message,
                error_code=code,
            )
        return self.http.error(answer, message=message, code=code)
