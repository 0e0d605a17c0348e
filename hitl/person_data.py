"""The review side's rows about a person, in the data-subject export (outreach.person_data):
registered when the app is ready (hitl.apps)."""

from __future__ import annotations

from django.db.models import Model, QuerySet

from hitl.models import (
    ChatBackfill,
    ConversationState,
    Note,
    ReplyResponse,
    ReplyTriage,
    ReviewItem,
)
from outreach.models import Lead
from outreach.person_data import Section, register
from outreach.scrubbing import ERASED, Scrub, blank, nothing, redact


def _of_lead(model: type[Model]):  # noqa: ANN202 - a Section's finder
    def rows(lead: Lead) -> QuerySet:
        return model._default_manager.filter(lead=lead)

    return rows


# How an erasure blanks each: what the AI or a person wrote about the reply goes, the
# routing facts (kind, times, priority, intent) stay for the figures.
_SCRUBS: dict[str, Scrub] = {
    "review_items": redact("reason", then=[blank(ai_analysis={}, ai_draft="", resolution="")]),
    "reply_triages": blank(held={}, error=""),
    "reply_responses": nothing,
    "notes": blank(body=ERASED),
    "conversation_read_state": nothing,
    # The chat's id may be made of the number (a provider's choice); an error may quote it.
    "chat_history_fetches": redact("chat_id", "error"),
}


def register_sections() -> None:
    for model, name in (
        (ReviewItem, "review_items"),
        (ReplyTriage, "reply_triages"),
        (ReplyResponse, "reply_responses"),
        (Note, "notes"),
        (ConversationState, "conversation_read_state"),
        (ChatBackfill, "chat_history_fetches"),
    ):
        register(Section(name, model, _of_lead(model), _SCRUBS[name]))
