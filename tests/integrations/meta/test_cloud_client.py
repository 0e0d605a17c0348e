"""The Cloud API backend at its HTTP boundary: the exact requests it makes (text, template,
media, a person known only by their WhatsApp id), every recorded error answer mapped to the
retry table and the phone-health guard, and how it shapes a message (`prepare`)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import responses

from cerniq import retry
from cerniq.provider_errors import (
    AccountBanned,
    AccountDisconnected,
    AccountRestricted,
    AuthenticationFailed,
    InvalidRecipient,
    ProviderUnavailable,
    RateLimited,
    RecipientLimited,
    RejectedRequest,
)
from integrations.meta.cloud import CloudAPI
from integrations.meta.models import ApprovedTemplate
from tests.factories import make_template
from tests.integrations.meta.conftest import GRAPH, NUMBER_ID, TOKEN, api_body
from whatsapp.backends import OutgoingWhatsApp

URL = f"{GRAPH}/{NUMBER_ID}/messages"


@pytest.fixture
def cloud():
    return CloudAPI(access_token=TOKEN, waba_id="102290129340398")


@pytest.fixture
def rsps():
    with responses.RequestsMock() as mock:
        yield mock


def sent_body(rsps) -> dict:
    return json.loads(rsps.calls[-1].request.body)


def test_a_text_goes_to_the_number_with_our_reference(rsps, cloud):
    rsps.post(URL, json=api_body("send_text_ok"))
    result = cloud.send_prepared(
        account_id=NUMBER_ID,
        to="+40722111333",
        to_user_id="",
        prepared={"type": "text", "text": "Mulțumim, revenim azi."},
        reference="wa-msg-4711",
    )
    assert result.provider_message_id.startswith("wamid.")
    assert result.thread_id == "40722111333"
    request = rsps.calls[0].request
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert sent_body(rsps) == {
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": "40722111333",
        "type": "text",
        "text": {"preview_url": False, "body": "Mulțumim, revenim azi."},
        "biz_opaque_callback_data": "wa-msg-4711",
    }


def test_a_template_carries_its_name_language_and_parameters(rsps, cloud):
    rsps.post(URL, json=api_body("send_template_ok"))
    cloud.send_prepared(
        account_id=NUMBER_ID,
        to="+40722111333",
        to_user_id="",
        prepared={
            "type": "template",
            "name": "intro_ferma_ro",
            "language": "ro",
            "parameters": ["Ion", "Agro Test SRL"],
            "parameter_names": [],
        },
        reference="k",
    )
    body = sent_body(rsps)
    assert body["type"] == "template"
    assert body["template"] == {
        "name": "intro_ferma_ro",
        "language": {"code": "ro"},
        "components": [
            {
                "type": "body",
                "parameters": [
                    {"type": "text", "text": "Ion"},
                    {"type": "text", "text": "Agro Test SRL"},
                ],
            }
        ],
    }


def test_named_parameters_carry_their_names(rsps, cloud):
    rsps.post(URL, json=api_body("send_template_held"))
    result = cloud.send_prepared(
        account_id=NUMBER_ID,
        to="+40722111333",
        to_user_id="",
        prepared={
            "type": "template",
            "name": "oferta",
            "language": "ro",
            "parameters": ["Ion"],
            "parameter_names": ["first_name"],
        },
        reference="k",
    )
    parameter = sent_body(rsps)["template"]["components"][0]["parameters"][0]
    assert parameter == {"type": "text", "text": "Ion", "parameter_name": "first_name"}
    # Held by Meta's template pacing: kept in the raw answer for the timeline.
    assert result.raw["messages"][0]["message_status"] == "held_for_quality_assessment"


def test_media_go_by_link_with_caption_and_file_name(rsps, cloud):
    rsps.post(URL, json=api_body("send_text_ok"))
    rsps.post(URL, json=api_body("send_text_ok"))
    for prepared in (
        {"type": "image", "link": "https://files.example.ro/parcela.jpg", "caption": "Parcela"},
        {
            "type": "document",
            "link": "https://files.example.ro/oferta.pdf",
            "filename": "oferta.pdf",
        },
    ):
        cloud.send_prepared(
            account_id=NUMBER_ID, to="+40722111333", to_user_id="", prepared=prepared, reference=""
        )
    first, second = (json.loads(call.request.body) for call in rsps.calls)
    assert first["type"] == "image"
    assert first["image"] == {"link": "https://files.example.ro/parcela.jpg", "caption": "Parcela"}
    assert second["document"] == {
        "link": "https://files.example.ro/oferta.pdf",
        "filename": "oferta.pdf",
    }
    with pytest.raises(RejectedRequest):
        cloud.send_prepared(
            account_id=NUMBER_ID,
            to="+40722111333",
            to_user_id="",
            prepared={"type": "image", "link": "http://plain.example.ro/x.jpg"},
            reference="",
        )


def test_a_person_known_only_by_id_is_sent_to_as_recipient(rsps, cloud):
    rsps.post(URL, json=api_body("send_to_user_id_ok"))
    result = cloud.send_prepared(
        account_id=NUMBER_ID,
        to="",
        to_user_id="RO.8812734401928374",
        prepared={"type": "text", "text": "Bună ziua"},
        reference="",
    )
    body = sent_body(rsps)
    assert body["recipient"] == "RO.8812734401928374" and "to" not in body
    assert result.thread_id == "RO.8812734401928374"


@pytest.mark.parametrize(
    ("fixture", "status", "error", "decision"),
    [
        ("error_131049", 400, RecipientLimited, timedelta(hours=24)),
        ("error_131048", 400, AccountRestricted, None),
        ("error_131064", 400, AccountRestricted, None),
        ("error_368", 400, AccountBanned, None),
        ("error_131031", 400, AccountBanned, None),
        ("error_131042", 400, AccountDisconnected, None),
        ("error_131026", 400, InvalidRecipient, None),
        ("error_130429", 429, RateLimited, timedelta(seconds=60)),
        ("error_131056", 400, RateLimited, timedelta(seconds=6)),
        ("error_190", 401, AuthenticationFailed, None),
        ("error_131047", 400, RejectedRequest, None),
        ("error_132001", 404, RejectedRequest, None),
        ("error_131000", 500, ProviderUnavailable, timedelta(seconds=15)),
    ],
)
def test_every_recorded_error_maps_to_its_retry_row(rsps, cloud, fixture, status, error, decision):
    rsps.post(URL, json=api_body(fixture), status=status)
    with pytest.raises(error) as raised:
        cloud.send_prepared(
            account_id=NUMBER_ID,
            to="+40722111333",
            to_user_id="",
            prepared={"type": "text", "text": "x"},
            reference="",
        )
    assert type(raised.value) is error
    assert raised.value.error_code == fixture.removeprefix("error_")
    assert retry.decide(raised.value, attempts=1).retry_in == decision


def test_the_per_user_limit_is_retried_once_and_not_before_24_hours(rsps, cloud):
    rsps.post(URL, json=api_body("error_131049"), status=400)
    with pytest.raises(RecipientLimited) as raised:
        cloud.send_prepared(
            account_id=NUMBER_ID,
            to="+40722111333",
            to_user_id="",
            prepared={"type": "text", "text": "x"},
            reference="",
        )
    assert retry.decide(raised.value, attempts=1).retry_in == timedelta(hours=24)
    assert retry.decide(raised.value, attempts=2).give_up


def test_the_numbers_of_the_business_account_are_listed(rsps, cloud):
    rsps.get(f"{GRAPH}/102290129340398/phone_numbers", json=api_body("phone_numbers"))
    accounts = cloud.list_accounts()
    assert accounts[0] == {
        "id": NUMBER_ID,
        "phone": "+40740000201",
        "status": "active",
        "quality": "GREEN",
    }
    assert accounts[1]["status"] == "restricted"


# --- prepare ---------------------------------------------------------------------------------


def outgoing(tenant, version_id, *, window_open=False, variables=None) -> OutgoingWhatsApp:
    return OutgoingWhatsApp(
        tenant_id=tenant.pk,
        account_phone="+40740000201",
        account_id=NUMBER_ID,
        to="+40722111333",
        to_user_id="",
        text="{Bună|Salut} Ion, spintax ales",
        template_version_id=version_id,
        variables=variables if variables is not None else {"contact_name": "Ion"},
        window_open=window_open,
    )


@pytest.fixture
def approved(tenant):
    version = make_template(tenant).versions.get()
    ApprovedTemplate.objects.create(
        tenant=tenant,
        template_version=version,
        name="intro_ferma_ro",
        language="ro",
        parameters=["contact_name", "company_name"],
        text="Bună ziua {{1}}, vă scriem de la Agro Demo despre {{2}}. Răspundeți STOP.",
    )
    return version


def test_inside_the_window_the_text_goes_as_it_is(tenant, cloud, approved):
    prepared = cloud.prepare(outgoing(tenant, approved.pk, window_open=True))
    assert prepared == {"type": "text", "text": "{Bună|Salut} Ion, spintax ales"}


def test_outside_it_the_approved_template_goes_with_the_leads_values(tenant, cloud, approved):
    variables = {"contact_name": "Ion", "company_name": "Agro Test SRL"}
    prepared = cloud.prepare(outgoing(tenant, approved.pk, variables=variables))
    assert prepared["type"] == "template" and prepared["name"] == "intro_ferma_ro"
    assert prepared["parameters"] == ["Ion", "Agro Test SRL"]
    assert prepared["text"] == (
        "Bună ziua Ion, vă scriem de la Agro Demo despre Agro Test SRL. Răspundeți STOP."
    )


def test_outside_it_without_an_approved_template_the_message_says_why(tenant, cloud):
    version = make_template(tenant).versions.get()
    with pytest.raises(RejectedRequest) as refused:
        cloud.prepare(outgoing(tenant, version.pk))
    assert refused.value.error_code == "no_approved_template"
    assert "24-hour" in str(refused.value)


def test_an_empty_parameter_is_refused_before_meta_refuses_it(tenant, cloud, approved):
    with pytest.raises(RejectedRequest) as refused:
        cloud.prepare(outgoing(tenant, approved.pk, variables={"contact_name": "Ion"}))
    assert "company_name" in str(refused.value)


def test_another_workspaces_approved_template_is_never_used(tenant, other_tenant, cloud, approved):
    with pytest.raises(RejectedRequest):
        cloud.prepare(outgoing(other_tenant, approved.pk))


def test_media_is_uploaded_for_a_number_and_sent_by_its_id(cloud):
    with responses.RequestsMock() as mock:
        mock.post(
            "https://graph.facebook.com/v23.0/106540352242922/media",
            json={"id": "1479537139650973"},
        )
        media_id = cloud.upload_media(
            account_id="106540352242922",
            content=b"\x89PNG\r\n\x1a\n",
            filename="parcela.png",
            content_type="image/png",
        )
        sent = mock.calls[0].request.body
    assert media_id == "1479537139650973"
    assert b'name="messaging_product"\r\n\r\nwhatsapp' in sent
    assert b'name="type"\r\n\r\nimage/png' in sent
    assert b'filename="parcela.png"' in sent
