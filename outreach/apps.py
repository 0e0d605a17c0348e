from django.apps import AppConfig


class OutreachConfig(AppConfig):
    name = "outreach"
    verbose_name = "Outreach"
