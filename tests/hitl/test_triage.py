"""Reply triage: offline rules against the labelled replies, focused behaviour tests, and the
OpenAI-compatible backend against faked HTTP (`responses`)."""

from __future__ import annotations

import json
import logging
import unicodedata
from dataclasses import FrozenInstanceError
from datetime import date

import pytest
import requests
import responses
from django.test import override_settings

from cerniq import reasons
from hitl.reasons import TRIAGE_FALLBACK
from hitl.triage import (
    INTENTS,
    OfflineTriage,
    OpenAICompatibleTriage,
    TriageResult,
    normalise,
    triage,
)
from tests.hitl.triage_cases import CASES, DEV, FRESH, FRESH2, FRESH3, HOLDOUT, Case

TODAY = date(2024, 12, 10)  # a Tuesday
OFFLINE = OfflineTriage()


def analyse(text: str, **kwargs) -> TriageResult:
    kwargs.setdefault("today", TODAY)
    return OFFLINE.analyse(text, **kwargs)


def band(sentiment: int) -> str:
    if sentiment >= 50:
        return "positive"
    return "neutral" if sentiment >= 0 else "negative"


def strip_diacritics(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    )


def to_cedilla(text: str) -> str:
    return text.translate(str.maketrans("șȘțȚ", "şŞţŢ"))


# --- the labelled dataset -------------------------------------------------------------


def test_dataset_is_large_varied_and_well_labelled():
    assert len(CASES) >= 150
    assert len({case.text for case in CASES}) == len(CASES), "duplicate replies"
    assert {case.intent for case in CASES} == set(INTENTS), "every intent is represented"
    for case in CASES:
        assert case.intent in INTENTS, case
        assert case.band in ("positive", "neutral", "negative"), case
        assert case.language in ("ro", "en"), case
    languages = [case.language for case in CASES]
    assert languages.count("ro") > len(CASES) / 2
    assert languages.count("en") >= 30
    texts = [case.text for case in CASES]
    assert sum(any(ch in text for ch in "şţŞŢ") for text in texts) >= 5, "cedilla forms"
    assert sum(text.isascii() for text in texts) >= 60, "replies typed without diacritics"
    assert sum(len(text) <= 6 for text in texts) >= 8, "very short replies"
    assert sum(len(text) >= 150 for text in texts) >= 3, "long replies"


def accuracy(cases: tuple[Case, ...]) -> tuple[float, float, float]:
    results = [(case, analyse(case.text)) for case in cases]
    n = len(results)
    return (
        sum(r.intent == c.intent for c, r in results) / n,
        sum(band(r.sentiment) == c.band for c, r in results) / n,
        sum(r.language == c.language for c, r in results) / n,
    )


def test_accuracy_on_the_whole_dataset():
    # Measured: intent 100%, band 99.5%, language 100% (435 replies). The shipped intent
    # model (hitl/triage/model.py) is trained on these replies, so this is a regression
    # guard; the honest figures are the held-out set's (bench/triage.py) and
    # test_intent_model_on_replies_it_never_saw below. Rules alone measured 95.6%.
    intent, sentiment_band, language = accuracy(CASES)
    assert intent >= 0.97
    assert sentiment_band >= 0.95
    assert language >= 0.97


def test_accuracy_on_the_replies_the_rules_were_tuned_on():
    # A regression guard, not a quality claim: the rules were written and broadened against
    # these (measured 100% / 100% / 100%).
    intent, sentiment_band, language = accuracy(DEV + HOLDOUT + FRESH + FRESH2)
    assert intent >= 0.97
    assert sentiment_band >= 0.97
    assert language >= 0.98


def test_accuracy_on_unseen_replies():
    # FRESH3 was written against the final rules and never tuned on: the honest estimate
    # of the rules (measured 63.0% / 72.2% / 100% before issue #10). The intent model is
    # now trained on it too, so the floor is kept as a guard only.
    intent, sentiment_band, language = accuracy(FRESH3)
    assert intent >= 0.60
    assert sentiment_band >= 0.70
    assert language >= 0.95


