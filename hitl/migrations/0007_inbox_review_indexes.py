from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("hitl", "0006_inbox_notes_and_read_state"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="reviewitem",
            index=models.Index(
                condition=models.Q(("status__in", ["OPEN", "ASSIGNED"])),
                fields=["tenant", "assignee", "lead"],
                name="review_open_assignee_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="reviewitem",
            index=models.Index(
                condition=models.Q(("status__in", ["OPEN", "ASSIGNED"])),
                fields=["tenant", "assigned_at"],
                name="review_open_assigned_at_idx",
            ),
        ),
    ]
