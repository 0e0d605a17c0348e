from __future__ import annotations

import hashlib
import unicodedata
from collections import Counter

import pytest

from outreach import spintax
from outreach.models import Lead
from outreach.spintax import (
    CHANNEL_LIMITS,
    KNOWN_VARIABLES,
    Preview,
    Rendered,
    TemplateError,
    choose_version,
    count_variants,
    lead_variables,
    preview,
    render,
    validate,
    variant_seed,
)

SEEDS = [f"seed-{i}" for i in range(400)]
KNOWN = "company_name, contact_name, county, cui, locality"


def outputs(source: str, variables: dict[str, str] | None = None) -> set[str]:
    return {render(source, variables or {}, seed=s).text for s in SEEDS}


def path_hash(path: str) -> str:
    return hashlib.sha256(path.encode()).hexdigest()[:16]


# --- the public constants --------------------------------------------------------------


def test_constants_are_the_agreed_api():
    assert sorted(KNOWN_VARIABLES) == ["company_name", "contact_name", "county", "cui", "locality"]
    assert CHANNEL_LIMITS == {"WHATSAPP": 2000, "EMAIL_COLD": 10000, "EMAIL_WARM": 50000}


# --- rendering ----------------------------------------------------------------------------


def test_nested_alternatives_render_exactly_the_valid_combinations():
    source = "{Bună ziua|Salut|{Bună|Hei}}, {{company_name}}! {Vă scriu|Scriu} azi."
    greetings = ["Bună ziua", "Salut", "Bună", "Hei"]
    expected = {f"{g}, Agro SRL! {v} azi." for g in greetings for v in ("Vă scriu", "Scriu")}
    assert outputs(source, {"company_name": "Agro SRL"}) == expected


def test_double_brace_that_is_not_a_variable_opens_nested_spintax():
    source = "{{Bună|Hei}|Salut}"
    assert outputs(source) == {"Bună", "Hei", "Salut"}
    assert count_variants(source) == 3
    assert validate(source, channel="WHATSAPP") == []


def test_triple_brace_is_a_choice_around_a_variable():
    assert outputs("{{{company_name}}|firma dvs.}", {"company_name": "Agro"}) == {
        "Agro",
        "firma dvs.",
    }


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({"contact_name": "Ion Pop"}, "Bună ziua, Ion Pop!"),
        ({"contact_name": "  Ion Pop "}, "Bună ziua, Ion Pop!"),  # value stripped
        ({"contact_name": "   "}, "Bună ziua, stimate client!"),  # blank → fallback
        ({"contact_name": ""}, "Bună ziua, stimate client!"),
        ({}, "Bună ziua, stimate client!"),  # missing → fallback
    ],
)
def test_fallback_is_used_when_the_value_is_missing_or_blank(variables, expected):
    source = "Bună ziua, {{contact_name|stimate client}}!"
    assert render(source, variables, seed="x").text == expected


@pytest.mark.parametrize(
    "source",
    [
        "{{ county }} / {{contact_name | stimate client }}",
        "{{county}} / {{  contact_name|stimate client}}",
        "{{\tcounty\t}} / {{contact_name|   stimate client   }}",
    ],
)
def test_whitespace_inside_variable_braces_is_ignored(source):
    assert render(source, {"county": "Iași"}, seed="x").text == "Iași / stimate client"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("Bună ziua {{contact_name}}, vă scriu", "Bună ziua, vă scriu"),
        ("Salut {{contact_name}}!", "Salut!"),
        ("Salut {{contact_name}}", "Salut"),
        ("de la {{contact_name}} pentru", "de la pentru"),
        ("{{contact_name}} salut", "salut"),
        ("Bună,\n{{contact_name}} salut", "Bună,\nsalut"),
        ("Firma{{contact_name}}X", "FirmaX"),
        ("A {{contact_name|}} B", "A B"),  # an empty fallback is no fallback
    ],
)
def test_missing_variable_without_fallback_is_empty_and_leaves_no_double_space(source, expected):
    assert render(source, {}, seed="x").text == expected


def test_diacritics_and_unicode_forms_are_kept_exactly():
    decomposed = unicodedata.normalize("NFD", "ță")  # t + comma below, a + breve
    cedilla = "ş ţ"  # the legacy cedilla letters, not ș ț
    source = f"{{Știm|Îți}} ăâî șț ȘȚ {cedilla} {decomposed}"
    texts = outputs(source, {})
    assert texts == {
        f"Știm ăâî șț ȘȚ {cedilla} {decomposed}",
        f"Îți ăâî șț ȘȚ {cedilla} {decomposed}",
    }
    assert all(decomposed in t and unicodedata.is_normalized("NFD", decomposed) for t in texts)


