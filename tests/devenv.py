"""Pytest plugin loaded first (`-p tests.devenv`): development settings unless the
environment says otherwise, before pytest-django imports the settings."""

import os

os.environ.setdefault("DEBUG", "true")
