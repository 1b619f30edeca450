"""What every command prints the same way: errors, JSON, numbers, seeds, progress.

* :func:`fail`: one line on stderr and exit status 1 (the command line's own mistakes,
  found by the parser, exit 2; ``sim.cli`` turns every user error a library raises
  into the same one line, so commands need no try/except of their own).
* :func:`print_json`: strict JSON (null, never NaN).
* Numbers: :func:`ci` for an estimate with its interval, :func:`pct`, and p-values
  through ``sim.stats.format_p`` (one rule everywhere).
* :func:`seed_line`: the seed, and how to repeat the run when it was drawn.
* :class:`ProgressView`: the progress bar of a run, a study, or a tune.
* :func:`set_quiet`: ``rummy --quiet``: standard output carries only results and
  standard error only errors (:func:`chatter` is where a command says what it does).
"""

from __future__ import annotations

import contextlib
import math
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
)
from rich.table import Table
from rich.text import Text

from sim.sizes import study_count
from sim.stats import format_estimate
from sim.store import dumps, location

__all__ = [
    "folder",
    "ProgressView",
    "Steps",
    "study_progress",
    "study_size",
    "chatter",
    "ci",
    "command_line",
    "compact_table",
    "console",
    "err_console",
    "fail",
    "fmt",
    "pct",
    "print_json",
    "seed_line",
    "set_quiet",
]

# ``rummy --quiet``: set once per command by the top-level group (sim.cli), read here.
_quiet = False


def set_quiet(quiet: bool) -> None:
    """Silence everything but results and errors: the seed line, progress bars, notes
    and what a command says it plays or took (errors are printed by ``fail`` and
    ``sim.cli``, which do not look at this switch)."""
    global _quiet
    _quiet = quiet


def fail(message: str) -> NoReturn:
    """Print a one-line error on stderr and exit with status 1 (never a traceback)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=1)


def print_json(value: Any) -> None:
    """Print ``value`` as indented, strict JSON on stdout (NaN and infinity as null)."""
    sys.stdout.write(dumps(value, sort_keys=False) + "\n")


def command_line() -> str:
    """This command as typed (stored as provenance)."""
    return shlex.join(["rummy", *sys.argv[1:]]) if sys.argv else "rummy"


def console(markup: bool = True) -> Console:
    """Standard output; tables keep their width when piped (rich assumes 80 columns);
    in a terminal, its width (or ``COLUMNS``), long lines wrapped between words.
    ``markup=False`` prints text with brackets (intervals, specs) as it is."""
    wide = None if sys.stdout.isatty() else 160
    return Console(highlight=False, soft_wrap=False, width=wide, markup=markup)


def err_console() -> Console:
    """Standard error, for progress and notes (silent under ``--quiet``)."""
    return Console(stderr=True, highlight=False, quiet=_quiet)


def chatter(as_json: bool) -> Console:
    """Where a command says what it does (what it plays, the seed, how long it took):
    standard output, or standard error with ``--json`` (standard output then holds only
    the JSON); nowhere under ``--quiet``."""
    return err_console() if as_json or _quiet else console()


def folder(path: Any) -> str:
    """A results folder as shown: ``results/x/``, or an object store's URI as it is (a
    slash after its query would name another place)."""
    return location(path).folder_text


def fmt(value: float, digits: int, sign: bool = False) -> str:
    """A number without the "-0.00" of a tiny negative."""
    return format_estimate(value, sign=sign, decimals=digits)


def ci(
    estimate: float | None,
    low: float | None,
    high: float | None,
    digits: int = 2,
    scale: float = 1.0,
    sign: bool = False,
) -> str:
    """``1.23 [0.98, 1.48]``: a table cell's estimate with its interval, in the decimals
    its width calls for (``sim.stats.format_estimate``, the one rule); ``digits`` only
    when there is no interval; ``scale=100``: a rate in %, the % sign left to the
    column's header ("-" when there is no estimate)."""
    percent = scale == 100.0
    has_interval = low is not None and high is not None and math.isfinite(high - low)
    return format_estimate(
        estimate,
        low,
        high,
        percent=percent,
        sign=sign,
        decimals=None if has_interval else digits,
    ).replace("%", "")


def compact_table(title: str = "") -> Table:
    """A table without borders, its columns one space apart and its header underlined:
    what fits an 80-column terminal."""
    return Table(
        title=title or None,
        title_justify="left",
        title_style="bold",
        box=None,
        padding=(0, 1),
        pad_edge=False,
        collapse_padding=True,
        header_style="bold underline",
    )


def pct(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value * 100:.1f}"


def chosen_seed(seed: int | None) -> tuple[int, bool]:
    """The seed a study plays and whether it was drawn (no --seed given: a fresh one)."""
    if seed is not None:
        return seed, False
    from sim.study.runs import new_seed  # numpy: only for the commands that play

    return new_seed(), True


def seed_line(seed: int, drawn: bool) -> str:
    if drawn:
        return f"seed {seed} (drawn; pass --seed {seed} to repeat or resume)"
    return f"seed {seed}"


WIDE_TERMINAL = 110  # columns from which the progress bar keeps its full 30


