"""CERNIQ_TEST_MOMENTS: CI's three moments in one session must really multiply the `clock`
tests (one per moment), or the date-sensitive reruns would quietly run at the real clock."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MOMENTS = ("2026-11-28T12:00:00+02:00", "2026-12-01T10:00:00+02:00")
CLOCK_MODULE = "tests/outreach/test_window_replanning.py"  # in tests/clock.py
PLAIN_MODULE = "tests/test_self_contained.py"  # not date-sensitive


def collected(*paths: str, moments: str) -> list[str]:
    environment = {**os.environ, "CERNIQ_TEST_MOMENTS": moments}
    environment.pop("CERNIQ_TEST_MOMENT", None)
    result = subprocess.run(  # noqa: S603 - our own interpreter and arguments
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            *paths,
        ],
        cwd=Path(__file__).resolve().parent.parent,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in result.stdout.splitlines() if "::" in line]


def test_each_clock_test_runs_once_per_moment_and_other_tests_once():
    tests = collected(CLOCK_MODULE, PLAIN_MODULE, moments=",".join(MOMENTS))
    clock_tests = [test for test in tests if test.startswith(CLOCK_MODULE)]
    others = [test for test in tests if test.startswith(PLAIN_MODULE)]
    assert others and not any("at-" in test for test in others)
    by_moment = {
        moment: {test.replace(f"at-{moment}", "") for test in clock_tests if moment in test}
        for moment in MOMENTS
    }
    assert by_moment[MOMENTS[0]] and by_moment[MOMENTS[0]] == by_moment[MOMENTS[1]]
    assert len(clock_tests) == len(MOMENTS) * len(by_moment[MOMENTS[0]])


def test_a_test_with_its_own_moment_runs_once_and_not_in_the_clock_phase():
    pinned = "test_sixty_days_of_history_through_the_real_models_and_a_true_rollup"
    module = "tests/test_demo_living.py"  # in tests/clock.py, the test marked own_moment
    tests = collected(module, moments=",".join(MOMENTS))
    assert [test for test in tests if pinned in test] == [f"{module}::{pinned}"]
    moment_tests = [test for test in tests if "at-" in test]
    assert moment_tests and len(moment_tests) % len(MOMENTS) == 0  # the others multiply
    clock_phase = collected(module, "-m", "clock", moments=",".join(MOMENTS))
    assert clock_phase == moment_tests
