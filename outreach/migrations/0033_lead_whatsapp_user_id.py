from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("outreach", "0032_brochure_drafts"),
    ]

    operations = [
        migrations.AddField(
            model_name="lead",
            name="whatsapp_user_id",
            field=models.CharField(
                blank=True,
                db_default="",
                default="",
                help_text="WhatsApp's business-scoped user id (BSUID), learnt from the "
                "provider; finds the lead when a message carries no phone number",
                max_length=160,
            ),
        ),
        migrations.AddIndex(
            model_name="lead",
            index=models.Index(
                fields=["tenant", "whatsapp_user_id"], name="lead_tenant_wa_user_idx"
            ),
        ),
    ]