def test_intent_model_on_replies_it_never_saw():
    # Trained on the old set only, scored on the development replies of issue #10 (another
    # hand, other phrasings): measured 92.0% for rules + model against 84.6% for the rules
    # alone (bench/train_intent_model.py prints the same, and a 5-fold figure).
    pytest.importorskip("sklearn")
    import importlib.util
    from pathlib import Path

    from tests.hitl import triage_dev

    path = Path(__file__).resolve().parents[2] / "bench" / "train_intent_model.py"
    spec = importlib.util.spec_from_file_location("train_intent_model", path)
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    vectorizer, classifier = train.fit(CASES)
    model = train.as_model(vectorizer, classifier, CASES)
    blended = train.accuracy(train.predict(model, triage_dev.CASES), triage_dev.CASES)
    rules = train.accuracy(train.predict(None, triage_dev.CASES), triage_dev.CASES)
    assert blended >= 0.88
    assert blended >= rules + 0.05


def test_no_reply_is_wrongly_put_on_the_automatic_answer_path():
    # sentiment >= 50 sends an AI answer without a person: a miss there is the costly one.
    wrong = [c.text for c in CASES if c.band != "positive" and analyse(c.text).sentiment >= 50]
    assert wrong == []


def test_every_result_respects_the_contract():
    for case in CASES:
        result = analyse(case.text)
        assert result.intent in INTENTS
        assert -100 <= result.sentiment <= 100 and isinstance(result.sentiment, int)
        assert 0 <= result.confidence <= 1
        assert result.language in ("ro", "en")
        assert result.backend == "offline" and not result.fell_back
        assert (result.draft == "") == (result.intent == "unsubscribe"), case.text


# --- negation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "intent", "expected_band"),
    [
        ("Sunt interesat.", "interested", "positive"),
        ("Nu sunt interesat.", "not_interested", "negative"),
        ("Ne interesează.", "interested", "positive"),
        ("Nu ne interesează.", "not_interested", "negative"),
        ("Nu prea cred că ne interesează.", "not_interested", "negative"),
        ("We are interested.", "interested", "positive"),
        ("We are not interested.", "not_interested", "negative"),
        ("I don't think we'd be interested.", "not_interested", "negative"),
        ("Nu știu încă, dar sunt interesat.", "interested", "positive"),
        ("Nu mă mai contactați.", "unsubscribe", "negative"),
        ("Nu mă sunați, scrieți-mi aici ce preț aveți.", "price_request", "neutral"),
        ("Nu e problemă, sunați-mă mâine la 9.", "meeting_request", "positive"),
        ("Am o problemă cu factura, mi-ați facturat de două ori.", "complaint", "negative"),
    ],
)
def test_negation(text, intent, expected_band):
    result = analyse(text)
    assert (result.intent, band(result.sentiment)) == (intent, expected_band)


def test_a_hedge_is_not_a_refusal():
    assert analyse("Nu știu dacă ne interesează. Ce presupune?").intent == "question"


def test_no_problem_is_neither_a_complaint_nor_a_trigger_keyword():
    for text in ("Nu e problemă, vorbim mâine.", "Nicio problemă!", "No problem, call me."):
        result = analyse(text)
        assert result.intent != "complaint", text
        assert "problema" not in result.keywords, text
    assert "problema" in analyse("Avem o problemă cu livrarea.").keywords


# --- diacritics, typos, normalisation -----------------------------------------------------


def test_normalise():
    assert normalise("  Ştefan  ȘI Ţara ţ ț ș ş\tĂâî  ") == "stefan si tara t t s s aai"
    assert normalise("Mulțumesc!\n\nDa 👍") == "multumesc! da 👍"


