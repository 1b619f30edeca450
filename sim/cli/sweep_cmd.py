"""``rummy sweep``: a grid from the command line, played as an experiment.

Example::

    rummy sweep --rules gin --seats 'greedy:knock_at={k}/simple' --grid k=0..10 --duplicate
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from sim.cli.options import (
    AddressOption,
    Backend,
    BackendOption,
    ChunkOption,
    DealsOption,
    DuplicateOption,
    ForceOption,
    GamesOption,
    HeadlineOption,
    JsonOption,
    MaxCountOption,
    NameOption,
    OutOption,
    PrecisionOption,
    RowsOption,
    RuleOverrides,
    SeatsOption,
    SeedOption,
    WorkersOption,
)
from sim.cli.output import chosen_seed, fail, study_size
from sim.cli.runner import executor_of
from sim.cli.studies import check_common, play_experiment
from sim.rules import DEFAULT_PRESET, parse_overrides
from sim.study.design import MAX_SETTINGS
from sim.study.experiment_file import sweep_experiment
from sim.study.grid import GridError, parse_values
from sim.study.kinds import RESULTS_ROOT

app = typer.Typer()


@app.command("sweep")
def sweep(
    seats: SeatsOption = None,
    grid: Annotated[
        list[str] | None,
        typer.Option(
            "--grid",
            "-g",
            help="A grid key and its values: k=0..10, k=0..10:2 (step), k=0..1:0.1, k=1,3,7, "
            "or a rule parameter rule.undercut_bonus=10,25 (repeatable: every combination "
            "is a setting).",
            show_default=False,
        ),
    ] = None,
    rules: Annotated[
        list[str] | None,
        typer.Option(
            "--rules",
            help=f"Rule preset (default: {DEFAULT_PRESET}); give it more than once to compare "
            "presets (each becomes a variant).",
            show_default=False,
        ),
    ] = None,
    rule: RuleOverrides = None,
    deals: DealsOption = None,
    games: GamesOption = None,
    seed: SeedOption = None,
    duplicate: DuplicateOption = None,
    headline: HeadlineOption = None,
    precision: PrecisionOption = None,
    max_count: MaxCountOption = None,
    workers: WorkersOption = None,
    out: OutOption = Path(RESULTS_ROOT),
    name: NameOption = None,
    force: ForceOption = False,
    backend: BackendOption = Backend.local,
    address: AddressOption = None,
    rows: RowsOption = None,
    chunk_size: ChunkOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run a grid (strategy parameters x rule parameters) on common deals, mark the best
    setting and say whether it beats the runner-up (Holm-adjusted paired t tests).

    Example: rummy sweep --rules gin --seats 'greedy:knock_at={k}/simple' --grid k=0..10
    """
    executor = executor_of(workers, backend, address)
    check_common(deals, games, precision)
    if not seats:
        fail("give a line-up template with --seats, e.g. 'greedy:knock_at={k}/simple'")
    if not grid:
        fail("give at least one --grid key=values, e.g. --grid k=0..10")
    if max_count is not None and precision is None:
        fail("--max-count needs --precision")
    table: dict[str, Any] = {}
    for item in grid:
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or not key or not text.strip():
            fail(f"bad --grid {item!r}: write key=values, e.g. k=0..10 or rule.gin_bonus=20,25")
        if key in table:
            fail(f"bad --grid {item!r}: {key} is given more than once")
        try:
            table[key] = parse_values(text, limit=MAX_SETTINGS)
        except GridError as error:
            fail(f"bad --grid {item!r}: {error}")
    count, mode = study_size("sweep", deals, games)
    seed, drawn = chosen_seed(seed)
    experiment = sweep_experiment(
        list(seats), table, presets=list(dict.fromkeys(rules or [DEFAULT_PRESET])), seed=seed,
        mode=mode, count=count,
        rule=parse_overrides(rule or []), duplicate=bool(duplicate),
        rows=rows.value if rows else "hands", name=name,
        headline=headline.value if headline else None, precision=precision,
        max_count=max_count, chunk_size=chunk_size,
    )  # fmt: skip
    play_experiment(experiment, executor, out=out, drawn=drawn, as_json=as_json, replace=force)
