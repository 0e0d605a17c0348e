"""A lead's contact data edited through the API wakes its stalled enrollment."""

from __future__ import annotations

import pytest

from outreach import reasons as codes
from outreach.models import Lead
from tests.outreach.test_wake_stalled import clock, due, stalled, world

__all__ = ["clock", "world"]  # fixtures

pytestmark = pytest.mark.django_db


def test_the_api_update_wakes_the_stalled_lead(tenant, world, api):
    lead = world["leads"][0]
    Lead.objects.filter(pk=lead.pk).update(phone="", email="")
    stalled(tenant, lead, codes.NO_CHANNEL)
    response = api.patch(f"/api/v1/leads/{lead.pk}/", {"phone": "0722555111"}, format="json")
    assert response.status_code == 200
    assert due(lead)