@pytest.mark.parametrize(
    "text",
    [
        "Nu sunt interesați, mulțumesc.",
        "Ce preț aveți la îngrășăminte și semințe?",
        "Sunt în concediu până pe 15 decembrie.",
        "Nu mă mai contactați!",
        "Vorbiți cu fiul meu, el se ocupă de fermă.",
        "Sunați-mă mâine după-amiază.",
        "Fac reclamație, sunt nemulțumit și vreau să vorbesc urgent cu directorul.",
        "Ați greșit numărul.",
        "Bineînțeles, ne interesează.",
    ],
)
def test_diacritics_do_not_change_the_result(text):
    def key(result: TriageResult) -> tuple:
        return (result.intent, result.sentiment, result.keywords, result.return_date)

    with_comma = analyse(text)
    assert text != strip_diacritics(text)
    assert key(analyse(strip_diacritics(text))) == key(with_comma)
    assert key(analyse(to_cedilla(text))) == key(with_comma)
    assert with_comma.language == analyse(strip_diacritics(text)).language == "ro"


@pytest.mark.parametrize(
    "text", ["Sunt intresat", "sunt intereast", "Suna interesant", "sunt interesata"]
)
def test_typos_in_interest_are_tolerated(text):
    assert analyse(text).intent == "interested"


# --- unsubscribe --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "stop",
        "STOP",
        "Stop!",
        "Dezabonare",
        "dezabonati-ma",
        "Nu mai trimiteți mesaje.",
        "Nu mă mai contactați",
        "nu ma mai contactati",
        "Nu mai scrieți pe numărul ăsta",
        "Nu mai vreau mesaje",
        "Ştergeţi-mă din listă",
        "Scoateți-mă de pe listă, vă rog.",
        "unsubscribe",
        "Unsubscribe me please",
        "Remove me",
        "Please remove me from your list.",
        "opt out",
        "Please stop messaging me.",
        "Don't contact me again.",
        "Nu mai trimiteți spam, fac reclamație la ANPC!",
    ],
)
def test_unsubscribe_phrases_are_all_detected(text):
    result = analyse(text, contact_name="Ion Popescu")
    assert result.intent == "unsubscribe"
    assert result.sentiment < 0
    assert result.draft == ""


@pytest.mark.parametrize(
    "text",
    [
        "Stop by the farm on Monday, we can talk then.",
        "Nu mă sunați, scrieți-mi pe WhatsApp.",
        "Nu mai lucrez la firma aceea.",
    ],
)
def test_look_alikes_are_not_opt_outs(text):
    assert analyse(text).intent != "unsubscribe"


# --- out of office ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "today", "expected"),
    [
        ("Sunt în concediu până pe 15 decembrie.", date(2024, 12, 10), date(2024, 12, 15)),
        ("Sunt in concediu pana pe 15 decembrie", date(2024, 12, 10), date(2024, 12, 15)),
        ("I am out of office until 3 January.", date(2024, 12, 20), date(2025, 1, 3)),
        ("Out of the office until Jan 8th.", date(2024, 12, 20), date(2025, 1, 8)),
        ("Revin la birou pe 12.01. Mulțumesc!", date(2024, 12, 20), date(2025, 1, 12)),
        ("Revin la birou pe 04.08.2025.", date(2025, 7, 20), date(2025, 8, 4)),
        ("Concediu de odihnă până la 30/09/25.", date(2025, 9, 1), date(2025, 9, 30)),
        ("Out of office. Back on Monday.", date(2024, 12, 10), date(2024, 12, 16)),
        ("Out of office. Back on Monday.", date(2024, 12, 16), date(2024, 12, 23)),
        ("Sunt în deplasare, revin vineri.", date(2024, 12, 10), date(2024, 12, 13)),
        ("Sunt in concediu pana luni", date(2024, 12, 10), date(2024, 12, 16)),
        (
            "Automatic reply: I'm on annual leave from 20/12/2024 to 06/01/2025.",
            date(2024, 12, 18),
            date(2025, 1, 6),
        ),
        (
            "Mesaj automat - lipsesc de la birou în perioada 5-9 mai. Revin luni, 12 mai.",
            date(2025, 5, 2),
            date(2025, 5, 12),
        ),
        ("Out of office, back on 2025-01-07.", date(2024, 12, 20), date(2025, 1, 7)),
        ("Sunt în concediu medical. Vă rog reveniți.", date(2024, 12, 10), None),
        ("Sunt plecat, revin peste două luni.", date(2024, 12, 10), None),
    ],
)
def test_out_of_office_return_dates(text, today, expected):
    result = OFFLINE.analyse(text, today=today)
    assert result.intent == "out_of_office"
    assert 0 <= result.sentiment < 50
    assert result.return_date == expected


