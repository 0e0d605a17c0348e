from django.apps import AppConfig


class WhatsappConfig(AppConfig):
    name = "whatsapp"
    verbose_name = "WhatsApp"

    def ready(self) -> None:
        from cerniq.metrics import collectors
        from whatsapp import metrics

        collectors.register("whatsapp", metrics.collect)
