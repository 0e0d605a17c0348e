"""Brochure → drafted templates (outreach.brochures): a PDF made here is read (text,
headings, priced products), bad PDFs are refused with their reason, the drafts are made by
the AI model (faked at the HTTP boundary with `responses`) or by the offline rules, a bad
answer or a failed call falls back with the reason kept, and the workspace's AI budget is
shared with reply triage."""

from __future__ import annotations

import json

import pytest
import requests
import responses

from cerniq import ai_budget, reasons
from outreach import spintax, template_compliance
from outreach.brochures import ai as brochure_ai
from outreach.brochures import jobs, reading
from outreach.brochures import reasons as why
from outreach.brochures.drafts import KINDS, problems
from outreach.brochures.offline import offline_drafts
from outreach.models import Brochure, Channel
from tests.factories import make_lead, make_tenant
from tests.outreach.brochures.pdfs import brochure_pdf, encrypted_pdf, pageless_pdf, scanned_pdf
from tests.outreach.brochures.setup import (
    GOOD_ANSWER,
    KEY,
    MODEL,
    URL,
    answer,
    completion,
    drafted,
    drafts_of,
)

pytestmark = pytest.mark.django_db


# --- reading ------------------------------------------------------------------------------


def test_the_text_layer_headings_and_priced_products_are_read():
    read = reading.read(brochure_pdf(pages=3))

    assert read.pages == 3
    # Headings are the lines set larger; the PDF's cedilla ţ comes back as comma-below ț.
    assert read.headings == [
        "Catalog îngrășăminte toamna 2026",
        "Îngrășăminte azotoase",
        "Semințe de porumb",
    ]
    assert [(p.name, p.price) for p in read.products] == [
        ("Azotat de amoniu 34,4% N", "2.450 lei/t"),
        ("Uree granulată 46%", "2.890 lei/tonă"),
        ("Hibrid P9903 FAO 380", "890 lei/sac"),
    ]
    assert "Livrăm în toată Moldova, direct la fermă." in read.text
    assert "Pagina 3: condiții de livrare." in read.text
    assert "ţ" not in read.text and "ş" not in read.text


def test_prices_are_read_as_a_price_list_writes_them():
    read = reading.read(
        brochure_pdf(
            [
                (18, "LISTA DE PREȚURI"),
                (11, "• Motorină B7: 7,20 lei/l"),
                (11, "Sârmă ghimpată"),
                (11, "120 EUR"),
                (11, "Mănuși de lucru 15 €/buc"),
                (11, "Substanță activă 34,4% N (fără preț)"),
            ]
        )
    )
    assert [(p.name, p.price) for p in read.products] == [
        ("Motorină B7", "7,20 lei/l"),
        ("Sârmă ghimpată", "120 EUR"),  # the price on the line below its product
        ("Mănuși de lucru", "15 €/buc"),
    ]
    assert read.headings == ["LISTA DE PREȚURI"]
    assert reading.prices_in("la 2450 lei / t") == reading.prices_in("2.450 lei/t")


def test_a_pdf_locked_only_against_printing_is_read():
    assert reading.check_upload("oferta.pdf", encrypted_pdf(opened_with="")) == 1
    assert reading.read(encrypted_pdf(opened_with="")).products


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("oferta.pdf", b"", "The file is empty."),
        ("oferta.pdf", b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "This is not a PDF"),
        ("oferta.docx", brochure_pdf(), "This is not a PDF"),
        ("oferta.pdf", b"%PDF-1.7\nnot really a pdf at all", "The PDF does not open"),
        ("oferta.pdf", encrypted_pdf(), "The PDF is protected by a password"),
        ("scan.pdf", scanned_pdf(), "The PDF has no text to read (a scanned document?)"),
        ("gol.pdf", pageless_pdf(), "The PDF has no pages."),
        ("mare.pdf", b"%PDF-1.4\n" + b"0" * reading.MAX_UPLOAD_BYTES, "larger than 10 MB"),
    ],
    ids=["empty", "png", "not-named-pdf", "broken", "password", "scan", "no-pages", "too-big"],
)
def test_a_bad_pdf_is_refused_with_its_reason_and_nothing_is_kept(
    tenant, media, name, content, said
):
    with pytest.raises(reading.BrochureRefused) as refused:
        jobs.start(tenant, file_name=name, content=content)
    assert said in str(refused.value)
    assert not Brochure.objects.exists()
    assert not (media / "brochures").exists()


