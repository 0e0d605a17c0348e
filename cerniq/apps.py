from django.apps import AppConfig


class CerniqConfig(AppConfig):
    name = "cerniq"
    verbose_name = "Cerniq platform"

    def ready(self) -> None:
        from django.core.signals import request_finished, request_started
        from django.db.backends.signals import connection_created

        from cerniq import (
            checks,  # noqa: F401  (registers system checks)
            collation,
            gc_policy,
            log_context,
        )
        from cerniq.metrics import checks as metrics_checks  # noqa: F401
        from cerniq.metrics import collectors, platform
        from cerniq.metrics.web import install_query_metrics

        collectors.register("platform", platform.collect)
        connection_created.connect(install_query_metrics, dispatch_uid="cerniq-query-metrics")
        connection_created.connect(collation.install_on_sqlite, dispatch_uid="cerniq-collation")
        request_started.connect(log_context.bind_request, dispatch_uid="cerniq-request-id")
        request_finished.connect(log_context.unbind_request, dispatch_uid="cerniq-request-id")
        request_finished.connect(gc_policy.after_request, dispatch_uid="cerniq-gc-policy")
