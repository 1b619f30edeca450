"""``rummy warm``: compile everything ahead, on every core.

Example: ``rummy warm`` once after installing (``rummy warm --processes 2`` to leave
cores free). Every command compiles what it needs on first use anyway, in parallel
when there is more than one thing to compile; this does it all at once.
"""

from __future__ import annotations

import os
import time
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from sim.cli.output import print_json
from sim.limits import MAX_WORKERS

app = typer.Typer()


@app.command("warm")
def warm(
    processes: Annotated[
        int | None,
        typer.Option(
            "--processes",
            "-p",
            min=1,
            max=MAX_WORKERS,
            help="Processes to compile on (default: CPU cores).",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print what was compiled as JSON.")
    ] = False,
) -> None:
    """Compile every kernel a command may run (the engine, the solver, the showdown,
    every strategy) into the cache, in parallel: later commands start at once."""
    from sim.warm import all_pieces, load_entries
    from sim.warm import warm as warm_all

    total = len(load_entries()) + len(all_pieces())
    start = time.perf_counter()
    console = Console(stderr=True)
    columns = (TextColumn("compiling"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))  # fmt: skip
    # A bar on a terminal only: elsewhere rich prints a blank line where it stops.
    hidden = as_json or not console.is_interactive
    with Progress(*columns, console=console, transient=True, disable=hidden) as bar:
        task = bar.add_task("", total=total)
        names = warm_all(
            processes=processes,
            progress=lambda name: bar.update(task, advance=1, description=name.split(".")[-1]),
        )
    seconds = time.perf_counter() - start
    cores = processes or os.cpu_count() or 1
    if as_json:
        print_json({"compiled": names, "seconds": seconds, "processes": cores})
        return
    Console().print(f"compiled {len(names)} kernels in {seconds:.1f} s on {cores} processes")