def test_variable_values_are_inserted_literally_not_parsed():
    value = "{Agro|Ferma} {{county}} S.R.L."
    assert render("Către {{company_name}}", {"company_name": value}, seed="x").text == (
        f"Către {value}"
    )


def test_pipe_outside_braces_is_plain_text():
    assert render("Agro | Ferma {a|b}", {}, seed="s1").text in {"Agro | Ferma a", "Agro | Ferma b"}
    assert count_variants("Agro | Ferma") == 1


def test_same_seed_gives_same_text_and_hash_and_seeds_do_vary():
    source = "{Bună ziua|Salut|Hei} {{company_name}}, {ce faceți|sperăm că e bine}?"
    variables = {"company_name": "Agro"}
    first = render(source, variables, seed="42:7:3")
    assert isinstance(first, Rendered)
    assert all(render(source, variables, seed="42:7:3") == first for _ in range(5))
    assert len({render(source, variables, seed=s) for s in SEEDS[:50]}) > 1


def test_variant_seed_is_stable_so_a_retry_renders_the_same_text():
    assert variant_seed(12, 3, 7) == "12:3:7"
    assert variant_seed(12, "welcome", 7) == "12:welcome:7"
    source = "{a|b|c|d|e|f|g|h}{1|2|3|4|5|6|7|8}"
    assert render(source, {}, seed=variant_seed(1, 2, 3)) == render(
        source, {}, seed=variant_seed(1, 2, 3)
    )
    assert len({render(source, {}, seed=variant_seed(1, 2, v)).text for v in range(30)}) > 1


def test_variant_hash_is_sha256_of_the_chosen_indices():
    source = "{a|b} {c|{d|e}}"
    # choice 1, then choice 2, then (only when its second alternative is taken) the nested one
    paths = {"a c": "0.0", "b c": "1.0", "a d": "0.1.0", "a e": "0.1.1", "b e": "1.1.1"}
    for seed in SEEDS:
        rendered = render(source, {}, seed=seed)
        if rendered.text in paths:
            assert rendered.variant_hash == path_hash(paths[rendered.text])
    assert render("no choices", {}, seed="x").variant_hash == path_hash("")
    hashes = {
        render(source, {}, seed=s).text: render(source, {}, seed=s).variant_hash for s in SEEDS
    }
    assert len(hashes) == 6 and len(set(hashes.values())) == 6


def test_variant_hash_ignores_the_variables():
    source = "{Bună|Salut} {{company_name}} din {{county|județul dvs.}}"
    for seed in SEEDS[:20]:
        one = render(source, {"company_name": "Agro", "county": "Iași"}, seed=seed)
        other = render(source, {"company_name": "Ferma Nouă"}, seed=seed)
        assert one.text != other.text
        assert one.variant_hash == other.variant_hash
        assert len(one.variant_hash) == 16 and int(one.variant_hash, 16) >= 0


@pytest.mark.parametrize("source", ["Bună {ziua", "Bună}", "{a||b}", "{{{" * 20 + "x"])
def test_render_refuses_broken_syntax_with_the_problems(source):
    with pytest.raises(TemplateError) as caught:
        render(source, {}, seed="x")
    assert isinstance(caught.value, ValueError)
    assert caught.value.problems and caught.value.problems == validate(source, channel="WHATSAPP")
    assert str(caught.value) == "; ".join(caught.value.problems)


def test_render_does_not_check_variable_names():
    # unknown names are validate()'s business; at send time they are simply empty
    assert render("Salut {{hectare}}!", {}, seed="x").text == "Salut!"


# --- counting and preview ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("fără alternative", 1),
        ("{{company_name}}", 1),
        ("{a|b} {c|{d|e}}", 6),
        ("{a|b|c}{d|e}", 6),
        ("{a|{b|{c|d}}}", 4),
        ("{a|{b|c} {d|e|f}}", 7),
        ("{{Bună|Hei}|Salut}", 3),
        ("{a|a}", 2),  # paths, not distinct texts
        ("{a|b}" * 29, 2**29),
        ("{a|b|c}" * 17 + "{x|{y|z}}", 3**17 * 3),
        ("{a|b}" * 30, spintax.VARIANT_COUNT_CAP + 1),  # 2**30: more than the cap
        ("{a|b|c}" * 300, spintax.VARIANT_COUNT_CAP + 1),
    ],
)
def test_count_variants(source, expected):
    count = count_variants(source)
    assert count == expected and type(count) is int


