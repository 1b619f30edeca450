"""A property-based fuzzer of the command line: no value ever gives a traceback.

Every command starts from a small valid invocation; hypothesis then replaces a few of
its options (or adds others) with values a hostile but realistic user could type:
huge, negative, NaN, infinite, empty, non-ASCII, malformed ranges and rule overrides.
Every invocation must end with exit status 0 (done), 1 (a bad value or file) or 2 (a
malformed command line), never a traceback (status 3 is a bug), and everything printed
with ``--json`` must parse with a strict parser (no bare NaN).

Counts that set how much work a command does (deals, games, samples) are drawn only
from small, invalid or out-of-range values, so that an accepted value never starts an
hour-long run. The default suite plays a fixed slice (derandomized); ``-m slow`` plays
many more examples from a random start.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sim.cli import app

HOSTILE = [
    "", " ", "0", "-1", "1", "2", "7", "10", "-0", "+3", "0x10", "1_000", "1e3",
    "99999999999999999999999", "-99999999999999999999", "9223372036854775807",
    "9223372036854775808", "nan", "NaN", "inf", "-inf", "1e-300", "1e300", "0.5", "-0.5",
    "x", "é", "♠", "🂡", "٣", "JK", "JK JK", "JK JK JK", "AS AS", "10h", "q♠", "AS,2S;3S",
    "gin", "knock-rummy", "eaai", "greedy", "simple", "mc:samples=0", "random:p=2",
    "greedy:knock_at=99999999999999999999", "greedy:nosuch=1", "greedy:knock_at=nan",
    "greedy/simple/greedy", "k=0..1:0.1", "k=0..10000000", "k=1,1", "k=", "=1", "k={k}",
    "rule.undercut_bonus=99999999999999999999", "undercut_bonus=9223372036854775807",
    "gin_bonus=-1", "players=7", "game=gin:0", "knock_limit=upcard", "jokers=2",
    "/", "..", ".hidden", "{k}", "a b", "-", "--", "results",
]  # fmt: skip
# Counts that set how much work runs: small, invalid or over the limit, never a huge
# valid number (that would start a run of years).
COUNTS = [
    "", "0", "-1", "1", "2", "3", "x", "nan", "1e3", "-0", "٣",
    "99999999999999999999999", "9223372036854775808", "18446744073709551616",
]  # fmt: skip

GIN_HAND_A = "AC 2C 3C 4D 5D 6D 9H 9S 9C 2S"
GIN_HAND_B = "TD JD QD KD 5S 6S 7S 8H 2H 3H"
ADVISE_HAND = "9C 9D 9H JS QS KS AD 4D 2H 3S JC"


def base_commands(out: str, run_dir: str) -> dict[str, tuple[list[str], dict[str, list[str]]]]:
    """Per command: a small valid invocation, and which options take counts."""
    return {
        "deadwood": (["deadwood", "5C", "6C", "7C", "KD", "--rules", "gin"], {}),
        "score": (
            [
                "score",
                "--rules",
                "gin",
                "--knocker",
                "0",
                "--hand",
                GIN_HAND_A,
                "--hand",
                GIN_HAND_B,
            ],
            {},
        ),
        "replay": (
            ["replay", "--rules", "gin", "--seats", "greedy/simple", "--seed", "1", "--deal", "3"],
            {"--game": COUNTS},
        ),  # fmt: skip
        "advise": (
            [
                "advise",
                "--rules",
                "gin",
                "--hand",
                ADVISE_HAND,
                "--pile",
                "5S KC 7D 8H 2C",
                "--samples",
                "20",
            ],
            {"--samples": COUNTS},
        ),  # fmt: skip
        "run": (
            [
                "run",
                "--rules",
                "gin",
                "--seats",
                "greedy/simple",
                "--deals",
                "30",
                "--seed",
                "1",
                "--out",
                out,
                "--chunk-size",
                "10",
                "-w",
                "1",
            ],
            {"--deals": COUNTS, "--games": COUNTS, "--max-count": COUNTS},
        ),  # fmt: skip
        "sweep": (
            [
                "sweep",
                "--seats",
                "greedy:knock_at={k}/simple",
                "--grid",
                "k=1,2",
                "--deals",
                "20",
                "--seed",
                "1",
                "--out",
                out,
                "-w",
                "1",
            ],
            {"--deals": COUNTS, "--games": COUNTS, "--max-count": COUNTS},
        ),  # fmt: skip
        "chart": (["chart", run_dir, "--kind", "outcome-mix"], {}),
        "report": (["report", run_dir], {}),
        "compare": (
            [
                "compare",
                "--rules",
                "gin",
                "--seats",
                "greedy/simple",
                "--vs-seats",
                "simple/simple",
                "--deals",
                "20",
                "--seed",
                "1",
                "--out",
                out,
                "--workers",
                "1",
            ],
            {"--deals": COUNTS, "--games": COUNTS},
        ),  # fmt: skip
        "tournament": (
            [
                "tournament",
                "-s",
                "greedy,simple",
                "--rules",
                "gin",
                "--deals",
                "10",
                "--seed",
                "1",
                "--out",
                out,
                "--workers",
                "1",
            ],
            {"--deals": COUNTS, "--games": COUNTS},
        ),  # fmt: skip
        "tune": (
            [
                "tune",
                "greedy",
                "--param",
                "knock_at=1,2",
                "--against",
                "simple",
                "--rules",
                "gin",
                "--deals",
                "20",
                "--confirm",
                "20",
                "--seed",
                "1",
                "--out",
                out,
                "-w",
                "1",
            ],
            {"--deals": COUNTS, "--games": COUNTS, "--confirm": COUNTS, "--max-evals": COUNTS},
        ),  # fmt: skip
        "strategy-chart knock": (
            [
                "strategy-chart",
                "knock",
                "--rules",
                "gin",
                "--seats",
                "greedy",
                "--deals",
                "10",
                "--samples",
                "2",
                "--seed",
                "1",
                "--out",
                out,
                "-w",
                "1",
            ],
            {"--deals": COUNTS, "--samples": COUNTS},
        ),  # fmt: skip
        "rules show": (["rules", "show", "gin"], {}),
        "rules list": (["rules", "list"], {}),
        "stats deadwood": (
            ["stats", "deadwood", "--cards", "7", "--samples", "200", "--seed", "1"],
            {"--samples": COUNTS, "--cards": COUNTS},
        ),
        "strategies show": (["strategies", "show", "greedy"], {}),
    }


# The options each command takes, from its own --help (kept in step by a test below).
OPTIONS = {
    "deadwood": ["--rules", "--rule", "--json"],
    "score": ["--hand", "--knocker", "--rules", "--rule", "--upcard", "--dealer", "--json"],
    "replay": ["--seats", "--seed", "--deal", "--game", "--rules", "--rule", "--json"],
    "advise": ["--hand", "--pile", "--took", "--discarded", "--stock", "--turn", "--scores",
               "--seat", "--dealer", "--upcard", "--just-took", "--upcard-option", "--rules",
               "--rule", "--samples", "--time", "--seed", "--model", "--knock-at", "--json"],
    "run": ["--rules", "--rule", "--seats", "--deals", "--games", "--seed", "--workers", "--out",
            "--name", "--backend", "--rows", "--precision", "--max-count", "--duplicate",
            "--headline", "--chunk-size", "--resume", "--json"],
    "sweep": ["--seats", "--grid", "--rules", "--rule", "--deals", "--games", "--seed",
              "--duplicate", "--headline", "--precision", "--max-count", "--workers", "--out",
              "--name", "--rows", "--chunk-size", "--json"],
    "chart": ["--kind", "--out"],
    "report": ["--out"],
    "compare": ["--seats", "--rules", "--rule", "--vs-seats", "--vs-rules", "--vs-rule",
                "--label", "--vs-label", "--deals", "--games", "--duplicate", "--seed",
                "--workers", "--out", "--json"],
    "tournament": ["--strategies", "--rules", "--rule", "--deals", "--games", "--seed",
                   "--workers", "--out", "--json"],
    "tune": ["--param", "--against", "--rules", "--rule", "--deals", "--games", "--duplicate",
             "--max-evals", "--search", "--confirm", "--seed", "--workers", "--out", "--json"],
    "strategy-chart knock": ["--seats", "--rules", "--rule", "--players", "--deals", "--seat",
                             "--samples", "--per-cell", "--turns", "--took",
                             "--min-positions", "--seed", "--workers", "--out",
                             "--name", "--chunk-size", "--json"],
    "rules show": ["--rule", "--json"],
    "rules list": ["--json"],
    "stats deadwood": ["--cards", "--exact", "--samples", "--seed", "--rules", "--rule",
                       "--json"],
    "strategies show": ["--json"],
}  # fmt: skip
FLAGS = {"--json", "--duplicate", "--upcard-option", "--exact", "--took"}
SAFE_FLAGS = FLAGS - {"--exact"}  # exact enumeration of 10-card hands takes minutes


def _strict(text: str) -> object:
    def refuse(constant: str) -> object:
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> tuple[str, str]:
    """A results folder and one small finished run to chart and report."""
    root = tmp_path_factory.mktemp("fuzz")
    out = str(root / "out")
    done = CliRunner().invoke(
        app,
        ["run", "--rules", "gin", "--seats", "greedy/simple", "--deals", "40", "--seed", "3",
         "--out", out, "--name", "fixed", "-w", "1", "--json"],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    return out, json.loads(done.stdout)["run_dir"]


def invocation(draw: st.DrawFn, out: str, run_dir: str) -> list[str]:
    commands = base_commands(out, run_dir)
    name = draw(st.sampled_from(sorted(commands)))
    args, counts = commands[name]
    args = list(args)
    options = OPTIONS[name]
    for _ in range(draw(st.integers(1, 3))):
        option = draw(st.sampled_from(options))
        if option in FLAGS:
            if option in SAFE_FLAGS:
                args.append(option)
            continue
        value = draw(st.sampled_from(counts.get(option, HOSTILE)))
        if option in args and draw(st.booleans()):
            args[args.index(option) + 1] = value  # replace the valid value
        else:
            args += [option, value]
    if draw(st.booleans()) and "--json" in options:
        args.append("--json")
    return args


def check(args: list[str]) -> None:
    result = CliRunner().invoke(app, args)
    shown = " ".join(repr(a) if not a or " " in a else a for a in args)
    assert result.exit_code in (0, 1, 2), f"rummy {shown}\n{result.output}"
    assert "Traceback" not in result.output, f"rummy {shown}\n{result.output}"
    if result.exit_code != 0:
        lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(lines) == 1, f"rummy {shown}: not one error line\n{result.stderr}"
    elif "--json" in args:
        _strict(result.stdout)


@st.composite
def invocations(draw: st.DrawFn, out: str, run_dir: str) -> list[str]:
    return invocation(draw, out, run_dir)


def _fuzz(workspace: tuple[str, str], examples: int, derandomize: bool) -> None:
    out, run_dir = workspace

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=derandomize,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(invocations(out, run_dir))
    def run_one(args: list[str]) -> None:
        check(args)

    cwd = os.getcwd()
    os.chdir(Path(out).parent)  # anything written by default lands in the tmp folder
    try:
        run_one()
    finally:
        os.chdir(cwd)


def test_fuzz_fast_slice(workspace) -> None:
    _fuzz(workspace, examples=60, derandomize=True)


@pytest.mark.slow
def test_fuzz_many(workspace) -> None:
    _fuzz(workspace, examples=1_500, derandomize=False)


def test_option_tables_match_the_commands() -> None:
    import typer.main

    group = typer.main.get_command(app)
    for name, options in OPTIONS.items():
        command = group
        for part in name.split():  # the commands load lazily: ask each group for its own
            context = command.context_class(command)  # type: ignore[attr-defined]
            command = command.get_command(context, part)  # type: ignore[attr-defined]
        declared = {o for p in command.params for o in p.opts if o.startswith("--")}
        assert set(options) <= declared, (name, set(options) - declared)


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--deals", "99999999999999999999999"],
        ["run", "--rule", "undercut_bonus=9223372036854775807", "--deals", "5"],
        ["sweep", "--seats", "greedy:knock_at={k}", "--grid", "k=0..10000000", "--deals", "5"],
        ["advise", "--rules", "gin", "--hand", ADVISE_HAND, "--pile", "5S", "--knock-at",
         "99999999999999999999"],
        ["advise", "--rules", "gin", "--hand", ADVISE_HAND, "--pile", "5S", "--time", "nan"],
        ["advise", "--rules", "gin", "--hand", ADVISE_HAND, "--pile", "5S", "--turn", "-5"],
        ["advise", "--rules", "gin", "--hand", ADVISE_HAND, "--pile", "5S", "--turn", "1000"],
        ["deadwood", ""],
        ["run", "--out", "", "--deals", "5"],
        ["run", "--rows", "maybe"],
        ["chart", ".", "--kind", "nosuch"],
        ["nosuch"],
        ["run", "--nosuch"],
    ],
)  # fmt: skip
def test_reported_cases_are_one_line_errors(workspace, args) -> None:
    out, _ = workspace
    result = CliRunner().invoke(app, [*args, *(["--out", out] if args[0] == "sweep" else [])])
    assert result.exit_code in (1, 2), result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert result.output.startswith("error: ")
