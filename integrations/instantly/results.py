"""Typed answers of the Instantly client (`POST /api/v2/leads/add`'s summary)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CreatedLead:
    index: int  # position in the list we sent
    id: str
    email: str


@dataclass(frozen=True)
class AddLeadsResult:
    """`POST /api/v2/leads/add`'s summary. Leads not in `created` were refused or skipped;
    the counts say why (Instantly names no lead per reason)."""

    total_sent: int
    uploaded: int
    created: tuple[CreatedLead, ...]
    skipped: int  # already somewhere in the workspace (skip_if_in_workspace)
    duplicated: int  # already in this campaign
    duplicate_in_request: int
    invalid_email: int
    in_blocklist: int
    remaining_in_plan: int | None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    def id_by_index(self) -> dict[int, str]:
        return {lead.index: lead.id for lead in self.created}


def _count(answer: dict[str, Any], name: str) -> int:
    value = answer.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def add_leads_result(answer: dict[str, Any]) -> AddLeadsResult:
    created = []
    for row in answer.get("created_leads") or []:
        if isinstance(row, dict) and isinstance(row.get("index"), int) and row.get("id"):
            created.append(CreatedLead(row["index"], str(row["id"]), str(row.get("email") or "")))
    remaining = answer.get("remaining_in_plan")
    return AddLeadsResult(
        total_sent=_count(answer, "total_sent"),
        uploaded=_count(answer, "leads_uploaded"),
        created=tuple(created),
        skipped=_count(answer, "skipped_count"),
        duplicated=_count(answer, "duplicated_leads"),
        duplicate_in_request=_count(answer, "duplicate_email_count"),
        invalid_email=_count(answer, "invalid_email_count"),
        in_blocklist=_count(answer, "in_blocklist"),
        remaining_in_plan=remaining if isinstance(remaining, int) else None,
        raw=answer,
    )
