import django.db.models.functions.comparison
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("outreach", "0024_inbox_activity_indexes"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="journey",
            name="journey_replied_idx",
        ),
        migrations.AddIndex(
            model_name="journey",
            index=models.Index(
                condition=models.Q(("last_reply_at__isnull", False)),
                fields=["tenant", "last_reply_at"],
                include=("lead", "assigned_phone", "requires_human_review", "taken_over_by"),
                name="journey_replied_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="journey",
            index=models.Index(
                condition=models.Q(("taken_over_by__isnull", False)),
                fields=["tenant", "taken_over_at"],
                name="journey_taken_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="journey",
            index=models.Index(
                models.F("tenant"),
                models.OrderBy(
                    django.db.models.functions.comparison.Greatest(
                        django.db.models.functions.comparison.Coalesce(
                            "last_reply_at", "last_contact_at"
                        ),
                        django.db.models.functions.comparison.Coalesce(
                            "last_contact_at", "last_reply_at"
                        ),
                    ),
                    descending=True,
                ),
                models.OrderBy(models.F("lead"), descending=True),
                condition=models.Q(("last_reply_at__isnull", False)),
                name="journey_replied_activity_idx",
            ),
        ),
    ]
