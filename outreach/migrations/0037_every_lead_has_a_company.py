"""Every lead gets a company (outreach.companies): leads of a tenant with the same CUI
share one (there is at most one per CUI so far: `lead_unique_cui_per_tenant`), a lead
without a CUI gets one of its own, named and placed as the lead.

In batches of leads by id (keyset: the rows read are the rows written), a bulk_create of
their companies and a bulk_update of their `company`: a few queries per thousand leads.
Run again after a reverse (which only clears `company`), it finds the companies it made by
CUI instead of making them twice.
"""

from django.db import migrations

BATCH = 2000
FIRM = ("name", "cui", "county", "locality")


def companies_for_leads(apps, schema_editor):
    Lead = apps.get_model("outreach", "Lead")
    Company = apps.get_model("outreach", "Company")
    db = schema_editor.connection.alias
    by_cui = {
        (tenant_id, cui): pk
        for pk, tenant_id, cui in Company.objects.using(db)
        .exclude(cui="")
        .values_list("pk", "tenant_id", "cui")
        .iterator(chunk_size=BATCH)
    }
    last = 0
    while rows := list(
        Lead.objects.using(db)
        .filter(pk__gt=last, company__isnull=True)
        .order_by("pk")
        .values_list("pk", "tenant_id", *FIRM)[:BATCH]
    ):
        last = rows[-1][0]
        new = {}  # a key per company to make: (tenant, cui), or the lead id when no CUI
        for pk, tenant_id, name, cui, county, locality in rows:
            key = (tenant_id, cui) if cui else pk
            if cui and key in by_cui or key in new:
                continue
            new[key] = Company(
                tenant_id=tenant_id,
                name=name,
                cui=cui,
                county=county,
                locality=locality,
                custom_fields={},
            )
        made = Company.objects.using(db).bulk_create(list(new.values()), batch_size=BATCH)
        for key, company in zip(new, made, strict=True):
            if isinstance(key, tuple):
                by_cui[key] = company.pk
        own = {key: company.pk for key, company in zip(new, made, strict=True)}
        leads = [
            Lead(pk=pk, company_id=by_cui[(tenant_id, cui)] if cui else own[pk])
            for pk, tenant_id, _name, cui, _county, _locality in rows
        ]
        Lead.objects.using(db).bulk_update(leads, ["company"], batch_size=BATCH)


def forget_companies(apps, schema_editor):
    """Back to 0036: leads point at no company (the companies stay, found again by CUI)."""
    Lead = apps.get_model("outreach", "Lead")
    Lead.objects.using(schema_editor.connection.alias).update(company=None)


class Migration(migrations.Migration):
    dependencies = [
        ("outreach", "0036_companies_events_media"),
    ]

    operations = [
        migrations.RunPython(companies_for_leads, forget_companies),
    ]
