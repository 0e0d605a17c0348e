from django.db import migrations

from cerniq.migration_operations import PostgresOnlySQL


class Migration(migrations.Migration):
    """"Last contact, newest first" is the leads list's usual sort, with never-contacted
    leads last: an index in that order (PostgreSQL only; SQLite cannot index NULLS LAST)."""

    dependencies = [("outreach", "0005_journey_page_indexes")]

    operations = [
        PostgresOnlySQL(
            sql="CREATE INDEX journey_last_contact_desc_idx ON outreach_journey "
            "(last_contact_at DESC NULLS LAST, lead_id)",
            reverse_sql="DROP INDEX IF EXISTS journey_last_contact_desc_idx",
        )
    ]