def test_count_variants_refuses_broken_syntax():
    with pytest.raises(TemplateError):
        count_variants("{a|b")


def test_preview_returns_distinct_texts_and_the_total():
    source = "{Bună|Salut} {{company_name}}, {vă scriu|scriu} {azi|acum|{mâine|poimâine}}"
    result = preview(source, {"company_name": "Agro"}, n=5)
    assert isinstance(result, Preview)
    assert result.total == 16
    assert len(result.variants) == 5 == len(set(result.variants))
    assert set(result.variants) <= outputs(source, {"company_name": "Agro"})
    assert preview(source, {"company_name": "Agro"}, n=5) == result  # deterministic


def test_preview_spreads_over_the_variants_not_only_the_first_choice():
    result = preview("{a|b|c|d} {1|2|3|4}", {}, n=4)
    assert {text[0] for text in result.variants} == {"a", "b", "c", "d"}


def test_preview_distinctness_is_on_the_text_and_small_templates_show_all():
    result = preview("{a|a|b} {{county|x}}", {}, n=5)
    assert result.total == 3
    assert sorted(result.variants) == ["a x", "b x"]
    assert preview("plain", {}, n=0) == Preview([], 1)


def test_preview_of_a_huge_template_samples_distinct_valid_texts():
    source = "{a|b}" * 40 + " {{company_name}}"
    result = preview(source, {"company_name": "Agro"}, n=7)
    assert (result.total, result.more) == (spintax.VARIANT_COUNT_CAP, True)  # 2**40 paths
    assert len(result.variants) == 7 == len(set(result.variants))
    assert all(len(t) == 45 and set(t[:40]) <= {"a", "b"} for t in result.variants)
    assert all(t.endswith(" Agro") for t in result.variants)
    assert preview(source, {"company_name": "Agro"}, n=7) == result


def test_preview_of_a_huge_template_with_few_texts_stops_after_its_attempts():
    source = "{a|a}" * 12  # 4096 paths, one text
    assert preview(source, {}, n=3) == Preview(["a" * 12], 4096)


def test_preview_sampling_keeps_trying_for_a_rare_text():
    source = "{" + "a|" * 9 + "b}" + "{x|x}" * 8  # 2560 paths; "b" comes one time in ten
    result = preview(source, {}, n=2)
    assert result.total == 2560
    assert sorted(result.variants) == ["a" + "x" * 8, "b" + "x" * 8]


# --- choosing a version --------------------------------------------------------------------


def test_choose_version_is_deterministic_per_seed():
    weights = [50, 30, 20]
    assert [choose_version(weights, s) for s in SEEDS] == [
        choose_version(weights, s) for s in SEEDS
    ]
    assert len({choose_version(weights, s) for s in SEEDS}) == 3


def test_choose_version_follows_the_weights():
    weights = [70, 20, 0, 10]
    picks = Counter(choose_version(weights, f"lead-{i}") for i in range(10_000))
    assert picks[2] == 0
    for index, weight in enumerate(weights):
        assert abs(picks[index] / 10_000 - weight / 100) < 0.02


@pytest.mark.parametrize(("weights", "only"), [([0, 5], 1), ([7, 0, 0], 0), ([0, 0, 1], 2)])
def test_zero_weight_is_never_chosen(weights, only):
    assert {choose_version(weights, s) for s in SEEDS} == {only}


@pytest.mark.parametrize("weights", [[], [0], [0, 0, 0], [5, -1]])
def test_choose_version_refuses_nothing_to_choose(weights):
    with pytest.raises(ValueError):
        choose_version(weights, "x")


