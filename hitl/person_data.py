"""The review side's rows about a person, in the data-subject export (outreach.person_data):
registered when the app is ready (hitl.apps)."""

from __future__ import annotations

from hitl.models import ConversationState, Note, ReplyResponse, ReplyTriage, ReviewItem
from outreach.person_data import Section, register


def register_sections() -> None:
    for model, name in (
        (ReviewItem, "review_items"),
        (ReplyTriage, "reply_triages"),
        (ReplyResponse, "reply_responses"),
        (Note, "notes"),
        (ConversationState, "conversation_read_state"),
    ):
        register(Section(name, model, lambda lead, model=model: model.objects.filter(lead=lead)))
