"""The second opt-out batch (tests/hitl/optout_round2.py, issue #10): every stop is heard in
every writing a Romanian reply really arrives in, no look-alike is, and every stop that also
complains is a complaint — the thing that puts it in front of a person as URGENT."""

from __future__ import annotations

import contextlib
import unicodedata

import pytest

from hitl.replies import is_complaint
from hitl.triage import OfflineTriage
from outreach import optout
from tests.hitl import optout_round2

COMMA_TO_CEDILLA = str.maketrans("șȘțȚ", "şŞţŢ")


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in text)


def _gaps(text: str) -> str:
    """No-break spaces between words, a zero-width space inside every longer word and a
    soft hyphen before its last three letters (copied from a web page or a PDF)."""
    words = []
    for word in text.split(" "):
        if len(word) > 6:
            word = word[:3] + "\u200b" + word[3:-3] + "\u00ad" + word[-3:]
        words.append(word)
    return "\u00a0".join(words)


def writings(text: str) -> dict[str, str]:
    """A reply as it may reach us: as written; with the legacy cedilla; without diacritics;
    decomposed (a base letter and a combining comma below or cedilla); the cp1250 code page
    read as Windows-1252 ("ºtergeþi"); UTF-8 read as Windows-1252 ("È™tergeÈ›i"); with
    no-break spaces and zero-width characters; in fullwidth letters."""
    cedilla = text.translate(COMMA_TO_CEDILLA)
    plain = "".join(
        ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch)
    )
    found = {
        "as written": text,
        "cedilla": cedilla,
        "plain": unicodedata.normalize("NFC", plain),
        "combining comma": unicodedata.normalize("NFD", text),
        "combining cedilla": unicodedata.normalize("NFD", cedilla),
        "no-break and zero-width": _gaps(text),
        "fullwidth": _fullwidth(text),
    }
    with contextlib.suppress(UnicodeError):  # emoji and the like: no cp1250 form
        found["cp1250 as cp1252"] = cedilla.encode("cp1250").decode("cp1252")
    with contextlib.suppress(UnicodeError):
        found["utf-8 as cp1252"] = text.encode("utf-8").decode("cp1252")
    return found


def _id(case) -> str:
    return case.text[:40]


STOPS = optout_round2.STOPS
LOOK_ALIKES = optout_round2.LOOK_ALIKES
COMPLAINING_STOPS = [case for case in STOPS if case.complains]


@pytest.mark.parametrize("case", STOPS, ids=_id)
def test_every_stop_of_the_second_batch_is_an_opt_out_in_every_writing(case):
    missed = [how for how, written in writings(case.text).items() if not optout.is_opt_out(written)]
    assert not missed, (case.text, missed)


@pytest.mark.parametrize("case", LOOK_ALIKES, ids=_id)
def test_no_look_alike_of_the_second_batch_is_an_opt_out(case):
    assert not case.wants_out
    assert not optout.is_opt_out(case.text)


@pytest.mark.parametrize("case", COMPLAINING_STOPS, ids=_id)
def test_a_stop_of_the_second_batch_that_complains_is_a_complaint(case):
    result = OfflineTriage().analyse(case.text)
    assert result.intent == "unsubscribe"
    assert is_complaint(result), case.text


def test_the_offline_triage_agrees_with_the_opt_out_check_on_the_second_batch():
    backend = OfflineTriage()
    for case in STOPS + LOOK_ALIKES:
        heard = optout.is_opt_out(case.text)
        assert (backend.analyse(case.text).intent == "unsubscribe") == heard, case.text


def test_the_second_batch_is_big_and_varied_enough_to_measure():
    assert len(STOPS) >= 150
    assert len(LOOK_ALIKES) >= 45
    assert len(COMPLAINING_STOPS) >= 25
    texts = [case.text for case in STOPS + LOOK_ALIKES]
    assert len(set(texts)) == len(texts)


def test_every_romanian_letter_form_is_read_as_its_plain_letter():
    forms = "ŞŢşţ ȘȚșț S\u0326T\u0326s\u0326t\u0326 S\u0327T\u0327s\u0327t\u0327 ãº þ ªÞ ĂÂÎăâî"
    assert optout.normalise(forms) == "stst stst stst stst as t st aaiaai"
    assert optout.normalise("nu\u00a0mai\u202fscri\u00ade\u200bți ｍｅｓａｊｅ\ufeff") == (
        "nu mai scrieti mesaje"
    )
    assert optout.normalise("È™ Èš ÅŸ Ã® ðŸ›‘") == "s t s i 🛑"  # UTF-8 seen as Windows-1252
    assert optout.normalise("È\x99i Ã\xa2") == "si a"  # and as Latin-1


def test_a_stop_in_the_middle_of_a_long_email_is_heard():
    paragraph = optout_round2.FILLER_RO + "\n\n"
    body = paragraph * 40 + "Vă rog să nu mai trimiteți mesaje.\n\n" + paragraph * 40
    assert 2 * optout.OPT_OUT_WINDOW > len(body) > 20_000
    assert optout.is_opt_out(body)


@pytest.mark.parametrize(
    "text",
    [
        f"Nu mai scrieți\n\n{optout_round2.SIGNATURE}\n{optout_round2.DISCLAIMER_RO}",
        f"Please stop emailing me\n{optout_round2.DISCLAIMER_EN}",
        "Dacă ați primit numărul meu din greșeală, ștergeți-l.",  # the writer's own number
        "Vă rog să nu mai trimiteți. If you are not the intended recipient, delete this.",
    ],
)
def test_boilerplate_is_left_out_but_not_a_stop_next_to_it(text):
    assert optout.is_opt_out(text)


@pytest.mark.parametrize(
    "text",
    [
        f"Da, sunați-mă.\n{optout_round2.DISCLAIMER_RO}",
        f"OK, send it.\n{optout_round2.DISCLAIMER_EN}",
        f"Trimiteți oferta.\n{optout_round2.GDPR_NOTICE}",
    ],
)
def test_a_reply_that_only_carries_boilerplate_is_not_a_stop(text):
    assert not optout.is_opt_out(text)
