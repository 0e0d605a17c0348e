"""The human review queue: replies and drafts a person must look at, with SLAs."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from cerniq.models import Tenant
from hitl.triage.base import Intent
from outreach.models import Lead, Message, Priority, Stage


class ReviewItem(models.Model):
    class Kind(models.TextChoices):
        REPLY = "REPLY", _("Reply to review")
        APPROVAL = "APPROVAL", _("AI draft to approve")
        ESCALATION = "ESCALATION", _("Escalation")

    class Status(models.TextChoices):
        OPEN = "OPEN", _("Open")
        ASSIGNED = "ASSIGNED", _("Assigned")
        RESOLVED = "RESOLVED", _("Resolved")
        DISMISSED = "DISMISSED", _("Dismissed")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="review_items")
    lead = models.ForeignKey(Lead, on_delete=models.CASCADE, related_name="review_items")
    message = models.ForeignKey(
        Message, on_delete=models.SET_NULL, null=True, blank=True, related_name="review_items"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.REPLY)
    reason = models.CharField(max_length=255)
    priority = models.CharField(max_length=8, choices=Priority.choices, default=Priority.MEDIUM)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    sla_due_at = models.DateTimeField()
    sla_breached_at = models.DateTimeField(null=True, blank=True)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    assigned_at = models.DateTimeField(null=True, blank=True)
    sentiment_score = models.SmallIntegerField(null=True, blank=True)
    intent = models.CharField(max_length=32, blank=True, choices=Intent.choices)
    ai_analysis = models.JSONField(default=dict, blank=True)
    ai_draft = models.TextField(blank=True)
    resolution = models.TextField(blank=True)
    resolved_stage = models.CharField(max_length=20, choices=Stage.choices, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["sla_due_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(sentiment_score__isnull=True)
                | (Q(sentiment_score__gte=-100) & Q(sentiment_score__lte=100)),
                name="reviewitem_sentiment_range",
            ),
            models.CheckConstraint(
                condition=~Q(status__in=["RESOLVED", "DISMISSED"]) | Q(resolved_at__isnull=False),
                name="reviewitem_closed_has_time",
            ),
            models.CheckConstraint(
                condition=~Q(status="ASSIGNED") | Q(assignee__isnull=False),
                name="reviewitem_assigned_has_assignee",
            ),
            models.UniqueConstraint(
                fields=["message", "kind"],
                condition=Q(status__in=["OPEN", "ASSIGNED"]) & Q(message__isnull=False),
                name="reviewitem_one_open_per_message",
            ),
        ]
        indexes = [
            models.Index(
                fields=["tenant", "status", "priority", "sla_due_at"], name="review_queue_idx"
            ),
            # The open items only, in queue order: a tab's first 100 come straight off it,
            # and the per-priority counts (page tabs, dashboard) are read from it alone.
            models.Index(
                fields=["tenant", "priority", "sla_due_at", "id"],
                condition=Q(status__in=["OPEN", "ASSIGNED"]),
                name="review_open_idx",
            ),
            # The inbox: the leads with an open item assigned to a user ("Mine") or to anybody
            # ("Unassigned"), and the latest assignment (its stamp), from small indexes alone.
            models.Index(
                fields=["tenant", "assignee", "lead"],
                condition=Q(status__in=["OPEN", "ASSIGNED"]),
                name="review_open_assignee_idx",
            ),
            models.Index(
                fields=["tenant", "assigned_at"],
                condition=Q(status__in=["OPEN", "ASSIGNED"]),
                name="review_open_assigned_at_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"[{self.priority}] {self.lead} ({self.status})"


class ReviewSLA(models.Model):
    """A tenant's review deadlines: minutes of working time per priority (hitl.sla). No row:
    the defaults (URGENT 1 h, HIGH 4 h, MEDIUM 24 h, LOW 72 h)."""

    tenant = models.OneToOneField(Tenant, on_delete=models.CASCADE, related_name="review_sla")
    urgent_minutes = models.PositiveIntegerField(default=60)
    high_minutes = models.PositiveIntegerField(default=4 * 60)
    medium_minutes = models.PositiveIntegerField(default=24 * 60)
    low_minutes = models.PositiveIntegerField(default=72 * 60)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(urgent_minutes__gte=5)
                & Q(urgent_minutes__lte=F("high_minutes"))
                & Q(high_minutes__lte=F("medium_minutes"))
                & Q(medium_minutes__lte=F("low_minutes"))
                & Q(low_minutes__lte=30 * 24 * 60),
                name="reviewsla_ordered_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"SLA of {self.tenant}"


class ReplyTriage(models.Model):
    """A stored reply's AI triage, run by a worker after the reply's transaction committed
    (hitl.triage_jobs): the webhook never waits on a model. One row per inbound message of
    a lead, PENDING from the moment the reply is stored (pages show it as "being
    analysed"), then DONE once routed, or FAILED (a review item says so) when every attempt
    failed."""

    class State(models.TextChoices):
        PENDING = "PENDING", _("Being analysed")
        DONE = "DONE", _("Analysed")
        FAILED = "FAILED", _("Analysis failed")

    message = models.OneToOneField(
        Message, on_delete=models.CASCADE, primary_key=True, related_name="triage"
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(Lead, on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    # The reply was an opt-out, honoured when it was stored: the triage only looks for a
    # complaint that a person must answer.
    opted_out = models.BooleanField(default=False)
    # What storing the reply stopped at once, so an out-of-office answer can give it back
    # (hitl.reply_holds).
    held = models.JSONField(default=dict, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    # Last handed to the workers (stored, retried, re-enqueued): the reconciler's clock.
    queued_at = models.DateTimeField()
    triaged_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=255, blank=True)

    class Meta:
        indexes = [
            # What is still being analysed: the review page's list, the reconciler.
            models.Index(
                fields=["tenant", "created_at"],
                condition=Q(state="PENDING"),
                name="replytriage_pending_idx",
            ),
            models.Index(
                fields=["queued_at"], condition=Q(state="PENDING"), name="replytriage_stale_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"triage of message {self.message_id} ({self.state})"


class ReplyResponse(models.Model):
    """A reply waiting for a person, then the first human response to it (hitl.responses):
    consecutive inbound messages of a lead are one reply, so a lead has at most one reply
    waiting. Stored when things happen so that response-time figures are cheap to read."""

    class Kind(models.TextChoices):
        ANSWERED = "ANSWERED", _("Answered")
        HANDLED = "HANDLED", _("Closed without a message")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(Lead, on_delete=models.CASCADE, related_name="reply_responses")
    reply = models.OneToOneField(Message, on_delete=models.CASCADE, related_name="response")
    channel = models.CharField(max_length=16)
    received_at = models.DateTimeField()
    local_day = models.DateField()  # the reply's day in the tenant's time zone
    kind = models.CharField(max_length=8, choices=Kind.choices, blank=True)
    answer = models.ForeignKey(
        Message, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    responder = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    responded_at = models.DateTimeField(null=True, blank=True)
    working_seconds = models.PositiveIntegerField(null=True, blank=True)
    sla_seconds = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["lead"],
                condition=Q(responded_at__isnull=True),
                name="replyresponse_one_waiting_per_lead",
            ),
            models.CheckConstraint(
                condition=(Q(responded_at__isnull=True) & Q(kind=""))
                | (Q(responded_at__isnull=False) & ~Q(kind="")),
                name="replyresponse_kind_when_responded",
            ),
        ]
        indexes = [
            models.Index(fields=["tenant", "local_day"], name="replyresponse_day_idx"),
            models.Index(
                fields=["tenant", "received_at"],
                condition=Q(responded_at__isnull=True),
                name="replyresponse_waiting_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"reply {self.reply_id} of {self.lead_id}: {self.kind or 'waiting'}"


class Note(models.Model):
    """A team note on a conversation: read by colleagues in our pages, never sent to the lead
    (no send path reads this table)."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(Lead, on_delete=models.CASCADE, related_name="notes")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    body = models.TextField(max_length=5000)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [models.CheckConstraint(condition=~Q(body=""), name="note_has_body")]
        indexes = [models.Index(fields=["lead", "created_at"], name="note_thread_idx")]

    def __str__(self) -> str:
        return f"note on {self.lead_id} by {self.author_id}"


class ConversationState(models.Model):
    """One operator's place in one conversation (hitl.inbox): read up to `last_read_at`
    (None: never, or marked unread), closed by them at `closed_at` until the next reply.
    No row: unread as soon as the lead replied, and open."""

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(Lead, on_delete=models.CASCADE, related_name="conversation_states")
    last_read_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "lead"], name="conversationstate_one_per_user")
        ]
        indexes = [
            # The inbox's "anything changed?" stamp: this user's latest state change.
            models.Index(fields=["user", "tenant", "updated_at"], name="convstate_user_changed_idx")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in conversation {self.lead_id}"


class ChatBackfill(models.Model):
    """Fetching one WhatsApp chat's earlier messages from its provider (hitl.chat_backfill,
    docs/chat-history.md): once per chat when it becomes known, again when a person asks.
    Where the fetch is (the next page, the lease of the run that holds it), what it found,
    and how it ended; the page shows it."""

    class Status(models.TextChoices):
        QUEUED = "QUEUED", _("Waiting for a worker")
        RUNNING = "RUNNING", _("Fetching")
        DONE = "DONE", _("Fetched")
        FAILED = "FAILED", _("Failed")

    class Trigger(models.TextChoices):
        CHAT_LEARNT = "CHAT_LEARNT", _("The chat became known")
        PERSON = "PERSON", _("Asked for on the lead page")

    class End(models.TextChoices):
        START = "START", _("The chat's first message was reached")
        PAGES = "PAGES", _("The page limit was reached")
        DAYS = "DAYS", _("The age limit was reached")

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    lead = models.ForeignKey(Lead, on_delete=models.CASCADE, related_name="chat_backfills")
    phone = models.ForeignKey(
        "whatsapp.Phone", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    provider = models.CharField(max_length=16)
    chat_id = models.CharField(max_length=255)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.QUEUED)
    trigger = models.CharField(max_length=12, choices=Trigger.choices)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Messages from this moment on are the live path's (the webhooks): never fetched as history.
    requested_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The run that holds the fetch, until then (a run that died lets go when it passes).
    claimed_until = models.DateTimeField(null=True, blank=True)
    next_page = models.PositiveIntegerField(default=1)
    pages = models.PositiveIntegerField(default=0)  # fetched so far
    fetched = models.PositiveIntegerField(default=0)  # entries the provider returned
    stored = models.PositiveIntegerField(default=0)  # new messages kept
    already = models.PositiveIntegerField(default=0)  # kept before (ours, or an earlier fetch)
    skipped = models.PositiveIntegerField(default=0)  # notes, calls, outside the bounds
    end = models.CharField(max_length=8, choices=End.choices, blank=True)
    # Provider failures so far per class of the retry table (cerniq.retry), and the next try.
    retries = models.JSONField(default=dict, blank=True)
    retry_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=255, blank=True)  # a reason code (cerniq.reasons)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "provider", "chat_id"], name="chatbackfill_one_per_chat"
            ),
            models.CheckConstraint(
                condition=~Q(status__in=["DONE", "FAILED"]) | Q(finished_at__isnull=False),
                name="chatbackfill_finished_has_time",
            ),
            models.CheckConstraint(condition=Q(next_page__gte=1), name="chatbackfill_page_from_1"),
        ]
        indexes = [models.Index(fields=["lead", "requested_at"], name="chatbackfill_lead_idx")]

    def __str__(self) -> str:
        return f"history of chat {self.chat_id} ({self.status})"
