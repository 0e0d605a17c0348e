from django.apps import AppConfig


class HitlConfig(AppConfig):
    name = "hitl"
    verbose_name = "Human review"
