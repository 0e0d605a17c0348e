"""An opt-out on any channel reaches Instantly (issue #11 §8): a lead we pushed into a
campaign gets a receipt to delete it there, applied once the opt-out commits; a lead
Instantly never had costs no call. (A push Instantly may not have emailed yet is the
withdrawal's: test_withdrawal.py. The receipt's calls and retries: test_erasure.py.)"""

from __future__ import annotations

import pytest

from integrations.instantly import tasks
from outreach import optout
from outreach.automation import EMAILED
from outreach.models import Channel, Lead, Message, Propagation
from tests.factories import make_lead, make_message
from tests.integrations.instantly.conftest import BASE

pytestmark = pytest.mark.usefixtures("registered")
INSTANTLY_LEAD = "019ffad3-aaaa-7bbb-8ccc-ddddeeeeffff"


def pushed_lead(tenant, *, emailed: bool = True):
    """A lead whose cold email was pushed: Instantly knows it as INSTANTLY_LEAD, and has
    emailed it (`emailed`) or may not have yet (then the withdrawal deals with it)."""
    lead = make_lead(tenant, email="ion@agro.ro", email_status=Lead.EmailStatus.VALID)
    make_message(
        lead,
        channel=Channel.EMAIL_COLD,
        status=Message.Status.SENT,
        counterpart=lead.email,
        provider_message_id=INSTANTLY_LEAD,
        raw_response={EMAILED: "2026-10-06T09:02:11.000Z"} if emailed else {},
    )
    return lead


@pytest.fixture
def forgotten(monkeypatch):
    """The Instantly ids the opt-out's receipts ask Instantly to delete, as each receipt is
    queued for its actor."""
    from outreach import tasks as outreach_tasks

    calls: list[str] = []

    def queued(receipt_id: int) -> None:
        receipt = Propagation.objects.get(pk=receipt_id)
        if receipt.provider == "instantly":
            calls.extend(receipt.target["ids"])

    monkeypatch.setattr(outreach_tasks.propagate, "send", queued)
    return calls


def test_a_pushed_lead_who_says_stop_on_whatsapp_is_deleted_at_instantly(
    tenant, forgotten, django_capture_on_commit_callbacks
):
    lead = pushed_lead(tenant)
    with django_capture_on_commit_callbacks(execute=True):
        optout.opt_out(lead, Channel.WHATSAPP)
    assert forgotten == [INSTANTLY_LEAD]
    with django_capture_on_commit_callbacks(execute=True):
        optout.opt_out(lead, Channel.EMAIL_COLD)  # already out everywhere: no second call
    assert forgotten == [INSTANTLY_LEAD]


def test_a_push_instantly_may_not_have_emailed_is_left_to_the_withdrawal(
    tenant, forgotten, monkeypatch, django_capture_on_commit_callbacks
):
    """One actor per lead at Instantly: the withdrawal deletes an opted-out lead too."""
    withdrawals: list[int] = []
    monkeypatch.setattr(tasks.withdraw_push, "send", withdrawals.append)
    lead = pushed_lead(tenant, emailed=False)
    with django_capture_on_commit_callbacks(execute=True):
        optout.opt_out(lead, Channel.WHATSAPP)
    assert forgotten == []
    assert withdrawals == [Message.objects.get(lead=lead).pk]


def test_a_lead_instantly_never_had_costs_no_call(
    tenant, forgotten, django_capture_on_commit_callbacks
):
    lead = make_lead(tenant)
    with django_capture_on_commit_callbacks(execute=True):
        optout.opt_out(lead, Channel.WHATSAPP)
    assert forgotten == []


@pytest.mark.parametrize("status", [200, 404])
def test_the_actor_deletes_the_lead_and_a_lead_already_gone_is_fine(rsps, monkeypatch, status):
    monkeypatch.setenv("INSTANTLY_API_KEY", "test-key-optouts")
    call = rsps.delete(
        f"{BASE}/api/v2/leads/{INSTANTLY_LEAD}",
        status=status,
        json={"id": INSTANTLY_LEAD}
        if status == 200
        else {"statusCode": 404, "error": "Not Found", "message": "Lead not found"},
    )
    tasks.forget_lead.fn(INSTANTLY_LEAD)
    assert call.call_count == 1


def test_the_demo_sandbox_has_no_lead_at_instantly_to_delete_or_update(
    tenant, forgotten, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """`make run` pushes cold email into the sandbox: the hooks must not call Instantly."""
    settings.PROVIDERS = {
        **settings.PROVIDERS,
        "email.instantly": {"BACKEND": "integrations.sandbox.email.SandboxEmail"},
    }
    interest_calls: list = []
    monkeypatch.setattr(tasks.push_interest, "send", lambda *a: interest_calls.append(a))
    lead = pushed_lead(tenant)
    from outreach import stages
    from outreach.models import Journey, Stage

    with django_capture_on_commit_callbacks(execute=True):
        stages.transition(Journey.objects.get(lead=lead), Stage.WARM_REPLY, reason="demo")
        optout.opt_out(lead, Channel.WHATSAPP)
    assert (forgotten, interest_calls) == ([], [])