def test_out_of_office_draft_mentions_the_return_date_in_the_leads_language():
    ro = analyse("Sunt în concediu până pe 15 decembrie.")
    assert "după 15 decembrie" in ro.draft
    en = analyse("I'm out of office until 3 January.")
    assert "after 3 January" in en.draft


def test_a_return_date_is_only_read_from_absence_statements():
    result = analyse("Putem vorbi pe 15 decembrie la 10?")
    assert result.intent == "meeting_request"
    assert result.return_date is None


# --- drafts, language, keywords --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language", "greeting"),
    [
        ("Da, sunt interesat. Trimiteți detalii.", "ro", "Bună ziua, Ion Popescu,"),
        ("Cât costă tona de azotat?", "ro", "Bună ziua, Ion Popescu,"),
        ("Yes, we are interested, send the details.", "en", "Hello Ion Popescu,"),
        ("How much does it cost per hectare?", "en", "Hello Ion Popescu,"),
    ],
)
def test_draft_is_in_the_leads_language_and_addresses_the_contact(text, language, greeting):
    result = analyse(text, contact_name="Ion Popescu", company_name="Agro Sud SRL")
    assert result.language == language
    assert result.draft.startswith(greeting)
    assert "Agro Sud SRL" in result.draft
    if language == "ro":
        assert any(ch in result.draft for ch in "ăâîșț")
    else:
        assert result.draft.isascii()


def test_draft_without_a_name_uses_a_polite_generic_greeting():
    assert analyse("Sunt interesat").draft.startswith("Bună ziua,\n")
    assert analyse("I'm interested").draft.startswith("Hello,\n")


def test_romanian_drafts_use_comma_below_letters_only():
    for case in CASES:
        draft = analyse(case.text, contact_name="Ana").draft
        assert not any(ch in draft for ch in "şţŞŢ"), case.text


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Mulțumesc, nu", "ro"),
        ("multumesc nu suntem interesati", "ro"),
        ("Thanks, not for us", "en"),
        ("Do you deliver to Constanța county?", "en"),
        ("ok", "ro"),
        ("👍", "ro"),
    ],
)
def test_language_detection(text, language):
    assert analyse(text).language == language


@pytest.mark.parametrize(
    ("text", "keywords"),
    [
        (
            "Vreau să vorbesc urgent cu directorul: e o problemă cu prețul și discountul.",
            ("urgent", "problema", "pret", "discount", "director"),
        ),
        (
            "Fac reclamație, sunt nemulțumit, vorbesc cu avocatul și cu managerul vostru.",
            ("reclamatie", "nemultumit", "manager", "avocat"),
        ),
        ("Pentru urgențe sunați la 0722 000 111.", ("urgent",)),
        ("Ce preţ aveţi?", ("pret",)),
        ("Our lawyer will send a complaint about the price.", ("reclamatie", "pret", "avocat")),
        ("Nu vreau reclame pe WhatsApp.", ()),
        ("Sunt interesat, sunați-mă.", ()),
    ],
)
def test_trigger_keywords(text, keywords):
    assert analyse(text).keywords == keywords


