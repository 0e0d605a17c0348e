from django.apps import AppConfig


class CerniqConfig(AppConfig):
    name = "cerniq"
    verbose_name = "Cerniq platform"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created

        from cerniq import checks  # noqa: F401  (registers system checks)
        from cerniq.metrics import checks as metrics_checks  # noqa: F401
        from cerniq.metrics import collectors, platform
        from cerniq.metrics.web import install_query_metrics

        collectors.register("platform", platform.collect)
        connection_created.connect(install_query_metrics, dispatch_uid="cerniq-query-metrics")
