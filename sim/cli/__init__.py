"""The ``rummy`` command: thin typer commands over the ``sim`` API.

One sub-app per file, joined here. Every mistake ends in one line on stderr, never a
traceback. Exit status: 0 done; 1 a value, file or run that cannot be used
(``sim.cli.common.fail``); 2 a malformed command line (an unknown command or
option, a missing argument, a value of the wrong type or out of range); 130
interrupted (Ctrl-C). A bug inside rummy-sim prints its traceback and exits 3.
"""

from __future__ import annotations

import inspect
import sys
import traceback
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

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
)


def _click_exception() -> type[Exception] | None:
    try:
        from click import ClickException
    except ImportError:
        return None
    return ClickException


# Click's own exceptions: newer typer vendors click (typer.TyperException), older typer
# uses the click package.
_CLICK_ERRORS = tuple(
    e for e in (getattr(typer, "TyperException", None), _click_exception()) if e is not None
)


class RummyGroup(TyperGroup):
    """The top-level command: every error becomes one line (see the module docstring)."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:  # noqa: D102
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except _CLICK_ERRORS as error:  # the command line's errors (click's)
            message = " ".join(str(error.format_message()).split())  # type: ignore[attr-defined]
            message = message.replace("Value error, ", "")  # pydantic's prefix
            status = getattr(error, "exit_code", 1)
            context = getattr(error, "ctx", None)
            if status == 2:  # a usage error: say where, and where to read more
                where = context.command_path if context is not None else "rummy"
                message = f"{where}: {message} (see '{where} --help')"
            typer.echo(f"error: {message}", err=True)
            sys.exit(status)
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            sys.exit(1)
        except Exception:
            traceback.print_exc()
            typer.echo("internal error: this is a bug in rummy-sim; please report it", err=True)
            sys.exit(3)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="rummy",
    cls=RummyGroup,
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
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
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
