"""The WhatsApp tests' fixtures (a TimelinesAI phone, a fixed clock) serve these too."""

from tests.whatsapp.conftest import clock, queued, timelinesai  # noqa: F401
