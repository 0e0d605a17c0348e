"""Names sort in Romanian order: Ă after A, Â after Ă, Î after I, Ș after S, Ț after T, on
PostgreSQL (ICU's ro collation) and on SQLite (cerniq.collation), the same order on both."""

from __future__ import annotations

import os

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from cerniq.collation import ICU_LOCALE, sort_key
from outreach.models import Lead
from tests.factories import make_lead

# As PostgreSQL 15's ICU orders them (checked against `ORDER BY … COLLATE "ro-x-icu"`).
ICU_ORDER = [
    "Abator",
    "Agro 10",
    "Agro 2",
    "Agro-1",
    "ana",
    "Ana",
    "Ăla",
    "Âmbru",
    "Bacău",
    "emile",
    "Émile",
    "Ion",
    "Iza",
    "Îngeri",
    "Sara",
    "Suceava",
    "şoim",
    "Șoimul",
    "ştefan",
    "Ștefan",
    "Tanc",
    "Țara",
    "Ulmu",
    "Zorile",
]

NAME_CHARS = (
    "aăâbcdeéfghiîjklmnoöpqrsșştțţuüvwxyzAĂÂBCDEÉFGHIÎJKLMNOÖPQRSȘŞTȚŢUÜVWXYZ0123456789 -.&'"
)
# The built-in collation ours copies (the fallback server has no migrations applied).
ICU_ORDER_BY = "SELECT w FROM unnest(%s::text[]) AS w ORDER BY w COLLATE " + f'"{ICU_LOCALE}-x-icu"'  # noqa: S608


def test_the_key_orders_names_as_icu_does():
    shuffled = ICU_ORDER[::2] + ICU_ORDER[1::2][::-1]
    assert sorted(shuffled, key=sort_key) == ICU_ORDER


@pytest.mark.django_db
def test_the_database_orders_lead_names_in_romanian(tenant):
    for name in reversed(ICU_ORDER):
        make_lead(tenant, name=name, phone="")
    assert list(Lead.objects.filter(tenant=tenant).values_list("name", flat=True)) == ICU_ORDER


@pytest.mark.django_db
def test_the_leads_page_sorts_companies_and_contacts_in_romanian(client, operator, tenant):
    for name, contact in (("Țarina SRL", "Ștefan"), ("Tarla SRL", "Sorin"), ("Șanț SRL", "Ion")):
        make_lead(tenant, name=name, contact_name=contact, phone="")
    client.force_login(operator)
    html = client.get("/outreach/leads/?sort=name").content.decode()
    assert html.index("Tarla SRL") < html.index("Țarina SRL")
    assert html.index("Șanț SRL") < html.index("Tarla SRL")
    html = client.get("/outreach/leads/?sort=contact").content.decode()
    assert html.index(">Ion") < html.index(">Sorin") < html.index(">Ștefan")


def _postgres():
    """A PostgreSQL connection to ask ICU (the test database's when it is PostgreSQL)."""
    import psycopg

    if connection.vendor == "postgresql":
        connection.ensure_connection()
        return connection.connection
    try:
        return psycopg.connect("host=127.0.0.1 user=postgres dbname=postgres", connect_timeout=3)
    except psycopg.OperationalError:
        if os.environ.get("CI"):
            raise
        pytest.skip("no PostgreSQL here to compare with ICU (CI has one)")


@pytest.mark.django_db
@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=NAME_CHARS, max_size=8), min_size=2, max_size=12))
def test_sqlite_order_agrees_with_postgresql_icu(words):
    pg = _postgres()
    rows = pg.execute(ICU_ORDER_BY, [words]).fetchall()
    assert [row[0] for row in rows] == sorted(words, key=sort_key)
