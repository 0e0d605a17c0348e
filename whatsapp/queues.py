"""Names of the per-phone Dramatiq queues (`wa.phone_07`).

Workers only consume queues declared when they start, so the set is fixed by a setting
(WHATSAPP_PHONE_QUEUES) and phones map onto it by id. A phone's planned runs go to its
queue (outreach.pacing); pacing never depends on the queue: the phone row is the lock.
The seeds' separate follow-up queue (`wa.phone_07.followup`) is not needed: a run picks
the phone's next message by priority (a person's, replies, follow-ups, new contacts).
"""

from __future__ import annotations

from django.conf import settings


def phone_queue(phone_id: int) -> str:
    slot = (phone_id - 1) % settings.WHATSAPP_PHONE_QUEUES + 1
    return f"wa.phone_{slot:02d}"


def all_phone_queues() -> list[str]:
    return [f"wa.phone_{slot:02d}" for slot in range(1, settings.WHATSAPP_PHONE_QUEUES + 1)]
