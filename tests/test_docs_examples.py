"""Every example of docs/PYTHON.md runs, and prints what the page says it prints.

The page's ```python blocks run in order in one namespace (as the cells of one
notebook), in a fresh folder holding the repository's experiment files; the ```text
block after each is its standard output, line for line.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.support import ROOT

PAGE = ROOT / "docs" / "PYTHON.md"
BLOCK = re.compile(r"```(python|text)\n(.*?)```", re.DOTALL)


def examples(text: str) -> list[tuple[str, str | None]]:
    """``(code, what it prints or None)`` for every python block of the page."""
    blocks = BLOCK.findall(text)
    found = []
    for i, (kind, body) in enumerate(blocks):
        if kind == "python":
            following = blocks[i + 1] if i + 1 < len(blocks) else None
            found.append((body, following[1] if following and following[0] == "text" else None))
    return found


def test_the_page_has_examples_with_their_output() -> None:
    found = examples(PAGE.read_text())
    assert len(found) >= 8
    assert all(printed is not None for _, printed in found)


def test_every_example_runs_and_prints_what_the_page_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(ROOT / "experiments", tmp_path / "experiments")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for number, (code, printed) in enumerate(examples(PAGE.read_text()), 1):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{PAGE.name} example {number}", "exec"), namespace)
        assert out.getvalue() == printed, f"example {number}:\n{code}"
    assert os.listdir(tmp_path / "results")  # the studies wrote under ./results
