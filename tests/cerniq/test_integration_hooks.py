"""cerniq.integrations.notify: the core tells integrations about its changes after commit,
and a failing hook never undoes or breaks the core's change."""

from __future__ import annotations

import pytest

from cerniq import integrations

CALLS: list[dict] = []


def record(**details):
    CALLS.append(details)


def explode(**details):
    raise RuntimeError("provider down")


@pytest.fixture
def hooked(monkeypatch):
    CALLS.clear()
    fake = {
        "a": integrations.Integration(
            key="a", label="A", hooks={"stage_changed": f"{__name__}.explode"}
        ),
        "b": integrations.Integration(
            key="b", label="B", hooks={"stage_changed": f"{__name__}.record"}
        ),
    }
    monkeypatch.setattr(integrations, "registry", lambda: fake)


@pytest.mark.django_db
def test_hooks_run_after_commit_and_a_failing_one_is_logged(
    hooked, django_capture_on_commit_callbacks, caplog
):
    with django_capture_on_commit_callbacks(execute=False) as pending:
        integrations.notify(
            "stage_changed", journey_id=1, from_stage="COLD", to_stage="DEAD", by_system=""
        )
    assert CALLS == []  # nothing before the commit
    for callback in pending:
        callback()
    assert CALLS == [{"journey_id": 1, "from_stage": "COLD", "to_stage": "DEAD", "by_system": ""}]
    assert "integration hook tests.cerniq.test_integration_hooks.explode failed" in caplog.text


def test_an_unknown_event_is_a_programming_error(hooked):
    with pytest.raises(ValueError, match="unknown integration event"):
        integrations.notify("lead_deleted", lead_id=1)
