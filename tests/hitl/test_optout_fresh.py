"""The fresh opt-out set (tests/hitl/optout_fresh.py, issue #10): every stop is heard in
every writing, no look-alike is, and every stop that also complains is a complaint — the
thing that puts it in front of a person as URGENT."""

from __future__ import annotations

import unicodedata

import pytest

from hitl.replies import is_complaint
from hitl.triage import OfflineTriage
from outreach import optout
from tests.hitl import optout_fresh


def _writings(case) -> set[str]:
    """As written, with the legacy cedilla ş/ţ, and without diacritics (a reply already in
    a broken code page is only read as written)."""
    text = case.text
    if any(case is garbled for garbled in optout_fresh.CODE_PAGES):
        return {text}
    cedilla = text.translate(str.maketrans("șȘțȚ", "şŞţŢ"))
    plain = "".join(
        ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch)
    )
    return {text, cedilla, unicodedata.normalize("NFC", plain)}


def _id(case) -> str:
    return case.text[:40]


STOPS = optout_fresh.STOPS + optout_fresh.LATER_STOPS
LOOK_ALIKES = optout_fresh.LOOK_ALIKES + optout_fresh.LATER_LOOK_ALIKES


@pytest.mark.parametrize("case", STOPS, ids=_id)
def test_every_fresh_stop_is_an_opt_out_in_every_writing(case):
    for written in _writings(case):
        assert optout.is_opt_out(written), written


@pytest.mark.parametrize("case", LOOK_ALIKES, ids=_id)
def test_no_fresh_look_alike_is_an_opt_out(case):
    assert not case.wants_out
    assert not optout.is_opt_out(case.text)


COMPLAINING_STOPS = [case for case in STOPS if case.complains]


@pytest.mark.parametrize("case", COMPLAINING_STOPS, ids=_id)
def test_a_stop_that_complains_is_a_complaint(case):
    result = OfflineTriage().analyse(case.text)
    assert result.intent == "unsubscribe"
    assert is_complaint(result), case.text


def test_the_offline_triage_agrees_with_the_opt_out_check_on_the_fresh_set():
    backend = OfflineTriage()
    for case in STOPS + LOOK_ALIKES:
        heard = optout.is_opt_out(case.text)
        assert (backend.analyse(case.text).intent == "unsubscribe") == heard, case.text


def test_the_fresh_set_is_big_and_varied_enough_to_measure():
    assert len(optout_fresh.STOPS) >= 250
    assert len(optout_fresh.LOOK_ALIKES) >= 80
    assert len(COMPLAINING_STOPS) >= 50
    texts = [case.text for case in STOPS + LOOK_ALIKES]
    assert len(set(texts)) == len(texts)


def test_utf8_read_as_windows_1252_is_read_back():
    assert optout.normalise("È˜tergeÈ›i-mÄƒ Ã®n") == "stergeti-ma in"
    assert optout.normalise("Äpfel À la carte") == "apfel a la carte"  # not UTF-8: left alone


@pytest.mark.parametrize(
    "text",
    [
        "Cum ați ajuns la numărul meu? Vă rog să mă scoateți din listă.",
        "Dacă mai apare un mesaj de la voi, anunț Garda Financiară și ANSPDCP.",
    ],
)
def test_a_complaint_with_a_stop_is_reviewed_urgent_even_when_the_ai_triage_fails(
    lead, monkeypatch, text
):
    from hitl import replies
    from hitl.models import ReviewItem
    from integrations.timelinesai.inbound import handle_received
    from outreach.models import Journey
    from tests.drain import run_triage
    from tests.whatsapp.test_replies import reply

    def unavailable(*args, **kwargs):
        raise RuntimeError("AI backend down")

    monkeypatch.setattr(replies, "analyse", unavailable)
    handle_received(lead.tenant, reply(lead, text))
    assert Journey.objects.get(lead=lead).whatsapp_opted_out  # at once, before the triage
    run_triage()
    assert ReviewItem.objects.get(lead=lead).priority == "URGENT"
