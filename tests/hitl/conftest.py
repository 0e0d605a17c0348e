"""Shared fixtures of the review and takeover tests: Monday 10:00, two enrolled leads."""

from __future__ import annotations

import pytest
import time_machine

from tests.factories import make_outreach_world
from tests.whatsapp.conftest import MONDAY_10


@pytest.fixture
def clock():
    with time_machine.travel(MONDAY_10, tick=False) as traveller:
        yield traveller


@pytest.fixture
def world(tenant, clock):
    return make_outreach_world(tenant, leads=2, phones=1)


@pytest.fixture
def lead(world):
    return world["leads"][0]
