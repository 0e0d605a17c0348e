from typing import Any

from django.apps import AppConfig


class OutreachConfig(AppConfig):
    name = "outreach"
    verbose_name = "Outreach"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from cerniq.metrics import collectors
        from cerniq.restore_signal import restored
        from outreach import metrics

        collectors.register("outreach", metrics.collect)
        # A database restored from before an erasure is erased again (outreach.erasure).
        post_migrate.connect(_erase_again_after_migrate, sender=self)
        restored.connect(_erase_again_after_restore)


def _erase_again_after_migrate(using: str = "default", **kwargs: Any) -> None:
    from outreach.erasure import reapply_safely

    if using == "default":
        reapply_safely()


def _erase_again_after_restore(using: str = "default", **kwargs: Any) -> str:
    from django.db import connections
    from django.db.migrations.executor import MigrationExecutor

    from outreach.erasure import reapply_safely

    executor = MigrationExecutor(connections[using])
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        return "Run `manage.py migrate` now: it also erases again whoever the erasure ledger names."
    return reapply_safely()
