"""What the inbox's test modules share: their moment (a Tuesday morning, the window open).
Its fixtures (`inbox_moment`, `logged_in`) are in tests/outreach/conftest.py."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

NOW = datetime(2026, 11, 24, 11, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
INBOX = "/outreach/inbox/"
