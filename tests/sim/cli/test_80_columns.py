"""Every command's output at 80 columns, in a terminal, as a person reads it: no line runs
over, and nothing is cut (rich marks a cut label or number with "…").

Each command plays for real, small, in a pseudo-terminal 80 columns wide
(``tests/support/terminal.py``; the cases one after another in one process); the
progress bar's every state counts as a line. A command that reads a study's folder
(``chart``, ``report``, ``strategy-chart export``) reads one its case plays first
(``BEFORE``). Every command of ``rummy`` has a case here, or a reason in ``NOT_HERE``
(a test checks).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from sim.cli import app
from tests.support.terminal import run_commands_in_terminal, run_in_terminal

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
    "strategies show": ["strategies", "show", "mc"],
    "strategy-chart card": ["strategy-chart", "card", "chart:gin"],
    "strategy-chart card, a pool's": ["strategy-chart", "card", "chart:knock-rummy-6p"],
    "strategy-chart pool": ["strategy-chart", "pool", "chart:knock-rummy-4p", "--left",
                            "3=chart:knock-rummy-3p", "--left", "2=chart:knock-rummy-2p"],
    "strategy-chart knock": ["strategy-chart", "knock", "--seats", "greedy:knock_at=0",
                             "--deals", "1500", "--pilot", "1500", "--samples", "2",
                             "--turns", "6", "--check", "2", "--check-deals", "300"],
    "strategy-chart solve": ["strategy-chart", "solve", "--seats", "greedy:knock_at=0",
                             "--rounds", "1", "--deals", "1500", "--samples", "2",
                             "--per-cell", "100", "--strength-deals", "300", "--check", "1",
                             "--check-deals", "300"],
    "strategy-chart draw": ["strategy-chart", "draw", "--seats", "greedy:knock_at=0",
                            "--deals", "1500", "--pilot", "1500", "--samples", "2",
                            "--turns", "6", "--check", "1", "--check-deals", "300"],
    "strategy-chart discard": ["strategy-chart", "discard", "--seats", "greedy:knock_at=0",
                               "--deals", "1500", "--pilot", "1500", "--samples", "2",
                               "--turns", "6"],
    "strategy-chart export": ["strategy-chart", "export", "{chart}"],
    "chart": ["chart", "{run}"],
    "report": ["report", "{run}"],
    "bench deadwood": ["bench", "deadwood", "--hands", "2000", "--repeat", "1"],
    "bench engine": ["bench", "engine", "--deals", "2000", "--repeat", "1", "--threads", "1"],
    "bench run": ["bench", "run", "--deals", "2000", "--repeat", "1", "-w", "1",
                  "--memory-deals", "1000"],
    "strategy-chart solve --against": ["strategy-chart", "solve", "--seats", "greedy:knock_at=0",
                                       "--against", "simple", "--rounds", "1", "--deals", "1500",
                                       "--samples", "2", "--per-cell", "100", "--strength-deals",
                                       "300", "--check", "1", "--check-deals", "300"],
}  # fmt: skip
# What a case's {placeholder} names: a folder its study plays first, found by a pattern.
BEFORE = {
    "run": (["run", "--seats", "greedy/simple", "--deals", "500", "--name", "one"],
            "results/one/*"),
    "chart": (["strategy-chart", "knock", "--seats", "greedy:knock_at=0", "--deals", "1500",
               "--pilot", "1500", "--samples", "2", "--turns", "6", "--check", "0"],
              "results/chart/*"),
}  # fmt: skip
# Commands with no case, and why.
NOT_HERE = {
    "agent": "speaks JSON lines to a program, not to a person (docs/AGENTS.md)",
    "bench cold": "compiles from an empty cache, about 35 s: a slow case (SLOW)",
    "warm": "compiles every kernel the cache lacks, minutes from an empty one: a slow case",
}
SLOW = {"bench cold": ["bench", "cold", "--case", "score", "--repeat", "1"], "warm": ["warm"]}


def _plays(args: list[str]) -> bool:
    return args[0] in ("run", "sweep", "compare", "tournament", "tune") or args[1:2] in (
        ["knock"], ["draw"], ["discard"], ["solve"])  # fmt: skip


def _spec(line: str) -> bool:
    """A seat spec printed whole to be copied (``strategy-chart export``'s output): the
    terminal wraps it where it must; a line break of ours would break the value."""
    return line.startswith("chart:") and " " not in line


def _prepared(args: list[str], cwd: Path) -> list[str]:
    """``args`` ready to run in ``cwd``: the folders it names played there first
    (``BEFORE``), and the seed and a user's short output path for a study."""
    for key, (before, pattern) in BEFORE.items():
        if "{" + key + "}" in args:
            subprocess.run([sys.executable, "-m", "rummy", "-q", *before, "--seed", "1", "--out",
                            "results"], cwd=cwd, check=True, capture_output=True)  # fmt: skip
            [found] = cwd.glob(pattern)
            args = [a.replace("{" + key + "}", str(found.relative_to(cwd))) for a in args]
    return [*args, *(["--seed", "1", "--out", "results"] if _plays(args) else [])]


def _check(status: int | None, lines: list[str]) -> None:
    """Exit 0, no line over 80 (a spec to copy aside), nothing cut."""
    assert status == 0, "\n".join(lines)
    over = [line for line in lines if len(line) > 80 and not _spec(line)]
    cut = [line for line in lines if "…" in line]
    assert not over and not cut, "\n".join(over + cut)


@pytest.fixture(scope="module")
def screens(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int | None, list[str]]]:
    """Every case of ``COMMANDS`` as drawn at 80 columns, each in a folder of its own:
    one after another in one process (a process each would start Python and load the
    compiled code once per command)."""
    folders = {name: tmp_path_factory.mktemp("case") for name in COMMANDS}
    commands = [(_prepared(args, folders[name]), folders[name]) for name, args in COMMANDS.items()]
    return dict(zip(COMMANDS, run_commands_in_terminal(commands, columns=80), strict=True))


