"""Names of the per-phone Dramatiq queues (`wa.phone_07`, `wa.phone_07.followup`).

Workers only consume queues declared when they start, so the set is fixed by a setting
(WHATSAPP_PHONE_QUEUES) and phones map onto it by id. Pacing never depends on the queue:
the phone row is the lock (outreach.pacing).
"""

from __future__ import annotations

from django.conf import settings


def phone_queue(phone_id: int, *, followup: bool) -> str:
    slot = (phone_id - 1) % settings.WHATSAPP_PHONE_QUEUES + 1
    name = f"wa.phone_{slot:02d}"
    return f"{name}.followup" if followup else name


def all_phone_queues() -> list[str]:
    names = []
    for slot in range(1, settings.WHATSAPP_PHONE_QUEUES + 1):
        names += [f"wa.phone_{slot:02d}", f"wa.phone_{slot:02d}.followup"]
    return names
