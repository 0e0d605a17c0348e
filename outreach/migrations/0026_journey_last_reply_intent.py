"""Journey.last_reply_intent: the intent of the lead's latest reply, kept on the journey for
the inbox's "Hot" view and counts (hitl.reply_intent). The journeys that have a reply get it
from their latest reply's triage (the same query as hitl.reply_intent.refresh, written here
as the migration's own)."""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery, Value
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce


def fill(apps, schema_editor):
    Journey = apps.get_model("outreach", "Journey")
    Message = apps.get_model("outreach", "Message")
    latest = (
        Message.objects.filter(lead=OuterRef("lead_id"), direction="IN")
        .order_by("-created_at", "-pk")
        .annotate(intent=KT("analysis__triage__intent"))
        .values("intent")[:1]
    )
    Journey.objects.filter(last_reply_at__isnull=False).update(
        last_reply_intent=Coalesce(Subquery(latest), Value(""))
    )


class Migration(migrations.Migration):
    dependencies = [
        ("outreach", "0025_inbox_list_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="journey",
            name="last_reply_intent",
            field=models.CharField(blank=True, db_default="", default="", max_length=40),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        # The unread counts read the replied journeys' index alone: the copy goes in it.
        migrations.RemoveIndex(model_name="journey", name="journey_replied_idx"),
        migrations.AddIndex(
            model_name="journey",
            index=models.Index(
                condition=models.Q(("last_reply_at__isnull", False)),
                fields=["tenant", "last_reply_at"],
                include=(
                    "lead",
                    "assigned_phone",
                    "requires_human_review",
                    "taken_over_by",
                    "last_reply_intent",
                ),
                name="journey_replied_idx",
            ),
        ),
    ]
