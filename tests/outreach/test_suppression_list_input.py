"""outreach.suppression_list's bounds on what people type or upload: a removal's reason has
a ceiling as well as a floor, a CSV reason with a control character is a line at fault
(PostgreSQL cannot store a NUL; the others corrupt exports), a number is found however it
is written, and the removals are read back newest first."""

from __future__ import annotations

import pytest
import time_machine

from outreach import suppression_list as dnc
from outreach.models import Suppression, SuppressionRemoval
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def test_a_removal_reason_over_the_ceiling_is_refused_and_nothing_is_removed(tenant):
    entry, _ = dnc.add_entry(tenant, kind="email", value="ana@ferma.ro", reason="asked us")
    with pytest.raises(dnc.RemovalRefused) as refused:
        dnc.remove_entry(entry, user=make_user(tenant), reason="x" * (dnc.MAX_REMOVAL_REASON + 1))
    assert refused.value.field == "reason"
    assert Suppression.objects.filter(pk=entry.pk).exists()
    assert not SuppressionRemoval.objects.exists()


@pytest.mark.parametrize("character", ["\x00", "\x1b", "\x85"])
def test_a_csv_reason_with_a_control_character_is_a_line_at_fault(tenant, character):
    data = f"kind,value,reason\nemail,ana@ferma.ro,fine\ndomain,ferma.ro,bad{character}one\n"
    with pytest.raises(dnc.CsvInvalid) as invalid:
        dnc.import_csv(tenant, data.encode())
    assert [line for line, _message in invalid.value.errors] == [3]
    assert f"U+{ord(character):04X}" in invalid.value.errors[0][1]
    assert not Suppression.objects.exists()


def test_a_phone_is_found_as_people_write_it(tenant):
    dnc.add_entry(tenant, kind="phone", value="+40722000003", reason="stop")
    dnc.add_entry(tenant, kind="phone", value="+40722000004", reason="stop")
    found = [entry.value for entry in dnc.entries(tenant, q="0722 000 003")]
    assert found == ["+40722000003"]


def test_removals_are_the_tenants_newest_first(tenant, other_tenant):
    user = make_user(tenant)
    for day, value in ((1, "a@ferma.ro"), (2, "b@ferma.ro")):
        with time_machine.travel(f"2026-11-0{day}T10:00:00+02:00", tick=False):
            entry, _ = dnc.add_entry(tenant, kind="email", value=value, reason="typed by hand")
            dnc.remove_entry(entry, user=user, reason="added to the wrong workspace")
    theirs, _ = dnc.add_entry(other_tenant, kind="email", value="c@ferma.ro", reason="x")
    dnc.remove_entry(theirs, user=make_user(other_tenant), reason="added to the wrong workspace")
    assert [r.value for r in dnc.removals(tenant)] == ["b@ferma.ro", "a@ferma.ro"]
