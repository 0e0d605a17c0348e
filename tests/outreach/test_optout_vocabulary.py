"""One opt-out vocabulary and one normalisation serve the deterministic check and the
offline triage alike."""

from __future__ import annotations

import pytest

from hitl.triage import OfflineTriage, normalise
from hitl.triage import rules as triage_rules
from outreach import optout


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
    unsubscribe = [cue.pattern.pattern for cue in triage_rules.CUES if cue.intent == "unsubscribe"]
    assert unsubscribe == [rf"\b(?:{p})\b" for p in optout.STOP_PATTERNS]
    assert normalise is optout.normalise
    assert (
        normalise("Ştergeţi-mă — acum") == normalise("Ștergeți-mă - acum") == "stergeti-ma - acum"
    )
