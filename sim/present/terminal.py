"""What a person sees in a terminal or a notebook while and after a study plays: the
consoles (standard output, standard error, where a command says what it does), the
quiet switch, compact tables, numbers and folders as shown, and the progress bar. One
home for presenting, used by the command line (``sim.cli``), the notebook API
(``rummy``) and the benchmarks (``sim.bench``).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass
from typing import Any

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

from sim.stats import format_estimate

__all__ = [
    "ProgressView",
    "Said",
    "Steps",
    "chatter",
    "ci",
    "compact_table",
    "console",
    "err_console",
    "folder",
    "is_quiet",
    "pct",
    "set_quiet",
]

# ``rummy --quiet``: set once per command by the top-level group (sim.cli), read here
# and by whoever asks :func:`is_quiet`.
_quiet = False


def set_quiet(quiet: bool) -> None:
    """Silence everything but results and errors: the seed line, progress bars, notes
    and what a command says it plays or took (errors are printed by ``fail`` and
    ``sim.cli``, which do not look at this switch)."""
    global _quiet
    _quiet = quiet


def is_quiet() -> bool:
    """Whether ``--quiet`` is on (the command line's; a notebook never sets it)."""
    return _quiet


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
    return err_console() if as_json or is_quiet() else console()


def folder(path: Any) -> str:
    """A results folder as shown: ``results/x/``, or an object store's URI as it is (a
    slash after its query would name another place)."""
    from sim.store import location  # numpy: only where a folder is shown

    return location(path).folder_text


def pct(value: float | None) -> str:
    """A share as a percentage with one decimal (``-`` for none)."""
    if value is None or math.isnan(value):
        return "-"
    return f"{value * 100:.1f}"


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


WIDE_TERMINAL = 110  # columns from which the progress bar keeps its full 30


@dataclass(frozen=True)
class Steps:
    """Progress of work that is not a run (a chart check's plays): ``done`` of ``total``
    steps of ``what``, for the same bar as the runs before it."""

    done: int
    total: int
    what: str


@dataclass(frozen=True)
class Said:
    """A line a study says as it plays (the folder it writes, the settings it plays
    next), printed above the bar."""

    text: str


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

    def _draw(self, text: str, total: Any, done: Any = None, rate: str | None = None) -> None:
        """Show the bar, described by ``text``, at ``done`` of ``total`` (None: unknown;
        ``done`` None: as it was), with ``rate`` (None: as it was)."""
        self._show()
        self.bar.update(self.task, description=text, total=total, completed=done)
        if rate is not None:
            self.bar.update(self.task, rate=rate)

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
        """The executor's ``Progress``: chunks of one run, or runs of a study; an
        experiment's phases (:meth:`phase`); or :class:`Steps` of a command's own work."""
        if getattr(p, "phase", None) is not None:
            self.phase(p)
            return
        if isinstance(p, Said):
            self.bar.console.print(p.text, markup=False, highlight=False)
            return
        if isinstance(p, Steps):
            self._draw(f"{self.label}: {p.what} {p.done}/{p.total}", p.total, p.done, "")
            return
        if p.units_done == 0:
            where = "starting"  # nothing played yet: compiling, on a first use
        elif p.runs_total > 1:
            where = f"run {p.runs_done}/{p.runs_total}"
        else:
            where = f"chunk {p.chunks_done}/{p.chunks_total}"
        rate = self._rate(p.hands_played, p.elapsed)
        self._draw(f"{self.label}: {where}", max(p.units_total, 1), p.units_done, rate)

    def phase(self, p: Any) -> None:
        """An experiment's ``ExperimentProgress``: its runs, then what it does next."""
        if p.phase == "run":
            block = f" (+block {p.block})" if p.block else ""
            rate = self._rate(p.hands_done, p.elapsed)
            self._draw(f"{self.label}{block}: run {p.runs_done}/{p.runs_total}",
                       max(p.units_total, 1), p.units_done, rate)  # fmt: skip
            return
        text = {
            "engine": "loading the engine (compiles on first use)",
            "analyse": "analysing",
            "charts": "drawing charts",
            "report": "writing the report",
        }.get(p.phase, p.phase)
        self._draw(
            f"{self.label}: {text}", None if p.phase == "engine" else self.bar.tasks[0].total
        )
