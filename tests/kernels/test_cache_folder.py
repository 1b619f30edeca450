"""The numba cache folder (``kernels/__init__.py``): keyed once, shared with children.

A process that imports ``kernels`` points ``NUMBA_CACHE_DIR`` at a folder keyed by the
sources' digest; the processes it starts (workers, agents, the commands tests run)
inherit that and must key the same parent again, not the keyed folder: otherwise each
generation compiles into a folder of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import kernels

ROOT = Path(__file__).resolve().parents[2]
# Prints this process's folder, then its child's (started after this one imported kernels).
PARENT_AND_CHILD = (
    "import os, subprocess, sys; import kernels; print(os.environ['NUMBA_CACHE_DIR']); "
    "sys.stdout.flush(); subprocess.run([sys.executable, '-c', "
    "'import os, kernels; print(os.environ[\"NUMBA_CACHE_DIR\"])'], check=True)"
)


@pytest.mark.parametrize("base", [None, ""], ids=["base unset", "base empty"])
def test_a_child_process_uses_its_parents_folder(tmp_path: Path, base: str | None) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("RUMMY_NUMBA_CACHE_BASE", None)
    if base is not None:
        env["RUMMY_NUMBA_CACHE_BASE"] = base
    done = subprocess.run([sys.executable, "-c", PARENT_AND_CHILD], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    parent, child = done.stdout.split()
    assert parent == child == str(tmp_path / f"numba-{kernels.source_digest()}")
