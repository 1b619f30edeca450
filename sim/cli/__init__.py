"""The ``rummy`` command: thin commands over the ``sim`` API, loaded when used.

Each command lives in its own module (``sim/cli/*_cmd.py``) as a small typer app; the
top-level group knows every command's name and one-line help (:data:`COMMANDS`) and
imports a command's module only when that command runs, so ``rummy --help`` and
``rummy --version`` never load numba, polars or the engine.

Every mistake ends in one line on stderr, never a traceback. Exit status: 0 done; 1 a
value, file or run that cannot be used (an error raised by rummy-sim itself, or
``sim.cli.output.fail``); 2 a malformed command line (an unknown command or option,
a missing argument, a value of the wrong type or out of range); 130 interrupted
(Ctrl-C: finished chunks are kept). A bug inside rummy-sim prints its traceback and
exits 3.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import traceback
from typing import Annotated, Any, NamedTuple

import typer
from typer.core import TyperGroup


class Command(NamedTuple):
    module: str  # under sim.cli
    summary: str  # the one line ``rummy --help`` shows
    group: bool = False  # a group of subcommands (``rummy rules list``)


COMMANDS: dict[str, Command] = {
    "deadwood": Command("table_cmds", "A hand's best arrangement, deadwood and best discard."),
    "score": Command("table_cmds", "Score a showdown exactly as docs/RULES.md says."),
    "replay": Command("replay_cmd", "Replay one hand (or a whole game) turn by turn."),
    "advise": Command("advise_cmd", "Score every legal action of a position by Monte Carlo."),
    "run": Command("run_cmd", "Play many deals or games: one run, or an experiment file."),
    "sweep": Command("sweep_cmd", "Play a grid on common deals and mark the best setting."),
    "chart": Command("results_cmd", "Draw charts (PNG and SVG) of an experiment or a run."),
    "report": Command("results_cmd", "Write the self-contained HTML report of results."),
    "compare": Command("compare_cmd", "Compare two rule variants or line-ups on the same deals."),
    "tournament": Command("tournament_cmd", "Round robin of strategies on the same deals."),
    "tune": Command("tune_cmd", "Search a strategy's parameters on common deals."),
    "strategy-chart": Command(
        "strategy_chart_cmd",
        "Strategy charts for the table: when to knock, when to take, what to throw.",
        group=True,
    ),
    "rules": Command("rules_cmd", "The rule presets and every parameter.", group=True),
    "strategies": Command("strategies_cmd", "The strategy plugins and their parameters.", True),
    "stats": Command("stats_cmd", "Statistics of hands: the least deadwood's distribution.", True),
    "bench": Command("bench_cmd", "Benchmarks: solver, engine, runs end to end.", group=True),
    "warm": Command("warm_cmd", "Compile every kernel ahead, on every core."),
}


def _is_user_error(error: BaseException) -> bool:
    """An error rummy-sim raises about what it was given (all are ValueError)."""
    top = type(error).__module__.split(".")[0]
    return isinstance(error, ValueError) and top in ("sim", "strategies", "kernels")


def _click_errors() -> tuple[type[Exception], ...]:
    """Click's exceptions: newer typer vendors click (``typer.TyperException``), older
    typer uses the click package."""
    found: list[type[Exception]] = []
    if hasattr(typer, "TyperException"):
        found.append(typer.TyperException)
    try:
        from click import ClickException
    except ImportError:
        pass
    else:
        found.append(ClickException)
    return tuple(found)


class RummyGroup(TyperGroup):
    """The top-level command: commands load on use; every error becomes one line."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, name: str) -> Any:
        spec = COMMANDS.get(name)
        if spec is None:
            return None
        module = importlib.import_module(f"sim.cli.{spec.module}")
        _unwrap_all(module.app)
        # As a group, even with one subcommand (``rummy stats deadwood``), and without
        # the shell-completion options a typer app adds on its own.
        group = typer.main.get_group(module.app)
        if spec.group:
            group.name = name
            return group
        return group.commands[name]

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = [(name, spec.summary) for name, spec in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:  # noqa: D102
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except _click_errors() as error:  # the command line's own errors
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
        except KeyboardInterrupt:
            typer.echo("interrupted: finished chunks are kept; the same command resumes", err=True)
            sys.exit(130)
        except Exception as error:
            if _is_user_error(error):
                text = str(error).strip()
                typer.echo(f"error: {text.splitlines()[0] if text else type(error).__name__}",
                           err=True)  # fmt: skip
                sys.exit(1)
            if isinstance(error, OSError):  # the system refused: a path, a full disk
                where = f"{error.filename}: " if error.filename else ""
                typer.echo(f"error: {where}{error.strerror or error}", err=True)
                sys.exit(1)
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
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("rummy-sim")
        except PackageNotFoundError:  # a source tree that is not installed
            text = "0.0.0+unknown"
        typer.echo(f"rummy {text}")
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
