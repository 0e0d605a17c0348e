"""Migration operations shared by the apps."""

from __future__ import annotations

from django.db import migrations


class PostgresOnlySQL(migrations.RunSQL):
    """RunSQL that does nothing on other databases (the test suite also runs on SQLite).

    For indexes SQLite cannot build (trigram GIN, DESC NULLS LAST); they stay out of the
    models' Meta, so the migration state never sees them and makemigrations stays clean.
    """

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
