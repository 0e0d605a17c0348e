from django.apps import AppConfig


class HitlConfig(AppConfig):
    name = "hitl"
    verbose_name = "Human review"

    def ready(self) -> None:
        from cerniq.metrics import collectors
        from hitl import metrics

        collectors.register("review", metrics.collect)
