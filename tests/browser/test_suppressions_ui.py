"""The do-not-contact list in a real browser: an admin finds it among the settings, lists a
whole email domain and sees how many leads it blocks, follows that count to the leads list,
takes a mistaken entry off with a reason; the page in English and in Romanian, with no
Content-Security-Policy complaint.

Screenshots land in var/screenshots/ (copies looked at are kept in docs/screenshots/)."""

from __future__ import annotations

import pytest

from cerniq import reasons
from outreach import suppression_list as dnc
from outreach.models import Suppression, SuppressionRemoval
from outreach.readiness import for_tenant
from outreach.reasons import SUPPRESSED_OPT_OUT
from tests.browser.test_csp_ui import Violations
from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401 (a fixture)
from tests.factories import make_lead, make_tenant, make_user

URL = "/outreach/settings/do-not-contact/"


@pytest.mark.django_db(transaction=True)
def test_an_admin_lists_a_domain_sees_what_it_blocks_and_takes_an_entry_off(
    live_server,
    browser_page,  # noqa: F811 (the fixture)
    tmp_path,
):
    tenant = make_tenant(name="Agro Browser SRL")
    make_user(tenant, username="ana", role="ADMIN", first_name="Ana", last_name="Pop")
    ion = make_lead(tenant, name="Ferma Verde SRL", email="ion@fermaverde.ro")
    make_lead(tenant, name="Ferma Verde Est SRL", email="office@fermaverde.ro")
    make_lead(tenant, name="Agro Sud SRL", email="contact@agrosud.ro")
    stopped = make_lead(tenant, name="Legume Bune SRL", phone="+40722000009")
    Suppression.objects.create(
        tenant=tenant,
        phone=stopped.phone,
        reason=reasons.code(SUPPRESSED_OPT_OUT, lead=stopped.name, channel="WHATSAPP"),
    )
    mistaken, _ = dnc.add_entry(
        tenant, kind="phone", value="0744 000 111", reason="Typed the wrong number"
    )
    page = browser_page
    seen = Violations(page)
    base = live_server.url
    log_in(page, base, "ana")

    # From the top bar's Settings to the list's tab.
    page.locator("[data-settings-link]").click()
    page.locator("[data-settings-do-not-contact]").click()
    page.wait_for_url(f"**{URL}")
    seen.check("the list")

    add = page.locator("[data-add-suppression]")
    add.get_by_label("Kind").select_option("domain")
    add.get_by_label("Value").fill("@FermaVerde.ro")
    add.get_by_label("Why").fill("The company asked us to stop writing, 24.11")
    add.get_by_role("button", name="Add to the list").click()
    page.wait_for_url(f"**{URL}")
    assert page.get_by_text(
        "fermaverde.ro is on the do-not-contact list: no email goes to any address at this domain."
    ).is_visible()
    row = page.locator("tr[data-kind='domain']")
    assert "fermaverde.ro" in row.inner_text()
    assert row.locator("[data-blocked-leads]").inner_text() == "Blocks 2 leads"
    assert for_tenant(ion).email.state == "blocked"
    seen.check("after adding")

    # Taking the mistaken number off: the reason is asked, the page asks to confirm.
    mine = page.locator(f"tr[data-suppression='{mistaken.pk}']")
    mine.get_by_text("Take off the list…").click()
    mine.get_by_placeholder("Why it comes off the list").fill(
        "Typed by mistake, not a lead's number"
    )
    page.screenshot(path=str(SHOTS / "do_not_contact_take_off.png"), full_page=True)
    page.once("dialog", lambda dialog: dialog.accept())
    mine.get_by_role("button", name="Take off").click()
    page.wait_for_url(f"**{URL}")
    assert page.locator(f"tr[data-suppression='{mistaken.pk}']").count() == 0
    removal = SuppressionRemoval.objects.get()
    assert removal.value == "+40744000111"
    assert page.locator(f"tr[data-removal='{removal.pk}']").is_visible()
    # The opt-out is the recipient's: no button, where to lift it instead.
    assert page.locator("[data-not-removable]").is_visible()
    seen.check("after taking an entry off")
    page.screenshot(path=str(SHOTS / "do_not_contact.png"), full_page=True)

    # A file with a wrong line: the lines at fault, nothing added.
    wrong = tmp_path / "lista.csv"
    wrong.write_text("kind,value,reason\ndomain,agrosud.ro,competitor\nphone,12,typo\n")
    page.locator("[data-import-suppressions] summary").click()
    page.get_by_label("CSV file").set_input_files(str(wrong))
    page.get_by_role("button", name="Import", exact=True).click()
    page.wait_for_load_state()
    assert (
        "Line 3: “12” is not a phone number." in page.locator("[data-import-errors]").inner_text()
    )
    assert not Suppression.objects.filter(domain="agrosud.ro").exists()
    seen.check("after a refused import")
    page.screenshot(path=str(SHOTS / "do_not_contact_import_error.png"), full_page=True)

    # The count leads to those leads, searched on the leads list.
    page.locator("tr[data-kind='domain'] [data-blocked-leads]").click()
    page.wait_for_url("**/outreach/leads/?s=*")
    names = page.locator("tr[data-lead]").all_inner_texts()
    assert len(names) == 2 and all("Ferma Verde" in name for name in names)
    assert "fermaverde" not in page.url

    page.goto(f"{base}{URL}")
    page.get_by_role("button", name="Română").click()
    page.wait_for_load_state()
    assert page.get_by_role("heading", name="Lista „nu contactați”").is_visible()
    page.locator("[data-import-suppressions] summary").click()
    assert page.locator("tr[data-kind='domain'] [data-blocked-leads]").inner_text() == (
        "Blochează 2 lead-uri"
    )
    seen.check("in Romanian")
    page.screenshot(path=str(SHOTS / "do_not_contact_ro.png"), full_page=True)
