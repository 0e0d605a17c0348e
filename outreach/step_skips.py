"""Steps a condition skipped (outreach.step_conditions, judged by dispatch's planning):
the enrollment moves past the step as if it had gone, so the step after it is due after
its own delay from now (or the sequence completes), and the lead's page keeps why
(a `SequenceEvent`). One UPDATE per outcome and one INSERT for the whole batch.
"""

from __future__ import annotations

from datetime import datetime

from outreach.event_models import SequenceEvent
from outreach.models import Enrollment, Journey, SequenceStep
from outreach.sequences import advance_many


def record(skipped: list[tuple[Enrollment, SequenceStep, Journey, str]], now: datetime) -> None:
    """Move each enrollment past its skipped step (the journeys in memory too, as dispatch
    saves them afterwards) and keep each skip on the lead's page."""
    if not skipped:
        return
    advance_many([(enrollment, step, journey) for enrollment, step, journey, _ in skipped], now)
    SequenceEvent.objects.bulk_create(
        [
            SequenceEvent(
                tenant_id=journey.tenant_id,
                lead_id=journey.lead_id,
                enrollment=enrollment,
                step=step,
                kind=SequenceEvent.Kind.STEP_SKIPPED,
                reason=said,
                created_at=now,
            )
            for enrollment, step, journey, said in skipped
        ]
    )