@pytest.mark.parametrize("name", list(COMMANDS))
def test_nothing_is_cut_at_80_columns(
    name: str, screens: dict[str, tuple[int | None, list[str]]]
) -> None:
    _check(*screens[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW))
def test_nothing_is_cut_at_80_columns_slow(name: str, tmp_path: Path) -> None:
    _check(*run_in_terminal(_prepared(SLOW[name], tmp_path), columns=80, cwd=tmp_path))


def _commands(group: Any, words: tuple[str, ...] = ()) -> list[str]:
    """Every command of ``group`` that does something, as typed after ``rummy``: asked
    as ``--help`` asks (``rummy`` loads its commands lazily; typer may carry its own
    click, so a group is what lists commands)."""
    context = typer.Context(group, info_name=" ".join(("rummy", *words)))
    found = []
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        if hasattr(command, "list_commands"):
            found += _commands(command, (*words, name))
        else:
            found.append(" ".join((*words, name)))
    return found


def test_every_command_has_a_case() -> None:
    """A command added without a case here fails: it gets one, or a reason not to."""
    cased = {" ".join(args[: 2 if args[0] in GROUPS else 1]) for args in COMMANDS.values()}
    cased |= set(SLOW)
    commands = set(_commands(typer.main.get_group(app)))
    assert {"run", "rules list", "strategy-chart solve", "bench cold"} <= commands  # it sees them
    missing = commands - cased - set(NOT_HERE)
    assert not missing, sorted(missing)
    assert set(SLOW) <= set(NOT_HERE)


GROUPS = ["", "rules", "strategies", "strategy-chart", "bench", "stats"]  # "": rummy itself


@pytest.mark.parametrize("group", GROUPS)
def test_a_groups_help_lists_whole_summaries(group: str) -> None:
    """Click cuts a command's summary in its group's list to fit (``one-line...``):
    every summary is short enough to be shown whole."""
    status, lines = run_in_terminal([*([group] if group else []), "--help"], columns=80)
    assert status == 0, "\n".join(lines)
    summaries = lines[lines.index("Commands:") + 1 :]
    assert summaries and not [s for s in summaries if s.endswith("...") or len(s) > 80], lines
