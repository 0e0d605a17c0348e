"""The leads search: Romanian spellings (ș/ş, ț/ţ, ă, â, î, none), contacts, a CUI or a phone
however written, on the leads page; and the folded search text follows every write path."""

from __future__ import annotations

import unicodedata

import phonenumbers
import pytest
from django.test import Client
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from outreach import companies
from outreach.importing import import_rows
from outreach.lead_entry import update_lead
from outreach.lead_filters import filter_leads
from outreach.lead_search import fold, refill, search_text_of, search_words
from outreach.models import Lead
from tests.factories import make_company, make_lead

pytestmark = pytest.mark.django_db

LIST = "/outreach/leads/"

# Each Romanian letter with a mark, and every way it reaches us: comma below (the correct
# form), cedilla (old keyboards, legacy exports), decomposed (letter + combining mark, as
# some systems paste it), no mark at all, in either case.
VARIANTS = {
    "ș": ("ș", "ş", "s\u0326", "s\u0327", "s", "Ș", "Ş", "S"),
    "ț": ("ț", "ţ", "t\u0326", "t\u0327", "t", "Ț", "Ţ", "T"),
    "ă": ("ă", "a\u0306", "a", "Ă", "A"),
    "â": ("â", "a\u0302", "a", "Â", "A"),
    "î": ("î", "i\u0302", "i", "Î", "I"),
}
ROMANIAN = "abcdefghijlmnoprstuvz" + "".join(VARIANTS)


def _spell(word: str, draw) -> str:
    """`word` with each letter in a random one of its spellings (and random case)."""
    out = []
    for letter in word:
        forms = VARIANTS.get(letter, (letter, letter.upper()))
        out.append(draw(st.sampled_from(forms)))
    return "".join(out)


def _ascii(word: str) -> str:
    return word.translate(str.maketrans("șțăâî", "staai"))


words = st.text(alphabet=ROMANIAN, min_size=3, max_size=12)


def _names(leads) -> set[str]:
    return {lead.name for lead in leads}


def _search(tenant, q: str):
    return filter_leads(Lead.objects.filter(tenant=tenant), {"q": q})


# --- folding ------------------------------------------------------------------------------


@given(word=words, data=st.data())
def test_every_spelling_of_a_word_folds_alike(word, data):
    assert fold(_spell(word, data.draw)) == fold(_spell(word, data.draw)) == _ascii(word)


def test_fold_examples():
    assert fold("AGROINDUSTRIALĂ ŞTIRBEI S.R.L.") == "agroindustriala stirbei srl"
    assert fold("  Ţara   Ţânţarilor — Țara ") == "tara tantarilor tara"
    assert fold("0722 345 678") == fold("0722.345.678") == fold("0722-345-678") == "0722345678"
    assert fold("+40 (722) 345-678") == "+40722345678"
    assert fold("Łódź Straße") == "lodz strasse"  # letters with no decomposition too


def test_search_words_drop_words_a_longer_one_contains():
    assert search_words("agro Agroindustriala ştirbei STIRBEI") == ["agroindustriala", "stirbei"]
    assert search_words("?! —") == []


def test_search_text_holds_name_contact_email_and_both_phone_forms_not_the_cui():
    lead = Lead(
        name="Agroindustriala Ştirbei SRL",
        contact_name="Ion Țurcanu",
        email="Office@Stirbei.ro",
        phone="+40722345678",
        cui="22732040",
    )
    assert search_text_of(lead) == (
        "agroindustriala stirbei srl ion turcanu office@stirbeiro +40722345678 0722345678"
    )


# --- the search, any spelling --------------------------------------------------------------


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(word=words, data=st.data())
def test_a_name_is_found_by_any_spelling_of_any_part(tenant, word, data):
    stored = make_lead(tenant, name=f"Ferma {_spell(word, data.draw)} SRL", with_journey=False)
    decoy = make_lead(tenant, name="Kyk Qwx", with_journey=False)  # letters no word has
    try:
        start = data.draw(st.integers(0, len(word) - 3))
        end = data.draw(st.integers(start + 3, len(word)))
        for query in (_spell(word, data.draw), _spell(word[start:end], data.draw)):
            found = _search(tenant, query)
            assert stored in found, (stored.name, query)
            assert decoy not in found
    finally:
        Lead.objects.filter(pk__in=[stored.pk, decoy.pk]).delete()


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=words, last=words, data=st.data())
def test_a_contact_is_found_by_any_spelling_in_any_order(tenant, first, last, data):
    stored = make_lead(tenant, name="Ferma Kyk", contact_name=_spell(f"{first} {last}", data.draw))
    try:
        query = f"{_spell(last, data.draw)} {_spell(first, data.draw)}"
        assert list(_search(tenant, query)) == [stored]
    finally:
        stored.delete()


