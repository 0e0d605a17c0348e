"""Meta's webhook payloads, checked strictly at the door (pydantic, strict mode).

One Meta app posts both objects we subscribe to:

- `whatsapp_business_account`: `entry[].changes[]` with `field` "messages" (a `value` with
  `metadata`, `contacts[]`, `messages[]`, `statuses[]`, `errors[]`), "account_update",
  "business_capability_update", "user_preferences" (inside "messages" too);
- `page`: `entry[].changes[]` with `field` "leadgen" (ids only: the lead is fetched).

Ids are strings in the WhatsApp payloads and numbers in Meta's Lead Ads sample: both are
accepted and kept as strings. Unknown fields are ignored; what we read must be there and of
its type, or the payload is answered 400 naming the field.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from cerniq.schema_errors import malformed

TEXT_MAX = 65_536
ID_MAX = 256
MAX_ITEMS = 1_000  # Meta batches up to 1,000 updates per POST


def _id_text(value: Any) -> Any:
    """A numeric id (Lead Ads' sample) as its decimal string; anything else unchanged."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return str(value)
    return value


Id = Annotated[str, BeforeValidator(_id_text), Field(min_length=1, max_length=ID_MAX)]
Short = Annotated[str, Field(max_length=1_024)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


# --- WhatsApp ------------------------------------------------------------------------------


class Metadata(_Strict):
    display_phone_number: Short = ""
    phone_number_id: Id


class Profile(_Strict):
    name: Short = ""
    username: Short = ""


class Contact(_Strict):
    wa_id: Short = ""  # omitted when the person's number is withheld
    user_id: Short = ""  # the business-scoped user id (BSUID)
    profile: Profile | None = None


class Text(_Strict):
    body: Annotated[str, Field(max_length=TEXT_MAX)]


class Media(_Strict):
    id: Short = ""
    mime_type: Short = ""
    caption: Annotated[str, Field(max_length=TEXT_MAX)] = ""
    filename: Short = ""


class Button(_Strict):
    text: Short = ""
    payload: Short = ""


class System(_Strict):
    type: Short = ""
    body: Short = ""
    wa_id: Short = ""  # user_changed_number: the new number
    new_wa_id: Short = ""
    user_id: Short = ""


class InboundMessage(_Strict):
    id: Id
    timestamp: Annotated[str, Field(pattern=r"^[0-9]{1,12}$")]
    type: Short
    from_: Short = Field("", alias="from")  # absent for a user known only by id
    from_user_id: Short = ""
    text: Text | None = None
    image: Media | None = None
    document: Media | None = None
    audio: Media | None = None
    video: Media | None = None
    button: Button | None = None
    system: System | None = None


class StatusError(_Strict):
    code: int
    title: Short = ""
    message: Short = ""
    error_data: dict[str, Any] | None = None


class Status(_Strict):
    id: Id
    status: Short
    timestamp: Annotated[str, Field(pattern=r"^[0-9]{1,12}$")]
    recipient_id: Short = ""
    recipient_user_id: Short = ""
    biz_opaque_callback_data: Annotated[str, Field(max_length=512)] = ""
    errors: Annotated[list[StatusError], Field(max_length=16)] = []


class Preference(_Strict):
    wa_id: Short = ""
    user_id: Short = ""
    value: Short
    category: Short = ""
    timestamp: int | str = 0


class MessagesValue(_Strict):
    messaging_product: Short = "whatsapp"
    metadata: Metadata
    contacts: Annotated[list[Contact], Field(max_length=MAX_ITEMS)] = []
    messages: Annotated[list[InboundMessage], Field(max_length=MAX_ITEMS)] = []
    statuses: Annotated[list[Status], Field(max_length=MAX_ITEMS)] = []
    errors: Annotated[list[StatusError], Field(max_length=MAX_ITEMS)] = []
    user_preferences: Annotated[list[Preference], Field(max_length=MAX_ITEMS)] = []


class Change(_Strict):
    field: Short
    value: dict[str, Any]


class Entry(_Strict):
    id: Id
    time: int | None = None
    changes: Annotated[list[Change], Field(max_length=MAX_ITEMS)]


class Envelope(_Strict):
    object: Short
    entry: Annotated[list[Entry], Field(min_length=1, max_length=MAX_ITEMS)]


class AccountUpdate(_Strict):
    event: Short
    phone_number: Short = ""
    ban_info: dict[str, Any] | None = None
    restriction_info: list[dict[str, Any]] | None = None
    violation_info: dict[str, Any] | None = None


class QualityUpdate(_Strict):
    display_phone_number: Short
    event: Short
    current_limit: Short = ""


class CapabilityUpdate(_Strict):
    max_daily_conversations_per_business: int | str | None = None
    max_daily_conversation_per_phone: int | None = None


# --- Lead Ads ------------------------------------------------------------------------------


class Leadgen(_Strict):
    leadgen_id: Id
    page_id: Id
    form_id: Id
    ad_id: Id | None = None
    adgroup_id: Id | None = None
    created_time: int | None = None


class FieldData(_Strict):
    name: Short
    values: Annotated[list[Annotated[str, Field(max_length=4_096)]], Field(max_length=50)] = []


class FetchedLead(_Strict):
    id: Id
    created_time: Short = ""
    form_id: Id | None = None
    ad_id: Id | None = None
    is_organic: bool | None = None
    platform: Short = ""
    field_data: Annotated[list[FieldData], Field(max_length=100)] = []


# --- helpers -------------------------------------------------------------------------------


def validate(model: type[_Strict], payload: Any, event_type: str, at: str = "") -> Any:
    """`model` from `payload`, or MalformedPayload naming the first bad field (under `at`)."""
    try:
        return model.model_validate(payload, strict=True)
    except ValidationError as exc:
        raise malformed(exc, event_type=event_type, prefix=at) from None


def messages_value(value: dict[str, Any], at: str) -> MessagesValue:
    return validate(MessagesValue, value, "messages", at)
