"""Running an experiment: play every setting (resumable), analyse, write its tables.

>>> from sim.study.experiment_file import load_experiment
>>> from sim.study.experiment import run_experiment
>>> from sim.study.execute import Executor
>>> exp = load_experiment("experiments/gin_knock_threshold.toml")
>>> result = run_experiment(exp, Executor(workers=2), out="results")
>>> result.data.summary.select("setting", "estimate", "low", "high", "best")

Charts and the HTML report are drawn from ``result.data`` by ``sim.present.experiment``
(``save_charts``, ``write_experiment_report``); the command line does both, into
``charts/`` and ``report.html`` of the study's folder, holding the folder's lock around
the study and them (``sim.store.study_folder``: a second process is refused in one line).

A study owns only what it wrote. Its folder ``<out>/<name>/`` holds its record, its
tables, its charts folder and report (by their names), its run folders (each named by its
manifest: the run id is the folder's name), a lock and temporaries. A study is never
written into a folder holding anything else, and ``replace`` (``--force``) deletes
another study's own entries only, refusing a folder that holds any other file, folder or
link (named in one line, nothing deleted). Links are never followed: a link inside the
folder is refused, even one named like a run; the folder itself may be a link (a study
kept on another disk), and the same rules hold inside it.

Every run of every setting goes through one queue (``sim.study.execute``); with
``precision`` further blocks of deals are added until the widest headline interval is
narrow enough (block b > 0 uses the seed ``block_seed(seed, b)``, the same for every
setting, so pairing still holds) or ``max_count`` is reached.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from sim import store
from sim.store import PathInput, StorePath
from sim.study import records, rundir
from sim.study.analysis import Analysis, ExperimentData
from sim.study.design import (
    CHART_KINDS,
    EXPERIMENT_JSON,
    MIN_EXTENSION,
    PRECISION_CAP,
    TABLE_FILES,
    Experiment,
    ExperimentError,
)
from sim.study.execute import LOCAL, Executor, Progress, execute
from sim.study.experiment_file import experiment_identity
from sim.study.experiment_store import (
    CLAIMS_FILE,
    EXPERIMENT_KIND,
    HOUSE_RULES_FILE,
    record_of,
    write_tables,
)
from sim.study.kinds import RESULTS_ROOT
from sim.study.runs import RunConfig, RunError, RunResult, new_seed, stored_identity
from sim.study.settings import Setting, expand

__all__ = ["ExperimentProgress", "ExperimentResult", "run_experiment"]


# --- running -------------------------------------------------------------------------


class ExperimentProgress(NamedTuple):
    """What a ``progress`` callback of :func:`run_experiment` receives.

    ``phase``: "engine" (loading or compiling the engine), "run", "analyse". During
    "run": deals or games done of the total over every run of this block (chunks found
    done count as done), hands played by this call, seconds since the block started,
    runs finished, and the block (0: the planned size; 1, 2, ...: blocks added by
    ``precision``).
    """

    phase: str
    units_done: int = 0
    units_total: int = 0
    hands_done: int = 0
    elapsed: float = 0.0
    runs_done: int = 0
    runs_total: int = 0
    block: int = 0


ProgressCallback = Callable[[ExperimentProgress], None]


@dataclass(frozen=True)
class ExperimentResult:
    """What :func:`run_experiment` did and found."""

    experiment: Experiment
    directory: StorePath
    settings: tuple[Setting, ...]
    data: ExperimentData
    runs: tuple[RunResult, ...]
    elapsed: float
    hands_played: int
    blocks: int
    precision_reached: bool | None
    notes: tuple[str, ...] = ()  # what playing it said, once each (runs' notes among them)


def run_experiment(
    experiment: Experiment,
    executor: Executor = LOCAL,
    *,
    out: PathInput = RESULTS_ROOT,
    progress: ProgressCallback | None = None,
    rows: Literal["hands", "none"] | None = None,
    command: str | None = None,
    replace: bool = False,
    resume: bool = False,
) -> ExperimentResult:
    """Play every setting (resumable), analyse, and write the tables and the record.

    Parameters
    ----------
    experiment : Experiment
        Its seed, when None, is drawn here (read it back from ``result.experiment``).
    executor : Executor
        How to play (default: threads of this process, one per CPU).
    out : path
        Results root; everything goes to ``<out>/<experiment.name>/``.
    progress : callable, optional
        Called with :class:`ExperimentProgress` as the work goes on.
    rows : {"hands", "none"}, optional
        Overrides the experiment's ``rows``.
    replace : bool
        When ``<out>/<name>/`` holds another study (an experiment of that name with other
        settings), delete it and play this one there; without it, that is refused.
    resume : bool
        Finish what the folder holds (``--resume``): refused when its runs were all made
        by other code (an edit since changed their ids, so none would be kept). Played
        again instead of resumed, such runs are kept, not read, and a note says so.

    Raises
    ------
    ExperimentError, sim.study.runs.RunError
        One line: an unwritable output directory, a folder holding another study
        (without ``replace``), a run directory holding another run, in use, or whose
        manifest was edited or damaged (refused before anything is written).
    """
    started = time.perf_counter()
    if experiment.seed is None:
        experiment = dataclasses.replace(experiment, seed=new_seed())
    if rows is not None and rows != experiment.rows:
        experiment = dataclasses.replace(experiment, rows=rows)
    command = command if command is not None else shlex.join(sys.argv)
    out = store.location(out)
    directory = out / experiment.name
    settings = expand(experiment, command=command, out=out)
    executor.check()
    configs = [c for s in settings for c in s.configs]
    run_ids = {c.run_id for c in configs}
    # The folder is locked from the claim to the last write: a second process writing
    # the same study is refused before it writes anything (store.study_folder).
    with store.study_folder(directory):
        _claim(directory, experiment, run_ids, replace)
        # The runs already there (a resume, the same command again) are checked before
        # anything is written: an edited or damaged manifest stops the study here, whole.
        for config in configs:
            if (config.run_dir / rundir.MANIFEST).exists():
                rundir.load_manifest(config.run_dir)
        notes = _other_code(directory, configs, run_ids, resume)
        record: dict[str, Any] = {
            "experiment": experiment.to_dict(),
            "created": records.now(),
            "command": command,
        }
        records.write_record(directory / EXPERIMENT_JSON, EXPERIMENT_KIND, record, status="running")

        def tell(phase: str) -> None:
            if progress is not None:
                progress(ExperimentProgress(phase))

        tell("engine")
        blocks: list[list[Setting]] = [settings]
        all_runs: list[RunResult] = []
        hands_played = 0

        def play(block_settings: list[Setting], block: int) -> None:
            nonlocal hands_played

            def report(p: Progress) -> None:
                if progress is not None:
                    progress(
                        ExperimentProgress(
                            "run",
                            p.units_done,
                            p.units_total,
                            p.hands_played,
                            p.elapsed,
                            p.runs_done,
                            p.runs_total,
                            block,
                        )
                    )

            block_configs = [c for s in block_settings for c in s.configs]
            done = execute(block_configs, executor, progress=report)
            all_runs.extend(done)
            hands_played += sum(r.hands_played for r in {r.run_dir: r for r in done}.values())

        play(settings, 0)
        tell("analyse")
        analysis = Analysis(experiment, blocks)
        reached: bool | None = None
        if experiment.precision is not None:
            target = experiment.precision
            cap = experiment.max_count or PRECISION_CAP * experiment.count
            total = experiment.count
            while True:
                widest = analysis.widest_half_width()
                if widest <= target:
                    reached = True
                    break
                if total >= cap:
                    reached = False
                    break
                extra = min(cap - total, max(analysis.extra_units(target), MIN_EXTENSION))
                block = len(blocks)
                more = expand(experiment, block=block, count=extra, command=command, out=out)
                blocks.append(more)
                play(more, block)
                total += extra
                tell("analyse")
                analysis = Analysis(experiment, blocks)
        data = analysis.data(started=started, hands_played=hands_played, reached=reached)
        written = write_tables(data, directory)
        record.update(analysis=record_of(data), tables=written)
        records.write_record(directory / EXPERIMENT_JSON, EXPERIMENT_KIND, record)
    return ExperimentResult(
        experiment=experiment,
        directory=directory,
        settings=tuple(settings),
        data=data,
        runs=tuple(all_runs),
        elapsed=time.perf_counter() - started,
        hands_played=hands_played,
        blocks=len(blocks),
        precision_reached=reached,
        notes=tuple(dict.fromkeys([*notes, *(note for r in all_runs for note in r.notes)])),
    )


def _other_code(
    directory: StorePath, configs: list[RunConfig], run_ids: set[str], resume: bool
) -> list[str]:
    """A note on the runs in ``directory`` that are runs of ``configs`` made by other
    code (before an edit changed their ids): kept, never read, their settings played
    again. A ``resume`` that would keep none of the folder's runs is refused instead."""
    names = {p.name for p in directory.iterdir()} if directory.is_dir() else set()
    theirs = [n for n in sorted(names - run_ids) if rundir.RUN_ID.fullmatch(n)]
    if not theirs:
        return []
    mine = [c.identity() for c in configs]
    changes = []
    for name in theirs:
        try:
            identity = stored_identity(rundir.load_manifest(directory / name)["config"])
        except RunError:  # a run killed before its manifest: not a run of other code
            continue
        same = next((m for m in mine if rundir.same_but_code(identity, m)), None)
        change = None if same is None else rundir.code_change(identity, same)
        if change is not None:
            changes.append(change)
    if not changes:
        return []
    if resume and not names & run_ids:
        made = records.load_record(directory / EXPERIMENT_JSON, EXPERIMENT_KIND, finished=False)
        raise ExperimentError(
            f"cannot resume {directory}: its runs were made by other code ({changes[0]}), "
            "so none of them would be kept; play it again with the command that made it: "
            f"{made.get('command') or 'not stored'}"
        )
    return [
        f"{len(changes)} runs in {directory} were made by other code ({changes[0]}): they "
        "are kept there, not read; their settings played again"
    ]


