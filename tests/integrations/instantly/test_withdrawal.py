"""Whatever stops automation for a lead withdraws the cold email Instantly still holds for
it: a takeover, a review hold, a pause, a reply on WhatsApp, the company's stop. The lead
is really pushed first (dispatch, then outreach.pushing through InstantlyEmail), and every
Instantly call is answered at the HTTP boundary as Instantly's v2 API answers.

Also: a second withdrawal costs no call, a 5xx is retried by the retry table and a run
past it is said on the lead's page, a 404 is done, a lead Instantly has emailed stays, a
lead wanted again before the withdrawal runs keeps its email, and resuming (a hand-back,
the end of a pause, a closed review) pushes the step again."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import time_machine

from cerniq import reasons
from cerniq.models import Alert
from hitl import review, takeover
from hitl.replies import process_reply
from integrations.instantly import tasks, withdrawal
from outreach import delivery, dispatch, sequences, stages
from outreach.dispatch import dispatch_due
from outreach.models import Channel, Enrollment, Journey, Lead, Message, Priority
from outreach.pushing import push_due
from outreach.reasons import STAGE_PAUSED_BY_OPERATOR, STOP_COMPANY_REPLIED
from tests.factories import make_outreach_world, make_user
from tests.integrations.instantly import instantly_fake as fake
from tests.integrations.instantly.conftest import BASE, api_body
from tests.whatsapp.conftest import MONDAY_10

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("registered")]


@dataclass
class Pushed:
    """A lead whose first cold email Instantly holds (as `instantly_id`)."""

    lead: Lead
    message: Message
    instantly_id: str
    rsps: object
    api_key: str

    @property
    def lead_url(self) -> str:
        return f"{BASE}/api/v2/leads/{self.instantly_id}"

    def holds(self, **fields) -> None:
        """Instantly answers GET with the lead (`fields` over the recorded Lead) and DELETE
        with the deleted Lead."""
        lead = {**api_body("lead_get"), "id": self.instantly_id, "email": self.lead.email}
        self.rsps.get(self.lead_url, json={**lead, **fields})
        self.rsps.delete(self.lead_url, json={**lead, **fields})

    def lead_calls(self) -> list[tuple[str, str]]:
        """(method, path) of every call made about the lead, each checked for our key."""
        found = []
        for call in self.rsps.calls:
            if call.request.url.split("?")[0] == self.lead_url:
                assert call.request.headers["Authorization"] == f"Bearer {self.api_key}"
                found.append((call.request.method, call.request.url.removeprefix(BASE)))
        return found

    def reload(self) -> Message:
        self.message.refresh_from_db()
        return self.message


def _push(tenant) -> None:
    with time_machine.travel(MONDAY_10, tick=False):
        outcome = push_due(tenant.pk)
    assert outcome.sent >= 1


def _dispatch(tenant, django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        dispatch_due(tenant)


@pytest.fixture(params=[2], ids=["two-steps"])
def steps(request) -> int:
    return request.param


@pytest.fixture
def pushed(tenant, settings, api_key, rsps, monkeypatch, django_capture_on_commit_callbacks, steps):
    monkeypatch.setattr(delivery, "plan_push", lambda tenant_id, at=None: None)
    monkeypatch.setattr(dispatch, "plan_push", lambda tenant_id, at=None: None)
    monkeypatch.setattr(tasks.push_interest, "send", lambda *a: None)  # test_interest.py
    settings.INSTANTLY_API_KEY = api_key  # config.client()
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {
            "BACKEND": "integrations.instantly.backend.InstantlyEmail",
            "OPTIONS": {"api_key": api_key, "base_url": BASE, "senders": "vanzari@cerniq-mail.ro"},
        },
    }
    fake.mock_campaign_creation(rsps)
    rsps.add_callback("POST", fake.ADD_URL, callback=fake.leads_add())
    with time_machine.travel(MONDAY_10, tick=False):
        world = make_outreach_world(tenant, leads=1, phones=0, steps=steps, channel="EMAIL_COLD")
        lead = world["leads"][0]
        lead.email, lead.email_status = "ion@agroferma.ro", Lead.EmailStatus.VALID
        lead.save()
        _dispatch(tenant, django_capture_on_commit_callbacks)
        _push(tenant)
        message = Message.objects.get(lead=lead, channel=Channel.EMAIL_COLD)
        assert message.status == Message.Status.SENT
        yield Pushed(lead, message, message.provider_message_id, rsps, api_key)


@pytest.fixture
def queued(monkeypatch):
    """What the hooks queue: withdrawals (our message ids) and opt-out deletions."""
    found: dict[str, list] = {"withdraw": [], "forget": [], "again": []}
    monkeypatch.setattr(tasks.withdraw_push, "send", found["withdraw"].append)
    monkeypatch.setattr(tasks.forget_lead, "send", found["forget"].append)

    def again(*, args, delay):
        found["again"].append((args, delay))

    monkeypatch.setattr(tasks.withdraw_push, "send_with_options", again)
    return found


def operator_of(lead):
    return make_user(lead.tenant, username=f"ana-{lead.pk}")


# --- one test per stopping reason --------------------------------------------------------


def take_over(lead):
    takeover.take_over(lead, operator_of(lead))
    return "a colleague took the conversation over"


def hold_for_review(lead):
    review.open_item(lead, reason="Asks for a price", priority=Priority.HIGH)
    return "the lead is held for human review"


def pause(lead):
    stages.pause(Journey.objects.get(lead=lead), reason=reasons.code(STAGE_PAUSED_BY_OPERATOR))
    return "the lead was paused"


def reply_on_whatsapp(lead):
    inbound = Message.objects.create(
        tenant=lead.tenant,
        lead=lead,
        channel=Channel.WHATSAPP,
        direction=Message.Direction.INBOUND,
        status=Message.Status.RECEIVED,
        body="Bună ziua, ne interesează oferta. Ce preț aveți?",
        counterpart=lead.phone,
    )
    process_reply(lead, inbound)
    return "the lead replied"


def company_stop(lead):
    """What hitl.replies.stop_company does to each other lead of a company that replied."""
    sequences.stop(lead.pk, reasons.code(STOP_COMPANY_REPLIED))
    return "another contact of the company replied"


STOPS = [take_over, hold_for_review, pause, reply_on_whatsapp, company_stop]


@pytest.mark.parametrize("steps", [1, 2], ids=["last-step", "first-of-two"], indirect=True)
@pytest.mark.parametrize("stop", STOPS)
def test_each_stop_withdraws_the_lead_instantly_holds(
    pushed, queued, stop, steps, django_capture_on_commit_callbacks
):
    """Its first step pushed, the sequence waits for its second, or (one step) is
    completed by the push: either way the email Instantly holds must not go."""
    with django_capture_on_commit_callbacks(execute=True):
        why = stop(pushed.lead)
    assert queued["withdraw"] == [pushed.message.pk]  # queued once the stop committed
    pushed.holds()  # Active, never written to
    tasks.withdraw_push.fn(pushed.message.pk)
    path = f"/api/v2/leads/{pushed.instantly_id}"
    assert pushed.lead_calls() == [("GET", path), ("DELETE", path)]
    message = pushed.reload()
    assert message.status == Message.Status.CANCELLED
    campaign = f"Agro Demo · {Enrollment.objects.get(lead=pushed.lead).sequence.name}"
    assert reasons.render(message.error) == (
        f"Withdrawn from Instantly campaign {campaign} before it was sent: {why}"
    )
    assert queued["again"] == []


def test_a_second_withdrawal_of_the_same_lead_costs_no_call(
    pushed, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        take_over(pushed.lead)
        pause(pushed.lead)  # a second stop in the same transaction: one announcement
    assert queued["withdraw"] == [pushed.message.pk]
    with django_capture_on_commit_callbacks(execute=True):
        hold_for_review(pushed.lead)  # a stop of its own before the first ran: queued again
    assert queued["withdraw"] == [pushed.message.pk, pushed.message.pk]
    pushed.holds()
    for message_id in queued["withdraw"]:
        tasks.withdraw_push.fn(message_id)
    assert [method for method, _ in pushed.lead_calls()] == ["GET", "DELETE"]
    with django_capture_on_commit_callbacks(execute=True):
        company_stop(pushed.lead)  # a later stop: nothing is held any more, nothing queued
    assert len(queued["withdraw"]) == 2


def test_a_provider_fault_is_retried_by_the_retry_table(
    pushed, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        take_over(pushed.lead)
    pushed.rsps.get(pushed.lead_url, status=500, json=api_body("error_500"))
    tasks.withdraw_push.fn(pushed.message.pk)
    assert queued["again"] == [((pushed.message.pk, {"unavailable": 1}), 15_000)]
    assert pushed.reload().status == Message.Status.SENT  # not given up, not withdrawn
    pushed.rsps.replace("GET", pushed.lead_url, json={**api_body("lead_get")})
    pushed.rsps.delete(pushed.lead_url, json=api_body("lead_get"))
    (args, _delay) = queued["again"][0]
    tasks.withdraw_push.fn(*args)
    assert [method for method, _ in pushed.lead_calls()] == ["GET", "GET", "DELETE"]
    assert pushed.reload().status == Message.Status.CANCELLED


def test_past_the_retry_table_the_failure_is_said_and_alerted(
    pushed, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        take_over(pushed.lead)
    pushed.rsps.get(pushed.lead_url, status=503, json=api_body("error_500"))
    done = withdrawal.withdraw(pushed.message.pk, {"unavailable": 3})  # 3 retries spent
    assert (done.outcome, done.retry_in) == ("failed", None)
    message = pushed.reload()
    assert message.status == Message.Status.SENT  # Instantly may still send it: not hidden
    said = reasons.render(message.error)
    assert said.startswith("Could not withdraw it from Instantly campaign ")
    assert said.endswith("it may still be sent although a colleague took the conversation over")
    alert = Alert.objects.get(tenant=pushed.lead.tenant, subject="withdrawal:instantly")
    assert alert.message == message.error


@pytest.mark.parametrize("missing", ["GET", "DELETE"])
def test_a_lead_instantly_no_longer_has_is_done(
    pushed, queued, missing, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        pause(pushed.lead)
    gone = {"statusCode": 404, "error": "Not Found", "message": "Lead not found"}
    if missing == "GET":
        pushed.rsps.get(pushed.lead_url, status=404, json=gone)
    else:
        pushed.rsps.get(pushed.lead_url, json=api_body("lead_get"))
        pushed.rsps.delete(pushed.lead_url, status=404, json=gone)
    done = withdrawal.withdraw(pushed.message.pk)
    assert done.outcome == "gone"
    assert [m for m, _ in pushed.lead_calls()] == (
        ["GET"] if missing == "GET" else ["GET", "DELETE"]
    )
    assert pushed.reload().status == Message.Status.CANCELLED


def test_a_lead_instantly_has_emailed_stays_and_is_not_asked_about_again(
    pushed, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        take_over(pushed.lead)
    pushed.holds(timestamp_last_contact="2026-11-23T09:02:11.000Z")
    assert withdrawal.withdraw(pushed.message.pk).outcome == "emailed"
    assert [m for m, _ in pushed.lead_calls()] == ["GET"]  # its thread stays at Instantly
    assert pushed.reload().status == Message.Status.SENT
    with django_capture_on_commit_callbacks(execute=True):
        hold_for_review(pushed.lead)
    assert queued["withdraw"] == [pushed.message.pk]  # the first stop's only


def test_an_emailed_lead_who_opts_out_is_deleted_all_the_same_by_one_actor(
    pushed, queued, django_capture_on_commit_callbacks
):
    from outreach import optout

    with django_capture_on_commit_callbacks(execute=True):
        optout.opt_out(pushed.lead, Channel.WHATSAPP)
    assert (queued["withdraw"], queued["forget"]) == ([pushed.message.pk], [])
    pushed.holds(timestamp_last_contact="2026-11-23T09:02:11.000Z")
    tasks.withdraw_push.fn(pushed.message.pk)
    assert [m for m, _ in pushed.lead_calls()] == ["GET", "DELETE"]
    assert pushed.reload().status == Message.Status.SENT  # it did go out


def test_a_lead_wanted_again_before_the_withdrawal_runs_keeps_its_email(
    pushed, queued, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        hold_for_review(pushed.lead)
    item = review.ReviewItem.objects.get(lead=pushed.lead)
    review.reject(item, operator_of(pushed.lead), "Not a real question")
    assert withdrawal.withdraw(pushed.message.pk).outcome == "wanted"
    assert pushed.lead_calls() == []
    assert pushed.reload().status == Message.Status.SENT


# --- resuming pushes the step again ------------------------------------------------------


def _withdrawn(pushed, queued, stop, callbacks) -> None:
    with callbacks(execute=True):
        stop(pushed.lead)
    pushed.holds()
    for message_id in queued["withdraw"]:
        tasks.withdraw_push.fn(message_id)
    assert pushed.reload().status == Message.Status.CANCELLED


def _pushed_again(pushed, tenant, callbacks) -> Message:
    """Dispatch and push once more: the same step, the same key, a new lead at Instantly."""
    with time_machine.travel(MONDAY_10, tick=False):
        _dispatch(tenant, callbacks)
        _push(tenant)
    again = Message.objects.get(lead=pushed.lead, status=Message.Status.SENT)
    assert again.pk != pushed.message.pk
    assert (again.step_id, again.idempotency_key) == (
        pushed.message.step_id,
        pushed.reload().idempotency_key.split("#")[0],
    )
    adds = fake.calls_to(pushed.rsps, fake.ADD_URL)
    assert len(adds) == 2
    (lead,) = fake.body(adds[-1])["leads"]
    assert lead["custom_variables"]["cerniq_key"] == again.idempotency_key
    return again


@pytest.mark.parametrize("steps", [1, 2], ids=["last-step", "first-of-two"], indirect=True)
def test_a_hand_back_pushes_the_withdrawn_step_again(
    pushed, queued, tenant, steps, django_capture_on_commit_callbacks
):
    _withdrawn(pushed, queued, take_over, django_capture_on_commit_callbacks)
    with time_machine.travel(MONDAY_10, tick=False):
        takeover.hand_back(pushed.lead, Journey.objects.get(lead=pushed.lead).taken_over_by)
    _pushed_again(pushed, tenant, django_capture_on_commit_callbacks)


def test_a_hand_back_without_resuming_pushes_nothing(
    pushed, queued, tenant, django_capture_on_commit_callbacks
):
    _withdrawn(pushed, queued, take_over, django_capture_on_commit_callbacks)
    holder = Journey.objects.get(lead=pushed.lead).taken_over_by
    with time_machine.travel(MONDAY_10, tick=False):
        takeover.hand_back(pushed.lead, holder, resume=False)
        _dispatch(tenant, django_capture_on_commit_callbacks)
    assert not Message.objects.filter(lead=pushed.lead, status=Message.Status.QUEUED).exists()


@pytest.mark.parametrize("steps", [1, 2], ids=["last-step", "first-of-two"], indirect=True)
def test_the_end_of_a_pause_pushes_the_withdrawn_step_again(
    pushed, queued, tenant, steps, django_capture_on_commit_callbacks
):
    _withdrawn(pushed, queued, pause, django_capture_on_commit_callbacks)
    with time_machine.travel(MONDAY_10, tick=False):
        stages.resume(Journey.objects.get(lead=pushed.lead), reason="back")
    _pushed_again(pushed, tenant, django_capture_on_commit_callbacks)


@pytest.mark.parametrize("steps", [1, 2], ids=["last-step", "first-of-two"], indirect=True)
def test_a_closed_review_pushes_the_withdrawn_step_again(
    pushed, queued, tenant, steps, django_capture_on_commit_callbacks
):
    _withdrawn(pushed, queued, hold_for_review, django_capture_on_commit_callbacks)
    with time_machine.travel(MONDAY_10, tick=False):
        _dispatch(tenant, django_capture_on_commit_callbacks)  # held: nothing yet
        assert not Message.objects.filter(status=Message.Status.QUEUED).exists()
        item = review.ReviewItem.objects.get(lead=pushed.lead)
        review.reject(item, operator_of(pushed.lead), "Handled by phone")
    _pushed_again(pushed, tenant, django_capture_on_commit_callbacks)


def test_the_sandbox_has_nothing_to_withdraw(
    pushed, queued, settings, django_capture_on_commit_callbacks
):
    """`make run` pushes cold email into the sandbox: no Instantly call is queued."""
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }
    with django_capture_on_commit_callbacks(execute=True):
        take_over(pushed.lead)
    assert queued["withdraw"] == []
