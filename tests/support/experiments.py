"""Experiment files for tests: a grid with variants and rule keys, and how to load one."""

from __future__ import annotations

from pathlib import Path

from sim.study.design import Experiment
from sim.study.experiment_file import load_experiment

GIN_SWEEP = """
name = "t"
description = "a test"
seed = 11
deals = 200
duplicate = true
seats = "greedy:knock_at={knock_at}/simple"

[rules]
preset = "gin"
knock_limit = 10

[variants.gin]
preset = "gin"
[variants.classic]
preset = "gin-classic"
big_gin_bonus = 0

[grid]
knock_at = "0..10:5"
rule.undercut_bonus = [10, 25]
"""


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def load(tmp_path: Path, text: str) -> Experiment:
    return load_experiment(write(tmp_path, text))
