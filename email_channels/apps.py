from django.apps import AppConfig


class EmailChannelsConfig(AppConfig):
    name = "email_channels"
    verbose_name = "Email channels"
