"""Outreach actors: thin wrappers over the services (dispatch, sending, pacing, imports,
brochure drafts)."""

from __future__ import annotations

import logging

import dramatiq

from cerniq.log_context import bind
from cerniq.models import Tenant
from outreach import pacing, sending
from outreach.delivery import EMAIL_QUEUES, enqueue_again
from outreach.dispatch import dispatch_due
from whatsapp.queues import all_phone_queues

log = logging.getLogger(__name__)


@dramatiq.actor(queue_name="outreach.dispatch", max_retries=0, time_limit=600_000)
def dispatch_all_tenants(batch_size: int = 500) -> None:
    """Queue due outreach for every active tenant (cron: every 5 minutes)."""
    for tenant in Tenant.objects.filter(is_active=True):
        result = dispatch_due(tenant, batch_size=batch_size)
        log.info("dispatch %s", result.summary())


@dramatiq.actor(queue_name="outreach.dispatch", max_retries=3, time_limit=600_000)
def dispatch_requested(tenant_id: int, lead_ids: list[int]) -> None:
    """Dispatch at once the new leads that asked to be contacted (outreach.lead_rules),
    not at the next periodic run; outside the sending window they wait for its opening."""
    tenant = Tenant.objects.filter(pk=tenant_id, is_active=True).first()
    if tenant is not None:
        result = dispatch_due(tenant, batch_size=max(1, len(lead_ids)), lead_ids=lead_ids)
        log.info("dispatch of leads who asked %s", result.summary())


@dramatiq.actor(queue_name="email.cold", max_retries=3, time_limit=150_000)
def send_message(message_id: int) -> None:
    """Send one queued message of a channel without pacing (email); safe to run twice.
    Enqueued on the channel's queue (outreach.delivery); re-enqueued when told to wait."""
    outcome = sending.send_message(message_id)
    log.info("message %s: %s %s", message_id, outcome.kind, outcome.detail)
    enqueue_again(message_id, outcome.retry_at)


@dramatiq.actor(queue_name="email.cold", max_retries=3, time_limit=600_000)
def push_cold_email(tenant_id: int) -> None:
    """Hand a tenant's due cold email to the provider in bulk (outreach.pushing); safe to
    run twice (rows are claimed). Planned by dispatch and by the reconciler."""
    from outreach.pushing import push_due

    with bind(tenant_id=tenant_id):
        outcome = push_due(tenant_id)
    log.info("cold email push, tenant %s: %s", tenant_id, outcome)


@dramatiq.actor(
    queue_name="wa.phone_01",
    max_retries=3,
    time_limit=int(pacing.RUN_LEASE.total_seconds() * 1000),
)
def run_phone(phone_id: int) -> None:
    """One planned run of a WhatsApp phone: its next due send, then the next run planned.
    Enqueued on the phone's own queue (outreach.pacing.wake). Stopped at its run lease's
    length, so a run never outlives the lease that keeps other runs off its phone."""
    result = pacing.run_phone(phone_id)
    log.info("phone %s: %s", phone_id, result)


@dramatiq.actor(queue_name="outreach.imports", max_retries=0, time_limit=1_800_000)
def run_import_job(job_id: int) -> None:
    """Import a CSV uploaded on the leads page (progress is kept on the job row)."""
    from outreach.import_jobs import run_import

    run_import(job_id)


@dramatiq.actor(queue_name="outreach.imports", max_retries=0, time_limit=600_000)
def run_brochure(brochure_id: int) -> None:
    """Read an uploaded brochure and draft templates from it (progress kept on its row)."""
    from outreach.brochures.jobs import run

    run(brochure_id)


# Workers consume only declared queues: declare every per-phone and email queue.
for _queue in [*all_phone_queues(), *EMAIL_QUEUES.values()]:
    run_phone.broker.declare_queue(_queue)


@dramatiq.actor(queue_name="outreach.dispatch", max_retries=0, time_limit=3_600_000)
def anonymise_old_messages() -> None:
    """Nightly: blank message texts past each workspace's retention age (outreach.retention)."""
    from outreach import retention

    done = retention.anonymise_old_messages()
    if done.total:
        log.info("anonymised old messages", extra={"by_tenant": done.messages})


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=120_000)
def propagate(receipt_id: int) -> None:
    """Tell one provider of an opt-out or an erasure (outreach.propagation.apply). A failed
    attempt sets its next one and queues this actor for then; the sweep below is the net
    for a message the broker lost."""
    from django.utils import timezone

    from outreach import propagation

    receipt = propagation.apply(receipt_id)
    if receipt is not None and receipt.next_attempt_at is not None:
        wait = (receipt.next_attempt_at - timezone.now()).total_seconds()
        propagate.send_with_options(args=(receipt_id,), delay=max(0, int(wait * 1000)))


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=600_000)
def propagate_due() -> None:
    """Every minute: the opt-out and erasure receipts due again (outreach.propagation)."""
    from outreach import propagation

    propagation.apply_due()


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=600_000)
def check_senders() -> None:
    """Every 30 minutes: ask the email providers whether our senders are ready
    (email_channels.readiness)."""
    from email_channels import readiness

    done = readiness.check_all()
    log.info("senders checked", extra={"by_provider": done})


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=600_000)
def evaluate_ab_winners() -> None:
    """Every hour: judge the templates' A/B versions on positive replies, and suggest or
    apply the winners as each template's mode says (outreach.ab_winners)."""
    from outreach.ab_winners import decisions

    done = decisions.evaluate_all()
    log.info("A/B winners evaluated", extra={"ab_winners": done})


@dramatiq.actor(queue_name="default", max_retries=0, time_limit=120_000)
def resume_company_pauses() -> None:
    """Every five minutes: contacts paused because a colleague replied run again once their
    pause is over (outreach.company_stop)."""
    from outreach import company_stop

    resumed = company_stop.resume_due()
    if resumed:
        log.info("company pauses over", extra={"resumed": resumed})
