"""The admin shows stored reason codes (enrollment stop and stall, a message's channel
choice) in the admin user's language, never the raw code; old free text as it is."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from cerniq import reasons
from outreach import reasons as codes
from outreach.models import Enrollment
from tests.factories import make_lead, make_message, make_sequence

pytestmark = pytest.mark.django_db


def page(superuser, name: str, pk: int, language: str) -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(superuser)
    response = client.get(reverse(f"admin:outreach_{name}_change", args=[pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_an_enrollments_stall_and_stop_reason_are_rendered(superuser, tenant):
    lead = make_lead(tenant)
    enrollment = Enrollment.objects.create(
        tenant=tenant,
        lead=lead,
        sequence=make_sequence(tenant),
        stalled_reason=reasons.code(codes.NO_SENDING_PHONE),
        stop_reason=reasons.code(codes.ENROLL_OPTED_OUT),
    )
    english = page(superuser, "enrollment", enrollment.pk, "en")
    assert "no WhatsApp number of the workspace can send now" in english
    assert "dispatch.no_sending_phone" not in english
    romanian = page(superuser, "enrollment", enrollment.pk, "ro")
    assert "niciun număr WhatsApp al spațiului de lucru nu poate trimite acum" in romanian
    assert "blocată pentru că" in romanian.lower()


def test_a_messages_channel_reason_is_rendered(superuser, tenant):
    message = make_message(
        make_lead(tenant),
        channel_reason=reasons.code(codes.CHOSE_STEP_CHANNEL, channel="WHATSAPP"),
    )
    html = page(superuser, "message", message.pk, "en")
    assert "the step&#x27;s channel (WhatsApp)" in html
    assert "dispatch.step_channel" not in html


def test_old_free_text_shows_as_it_is(superuser, tenant):
    message = make_message(make_lead(tenant), channel_reason="reply on whatsapp")
    assert "reply on whatsapp" in page(superuser, "message", message.pk, "en")
