"""The drafts answer what the lead said (hitl.triage.drafts, facts, proposed_time, referral):
a proposed time is confirmed and named back, a day alone gets asked for its hour, no time
gets two call slots on working days; a price question gets the tenant's price list; a
referral names the contact or asks for it. The reply's time is always given (frozen)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hitl.triage import OfflineTriage
from hitl.triage.base import normalise
from hitl.triage.drafts import draft_reply
from hitl.triage.facts import DraftContext, PriceList, extract
from hitl.triage.proposed_time import ProposedTime, find_proposed_time
from hitl.triage.referral import find_referral

BUCHAREST = ZoneInfo("Europe/Bucharest")
# Friday 27 November 2026, 16:00: Monday 30 Nov and Tuesday 1 Dec are Romanian holidays.
FRIDAY = datetime(2026, 11, 27, 16, 0, tzinfo=BUCHAREST)
# Monday 30 November 2026, 09:30: "mâine" is in December.
MONTH_END = datetime(2026, 11, 30, 9, 30, tzinfo=BUCHAREST)
# Thursday 31 December 2026, 11:00: "mâine" is in the next year.
YEAR_END = datetime(2026, 12, 31, 11, 0, tzinfo=BUCHAREST)


def draft(
    text: str,
    intent: str,
    *,
    language: str = "ro",
    at: datetime = FRIDAY,
    prices: PriceList | None = None,
    name: str = "Ion",
) -> str:
    context = DraftContext(received_at=at, price_list=prices or PriceList())
    facts = extract(text, context=context, today=None)
    return draft_reply(intent, language, contact_name=name, company_name="", facts=facts)


def proposed(text: str, at: datetime = FRIDAY) -> ProposedTime | None:
    return find_proposed_time(normalise(text), at.replace(tzinfo=None))


# --- a proposed time is confirmed, in Romanian and English -----------------------------------

# (reply, received, day, hour) — real phrasings, with and without diacritics, typos, capitals.
PROPOSALS = [
    ("Putem vorbi joi la 10", FRIDAY, date(2026, 12, 3), time(10, 0)),
    ("PUTEM VORBI JOI LA 10", FRIDAY, date(2026, 12, 3), time(10, 0)),
    ("putem vb joia la 10 si jumatate", FRIDAY, date(2026, 12, 3), time(10, 30)),
    ("Sunați-mă luni la ora 14:30", FRIDAY, date(2026, 11, 30), time(14, 30)),
    ("sunati-ma luni dupa ora 17", FRIDAY, date(2026, 11, 30), time(17, 0)),
    ("Mâine la 11 e bine", FRIDAY, date(2026, 11, 28), time(11, 0)),
    ("maine la 11 e bine", MONTH_END, date(2026, 12, 1), time(11, 0)),
    ("mîine pe la 3", MONTH_END, date(2026, 12, 1), time(15, 0)),
    ("Poimâine la 9 dimineața", FRIDAY, date(2026, 11, 29), time(9, 0)),
    ("Pe 3 decembrie, ora 14:30", FRIDAY, date(2026, 12, 3), time(14, 30)),
    ("3.12 la 10:30", FRIDAY, date(2026, 12, 3), time(10, 30)),
    ("Joi nu pot, dar vineri la 10 da", FRIDAY, date(2026, 12, 4), time(10, 0)),
    ("ok, la zece maine", YEAR_END, date(2027, 1, 1), time(10, 0)),
    ("Vorbim pe 5 ianuarie la 12", YEAR_END, date(2027, 1, 5), time(12, 0)),
    ("miercuri saptamana viitoare la 16", MONTH_END, date(2026, 12, 9), time(16, 0)),
    ("call me Tuesday at 3pm", FRIDAY, date(2026, 12, 1), time(15, 0)),
    ("Call me tomorow around 4", MONTH_END, date(2026, 12, 1), time(16, 0)),
    ("Thrusday 2pm works for me", FRIDAY, date(2026, 12, 3), time(14, 0)),
    ("can we talk next friday at 11am?", MONTH_END, date(2026, 12, 11), time(11, 0)),
    ("Monday at 9:15 works", FRIDAY, date(2026, 11, 30), time(9, 15)),
    ("On Dec 3rd at 10", FRIDAY, date(2026, 12, 3), time(10, 0)),
]


@pytest.mark.parametrize(("text", "at", "day", "hour"), PROPOSALS)
def test_a_proposed_day_and_hour_are_read_relative_to_the_reply(text, at, day, hour):
    found = proposed(text, at)
    assert found is not None and (found.day, found.at) == (day, hour), text


def test_romanian_draft_confirms_the_day_and_hour_and_does_not_ask_again():
    text = draft("Putem vorbi joi la 10", "meeting_request")
    assert text.startswith("Bună ziua, Ion,\n")
    assert "Confirmăm: vă sunăm joi, 3 decembrie, la ora 10:00." in text
    assert "?" not in text  # nothing is asked again


def test_english_draft_confirms_across_a_weekend():
    text = draft("Call me Monday at 3pm", "meeting_request", language="en", name="John")
    assert text.startswith("Hello John,\n")
    # Monday 30 November is a public holiday: what the lead said is still confirmed.
    assert "we will call you on Monday 30 November at 15:00" in text


def test_relative_day_across_the_month_end_is_named_with_its_date():
    text = draft("mâine la 11", "meeting_request", at=MONTH_END)
    assert "vă sunăm mâine, marți, 1 decembrie, la ora 11:00" in text
    english = draft("tomorrow at 11", "interested", language="en", at=YEAR_END)
    assert "we will call you tomorrow, Friday 1 January at 11:00" in english


def test_an_hour_after_or_before_is_said_as_such():
    assert "după ora 17:00" in draft("sunați-mă vineri după ora 17", "meeting_request")
    assert "before 12:00" in draft("call me Friday before 12", "meeting_request", language="en")


def test_a_range_of_hours_is_named_back_as_a_range():
    text = draft("Mă puteți suna mâine între 10 și 12", "meeting_request", at=MONTH_END)
    assert "vă sunăm mâine, marți, 1 decembrie, între orele 10:00 și 12:00" in text
    english = draft("call me Thursday between 2 and 4pm", "meeting_request", language="en")
    assert "on Thursday 3 December between 14:00 and 16:00" in english


def test_a_day_without_an_hour_is_confirmed_and_the_hour_asked():
    text = draft("Da, sunați-mă luni", "meeting_request")
    assert "Luni, 30 noiembrie ne convine. La ce oră vă putem suna?" in text
    afternoon = draft("mâine după-amiază", "meeting_request", at=MONTH_END)
    assert "Mâine, marți, 1 decembrie, după-amiaza ne convine. La ce oră" in afternoon
    english = draft("Sure, Wednesday works", "interested", language="en")
    assert "On Wednesday 2 December works for us. At what time may we call you?" in english


def test_no_time_offers_two_slots_on_working_days():
    # Friday: Monday 30 Nov and Tuesday 1 Dec are public holidays, so Wednesday and Thursday.
    text = draft("Sunt interesat, sunați-mă", "meeting_request")
    assert (
        "Vă putem suna miercuri, 2 decembrie, la ora 10:00 sau joi, 3 decembrie, la ora 14:00"
        in (text)
    )
    english = draft("I'm interested", "interested", language="en", at=MONTH_END)
    assert "tomorrow" not in english.split("call you")[1]  # 1 Dec is a holiday
    assert "on Wednesday 2 December at 10:00 or on Thursday 3 December at 14:00" in english


def test_tenant_hours_move_the_slots_inside_the_window():
    from hitl.triage.facts import call_slots, default_window

    window = default_window()
    narrow = type(window)(
        tz=window.tz, start=time(11, 0), end=time(13, 0), days=window.days, holiday_country=""
    )
    slots = call_slots(datetime(2026, 11, 23, 9, 0, tzinfo=BUCHAREST).replace(tzinfo=None), narrow)
    assert [slot.time() for slot in slots] == [time(11, 0), time(12, 0)]


WEEKDAYS_RO = ["luni", "marți", "miercuri", "joi", "vineri"]
WEEKDAYS_EN = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    weekday=st.integers(0, 4),
    hour=st.integers(8, 18),
    minute=st.sampled_from([0, 15, 30, 45]),
    english=st.booleans(),
    style=st.sampled_from(["plain", "upper", "ascii"]),
    template=st.integers(0, 3),
    days_ahead=st.integers(0, 60),
    received_hour=st.integers(7, 20),
)
def test_any_weekday_and_hour_is_confirmed_as_said(
    weekday, hour, minute, english, style, template, days_ahead, received_hour
):
    clock = f"{hour}:{minute:02d}"
    if english:
        name = WEEKDAYS_EN[weekday]
        text = [
            f"call me {name} at {clock}",
            f"{name} {clock} works for me",
            f"Can we talk on {name} at {clock}?",
            f"ok. {name} around {clock} then",
        ][template]
    else:
        name = WEEKDAYS_RO[weekday]
        text = [
            f"putem vorbi {name} la {clock}",
            f"Sunați-mă {name}, ora {clock}",
            f"{name} la ora {clock} e ok pentru mine",
            f"Da. Vorbim {name} pe la {clock}",
        ][template]
    text = {"upper": text.upper(), "ascii": normalise(text), "plain": text}[style]
    start = datetime(2026, 1, 5, received_hour, 0, tzinfo=BUCHAREST).replace(tzinfo=None)
    received = start + timedelta(days=days_ahead)
    found = find_proposed_time(normalise(text), received)
    assert found is not None, text
    assert found.day is not None and found.day.weekday() == weekday, text
    assert 0 <= (found.day - received.date()).days <= 7, text
    assert found.at == time(hour, minute), text


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_any_text_gets_a_draft_that_starts_with_the_greeting(text):
    for intent in ("interested", "meeting_request", "price_request", "referral", "question"):
        assert draft(text, intent).startswith("Bună ziua, Ion,\n")


@pytest.mark.parametrize(
    "text",
    [
        "Trimiteți oferta pe mail",
        "Avem 300 ha de grâu, la 10 tone la hectar",
        "Am așteptat 2 luni",
        "Send me the brochure please",
        "Prețul e 10 lei la kg?",
    ],
)
def test_quantities_and_plain_requests_propose_no_time(text):
    assert proposed(text) is None


# --- the price-list answer path --------------------------------------------------------------


def test_price_with_the_tenants_answer_text():
    prices = PriceList(answer="Prețurile pentru Agro Sud: grâu 1.200 lei/t, livrare inclusă.")
    text = draft("Cât costă?", "price_request", prices=prices)
    assert "Prețurile pentru Agro Sud: grâu 1.200 lei/t, livrare inclusă." in text
    assert "un coleg" not in text


def test_price_with_a_link_only():
    prices = PriceList(url="https://agro.example/preturi.pdf")
    assert "https://agro.example/preturi.pdf" in draft("Cât costă?", "price_request", prices=prices)
    english = draft("How much?", "price_request", language="en", prices=prices)
    assert "Our price list is here: https://agro.example/preturi.pdf" in english


def test_price_with_both_gives_the_text_and_links_the_list():
    prices = PriceList(url="https://agro.example/p", answer="Vă trimitem lista atașată.")
    text = draft("pret?", "price_request", prices=prices)
    assert "Vă trimitem lista atașată." in text and "https://agro.example/p" in text


def test_price_with_nothing_configured_says_a_colleague_sends_them():
    text = draft("Cât costă?", "price_request")
    assert "un coleg vă trimite" in text and "http" not in text
    assert "a colleague will send" in draft("price?", "price_request", language="en")


def test_price_question_with_a_time_confirms_it_too():
    prices = PriceList(url="https://agro.example/p")
    text = draft("Cât costă? Sunați-mă joi la 10", "price_request", prices=prices)
    assert "https://agro.example/p" in text and "joi, 3 decembrie, la ora 10:00" in text


def test_an_interested_reply_that_asks_a_price_gets_the_price_list_too():
    prices = PriceList(url="https://agro.example/p")
    result = triage("Da, mă interesează. Cât costă tona de azotat?", prices=prices)
    assert result.intent == "interested"
    assert "https://agro.example/p" in result.draft and "Vă putem suna" in result.draft
    bare = triage("Da, mă interesează. Cât costă tona de azotat?").draft
    assert "Un coleg vă trimite în cel mai scurt timp prețurile" in bare


# --- referrals ---------------------------------------------------------------------------------

REFERRALS = [
    ("Vorbiți cu colegul meu Ion Popescu, 0722 123 456", "Ion Popescu", "0722 123 456", ""),
    ("VORBITI CU COLEGUL MEU ION POPESCU LA 0722123456", "Ion Popescu", "0722123456", ""),
    ("contact my colleague John at john@x.ro", "John", "", "john@x.ro"),
    (
        "De achiziții se ocupă doamna Maria Ionescu, maria@agro.ro",
        "Maria Ionescu",
        "",
        "maria@agro.ro",
    ),
    ("Sunati-l pe Gheorghe la +40 745 111 222", "Gheorghe", "+40 745 111 222", ""),
    ("talk to our farm manager, Dan, 0744-111-222", "Dan", "0744-111-222", ""),
    ("Ion Popescu se ocupă de asta", "Ion Popescu", "", ""),
    ("nu eu mă ocup, ci fratele meu", "", "", ""),
    ("vorbiti cu el pe WhatsApp", "", "", ""),
    ("Please speak to my brother", "", "", ""),
]


@pytest.mark.parametrize(("text", "name", "phone", "email"), REFERRALS)
def test_the_referred_person_is_read(text, name, phone, email):
    found = find_referral(text)
    assert (found.name, found.phone, found.email) == (name, phone, email)


def test_referral_with_details_thanks_and_names_who_we_will_contact():
    text = draft("Vorbiți cu colegul meu Ion Popescu, 0722 123 456", "referral", name="Ana")
    assert "Vom lua legătura cu Ion Popescu (0722 123 456)." in text
    english = draft("contact my colleague John at john@x.ro", "referral", language="en")
    assert "We will get in touch with John (john@x.ro)." in english


def test_referral_with_a_name_only_asks_for_a_phone_or_email():
    text = draft("Ion Popescu se ocupă de asta", "referral")
    assert "un număr de telefon sau o adresă de email pentru Ion Popescu" in text


def test_referral_without_details_asks_for_the_name_and_contact():
    text = draft("nu eu mă ocup, ci fratele meu", "referral")
    assert "numele persoanei care se ocupă și un număr de telefon sau o adresă de email" in text
    english = draft("Please speak to my brother", "referral", language="en")
    assert "the name of the person in charge and a phone number or an email address" in english


# --- every intent, through the rules alone -----------------------------------------------------


def triage(text: str, **kwargs):
    context = DraftContext(received_at=FRIDAY, price_list=kwargs.pop("prices", PriceList()))
    return OfflineTriage().analyse(text, contact_name="Ion", context=context, **kwargs)


@pytest.mark.parametrize(
    ("text", "intent", "says"),
    [
        ("Putem vorbi joi la 10?", "meeting_request", "la ora 10:00"),
        ("Da, sunt interesat", "interested", "Vă putem suna miercuri, 2 decembrie"),
        ("Cât costă îngrășământul?", "price_request", "https://agro.example/p"),
        ("Vorbiți cu colegul meu Ion Popescu, 0722 123 456", "referral", "Ion Popescu"),
        ("Nu suntem interesați, mulțumim", "not_interested", "ne cerem scuze pentru deranj"),
        ("Ce garanție aveți la semințe?", "question", "Un coleg vă răspunde"),
        ("STOP", "unsubscribe", ""),
    ],
)
def test_each_intent_gets_its_draft_from_the_rules(text, intent, says):
    result = triage(text, prices=PriceList(url="https://agro.example/p"))
    assert result.intent == intent
    if intent == "unsubscribe":
        assert result.draft == ""
    else:
        assert says in result.draft


# --- the model gets the same facts, and its draft keeps them --------------------------------

LLM_URL = "https://llm.test/v1/chat/completions"


def ask_model(text: str, model_draft: str, intent: str, prices: PriceList):
    import json

    import responses

    from hitl.triage import OpenAICompatibleTriage

    answer = {
        "sentiment": 40,
        "intent": intent,
        "confidence": 0.9,
        "language": "ro",
        "draft": model_draft,
        "return_date": None,
    }
    backend = OpenAICompatibleTriage(base_url="https://llm.test/v1", api_key="k", model="m")
    with responses.RequestsMock() as mocked:
        mocked.post(
            LLM_URL,
            json={"choices": [{"message": {"role": "assistant", "content": json.dumps(answer)}}]},
        )
        result = backend.analyse(
            text,
            contact_name="Ion",
            today=FRIDAY.date(),
            context=DraftContext(received_at=FRIDAY, price_list=prices),
        )
        sent = json.loads(json.loads(mocked.calls[0].request.body)["messages"][1]["content"])
    return result, sent


def test_the_model_is_told_the_facts_and_the_rules():
    from hitl.triage.openai_compatible import SYSTEM_PROMPT

    prices = PriceList(url="https://agro.example/p", answer="Grâu: 1.200 lei/t.")
    _, sent = ask_model(
        "Putem vorbi joi la 10? Și cât costă?", "Bună ziua, Ion,\nDa.", "other", prices
    )
    facts = sent["facts"]
    assert facts["proposed_time"]["day"] == "2026-12-03"
    assert facts["proposed_time"]["time"] == "10:00"
    assert facts["proposed_time"]["said"]["ro"] == "joi, 3 decembrie, la ora 10:00"
    assert facts["price_list"] == {"url": "https://agro.example/p", "answer": "Grâu: 1.200 lei/t."}
    assert [slot["at"] for slot in facts["call_slots"]] == ["2026-12-02T10:00", "2026-12-03T14:00"]
    for rule in ("CONFIRM", "price_list.answer", "referral", "call_slots"):
        assert rule in SYSTEM_PROMPT


def test_a_model_draft_that_leaves_out_the_price_list_is_replaced_by_the_rules_draft():
    prices = PriceList(url="https://agro.example/p")
    result, _ = ask_model(
        "Cât costă?", "Bună ziua, Ion,\nUn coleg revine cu prețul.", "price_request", prices
    )
    assert result.backend == "openai_compatible" and not result.fell_back
    assert "https://agro.example/p" in result.draft


def test_a_model_draft_that_confirms_the_hour_is_kept():
    model_draft = "Bună ziua, Ion,\nPerfect, vă sunăm joi la 10:00."
    result, _ = ask_model("Putem vorbi joi la 10", model_draft, "meeting_request", PriceList())
    assert result.draft == model_draft
    ignored, _ = ask_model(
        "Putem vorbi joi la 10", "Bună ziua, Ion,\nCând?", "meeting_request", PriceList()
    )
    assert "joi, 3 decembrie, la ora 10:00" in ignored.draft


def test_when_the_model_fails_the_rules_draft_uses_the_same_context():
    import responses

    from hitl.triage import OpenAICompatibleTriage

    backend = OpenAICompatibleTriage(base_url="https://llm.test/v1", api_key="k", model="m")
    with responses.RequestsMock() as mocked:
        mocked.post(LLM_URL, status=500)
        result = backend.analyse(
            "Cât costă?",
            contact_name="Ion",
            context=DraftContext(
                received_at=FRIDAY, price_list=PriceList(url="https://agro.example/p")
            ),
        )
    assert result.fell_back and "https://agro.example/p" in result.draft
