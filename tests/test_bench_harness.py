"""bench/harness.py: which database a bench takes (never someone's by accident) and how it
reads a worker's log whatever its format (production writes JSON)."""

from __future__ import annotations

import json

import pytest

from bench import harness

JSON_LINES = "\n".join(
    json.dumps(entry)
    for entry in (
        {"level": "INFO", "logger": "outreach.tasks", "message": "phone 3: sent"},
        {"level": "INFO", "logger": "outreach.tasks", "message": "phone 4: message 9: sent"},
        {"level": "INFO", "logger": "outreach.tasks", "message": "phone 4: nothing_due"},
        {"level": "WARNING", "logger": "x", "message": "ERROR in a message is no error"},
        {"level": "ERROR", "logger": "django.request", "message": "Service Unavailable: /x"},
        {"level": "INFO", "logger": "y", "message": "done", "exception": "Traceback ..."},
    )
)
TEXT_LINES = """2026-11-28 10:00:00,000 INFO outreach.tasks phone 3: sent
[2026-11-28 10:00:01,000] [PID 7] [MainThread] [dramatiq.MainProcess] [ERROR] Worker died
Traceback (most recent call last):
2026-11-28 10:00:02,000 INFO cerniq.scheduler woke 2 phones"""


def test_runs_and_errors_are_read_from_json_and_text_logs():
    outcomes = [
        harness.RUN_OUTCOME.match(message)[2]
        for logger, message in harness.log_messages(JSON_LINES + "\n" + TEXT_LINES)
        if logger == "outreach.tasks"
    ]
    assert outcomes == ["sent", "sent", "nothing_due", "sent"]
    errors = harness.error_lines(JSON_LINES + "\n" + TEXT_LINES)
    assert len(errors) == 4
    assert "Service Unavailable" in errors[0] and "exception" in errors[1]
    assert "[ERROR] Worker died" in errors[2] and errors[3].startswith("Traceback")


@pytest.mark.parametrize(
    "database_url, smoke, expected",
    [
        ("", False, "postgres://postgres@127.0.0.1:5432/cerniq_bench_pages"),
        ("sqlite:///db.sqlite3", False, "postgres://postgres@127.0.0.1:5432/cerniq_bench_pages"),
        ("postgres://ci@db:5433/cerniq_ci_17", False, "postgres://ci@db:5433/cerniq_ci_17_bench_pages"),
        ("postgres://ci@db:5433/cerniq_ci_17", True, "postgres://ci@db:5433/cerniq_ci_17_bench_pages_smoke_{pid}"),
    ],
)  # fmt: skip
def test_a_bench_names_a_database_of_its_own(monkeypatch, database_url, smoke, expected):
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setattr(harness.os, "getpid", lambda: 4242)
    assert harness.database_url("pages", smoke=smoke) == expected.format(pid=4242)
    given = "postgres://me@localhost/any_name_at_all"
    assert harness.database_url("pages", given, smoke=smoke) == given


def test_only_postgresql_is_claimed():
    with pytest.raises(harness.BenchError, match="need PostgreSQL"):
        harness.claim_database("sqlite:///db.sqlite3", "pages")


def test_verdicts_are_judged_only_at_full_size(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(harness, "_verdicts", [])
    monkeypatch.setenv(harness.VERDICTS_ENV, str(tmp_path / "verdicts.jsonl"))
    harness.judge("pages", "p95 < 50 ms", False, "71 ms")
    harness.judge("api", "p95 < 50 ms", True, "12 ms")
    strict = type("Args", (), {"smoke": False, "strict": True})()
    assert harness.exit_status(strict) == 3
    assert harness.exit_status(type("Args", (), {"smoke": False, "strict": False})()) == 0
    lines = [json.loads(line) for line in (tmp_path / "verdicts.jsonl").read_text().splitlines()]
    assert [(v["bench"], v["met"], v["judged"]) for v in lines] == [
        ("pages", False, True),
        ("api", True, True),
    ]
    monkeypatch.setattr(harness, "_verdicts", [])
    harness.judge("pages", "p95 < 50 ms", False, "71 ms", smoke=True)
    assert harness.exit_status(type("Args", (), {"smoke": True, "strict": True})()) == 0
    assert "goal smoke" in capsys.readouterr().out
