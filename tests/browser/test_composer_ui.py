"""The inbox composer in a real browser (#21): a draft survives a reload, a quick reply is
found by typing "/", a WhatsApp answer and an email with a file are sent through htmx, and a
refused send keeps the text and says why. Screenshots: var/screenshots/composer-*.png."""

from __future__ import annotations

import io
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from playwright.sync_api import expect
from pypdf import PdfWriter

from outreach.models import Channel, Journey, Lead, Message, QuickReply
from tests.browser.test_operator_ui import SHOTS, browser_page  # noqa: F401 (a fixture)
from tests.factories import make_lead, make_phone, make_tenant, make_user

OPEN = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))  # a Tuesday


def pdf_file(tmp_path) -> str:
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    out = io.BytesIO()
    writer.write(out)
    path = tmp_path / "Proformă 7.pdf"
    path.write_bytes(out.getvalue())
    return str(path)


@pytest.mark.django_db(transaction=True)
def test_type_keep_a_draft_insert_a_quick_reply_send_and_be_refused(
    live_server,
    browser_page,  # noqa: F811
    settings,
    tmp_path,
):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    with time_machine.travel(OPEN, tick=True):
        tenant = make_tenant(name="Agro Composer SRL")
        make_user(tenant, username="ana", first_name="Ana", last_name="Ionescu")
        make_phone(tenant)
        lead = make_lead(
            tenant,
            name="Ferma Știubei SRL",
            contact_name="Ștefan Țurcanu",
            email="stefan@ferma.ro",
            email_status=Lead.EmailStatus.VALID,
        )
        QuickReply.objects.create(
            tenant=tenant, name="pret", body="Bună ziua, {{contact_name}}! Sunt {{operator_name}}."
        )
        page = browser_page
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", "ana")
        page.fill("input[name=password]", "pw-for-tests-1")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_load_state()
        thread = f"{live_server.url}/outreach/inbox/{lead.pk}/"
        page.goto(thread)
        text = page.locator("#composer-text")

        # A draft survives a reload.
        text.fill("Revin cu prețul mâine.")
        page.reload()
        assert page.locator("#composer-text").input_value() == "Revin cu prețul mâine."
        text = page.locator("#composer-text")

        # "/" lists the quick replies; Enter inserts one rendered for this lead.
        text.fill("")
        text.type("/pr")
        suggestion = page.locator("[data-quick-suggestions] li", has_text="/pret")
        suggestion.wait_for()
        page.screenshot(path=str(SHOTS / "composer-quick-reply.png"))
        text.press("Enter")
        expect(text).to_have_value("Bună ziua, Ștefan Țurcanu! Sunt Ana Ionescu.")

        # Send on WhatsApp (the default: the lead has a phone and never wrote).
        page.locator("[data-composer-send]").click()
        page.locator("form[data-composer][data-sent]").wait_for()
        sent = Message.objects.get(lead=lead)
        assert (sent.channel, sent.status) == (Channel.WHATSAPP, Message.Status.QUEUED)
        assert sent.body == "Bună ziua, Ștefan Țurcanu! Sunt Ana Ionescu."
        assert page.locator("#composer-text").input_value() == ""
        page.reload()
        assert page.locator("#composer-text").input_value() == ""  # the draft went with it

        # An email with a file.
        page.get_by_label("Email").check()
        page.locator("#composer-subject").fill("Oferta de toamnă")
        page.locator("#composer-files").set_input_files(pdf_file(tmp_path))
        page.locator("#composer-text").fill("Vă trimit proforma.")
        page.screenshot(path=str(SHOTS / "composer-email.png"))
        page.locator("[data-composer-send]").click()
        expect(page.locator("#composer-subject")).to_have_value("")  # the fresh form
        email = Message.objects.get(lead=lead, channel=Channel.EMAIL_WARM)
        assert (email.subject, email.status) == ("Oferta de toamnă", Message.Status.QUEUED)
        assert [a.filename for a in email.attachments.all()] == ["Proformă 7.pdf"]

        # A colleague takes the conversation over: the send is refused, the text kept.
        other = make_user(tenant, username="mihai", first_name="Mihai", last_name="Pop")
        Journey.objects.filter(lead=lead).update(taken_over_by=other, taken_over_at=OPEN)
        page.get_by_label("WhatsApp").check()
        page.locator("#composer-text").fill("Un mesaj care nu se pierde.")
        page.locator("[data-composer-send]").click()
        page.locator("[data-composer-error]").wait_for()
        assert (
            "Mihai Pop took over this conversation"
            in page.locator("[data-composer-error]").inner_text()
        )
        assert page.locator("#composer-text").input_value() == "Un mesaj care nu se pierde."
        assert page.locator("[data-refusal=WHATSAPP]").is_visible()
        page.screenshot(path=str(SHOTS / "composer-refused.png"))
        assert Message.objects.filter(lead=lead).count() == 2

        # The quick replies page: a bad body is refused naming the variable.
        page.goto(f"{live_server.url}/outreach/settings/quick-replies/new/")
        page.get_by_label("Name").fill("livrare")
        page.get_by_label("Text").fill("Livrăm la {{ferma}} mâine.")
        page.get_by_role("button", name="Save").click()
        assert "{{ferma}}" in page.locator("[data-error=body]").inner_text()
        page.screenshot(path=str(SHOTS / "composer-quick-reply-form.png"), full_page=True)
        page.get_by_label("Text").fill("Livrăm în {{county}} mâine, {{contact_name|domnule}}.")
        page.get_by_role("button", name="Save").click()
        page.wait_for_url("**/settings/quick-replies/")
        page.screenshot(path=str(SHOTS / "composer-quick-replies.png"), full_page=True)
        assert QuickReply.objects.filter(tenant=tenant, name="livrare").exists()
        assert not [e for e in errors if "Content Security Policy" in e], errors
