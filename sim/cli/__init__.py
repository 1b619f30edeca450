"""The ``rummy`` command: thin commands over the ``sim`` API, loaded when used.

Each command lives in its own module (``sim/cli/*_cmd.py``) as a small typer app, or is
made from its study kind's front (``sim.front``: ``sweep``, ``compare``, ``tournament``,
``advise``); the top-level group knows every command's name and one-line help
(:data:`COMMANDS`) and imports a command's module (or front) only when that command
runs, so ``rummy --help`` and
``rummy --version`` never load numba, polars or the engine. ``python -m rummy``
(``rummy/__main__.py``) runs this same app. The group's own options: ``--quiet``
(``sim.cli.output.set_quiet``), ``--version`` and typer's shell completion
(``--install-completion``, ``--show-completion``).

Every mistake ends in one line on stderr, never a traceback. Exit status: 0 done; 1 a
value, file or run that cannot be used (an error raised by rummy-sim itself, or
``sim.cli.output.fail``); 2 a malformed command line (an unknown command or option,
a missing argument, a value of the wrong type or out of range; ``rummy`` or a group
such as ``rummy rules`` without a command, after printing its help on stdout); 130
interrupted (SIGINT, Ctrl-C) and 143 terminated (SIGTERM), at any stage (compiling,
playing, counting; on Ray too), with one line on stderr, ``interrupted`` or
``terminated``, which for a command that plays a study it resumes (as
``sim.study.kinds`` declares) adds that its finished chunks are kept and the same
command resumes. A bug inside rummy-sim prints its traceback and exits 3.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import signal
import sys
import traceback
from typing import Annotated, Any, NamedTuple

import typer
from typer.core import TyperGroup

from sim.cli.signals import Signals, Stopped, leave
from sim.study.kinds import KINDS


class Command(NamedTuple):
    module: str  # under sim.cli; or, for a study kind with a front, the front's module
    summary: str  # the one line ``rummy --help`` shows
    group: bool = False  # a group of subcommands (``rummy rules list``)
    front: bool = False  # made from the study kind's front (sim.front.command)


COMMANDS: dict[str, Command] = {
    **{  # the study kinds declared by a front: their commands are made from it (a
        # group's, strategy-chart knock, by the group's module)
        command: Command(kind.front, kind.summary, front=True)
        for kind in KINDS
        if kind.front
        for command in kind.commands
        if " " not in command
    },
    "deadwood": Command("table_cmds", "A hand's best arrangement, deadwood and best discard."),
    "score": Command("table_cmds", "Score a showdown exactly as docs/RULES.md says."),
    "replay": Command("replay_cmd", "Replay one hand (or a whole game) turn by turn."),
    "chart": Command("results_cmd", "Draw charts (PNG and SVG) of a study's results."),
    "report": Command("results_cmd", "Write the self-contained HTML report of results."),
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
    "agent": Command("agent_cmd", "Serve a strategy's decisions as JSON lines (stdin, stdout)."),
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


def _is_no_args_help(error: Exception) -> bool:
    """``rummy`` or a group (``rummy rules``) given no command: click's error holds the
    help (by name, as typer checks it: click's and typer's vendored class differ)."""
    return type(error).__name__ == "NoArgsIsHelpError"


def _tokens(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    """The command line click parsed (``main``'s ``args``, else the process's)."""
    given = kwargs.get("args", args[0] if args else None)
    return [str(token) for token in (sys.argv[1:] if given is None else given)]


def _resumes(tokens: list[str]) -> bool:
    """Whether the command line runs a command that plays a study the same command
    resumes (:attr:`sim.study.kinds.StudyKind.resumes`): its first word, or its first two
    for a group's command, the group's options (``-q``) left out."""
    words = [token for token in tokens if not token.startswith("-")]
    resuming = {command for kind in KINDS if kind.resumes for command in kind.commands}
    return bool(words) and (words[0] in resuming or " ".join(words[:2]) in resuming)


def _with_given_value(message: str, error: Exception, tokens: list[str]) -> str:
    """Typer's "Invalid value for '--seed': Input should be ..." (its type and range
    checks, in pydantic's words, which leave the value out) with the value the user typed
    put in: "'--seed': '-5' (input should be ...)". The last occurrence wins, as in
    parsing."""
    opts = getattr(getattr(error, "param", None), "opts", None) or []
    value = None
    for i, token in enumerate(tokens):
        for opt in opts:
            if token == opt and i + 1 < len(tokens):
                value = tokens[i + 1]
            elif opt.startswith("--") and token.startswith(opt + "="):
                value = token[len(opt) + 1 :]
    head, colon, reason = message.partition("': ")
    if value is None or not colon or not reason.startswith("Input should be"):
        return message  # rummy's own words (which name the value as they see fit: masked)
    return f"{head}': {value!r} ({reason[:1].lower()}{reason[1:]})"


def _quiet_after_the_command(ctx: Any, param: Any, value: bool) -> None:
    if value:
        from sim.cli.output import set_quiet

        set_quiet(True)


def _accept_quiet(command: Any, quiet: Any) -> None:
    """Give every command under ``command`` a copy of the group's ``-q/--quiet``
    (``quiet``), so that it may come after the command (``rummy run ... -q``) as well as
    before it. The group's callback has set quiet (or not) before a command parses."""
    commands = getattr(command, "commands", None)
    if commands is not None:
        for sub in commands.values():
            _accept_quiet(sub, quiet)
    elif not any("--quiet" in p.opts for p in command.params):
        option = copy.copy(quiet)
        option.expose_value = False
        option.callback = _quiet_after_the_command
        command.params.append(option)


