"""The Content-Security-Policy in a real browser: every main page, Django admin and the API's
documentation load with no violation reported (console or `securitypolicyviolation`
event), and what moved out of the HTML to static scripts still works: htmx swaps, Chart.js,
the review queue's keys, Swagger UI and Redoc."""

from __future__ import annotations

import pytest

from hitl import review
from hitl.models import ReviewItem
from tests.browser.test_operator_ui import SHOTS, browser_page, log_in  # noqa: F401 (a fixture)
from tests.factories import (
    make_lead,
    make_message,
    make_phone,
    make_sequence,
    make_template,
    make_tenant,
    make_user,
)

# Records violations from the first script on every document, before any of ours runs.
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (event) {
  window.__violations.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""


class Violations:
    """CSP complaints of the browser: console messages and the DOM event, per page."""

    def __init__(self, page) -> None:
        self.page = page
        self.console: list[str] = []
        page.add_init_script(WATCH)
        page.on("console", self._console)

    def _console(self, message) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.console.append(f"{self.page.url}: {message.text}")

    def visit(self, url: str) -> None:
        response = self.page.goto(url)
        assert response is not None and response.status == 200, url
        self.page.wait_for_load_state("networkidle")
        self.check(url)

    def check(self, where: str, allowed: str = "") -> None:
        """No violation since the last check, but for one `allowed` (a blocked address)."""
        events = self.page.evaluate("window.__violations.splice(0)")
        found = [*events, *self.console]
        complaints = [text for text in found if not allowed or allowed not in text]
        self.console.clear()
        assert complaints == [], f"{where}: {complaints}"


@pytest.mark.django_db(transaction=True)
def test_no_page_reports_a_csp_violation(live_server, browser_page, django_user_model):  # noqa: F811
    tenant = make_tenant(name="Agro CSP SRL")
    make_user(tenant, username="ana", role="ADMIN")
    django_user_model.objects.create_superuser("root", "root@example.com", "pw-for-tests-1")
    phone = make_phone(tenant, label="Telefon 1")
    lead = make_lead(tenant, name="Ferma Verde SRL", contact_name="Ion Pop")
    make_message(lead, phone=phone, status="SENT", quota_cost=1)
    inbound = make_message(
        lead, direction="IN", status="RECEIVED", idempotency_key=None, body="Da, sunt interesat."
    )
    review.open_item(
        lead,
        reason="sentiment 80, intent meeting_request: needs approval",
        priority="MEDIUM",
        message=inbound,
        kind=ReviewItem.Kind.APPROVAL,
        sentiment=80,
        intent="meeting_request",
        draft="Bună ziua! Vă sun mâine la 10.",
    )
    sequence = make_sequence(tenant)
    template = make_template(tenant)
    page = browser_page
    seen = Violations(page)
    base = live_server.url

    seen.visit(f"{base}/login/")
    seen.visit(f"{base}/password-reset/")
    log_in(page, base, "ana")
    seen.check("after signing in")

    seen.visit(f"{base}/outreach/dashboard/")
    page.evaluate(  # the 15-second refresh, now: an htmx swap brings the quota bars again
        "htmx.ajax('GET', '/outreach/dashboard/partial/', "
        "{target: '#dashboard-stats', swap: 'innerHTML'})"
    )
    page.wait_for_load_state("networkidle")
    assert page.locator("#dashboard-stats svg.bar rect").first.get_attribute("width") is not None
    seen.check("dashboard after its htmx refresh")

    seen.visit(f"{base}/outreach/analytics/")
    for chart in ("chart-replies", "chart-positive", "chart-sent"):
        page.wait_for_function(f"() => !!Chart.getChart('{chart}')")
    seen.check("analytics with its charts drawn")

    seen.visit(f"{base}/outreach/review/")
    page.keyboard.press("j")
    page.keyboard.press("a")  # review.js: one key approves the draft, answered by htmx
    page.locator("#review-status").get_by_text("is queued").wait_for()
    assert ReviewItem.objects.get().status == "RESOLVED"
    seen.check("review queue after an htmx approval")

    seen.visit(f"{base}/outreach/templates/{template.pk}/")
    page.locator("textarea[name$=body]").first.fill("Bună ziua, {{company_name}}!")
    page.locator(".preview-box").first.get_by_text("Bună ziua").first.wait_for()
    seen.check("template preview after its htmx swap")

    pages = [
        "/outreach/leads/",
        f"/outreach/leads/{lead.pk}/",
        "/outreach/phones/",
        "/outreach/phones/add/",
        "/outreach/sequences/",
        f"/outreach/sequences/{sequence.pk}/",
        "/outreach/templates/",
        "/outreach/campaigns/",
        "/outreach/alerts/",
        "/outreach/alerts/channels/",
        "/outreach/webhooks/",
        "/outreach/api-keys/",
        "/outreach/settings/sending/",
        "/outreach/settings/review/",
        "/outreach/queues/",
        "/outreach/dead-letters/",
    ]
    for path in pages:
        seen.visit(f"{base}{path}")
    page.screenshot(path=str(SHOTS / "csp_dead_letters.png"), full_page=True)

    seen.visit(f"{base}/api/v1/leads/")  # DRF's browsable API, with the session
    assert page.get_by_text("Ferma Verde SRL").first.is_visible()

    page.goto(f"{base}/api/docs/")
    page.locator(".opblock").first.wait_for()
    assert page.locator(".opblock-summary-path", has_text="/api/v1/leads/").count() > 0
    seen.check("Swagger UI")
    page.goto(f"{base}/api/redoc/")
    page.get_by_text("Cerniq Outreach API").first.wait_for()
    page.wait_for_load_state("networkidle")
    # Redoc's "API docs by Redocly" footer shows a logo from Redocly's CDN: refused (nothing
    # loads from elsewhere), and Redoc hides the image when it does not load.
    seen.check("Redoc", allowed="https://cdn.redoc.ly/redoc/logo-mini.svg")

    admin = page.context.browser.new_page()  # its own cookies: the superuser signs in
    admin_seen = Violations(admin)
    admin.goto(f"{base}/admin/login/")
    admin.fill("input[name=username]", "root")
    admin.fill("input[name=password]", "pw-for-tests-1")
    admin.locator("input[type=submit]").click()
    admin.wait_for_url("**/admin/")
    root = django_user_model.objects.get(username="root")
    for path in [
        "/admin/",
        "/admin/auth/user/",
        f"/admin/auth/user/{root.pk}/change/",
        "/admin/axes/accessattempt/",
        "/admin/cerniq/tenant/",
    ]:
        admin_seen.visit(f"{base}{path}")
    admin.close()
