"""Contact readiness in a real browser: a CSV without any check column is imported, the
report says who can be contacted and why not, the leads list shows it and filters on it,
a stalled lead is found from the dashboard; in English and Romanian.

Screenshots land in var/screenshots/ (copies looked at are kept in docs/screenshots/).
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from outreach.analytics import reach
from outreach.models import Enrollment, Journey, Lead
from outreach.suppression import suppress
from tests.browser import test_operator_ui as ui
from tests.drain import running_workers
from tests.factories import make_sequence, make_tenant, make_user

SHOTS, log_in = ui.SHOTS, ui.log_in
browser_page = ui.browser_page  # the shared fixture


@pytest.mark.django_db(transaction=True)
def test_an_import_without_checks_shows_readiness_on_the_report_the_list_and_the_lead(
    live_server, browser_page, tmp_path
):
    tenant = make_tenant(name="Agro Import SRL")
    make_user(tenant, username="mihai")
    suppress(tenant, phone="+40722000003", reason="stop")
    csv_file = tmp_path / "firme.csv"
    csv_file.write_text(
        "company_name,contact_name,phone,email\n"
        "Ferma Unu SRL,Ion Pop,0722000001,office@fermaunu.ro\n"
        "Ferma Doi SRL,Ana Ene,0722000002,\n"
        "Ferma Trei SRL,Dan Popa,0722000003,\n"
    )
    page = browser_page
    log_in(page, live_server.url, "mihai")
    page.goto(f"{live_server.url}/outreach/leads/")
    page.get_by_text("Import leads from CSV").click()
    page.get_by_label("CSV file").set_input_files(str(csv_file))
    page.get_by_role("button", name="Import", exact=True).click()
    page.wait_for_url("**/outreach/leads/import/*/")
    with running_workers():
        page.locator("[data-import-status='done']").wait_for(timeout=30_000)
    report = page.locator("[data-import-readiness]")
    assert report.get_by_text("0 can be contacted now").is_visible()
    assert report.get_by_text(
        "2 can be contacted, number not checked yet — the first message checks it"
    ).is_visible()
    assert report.get_by_text("1 cannot be contacted: opted out").is_visible()
    page.screenshot(path=str(SHOTS / "import_readiness.png"), full_page=True)

    # From the report to the leads that cannot be contacted: only the listed number.
    report.get_by_role("link", name="See the leads that cannot be contacted").click()
    page.wait_for_url("**/outreach/leads/?contactable=false")
    rows = page.locator("tr[data-lead]")
    assert rows.count() == 1 and "Ferma Trei SRL" in rows.first.inner_text()

    # A stalled lead: the dashboard counts it and links to it.
    stuck = Lead.objects.get(tenant=tenant, name="Ferma Unu SRL")
    Enrollment.objects.create(
        tenant=tenant,
        lead=stuck,
        sequence=make_sequence(tenant, name="Irigații toamnă"),
        stalled_reason="dispatch.template_inactive",
        stalled_since=timezone.now(),
    )
    Journey.objects.filter(lead=stuck).update(current_sequence=stuck.enrollments.get().sequence)
    reach.refresh_all()  # the scheduler's minute job: the dashboard shows kept counts
    page.goto(f"{live_server.url}/outreach/dashboard/")
    assert page.locator("[data-kpi='stalled']").inner_text().strip() == "1"
    page.locator("[data-kpi='stalled'] a").click()
    page.wait_for_url("**/outreach/leads/?stalled=true")
    rows = page.locator("tr[data-lead]")
    assert rows.count() == 1 and "Ferma Unu SRL" in rows.first.inner_text()
    assert rows.first.locator("[data-stalled]").is_visible()
    page.screenshot(path=str(SHOTS / "leads_stalled.png"), full_page=True)

    page.goto(f"{live_server.url}/outreach/leads/{stuck.pk}/")
    assert page.locator("[data-readiness='whatsapp'][data-state='unverified']").is_visible()
    assert page.locator("[data-stalled]").is_visible()
    page.screenshot(path=str(SHOTS / "lead_readiness.png"), full_page=True)

    page.get_by_role("button", name="Română").click()
    page.wait_for_load_state()
    assert "nu a mai avansat" in page.locator("[data-stalled]").inner_text()
    page.screenshot(path=str(SHOTS / "lead_readiness_ro.png"), full_page=True)
    page.goto(f"{live_server.url}/outreach/leads/?stalled=true")
    assert "Blocat din" in page.locator("tr[data-lead] [data-stalled]").inner_text()
    page.screenshot(path=str(SHOTS / "leads_stalled_ro.png"), full_page=True)
    page.goto(f"{live_server.url}/outreach/leads/?sort=-created")
    page.screenshot(path=str(SHOTS / "leads_readiness_ro.png"), full_page=True)
