"""Fixtures shared by the outreach tests."""

from __future__ import annotations

import pytest
import time_machine

from tests.outreach.inbox_setup import NOW


@pytest.fixture
def inbox_moment():
    """The inbox tests' moment, the clock stopped (`pytest.mark.usefixtures`)."""
    with time_machine.travel(NOW, tick=False):
        yield NOW


@pytest.fixture
def logged_in(client, operator):
    """The test client signed in as the tenant's operator."""
    client.force_login(operator)
    return client
