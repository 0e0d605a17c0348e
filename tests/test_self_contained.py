"""The repository stands on its own: no tracked file points at a design folder outside it
(what a maintainer needs of the design is in docs/design.md and docs/providers.md)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Written in pieces so that this file does not match itself.
OUTSIDE = re.compile("|".join([r"\.\./" + "shared", "shared/" + "seeds", "SPEC" + r"\.md"]))


def tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return [ROOT / name for name in listed.split("\0") if name]


def test_no_tracked_file_points_outside_the_repository():
    found = []
    for path in tracked_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary files (the .mo catalogue, images)
        for number, line in enumerate(text.splitlines(), start=1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_the_docs_it_points_to_exist():
    for name in ("design.md", "providers.md", "architecture.md", "workers.md"):
        assert (ROOT / "docs" / name).is_file(), name
    readme = (ROOT / "README.md").read_text()
    assert "docs/design.md" in readme and "docs/providers.md" in readme
