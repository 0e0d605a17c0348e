"""The type check's baseline (mypy-baseline.txt, docs/types.md) holds known errors of the
REST API and the pages only: the platform, the domain apps and the integrations are kept
free of type errors, so none of theirs may be parked there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINED = ("api", "console")
CLEAN = ("cerniq", "outreach", "hitl", "whatsapp", "email_channels", "integrations")


def test_only_the_api_and_the_pages_have_baselined_type_errors():
    lines = (ROOT / "mypy-baseline.txt").read_text(encoding="utf-8").splitlines()
    packages = {line.split("/", 1)[0] for line in lines if line.strip()}
    assert packages <= set(BASELINED), sorted(packages - set(BASELINED))


def test_make_lint_type_checks_every_app():
    typed = re.search(r"^TYPED := (.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert typed is not None
    assert set(typed[1].split()) == set(BASELINED + CLEAN)
