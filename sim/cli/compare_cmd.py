"""``rummy compare`` and ``rummy tournament``: paired comparisons on identical deals.

Side A is ``--rules`` (with its ``--rule`` overrides) and ``--seats``. Side B is side A
with what the ``--vs-*`` options change: ``--vs-rules`` swaps the preset (the
``--rule`` overrides still apply), ``--vs-rule`` adds overrides for B only (they win
over ``--rule``), ``--vs-seats`` replaces the line-up. Seat 0 is the focal seat:
the comparison is seat 0's net points (its points minus the others' mean) per deal,
A - B, deal by deal. Examples::

    # two strategies in seat 0, same rules
    rummy compare --rules gin --seats greedy/simple --vs-seats greedy:knock_at=5/simple
    # two rule variants, same line-up; seats rotated as well (duplicate deals)
    rummy compare --rules gin --vs-rules gin-classic --seats greedy/simple --duplicate
    # one rule parameter
    rummy compare --rules gin --vs-rule knock_limit=7 --seats greedy/simple --deals 200_000

    rummy tournament --strategies greedy,simple,defensive,random --rules gin --deals 20_000
    rummy tournament --strategies greedy,greedy:knock_at=5 --rules knock-rummy --json

Both print the seed (drawn and printed when ``--seed`` is omitted), the results
directory and every estimate with its 95% confidence interval and the interval's
method; ``--json`` prints the same as JSON.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from sim import compare as compare_api
from sim import tournament as tournament_api
from sim.cli.common import fail, path_text, print_json
from sim.cli.table_cmds import JsonOption, RuleOverrides, RulesOption, load_rules
from sim.engine import StrategyDecisionError
from sim.rules import parse_overrides
from sim.runner import RunConfig, new_seed

__all__ = ["compare", "register", "tournament"]

DEFAULT_COMPARE_DEALS = 100_000  # ~1 s of one core per run for two greedy seats
DEFAULT_TOURNAMENT_DEALS = 20_000  # per seating run: a 4-strategy gin round robin is 12 runs

SeedOption = Annotated[
    int | None,
    typer.Option(
        "--seed",
        help="Master seed of every run (>= 0): all runs play the same deals. Drawn at "
        "random and printed when omitted.",
        show_default=False,
    ),
]
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers", help="Worker threads per run (default: the CPU count).", show_default=False
    ),
]
OutOption = Annotated[
    Path,
    typer.Option(
        "--out",
        parser=path_text,
        help="Results root: runs go under <out>/compare or <out>/tournament.",
    ),
]
GamesOption = Annotated[
    int | None,
    typer.Option(
        "--games",
        help="Play whole games of the rule set's game mode instead of single deals; the "
        "metric becomes the net final score per game.",
        show_default=False,
    ),
]


COMPARE_EXAMPLES = """Examples (side B is side A with what the --vs-* options change):

rummy compare --rules gin --seats greedy/simple --vs-seats greedy:knock_at=5/simple

rummy compare --rules gin --vs-rules gin-classic --seats greedy/simple --duplicate

rummy compare --rules gin --vs-rule knock_limit=7 --seats greedy/simple --deals 200_000"""

TOURNAMENT_EXAMPLES = """Examples:

rummy tournament --strategies greedy,simple,defensive,random --rules gin

