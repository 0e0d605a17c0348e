"""The results every stage of an import shares: the report, row errors and the file error.

Reasons are stored reason codes (outreach.reasons), rendered in the reader's language."""

from __future__ import annotations

from dataclasses import dataclass, field

from cerniq import reasons
from outreach import reasons as codes


class ImportFileError(ValueError):
    """A problem with the whole file (not one row): nothing can be imported from it.

    `reason` is the stored code (ImportJob.error); str() is its text in the active language."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        return reasons.render(self.reason)


@dataclass
class RowError:
    line: int  # physical line in the CSV, header = line 1
    reason: str  # a stored reason code

    @property
    def text(self) -> str:
        """The reason in the active language (the command's output)."""
        return reasons.render(self.reason)


def several(problems: list[str]) -> str:
    """One stored reason for a row's problems: the problem itself when alone, else all of
    them, or as many as fit a stored reason and how many more there are."""
    if len(problems) == 1:
        return problems[0]
    for kept in range(len(problems), 1, -1):
        more = len(problems) - kept
        try:  # a list parameter is never shortened: too long raises ValueError
            if not more:
                return reasons.code(codes.IMPORT_SEVERAL, problems=problems)
            return reasons.code(codes.IMPORT_SEVERAL_MORE, problems=problems[:kept], more=more)
        except ValueError:
            continue
    return reasons.code(codes.IMPORT_SEVERAL_MORE, problems=problems[:1], more=len(problems) - 1)


@dataclass
class ImportReport:
    created: int
    updated: int
    unchanged: int
    rejected: list[RowError]
    dry_run: bool
    # Rows imported but worth a look (a phone or address another company's contact has).
    flagged: list[RowError] = field(default_factory=list)
    # The new leads (empty for a dry run); not part of what two reports compare.
    created_ids: list[int] = field(default_factory=list, compare=False)

    def summary(self) -> str:
        """One line for the command output and the UI flash message."""
        said = (
            f"created {self.created}, updated {self.updated}, "
            f"unchanged {self.unchanged}, rejected {len(self.rejected)}"
        )
        return f"{said}, flagged {len(self.flagged)}" if self.flagged else said
