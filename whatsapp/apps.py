from django.apps import AppConfig


class WhatsappConfig(AppConfig):
    name = "whatsapp"
    verbose_name = "WhatsApp"
