"""`make run ADDR=...` passes its address to seed_demo, whose printed logins follow it."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command


def seed_output(*args: str) -> str:
    out = StringIO()
    call_command(
        "seed_demo",
        "--companies",
        "0",
        "--history-days",
        "0",
        "--allow-production",
        *args,
        stdout=out,
        stderr=StringIO(),
    )
    return out.getvalue()


@pytest.mark.django_db
def test_the_printed_logins_follow_the_address_make_run_serves():
    output = seed_output("--url", "http://127.0.0.1:8080/")
    assert "Demo logins (http://127.0.0.1:8080/)" in output
    assert "8000" not in output


@pytest.mark.django_db
def test_without_an_address_the_logins_name_the_default_one():
    assert "Demo logins (http://127.0.0.1:8000/)" in seed_output()


def test_make_run_passes_its_address_to_seed_demo():
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    assert "manage.py seed_demo --url http://$(ADDR)/" in makefile