def test_too_many_pages_are_refused(tenant, monkeypatch):
    monkeypatch.setattr(reading, "MAX_PAGES", 2)
    with pytest.raises(reading.BrochureRefused, match="has 3 pages; at most 2"):
        jobs.start(tenant, file_name="catalog.pdf", content=brochure_pdf(pages=3))


# --- offline drafts -------------------------------------------------------------------------


def test_offline_drafts_are_valid_for_their_channel_and_made_of_the_brochure(tenant, offline):
    brochure = drafted(tenant)
    drafts = drafts_of(brochure)

    assert brochure.status == Brochure.Status.DONE
    assert (brochure.backend, brochure.prompt) == ("offline", "")
    assert reasons.parse(brochure.fallback_reason) == (why.AI_NOT_CONFIGURED, {})
    for kind, version in zip(KINDS, drafts.values(), strict=True):
        assert version.draft and not version.is_active
        assert version.template.channel == kind.channel
        assert version.tenant_id == version.template.tenant_id == tenant.pk
        # Valid for its channel with the built-in variables only (no custom field).
        assert (
            spintax.validate(version.body, channel=kind.channel, first_message=kind.first_message)
            == []
        ), kind.field
    first, email = drafts["whatsapp_first"], drafts["email"]
    assert first.template.name == "Catalog îngrășăminte toamna 2026 — WhatsApp, first message"
    assert "Azotat de amoniu 34,4% N – 2.450 lei/t" in first.body
    assert "agrofert.ro" not in first.body  # the brochure's link and address are left out
    assert email.subject.endswith("„Catalog îngrășăminte toamna 2026” pentru {{company_name}}")
    assert "- Hibrid P9903 FAO 380: 890 lei/sac" in email.body
    # Who is writing and how to stop: a cold first message says both.
    for version in (first, email):
        assert template_compliance.missing(tenant, body=version.body) == []
    # The same brochure drafts the same text.
    again = offline_drafts(tenant.name, reading.read(brochure_pdf()), "catalog-toamna.pdf")
    assert again.whatsapp_first == first.body and again.email_body == email.body


def test_brochure_text_that_looks_like_spintax_stays_plain_text(tenant):
    read = reading.read(
        brochure_pdf([(20, "Oferta {specială} | Agro"), (11, "Motorină {B7}: 7,20 lei/l")])
    )
    drafts = offline_drafts("Agro {Demo}", read, "x.pdf")
    assert problems(drafts) == {}
    assert "Motorină (B7) – 7,20 lei/l" in drafts.whatsapp_first


# --- AI drafts ------------------------------------------------------------------------------


@responses.activate
def test_the_ai_model_drafts_from_the_brochure_text(tenant, ai):
    responses.post(URL, json=answer())

    brochure = drafted(tenant)

    (call,) = responses.calls
    assert call.request.headers["Authorization"] == f"Bearer {KEY}"
    assert call.request.req_kwargs["timeout"] == (9.0, 9.0)
    body = json.loads(call.request.body)
    assert (body["model"], body["temperature"]) == (MODEL, 0)
    assert body["response_format"] == {"type": "json_object"}
    system, user = body["messages"]
    for rule in ("ONE JSON object", "{{contact_name|stimate client}}", "NO links", "Never invent"):
        assert rule in system["content"]
    sent = json.loads(user["content"])
    assert sent["workspace"] == "Agro Demo"
    assert sent["brochure"]["title"] == "Catalog îngrășăminte toamna 2026"
    assert {"name": "Uree granulată 46%", "price": "2.890 lei/tonă"} in sent["brochure"]["products"]
    assert "Livrăm în toată Moldova" in sent["brochure"]["text"]

    assert (brochure.backend, brochure.fallback_reason) == (f"ai:{MODEL}", "")
    assert json.loads(brochure.prompt) == body["messages"]
    drafts = drafts_of(brochure)
    assert drafts["whatsapp_first"].body == GOOD_ANSWER["whatsapp_first"]
    assert drafts["email"].subject == GOOD_ANSWER["email_subject"]
    assert drafts["email"].template.channel == Channel.EMAIL_COLD
    assert all(v.draft and not v.is_active for v in drafts.values())