# --- validation: one test per message --------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("Bună {ziua", "unclosed '{' opened at line 1, column 6"),
        ("{Salut|{Bună|Hei}", "unclosed '{' opened at line 1, column 1"),
        ("Bună ziua}", "unexpected '}' at line 1, column 10"),
        ("{a}}", "unexpected '}' at line 1, column 4"),
        ("{a||b}", "empty alternative in '{a||b}' at line 1, column 1"),
        ("x {|a}", "empty alternative in '{|a}' at line 1, column 3"),
        ("{a|} y", "empty alternative in '{a|}' at line 1, column 1"),
        ("xy {}", "empty alternative in '{}' at line 1, column 4"),
        ("{a|{b|}}", "empty alternative in '{b|}' at line 1, column 4"),
        (
            "{" + "a" * 50 + "|}",
            "empty alternative in '{aaaaaaaaaaaaaaaaaa…aaaaaaaaaaaaaaaaa|}' at line 1, column 1",
        ),
        (
            "Bună {{foo}}",
            f"unknown variable {{{{foo}}}} at line 1, column 6; known: {KNOWN}",
        ),
        (
            "{{Company}}",
            "'{{Company}}' at line 1, column 1 is not a valid variable: "
            "names use only lowercase a-z, 0-9 and _",
        ),
        (
            "Salut {{company-name}}",
            "'{{company-name}}' at line 1, column 7 is not a valid variable: "
            "names use only lowercase a-z, 0-9 and _",
        ),
        (
            "x" * 2001,
            "the longest variant is 2001 characters; WHATSAPP allows at most 2000",
        ),
        (
            "{" * 11 + "A|B" + "}" * 11,
            "spintax nested more than 10 levels deep at line 1, column 11",
        ),
    ],
)
def test_each_validation_message(source, message):
    assert validate(source, channel="WHATSAPP") == [message]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("Bună ziua,\n{Salut|", "unclosed '{' opened at line 2, column 1"),
        ("Bună\nziua\n  oops}", "unexpected '}' at line 3, column 7"),
        ("a\r\nb {x||y}", "empty alternative in '{x||y}' at line 2, column 3"),
        ("Salut,\n\nde la {{firma}}", "unknown variable {{firma}} at line 3, column 7"),
    ],
)
def test_positions_count_lines_and_columns(source, message):
    assert any(p.startswith(message) for p in validate(source, channel="WHATSAPP"))


def test_unknown_variable_message_lists_the_custom_fields():
    problems = validate(
        "{{hectare}} și {{cultura}}", channel="EMAIL_COLD", custom_fields=["suprafata", "cultura"]
    )
    assert problems == [
        f"unknown variable {{{{hectare}}}} at line 1, column 1; known: {KNOWN}"
        " (+ custom fields: cultura, suprafata)"
    ]


def test_known_and_custom_variables_pass():
    source = "{{company_name}} {{ contact_name|x }} {{county}} {{locality}} {{cui}} {{cultura}}"
    assert validate(source, channel="EMAIL_WARM", custom_fields=("cultura",)) == []


def test_unknown_variables_are_found_in_every_alternative():
    problems = validate("{Salut {{a}}|Bună {{b}}}", channel="EMAIL_COLD")
    assert [p.split(" at ")[0] for p in problems] == [
        "unknown variable {{a}}",
        "unknown variable {{b}}",
    ]


def test_validate_reports_every_problem_at_once():
    source = "{a||b} {{foo}} www.agro.ro {x"
    problems = validate(source, channel="WHATSAPP", first_message=True)
    assert len(problems) == 4
    assert problems[0].startswith("empty alternative in '{a||b}'")
    assert problems[1].startswith("unclosed '{' opened at line 1, column 28")
    assert problems[2].startswith("unknown variable {{foo}} at line 1, column 8")
    assert problems[3].startswith("links are not allowed")


def test_validate_refuses_an_unknown_channel():
    with pytest.raises(ValueError, match="unknown channel"):
        validate("x", channel="SMS")


# --- links in a first WhatsApp message --------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "link", "column"),
    [
        ("Detalii pe https://agro.ro/oferta?id=3", "https://agro.ro/oferta?id=3", 12),
        ("Vezi HTTP://Agro.ro", "HTTP://Agro.ro", 6),
        ("Vezi www.x.ro.", "www.x.ro", 6),
        ("Oferta: agro.ro/oferta, azi", "agro.ro/oferta", 9),
        ("Scrieți-ne pe exemplu.com!", "exemplu.com", 15),
        ("Site: Ferma-Mea.ro", "Ferma-Mea.ro", 7),
        ("Site: fermă.ro", "fermă.ro", 7),
        ("Vezi shop.agro.eu/x", "shop.agro.eu/x", 6),
        ("{Bună ziua|Salut, vezi agro.ro}", "agro.ro", 24),  # only in one alternative
        ("Salut {{company_name|agro.ro}}", "agro.ro", 22),  # in a fallback
        ("Link: https://{{company_name}}", "https://", 7),
        ("Vezi www.{agro|ferma}.ro", "www.", 6),
    ],
)
def test_links_are_refused_in_a_first_whatsapp_message(source, link, column):
    problems = validate(source, channel="WHATSAPP", first_message=True)
    assert problems == [
        "links are not allowed in a first WhatsApp message (anti-spam): "
        f"'{link}' at line 1, column {column}"
    ]


def test_a_link_split_by_spintax_is_found_in_the_renderings():
    problems = validate("Vezi {oferta|ferma}.ro azi", channel="WHATSAPP", first_message=True)
    assert problems == [
        "links are not allowed in a first WhatsApp message (anti-spam): "
        "'oferta.ro' (in a rendered variant)"
    ]


