"""The results every stage of an import shares: the report, row errors and the file error."""

from __future__ import annotations

from dataclasses import dataclass, field


class ImportFileError(ValueError):
    """A problem with the whole file (not one row): nothing can be imported from it."""


@dataclass
class RowError:
    line: int  # physical line in the CSV, header = line 1
    reason: str


@dataclass
class ImportReport:
    created: int
    updated: int
    unchanged: int
    rejected: list[RowError]
    dry_run: bool
    # The new leads (empty for a dry run); not part of what two reports compare.
    created_ids: list[int] = field(default_factory=list, compare=False)

    def summary(self) -> str:
        """One line for the command output and the UI flash message."""
        return (
            f"created {self.created}, updated {self.updated}, "
            f"unchanged {self.unchanged}, rejected {len(self.rejected)}"
        )
