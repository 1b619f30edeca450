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

from kernels.layout import N_NATURAL
from sim.cli.options import at_most
from sim.cli.output import compact_table, fail, print_json
from sim.limits import MAX_SEED
from sim.rules import DEFAULT_PRESET, RuleError, get_rules, parse_overrides
from sim.sizes import DEADWOOD_SAMPLES
from sim.stats import format_estimate, normal_quantile, wilson
from sim.stats.deadwood import MAX_CARDS, MIN_CARDS, DeadwoodDistribution, deadwood_distribution

__all__ = ["app"]

app = typer.Typer(
    help="Statistics of random hands, such as the distribution of the least deadwood.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# About 6 minutes of 11-card hands on 2 cores (3e7 hands a second for 7 cards, 2e7 for
# 10: `rummy stats deadwood --cards 10 --samples 20000000 --json`, elapsed_s); more
# tells nothing a user could see in six decimals.
MAX_SAMPLES = 10**10
SLOW_NOTE_CARDS = 10  # exact runs from this size on get a note on stderr first
# Measured with `rummy stats deadwood --exact` on a shared 2-core machine.
EXACT_SECONDS_2_CORES = {10: "2.5", 11: "12"}


def _summary_lines(result: DeadwoodDistribution, elapsed: float, rules_text: str) -> list[str]:
    if result.sem is not None:
        z = normal_quantile(0.975)
        low, high = result.mean - z * result.sem, result.mean + z * result.sem
        mean = format_estimate(result.mean, low, high, unit="points of deadwood")
        mean += f" (95% CI, normal; standard error {result.sem:.2g})"
    else:
        mean = f"{result.mean:.4f} points of deadwood (exact)"
    quantiles = ", ".join(f"{p}%: {v}" for p, v in result.quantiles.items())
    lines = [
        f"method: {result.method}" + (f", seed {result.seed}" if result.seed is not None else ""),
        f"rules: {rules_text}; hands: {result.n:,} of {result.cards} cards",
        f"mean: {mean}",
        f"standard deviation: {result.std:.4f} points of deadwood",
        f"quantiles: {quantiles}",
        f"elapsed: {elapsed:.2f} s",
    ]
    return lines


def _percent(p: float) -> str:
    """A share in %, four significant digits, never in exponent notation."""
    if p <= 0:
        return "0"
    x = p * 100
    return f"{x:.{max(0, 3 - math.floor(math.log10(x)))}f}"


def _probability(result: DeadwoodDistribution, count: int) -> str:
    """Exact: the share in %; Monte Carlo: its estimate [95% Wilson interval] in %."""
    if result.sem is None:  # every hand counted
        return _percent(count / result.n)
    iv = wilson(count, result.n)
    return format_estimate(iv.estimate, iv.low, iv.high, percent=True)


def _print_table(result: DeadwoodDistribution, elapsed: float, rules_text: str) -> None:
    table = compact_table(f"Least deadwood of a random {result.cards}-card hand ({result.method})")
    table.add_column("deadwood", justify="right", no_wrap=True)
    table.add_column("count", justify="right", no_wrap=True)
    exact = result.sem is None
    table.add_column(
        "probability %" + ("" if exact else " [95% Wilson]"), justify="right", no_wrap=True
    )
    table.add_column("cumulative %", justify="right", no_wrap=True)
    cumulative = 0.0
    for value, count in result.counts.items():
        cumulative += result.probabilities[value]
        table.add_row(str(value), f"{count:,}", _probability(result, count), _percent(cumulative))
    console = Console()
    console.print(table)
    for line in _summary_lines(result, elapsed, rules_text):
        console.print(line, highlight=False)


@app.command("deadwood", short_help="The least deadwood of a random hand: its distribution.")
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
            help=f"Monte Carlo hands (default: {DEADWOOD_SAMPLES:,}; at most {MAX_SAMPLES:.0e}).",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            callback=at_most(MAX_SEED),
            help="Monte Carlo seed (>= 0); drawn at random and printed when omitted.",
            show_default=False,
        ),
    ] = None,
    rules: Annotated[
        str,
        typer.Option("--rules", help="Rule preset (its ace mode, values and jokers matter)."),
    ] = DEFAULT_PRESET,
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
                samples=DEADWOOD_SAMPLES if samples is None else samples,
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