@pytest.mark.parametrize(
    "source",
    [
        "SC Agro S.R.L. vă salută",
        "Vă sunăm la ora 9.30.",
        "Avem 1.500 ha de grâu și 2.5 t/ha.",
        "Scrieți la office@agro.ro",  # an e-mail address is not a link
        "Bună ziua.De asemenea, ș.a.m.d.",
        "Nr. 12, str. Viilor, jud. Iași",
        "v2.0 | {a|b}.",
    ],
)
def test_no_false_link_alarms(source):
    assert validate(source, channel="WHATSAPP", first_message=True) == []


@pytest.mark.parametrize(
    ("channel", "first"), [("WHATSAPP", False), ("EMAIL_COLD", True), ("EMAIL_WARM", False)]
)
def test_links_are_fine_outside_a_first_whatsapp_message(channel, first):
    assert validate("Vezi https://agro.ro", channel=channel, first_message=first) == []


# --- length ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "channel", "longest"),
    [
        ("{" + "a" * 1990 + "|b} {{company_name}}", "WHATSAPP", 1990 + 1 + 40),
        ("{a|{b|" + "c" * 1999 + "}}xy", "WHATSAPP", 2001),
        ("x" * 1990 + "{{contact_name|" + "y" * 11 + "}}", "WHATSAPP", 2001),
        ("{x|" + "é" * 10001 + "}", "EMAIL_COLD", 10001),
        ("z" * 50_001, "EMAIL_WARM", 50_001),
    ],
)
def test_the_longest_variant_over_the_channel_limit_is_refused(source, channel, longest):
    assert validate(source, channel=channel) == [
        f"the longest variant is {longest} characters; {channel} allows at most "
        f"{CHANNEL_LIMITS[channel]}"
    ]


@pytest.mark.parametrize(
    "source",
    [
        "x" * 2000,
        "{" + "a" * 1960 + "|b}{{company_name}}",  # 1960 + nominal 40
        "x" * 1990 + "{{contact_name|" + "y" * 10 + "}}",  # fallback length counts, not 40
    ],
)
def test_a_variant_at_the_limit_is_fine(source):
    assert validate(source, channel="WHATSAPP") == []


def test_channel_choices_work_as_the_channel_argument():
    from outreach.models import Channel

    assert validate("x" * 2001, channel=Channel.EMAIL_COLD) == []
    assert validate("x" * 2001, channel=Channel.WHATSAPP)[0].endswith(
        "WHATSAPP allows at most 2000"
    )


# --- lead variables --------------------------------------------------------------------------


def test_lead_variables_from_an_unsaved_lead():
    lead = Lead(
        name="Agro Sud S.R.L.",
        contact_name="Ion Popescu",
        county="Dolj",
        locality="Băilești",
        cui="12345678",
        custom_fields={
            "cultura": "grâu",
            "suprafata": 1500,
            "randament": 4.5,
            "company_name": "not this",
            "activ": True,
            "note": None,
            "tags": ["a"],
            "Bad Key": "x",
        },
    )
    assert lead_variables(lead) == {
        "company_name": "Agro Sud S.R.L.",
        "contact_name": "Ion Popescu",
        "county": "Dolj",
        "locality": "Băilești",
        "cui": "12345678",
        "cultura": "grâu",
        "suprafata": "1500",
        "randament": "4.5",
    }


def test_lead_variables_of_a_bare_lead_render_fallbacks():
    variables = lead_variables(Lead(name="Agro", custom_fields=[]))
    assert variables["contact_name"] == "" and set(variables) == KNOWN_VARIABLES
    text = render(
        "Bună ziua, {{contact_name|stimate client}} de la {{company_name}}", variables, seed="s"
    )
    assert text.text == "Bună ziua, stimate client de la Agro"


def test_the_docstring_says_literal_braces_are_not_supported():
    assert "literal braces are not supported" in (spintax.__doc__ or "").lower()


def test_problems_are_in_the_language_of_the_page_even_when_cached():
    from django.utils import translation

    source = "{Salut|Bună ziua {{company_name}}"
    with translation.override("ro"):
        assert spintax.validate(source, channel="WHATSAPP") == [
            "„{” deschis la rândul 1, coloana 1 nu este închis"
        ]
    with translation.override("en"):  # same source, so the parse is cached: still English
        assert spintax.validate(source, channel="WHATSAPP") == [
            "unclosed '{' opened at line 1, column 1"
        ]
