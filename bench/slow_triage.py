"""A triage backend for bench/reply_latency.py `--model-seconds`: the offline triage after
a wait, as a remote model's answer takes (the OpenAI-compatible backend waits up to
AI_TIMEOUT, 20 s by default). Configured as `AI_TRIAGE_BACKEND=bench.slow_triage.SlowTriage`
with the wait in `AI_TIMEOUT`. Never used by the app."""

from __future__ import annotations

import time
from datetime import date
from typing import Any

from hitl.triage import OfflineTriage, TriageBackend, TriageResult


class SlowTriage(TriageBackend):
    needs_credentials = False

    def __init__(self, *, timeout: float = 2.0, **_: Any) -> None:
        self.seconds = float(timeout)
        self._offline = OfflineTriage()

    def analyse(
        self,
        text: str,
        *,
        contact_name: str = "",
        company_name: str = "",
        today: date | None = None,
        context: Any = None,
    ) -> TriageResult:
        time.sleep(self.seconds)  # the model thinking; no transaction is open here
        return self._offline.analyse(
            text, contact_name=contact_name, company_name=company_name, today=today, context=context
        )
