"""Every count option is bounded, and one exit-code rule holds over the whole command line.

The rule (``sim/cli/__init__.py``): status 2 for a malformed command line (a value
that does not parse, or lies outside the range its option declares), status 1 for a
value that parses and lies in range but cannot be used with the rest (the rules, a
file, the machine). The walk below reads every command's options from ``sim.cli``
itself, so an option added later without its range check is caught here; the table
of usable-value mistakes pins the status-1 side. All through typer's CliRunner, as
``tests/sim/cli/test_run_cmd.py``; nothing here plays more than a refusal.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from sim import limits as L
from sim.cli import COMMANDS, app
from sim.study import runs as R
from tests.support.cli import one_line, replace_execute

cli = CliRunner()

GIN_HAND = "9C 9D 9H JS QS KS AD 4D 2H 3S"


def invoke(*args: str) -> Any:
    return cli.invoke(app, list(args))


def int_options() -> Iterator[tuple[list[str], Any]]:
    """``(command path, option)`` for every integer option of every command."""
    group = typer.main.get_command(app)

    def walk(command: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
        if hasattr(command, "commands"):  # a group: its subcommands
            for name, sub in command.commands.items():
                yield from walk(sub, [*path, name])
            return
        for param in command.params:
            annotation = str(param.type_descriptor.annotation)
            if param.opts[0].startswith("--") and "int" in annotation:
                yield path, param

    for name in COMMANDS:
        yield from walk(group.get_command(group.context_class(group), name), [name])


def _maximum(param: Any) -> int | None:
    """The declared ``max``, or the cap of an ``at_most`` callback (sim.cli.options)."""
    return param.max if param.max is not None else getattr(param.callback, "maximum", None)


BOUNDED = [
    pytest.param(
        path, param.opts[0], param.min, _maximum(param), id=f"{' '.join(path)} {param.opts[0]}"
    )
    for path, param in int_options()
    if param.min is not None
]


def test_the_walk_finds_the_options() -> None:
    """The walk sees the commands' options (a walk that found none would pass anything)."""
    found = {(" ".join(p.values[0]), p.values[1]) for p in BOUNDED}
    assert len(found) > 60
    for expected in [("run", "--chunk-size"), ("replay", "--seed"), ("replay", "--deal"),
                     ("compare", "--games"), ("bench engine", "--deals"),
                     ("bench deadwood", "--hands"), ("tune", "--confirm")]:  # fmt: skip
        assert expected in found, expected


@pytest.mark.parametrize(("path", "option", "low", "high"), BOUNDED)
def test_every_bounded_option_refuses_out_of_range_as_a_usage_error(
    path: list[str], option: str, low: int, high: int | None
) -> None:
    """minimum - 1 (and maximum + 1 where declared): status 2, one line naming the option."""
    for value in [low - 1] + ([] if high is None else [high + 1]):
        one_line(invoke(*path, option, str(value)), 2, f"Invalid value for '{option}'")


def test_every_count_option_has_a_maximum() -> None:
    """A count with no upper bound reaches the kernels' int64 (or memory) unchecked."""
    unbounded = [
        f"{' '.join(path)} {param.opts[0]}"
        for path, param in int_options()
        if param.min is not None and param.max is None and param.callback is None
        and path[0] not in ("stats", "warm")  # owned by their own commands' checks
        # seats and card counts, checked against the rules; bench deadwood's threads,
        # against numba's pool
        and param.opts[0] not in ("--stock", "--rebuilds", "--dealer", "--seat", "--threads")
    ]  # fmt: skip
    assert unbounded == []


