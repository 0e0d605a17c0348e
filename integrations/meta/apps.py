"""The Meta app: WhatsApp's Cloud API and Lead Ads, one Meta app and one webhook."""

from __future__ import annotations

from django.apps import AppConfig


class MetaConfig(AppConfig):
    name = "integrations.meta"
    label = "meta"
    verbose_name = "Meta (WhatsApp Cloud API, Lead Ads)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from integrations.meta.person_data import register_person_data

        register_person_data()
