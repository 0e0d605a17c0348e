"""WhatsApp's official Cloud API as a WhatsApp backend (Meta Graph API).

`POST /<version>/<phone_number_id>/messages`, `Authorization: Bearer <token>`. A business
may start a conversation only with a template Meta approved; free text goes only inside the
24-hour customer-service window after the person last wrote (error 131047 otherwise). So
this backend shapes every message itself (`prepare`, stored with the message, the same on
every attempt):

- the window is open (outreach.customer_window): the text as rendered, free;
- it is closed: the approved template of the message's template version
  (integrations.meta.models.ApprovedTemplate), its parameters filled from the lead's
  variables; a version with none, or a parameter empty for this lead, cannot go out, and
  the message says why.

Spintax cannot vary an approved text: on the Cloud API A/B testing is between template
versions, each mapped to its own approved template.

Every send carries our idempotency key as `biz_opaque_callback_data`, which Meta echoes in
its status webhooks: the Cloud API has neither idempotency keys nor a list of sent messages,
so a send whose answer was lost is found again through that echo (`find_sent`, SeenSend).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, NoReturn

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from cerniq.provider_errors import ProviderError, RejectedRequest, SendResult
from cerniq.provider_http import Answer, ProviderHTTP
from integrations.meta import errors
from integrations.meta.models import ApprovedTemplate, SeenSend
from whatsapp.backends import MAX_TEXT, OutgoingMedia, OutgoingWhatsApp, WhatsAppBackend

GRAPH = "https://graph.facebook.com"
API_VERSION = "v23.0"
MAX_REFERENCE = 512  # bytes of biz_opaque_callback_data
_ID = re.compile(r"[0-9]{1,32}")
_E164 = re.compile(r"\+[1-9][0-9]{6,14}")
_BSUID = re.compile(r"[A-Z]{2}\.(?:[A-Z]{2,8}\.)?[A-Za-z0-9]{1,128}")
MEDIA_KINDS = ("image", "document")
MEDIA_LIFETIME = timedelta(days=30)  # an uploaded media id, then uploaded again
MAX_CAPTION = 1024
# The phones page's words when a number is added without its id (the registry's
# `account_id_hint`, marked here for translation).
ACCOUNT_ID_HINT = gettext_noop(
    "the number's Phone number ID, shown in WhatsApp Manager → Phone numbers (digits)"
)


class CloudAPI(WhatsAppBackend):
    media_lifetime = MEDIA_LIFETIME

    def __init__(
        self,
        *,
        access_token: str = "",
        base_url: str = GRAPH,
        api_version: str = API_VERSION,
        waba_id: str = "",
        timeout: tuple[float, float] = (5.0, 30.0),
        **_: Any,
    ) -> None:
        self._token = (access_token or "").strip()
        self.waba_id = (waba_id or "").strip()
        version = (api_version or API_VERSION).strip().strip("/")
        if not re.fullmatch(r"v[0-9]{1,3}\.[0-9]{1,2}", version):
            raise ValueError(f"META_GRAPH_VERSION must look like v23.0, got {version!r}")
        self.http = ProviderHTTP(
            "WhatsApp Cloud API",
            f"{(base_url or GRAPH).rstrip('/')}/{version}",
            timeout=timeout,
            headers={"Authorization": f"Bearer {self._token}"},
        )

    def __repr__(self) -> str:  # never show the token
        return f"<CloudAPI {self.http.base_url}>"

    # --- shaping ------------------------------------------------------------------------

    def prepare(self, outgoing: OutgoingWhatsApp) -> dict[str, Any]:
        if outgoing.media is not None and outgoing.window_open:
            return prepare_media(outgoing, outgoing.media)
        if outgoing.window_open:
            return {"type": "text", "text": outgoing.text}
        approved = (
            ApprovedTemplate.objects.filter(
                tenant_id=outgoing.tenant_id, template_version_id=outgoing.template_version_id
            ).first()
            if outgoing.template_version_id
            else None
        )
        media = outgoing.media
        if media is not None and (approved is None or approved.header != media.kind):
            refuse_media_outside_window()
        if approved is None:
            raise RejectedRequest(
                _(
                    "Outside the 24-hour window after the person last wrote, the WhatsApp "
                    "Cloud API sends only a template Meta approved, and this message's "
                    "template version has none: map it on the template's page."
                ),
                error_code="no_approved_template",
            )
        values = [outgoing.variables.get(name, "").strip() for name in approved.parameters]
        empty = [name for name, value in zip(approved.parameters, values, strict=True) if not value]
        if empty:
            raise RejectedRequest(
                _("The approved template %(name)s needs %(fields)s, empty for this lead.")
                % {"name": approved.name, "fields": ", ".join(empty)},
                error_code="template_parameter_empty",
            )
        prepared: dict[str, Any] = {
            "type": "template",
            "name": approved.name,
            "language": approved.language,
            "parameters": values,
            "parameter_names": list(approved.parameters) if approved.named else [],
            "text": approved.render(values),
        }
        if media is not None:  # its media header carries the file (its id added at send)
            prepared |= {"header": media.kind, "filename": media.filename}
        return prepared

    def send_prepared(
        self,
        *,
        account_id: str,
        to: str,
        to_user_id: str,
        prepared: dict[str, Any],
        reference: str,
    ) -> SendResult:
        kind = prepared.get("type")
        if kind == "text":
            content = text_content(str(prepared.get("text") or ""))
        elif kind == "template":
            content = template_content(prepared)
        elif kind in MEDIA_KINDS:
            content = media_content(prepared)
        else:
            raise RejectedRequest(f"not a Cloud API message type: {kind!r}")
        return self.send(
            account_id=account_id,
            to=to,
            to_user_id=to_user_id,
            content=content,
            reference=reference,
        )

    # --- sending --------------------------------------------------------------------------

    def send(
        self,
        *,
        account_id: str,
        to: str,
        content: dict[str, Any],
        to_user_id: str = "",
        reference: str = "",
    ) -> SendResult:
        """`POST /{phone_number_id}/messages` with `content` (`type` and its object)."""
        body: dict[str, Any] = {
            "messaging_product": "whatsapp",
            "recipient_type": "individual",
            **recipient(to, to_user_id),
            **content,
        }
        if reference:
            body["biz_opaque_callback_data"] = reference.encode()[:MAX_REFERENCE].decode(
                "utf-8", "ignore"
            )
        answer = self.http.request("POST", f"/{_check_id(account_id)}/messages", json_body=body)
        if not answer.ok:
            raise self._error(answer)
        payload = answer.payload or {}
        sent = payload.get("messages")
        wamid = (
            sent[0].get("id")
            if isinstance(sent, list) and sent and isinstance(sent[0], dict)
            else None
        )
        if not isinstance(wamid, str) or not wamid:
            raise self.http.unexpected(answer, "no messages[0].id")
        contacts = payload.get("contacts")
        first = contacts[0] if isinstance(contacts, list) and contacts else {}
        thread = (
            str(first.get("wa_id") or first.get("user_id") or "") if isinstance(first, dict) else ""
        )
        return SendResult(wamid, raw=payload, thread_id=thread)

    def upload_media(
        self, *, account_id: str, content: bytes, filename: str, content_type: str
    ) -> str:
        """`POST /{phone_number_id}/media` (multipart `file`, `type`, `messaging_product`)
        → the media id to send with (`media_id`); Meta keeps it for 30 days."""
        if not content:
            raise RejectedRequest("the file is empty")
        answer = self.http.request(
            "POST",
            f"/{_check_id(account_id)}/media",
            form={"messaging_product": "whatsapp", "type": content_type},
            files={"file": (filename, content, content_type)},
        )
        if not answer.ok:
            raise self._error(answer)
        media_id = (answer.payload or {}).get("id")
        if not isinstance(media_id, str) or not media_id:
            raise self.http.unexpected(answer, "no id")
        return media_id

    def send_to_phone(self, *, account_phone: str, to: str, text: str) -> SendResult:
        return self.send(
            account_id=self.account_id_of(account_phone), to=to, content=text_content(text)
        )

    def send_to_chat(self, *, chat_id: str, text: str) -> SendResult:
        raise RejectedRequest("the Cloud API has no chats: messages go to a number")

    def find_chat(self, *, to: str, account_id: str = "") -> dict[str, Any] | None:
        return None  # no chats: every message names its recipient

    def find_sent(
        self, *, to: str, text: str, since: datetime, account_id: str = "", reference: str = ""
    ) -> SendResult | None:
        """A send Meta confirmed under our reference (its status webhook echoed it)."""
        if not reference:
            return None
        seen = SeenSend.objects.filter(reference=reference, seen_at__gte=since).first()
        return SendResult(seen.wamid, raw={"seen": "status webhook"}) if seen else None

    # --- accounts -------------------------------------------------------------------------

    def list_accounts(self) -> list[dict[str, Any]]:
        """`GET /{waba_id}/phone_numbers`: `{"id", "phone", "status", "quality"}` each."""
        if not self.waba_id:
            raise RejectedRequest("META_WABA_ID is not set: the Cloud API numbers are unknown")
        answer = self.http.request(
            "GET",
            f"/{_check_id(self.waba_id)}/phone_numbers",
            params=[("fields", "id,display_phone_number,verified_name,quality_rating,status")],
        )
        if not answer.ok:
            raise self._error(answer)
        rows = (answer.payload or {}).get("data")
        if not isinstance(rows, list):
            raise self.http.unexpected(answer, "no data list")
        return [
            {
                "id": str(row.get("id", "")),
                "phone": "+"
                + "".join(ch for ch in str(row.get("display_phone_number", "")) if ch.isdigit()),
                "status": _account_status(str(row.get("status") or "")),
                "quality": str(row.get("quality_rating") or ""),
            }
            for row in rows
            if isinstance(row, dict)
        ]

    def account_status(self, account_phone: str) -> str | None:
        for account in self.list_accounts():
            if account["phone"] == account_phone:
                return str(account["status"])
        return None

    def account_id_of(self, account_phone: str) -> str:
        for account in self.list_accounts():
            if account["phone"] == account_phone:
                return str(account["id"])
        raise RejectedRequest(f"no Cloud API number {account_phone} in the business account")

    def _error(self, answer: Answer) -> ProviderError:
        return errors.answer_error(self.http, answer)


# --- message bodies -----------------------------------------------------------------------


def recipient(to: str, to_user_id: str) -> dict[str, str]:
    """`to` (digits of the E.164 number) or, for a person known only by id, `recipient`."""
    if to:
        if not _E164.fullmatch(to):
            raise RejectedRequest(f"to must be an E.164 number, got {to[:20]!r}")
        return {"to": to.lstrip("+")}
    if to_user_id and _BSUID.fullmatch(to_user_id):
        return {"recipient": to_user_id}
    raise RejectedRequest("the message has neither a number nor a WhatsApp user id")


def text_content(text: str) -> dict[str, Any]:
    if not text.strip():
        raise RejectedRequest("text is empty")
    if len(text) > MAX_TEXT:
        raise RejectedRequest(f"text is {len(text)} characters; at most {MAX_TEXT} are sent")
    return {"type": "text", "text": {"preview_url": False, "body": text}}


def template_content(prepared: dict[str, Any]) -> dict[str, Any]:
    names = prepared.get("parameter_names") or []
    parameters = []
    for index, value in enumerate(prepared.get("parameters") or []):
        parameter = {"type": "text", "text": str(value)}
        if names:
            parameter["parameter_name"] = str(names[index])
        parameters.append(parameter)
    template: dict[str, Any] = {
        "name": str(prepared.get("name") or ""),
        "language": {"code": str(prepared.get("language") or "ro")},
    }
    if not template["name"]:
        raise RejectedRequest("a template send needs the template's name")
    components: list[dict[str, Any]] = []
    header = prepared.get("header")
    if header:
        components.append({"type": "header", "parameters": [header_parameter(prepared)]})
    if parameters:
        components.append({"type": "body", "parameters": parameters})
    if components:
        template["components"] = components
    return {"type": "template", "template": template}


def header_parameter(prepared: dict[str, Any]) -> dict[str, Any]:
    """A media header's parameter: the uploaded file by its id (a document keeps its
    name)."""
    kind = str(prepared["header"])
    if kind not in MEDIA_KINDS:
        raise RejectedRequest(f"not a media header: {kind!r}")
    if not prepared.get("media_id"):
        raise RejectedRequest(f"a template with an {kind} header needs the file's media id")
    media: dict[str, Any] = {"id": str(prepared["media_id"])}
    if kind == "document" and prepared.get("filename"):
        media["filename"] = str(prepared["filename"])[:240]
    return {"type": kind, kind: media}


def refuse_media_outside_window() -> NoReturn:
    raise RejectedRequest(
        _(
            "Outside the 24-hour window after the person last wrote, the WhatsApp Cloud "
            "API sends only a template Meta approved, and with an image or PDF that must "
            "be a template with a media header of the file's kind: none is approved for "
            "this message, so it is not sent (never without its file)."
        ),
        error_code=errors.NO_MEDIA_TEMPLATE,
    )


def prepare_media(outgoing: OutgoingWhatsApp, media: OutgoingMedia) -> dict[str, Any]:
    """A message with an image or PDF: inside the customer-service window an `image` or
    `document` message, the text its caption (the media id is added when it is sent,
    uploaded once per number: outreach.media). Outside it only a template Meta approved
    with a media header could carry the file, and none is mapped for that: the message
    is refused, never sent without its file."""
    if not outgoing.window_open:
        refuse_media_outside_window()
    if len(outgoing.text) > MAX_CAPTION:
        raise RejectedRequest(
            _("The text under an image or PDF is at most %(n)d characters on the Cloud API.")
            % {"n": MAX_CAPTION},
            error_code="caption_too_long",
        )
    prepared: dict[str, Any] = {
        "type": media.kind,
        "media": media.id,
        "caption": outgoing.text,
        "text": outgoing.text,
    }
    if media.kind == "document":
        prepared["filename"] = media.filename
    return prepared


def media_content(prepared: dict[str, Any]) -> dict[str, Any]:
    """An image or a document by link (or by a media id uploaded before), with a caption;
    a document keeps its file name."""
    kind = str(prepared["type"])
    media: dict[str, Any] = {}
    if prepared.get("media_id"):
        media["id"] = str(prepared["media_id"])
    elif str(prepared.get("link") or "").startswith("https://"):
        media["link"] = str(prepared["link"])
    else:
        raise RejectedRequest(f"an {kind} needs an https link or a media id")
    if prepared.get("caption"):
        media["caption"] = str(prepared["caption"])[:MAX_CAPTION]
    if kind == "document" and prepared.get("filename"):
        media["filename"] = str(prepared["filename"])[:240]
    return {"type": kind, kind: media}


def _check_id(value: str) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise RejectedRequest(f"not a Meta id: {str(value)[:40]!r}")
    return value


def _account_status(status: str) -> str:
    """Meta's number status in our words: "active" only when CONNECTED."""
    status = status.strip().upper()
    if status == "CONNECTED":
        return "active"
    if status in ("BANNED",):
        return "banned"
    if status in ("RESTRICTED", "RATE_LIMITED", "FLAGGED"):
        return "restricted"
    return "disconnected" if status else "unknown"
