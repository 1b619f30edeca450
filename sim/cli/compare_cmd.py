"""``rummy compare``: two rule variants or two line-ups on identical deals.

Side A is ``--rules`` (with its ``--rule`` overrides) and ``--seats``. Side B is side A
with what the ``--vs-*`` options change: ``--vs-rules`` swaps the preset (the
``--rule`` overrides still apply), ``--vs-rule`` adds overrides for B only (they win
over ``--rule``), ``--vs-seats`` replaces the line-up; one of them is needed, and side B
must differ from side A (in its rules or its line-up, as parsed). Seat 0 is the focal seat:
the comparison is seat 0's net points (its points minus the others' mean) per deal,
A - B, deal by deal. Examples::

    # two strategies in seat 0, same rules
    rummy compare --rules gin --seats greedy/simple --vs-seats greedy:knock_at=5/simple
    # two rule variants, same line-up; seats rotated as well (duplicate deals)
    rummy compare --rules gin --vs-rules gin-classic --seats greedy/simple --duplicate
    # one rule parameter
    rummy compare --rules gin --vs-rule knock_limit=7 --seats greedy/simple --deals 200_000

It prints the seed (drawn and printed when ``--seed`` is omitted), the results
directory and every estimate with its 95% confidence interval and the interval's
method; ``--json`` prints the same as JSON.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import (
    MAX_COUNT,
    AddressOption,
    Backend,
    BackendOption,
    JsonOption,
    OutOption,
    RuleOverrides,
    RulesOption,
    SeedOption,
    StudyGamesOption,
    WorkersOption,
    at_most,
    rules_of,
)
from sim.cli.output import (
    chosen_seed,
    ci,
    command_line,
    compact_table,
    fail,
    study_size,
)
from sim.cli.output import (
    console as output_console,
)
from sim.cli.runner import executor_of, run_study
from sim.rules import DEFAULT_PRESET, get_rules, parse_overrides
from sim.sizes import DEFAULT_DEALS
from sim.stats import format_estimate, p_clause
from sim.study.compare import CompareRequest, CompareResult, Side
from sim.study.compare import compare as compare_api
from sim.study.kinds import RESULTS_ROOT

EXAMPLES = """Examples (side B is side A with what the --vs-* options change):

rummy compare --rules gin --seats greedy/simple --vs-seats greedy:knock_at=5/simple

rummy compare --rules gin --vs-rules gin-classic --seats greedy/simple --duplicate

rummy compare --rules gin --vs-rule knock_limit=7 --seats greedy/simple --deals 200_000"""

app = typer.Typer()


@app.command("compare", epilog=EXAMPLES)
def compare(
    seats: Annotated[
        str,
        typer.Option(
            "--seats",
            "-s",
            help="Side A's line-up: one strategy spec per seat joined by '/' or ',' "
            "(greedy:knock_at=7/simple); one spec fills every seat. Seat 0 is the focal seat.",
        ),
    ] = "greedy",
    rules: RulesOption = DEFAULT_PRESET,
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
            "-n",
            min=2,
            callback=at_most(MAX_COUNT),
            help=f"Single deals per run (default: {DEFAULT_DEALS['compare']:,}).",
            show_default=False,
        ),
    ] = None,
    games: StudyGamesOption = None,
    duplicate: Annotated[
        bool,
        typer.Option(
            "--duplicate/--no-duplicate",
            help="Also replay every deal with the seats rotated (seat k plays seat k+1's "
            "strategy), so seat luck cancels; reports the variance reduction achieved.",
        ),
    ] = False,
    seed: SeedOption = None,
    workers: WorkersOption = None,
    out: OutOption = Path(RESULTS_ROOT),
    backend: BackendOption = Backend.local,
    address: AddressOption = None,
    as_json: JsonOption = False,
) -> None:
    """Compare two rule variants or two line-ups on identical deals: the paired
    difference of seat 0's net points (95% paired t CI, p-value) and of its win rate."""
    if vs_seats is None and vs_rules is None and not vs_rule:
        # without one, side B is side A: the line-up against itself, +0.00 and p = 1
        fail("give side B: --vs-seats, --vs-rules or --vs-rule (side A with what they change)")
    executor = executor_of(workers, backend, address)
    count, mode = study_size("compare", deals, games)
    rules_a = rules_of(rules, rule)
    vs_overrides = {**parse_overrides(rule or []), **parse_overrides(vs_rule or [])}
    rules_b = get_rules(vs_rules or rules, **vs_overrides)  # --vs-rule wins over --rule
    seed, drawn = chosen_seed(seed)
    run_study(
        "compare", seed, drawn, as_json,
        lambda progress: compare_api(
            CompareRequest(
                Side(rules_a, seats, label),
                Side(rules_b, vs_seats if vs_seats is not None else seats, vs_label),
                count=count, mode=mode, seed=seed, duplicate=duplicate,  # type: ignore[arg-type]
            ),
            executor, out=out, command=command_line(), progress=progress,
        ),
        record=lambda result: {**result.to_dict(), "seed_drawn": drawn},
        show=_print_comparison,
    )  # fmt: skip


def _print_comparison(result: CompareResult) -> None:
    console = output_console(markup=False)
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
        seats = "/".join(side.shown)
        console.print(f"{name}: {side.label}  (rules {side.rules.name}, seats {seats})")
    level = f"{result.a.net.confidence * 100:g}%"
    table = compact_table(f"Focal seat 0 ({result.a.focal} / {result.b.focal})")
    table.add_column("side")
    table.add_column(f"{result.metric}, {level} CI", justify="right")
    table.add_column(f"win rate %, {level} CI", justify="right")
    for name, side in (("A", result.a), ("B", result.b)):
        table.add_row(
            name,
            ci(side.net.estimate, side.net.low, side.net.high, 3, sign=True),
            ci(side.win.estimate, side.win.low, side.win.high, 2, 100.0),
        )
    console.print(table)
    console.print(f"intervals: {result.a.net.method} (means), {result.a.win.method} (rates)")
    d = result.difference
    console.print(
        f"A - B, {result.metric}: {ci(d.mean_diff, d.ci.low, d.ci.high, 3, sign=True)} "
        f"({level} {d.method} CI, half-width {d.ci.half_width:.3f}), {p_clause(d.p_value)}, "
        f"n = {d.n:,} {unit}s"
    )
    w = result.win_difference
    won = format_estimate(w.estimate, w.ci.low, w.ci.high, unit="%", percent=True, sign=True)
    console.print(
        f"A - B, {'hands' if result.mode == 'deals' else 'games'} won: {won} "
        f"({level} {w.method} CI), "
        f"{p_clause(w.p_value)} ({w.p_method})"
    )
    plain, vr = result.plain_difference, result.variance_reduction
    if plain is not None and vr is not None:
        console.print(
            "plain (rotation 0 only): "
            f"{ci(plain.mean_diff, plain.ci.low, plain.ci.high, 3, sign=True)}, "
            f"half-width {plain.ci.half_width:.3f}, {p_clause(plain.p_value)}"
        )
        console.print(
            f"variance reduction ({vr.method}): {vr.plain_variance:.3f} plain -> "
            f"{vr.duplicate_variance:.3f} duplicate, x{vr.ratio:.3f} ({vr.reduction * 100:.1f}% "
            f"less); each duplicate {unit} is worth {vr.factor:.2f} plain {unit}s, "
            f"{vr.efficiency:.2f} per hand played ({vr.cost:g} hands each)"
        )
