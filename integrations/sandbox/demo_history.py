"""Sixty days of demo history, written through the real models, services and rollup.

A demo that starts empty shows empty charts. `seed_history` gives the demo tenant a past:
20 phones ramping up, first messages and follow-ups on WhatsApp, cold emails, replies of
every intent, opt-outs, review items worked and left open, stage moves, an A/B template
result, a banned phone, a paused campaign; then the daily rollup of every one of those days,
so the dashboard's figures are counted from the messages like any other day's.

How the rows are made (docs/demo.md):
- the outbound sends (a couple of thousand) are bulk-created: the real send path is one
  worker task per message, far too slow for a seed. Each row is what dispatch builds
  (the same idempotency key, version choice, spintax render) and what recording writes
  once the provider took it (SENT, sent_at, provider id), plus the delivery and read
  times a provider that reports them would add; the stage move of a first contact is the
  StageTransition row recording writes;
- everything else goes through the real services at the moment it happens, with Django's
  clock replayed to that moment (`replayed_clock`): replies (stored as the webhooks store
  them, then hitl.replies and the triage job), opt-outs, review items, their assignment and
  resolution, stage moves, the phone's ban and reactivation, the campaign's pause.
"""

from __future__ import annotations

import random
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from unittest import mock

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from cerniq import alerts, integrations
from cerniq.models import Alert, Tenant
from email_channels import campaigns
from email_channels.models import EmailCampaign
from hitl import review, triage_jobs
from hitl.models import ReviewItem
from hitl.replies import process_reply, receive_email_reply
from integrations.sandbox import demo_history_rows as rows
from integrations.sandbox import demo_texts
from outreach import spintax
from outreach.analytics import rollup_range
from outreach.demo import DEMO_SEQUENCES, company_rows
from outreach.hours import SendingWindow
from outreach.importing import import_rows
from outreach.manual import SendRefused, send_manual
from outreach.models import (
    Channel,
    Lead,
    Message,
    SequenceStep,
    Stage,
    TemplateVersion,
)
from outreach.template_versions import VersionSpec, save_versions
from whatsapp import phones as phone_states
from whatsapp.models import Phone

HISTORY_DAYS = 60
HISTORY_COMPANIES = 1500
HISTORY_SOURCE = "demo-history"  # the history's leads: their messages mark it as seeded
# Review items older than this are all worked by the end of the history.
LEFT_OPEN_WITHIN = timedelta(days=5)
SEED = 1960
OFFICE_HOURS = (time(9, 0), time(17, 30))  # when the history's people work, Monday to Friday
REPLY_RATES = {1: 0.06, 2: 0.11}  # first WhatsApp message, by template version number
FOLLOW_UP_REPLY_RATE = 0.04
COLD_EMAIL_REPLY_RATE = 0.03
BOUNCE_RATE = 0.03
BANNED_PHONE, BAN_DAYS = 7, (18, 21)  # index of the phone; working-day indexes out
PAUSED_PHONE, PAUSE_DAYS = 13, (30, 31)


@contextmanager
def replayed_clock(at: datetime) -> Iterator[None]:
    """Django's clock (`timezone.now`, which every service and `auto_now` reads) at `at`."""
    with mock.patch.object(timezone, "now", lambda: at):
        yield


def history_seeded(tenant: Tenant) -> bool:
    return Message.objects.filter(tenant=tenant, lead__source=HISTORY_SOURCE).exists()


@dataclass
class HistoryResult:
    days: int = 0
    sent: Counter = field(default_factory=Counter)
    replies: Counter = field(default_factory=Counter)
    review_items: Counter = field(default_factory=Counter)
    skipped: bool = False

    def summary(self) -> str:
        if self.skipped:
            return "history already seeded, left as it is"

        def listed(counts: Counter) -> str:
            return ", ".join(f"{key} {n}" for key, n in sorted(counts.items())) or "none"

        return (
            f"{self.days} days: sent {listed(self.sent)}; replies {listed(self.replies)}; "
            f"review items {listed(self.review_items)}"
        )


@dataclass
class _Send:
    lead: Lead
    step: SequenceStep
    channel: str
    at: datetime
    phone: Phone | None = None
    version: TemplateVersion | None = None


