"""``rummy sweep`` over a rule parameter, as a user reads it: the grid is split per rule
setting (said in one line), a best is named under each rule and never across, what the
rules change follows, and in an 80-column terminal every line fits uncut."""

from __future__ import annotations

import io
import re
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from sim.cli import app
from sim.present.experiment_text import print_experiment_summary
from sim.study.experiment_store import load_results

GROUPS = "compared within each rule setting: 2 groups (undercut_bonus=10; undercut_bonus=25)"


def test_sweep_over_a_rule_is_compared_per_rule_setting(tmp_path: Path) -> None:
    args = ["sweep", "--rules", "gin", "--seats", "greedy:knock_at={k}/simple",
            "--grid", "k=0,5,10", "--grid", "rule.undercut_bonus=10,25", "--deals", "300",
            "--duplicate", "--seed", "5", "--workers", "1", "--out", str(tmp_path)]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert GROUPS in text
    assert len(re.findall(r"(?:^| )best: k=", text)) == 2
    for bonus in (10, 25):
        found = re.search(
            rf"best: k=\d+, undercut_bonus={bonus}; \w+ ?\w* better than the runner-up "
            rf"k=\d+, undercut_bonus=(\d+) \(difference [+-][\d.]+ \[[-\d.]+, [-\d.]+\] "
            r"points per hand, Holm-adjusted p [=<] [^ ]+ over 2 comparisons",
            text,
        )
        assert found and found.group(1) == str(bonus), text  # the runner-up: same rules
    assert "How the rules change the game: each rule setting against undercut_bonus=10" in text
    assert "first player's edge" in text

    # the same summary in an 80-column terminal: every line fits, no cell is cut
    [record] = tmp_path.glob("*/experiment.json")
    screen = io.StringIO()
    narrow = Console(file=screen, width=80, highlight=False)
    print_experiment_summary(load_results(record.parent), record.parent, narrow)
    lines = screen.getvalue().splitlines()
    assert GROUPS in " ".join(" ".join(lines).split())
    assert max(len(line.rstrip()) for line in lines) <= 80
    assert "…" not in screen.getvalue()
    assert sum(line.startswith("★") for line in lines) == 2  # a best per rule setting
