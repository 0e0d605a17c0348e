# The state of fetching a WhatsApp chat's history (hitl.chat_backfill).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cerniq", "0013_db_defaults_for_bulk_fills"),
        ("hitl", "0007_inbox_review_indexes"),
        ("outreach", "0034_lead_rules"),
        ("whatsapp", "0008_db_defaults_for_bulk_fills"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ChatBackfill",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("provider", models.CharField(max_length=16)),
                ("chat_id", models.CharField(max_length=255)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("QUEUED", "Waiting for a worker"),
                            ("RUNNING", "Fetching"),
                            ("DONE", "Fetched"),
                            ("FAILED", "Failed"),
                        ],
                        default="QUEUED",
                        max_length=8,
                    ),
                ),
                (
                    "trigger",
                    models.CharField(
                        choices=[
                            ("CHAT_LEARNT", "The chat became known"),
                            ("PERSON", "Asked for on the lead page"),
                        ],
                        max_length=12,
                    ),
                ),
                ("requested_at", models.DateTimeField()),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("claimed_until", models.DateTimeField(blank=True, null=True)),
                ("next_page", models.PositiveIntegerField(default=1)),
                ("pages", models.PositiveIntegerField(default=0)),
                ("fetched", models.PositiveIntegerField(default=0)),
                ("stored", models.PositiveIntegerField(default=0)),
                ("already", models.PositiveIntegerField(default=0)),
                ("skipped", models.PositiveIntegerField(default=0)),
                (
                    "end",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("START", "The chat's first message was reached"),
                            ("PAGES", "The page limit was reached"),
                            ("DAYS", "The age limit was reached"),
                        ],
                        max_length=8,
                    ),
                ),
                ("retries", models.JSONField(blank=True, default=dict)),
                ("retry_at", models.DateTimeField(blank=True, null=True)),
                ("error", models.CharField(blank=True, max_length=255)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "lead",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="chat_backfills",
                        to="outreach.lead",
                    ),
                ),
                (
                    "phone",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="whatsapp.phone",
                    ),
                ),
                (
                    "requested_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "tenant",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="cerniq.tenant",
                    ),
                ),
            ],
            options={
                "indexes": [
                    models.Index(fields=["lead", "requested_at"], name="chatbackfill_lead_idx")
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("tenant", "provider", "chat_id"), name="chatbackfill_one_per_chat"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("status__in", ["DONE", "FAILED"]), _negated=True),
                            ("finished_at__isnull", False),
                            _connector="OR",
                        ),
                        name="chatbackfill_finished_has_time",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("next_page__gte", 1)), name="chatbackfill_page_from_1"
                    ),
                ],
            },
        ),
    ]