rummy tournament --strategies greedy,greedy:knock_at=5 --rules knock-rummy --deals 5_000"""


def register(app: typer.Typer) -> None:
    """Add ``rummy compare`` and ``rummy tournament`` to the top-level app."""
    app.command("compare", epilog=COMPARE_EXAMPLES)(compare)
    app.command("tournament", epilog=TOURNAMENT_EXAMPLES)(tournament)


# --- shared --------------------------------------------------------------------------------


def _count(deals: int | None, games: int | None, default: int) -> tuple[int, str]:
    if deals is not None and games is not None:
        fail("give --deals or --games, not both")
    if games is not None:
        return games, "games"
    return (deals if deals is not None else default), "deals"


def _progress(quiet: bool, seed: int, drawn: bool) -> compare_api.OnRun | None:
    """Before the first run (so after every input check): the seed line on stdout;
    before each run: one progress line on stderr. Nothing with ``--json``."""
    if quiet:
        return None
    console = Console(stderr=True, highlight=False, soft_wrap=True, markup=False)

    def on_run(index: int, total: int, config: RunConfig) -> None:
        if index == 1:
            typer.echo(_seed_line(seed, drawn))
        rules = config.rules.name  # type: ignore[union-attr]
        console.print(
            f"run {index}/{total}: {rules} {config.lineup_label} "
            f"({config.count:,} {config.mode}) -> {config.run_dir}"
        )

    return on_run


def _seed(seed: int | None) -> tuple[int, bool]:
    """The seed to use and whether it was drawn (a one-line error when negative)."""
    if seed is None:
        return new_seed(), True
    if seed < 0:
        fail(f"--seed {seed} is not allowed; choose an integer >= 0")
    return seed, False


def _one_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _seed_line(seed: int, drawn: bool) -> str:
    return f"seed {seed}" + (f" (drawn at random; repeat with --seed {seed})" if drawn else "")


def _num(x: float, digits: int = 3, sign: bool = True) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _ci(estimate: float, low: float, high: float, digits: int = 3, sign: bool = True) -> str:
    return f"{_num(estimate, digits, sign)} [{_num(low, digits, sign)}, {_num(high, digits, sign)}]"


def _pct(estimate: float, low: float, high: float, digits: int = 2) -> str:
    return f"{estimate * 100:.{digits}f}% [{low * 100:.{digits}f}, {high * 100:.{digits}f}]"


def _p(p: float) -> str:
    """``p = 0.0123``, or ``p < 1e-300`` when the p-value underflows."""
    if p is None or math.isnan(p):
        return "p = n/a"
    return "p < 1e-300" if p == 0 else f"p = {p:.3g}"


# --- rummy compare -------------------------------------------------------------------------


def compare(
    seats: Annotated[
        str,
        typer.Option(
            "--seats",
            help="Side A's line-up: one strategy spec per seat joined by '/' or ',' "
            "(greedy:knock_at=7/simple); one spec fills every seat. Seat 0 is the focal seat.",
        ),
    ] = "greedy",
    rules: RulesOption = "gin",
    rule: RuleOverrides = None,
    vs_seats: Annotated[
        str | None,
        typer.Option("--vs-seats", help="Side B's line-up (default: --seats).", show_default=False),
    ] = None,
    vs_rules: Annotated[
        str | None,
        typer.Option(
            "--vs-rules",
            help="Side B's rule preset (default: --rules); the --rule overrides apply to it too.",
            show_default=False,
        ),
    ] = None,
    vs_rule: Annotated[
        list[str] | None,
        typer.Option(
            "--vs-rule",
            help="Override one rule parameter for side B only, as key=value (repeatable; "
            "wins over --rule).",
        ),
    ] = None,
    label: Annotated[
        str | None,
        typer.Option(
            "--label",
            help="Side A's name in the output (default: what differs).",
            show_default=False,
        ),
    ] = None,
    vs_label: Annotated[
        str | None,
        typer.Option(
            "--vs-label",
            help="Side B's name in the output (default: what differs).",
            show_default=False,
        ),
    ] = None,
    deals: Annotated[
        int | None,
        typer.Option(
            "--deals",
            help=f"Single deals per run (default: {DEFAULT_COMPARE_DEALS:,}).",
            show_default=False,
        ),
    ] = None,
    games: GamesOption = None,
    duplicate: Annotated[
        bool,
        typer.Option(
            "--duplicate",
            help="Also replay every deal with the seats rotated (seat k plays seat k+1's "
            "strategy), so seat luck cancels; reports the variance reduction achieved.",
        ),
    ] = False,
    seed: SeedOption = None,
    workers: WorkersOption = None,
    out: OutOption = Path("results"),
    as_json: JsonOption = False,
) -> None:
    """Compare two rule variants or two line-ups on identical deals: the paired
    difference of seat 0's net points (95% paired t CI, p-value) and of its win rate."""
    count, mode = _count(deals, games, DEFAULT_COMPARE_DEALS)
    rules_a = load_rules(rules, rule)
    rules_b = load_rules(vs_rules or rules, vs_rule, **parse_overrides(rule or []))
    seed, drawn = _seed(seed)
    try:
        result = compare_api.compare(
            compare_api.Side(rules_a, seats, label),
            compare_api.Side(rules_b, vs_seats if vs_seats is not None else seats, vs_label),
            count=count,
            mode=mode,  # type: ignore[arg-type]
            seed=seed,
            duplicate=duplicate,
            workers=workers,
            out=out,
            on_run=_progress(as_json, seed, drawn),
        )
    except (ValueError, StrategyDecisionError, OSError) as error:
        fail(_one_line(error))
    if as_json:
        print_json({**result.to_dict(), "seed_drawn": drawn})
        return
    _print_comparison(result)