@pytest.mark.parametrize(
    ("text", "expected_band"),
    [
        ("Da, sunt interesat!", "positive"),
        ("Putem vorbi mâine la 10?", "positive"),
        ("Cât costă?", "neutral"),
        ("Cine sunteți?", "neutral"),
        ("Vorbiți cu fiul meu, el se ocupă.", "neutral"),
        ("Ok", "neutral"),
        ("Nu, mulțumesc.", "negative"),
        ("Sunteți niște țepari!", "negative"),
        ("Dezabonare", "negative"),
        ("Nu acum, poate la toamnă.", "neutral"),
        ("De unde aveți numărul meu?", "negative"),
    ],
)
def test_sentiment_bands_suit_the_routing(text, expected_band):
    assert band(analyse(text).sentiment) == expected_band


def test_offline_backend_needs_no_credentials_and_ignores_options():
    backend = OfflineTriage(base_url="https://x.test", api_key="k", model="m", timeout=3)
    assert OfflineTriage.needs_credentials is False
    assert backend.analyse("Da", today=TODAY).intent == "interested"
    with pytest.raises(FrozenInstanceError):
        backend.analyse("Da", today=TODAY).intent = "other"


# --- OpenAI-compatible backend --------------------------------------------------------------

BASE = "https://llm.test/v1"
URL = f"{BASE}/chat/completions"
KEY = "sk-test-5b1f0c9e"


def model_answer(**overrides) -> dict:
    answer = {
        "sentiment": 35,
        "intent": "price_request",
        "confidence": 0.82,
        "language": "ro",
        "draft": "Bună ziua, Ion,\nVă trimitem oferta în cel mai scurt timp.",
        "return_date": None,
    }
    answer.update(overrides)
    return answer


def completion(content: str) -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-mini",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }


@pytest.fixture
def ai():
    return OpenAICompatibleTriage(
        base_url=BASE + "/", api_key=KEY, model="gpt-4o-mini", timeout=7.5
    )


@responses.activate
def test_openai_success_and_the_request_it_sends(ai):
    responses.post(URL, json=completion(json.dumps(model_answer())))

    result = ai.analyse(
        "Ce preț aveți la azotat?", contact_name="Ion", company_name="Agro", today=TODAY
    )

    assert result == TriageResult(
        sentiment=35,
        intent="price_request",
        confidence=0.82,
        language="ro",
        draft="Bună ziua, Ion,\nVă trimitem oferta în cel mai scurt timp.",
        backend="openai_compatible",
        keywords=("pret",),  # found locally: the model was not asked for keywords
    )
    (call,) = responses.calls
    assert call.request.url == URL
    assert call.request.headers["Authorization"] == f"Bearer {KEY}"
    assert call.request.req_kwargs["timeout"] == (7.5, 7.5)
    body = json.loads(call.request.body)
    assert body["model"] == "gpt-4o-mini"
    assert body["response_format"] == {"type": "json_object"}
    assert body["temperature"] == 0
    system, user = body["messages"]
    assert system["role"] == "system"
    for word in ("JSON", *INTENTS, "return_date", "diacritics"):
        assert word in system["content"], word
    assert user["role"] == "user"
    sent = json.loads(user["content"])
    assert {key: sent[key] for key in ("message", "contact_name", "company_name", "today")} == {
        "message": "Ce preț aveți la azotat?",
        "contact_name": "Ion",
        "company_name": "Agro",
        "today": "2024-12-10",
    }
    assert sent["facts"]["price_list"] == {"url": None, "answer": None}  # the rules' facts


@responses.activate
def test_openai_without_a_key_sends_no_authorization_header():  # Ollama, LM Studio
    responses.post(
        "http://localhost:11434/v1/chat/completions", json=completion(json.dumps(model_answer()))
    )
    backend = OpenAICompatibleTriage(
        base_url="http://localhost:11434/v1", api_key="", model="llama3.1"
    )
    assert backend.analyse("Cât costă?", today=TODAY).backend == "openai_compatible"
    assert "Authorization" not in responses.calls[0].request.headers
    assert responses.calls[0].request.req_kwargs["timeout"] == (20.0, 20.0)