def _grouped(digits: str, separator: str, cuts: list[int]) -> str:
    """`digits` split at `cuts` and joined by `separator` ("0722 345 678")."""
    bounds = [0, *sorted(set(cuts)), len(digits)]
    return separator.join(digits[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if a < b)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    prefix=st.sampled_from(["72", "73", "74", "75", "76", "77", "78"]),
    rest=st.text(alphabet="0123456789", min_size=7, max_size=7),
    form=st.sampled_from(["0", "+40", "+40 ", "0040", "0040 ", "40"]),
    separator=st.sampled_from(["", " ", ".", "-", " - "]),
    cuts=st.lists(st.integers(1, 8), max_size=3),
)
def test_a_phone_is_found_however_it_is_written(tenant, prefix, rest, form, separator, cuts):
    national = prefix + rest  # 9 digits after the trunk 0
    # Only numbers that exist: the search finds a phone by parsing it, and the numbering
    # plan (phonenumbers' metadata) leaves some ranges of these prefixes unassigned.
    assume(phonenumbers.is_valid_number(phonenumbers.parse(f"+40{national}")))
    stored = make_lead(tenant, name="Ferma Kyk", phone=f"+40{national}", with_journey=False)
    decoy = make_lead(tenant, name="Ferma Qwx", phone="+40799000000", with_journey=False)
    try:
        query = form + _grouped(national, separator, cuts)
        found = _search(tenant, query)
        assert stored in found and decoy not in found, query
    finally:
        Lead.objects.filter(pk__in=[stored.pk, decoy.pk]).delete()


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    base=st.integers(10_000, 99_999_999),
    prefix=st.sampled_from(["", "RO", "ro", "Ro", "RO ", "ro "]),
    separator=st.sampled_from(["", " ", "."]),
    cuts=st.lists(st.integers(1, 8), max_size=2),
)
def test_a_cui_is_found_however_it_is_written(tenant, base, prefix, separator, cuts):
    from stdnum.ro import cui

    number = str(base) + cui.calc_check_digit(str(base))
    # No phone: no digits in their search text, only the CUI can match.
    stored = make_lead(tenant, name="Ferma Kyk", cui=number, phone="", with_journey=False)
    longer = make_lead(tenant, name="Ferma Qwx", cui=number + "9", phone="", with_journey=False)
    try:
        query = prefix + _grouped(number, separator, cuts)
        assert list(_search(tenant, query)) == [stored], query
    finally:
        Lead.objects.filter(pk__in=[stored.pk, longer.pk]).delete()


@pytest.fixture
def stirbei(tenant):
    return make_lead(
        tenant,
        name="AGROINDUSTRIALĂ ȘTIRBEI SRL",
        cui="22732040",
        contact_name="Ion Țurcanu",
        phone="+40722345678",
        email="office@agrostirbei.ro",
    )


@pytest.fixture
def others(tenant, other_tenant):
    """Leads that none of the searches for Știrbei may find: similar digits, another
    tenant's twin with the same CUI and phone."""
    return [
        make_lead(tenant, name="Ferma Sud SRL", cui="227320409", phone="+40722345670"),
        make_lead(tenant, name="Legume Nord SRL", cui="12345678", phone="+40744123456"),
        make_lead(
            other_tenant, name="Agroindustriala Stirbei SRL", cui="22732040", phone="+40722345678"
        ),
    ]


FINDS_STIRBEI = [
    "Agroindustriala Stirbei",  # the searches
    "Ştirbei",
    "Ion Țurcanu",
    "RO22732040",
    "0722 345 678",
    "AGROINDUSTRIALĂ ȘTIRBEI",  # and others
    "agroindustrială ştirbei srl",
    "stirbei agroindustriala",
    "STIRB",
    "industr",
    "ţurcanu",
    "turcanu ion",
    "ro22732040",
    "RO 22732040",
    "ro 22 732 040",
    "22732040",
    "+40722345678",
    "+40 722 345 678",
    "0040722345678",
    "0040 722 345 678",
    "0722.345.678",
    "0722-345-678",
    "(0722) 345 678",
    "722345678",
    "office@agrostirbei.ro",
    "AgroStirbei.ro",
]


@pytest.mark.parametrize("query", FINDS_STIRBEI)
def test_the_leads_page_finds_the_company_however_it_is_written(
    client: Client, operator, stirbei, others, query
):
    client.force_login(operator)
    html = client.get(LIST, {"q": query}).content.decode()
    found = {int(part.split('"')[0]) for part in html.split('data-lead="')[1:]}
    assert found == {stirbei.pk}


@pytest.mark.parametrize("query", ["Stirbeiu", "RO22732041", "0722 345 679", "?!", "%", "_"])
def test_near_misses_find_nothing(tenant, stirbei, others, query):
    assert list(_search(tenant, query)) == []


def test_part_of_a_phone_finds_every_lead_whose_number_holds_it(tenant, stirbei, others):
    assert _finds(tenant, "0722 345") == {stirbei.pk, others[0].pk}
    assert _finds(tenant, "345 678") == {stirbei.pk}


def test_a_whole_cui_finds_that_company_not_a_longer_cui_containing_it(tenant, others):
    assert _names(_search(tenant, "227320409")) == {"Ferma Sud SRL"}
    assert _names(_search(tenant, "RO12345678")) == {"Legume Nord SRL"}


