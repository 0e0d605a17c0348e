"""What a Dramatiq worker process imports (bench/worker_rss.py measures what it costs)."""

from __future__ import annotations

from tests.cerniq.test_settings import run_python


def in_a_worker(expression: str) -> list[str]:
    """`expression` printed by a fresh interpreter that imported what `rundramatiq` loads."""
    result = run_python(
        "import io, sys, django; django.setup(); "
        "from django_dramatiq.management.commands.rundramatiq import Command; "
        "[__import__(m) for m in Command(stdout=io.StringIO()).discover_tasks_modules()]; "
        f"print({expression})",
        {"DEBUG": "true", "DATABASE_URL": "", "REDIS_URL": "redis://127.0.0.1:6399/0"},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_a_worker_never_loads_the_svix_api_client():
    """The svix package loads its whole API client on import (~26 MiB per worker process):
    only a web process verifying a Resend webhook needs it (cerniq.signatures)."""
    loaded = in_a_worker("'svix' in sys.modules, 'cerniq.signatures' in sys.modules")
    assert loaded == ["False", "True"]


def test_a_worker_never_loads_the_webhook_door_or_drfs_views():
    """Workers process stored webhook events (cerniq.webhooks); the view that takes them in
    (cerniq.webhook_intake) and DRF's request/view machinery belong to web processes only
    (DRF's app config and checks load with INSTALLED_APPS, and cost little)."""
    loaded = in_a_worker(
        "'cerniq.webhooks' in sys.modules, 'cerniq.webhook_intake' in sys.modules, "
        "any(m in sys.modules for m in "
        "('rest_framework.views', 'rest_framework.request', 'rest_framework.response'))"
    )
    assert loaded == ["True", "False", "False"]
