"""``rummy stats``: statistics of random hands.

Examples::

    rummy stats deadwood --cards 10 --exact
    rummy stats deadwood --cards 7 --rules joker-knock --samples 2000000 --seed 7 --json
"""

from __future__ import annotations

import math
import time
import warnings
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from kernels.layout import N_NATURAL
from sim.cli.output import fail, print_json
from sim.limits import MAX_SEED
from sim.rules import RuleError, get_rules, parse_overrides
from sim.stats.deadwood import MAX_CARDS, MIN_CARDS, DeadwoodDistribution, deadwood_distribution

__all__ = ["app"]

app = typer.Typer(
    help="Statistics of random hands, such as the distribution of the least deadwood.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)

DEFAULT_SAMPLES = 1_000_000
# About 6 minutes of 11-card hands on 2 cores (3e7 hands a second for 7 cards, 2e7 for
# 10: `rummy stats deadwood --cards 10 --samples 20000000 --json`, elapsed_s); more
# tells nothing a user could see in six decimals.
MAX_SAMPLES = 10**10
SLOW_NOTE_CARDS = 10  # exact runs from this size on get a note on stderr first
# Measured with `rummy stats deadwood --exact` on a shared 2-core machine.
EXACT_SECONDS_2_CORES = {10: "2.5", 11: "12"}


def _summary_lines(result: DeadwoodDistribution, elapsed: float, rules_text: str) -> list[str]:
    mean = f"{result.mean:.4f}"
    if result.sem is not None:
        mean += f" ± {1.96 * result.sem:.4f} (95% CI; standard error {result.sem:.4f})"
    quantiles = ", ".join(f"{p}%: {v}" for p, v in result.quantiles.items())
    lines = [
        f"method: {result.method}" + (f", seed {result.seed}" if result.seed is not None else ""),
        f"rules: {rules_text}; hands: {result.n:,} of {result.cards} cards",
        f"mean: {mean}",
        f"standard deviation: {result.std:.4f}",
        f"quantiles: {quantiles}",
        f"elapsed: {elapsed:.2f} s",
    ]
    return lines


def _probability(p: float) -> str:
    # Six decimals, or three significant digits for the far tails (which round to 0).
    return f"{p:.6f}" if p >= 1e-4 or p == 0 else f"{p:.3e}"


def _print_table(result: DeadwoodDistribution, elapsed: float, rules_text: str) -> None:
    table = Table(title=f"Least deadwood of a random {result.cards}-card hand ({result.method})")
    table.add_column("deadwood", justify="right", no_wrap=True)
    table.add_column("count", justify="right", no_wrap=True)
    table.add_column("probability", justify="right", no_wrap=True)
    table.add_column("cumulative", justify="right", no_wrap=True)
    cumulative = 0.0
    for value, count in result.counts.items():
        probability = result.probabilities[value]
        cumulative += probability
        table.add_row(str(value), f"{count:,}", _probability(probability), f"{cumulative:.6f}")
    console = Console()
    console.print(table)
    for line in _summary_lines(result, elapsed, rules_text):
        console.print(line, highlight=False)


@app.command("deadwood")
def deadwood(
    cards: Annotated[
        int,
        typer.Option(
            "--cards",
            "-n",
            min=MIN_CARDS,
            max=MAX_CARDS,
            help=f"Hand size, {MIN_CARDS}..{MAX_CARDS}.",
            show_default=False,
        ),
    ],
    exact: Annotated[
        bool,
        typer.Option(
            "--exact",
            help="Count every hand of natural cards instead of sampling (10 cards: seconds).",
        ),
    ] = False,
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples",
            min=1,
            max=MAX_SAMPLES,
            help=f"Monte Carlo hands (default: {DEFAULT_SAMPLES:,}; at most {MAX_SAMPLES:.0e}).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            max=MAX_SEED,
            help="Monte Carlo seed (>= 0); drawn at random and printed when omitted.",
            show_default=False,
        ),
    ] = None,
    rules: Annotated[
        str,
        typer.Option("--rules", help="Rule preset (its ace mode, values and jokers matter)."),
    ] = "gin",
    rule: Annotated[
        list[str] | None,
        typer.Option(
            "--rule",
            "-r",
            help="Override one parameter, as key=value (e.g. ace=around); repeatable.",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON instead of a table.")
    ] = False,
) -> None:
    """Distribution of the least deadwood of a random hand: exact or Monte Carlo."""
    if exact and (samples is not None or seed is not None):
        fail("--exact counts every hand: --samples and --seed are for Monte Carlo only")
    try:
        overrides = parse_overrides(rule or [])
        rule_set = get_rules(rules, **overrides)
        if exact and SLOW_NOTE_CARDS <= cards <= MAX_CARDS and not rule_set.jokers and not as_json:
            # Said before the run starts (and only for input that will run).
            typer.echo(
                f"enumerating all {math.comb(N_NATURAL, cards):,} hands of {cards} cards "
                f"(about {EXACT_SECONDS_2_CORES[cards]} s on 2 cores)...",
                err=True,
            )
        start = time.perf_counter()
        with warnings.catch_warnings():
            # The API's run-time warning for 11 cards: the note above says it already.
            warnings.simplefilter("ignore", RuntimeWarning)
            result = deadwood_distribution(
                cards,
                rules=rule_set,
                exact=exact,
                samples=DEFAULT_SAMPLES if samples is None else samples,
                seed=seed,
            )
        elapsed = time.perf_counter() - start
    except (RuleError, ValueError) as error:
        fail(str(error))
    if as_json:
        print_json({**result.to_dict(), "rule_overrides": overrides, "elapsed_s": elapsed})
        return
    rules_text = " ".join([result.rules, *(f"{key}={value}" for key, value in overrides.items())])
    _print_table(result, elapsed, rules_text)