class _History:
    def __init__(self, tenant: Tenant, now: datetime, days: int) -> None:
        self.tenant, self.now, self.rng = tenant, now, random.Random(SEED)  # noqa: S311 - a demo
        real = SendingWindow.for_tenant(tenant)
        self.business = SendingWindow(real.tz, *OFFICE_HOURS, frozenset(range(5)), "RO")
        self.today = self.business.local_date(now)
        self.first_day = self.today - timedelta(days=days)
        self.result = HistoryResult(days=days)
        self.phones = list(Phone.objects.filter(tenant=tenant).order_by("number"))
        self.operator = User.objects.filter(username="operator").first()
        self.admin = User.objects.filter(username="admin").first()
        wa, email = (tenant.sequences.get(name=plan["name"]) for plan in DEMO_SEQUENCES[:2])
        self.wa_steps = list(wa.steps.filter(sequence_version=wa.version).order_by("position"))
        self.email_step = email.steps.filter(sequence_version=email.version).first()

    # --- the calendar ------------------------------------------------------------------
    def working_days(self) -> list[date]:
        """Working days of the history (and a few Saturday mornings on the farm)."""
        days, day = [], self.first_day
        while day < self.today:
            if self.business.is_working_day(day) or (
                day.weekday() == 5 and self.rng.random() < 0.3
            ):
                days.append(day)
            day += timedelta(days=1)
        return days

    def moment(self, day: date, earliest: time = time(9, 0)) -> datetime:
        """A plausible instant of a working day: office hours, Saturdays until noon."""
        latest = 12 * 60 if day.weekday() == 5 else 17 * 60 + 20
        first = earliest.hour * 60 + earliest.minute
        minute = self.rng.randint(min(first, latest - 10), latest)
        wall = time(minute // 60, minute % 60, self.rng.randint(0, 59))
        return datetime.combine(day, wall, tzinfo=self.business.tz)

    def later(self, at: datetime, low_h: float, high_h: float) -> datetime:
        """An instant `low_h`..`high_h` hours after `at`, moved into office hours."""
        moment = at + timedelta(hours=self.rng.uniform(low_h, high_h))
        local = moment.astimezone(self.business.tz)
        if self.business.is_open(moment):
            return local
        opening = self.business.next_opening(moment)
        return opening + timedelta(minutes=self.rng.randint(5, 150))

    # --- the plan of sends -------------------------------------------------------------
    def plan_sends(self, leads: list[Lead], days: list[date]) -> list[_Send]:
        """First contacts per phone and day (phones join over the first weeks and ramp up,
        like numbers in warm-up), follow-ups two working days later, cold emails."""
        wa_leads = [lead for lead in leads if lead.phone and lead.phone_reachable]
        email_leads = [lead for lead in leads if not lead.phone_reachable and lead.email]
        versions = list(
            TemplateVersion.objects.filter(
                template=self.wa_steps[0].template, is_active=True
            ).order_by("version")
        )
        sends: list[_Send] = []
        for index, day in enumerate(days):
            # Spread the leads over the whole history: never more than its share today.
            cap = -(-len(wa_leads) // (len(days) - index))
            for k, phone in enumerate(self.phones):
                joined = 0 if k < 4 else (k - 4) // 2 * 3
                if index < joined or self._phone_out(k, index):
                    continue
                per_day = 1 + ((index - joined) >= 6) + ((index - joined) >= 16)
                if day.weekday() == 5:
                    per_day = 1
                for _ in range(per_day):
                    if not wa_leads or cap <= 0:
                        break
                    cap -= 1
                    lead = wa_leads.pop()
                    step = self.wa_steps[0]
                    seed = f"{lead.pk}:{step.pk}"
                    version = versions[spintax.choose_version([v.weight for v in versions], seed)]
                    at = self.moment(day)
                    sends.append(_Send(lead, step, Channel.WHATSAPP, at, phone, version))
                    follow = self.business.add_delay(at, 2, "WORKING_DAYS")
                    if follow < self.now and len(self.wa_steps) > 1:
                        second = self.wa_steps[1]
                        sends.append(_Send(lead, second, Channel.WHATSAPP, follow, phone))
            cold = 3 + index // 6 if day.weekday() < 5 else 0
            for _ in range(cold):
                if email_leads and self.email_step:
                    lead, at = email_leads.pop(), self.moment(day)
                    sends.append(_Send(lead, self.email_step, Channel.EMAIL_COLD, at))
        return sends

    def _phone_out(self, k: int, index: int) -> bool:
        return (k == BANNED_PHONE and BAN_DAYS[0] <= index < BAN_DAYS[1]) or (
            k == PAUSED_PHONE and PAUSE_DAYS[0] <= index <= PAUSE_DAYS[1]
        )

    def choose_replies(self, sends: list[_Send]) -> list[tuple[_Send, datetime, str]]:
        """Which sends draw a reply, when, and what it says; a lead answers once, and a
        lead who answered the first message gets no follow-up (removed from `sends`)."""
        weights = {intent: weight for intent, (weight, _) in demo_texts.REPLIES.items()}
        replied: dict[int, datetime] = {}
        chosen = []
        for send in sorted(sends, key=lambda s: s.at):
            if send.lead.pk in replied:
                send.lead = None  # type: ignore[assignment]  # answered before: not sent
                continue
            if send.channel == Channel.EMAIL_COLD:
                rate = COLD_EMAIL_REPLY_RATE
            elif send.step.position == 1 and send.version:
                rate = REPLY_RATES.get(send.version.version, REPLY_RATES[1])
            else:
                rate = FOLLOW_UP_REPLY_RATE
            if self.rng.random() >= rate:
                continue
            at = self.later(send.at, 0.2, 30)
            if at >= self.now - timedelta(minutes=30):
                continue
            intent = self.rng.choices(list(weights), weights=list(weights.values()))[0]
            if send.channel == Channel.EMAIL_COLD and intent == "meeting_request":
                intent = "out_of_office"  # cold email replies: office inboxes
            replied[send.lead.pk] = at
            chosen.append((send, at, self.rng.choice(demo_texts.REPLIES[intent][1])))
        sends[:] = [s for s in sends if s.lead is not None]
        return chosen

    # --- writing -----------------------------------------------------------------------
    def add_version_b(self) -> None:
        """The A/B test: a B version of the first WhatsApp message, as the editor saves it."""
        template = self.wa_steps[0].template
        if template.versions.filter(body=demo_texts.FIRST_MESSAGE_B).exists():
            return
        specs = [
            VersionSpec(body=v.body, subject=v.subject, weight=v.weight, id=v.pk)
            for v in template.versions.filter(is_active=True).order_by("version")
        ]
        at = datetime.combine(self.first_day, time(8, 40), tzinfo=self.business.tz)
        with replayed_clock(at):
            save_versions(template, [*specs, VersionSpec(body=demo_texts.FIRST_MESSAGE_B)])

    def reply(self, send: _Send, at: datetime, text: str) -> None:
        """A lead's reply, stored as the provider's webhook stores it, then the real reply
        path: opt-out or hold at once, the triage job a few seconds later."""
        lead = send.lead
        with replayed_clock(at):
            if send.channel == Channel.WHATSAPP:
                first = Message.objects.filter(lead=lead, channel=Channel.WHATSAPP).first()
                message = Message.objects.create(
                    tenant=self.tenant,
                    lead=lead,
                    channel=Channel.WHATSAPP,
                    body=text,
                    phone=send.phone,
                    provider_message_id=str(uuid.UUID(int=self.rng.getrandbits(128))),
                    provider_thread_id=first.provider_thread_id if first else "",
                    sent_at=at,
                    direction=Message.Direction.INBOUND,
                    status=Message.Status.RECEIVED,
                    counterpart=lead.phone,
                    raw_response={"attachments": [], "origin": "WhatsApp"},
                )
                process_reply(lead, message)
            else:
                subject = Message.objects.filter(lead=lead).values_list("subject", flat=True)[0]
                found = receive_email_reply(
                    self.tenant,
                    channel=send.channel,
                    email=lead.email,
                    text=text,
                    provider_message_id=f"<{uuid.UUID(int=self.rng.getrandbits(128))}@mail.ro>",
                    subject=f"Re: {subject}",
                    sent_at=at,
                    lead=lead,
                )
                if found is None:
                    return
                message = found
        with replayed_clock(at + timedelta(seconds=self.rng.randint(2, 12))):
            triage_jobs.run(message.pk)
        self.result.replies[str(send.channel)] += 1

    def work_the_queue(self) -> None:
        """Operators take review items, answer and close most of them within a day or
        two; of the last few days' items some stay open (some assigned, some past their
        SLA). Nothing older is left waiting: a team that lets a reply wait for weeks is
        not what the demo should show ("waiting 1,300 h" on a fresh dashboard)."""
        people = [user for user in (self.operator, self.admin) if user is not None]
        if not people:
            return
        items = list(
            ReviewItem.objects.filter(
                tenant=self.tenant,
                lead__source=HISTORY_SOURCE,
                status__in=[ReviewItem.Status.OPEN, ReviewItem.Status.ASSIGNED],
            ).order_by("created_at", "pk")
        )
        # The queue shows a late item and one being worked on whatever the rolls give: the
        # oldest two of the last days (past their SLA by now).
        recent = [
            i.pk for i in items if timedelta(hours=6) <= self.now - i.created_at < LEFT_OPEN_WITHIN
        ]
        late, in_progress = (recent + [None, None])[:2]
        for item in items:
            if self.now - item.created_at < timedelta(hours=6):
                continue  # fresh: nobody has looked yet
            roll, user = self.rng.random(), self.rng.choice(people)
            is_recent = item.pk in recent
            if item.pk == late or (is_recent and roll > 0.88):
                continue  # nobody took it: past its SLA by now
            taken = self.later(item.created_at, 0.2, 4)
            if taken >= self.now:
                continue
            with replayed_clock(taken):
                item = review.assign(item, user)
            done = self.later(taken, 0.3, 20)
            if item.pk == in_progress or (is_recent and roll > 0.72) or done >= self.now:
                continue  # assigned, still being worked on
            self.resolve(item, user, done)
        self.one_in_progress(recent, people)

    def one_in_progress(self, recent: list[int], people: list[User]) -> None:
        """Whatever the rolls gave (and resolving another item of the same lead can close
        the chosen one), the queue shows an item being worked on: when none of the last
        days' items is assigned, the newest still open is taken."""
        last_days = ReviewItem.objects.filter(pk__in=recent)
        if last_days.filter(status=ReviewItem.Status.ASSIGNED).exists():
            return
        item = (
            last_days.filter(status=ReviewItem.Status.OPEN).order_by("-created_at", "-pk").first()
        )
        if item is None:
            return
        taken = min(self.later(item.created_at, 0.2, 4), self.now - timedelta(minutes=5))
        with replayed_clock(taken):
            review.assign(item, self.rng.choice(people))

    def resolve(self, item: ReviewItem, user: User, at: datetime) -> None:
        if item.ai_draft.strip() and self.rng.random() < 0.6 and self.answer(item, user, at):
            if item.intent in ("interested", "price_request") and item.lead.email:
                self.warm_email(item.lead, user, self.later(at, 0.1, 2))  # the offer follows
            return
        stage, note = None, self.rng.choice(demo_texts.RESOLUTIONS)
        if item.intent in ("interested", "meeting_request", "price_request"):
            stage = self.rng.choice([Stage.NEGOTIATION, Stage.NEGOTIATION, Stage.CONVERTED, None])
        with replayed_clock(at):
            try:
                review.resolve(item, user, stage=stage, note=note)
            except review.ReviewError:
                review.resolve(item, user, note=note)
        if stage == Stage.NEGOTIATION and item.lead.email:
            self.warm_email(item.lead, user, self.later(at, 0.1, 2))

    def tidy_alerts(self) -> None:
        """A team acknowledges and closes its alerts within hours: only the last day's stay
        open on the bell, as they would in a workspace people use."""
        people = [user for user in (self.operator, self.admin) if user is not None]
        if not people:
            return
        old = Alert.objects.filter(
            tenant=self.tenant,
            resolved_at__isnull=True,
            last_seen_at__lt=self.now - timedelta(days=1),
        ).order_by("pk")
        for alert in old:
            user = self.rng.choice(people)
            seen = min(self.later(alert.last_seen_at, 0.1, 3), self.now)
            alerts.acknowledge(Alert.objects.filter(pk=alert.pk), user, now=seen)
            alerts.resolve_by_hand(Alert.objects.filter(pk=alert.pk), user, now=seen)

    def answer(self, item: ReviewItem, user: User, at: datetime) -> bool:
        """The operator approves the AI draft (the queue's one key): the answer goes out on
        the reply's channel and the item is resolved, so response times have answers."""
        with replayed_clock(at):
            try:
                message = review.approve_draft(item, user)
            except review.ReviewError:
                return False
        rows.mark_sent(message, at + timedelta(seconds=self.rng.randint(5, 60)), self.rng)
        return True

    def warm_email(self, lead: Lead, user: User, at: datetime) -> None:
        """The operator follows a conversation with an offer by (warm) email."""
        if at >= self.now - timedelta(minutes=5):
            return  # it would go out after today's history ends (a weekend, holidays)
        values = {"company": lead.name, "locality": lead.locality or lead.county}
        with replayed_clock(at):
            try:
                message = send_manual(
                    lead,
                    demo_texts.WARM_EMAIL_BODY.format(**values),
                    user=user,
                    channel=Channel.EMAIL_WARM,
                    subject=demo_texts.WARM_EMAIL_SUBJECT.format(**values),
                )
            except SendRefused:
                return
        rows.mark_sent(message, at + timedelta(seconds=self.rng.randint(5, 60)), self.rng)

    def incidents(self, days: list[date]) -> None:
        """Telefon 08 banned for three working days, then reactivated (warm-up again);
        Telefon 14 paused by its operator for two days; a cold campaign paused."""
        banned, paused = self.phones[BANNED_PHONE], self.phones[PAUSED_PHONE]
        steps = [
            (
                days[BAN_DAYS[0]],
                time(10, 40),
                lambda: phone_states.mark_offline(banned, demo_texts.BAN_REASON, banned=True),
            ),
            (days[BAN_DAYS[1]], time(9, 5), lambda: phone_states.reactivate(banned)),
            (days[PAUSE_DAYS[0]], time(8, 50), lambda: phone_states.pause(paused)),
            (days[PAUSE_DAYS[1] + 1], time(8, 55), lambda: phone_states.resume(paused)),
        ]
        for day, wall, act in steps:
            with replayed_clock(datetime.combine(day, wall, tzinfo=self.business.tz)):
                act()
        with replayed_clock(datetime.combine(days[2], time(11, 0), tzinfo=self.business.tz)):
            campaign = EmailCampaign.objects.create(
                tenant=self.tenant,
                name=demo_texts.PAUSED_CAMPAIGN,
                provider=integrations.SANDBOX,
                external_id="sandbox-demo-dobrogea",
                sent=180,
                bounced=4,
            )
        with replayed_clock(datetime.combine(days[-6], time(16, 10), tzinfo=self.business.tz)):
            campaigns.pause(campaign, reason=demo_texts.PAUSE_REASON)

    def finish_queued(self) -> None:
        """What the history queued through the real services (opt-out confirmations, warm
        emails) went out a minute later, as the send path would have recorded it."""
        queued = Message.objects.filter(
            tenant=self.tenant,
            lead__source=HISTORY_SOURCE,
            direction=Message.Direction.OUTBOUND,
            status__in=[Message.Status.QUEUED, Message.Status.SENDING],
        )
        for message in queued:
            rows.mark_sent(message, message.created_at + timedelta(seconds=40), self.rng)


def seed_history(
    tenant: Tenant,
    *,
    now: datetime | None = None,
    days: int = HISTORY_DAYS,
    companies: int = HISTORY_COMPANIES,
) -> HistoryResult:
    """Give the demo tenant `days` days of history before `now` (once: a tenant that has
    it already is left alone), then roll those days up."""
    if days <= 0 or history_seeded(tenant):
        return HistoryResult(skipped=True)
    now = now or timezone.now()
    with transaction.atomic():
        history = _History(tenant, now, days)
        calendar = history.working_days()
        start = datetime.combine(history.first_day, time(8, 0), tzinfo=history.business.tz)
        with replayed_clock(start):
            import_rows(
                tenant, company_rows(companies, seed=SEED), source=HISTORY_SOURCE, create_only=True
            )
        leads = list(Lead.objects.filter(tenant=tenant, source=HISTORY_SOURCE).order_by("-pk"))
        history.rng.shuffle(leads)
        history.add_version_b()
        sends = history.plan_sends(leads, calendar)
        replies = history.choose_replies(sends)
        messages = rows.outbound_rows(tenant.pk, sends, history.rng)
        rows.write_sends(tenant.pk, messages)
        for row in messages:
            history.result.sent[str(row.channel)] += 1
        history.incidents(calendar)
        for send, at, text in sorted(replies, key=lambda r: r[1]):
            history.reply(send, at, text)
        history.work_the_queue()
        history.tidy_alerts()
        history.finish_queued()
        rows.recount_versions(tenant.pk)
        rollup_range(tenant, history.first_day, history.today)
        history.result.review_items = Counter(
            ReviewItem.objects.filter(tenant=tenant).values_list("status", flat=True)
        )
    return history.result