# Where a study's charts and report are written (sim.present.experiment.play_drawn).
CHARTS_DIR = "charts"
REPORT_FILE = "report.html"
# Every table an experiment may write (an interrupted study's record lists none yet).
_TABLES = frozenset({*TABLE_FILES.values(), CLAIMS_FILE, HOUSE_RULES_FILE})
_CHARTS = frozenset(f"{kind}.{ext}" for kind in CHART_KINDS for ext in ("png", "svg"))


def _claim(directory: StorePath, experiment: Experiment, run_ids: set[str], replace: bool) -> None:
    """Make sure ``directory`` holds nothing but this study's own files before it writes
    there (called under the folder's lock).

    The same study's record: resumed. Otherwise every entry must be a study's own (see
    :func:`_foreign`): a folder holding anything else (a user's files, a link) is refused
    in one line naming it, ``replace`` or not. Another study (its record of other
    settings, damaged, or missing beside its files) is refused in one line, or with
    ``replace`` exactly its own entries are deleted (its runs, tables, charts, report);
    the runs this study shares with it are kept.
    """
    path = directory / EXPERIMENT_JSON
    mine = experiment_identity(experiment.to_dict())
    there = None
    if path.exists():
        try:
            there = records.load_record(path, EXPERIMENT_KIND, finished=False).get("experiment")
        except records.RecordError:
            there = None  # a damaged record: another study, for all we can tell
        if there and experiment_identity(there) == mine:
            return  # the same study: resumed, or played again
    entries = [directory / name for name in sorted(p.name for p in directory.iterdir())]
    foreign = next((p for p in entries if _foreign(p)), None)
    if foreign is not None:
        kind = "folder" if foreign.is_dir() else "file"
        kind = "link" if foreign.is_symlink() else kind
        raise ExperimentError(
            f"{directory} holds {foreign.name}, a {kind} that no study wrote there; rummy "
            "writes a study only into a folder of its own and --force replaces only what "
            "another study wrote: move it out, or give this study another name (--name, or "
            "name in the experiment file) or --out"
        )
    theirs = [p for p in entries if not _leftover(p.name)]
    if not theirs:
        return  # empty, or a lock and temporaries: the folder is free
    if not replace:
        if there:
            what = rundir.first_difference(experiment_identity(there), mine)
        else:
            what = "its record is damaged" if path.exists() else f"it has no {EXPERIMENT_JSON}"
        raise ExperimentError(
            f"{directory} holds another study ({what}); give this one another name "
            "(--name, or name in the experiment file) or --out, or --force to replace it"
        )
    for child in theirs:  # the other study's own entries; the runs we share are kept
        if child.name in run_ids:
            continue
        try:
            if child.is_dir():
                child.remove_tree()
            else:
                child.unlink()
        except OSError as error:
            raise store.failure(child, error, "cannot remove") from None


