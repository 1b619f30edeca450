"""Every command's output at 80 columns, in a terminal, as a person reads it: no line runs
over, and nothing is cut (rich marks a cut label or number with "…").

Each command plays for real, small, in a pseudo-terminal 80 columns wide
(``tests/support/terminal.py``); the progress bar's every state counts as a line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.terminal import run_in_terminal

HAND = "9C 9D 9H JS QS KS AD 4D 2H 3S JC"
PILE = "5S KC 7D 8H 2C"

COMMANDS = {
    "run": ["run", "--seats", "greedy:knock_at=3/simple:knock_at=5", "--deals", "2000"],
    "run --duplicate": [
        "run", "--rules", "eaai", "--seats", "greedy:knock_at=3/simple", "--games", "10",
        "--duplicate",
    ],
    "sweep": ["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=0..2",
              "--deals", "1000"],
    "compare": ["compare", "--seats", "greedy:knock_at=3/simple", "--vs-seats",
                "simple/simple", "--deals", "1000"],
    "tournament": ["tournament", "--strategies", "greedy,simple,defensive", "--deals", "300"],
    "tune": ["tune", "greedy", "--param", "knock_at=0..4:2", "--against", "simple",
             "--deals", "500"],
    "advise": ["advise", "--hand", HAND, "--pile", PILE, "--samples", "100"],
    "deadwood": ["deadwood", "AS 2S 3S 7C 7D 7H 9C TC JD QH"],
    "score": ["score", "--hand", "AS 2S 3S 7C 7D 7H 9C TC JC 2D", "--hand",
              "4H 5H 6H KS KD KC 2C 3D 8S QH", "--knocker", "0"],
    "replay": ["replay", "--seats", "simple/greedy:knock_at=5", "--seed", "7", "--deal", "12"],
    "stats deadwood": ["stats", "deadwood", "--cards", "10", "--samples", "20000", "--seed", "1"],
    "rules list": ["rules", "list"],
    "rules show": ["rules", "show", "oklahoma-gin"],
    "strategies list": ["strategies", "list"],
    "strategy-chart card": ["strategy-chart", "card", "chart:gin"],
    "strategy-chart knock": ["strategy-chart", "knock", "--seats", "greedy:knock_at=0",
                             "--deals", "1500", "--pilot", "1500", "--samples", "2",
                             "--turns", "6", "--check", "2", "--check-deals", "300"],
    "strategy-chart solve": ["strategy-chart", "solve", "--seats", "greedy:knock_at=0",
                             "--rounds", "1", "--deals", "1500", "--samples", "2",
                             "--per-cell", "100", "--strength-deals", "300", "--check", "1",
                             "--check-deals", "300"],
    "strategy-chart solve --against": ["strategy-chart", "solve", "--seats", "greedy:knock_at=0",
                                       "--against", "simple", "--rounds", "1", "--deals", "1500",
                                       "--samples", "2", "--per-cell", "100", "--strength-deals",
                                       "300", "--check", "1", "--check-deals", "300"],
}  # fmt: skip


@pytest.mark.parametrize("name", list(COMMANDS))
def test_nothing_is_cut_at_80_columns(name: str, tmp_path: Path) -> None:
    args = COMMANDS[name]
    plays = args[0] in ("run", "sweep", "compare", "tournament", "tune") or args[1:2] in (
        ["knock"], ["solve"])  # fmt: skip
    extra = ["--seed", "1", "--out", "results"] if plays else []  # a user's short path
    status, lines = run_in_terminal([*args, *extra], columns=80, cwd=tmp_path)
    assert status == 0, "\n".join(lines)
    over = [line for line in lines if len(line) > 80]
    cut = [line for line in lines if "…" in line]
    assert not over and not cut, "\n".join(over + cut)


GROUPS = ["", "rules", "strategies", "strategy-chart", "bench", "stats"]  # "": rummy itself


@pytest.mark.parametrize("group", GROUPS)
def test_a_groups_help_lists_whole_summaries(group: str) -> None:
    """Click cuts a command's summary in its group's list to fit (``one-line...``):
    every summary is short enough to be shown whole."""
    status, lines = run_in_terminal([*([group] if group else []), "--help"], columns=80)
    assert status == 0, "\n".join(lines)
    summaries = lines[lines.index("Commands:") + 1 :]
    assert summaries and not [s for s in summaries if s.endswith("...") or len(s) > 80], lines
