"""The embedded runtime consumes messages with an in-process worker (Redis in CI)."""

from __future__ import annotations

import time

import dramatiq
import pytest
from django.core.cache import cache

from cerniq.embedded import EmbeddedRuntime
from cerniq.heartbeats import QUEUE_KEY
from cerniq.scheduler import add_jobs, job_callable
from cerniq.tasks import record_heartbeat

HEARTBEAT_KEY = QUEUE_KEY.format(queue="default")


@pytest.fixture
def runtime():
    broker = dramatiq.get_broker()
    broker.flush_all()
    rt = EmbeddedRuntime(worker_threads=1, with_scheduler=False)
    rt.start()
    yield rt
    rt.stop()


def test_in_process_worker_runs_an_enqueued_actor(runtime):
    cache.delete(HEARTBEAT_KEY)
    record_heartbeat.send()
    deadline = time.monotonic() + 15
    while cache.get(HEARTBEAT_KEY) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert cache.get(HEARTBEAT_KEY) is not None


def test_periodic_jobs_are_registered_from_settings(settings):
    from apscheduler.schedulers.background import BackgroundScheduler

    scheduler = BackgroundScheduler(timezone=settings.TIME_ZONE)
    names = add_jobs(scheduler)
    assert names == [job["name"] for job in settings.PERIODIC_JOBS]
    job = scheduler.get_job("heartbeat")
    assert job.max_instances == 1 and job.coalesce is True


def test_dispatch_runs_as_soon_as_the_scheduler_starts(settings):
    """A fresh `make run` at 22:31 sends then, not at 22:35 (the demo promises sends
    within two minutes); later runs keep the five-minute cron."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    import time_machine
    from apscheduler.schedulers.background import BackgroundScheduler

    started = datetime(2026, 11, 28, 22, 31, tzinfo=ZoneInfo(settings.TIME_ZONE))
    with time_machine.travel(started, tick=False):
        scheduler = BackgroundScheduler(timezone=settings.TIME_ZONE)
        add_jobs(scheduler)
        scheduler.start(paused=True)
        try:
            assert scheduler.get_job("dispatch").next_run_time == started
            # A job without "at_start" waits for its cron.
            assert scheduler.get_job("rollup-stats").next_run_time == started.replace(minute=45)
        finally:
            scheduler.shutdown(wait=False)


def test_a_job_without_target_is_rejected():
    with pytest.raises(ValueError, match="needs an 'actor', a 'command' or a 'call'"):
        job_callable({"name": "broken", "cron": "* * * * *"})


@pytest.mark.django_db
def test_command_job_calls_the_command(capsys):
    job_callable({"name": "settings", "command": "diffsettings"})()
    assert "INTEGRATIONS = [" in capsys.readouterr().out
