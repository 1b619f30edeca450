"""The project stands on its own: nothing in it points outside the repository.

A user's clone holds only the repository. A link or path to a file beside it (the
team's desk, a developer's machine) would be a dead end there, so every text file is
searched for such references, and every relative Markdown link must resolve to a file
inside the repository.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support import ROOT as PROJECT_ROOT

ROOT = PROJECT_ROOT
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".yaml", ".yml", ".sh", ""}
# Paths outside the repository: the parent folder's shared desk, absolute paths of a
# development machine, a home directory. The desk's name is spelled in parts so that
# this file does not itself hold a pointer to it. Ray's own place for its token,
# ``~/.ray``, is every user's (the cluster docs name it), not a development machine's.
DESK = "sha" + "red"
OUTSIDE = re.compile(
    rf"\.\./{DESK}|\b{DESK}/(?:RULES|DESIGN|STYLE|seeds)|/work/|/root/|~/(?!\.ray\b)"
)
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


def project_files() -> list[Path]:
    """Every file git would ship (tracked, or new and not ignored)."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the file list comes from git")
    return [ROOT / name for name in listed if (ROOT / name).is_file()]


def text_files() -> list[Path]:
    return [p for p in project_files() if p.suffix in TEXT_SUFFIXES and p.name != "test_project.py"]


def test_there_are_files_to_check() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in text_files()}
    assert {"README.md", "docs/RULES.md", "pyproject.toml", "sim/rules/ruleset.py"} <= names


def test_no_file_points_outside_the_repository() -> None:
    found = []
    for path in text_files():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_markdown_links_resolve_inside_the_repository() -> None:
    broken = []
    for path in text_files():
        if path.suffix != ".md":
            continue
        for target in MARKDOWN_LINK.findall(path.read_text()):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue  # a URL or an anchor on the same page
            resolved = (path.parent / target.split("#")[0]).resolve()
            if not resolved.is_relative_to(ROOT) or not resolved.exists():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_check_catches_a_pointer_outside(tmp_path) -> None:
    assert OUTSIDE.search(f"see [rules](../{DESK}/RULES.md)")
    assert OUTSIDE.search(f"as {DESK}/RULES.md says")
    assert not OUTSIDE.search("see [rules](docs/RULES.md)")