def _module_app(module: str) -> typer.Typer:
    app: typer.Typer = importlib.import_module(f"sim.cli.{module}").app
    return app


def _front_app(name: str, module: str) -> typer.Typer:
    """The command ``name`` made from the front declared in ``module``."""
    from sim.front.command import command_of

    front = importlib.import_module(module).FRONT
    app = typer.Typer()
    app.command(name, epilog=front.epilog)(command_of(front))
    return app


class RummyGroup(TyperGroup):
    """The top-level command: commands load on use; every error becomes one line."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, name: str) -> Any:
        spec = COMMANDS.get(name)
        if spec is None:
            return None
        command_app = _front_app(name, spec.module) if spec.front else _module_app(spec.module)
        _unwrap_all(command_app)
        # Help in click's two columns (option, description), which wrap within any
        # terminal: rich's five-column panels squeeze descriptions into 20 characters at 80.
        command_app.rich_markup_mode = None
        # As a group, even with one subcommand (``rummy stats deadwood``), and without
        # the shell-completion options a typer app adds on its own.
        group = typer.main.get_group(command_app)
        _accept_quiet(group, next(p for p in self.params if "--quiet" in p.opts))
        if spec.group:
            group.name = name
            return group
        return group.commands[name]

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = [(name, spec.summary) for name, spec in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: Any) -> Any:  # noqa: D102
        try:
            return super().invoke(ctx)
        except BaseException as error:
            signals: Signals | None = getattr(self, "_signals", None)
            if signals is not None and signals.received:  # whatever the error, a signal
                raise signals.stopped() from None  # started it (numba may fail its own way)
            if isinstance(error, KeyboardInterrupt):  # with no handler of ours (a thread)
                raise Stopped(signal.SIGINT) from None
            raise

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:  # noqa: D102
        kwargs["standalone_mode"] = False  # errors come back here, to be said in one line
        if not standalone_mode:
            return super().main(*args, **kwargs)
        signals = self._signals = Signals()
        try:
            with signals.handled():
                try:
                    code = super().main(*args, **kwargs)
                except KeyboardInterrupt:  # raised again after typer took it (sim.cli.signals)
                    if not signals.received:
                        raise
                    raise signals.stopped() from None
                if signals.received:  # before the command ran: typer made it a bare 130
                    raise signals.stopped()
        except Stopped as stopped:
            typer.echo(stopped.line(_resumes(_tokens(args, kwargs))), err=True)
            leave(stopped.status)
        except _click_errors() as error:  # the command line's own errors
            if _is_no_args_help(error):
                # The help as --help prints it, then exit 2 as click does: the command is
                # incomplete. A group with rich help has printed it already (typer does
                # so while making the error, whose message is then empty).
                text = str(error.format_message())  # type: ignore[attr-defined]
                if text:
                    typer.echo(text)
                sys.exit(2)
            message = " ".join(str(error.format_message()).split())  # type: ignore[attr-defined]
            message = message.replace("Value error, ", "")  # pydantic's prefix
            status = getattr(error, "exit_code", 1)
            context = getattr(error, "ctx", None)
            if status == 2:  # a usage error: say where, and where to read more
                message = _with_given_value(message, error, _tokens(args, kwargs))
                where = context.command_path if context is not None else "rummy"
                message = f"{where}: {message} (see '{where} --help')"
            typer.echo(f"error: {message}", err=True)
            sys.exit(status)
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            sys.exit(1)
        except Exception as error:
            if _is_user_error(error):
                text = str(error).strip()
                typer.echo(f"error: {text.splitlines()[0] if text else type(error).__name__}",
                           err=True)  # fmt: skip
                sys.exit(1)
            if isinstance(error, OSError):  # the system refused: a path, a full disk, a store
                from sim.store import os_reason

                where = f"{error.filename}: " if error.filename else ""
                typer.echo(f"error: {where}{os_reason(error)}", err=True)
                sys.exit(1)
            if isinstance(error, MemoryError):  # numpy's, past what sim.limits could foresee
                typer.echo("error: out of memory (RAM, ulimit or cgroup); give a smaller "
                           "--chunk-size, fewer --workers or fewer deals", err=True)  # fmt: skip
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
    # Help wraps to the terminal, up to 120 columns (click's own cap is 80).
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120},
    pretty_exceptions_enable=False,
    add_completion=True,
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
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            "-q",
            help="Print only results (stdout) and errors (stderr): no seed line, progress "
            "bar, notes or timings. Before or after the command: rummy -q run ..., "
            "rummy run ... -q",
        ),
    ] = False,
) -> None:
    """Monte Carlo strategy simulator for Knock Rummy and Gin Rummy."""
    from sim.cli.output import set_quiet  # here: --help and --version stay light

    set_quiet(quiet)  # every command, so that one in-process call does not leak to the next


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