@dataclass(frozen=True)
class Steps:
    """Progress of work that is not a run (a chart check's plays): ``done`` of ``total``
    steps of ``what``, for the same bar as the runs before it."""

    done: int
    total: int
    what: str


class _Clock(ProgressColumn):
    """The time left while a step runs ("1:05 left"; "? left" before there is a rate),
    the time it took once done: one short column, so that at 80 columns the bar, not a
    number, gives way."""

    def render(self, task: Task) -> Text:
        if task.finished:
            return Text(_clock(task.finished_time or task.elapsed or 0.0))
        left = task.time_remaining
        return Text(f"{'?' if left is None else _clock(left)} left")


def _clock(seconds: float) -> str:
    """``m:ss``, or ``h:mm:ss`` from an hour."""
    whole = int(seconds + 0.5)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class ProgressView:
    """A rich progress bar on stderr, fed by the executor's ``Progress`` (a run, or
    every run of a study) or by an experiment's phases. Its columns fit 80: the bar
    takes what the words and numbers leave (at most 30 columns)."""

    def __init__(self, label: str):
        self.label = label
        console = err_console()
        # On a narrow terminal the bar takes what is left of the line (the table
        # expands); on a wide one it keeps 30 columns.
        narrow = console.width < WIDE_TERMINAL
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(bar_width=None if narrow else 30),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            _Clock(),
            console=console,
            transient=False,
            disable=_quiet,
            expand=narrow,
        )
        self.task = self.bar.add_task(label, total=None, rate="")
        self.started = time.perf_counter()
        self.shown = False

    def __enter__(self) -> ProgressView:
        return self

    def _show(self) -> None:
        """Start the bar with the first progress, so that what the command says before
        (what it plays, the seed) stays above it, not printed across it."""
        if not self.shown:
            self.bar.start()
            self.shown = True

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if not self.shown:
            return
        if exc_type is not None:  # leave only the error's one line behind
            self.bar.live.transient = True
            # Not Progress.stop: off a terminal it ends with an empty line.
            self.bar.live.stop()
            return
        self.bar.stop()

    @staticmethod
    def _rate(hands: int, elapsed: float) -> str:
        if elapsed <= 0 or hands <= 0:
            return ""
        return f"{hands / elapsed:,.0f} hands/s"

    def progress(self, p: Any) -> None:
        """The executor's ``Progress``: chunks of one run, or runs of a study; or
        :class:`Steps` of a command's own work."""
        if isinstance(p, Steps):
            self._show()
            self.bar.update(
                self.task, description=f"{self.label}: {p.what} {p.done}/{p.total}",
                total=p.total, completed=p.done, rate="",
            )  # fmt: skip
            return
        if p.hands_played == 0 and p.units_done < p.units_total:
            where = "starting"  # the first chunk: compiling, on a first use
        elif p.runs_total > 1:
            where = f"run {p.runs_done}/{p.runs_total}"
        else:
            where = f"chunk {p.chunks_done}/{p.chunks_total}"
        self._show()
        self.bar.update(
            self.task,
            description=f"{self.label}: {where}",
            total=max(p.units_total, 1),
            completed=p.units_done,
            rate=self._rate(p.hands_played, p.elapsed),
        )

    def phase(self, p: Any) -> None:
        """An experiment's ``ExperimentProgress``: its runs, then what it does next."""
        self._show()
        if p.phase == "run":
            block = f" (+block {p.block})" if p.block else ""
            self.bar.update(
                self.task,
                description=f"{self.label}{block}: run {p.runs_done}/{p.runs_total}",
                total=max(p.units_total, 1),
                completed=p.units_done,
                rate=self._rate(p.hands_done, p.elapsed),
            )
            return
        text = {
            "engine": "loading the engine (compiles on first use)",
            "analyse": "analysing",
            "charts": "drawing charts",
            "report": "writing the report",
        }.get(p.phase, p.phase)
        total = None if p.phase == "engine" else self.bar.tasks[0].total
        self.bar.update(self.task, description=f"{self.label}: {text}", total=total)


def study_size(kind: str, deals: int | None, games: int | None) -> tuple[int, str]:
    """The size of a study from ``--deals``/``--games`` (one of them, else the study
    kind's default: ``sim.sizes``), and its mode."""
    if deals is not None and games is not None:
        fail("give --deals or --games, not both")
    return study_count(kind, deals, games)


@contextlib.contextmanager
def study_progress(
    label: str, seed: int, drawn: bool, as_json: bool
) -> Iterator[Callable[[Any], None]]:
    """Yield the progress callback to give a study. Its first call (the study's first
    progress, so after every check of its input) prints the seed line (see
    :func:`chatter`) and starts a progress bar; a study that reports no progress prints
    the line when it ends. A refused study prints only its error."""
    view: ProgressView | None = None

    def print_seed() -> None:
        chatter(as_json).print(seed_line(seed, drawn), markup=False)

    def progress(p: Any) -> None:
        nonlocal view
        if view is None:
            print_seed()
            view = ProgressView(label).__enter__()
        view.progress(p)

    try:
        yield progress
    except BaseException as error:
        if view is not None:
            view.__exit__(type(error), error, None)
        raise
    else:
        if view is None:  # a study with nothing left to play still names its seed
            print_seed()
        else:
            view.__exit__(None, None, None)
