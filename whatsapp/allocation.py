"""Phone allocation (seed worker B#7): the one rule dispatch and manual sends share."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Allocation:
    phone_id: int
    new_contact: bool  # True: the first message to the lead from this phone (costs quota)


def choose_phone(
    usable: Collection[int],
    remaining: Mapping[int, int],
    *,
    chat_phone: int | None = None,
    assigned_phone: int | None = None,
    asked: bool = False,
) -> Allocation | None:
    """The phone of the lead's existing chat (a follow-up, no quota) when it is usable;
    else its assigned (sticky) phone if that one has quota left; else the usable phone with
    the most quota left (lowest id on a tie). None when no usable phone has quota left.
    `asked`: the person asked to be contacted, so the first message costs no quota
    (whatsapp.quota.cost) and a phone whose day is full may still carry it."""
    if chat_phone is not None and chat_phone in usable:
        return Allocation(chat_phone, new_contact=False)
    candidates = [pk for pk in usable if asked or remaining.get(pk, 0) > 0]
    if not candidates:
        return None
    if assigned_phone in candidates:
        return Allocation(assigned_phone, new_contact=True)
    best = max(candidates, key=lambda pk: (remaining.get(pk, 0), -pk))
    return Allocation(best, new_contact=True)
