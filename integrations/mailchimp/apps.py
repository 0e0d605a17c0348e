"""The Mailchimp app: its system checks, and its records in a person's export and erasure."""

from __future__ import annotations

from django.apps import AppConfig


class MailchimpConfig(AppConfig):
    name = "integrations.mailchimp"
    label = "mailchimp"
    verbose_name = "Mailchimp"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from integrations.mailchimp import checks  # noqa: F401 (registers the checks)
        from integrations.mailchimp.members import register_person_data

        register_person_data()
