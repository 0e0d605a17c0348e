"""WhatsApp media in a real browser (issue #24 §4): the composer offers an image or PDF for
a WhatsApp answer only, sends one, and the thread shows it as a thumbnail that loads through
the workspace's own file view. Screenshot: var/screenshots/media-thread.png."""

from __future__ import annotations

import struct
import zlib
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from playwright.sync_api import expect

from outreach.models import Channel, Lead, Message
from tests.browser.test_operator_ui import SHOTS, browser_page  # noqa: F401 (a fixture)
from tests.factories import make_lead, make_phone, make_tenant, make_user

OPEN = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo("Europe/Bucharest"))  # a Tuesday


def tiny_png() -> bytes:
    """A real 2×2 green PNG (the browser must be able to draw it)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x2e\x8b\x57" * 2 for _ in range(2))
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@pytest.mark.django_db(transaction=True)
def test_an_image_goes_with_a_whatsapp_answer_and_shows_in_the_thread(
    live_server,
    browser_page,  # noqa: F811
    settings,
    tmp_path,
):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    image = tmp_path / "parcela nord.png"
    image.write_bytes(tiny_png())
    with time_machine.travel(OPEN, tick=True):
        tenant = make_tenant(name="Agro Media SRL")
        make_user(tenant, username="ana", first_name="Ana", last_name="Ionescu")
        make_phone(tenant)
        lead = make_lead(
            tenant,
            name="Ferma Știubei SRL",
            email="stefan@ferma.ro",
            email_status=Lead.EmailStatus.VALID,
        )
        page = browser_page
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", "ana")
        page.fill("input[name=password]", "pw-for-tests-1")
        page.get_by_role("button", name="Log in").click()
        page.wait_for_load_state()
        page.goto(f"{live_server.url}/outreach/inbox/{lead.pk}/")

        # The file field belongs to WhatsApp: hidden while email is chosen.
        media_input = page.locator("#composer-media")
        expect(media_input).to_be_visible()
        page.get_by_label("Email").check()
        expect(media_input).to_be_hidden()
        page.get_by_label("WhatsApp").check()
        expect(media_input).to_be_visible()

        media_input.set_input_files(str(image))
        page.locator("#composer-text").fill("Parcela de care vorbeam.")
        page.locator("[data-composer-send]").click()
        page.locator("form[data-composer][data-sent]").wait_for()
        sent = Message.objects.get(lead=lead)
        assert sent.channel == Channel.WHATSAPP and sent.media.filename == "parcela nord.png"

        page.reload()
        thumbnail = page.locator(f'img.media-thumb[src="/outreach/media/{sent.media_id}/"]')
        expect(thumbnail).to_be_visible()
        page.wait_for_function(
            "img => img.complete && img.naturalWidth === 2", arg=thumbnail.element_handle()
        )
        page.screenshot(path=str(SHOTS / "media-thread.png"))
        assert not [e for e in errors if "Content Security Policy" in e], errors