def _print_comparison(result: compare_api.CompareResult) -> None:
    console = Console(highlight=False, soft_wrap=True, markup=False)
    unit = result.unit
    runs = len({p for side in (result.a, result.b) for p in side.run_dirs})
    how = (
        f"duplicate: {result.rotations} seat rotations per side"
        if result.duplicate
        else "one seating"
    )
    console.print(
        f"comparison {result.directory} ({runs} runs of {result.count:,} {result.mode}, "
        f"same seed; {how})"
    )
    if not result.identical_deals:
        console.print(
            "note: the rule sets deal different cards (hand size or jokers differ); the "
            "runs share the seed, not the deals"
        )
    for name, side in (("A", result.a), ("B", result.b)):
        seats = "/".join(side.lineup)
        console.print(f"{name}: {side.label}  (rules {side.rules.name}, seats {seats})")
    level = f"{result.a.net.confidence * 100:g}%"
    table = Table(title=f"Focal seat 0 ({result.a.focal} / {result.b.focal})")
    table.add_column("side")
    table.add_column(f"{result.metric}, {level} CI", justify="right")
    table.add_column(f"win rate, {level} CI", justify="right")
    for name, side in (("A", result.a), ("B", result.b)):
        table.add_row(
            name,
            _ci(side.net.estimate, side.net.low, side.net.high),
            _pct(side.win.estimate, side.win.low, side.win.high),
        )
    console.print(table)
    console.print(f"intervals: {result.a.net.method} (means), {result.a.win.method} (rates)")
    d = result.difference
    console.print(
        f"A - B, {result.metric}: {_ci(d.mean_diff, d.ci.low, d.ci.high)} "
        f"({level} {d.method} CI, half-width {d.ci.half_width:.3f}), {_p(d.p_value)}, "
        f"n = {d.n:,} {unit}s"
    )
    w = result.win_difference
    console.print(
        f"A - B, win rate: {w.estimate * 100:+.2f} pp [{w.ci.low * 100:+.2f}, "
        f"{w.ci.high * 100:+.2f}] ({level} {w.method} CI), {_p(w.p_value)} ({w.p_method})"
    )
    plain, vr = result.plain_difference, result.variance_reduction
    if plain is not None and vr is not None:
        console.print(
            f"plain (rotation 0 only): {_ci(plain.mean_diff, plain.ci.low, plain.ci.high)}, "
            f"half-width {plain.ci.half_width:.3f}, {_p(plain.p_value)}"
        )
        console.print(
            f"variance reduction ({vr.method}): {vr.plain_variance:.3f} plain -> "
            f"{vr.duplicate_variance:.3f} duplicate, x{vr.ratio:.3f} ({vr.reduction * 100:.1f}% "
            f"less); each duplicate {unit} is worth {vr.factor:.2f} plain {unit}s, "
            f"{vr.efficiency:.2f} per hand played ({vr.cost:g} hands each)"
        )


# --- rummy tournament ----------------------------------------------------------------------


