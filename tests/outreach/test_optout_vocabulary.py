"""One opt-out vocabulary and one normalisation serve the deterministic check and the
offline triage alike."""

from __future__ import annotations

import pytest

from hitl.triage import OfflineTriage, normalise
from hitl.triage import rules as triage_rules
from outreach import optout
from tests.hitl import triage_cases, triage_dev


@pytest.mark.parametrize(
    "text",
    [
        "STOP",
        "Ștergeți-mă din lista dumneavoastră!",
        "Lăsați-mă în pace, vă rog.",
        "Don\u2019t message me again",  # a typographic apostrophe
        "I withdraw my consent",
        "Nu mai vreau să primesc mesaje.",
        "Vă rog să opriți mesajele astea",
        "dezabonați-mă",
    ],
)
def test_both_detectors_hear_a_stop(text):
    assert optout.is_opt_out(text)
    assert OfflineTriage().analyse(text).intent == "unsubscribe"


@pytest.mark.parametrize(
    "text",
    ["Nu mă sunați, scrieți-mi pe email.", "Mulțumesc, trimiteți oferta.", "Da, sunați-mă."],
)
def test_neither_hears_a_stop_that_is_not_one(text):
    assert not optout.is_opt_out(text)
    assert OfflineTriage().analyse(text).intent != "unsubscribe"


def test_the_triage_reads_the_opt_out_vocabulary_and_normalisation():
    # No opt-out cue of its own, and the intent model never decides one: the triage's
    # "unsubscribe" is exactly outreach.optout's decision.
    assert not [cue for cue in triage_rules.CUES if cue.intent == "unsubscribe"]
    backend = OfflineTriage()
    for case in triage_cases.CASES + triage_dev.CASES:
        heard = optout.is_opt_out(case.text)
        assert (backend.analyse(case.text).intent == "unsubscribe") == heard, case.text
    assert normalise is optout.normalise
    assert (
        normalise("Ştergeţi-mă — acum") == normalise("Ștergeți-mă - acum") == "stergeti-ma - acum"
    )


# --- issue #10: the many ways people ask to stop ----------------------------------------


def _writings(text: str) -> set[str]:
    """The reply as typed with comma-below ș/ț, with the legacy cedilla ş/ţ, and without
    any diacritics."""
    import unicodedata

    cedilla = text.translate(str.maketrans("șȘțȚ", "şŞţŢ"))
    decomposed = unicodedata.normalize("NFD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return {text, cedilla, unicodedata.normalize("NFC", plain)}


DEV_STOPS = [case.text for case in triage_dev.CASES if case.wants_out]


@pytest.mark.parametrize("text", DEV_STOPS)
def test_every_way_of_asking_to_stop_is_heard_in_every_writing(text):
    for written in _writings(text):
        assert optout.is_opt_out(written), written


@pytest.mark.parametrize("text", triage_dev.LOOK_ALIKES)
def test_a_look_alike_is_not_an_opt_out(text):
    assert not optout.is_opt_out(text)


def test_the_old_labelled_set_keeps_full_precision_and_recall():
    cases = triage_cases.CASES
    missed = [c.text for c in cases if c.wants_out and not optout.is_opt_out(c.text)]
    false = [c.text for c in cases if not c.wants_out and optout.is_opt_out(c.text)]
    assert missed == []
    assert false == []


def test_the_development_set_has_no_false_opt_out():
    false = [c.text for c in triage_dev.CASES if not c.wants_out and optout.is_opt_out(c.text)]
    assert false == []


@pytest.mark.parametrize(
    "text",
    [
        "ºtergeþi-mã din listã",  # ş/ţ/ă typed in a legacy code page (º þ ã)
        "S T O P",
        "s.t.o.p",
        "Un-subscribe",
        "Nu   mai\ttrimiteţi\nmesaje",
    ],
)
def test_odd_typing_of_a_stop_is_heard(text):
    assert optout.is_opt_out(text)
