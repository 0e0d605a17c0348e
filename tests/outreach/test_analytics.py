"""Analytics: the daily roll-up (outreach.analytics), `rollup_stats`, the analytics page."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from io import StringIO
from pathlib import Path

import pytest
import time_machine
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from outreach.analytics import analytics_report, rollup_day, rollup_range
from outreach.models import (
    Channel,
    DailyStats,
    Message,
    Sequence,
    SequenceStep,
    TemplateDailyStats,
    TemplateVersion,
)
from tests.factories import make_lead, make_message, make_phone, make_template

pytestmark = pytest.mark.django_db

DAY = date(2026, 11, 18)  # a Wednesday; Bucharest is UTC+2 then
NOON = datetime(2026, 11, 18, 10, 0, tzinfo=UTC)


def at(hour: int, minute: int = 0, day: date = DAY) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)


def sent(lead, *, when: datetime, version=None, phone=None, cost: int = 0, **kw) -> Message:
    return make_message(
        lead,
        phone=phone,
        status=kw.pop("status", Message.Status.SENT),
        quota_cost=cost,
        sent_at=when,
        template_version=version,
        **kw,
    )


def reply(lead, *, when: datetime, phone=None, analysis=None, **kw) -> Message:
    message = make_message(
        lead,
        phone=phone,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        idempotency_key=None,
        analysis=analysis,
        **kw,
    )
    Message.objects.filter(pk=message.pk).update(created_at=when)
    message.created_at = when
    return message


def triage(sentiment: int, intent: str = "question") -> dict:
    return {"triage": {"sentiment": sentiment, "intent": intent}, "decision": "review"}


def row(tenant, channel, phone=None, day=DAY) -> DailyStats:
    return DailyStats.objects.get(tenant=tenant, day=day, channel=channel, phone=phone)


def tds(version, day=DAY) -> TemplateDailyStats:
    return TemplateDailyStats.objects.get(template_version=version, day=day)


@pytest.fixture
def world(tenant, other_tenant):
    """A known day of messages; the expected counts are spelled out in the tests."""
    phone1 = make_phone(tenant, number="+40740000001", label="Telefon A")
    phone2 = make_phone(tenant, number="+40740000002", label="Telefon B")
    wa = make_template(tenant, name="Prima atingere")
    v1 = wa.versions.get()
    v2 = TemplateVersion.objects.create(tenant=tenant, template=wa, version=2, body="Salut!")
    email = make_template(tenant, name="Email rece", channel=Channel.EMAIL_COLD)
    ev1 = email.versions.get()
    TemplateVersion.objects.filter(tenant=tenant).update(sent_count=10)
    sequence = Sequence.objects.create(tenant=tenant, name="Email")
    step1 = SequenceStep.objects.create(
        tenant=tenant, sequence=sequence, position=1, channel=Channel.EMAIL_COLD, template=email
    )
    wa_sequence = Sequence.objects.create(tenant=tenant, name="WhatsApp")
    later = SequenceStep.objects.create(
        tenant=tenant, sequence=wa_sequence, position=2, channel=Channel.WHATSAPP, template=wa
    )  # a follow-up is a later step of a sequence
    a, b, c, d, e = (make_lead(tenant) for _ in range(5))

    # a: a first contact with v1, then a positive reply -> v1.
    sent(a, when=at(8), version=v1, phone=phone1, cost=1)
    reply(a, when=at(11), phone=phone1, analysis=triage(80, "interested"))
    # b: first contact with v2, a follow-up with v1, a manual message, a negative reply:
    # the reply goes to v1 (the last automated message), not v2 and not the manual one.
    sent(b, when=at(7), version=v2, phone=phone1, cost=1)
    sent(b, when=at(9), version=v1, phone=phone1, cost=0, step=later)
    sent(b, when=at(10), phone=phone1, is_manual=True, idempotency_key=None)
    reply(b, when=at(12), phone=phone1, analysis=triage(-20, "not_interested"))
    # c: on phone2, 23:30 local (counts today) and 00:30 local next day (does not).
    sent(c, when=at(21, 30), version=v2, phone=phone2, cost=1)
    sent(c, when=at(22, 30), version=v2, phone=phone2, cost=0, step=later)
    # d: cold email, first step; an "interested" reply with low sentiment is positive.
    sent(d, when=at(9), version=ev1, channel=Channel.EMAIL_COLD, step=step1, counterpart="x@y.ro")
    reply(d, when=at(14), channel=Channel.EMAIL_COLD, analysis=triage(30, "interested"))
    # e: contacted yesterday with v2 (not counted today); opts out today (reply for v2).
    sent(e, when=at(9, day=DAY - timedelta(days=1)), version=v2, phone=phone1, cost=1)
    reply(e, when=at(15), phone=phone1, analysis={"decision": "opt-out (confirmation queued)"})
    # Not sent: failed today, and a queued message.
    make_message(
        a, phone=phone1, status=Message.Status.FAILED, failed_at=at(13), template_version=v1
    )
    make_message(a, phone=phone1, status=Message.Status.QUEUED, template_version=v1)
    # Delivered today: a's first contact.
    Message.objects.filter(lead=a, sent_at=at(8)).update(delivered_at=at(8, 5))

    # Another tenant, same day: never in our rows.
    theirs = make_phone(other_tenant, number="+40749999999")
    their_template = make_template(other_tenant, name="Secretul lor")
    their_lead = make_lead(other_tenant)
    sent(their_lead, when=at(9), version=their_template.versions.get(), phone=theirs, cost=1)
    reply(their_lead, when=at(10), phone=theirs, analysis=triage(90))
    return {
        "phone1": phone1,
        "phone2": phone2,
        "v1": v1,
        "v2": v2,
        "ev1": ev1,
        "theirs": theirs,
        "their_template": their_template,
        "leads": (a, b, c, d, e),
    }


def test_rollup_counts_per_channel(tenant, world):
    counts = rollup_day(tenant, DAY)
    wa = row(tenant, Channel.WHATSAPP)
    # a, b first, b follow-up, b manual, c at 23:30 local.
    assert (wa.sent, wa.new_contacts, wa.follow_ups) == (5, 3, 1)
    assert (wa.replies, wa.positive_replies, wa.opt_outs) == (3, 1, 1)
    assert (wa.failed, wa.delivered, wa.bounces) == (1, 1, 0)
    email = row(tenant, Channel.EMAIL_COLD)
    assert (email.sent, email.new_contacts, email.follow_ups) == (1, 1, 0)
    assert (email.replies, email.positive_replies) == (1, 1)
    assert not DailyStats.objects.filter(tenant=tenant, channel=Channel.EMAIL_WARM).exists()
    assert (counts.sent, counts.replies, counts.positive_replies) == (6, 4, 2)
    assert (counts.channel_rows, counts.phone_rows, counts.template_rows) == (2, 2, 3)


def test_rollup_counts_per_phone(tenant, world):
    rollup_day(tenant, DAY)
    one = row(tenant, Channel.WHATSAPP, world["phone1"])
    assert (one.sent, one.new_contacts, one.follow_ups) == (4, 2, 1)
    assert (one.replies, one.positive_replies, one.opt_outs, one.failed) == (3, 1, 1, 1)
    two = row(tenant, Channel.WHATSAPP, world["phone2"])
    assert (two.sent, two.new_contacts, two.replies) == (1, 1, 0)
    # The email reply has no phone: it only counts in the channel row.
    assert DailyStats.objects.filter(tenant=tenant, day=DAY, phone__isnull=False).count() == 2


def test_rollup_attributes_replies_to_the_last_automated_version(tenant, world):
    rollup_day(tenant, DAY)
    v1, v2, ev1 = tds(world["v1"]), tds(world["v2"]), tds(world["ev1"])
    assert (v1.sent, v1.replies, v1.positive_replies) == (2, 2, 1)  # a's and b's replies
    assert (v2.sent, v2.replies, v2.positive_replies) == (2, 1, 0)  # e's opt-out
    assert (ev1.sent, ev1.replies, ev1.positive_replies) == (1, 1, 1)
    assert v1.channel == Channel.WHATSAPP and ev1.channel == Channel.EMAIL_COLD


def test_reply_before_any_automated_message_is_not_attributed(tenant):
    template = make_template(tenant)
    version = template.versions.get()
    lead = make_lead(tenant)
    reply(lead, when=at(9), analysis=triage(70))
    sent(lead, when=at(10), version=version, cost=1)
    rollup_day(tenant, DAY)
    assert (tds(version).sent, tds(version).replies) == (1, 0)
    assert row(tenant, Channel.WHATSAPP).replies == 1


def test_other_days_and_other_tenants_are_not_counted(tenant, other_tenant, world):
    rollup_day(tenant, DAY)
    assert not DailyStats.objects.filter(tenant=other_tenant).exists()
    assert not DailyStats.objects.filter(phone=world["theirs"]).exists()
    assert not TemplateDailyStats.objects.filter(tenant=other_tenant).exists()
    assert not DailyStats.objects.filter(tenant=tenant).exclude(day=DAY).exists()
    rollup_day(other_tenant, DAY)
    theirs = row(other_tenant, Channel.WHATSAPP)
    assert (theirs.sent, theirs.replies, theirs.positive_replies) == (1, 1, 1)
    assert row(tenant, Channel.WHATSAPP).sent == 5  # unchanged by the other tenant's run


def test_day_boundary_is_the_tenants_local_midnight(tenant, world):
    # c's second message (22:30 UTC = 00:30 in Bucharest) belongs to the next day ...
    rollup_day(tenant, DAY + timedelta(days=1))
    nxt = row(tenant, Channel.WHATSAPP, day=DAY + timedelta(days=1))
    assert (nxt.sent, nxt.follow_ups) == (1, 1)
    # ... and e's message of yesterday 09:00 UTC to yesterday.
    rollup_day(tenant, DAY - timedelta(days=1))
    assert row(tenant, Channel.WHATSAPP, day=DAY - timedelta(days=1)).new_contacts == 1
    # In London the same instants fall on other days: 21:30 and 22:30 UTC are both today.
    tenant.time_zone = "Europe/London"
    tenant.save(update_fields=["time_zone"])
    rollup_day(tenant, DAY)
    assert row(tenant, Channel.WHATSAPP, world["phone2"]).sent == 2


def test_rollup_is_idempotent_and_follows_changes(tenant, world):
    def snapshot() -> list[tuple]:
        daily = DailyStats.objects.filter(tenant=tenant).order_by("channel", "phone_id")
        per_version = TemplateDailyStats.objects.filter(tenant=tenant).order_by("template_version")
        return list(daily.values_list("day", "channel", "phone", "sent", "replies")) + list(
            per_version.values_list("template_version", "sent", "replies", "positive_replies")
        )

    rollup_day(tenant, DAY)
    first = snapshot()
    rollup_day(tenant, DAY)
    assert snapshot() == first
    assert DailyStats.objects.filter(tenant=tenant).count() == 4

    # b's reply is re-triaged as positive; c's phone-2 message is deleted.
    a, b, c, d, e = world["leads"]
    Message.objects.filter(lead=b, direction=Message.Direction.INBOUND).update(
        analysis=triage(90, "interested")
    )
    Message.objects.filter(lead=c).delete()
    rollup_day(tenant, DAY)
    wa = row(tenant, Channel.WHATSAPP)
    assert (wa.sent, wa.positive_replies) == (4, 2)
    assert tds(world["v1"]).positive_replies == 2
    assert tds(world["v2"]).sent == 1
    # phone2 has nothing left that day: its row is gone, not left stale.
    assert not DailyStats.objects.filter(phone=world["phone2"]).exists()


def test_version_totals_are_refreshed_and_capped(tenant, world):
    rollup_range(tenant, DAY - timedelta(days=1), DAY)
    v1, v2 = (
        TemplateVersion.objects.get(pk=world["v1"].pk),
        TemplateVersion.objects.get(pk=world["v2"].pk),
    )
    assert (v1.reply_count, v1.positive_reply_count) == (2, 1)
    assert (v2.reply_count, v2.positive_reply_count) == (1, 0)
    # A counter below the replies (sent_count is the live send counter) caps the totals.
    TemplateVersion.objects.filter(pk=v1.pk).update(
        sent_count=1, reply_count=0, positive_reply_count=0
    )
    rollup_day(tenant, DAY)
    v1.refresh_from_db()
    assert (v1.sent_count, v1.reply_count, v1.positive_reply_count) == (1, 1, 1)
    # A version whose replies disappear drops back to zero.
    TemplateVersion.objects.filter(pk=v1.pk).update(sent_count=10)
    Message.objects.filter(direction=Message.Direction.INBOUND, tenant=tenant).delete()
    rollup_day(tenant, DAY)
    v1.refresh_from_db()
    assert (v1.reply_count, v1.positive_reply_count) == (0, 0)


def test_template_list_shows_the_rolled_up_results(client, operator, tenant, world):
    rollup_day(tenant, DAY)
    client.force_login(operator)
    html = client.get("/outreach/templates/").content.decode()
    v1_row = re.search(rf'<tr data-version="{world["v1"].pk}">(.*?)</tr>', html, re.S).group(1)
    assert "data-sent>10<" in v1_row and "data-replies>2<" in v1_row
    assert "data-positive>1<" in v1_row and "20.0%" in v1_row


def test_rollup_queries_do_not_grow_with_volume(tenant):
    phone = make_phone(tenant)
    version = make_template(tenant).versions.get()

    def queries_for(leads: int, day: date) -> int:
        for _ in range(leads):
            lead = make_lead(tenant)
            sent(lead, when=at(8, day=day), version=version, phone=phone, cost=1)
            reply(lead, when=at(9, day=day), phone=phone, analysis=triage(60))
        with CaptureQueriesContext(connection) as ctx:
            rollup_day(tenant, day)
        return len(ctx.captured_queries)

    assert queries_for(1, DAY) == queries_for(25, DAY + timedelta(days=1))
    assert row(tenant, Channel.WHATSAPP, day=DAY + timedelta(days=1)).replies == 25


# --- the command ------------------------------------------------------------------------


def run(*args: str) -> str:
    out = StringIO()
    call_command("rollup_stats", *args, stdout=out)
    return out.getvalue()


def test_command_defaults_to_yesterday_and_today_for_every_tenant(tenant, other_tenant, world):
    with time_machine.travel(NOON, tick=False):
        output = run()
    for slug in (tenant.slug, other_tenant.slug):
        assert f"{slug} 2026-11-17:" in output and f"{slug} 2026-11-18:" in output
    assert "rolled up 4 tenant-days" in output
    assert row(tenant, Channel.WHATSAPP).sent == 5
    assert row(tenant, Channel.WHATSAPP, day=DAY - timedelta(days=1)).sent == 1
    assert row(other_tenant, Channel.WHATSAPP).replies == 1


def test_command_one_date_and_one_tenant(tenant, other_tenant, world):
    output = run("--date", "2026-11-18", "--tenant", tenant.slug)
    assert f"{tenant.slug} 2026-11-18: 2 channel rows, 2 phone rows, 3 template rows" in output
    assert not DailyStats.objects.filter(tenant=other_tenant).exists()
    assert set(DailyStats.objects.values_list("day", flat=True)) == {DAY}
    output = run("--from", "2026-11-17", "--to", "2026-11-19", "--tenant", str(other_tenant.pk))
    assert "rolled up 3 tenant-days" in output and tenant.slug not in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--date", "2026-13-01"], "not a date"),
        (["--date", "yesterday"], "not a date"),
        (["--from", "2026-11-18", "--to", "2026-11-01"], "before"),
        (["--to", "2026-11-01"], "--to needs --from"),
        (["--date", "2026-11-18", "--from", "2026-11-17"], "either --date"),
        (["--from", "2020-01-01", "--to", "2026-01-01"], "At most 366 days"),
        (["--tenant", "nope"], "Unknown or inactive tenant"),
        (["--tenant", "987654"], "Unknown or inactive tenant"),
    ],
)
def test_command_rejects_bad_arguments(tenant, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert not DailyStats.objects.exists()


def test_scheduler_runs_the_rollup_every_15_minutes():
    assert {"name": "rollup-stats", "cron": "*/15 * * * *", "command": "rollup_stats"} in (
        settings.PERIODIC_JOBS
    )


# --- the page ---------------------------------------------------------------------------

URL = "/outreach/analytics/"
RANGE = {"start": "2026-11-01", "end": "2026-11-30"}


def cell(html: str, table: str, key: str, column: str) -> str:
    body = re.search(rf'data-table="{table}">(.*?)</table>', html, re.S).group(1)
    found = re.search(rf'data-[a-z]+="{re.escape(key)}">(.*?)</tr>', body, re.S)
    assert found, f"no row {key} in {table}"
    value = re.search(rf"data-{column}>([^<]*)<", found.group(1))
    return value.group(1).strip()


def test_anonymous_is_sent_to_login(client):
    response = client.get(URL)
    assert response.status_code == 302 and "/login" in response["Location"]


def test_page_shows_own_tenants_results(client, operator, tenant, other_tenant, world):
    rollup_range(tenant, DAY - timedelta(days=1), DAY)
    rollup_day(other_tenant, DAY)
    client.force_login(operator)
    response = client.get(URL, RANGE)
    assert response.status_code == 200
    html = response.content.decode()
    assert cell(html, "channels", "WHATSAPP", "sent") == "6"
    assert cell(html, "channels", "WHATSAPP", "replies") == "3"
    assert cell(html, "channels", "EMAIL_COLD", "positive") == "1"
    assert cell(html, "templates", str(world["v1"].pk), "replies") == "2"
    assert cell(html, "phones", world["phone1"].number, "sent") == "5"
    assert "Prima atingere" in html and "Telefon A" in html
    # The other tenant's phone and template are not on the page.
    assert world["theirs"].number not in html and "Secretul lor" not in html
    # The charts: vendored Chart.js, data via json_script, no CDN.
    assert 'id="analytics-data"' in html and "vendor/chart.umd.min.js" in html
    assert "js/analytics.js" in html and "cdn" not in html.lower()
    assert '"days": ["2026-11-01"' in html


def test_page_defaults_to_the_last_30_days(client, operator, tenant, world):
    rollup_day(tenant, DAY)
    with time_machine.travel(NOON, tick=False):  # signed in that day too: sessions expire
        client.force_login(operator)
        response = client.get(URL)
    assert response.status_code == 200
    report = response.context["report"]
    assert (report.start, report.end) == (DAY - timedelta(days=29), DAY)
    assert len(report.days) == 30
    html = response.content.decode()
    assert 'value="2026-10-20"' in html and 'value="2026-11-18"' in html
    assert cell(html, "channels", "WHATSAPP", "replies") == "3"


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"start": "2026-11-30", "end": "2026-11-01"}, "The end date is before the start date."),
        ({"start": "2024-01-01", "end": "2026-11-01"}, "Choose a range of at most 366 days."),
        ({"start": "2026-02-30", "end": "2026-03-01"}, "Enter a valid date."),
        ({"start": "soon", "end": ""}, "Enter a valid date."),
    ],
)
def test_bad_range_shows_a_form_error(client, operator, tenant, params, error):
    client.force_login(operator)
    response = client.get(URL, params)
    assert response.status_code == 200
    html = response.content.decode()
    assert "data-form-errors" in html and error in html
    assert response.context["report"] is None and 'data-table="channels"' not in html


def test_nav_links_to_the_page(client, operator):
    client.force_login(operator)
    html = client.get("/outreach/dashboard/").content.decode()
    assert 'href="/outreach/analytics/"' in html
    assert 'class="active">Analytics<' in client.get(URL).content.decode()


def test_page_in_romanian_still_renders(client, operator):
    client.force_login(operator)
    response = client.get(
        URL, {"start": "2026-11-01", "end": "2026-11-02"}, HTTP_ACCEPT_LANGUAGE="ro"
    )
    assert response.status_code == 200


def test_page_queries_do_not_grow_with_range_or_rows(client, operator, tenant):
    phones = [make_phone(tenant) for _ in range(4)]
    versions = [make_template(tenant).versions.get() for _ in range(4)]

    def fill(days: int) -> None:
        for n in range(days):
            day = DAY - timedelta(days=n)
            for channel in (Channel.WHATSAPP, Channel.EMAIL_COLD):
                DailyStats.objects.get_or_create(
                    tenant=tenant,
                    day=day,
                    channel=channel,
                    phone=None,
                    defaults={"sent": 10, "replies": 3, "positive_replies": 1},
                )
            for phone in phones:
                DailyStats.objects.get_or_create(
                    tenant=tenant,
                    day=day,
                    channel=Channel.WHATSAPP,
                    phone=phone,
                    defaults={"sent": 5, "replies": 1},
                )
            for version in versions:
                TemplateDailyStats.objects.get_or_create(
                    tenant=tenant,
                    day=day,
                    template_version=version,
                    defaults={"channel": Channel.WHATSAPP, "sent": 5, "replies": 2},
                )

    client.force_login(operator)

    def queries(days: int) -> int:
        fill(days)
        start = (DAY - timedelta(days=days - 1)).isoformat()
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(URL, {"start": start, "end": DAY.isoformat()})
        assert response.status_code == 200
        return len(ctx.captured_queries)

    few, many = queries(2), queries(30)
    assert few == many
    report = analytics_report(tenant, DAY - timedelta(days=29), DAY)
    assert sum(report.channels[0].replies) == 90
    assert {row.sent for row in report.phones} == {150}


def test_vendored_chart_library_is_served_locally():
    vendor = Path(settings.BASE_DIR) / "static" / "vendor"
    library = (vendor / "chart.umd.min.js").read_text()
    assert library.startswith("/*!\n * Chart.js v4") and "sourceMappingURL" not in library
    assert "MIT License" in (vendor / "chart.js.LICENSE.md").read_text()


def test_the_page_shows_each_campaigns_results_in_the_range(client, operator, tenant):
    from email_channels.models import CampaignDailyStats, EmailCampaign
    from tests.factories import make_tenant

    client.force_login(operator)
    campaign = EmailCampaign.objects.create(tenant=tenant, name="Ferme Iași", external_id="c1")
    for day, sent, replied, bounced in (
        (date(2026, 10, 6), 40, 3, 1),
        (date(2026, 10, 7), 60, 2, 0),
    ):
        CampaignDailyStats.objects.create(
            tenant=tenant, campaign=campaign, day=day, sent=sent, replied=replied, bounced=bounced
        )
    CampaignDailyStats.objects.create(  # outside the range
        tenant=tenant, campaign=campaign, day=date(2026, 9, 1), sent=999
    )
    other = EmailCampaign.objects.create(tenant=make_tenant(), name="Alt client", external_id="o")
    CampaignDailyStats.objects.create(
        tenant=other.tenant, campaign=other, day=date(2026, 10, 6), sent=5
    )
    page = client.get("/outreach/analytics/?start=2026-10-01&end=2026-10-31").content.decode()
    row = page.split(f'data-campaign="{campaign.pk}"')[1].split("</tr>")[0]
    cells = [c.split(">")[-1] for c in row.split("</td>")[:-1]]
    assert cells == ["Ferme Iași", "100", "0", "5", "0", "1", "0", "5.0%", "1.0%"]
    assert "Alt client" not in page


def test_an_opt_out_through_the_reply_path_is_counted(tenant):
    """The figure follows what the reply path stores (a reason code), not an old text."""
    from hitl.replies import process_reply

    phone = make_phone(tenant)
    lead = make_lead(tenant)
    moment = datetime(2026, 11, 18, 10, 0, tzinfo=UTC)
    with time_machine.travel(moment, tick=False):
        stop = make_message(
            lead,
            phone=phone,
            direction=Message.Direction.INBOUND,
            status=Message.Status.RECEIVED,
            idempotency_key=None,
            body="STOP, nu mai scrieți",
        )
        process_reply(lead, stop)
        rollup_day(tenant, moment.date())
    row = DailyStats.objects.get(tenant=tenant, day=moment.date(), phone=phone)
    assert (row.replies, row.opt_outs, row.positive_replies) == (1, 1, 0)
