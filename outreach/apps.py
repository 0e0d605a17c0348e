from django.apps import AppConfig


class OutreachConfig(AppConfig):
    name = "outreach"
    verbose_name = "Outreach"

    def ready(self) -> None:
        from cerniq.metrics import collectors
        from outreach import metrics

        collectors.register("outreach", metrics.collect)
