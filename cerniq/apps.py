from django.apps import AppConfig


class CerniqConfig(AppConfig):
    name = "cerniq"
    verbose_name = "Cerniq platform"

    def ready(self) -> None:
        from cerniq import checks  # noqa: F401  (registers system checks)