@responses.activate
def test_the_prompt_takes_a_bounded_part_of_a_long_brochure(tenant, ai, monkeypatch):
    monkeypatch.setattr(brochure_ai, "MAX_PROMPT_TEXT", 60)
    responses.post(URL, json=answer())
    brochure = drafted(tenant)
    sent = json.loads(json.loads(responses.calls[0].request.body)["messages"][1]["content"])
    assert sent["brochure"]["text"] == brochure.text[:60]
    assert len(brochure.text) > 60  # the whole text is kept on the row


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        ("Sigur! Iată mesajele: ...", "not JSON"),
        (json.dumps([GOOD_ANSWER]), "not a JSON object"),
        (json.dumps({**GOOD_ANSWER, "email_subject": None}), "not text: email_subject"),
        (json.dumps({k: v for k, v in GOOD_ANSWER.items() if k != "email_body"}), "missing"),
        (
            json.dumps({**GOOD_ANSWER, "whatsapp_followup_1": "Salut {{pret_special}}!"}),
            "whatsapp_followup_1: unknown variable {{pret_special}}",
        ),
        (
            json.dumps({**GOOD_ANSWER, "whatsapp_first": "Bună ziua! Vedeți www.agrofert.ro"}),
            "whatsapp_first: links are not allowed",
        ),
        (
            json.dumps({**GOOD_ANSWER, "whatsapp_followup_2": "{Bună ziua|Salut, revin."}),
            "whatsapp_followup_2: unclosed '{'",
        ),
        (
            json.dumps({**GOOD_ANSWER, "whatsapp_followup_1": "Azotat la doar 1.999 lei/t!"}),
            "a price the brochure does not quote: 1999lei",
        ),
    ],
    ids=["prose", "list", "null", "missing", "variable", "link", "spintax", "invented-price"],
)
@responses.activate
def test_a_bad_answer_gives_the_offline_drafts_with_the_reason(tenant, ai, content, detail):
    responses.post(URL, json=completion(content))

    brochure = drafted(tenant)

    code, params = reasons.parse(brochure.fallback_reason)
    assert code == why.AI_BAD_ANSWER and params["detail"].startswith(detail)
    assert brochure.backend == "offline"
    assert "Catalog îngrășăminte toamna 2026" in brochure.prompt  # what the model was sent
    expected = offline_drafts(tenant.name, reading.read(brochure_pdf()), "catalog-toamna.pdf")
    assert drafts_of(brochure)["whatsapp_first"].body == expected.whatsapp_first


@pytest.mark.parametrize(
    ("reply", "detail"),
    [
        ({"status": 500, "json": {"error": {"message": "The server had an error"}}}, "HTTP 500"),
        ({"status": 401, "json": {"error": {"code": "invalid_api_key"}}}, "HTTP 401"),
        ({"body": requests.exceptions.ReadTimeout("read timed out")}, "timeout"),
        ({"body": requests.exceptions.ConnectionError("refused")}, "connection error"),
        ({"json": {"id": "chatcmpl-0", "object": "chat.completion", "choices": []}}, "an answer"),
    ],
    ids=["5xx", "401", "timeout", "connection", "no-choices"],
)
@responses.activate
def test_a_failed_call_gives_the_offline_drafts_with_the_reason(tenant, ai, reply, detail, caplog):
    responses.post(URL, **reply)

    brochure = drafted(tenant)

    code, params = reasons.parse(brochure.fallback_reason)
    assert code == why.AI_FAILED and params["detail"].startswith(detail)
    assert (brochure.status, brochure.backend) == (Brochure.Status.DONE, "offline")
    assert len(drafts_of(brochure)) == 4
    assert KEY not in caplog.text and KEY not in brochure.fallback_reason


# --- the AI budget --------------------------------------------------------------------------


@responses.activate
def test_the_budget_is_the_tenants_one_shared_with_reply_triage(tenant, ai, monkeypatch):
    from hitl import replies
    from tests.hitl.test_triage import model_answer

    monkeypatch.setattr(ai_budget, "AI_REQUESTS_PER_MINUTE", 2)
    monkeypatch.setattr(replies, "AI_REQUESTS_PER_MINUTE", 2)
    monkeypatch.setattr(replies, "AI_LIMIT_KEY", ai_budget.AI_LIMIT_KEY)
    responses.post(URL, json=completion(json.dumps(model_answer())))  # the triage's answer
    responses.post(URL, json=answer())  # the first brochure's

    triaged = replies.analyse(make_lead(tenant), "Ce preț are azotatul?")
    first, second = drafted(tenant), drafted(tenant)

    assert (triaged.backend, triaged.fell_back) == ("openai_compatible", False)
    assert first.backend == f"ai:{MODEL}"
    assert len(responses.calls) == 2  # the second brochure never reached the model
    assert second.backend == "offline" and second.prompt == ""
    assert reasons.parse(second.fallback_reason) == (why.AI_BUDGET, {"limit": 2})
    # Another workspace's budget is its own.
    responses.post(URL, json=answer())
    assert drafted(make_tenant(name="Alt Agro SRL")).backend == f"ai:{MODEL}"