@responses.activate
def test_openai_return_date_and_unsubscribe_draft(ai):
    responses.post(
        URL,
        json=completion(
            json.dumps(model_answer(intent="out_of_office", sentiment=10, return_date="2025-01-03"))
        ),
    )
    responses.post(
        URL,
        json=completion(json.dumps(model_answer(intent="unsubscribe", sentiment=-60, draft="Ok"))),
    )
    assert ai.analyse("OOO until 3 Jan", today=TODAY).return_date == date(2025, 1, 3)
    assert ai.analyse("stop", today=TODAY).draft == ""


def assert_fell_back(result: TriageResult, reason: str, text_intent: str) -> None:
    assert result.fell_back is True
    assert result.backend == "offline"
    assert reasons.parse(result.fallback_reason) == (TRIAGE_FALLBACK, {"detail": reason})
    assert result.intent == text_intent
    assert KEY not in result.fallback_reason


@responses.activate
def test_openai_malformed_json_falls_back(ai):
    responses.post(URL, json=completion('{"sentiment": 35, "intent": "price_request",'))
    result = ai.analyse("Ce preț aveți la azotat?", today=TODAY)
    assert_fell_back(result, "malformed JSON", "price_request")
    assert result.keywords == ("pret",)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (model_answer(sentiment=150), "sentiment out of range"),
        (model_answer(sentiment="35"), "sentiment is not an integer"),
        (model_answer(sentiment=True), "sentiment is not an integer"),
        (model_answer(sentiment=35.5), "sentiment is not an integer"),
        (model_answer(intent="maybe"), "unknown intent"),
        (model_answer(language="fr"), "unknown language"),
        (model_answer(confidence=1.5), "confidence out of range"),
        (model_answer(confidence="high"), "confidence is not a number"),
        (model_answer(draft=None), "bad draft"),
        (model_answer(draft="  "), "empty draft"),
        (model_answer(return_date="15.12.2024"), "bad return_date"),
        (model_answer(return_date="2024-02-30"), "bad return_date"),
        ({k: v for k, v in model_answer().items() if k != "draft"}, "missing draft"),
        ([model_answer()], "not an object"),
    ],
)
@responses.activate
def test_openai_schema_violation_falls_back(ai, answer, reason):
    responses.post(URL, json=completion(json.dumps(answer)))
    result = ai.analyse("Cât costă?", today=TODAY)
    assert_fell_back(result, f"schema violation: {reason}", "price_request")


@pytest.mark.parametrize(
    ("http", "reason"),
    [
        ({"body": requests.exceptions.ReadTimeout("read timed out")}, "timeout"),
        # Never reached the backend, as for every provider (cerniq.provider_http).
        ({"body": requests.exceptions.ConnectTimeout("connect timed out")}, "connection error"),
        ({"body": requests.exceptions.ConnectionError("refused")}, "connection error"),
        ({"status": 500, "json": {"error": {"message": "boom"}}}, "HTTP 500"),
        ({"status": 401, "json": {"error": {"message": f"bad key {KEY}"}}}, "HTTP 401"),
        ({"status": 429, "json": {"error": {"message": "rate limited"}}}, "HTTP 429"),
        ({"status": 200, "body": "<html>gateway</html>"}, "response is not JSON"),
        ({"status": 200, "json": {"choices": []}}, "no choices"),
        ({"status": 200, "json": {"error": "overloaded"}}, "no choices"),
        (
            {"status": 200, "json": {"choices": [{"message": {"content": None}}]}},
            "no message content",
        ),
    ],
)
@responses.activate
def test_openai_transport_failures_fall_back(ai, http, reason, caplog):
    responses.post(URL, **http)
    with caplog.at_level(logging.WARNING, logger="hitl.triage.openai_compatible"):
        result = ai.analyse("Nu mă mai contactați.", today=TODAY)
    assert_fell_back(result, reason, "unsubscribe")
    assert result.draft == ""
    assert reason in caplog.text
    assert KEY not in caplog.text


