"""`manage.py create_workspace`: the first workspace and its admin on a fresh install."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from cerniq.management.commands.create_workspace import Command
from cerniq.models import Membership, Tenant

PASSWORD = "Brazda-de-grau-2026!"
OPTIONS = {
    "name": "Agro Nord SRL",
    "slug": "agro-nord",
    "admin_username": "maria",
    "admin_email": "maria@agronord.ro",
}


def create(monkeypatch, *, password: str | None = PASSWORD, **changes: object) -> str:
    if password is None:
        monkeypatch.delenv("CERNIQ_ADMIN_PASSWORD", raising=False)
    else:
        monkeypatch.setenv("CERNIQ_ADMIN_PASSWORD", password)
    out = StringIO()
    call_command(
        "create_workspace", interactive=False, stdout=out, stderr=StringIO(),
        **{**OPTIONS, **changes},
    )  # fmt: skip
    return out.getvalue()


def signs_in(client: Client, username: str, password: str) -> bool:
    """Through the login page (sign-in lockouts need the request Client.login lacks)."""
    response = client.post("/login/", {"username": username, "password": password})
    return response.status_code == 302 and "_auth_user_id" in client.session


@pytest.mark.django_db
def test_creates_the_workspace_and_an_admin_who_can_log_in(monkeypatch):
    output = create(monkeypatch)
    tenant = Tenant.objects.get(slug="agro-nord")
    assert tenant.name == "Agro Nord SRL" and tenant.is_active
    membership = Membership.objects.get(tenant=tenant)
    assert membership.user.username == "maria" and membership.user.email == "maria@agronord.ro"
    assert membership.role == Membership.Role.ADMIN
    assert not membership.user.is_superuser
    assert "Workspace 'Agro Nord SRL' (agro-nord) created." in output
    assert PASSWORD not in output
    client = Client()
    assert signs_in(client, "maria", PASSWORD)
    assert client.get("/outreach/dashboard/").status_code == 200


@pytest.mark.django_db
def test_superuser_flag_opens_django_admin(monkeypatch):
    create(monkeypatch, superuser=True)
    user = get_user_model().objects.get(username="maria")
    assert user.is_staff and user.is_superuser


@pytest.mark.django_db
def test_an_existing_slug_is_refused_and_nothing_changes(monkeypatch):
    create(monkeypatch)
    with pytest.raises(CommandError, match="--slug: a workspace 'agro-nord' already exists"):
        create(monkeypatch, name="Alt nume", admin_username="ion", admin_email="ion@x.ro")
    assert Tenant.objects.count() == 1
    assert not get_user_model().objects.filter(username="ion").exists()


@pytest.mark.django_db
def test_an_existing_account_becomes_admin_of_a_second_workspace_password_unchanged(
    monkeypatch,
):
    create(monkeypatch)
    output = create(monkeypatch, password=None, name="Agro Sud", slug="agro-sud")
    assert "Existing account 'maria' is its admin (password unchanged)." in output
    assert Membership.objects.filter(user__username="maria", role="ADMIN").count() == 2
    assert signs_in(Client(), "maria", PASSWORD)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "  "}, "--name: give the workspace a name."),
        ({"slug": "agro nord"}, "--slug: Enter a valid “slug”"),
        ({"admin_email": "maria@"}, "--admin-email: Enter a valid email address."),
        ({"admin_username": "maria popescu"}, "--admin-username: Enter a valid username."),
    ],
)
def test_bad_input_is_refused_naming_the_option(monkeypatch, changes, message):
    with pytest.raises(CommandError) as refused:
        create(monkeypatch, **changes)
    assert str(refused.value).startswith(message)
    assert not Tenant.objects.exists() and not get_user_model().objects.exists()


@pytest.mark.django_db
def test_a_weak_password_is_refused_with_the_validators_reasons(monkeypatch):
    with pytest.raises(CommandError) as refused:
        create(monkeypatch, password="12345")
    message = str(refused.value)
    assert message.startswith("the admin's password (CERNIQ_ADMIN_PASSWORD or the prompt):")
    assert "too short" in message and "12345" not in message
    assert not Tenant.objects.exists() and not get_user_model().objects.exists()


@pytest.mark.django_db
def test_without_a_password_and_no_terminal_it_says_where_to_put_one(monkeypatch):
    with pytest.raises(CommandError, match="set CERNIQ_ADMIN_PASSWORD in the environment"):
        create(monkeypatch, password=None)
    assert not Tenant.objects.exists()


def test_the_password_is_never_an_argument():
    options = {a.dest for a in Command().create_parser("manage.py", "create_workspace")._actions}
    assert not any("password" in option for option in options)