def _leftover(name: str) -> bool:
    """A lock or a temporary file: what a study's writes leave besides its files."""
    return name == store.LOCK_NAME or (name.startswith(".") and name.endswith(".tmp"))


def _foreign(child: StorePath) -> bool:
    """Whether ``child`` of a study's folder is not a study's own: own are its record,
    its tables and report by name, its charts folder holding only charts, and each run
    folder whose manifest names it (verified: its run id is the folder's name). A link
    is never own (rummy makes none, and it would lead a removal out of the folder)."""
    if child.is_symlink():
        return True
    name = child.name
    if _leftover(name):
        return False
    if name == EXPERIMENT_JSON or name in _TABLES or name == REPORT_FILE:
        return not child.is_file()
    if not child.is_dir():
        return True
    if name == CHARTS_DIR:
        return any(
            p.is_symlink() or not (p.name in _CHARTS or _leftover(p.name)) for p in child.iterdir()
        )
    try:
        manifest = rundir.load_manifest(child)
    except RunError:
        # a run killed before its manifest was written: its lock and temporaries only
        inside = {p.name for p in child.iterdir()}
        run_left = store.LOCK_NAME in inside and all(_leftover(n) for n in inside)
        return not (rundir.RUN_ID.fullmatch(name) and run_left)
    return str(manifest["config"]["config_hash"])[:12] != name
