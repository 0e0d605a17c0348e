"""A lead always has a company (0037 gave every lead one); a CUI is no longer unique per
lead, since a company's contacts share it (Company's own constraint keeps it unique; an
index still finds a lead by its CUI). An import job lists the rows it flagged."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("outreach", "0037_every_lead_has_a_company"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="lead",
            name="lead_unique_cui_per_tenant",
        ),
        migrations.AddIndex(
            model_name="lead",
            index=models.Index(
                condition=models.Q(("cui", ""), _negated=True),
                fields=["tenant", "cui"],
                name="lead_tenant_cui_idx",
            ),
        ),
        migrations.AlterField(
            model_name="lead",
            name="company",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.RESTRICT,
                related_name="contacts",
                to="outreach.company",
            ),
        ),
        migrations.AddField(
            model_name="importjob",
            name="flagged",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