# --- the reported cases ------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["replay", "--seats", "greedy", "--seed", "-5", "--deal", "1"], "--seed"),
        (["replay", "--seats", "greedy", "--seed", "5", "--deal", "-1"], "--deal"),
        (["replay", "--seats", "greedy", "--seed", "5", "--deal", str(2**63)], "--deal"),
        (["compare", "--deals", "1"], "--deals"),
        (["compare", "--games", "1"], "--games"),
        (["tournament", "--strategies", "greedy,simple", "--games", "1"], "--games"),
        (["tune", "greedy", "--param", "knock_at=0..3", "--confirm", "1"], "--confirm"),
        (["tune", "greedy", "--param", "knock_at=0..3", "--search", "best"], "--search"),
        (["tune", "greedy", "--param", "knock_at=0..3", "--deals", "1"], "--deals"),
        (["run", "--seats", "greedy", "--seed", str(2**128)], "--seed"),
        (["run", "--seats", "greedy", "--precision", "inf"], "--precision"),
        (
            [
                "sweep",
                "--seats",
                "greedy:knock_at={k}/simple",
                "--grid",
                "k=1,2",
                "--precision",
                "-inf",
            ],
            "--precision",
        ),
        (["run", "--seats", "greedy", "--precision", "-1"], "--precision"),
        (["run", "--seats", "greedy", "--precision", "0"], "--precision"),
        (["run", "--seats", "greedy", "--workers", str(L.MAX_WORKERS + 1)], "--workers"),
        (["score", "--knocker", "x", "--hand", "AS 2S 3S"], "--knocker"),
        (["advise", "--hand", GIN_HAND, "--pile", "5S", "--time", "0"], "--time"),
    ],
)
def test_values_outside_an_options_range_exit_2(args: list[str], option: str) -> None:
    one_line(invoke(*args), 2, f"Invalid value for '{option}'")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["advise", "--hand", GIN_HAND, "--pile", "5S", "--upcard", "JK"],
         "--upcard JK: gin has no jokers"),
        (["advise", "--hand", GIN_HAND + " JC", "--pile", "5S", "--just-took", "JK"],
         "--just-took JK: gin has no jokers"),
        (["advise", "--hand", GIN_HAND, "--pile", "5S", "--seat", "2"],
         "seat 2 is not a seat of a 2-player game"),
        (["replay", "--seats", "greedy/greedy/greedy", "--seed", "1", "--deal", "1"],
         "3 seats given (greedy/greedy/greedy) for 2 players"),
        (["replay", "--seats", "greedy", "--seed", "1"], "give exactly one of --deal N"),
        (["score", "--knocker", "0", "--dealer", "2", "--hand", "AS 2S 3S", "--hand", "4D"],
         "--dealer 2 is not a seat"),
        (["run", "--seats", "greedy", "--max-count", "5"], "--max-count: needs --precision"),
        (["compare", "--vs-seats", "simple", "--deals", "5", "--games", "5"],
         "--deals, --games: give one, not both"),
        (["compare", "--seats", "greedy/simple"], "--vs-seats, --vs-rules, --vs-rule: none given"),
        (["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=0..99"],
         "setting 'k=11': knock_at=11 is above the knock limit of gin (10)"),
        (["tune", "greedy", "--param", "knock_at=0..99", "--against", "simple"],
         "knock_at=11 is above the knock limit of gin (10), so it plays as knock_at=10"),
        (["bench", "cold", "--case", "nosuch"], "--case nosuch matches no case"),
    ],
)  # fmt: skip
def test_usable_value_mistakes_exit_1(
    args: list[str], expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Values that parse and lie in range, but do not fit the rest: status 1."""
    monkeypatch.chdir(tmp_path)  # nothing here may write; if it did, not into the repository
    one_line(invoke(*args), 1, expected)
    assert not any(tmp_path.iterdir())


def test_a_jokers_upcard_is_taken_where_the_rules_deal_jokers() -> None:
    """The refusal above is about the rules, not the card: with jokers, JK is an upcard
    (the position only: scoring it would compile the joker engine for minutes)."""
    from sim.advise import Position
    from sim.cards import JOKER
    from sim.rules import get_rules

    jokers = get_rules("gin", jokers=2, layoff=False)
    assert Position.parse(jokers, hand=GIN_HAND, pile="5S", upcard="JK").upcard == JOKER


# --- bench: refused before any work -----------------------------------------------------


@pytest.fixture
def no_bench(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The benchmarks replaced by recorders: a refusal must come before any is called."""
    import sim.bench.engine
    import sim.bench.run
    import sim.cli.bench_cmd

    called: list[str] = []
    for module, name in ((sim.cli.bench_cmd, "bench_deadwood"), (sim.bench.engine, "bench_engine"),
                         (sim.bench.run, "bench_run")):  # fmt: skip
        monkeypatch.setattr(module, name, lambda *a, _n=name, **k: called.append(_n))
    return called


@pytest.mark.parametrize(
    ("args", "option", "cap"),
    [
        (["deadwood", "--hands"], "--hands", "10000000"),
        (["engine", "--deals"], "--deals", "20000000"),
        (["run", "--deals"], "--deals", "20000000"),
        (["run", "--memory-deals"], "--memory-deals", "10000000000"),
        (["engine", "--repeat"], "--repeat", "1000"),
    ],
)
def test_bench_sizes_past_the_cap_are_refused_before_any_work(
    no_bench: list[str], args: list[str], option: str, cap: str
) -> None:
    result = invoke("bench", *args, "1000000000000000")
    one_line(result, 2, f"Invalid value for '{option}'")
    assert cap in result.stderr and result.stdout == ""
    assert no_bench == []


# --- --chunk-size: bounded by memory -------------------------------------------------------


def test_the_chunk_limit_is_half_of_memory() -> None:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    limit = L.chunk_size_limit()
    assert limit * L.CHUNK_BYTES <= memory // 2 < (limit + 1) * L.CHUNK_BYTES
    assert limit >= R.CHUNK_DEALS  # the default chunk always fits


@pytest.mark.parametrize("command", [["run", "--seats", "greedy"], ["bench", "run"],
                                     ["sweep", "--seats", "greedy"],
                                     ["strategy-chart", "knock", "--seats", "greedy"]])  # fmt: skip
def test_a_chunk_too_big_for_memory_is_refused_naming_estimate_and_limit(
    command: list[str], no_bench: list[str]
) -> None:
    limit = L.chunk_size_limit()
    result = invoke(*command, "--deals", "1000", "--chunk-size", str(limit + 1))
    one_line(result, 2, "Invalid value for '--chunk-size'")
    assert f"{limit + 1:,} needs about" in result.stderr
    assert f"give at most {limit:,}" in result.stderr
    assert no_bench == []


def test_an_experiment_file_chunk_too_big_for_memory_is_refused(tmp_path: Path) -> None:
    limit = L.chunk_size_limit()
    experiment = tmp_path / "big_chunks.toml"
    experiment.write_text(
        f'name = "big_chunks"\nseats = "greedy"\ndeals = 1000\nchunk_size = {limit + 1}\n'
        '[rules]\npreset = "gin"\n'
    )
    result = invoke("run", str(experiment), "--out", str(tmp_path / "out"))
    one_line(result, 1, f"chunk_size = {limit + 1:,} needs about")
    assert f"give at most {limit:,}" in result.stderr
    assert not (tmp_path / "out").exists()


def test_a_chunk_at_the_limit_is_accepted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The largest chunk allowed reaches the runner (stopped there, before playing)."""
    seen: list[R.RunConfig] = []

    def fake_execute(configs: list[R.RunConfig], *how: Any, **options: Any) -> list[R.RunResult]:
        seen.append(configs[0])
        raise R.RunError("stopped by the test")

    replace_execute(monkeypatch, fake_execute)
    limit = L.chunk_size_limit()
    result = invoke("run", "--seats", "greedy", "--deals", "1000000000", "--chunk-size",
                    str(limit), "--seed", "1", "--out", str(tmp_path))  # fmt: skip
    one_line(result, 1, "stopped by the test")
    assert seen[0].chunk_size == limit


# --- docs/CHARTS.md: the chart seat's parameter ranges -----------------------------------


@pytest.mark.parametrize(("name", "top"), [("k1", 2**52 - 1), ("t20", 255), ("safety", 2**52 - 1)])
def test_chart_parameter_ranges_are_the_documented_ones(name: str, top: int) -> None:
    """CHARTS.md: k 0..2^52 - 1, t 0..255, safety 0..2^52 - 1; one past is refused."""
    from strategies import StrategyError, parse_lineup

    parse_lineup(f"chart:{name}={top}", 2)
    with pytest.raises(
        StrategyError, match=f"'{name}': {top + 1} \\(must be between 0 and {top}\\)"
    ):
        parse_lineup(f"chart:{name}={top + 1}", 2)
