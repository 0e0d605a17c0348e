"""Reasons stored as codes, rendered in the reader's language (cerniq.reasons)."""

from __future__ import annotations

import pytest
from django.template import Context, Template
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from cerniq import reasons
from outreach.models import Stage

CODE = reasons.define("testing.moved", _("Moved to %(stage)s by %(who)s"), stage=Stage)
PLAIN = reasons.define("testing.plain", _("Resolved"))


def test_a_code_with_parameters_round_trips_and_labels_its_choices():
    stored = reasons.code(CODE, stage=Stage.WARM_REPLY, who="Ana")
    assert stored.startswith("testing.moved {")
    assert reasons.parse(stored) == (CODE, {"stage": "WARM_REPLY", "who": "Ana"})
    with translation.override("en"):
        assert reasons.render(stored) == f"Moved to {Stage.WARM_REPLY.label} by Ana"


def test_the_same_stored_reason_reads_in_each_language():
    stored = reasons.code(PLAIN)
    with translation.override("en"):
        english = reasons.render(stored)
    with translation.override("ro"):
        romanian = reasons.render(stored)
    assert english == "Resolved"
    assert romanian and romanian != english


def test_legacy_text_and_unknown_codes_show_as_they_are():
    assert reasons.render("reply on whatsapp") == "reply on whatsapp"
    assert reasons.render("nobody.defined_this") == "nobody.defined_this"
    assert reasons.render('testing.moved {"broken json') == 'testing.moved {"broken json'
    assert reasons.render("") == ""
    assert reasons.render(None) == ""


def test_an_undefined_code_fails_where_it_is_written():
    with pytest.raises(reasons.UnknownReason):
        reasons.code("testing.typo")


def test_a_missing_parameter_in_an_old_row_shows_the_text_not_an_error():
    with translation.override("en"):
        assert reasons.render('testing.moved {"who":"Ana"}') == "Moved to %(stage)s by %(who)s"


def test_long_parameters_are_shortened_to_fit_a_column():
    stored = reasons.code(CODE, stage=Stage.COLD, who="x" * 1000)
    assert len(stored) <= reasons.MAX_STORED
    code, params = reasons.parse(stored)
    assert code == CODE and params["who"].endswith("…")


def test_a_code_cannot_be_defined_twice_with_another_text():
    with pytest.raises(ValueError):
        reasons.define("testing.plain", _("Something else"))


def test_the_template_filter_is_a_builtin():
    stored = reasons.code(CODE, stage=Stage.COLD, who="Ion")
    with translation.override("en"):
        assert Template("{{ r|reason }}").render(Context({"r": stored})) == (
            f"Moved to {Stage.COLD.label} by Ion"
        )


def test_every_defined_code_renders_in_both_languages_without_placeholders_left():
    """Every reason of the product (each app's reasons module) has a Romanian text, and
    its placeholders are filled by its own parameter names."""
    import re

    untranslated = []
    for code, definition in reasons.catalogue().items():
        if code.startswith("testing."):
            continue
        names = set(re.findall(r"%\((\w+)\)s", str(definition.text)))
        stored = reasons.code(code, **{name: "1" for name in names})
        with translation.override("en"):
            english = reasons.render(stored)
        with translation.override("ro"):
            romanian = reasons.render(stored)
        assert "%(" not in english and "%(" not in romanian, code
        if english == romanian and re.search(r"[A-Za-z]{4,}", english):
            untranslated.append(code)
    assert not untranslated, f"no Romanian text for: {untranslated}"
