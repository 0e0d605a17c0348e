"""What a Dramatiq worker process imports (bench/worker_rss.py measures what it costs)."""

from __future__ import annotations

from tests.cerniq.test_settings import run_python


def test_a_worker_never_loads_the_svix_api_client():
    """The svix package loads its whole API client on import (~26 MiB per worker process):
    only a web process verifying a Resend webhook needs it (cerniq.signatures)."""
    result = run_python(
        "import io, sys, django; django.setup(); "
        "from django_dramatiq.management.commands.rundramatiq import Command; "
        "[__import__(m) for m in Command(stdout=io.StringIO()).discover_tasks_modules()]; "
        "print('svix' in sys.modules, 'cerniq.signatures' in sys.modules)",
        {"DEBUG": "true", "DATABASE_URL": "", "REDIS_URL": "redis://127.0.0.1:6399/0"},
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True"]