# --- the search text follows every write ----------------------------------------------------


def _finds(tenant, query: str) -> set[int]:
    return set(_search(tenant, query).values_list("pk", flat=True))


def test_a_renamed_company_is_found_by_its_new_name_not_the_old(tenant, stirbei):
    update_lead(stirbei, {"name": "Cereale Bărăgan SRL", "contact_name": "Maria Popa"})
    assert _finds(tenant, "baragan") == {stirbei.pk}
    assert _finds(tenant, "maria popa") == {stirbei.pk}
    assert _finds(tenant, "industriala") == set()
    assert _finds(tenant, "turcanu") == set()


def test_save_with_update_fields_writes_the_search_text(tenant, stirbei):
    stirbei.email = "contact@lunca.ro"
    stirbei.save(update_fields=["email"])
    assert _finds(tenant, "lunca") == {stirbei.pk}
    assert _finds(tenant, "agrostirbei") == set()
    stirbei.county = "Olt"
    stirbei.save(update_fields=["county"])  # no source written: the text stays
    assert _finds(tenant, "lunca") == {stirbei.pk}


def test_a_queryset_update_rewrites_the_search_text_of_the_rows_it_changed(tenant, stirbei):
    kept = make_lead(tenant, name="Pomi Șerban SRL")
    assert Lead.objects.filter(name__startswith="AGRO").update(name="Vie Dealu Mare SA") == 1
    assert _finds(tenant, "dealu mare") == {stirbei.pk}
    assert _finds(tenant, "serban") == {kept.pk}
    Lead.objects.filter(pk=stirbei.pk).update(phone="+40744999000")
    assert _finds(tenant, "0744 999 000") == {stirbei.pk}
    assert _finds(tenant, "0722 345 678") == set()


def test_bulk_create_and_bulk_update_write_the_search_text(tenant):
    company = make_company(tenant, name="Ţarina Veche SRL")
    (lead,) = Lead.objects.bulk_create([companies.contact(company)])
    assert _finds(tenant, "tarina") == {lead.pk}
    lead.name = "Livada Nouă SRL"
    Lead.objects.bulk_update([lead], ["name"])
    assert _finds(tenant, "livada noua") == {lead.pk}
    assert _finds(tenant, "tarina") == set()


def test_the_import_writes_the_search_text_when_it_creates_and_updates(tenant):
    row = {
        "name": "Agroindustriala Ştirbei SRL",
        "cui": "RO22732040",
        "phone": "0722345678",
        "contact_name": "Ion Ţurcanu",
    }
    import_rows(tenant, [row])
    (lead,) = Lead.objects.filter(tenant=tenant)
    assert _finds(tenant, "știrbei țurcanu") == {lead.pk}
    report = import_rows(tenant, [{**row, "name": "Ferma Vâlcea SRL", "contact_name": ""}])
    assert report.updated == 1
    assert _finds(tenant, "valcea") == {lead.pk}
    assert _finds(tenant, "stirbei") == set()
    assert _finds(tenant, "turcanu") == {lead.pk}  # an empty cell never blanks data


def test_the_admin_change_form_writes_the_search_text(admin_client, tenant, stirbei):
    url = f"/admin/outreach/lead/{stirbei.pk}/change/"
    form = admin_client.get(url).context["adminform"].form
    assert "search_text" not in form.fields  # computed, never typed
    data = {name: form[name].value() for name in form.fields}
    data.update({"contact_name": "Vasile Dunăreanu", "custom_fields": "{}", "tags": "[]"})
    response = admin_client.post(url, {k: v for k, v in data.items() if v is not None})
    assert response.status_code == 302
    assert _finds(tenant, "dunareanu") == {stirbei.pk}
    # The company name is the company's (outreach.companies): changed there, for its leads.
    url = f"/admin/outreach/company/{stirbei.company_id}/change/"
    form = admin_client.get(url).context["adminform"].form
    data = {name: form[name].value() for name in form.fields}
    data.update({"name": "Cooperativa Dunărea", "custom_fields": "{}"})
    data.update({"contacts-TOTAL_FORMS": "0", "contacts-INITIAL_FORMS": "0"})  # read-only
    response = admin_client.post(url, {k: v for k, v in data.items() if v is not None})
    assert response.status_code == 302
    assert _finds(tenant, "cooperativa dunarea") == {stirbei.pk}


def test_refill_restores_the_text_the_migration_fills(tenant, stirbei):
    Lead.objects.filter(pk=stirbei.pk).update(search_text="")
    assert _finds(tenant, "stirbei") == set()
    assert refill(Lead.objects.all()) == 1
    assert _finds(tenant, "stirbei") == {stirbei.pk}
    assert refill(Lead.objects.all()) == 0  # nothing left to change


def test_decomposed_input_is_folded_like_composed():
    composed = "Știrbei"
    assert fold(unicodedata.normalize("NFD", composed)) == fold(composed) == "stirbei"
