"""Fixtures of the brochure tests: a fixed moment, a media folder and an AI budget of their
own (autouse), the AI backend as configured (offline, or an OpenAI-compatible API whose
HTTP the tests fake with `responses`), the actor's hand-over."""

from __future__ import annotations

import uuid

import pytest
import time_machine

from cerniq import ai_budget
from outreach.tasks import run_brochure
from tests.outreach.brochures.setup import BASE, KEY, MODEL, MONDAY_10


@pytest.fixture(autouse=True)
def at_a_fixed_moment():
    with time_machine.travel(MONDAY_10, tick=False):
        yield MONDAY_10


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


@pytest.fixture(autouse=True)
def budget_of_its_own(monkeypatch):
    """A rate-limit key of the test's own: the stub limiter keeps counts across tests, and
    SQLite gives the next test's tenant the same id."""
    key = f"ai-test-{uuid.uuid4().hex}-{{tenant_id}}"
    monkeypatch.setattr(ai_budget, "AI_LIMIT_KEY", key)
    return key


@pytest.fixture
def offline(settings):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "ai.triage": {"BACKEND": "hitl.triage.OfflineTriage", "OPTIONS": {}},
    }


@pytest.fixture
def ai(settings):
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "ai.triage": {
            "BACKEND": "hitl.triage.OpenAICompatibleTriage",
            "OPTIONS": {"base_url": BASE, "api_key": KEY, "model": MODEL, "timeout": 9.0},
        },
    }


@pytest.fixture
def sent(monkeypatch):
    """Brochure ids handed to the actor (on commit)."""
    calls: list[int] = []
    monkeypatch.setattr(run_brochure, "send", calls.append)
    return calls
