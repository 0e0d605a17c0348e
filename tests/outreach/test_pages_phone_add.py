"""Adding a WhatsApp number on the phones page: admins only, the number in E.164, a
duplicate refused with a form error, nothing added on bad input."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_phone, make_user
from whatsapp.models import Phone

pytestmark = pytest.mark.django_db
ADD = "/outreach/phones/add/"


@pytest.fixture
def admin(tenant):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(make_user(tenant, role="ADMIN"))
    return client


def test_an_admin_sees_the_entry_and_adds_a_number(admin, tenant):
    assert 'href="/outreach/phones/add/"' in admin.get("/outreach/phones/").content.decode()
    form = admin.get(ADD).content.decode()
    assert '<option value="timelinesai">TimelinesAI</option>' in form
    assert 'value="sandbox"' not in form  # sends nothing: not offered in production
    response = admin.post(
        ADD, {"number": "0740 000 101", "provider": "timelinesai", "label": "Iași 1"}, follow=True
    )
    assert response.redirect_chain[-1][0] == "/outreach/phones/"
    page = response.content.decode()
    assert "+40740000101 is added. It starts its warm-up today." in page
    assert 'data-phone="+40740000101"' in page and "Iași 1" in page
    phone = Phone.objects.get(tenant=tenant)
    assert phone.account_id == "40740000101@s.whatsapp.net" and phone.is_usable


def test_a_duplicate_is_a_form_error_on_the_number(admin, tenant):
    make_phone(tenant, number="+40740000101")
    response = admin.post(ADD, {"number": "+40 740 000 101", "provider": "timelinesai"})
    assert response.status_code == 200
    assert response.context["form"].errors == {
        "number": ["This workspace already has the number +40740000101."]
    }
    assert Phone.objects.filter(tenant=tenant).count() == 1


def test_a_bad_number_is_a_form_error_and_adds_nothing(admin):
    response = admin.post(ADD, {"number": "0740", "provider": "timelinesai"})
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == ["number"] and "0740 is not a valid phone number" in errors["number"][0]
    assert 'class="bad-text"' in response.content.decode()
    assert not Phone.objects.exists()


def test_an_operator_gets_no_entry_and_no_form(client, operator):
    client.force_login(operator)
    page = client.get("/outreach/phones/").content.decode()
    assert "/outreach/phones/add/" not in page
    assert "An admin of this workspace adds the WhatsApp numbers." in page
    assert client.get(ADD).status_code == 403
    assert client.post(ADD, {"number": "0740000101", "provider": "timelinesai"}).status_code == 403
    assert not Phone.objects.exists()


def test_the_form_needs_csrf(tenant):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user(tenant, role="ADMIN"))
    assert client.post(ADD, {"number": "0740000101", "provider": "timelinesai"}).status_code == 403
    assert not Phone.objects.exists()


def test_in_romanian(tenant):
    client = Client(HTTP_ACCEPT_LANGUAGE="ro")
    client.force_login(make_user(tenant, role="ADMIN"))
    page = client.get(ADD).content.decode()
    assert "Adaugă un număr de WhatsApp" in page
