"""Quick replies (#21): saved per workspace with the templates' rules (an unknown
{{variable}} or broken spintax refused naming it, a unique name, length limits), managed on
the settings page, and rendered for one lead in the composer (diacritics kept, the
operator's name filled in), never across workspaces."""

from __future__ import annotations

import pytest

from outreach import quick_replies
from outreach.models import QuickReply
from outreach.quick_replies import QuickReplyData, QuickReplyInvalid
from tests.factories import make_lead

pytestmark = pytest.mark.django_db

PAGE = "/outreach/settings/quick-replies/"


@pytest.fixture
def logged_in(client, operator):
    client.force_login(operator)
    return client


@pytest.fixture
def lead(tenant):
    return make_lead(
        tenant,
        name="Cooperativa Țara Bârsei",
        contact_name="Ștefănescu",
        locality="Făgăraș",
        custom_fields={"culture": "grâu"},
    )


def save(tenant, **data) -> QuickReply:
    values = {"name": "pret", "body": "Bună ziua, {{contact_name}}!", **data}
    return quick_replies.save(tenant, QuickReplyData(**values), user=None)


# --- the service: rules and rendering ----------------------------------------------------


def test_variables_render_for_the_lead_with_diacritics_and_the_operator(tenant, lead, operator):
    operator.first_name, operator.last_name = "Ioana", "Mureșan"
    operator.save()
    reply = save(
        tenant,
        body="Bună ziua, {{contact_name}}! Pentru {{culture}} în {{locality}} vă sună "
        "{{operator_name}}. {{county|}}",
        subject="Ofertă {{company_name}}",
        channel="EMAIL_WARM",
    )
    rendered = quick_replies.render_for(reply, lead, operator)
    assert rendered.text.startswith(
        "Bună ziua, Ștefănescu! Pentru grâu în Făgăraș vă sună Ioana Mureșan."
    )
    assert rendered.subject == "Ofertă Cooperativa Țara Bârsei"


def test_an_unknown_variable_is_refused_naming_it(tenant):
    with pytest.raises(QuickReplyInvalid) as refused:
        save(tenant, body="Salut {{nume_fermier}}!")
    (problem,) = refused.value.problems["body"]
    assert "{{nume_fermier}}" in problem
    assert not QuickReply.objects.exists()


def test_broken_spintax_a_taken_name_and_limits_are_refused(tenant):
    save(tenant)
    with pytest.raises(QuickReplyInvalid) as refused:
        save(tenant, name="PRET", body="{Bună|Salut")
    assert set(refused.value.problems) == {"name", "body"}
    with pytest.raises(QuickReplyInvalid) as refused:
        save(tenant, name="x" * 61, body="a" * (quick_replies.MAX_BODY + 1), subject="s")
    assert set(refused.value.problems) == {"name", "body"}
    with pytest.raises(QuickReplyInvalid) as refused:
        save(tenant, name="wa", channel="WHATSAPP", subject="Subiect")
    assert set(refused.value.problems) == {"subject"}
    assert QuickReply.objects.count() == 1


def test_the_composer_renders_a_reply_for_the_lead_and_never_another_workspaces(
    logged_in, tenant, other_tenant, lead
):
    mine = save(tenant, body="Bună, {{contact_name}}!")
    response = logged_in.get(f"/outreach/inbox/{lead.pk}/quick-replies/{mine.pk}/")
    assert response.json() == {"text": "Bună, Ștefănescu!", "subject": ""}
    theirs = save(other_tenant, body="Secret")
    assert logged_in.get(f"/outreach/inbox/{lead.pk}/quick-replies/{theirs.pk}/").status_code == 404
    their_lead = make_lead(other_tenant)
    url = f"/outreach/inbox/{their_lead.pk}/quick-replies/{mine.pk}/"
    assert logged_in.get(url).status_code == 404


def test_the_composer_lists_the_workspaces_replies(logged_in, tenant, other_tenant, lead):
    save(tenant, name="pret")
    save(other_tenant, name="ascuns")
    page = logged_in.get(f"/outreach/inbox/{lead.pk}/").content.decode()
    assert 'data-name="pret"' in page and "ascuns" not in page


# --- the settings page --------------------------------------------------------------------


def test_create_edit_and_delete_on_the_page(logged_in, tenant, other_tenant):
    response = logged_in.post(
        f"{PAGE}new/",
        {
            "name": "livrare",
            "channel": "",
            "language": "ro",
            "subject": "",
            "body": "Livrăm în {{county}}.",
        },
        follow=True,
    )
    assert "Quick reply livrare saved." in response.content.decode()
    reply = QuickReply.objects.get(tenant=tenant)
    assert (reply.name, reply.body) == ("livrare", "Livrăm în {{county}}.")
    listing = logged_in.get(PAGE).content.decode()
    assert "/livrare" in listing
    logged_in.post(
        f"{PAGE}{reply.pk}/",
        {
            "name": "livrare",
            "channel": "WHATSAPP",
            "language": "ro",
            "subject": "",
            "body": "Livrăm mâine.",
        },
    )
    reply.refresh_from_db()
    assert (reply.channel, reply.body) == ("WHATSAPP", "Livrăm mâine.")
    theirs = save(other_tenant, name="al lor")
    assert logged_in.get(f"{PAGE}{theirs.pk}/").status_code == 404
    assert logged_in.post(f"{PAGE}{theirs.pk}/delete/").status_code == 404
    logged_in.post(f"{PAGE}{reply.pk}/delete/")
    assert list(QuickReply.objects.all()) == [theirs]


def test_bad_input_on_the_page_is_a_form_error_and_saves_nothing(logged_in, tenant):
    response = logged_in.post(
        f"{PAGE}new/",
        {"name": "", "channel": "", "language": "ro", "subject": "", "body": "Salut {{fermier}}"},
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert 'data-error="name"' in page and 'data-error="body"' in page
    assert "{{fermier}}" in page
    assert not QuickReply.objects.exists()
