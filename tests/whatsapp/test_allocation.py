"""The phone allocation rule dispatch and manual sends share."""

from __future__ import annotations

from whatsapp.allocation import Allocation, choose_phone

REMAINING = {1: 5, 2: 9, 3: 0, 4: 9}


def test_the_chat_phone_takes_a_follow_up_even_without_quota():
    assert choose_phone({1, 2, 3}, REMAINING, chat_phone=3) == Allocation(3, new_contact=False)


def test_a_chat_on_a_phone_that_cannot_send_falls_back_to_a_new_contact():
    assert choose_phone({1, 2}, REMAINING, chat_phone=7) == Allocation(2, new_contact=True)


def test_the_assigned_phone_is_kept_while_it_has_quota():
    assert choose_phone({1, 2, 4}, REMAINING, assigned_phone=1) == Allocation(1, True)
    assert choose_phone({1, 2, 3}, REMAINING, assigned_phone=3) == Allocation(2, True)


def test_otherwise_the_most_quota_left_lowest_id_first():
    assert choose_phone({1, 2, 4}, REMAINING) == Allocation(2, True)


def test_no_phone_with_quota_means_no_allocation():
    assert choose_phone({3}, REMAINING) is None
    assert choose_phone(set(), REMAINING) is None
