"""Messages stored as a chat's history: fetched from the provider after they happened
(hitl.whatsapp_history, docs/chat-history.md), not seen as they came.

Such a row is marked with HISTORY_MARK in its `raw_response`. It is part of the
conversation (the pages show it, in its place by its real time), but it is not activity
of ours: the figures leave it out (outreach.analytics.definitions), the reply path never
ran for it, and it never counts as a reply or a send. The mark outlives the blanking of a
row's payloads (retention, erasure): `raw_response_blanked` keeps it.
"""

from __future__ import annotations

from typing import Any

from django.db.models import BooleanField, Case, ExpressionWrapper, JSONField, Q, Value, When

HISTORY_MARK = "history"

# Not a history row. `has_key` is never NULL for a stored object, and a NULL
# `raw_response` is handled by the negation, so rows without a payload count as usual.
NOT_HISTORY = ~Q(raw_response__has_key=HISTORY_MARK)


def history_flag() -> ExpressionWrapper:
    """`.annotate(is_history=history_flag())`: whether each row is history, read in the
    query (a page that defers `raw_response`, the largest column, still knows)."""
    return ExpressionWrapper(Q(raw_response__has_key=HISTORY_MARK), output_field=BooleanField())


def is_history(raw_response: Any) -> bool:
    """Whether a row's `raw_response` marks it as history."""
    return isinstance(raw_response, dict) and bool(raw_response.get(HISTORY_MARK))


def raw_response_blanked() -> Case:
    """What `raw_response` becomes when a row's payloads are blanked (retention, erasure):
    nothing, except the history mark of a history row (the figures still leave it out)."""
    return Case(
        When(
            raw_response__has_key=HISTORY_MARK,
            then=Value({HISTORY_MARK: True}, output_field=JSONField()),
        ),
        default=Value(None, output_field=JSONField()),
        output_field=JSONField(),
    )