def tournament(
    strategies: Annotated[
        list[str],
        typer.Option(
            "--strategies",
            "-s",
            help="The strategies, comma-separated (greedy,simple,defensive,random); a "
            "strategy's own parameters follow it (greedy:knock_at=7,min_gain=2,simple). "
            "Repeatable.",
            show_default=False,
        ),
    ],
    rules: RulesOption = "gin",
    rule: RuleOverrides = None,
    deals: Annotated[
        int | None,
        typer.Option(
            "--deals",
            help=f"Single deals per seating run (default: {DEFAULT_TOURNAMENT_DEALS:,}).",
            show_default=False,
        ),
    ] = None,
    games: GamesOption = None,
    chart: Annotated[
        bool,
        typer.Option("--chart/--no-chart", help="Save the matrix chart as PNG and SVG."),
    ] = True,
    seed: SeedOption = None,
    workers: WorkersOption = None,
    out: OutOption = Path("results"),
    as_json: JsonOption = False,
) -> None:
    """Round robin: every pair of strategies on the same deals in every seating; prints
    the matrix of win rates (95% Wilson CI) and net points per deal (95% t CI; with
    --games: games won and net final score per game), row strategy against column
    strategy. With more than two players a cell is the row strategy alone against a
    field of the column strategy (an even win rate is 1 / players)."""
    count, mode = _count(deals, games, DEFAULT_TOURNAMENT_DEALS)
    rule_set = load_rules(rules, rule)
    seed, drawn = _seed(seed)
    try:
        result = tournament_api.tournament(
            strategies,
            rules=rule_set,
            count=count,
            mode=mode,  # type: ignore[arg-type]
            seed=seed,
            workers=workers,
            out=out,
            chart=chart,
            on_run=_progress(as_json, seed, drawn),
        )
    except (ValueError, StrategyDecisionError, OSError) as error:
        fail(_one_line(error))
    if as_json:
        print_json({**result.to_dict(), "seed_drawn": drawn})
        return
    _print_tournament(result)


def _matrix_table(result: tournament_api.TournamentResult, title: str, cell: Any) -> Table:
    table = Table(title=title)
    table.add_column("row vs column")
    for name in result.strategies:
        table.add_column(name, justify="right")
    cells = {(r["player"], r["opponent"]): r for r in result.matrix.iter_rows(named=True)}
    for row in result.strategies:
        table.add_row(
            row,
            *("—" if row == col else cell(cells[(row, col)]) for col in result.strategies),
        )
    return table


def _print_tournament(result: tournament_api.TournamentResult) -> None:
    console = Console(highlight=False, soft_wrap=True, markup=False)
    console.print(
        f"tournament {result.directory}: {len(result.strategies)} strategies under "
        f"{result.rules.name} ({result.players} players), {result.count:,} {result.mode} "
        f"per seating, same seed everywhere"
    )
    console.print(f"scheme: {result.scheme}")
    level = f"{result.confidence * 100:g}%"
    console.print(
        _matrix_table(
            result,
            f"Win rate of row vs column ({level} Wilson CI)",
            lambda r: (
                f"{r['win_rate'] * 100:.1f}%\n[{r['win_low'] * 100:.1f}, {r['win_high'] * 100:.1f}]"
            ),
        )
    )
    console.print(
        _matrix_table(
            result,
            f"{result.metric.capitalize()}, row vs column (± {level} t CI half-width)",
            # t intervals are symmetric: estimate ± half-width
            lambda r: f"{_num(r['net'], 2)}\n±{(r['net_high'] - r['net_low']) / 2:.2f}",
        )
    )
    for name, method in result.methods().items():
        console.print(f"{name}: {method}")
    if result.players == 2:
        console.print("hands nobody won (ties, dead hands) make up the rest of each pair's 100%")
    else:
        console.print(
            f"an even win rate is {100 / result.players:.1f}% ({result.players} players); "
            "cells (i, j) and (j, i) are different tables"
        )
    if result.chart_paths:
        console.print("chart: " + ", ".join(str(p) for p in result.chart_paths))
