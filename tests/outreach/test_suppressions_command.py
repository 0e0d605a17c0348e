"""`manage.py suppressions import|export`: all or nothing with the lines at fault, the
export read back."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from outreach.models import Suppression

pytestmark = pytest.mark.django_db


def test_a_bad_line_exits_non_zero_naming_it_and_lists_nothing(tenant, tmp_path):
    path = tmp_path / "dnc.csv"
    path.write_text("kind,value,reason\ndomain,agro.ro,x\nphone,123,bad\n", encoding="utf-8")
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing imported"):
        call_command("suppressions", "import", str(path), "--tenant", tenant.slug, stderr=err)
    assert "line 3" in err.getvalue() and "123" in err.getvalue()
    assert not Suppression.objects.exists()


def test_import_then_export_round_trips(tenant, tmp_path):
    path = tmp_path / "dnc.csv"
    path.write_text("phone,cui\n0722 000 001,RO22732040\n", encoding="utf-8")
    out = io.StringIO()
    call_command("suppressions", "import", str(path), "--tenant", tenant.slug, stdout=out)
    assert out.getvalue().strip() == "added 2 (cui 1, phone 1), already listed 0"
    entry = Suppression.objects.get(phone="+40722000001")
    assert (entry.source, entry.reason) == ("import", "Imported from dnc.csv")
    exported = io.StringIO()
    call_command("suppressions", "export", "--tenant", tenant.slug, stdout=exported)
    lines = exported.getvalue().splitlines()
    assert lines[0] == "kind,value,reason,source,created_at,created_by"
    assert sorted(line.split(",")[1] for line in lines[1:]) == ["+40722000001", "22732040"]


def test_an_unknown_tenant_or_file_is_a_clear_error(tenant, tmp_path):
    with pytest.raises(CommandError, match="unknown tenant 'nobody'"):
        call_command("suppressions", "export", "--tenant", "nobody")
    with pytest.raises(CommandError, match="cannot read"):
        call_command("suppressions", "import", str(tmp_path / "none.csv"), "--tenant", tenant.slug)