@pytest.mark.parametrize("mode", ["json_schema", "none"])
@responses.activate
def test_openai_response_format_option_for_lm_studio(mode):
    # LM Studio answers 400 to {"type": "json_object"}; it accepts json_schema.
    responses.post(URL, json=completion(json.dumps(model_answer())))
    backend = OpenAICompatibleTriage(base_url=BASE, api_key="", model="m", response_format=mode)
    assert backend.analyse("Cât costă?", today=TODAY).fell_back is False
    body = json.loads(responses.calls[0].request.body)
    if mode == "none":
        assert "response_format" not in body
    else:
        schema = body["response_format"]["json_schema"]["schema"]
        assert body["response_format"]["type"] == "json_schema"
        assert schema["required"] == list(model_answer())
        assert schema["properties"]["intent"]["enum"] == list(INTENTS)
    with pytest.raises(ValueError, match="response_format"):
        OpenAICompatibleTriage(base_url=BASE, api_key="", model="m", response_format="xml")


def test_openai_backend_never_shows_its_key(ai):
    assert KEY not in repr(ai)
    assert OpenAICompatibleTriage.needs_credentials is True


@responses.activate
def test_openai_accepts_a_fenced_json_answer(ai):
    responses.post(URL, json=completion("```json\n" + json.dumps(model_answer()) + "\n```"))
    assert ai.analyse("Cât costă?", today=TODAY).fell_back is False


# --- triage(): the configured backend ------------------------------------------------------


def test_triage_uses_the_offline_backend_by_default():
    with override_settings(
        PROVIDERS={"ai.triage": {"BACKEND": "hitl.triage.OfflineTriage", "OPTIONS": {}}}
    ):
        result = triage("Sunt interesat", contact_name="Maria", today=TODAY)
    assert result.backend == "offline"
    assert result.draft.startswith("Bună ziua, Maria,")


@responses.activate
def test_triage_uses_the_configured_backend():
    responses.post(URL, json=completion(json.dumps(model_answer(intent="question", sentiment=20))))
    providers = {
        "ai.triage": {
            "BACKEND": "hitl.triage.OpenAICompatibleTriage",
            "OPTIONS": {"base_url": BASE, "api_key": KEY, "model": "m-1", "timeout": 3.0},
        }
    }
    with override_settings(PROVIDERS=providers):
        result = triage("Cine sunteți?", today=TODAY)
    assert (result.backend, result.intent, result.fell_back) == (
        "openai_compatible",
        "question",
        False,
    )
    assert json.loads(responses.calls[0].request.body)["model"] == "m-1"
    assert responses.calls[0].request.req_kwargs["timeout"] == (3.0, 3.0)


# --- issue #10: complaints, sarcasm and meeting times as routing signals -----------------


def test_every_development_complaint_is_flagged_whatever_its_intent():
    # Complaints that also ask to stop have intent "unsubscribe": the "complaint" signal is
    # what puts them in front of a person (hitl.replies.is_complaint).
    from hitl.replies import is_complaint
    from tests.hitl import triage_dev

    missed = [c.text for c in triage_dev.CASES if c.complains and not is_complaint(analyse(c.text))]
    assert missed == []


def test_sarcasm_and_meeting_time_signals_on_the_development_set():
    from tests.hitl import triage_dev

    sarcastic = [c for c in triage_dev.CASES if "sarcasm" in c.tags]
    assert [c.text for c in sarcastic if "sarcasm" not in analyse(c.text).signals] == []
    plain = CASES + tuple(c for c in triage_dev.CASES if "sarcasm" not in c.tags)
    assert [c.text for c in plain if "sarcasm" in analyse(c.text).signals] == []
    timed = [c for c in triage_dev.CASES if "time" in c.tags]
    assert [c.text for c in timed if "meeting_time" not in analyse(c.text).signals] == []
