"""The ``rummy`` command: thin typer commands over the ``sim`` API.

One sub-app per file, joined here. Every user mistake ends in a one-line error on
stderr and exit status 1 (``sim.cli.common.fail``), never a traceback.
"""

from __future__ import annotations

import inspect
from typing import Annotated

import typer

from sim import __version__
from sim.cli import (
    advise_cmd,
    bench_cmd,
    compare_cmd,
    replay_cmd,
    rules_cmd,
    run_cmd,
    stats_cmd,
    strategies_cmd,
    table_cmds,
    tune_cmd,
    warm_cmd,
)

app = typer.Typer(
    name="rummy",
    help="Monte Carlo strategy simulator for Knock Rummy and Gin Rummy.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"rummy {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Monte Carlo strategy simulator for Knock Rummy and Gin Rummy."""


app.command("deadwood")(table_cmds.deadwood)
app.command("score")(table_cmds.score)
app.command("replay")(replay_cmd.replay)
app.command("advise")(advise_cmd.advise)
app.command("run")(run_cmd.run)
app.command("sweep")(run_cmd.sweep)
app.command("chart")(run_cmd.chart)
app.command("report")(run_cmd.report)
app.command("warm")(warm_cmd.warm)
app.add_typer(rules_cmd.app, name="rules")
app.add_typer(stats_cmd.app, name="stats")
app.add_typer(bench_cmd.app, name="bench")
app.add_typer(strategies_cmd.app, name="strategies")
compare_cmd.register(app)  # rummy compare, rummy tournament
tune_cmd.register(app)  # rummy tune


def unwrap_help(text: str) -> str:
    """A docstring as command help: every paragraph on one line.

    typer joins the lines of a help text's first paragraph but keeps the line breaks of
    the others, so a docstring wrapped at 100 columns printed mid-sentence breaks at
    any other width. Paragraphs stay apart; one holding an indented line (an example
    block) or starting with click's no-rewrap marker ``\\b`` is kept as written.
    """
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        p
        if p.startswith("\b") or any(line[:1].isspace() for line in p.splitlines())
        else " ".join(line.strip() for line in p.splitlines())
        for p in paragraphs
    )


def _unwrap_all(typer_app: typer.Typer) -> None:
    for command in typer_app.registered_commands:
        text = command.help or inspect.getdoc(command.callback)
        if text:
            command.help = unwrap_help(text)
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _unwrap_all(group.typer_instance)


_unwrap_all(app)
