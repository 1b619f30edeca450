"""A run's directory: its manifest, chunk records and parts, lock, and loaders.

Layout of ``<out>/<experiment>/<run_id>/``::

    manifest.json                 full config, provenance and the executor it was started
                                  on (a resume's default; written first, atomically)
    hands/part-000000.parquet     one part per chunk (rows="hands")
    games/part-000000.parquet     one part per chunk (mode="games", rows="hands")
    summary/part-000000.parquet   exact per-chunk aggregates (always)
    chunks/chunk-000000.json      a finished chunk: its parts' sizes and sha256 digests
    .lock                         held while a process works on the run

``<out>`` may be a folder or an object store (``s3://bucket/prefix``: ``sim.remote``);
every file here is read and written through ``sim.store``, the same either way.

``[0, count)`` is cut into chunks of ``chunk_size`` deal or game numbers. A chunk
counts as done when its record exists and every part it lists still has the recorded
size and sha256: a part that rotted, was truncated or was swapped is played again on
resume, and named by the loaders, which check every part before they read it. Every
hand depends only on (seed, number), so the loaded tables are identical for any chunk
size, worker count and backend; the part files themselves differ with the chunk size.
A killed run (even ``kill -9``) leaves only complete parts and records and hidden
temporary files.

The manifest and every chunk record carry their own digest (``records.write_sealed``),
and the manifest's ``config_hash`` must be the hash of its own config: a manifest
edited or damaged since it was written is refused by every reader, in one line naming
it; a damaged chunk record is named by the loaders and its chunk played again on resume.

A study's run folders sit beside its record, which lists them: every loader of a study
reads the runs its record lists, each checked to be the run it names, through
:func:`listed_runs`, never whatever folders are there.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shlex
import sys
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from sim import store
from sim.store import PathInput, StorePath, one_line
from sim.study.kinds import RUN
from sim.study.provenance import provenance
from sim.study.records import RecordError, load_record, read_sealed, write_sealed
from sim.study.runs import Chunk, RunConfig, RunError, chunks_of, stored_hash
from sim.study.summaries import combine_summaries
from sim.study.tables import (
    SCHEMA_VERSION,
    ResultsError,
    read_parquet_checked,
    scan_parquet_parts,
)

__all__ = [
    "CHUNKS",
    "MANIFEST",
    "RUN_ID",
    "TABLES",
    "Layout",
    "check_chunk",
    "is_live",
    "listed_runs",
    "load_cells",
    "load_games",
    "load_hands",
    "load_manifest",
    "load_summary",
    "locked",
    "prepare",
    "read_record",
    "remove_temporaries",
    "replay_command",
    "replayed_runs",
    "resume_config",
]

MANIFEST = RUN.records[0]
RUN_ID = re.compile(r"[0-9a-f]{12}")  # a run folder's name: the first digits of its hash
TABLES = ("hands", "games", "summary", "cells")
CHUNKS = "chunks"  # one record per finished chunk


class Layout(NamedTuple):
    """How a run directory is cut into files: enough to find and check every part.

    Built from a config (to play) or from a manifest as stored (to load: a finished
    run made by older code still loads, although it could not be resumed).
    """

    config_hash: str
    count: int  # type: ignore[assignment]  # a field named like tuple.count, read as such
    chunk_size: int
    tables: list[str]

    @classmethod
    def of_config(cls, config: RunConfig) -> Layout:
        return cls(config.config_hash, config.count, config.chunk_size, config.tables)  # type: ignore[arg-type]

    @classmethod
    def of_manifest(cls, run_dir: StorePath, manifest: dict[str, Any]) -> Layout:
        cfg = manifest["config"]
        ok = (
            isinstance(cfg.get("config_hash"), str)
            and isinstance(cfg.get("count"), int)
            and isinstance(cfg.get("chunk_size"), int)
            and cfg["chunk_size"] >= 1
            and isinstance(manifest.get("tables"), list)
        )
        if not ok:
            raise RunError(f"{run_dir / MANIFEST}: incomplete config (no chunk layout)")
        return cls(cfg["config_hash"], cfg["count"], cfg["chunk_size"], manifest["tables"])

    @property
    def n_chunks(self) -> int:
        return -(-self.count // self.chunk_size)

    def _number(self, index: int) -> str:
        """A chunk's number in file names, zero-padded so that names sort in order."""
        return f"{index:0{max(6, len(str(max(self.n_chunks - 1, 0))))}d}"

    def part(self, run_dir: StorePath, table: str, index: int) -> StorePath:
        return run_dir / table / f"part-{self._number(index)}.parquet"

    def record(self, run_dir: StorePath, index: int) -> StorePath:
        return run_dir / CHUNKS / f"chunk-{self._number(index)}.json"


def finish_command(run_dir: StorePath, config: Mapping[str, Any]) -> str:
    """The exact command that plays a run's missing or damaged chunks again: ``rummy run
    --resume DIR``, or for a strategy chart's run (which ``--resume`` refuses: it needs
    the chart's own arguments) the command that made it, as its manifest stores it."""
    command = config.get("command")
    if config.get("mode") == "chart" and isinstance(command, str) and command:
        try:
            words = shlex.split(command)
        except ValueError:  # a notebook call (rummy.strategy_chart(...)): as stored
            return command
        if words and Path(words[0]).name in ("rummy", "__main__.py"):  # argv[0] as run
            words[0] = "rummy"
        return shlex.join(words)
    return f"rummy run --resume {run_dir}"


def read_record(
    run_dir: StorePath, layout: Layout, chunk: Chunk, fix: str | None = None
) -> dict[str, Any] | None:
    """A chunk's record, checked (its digest, and that it is this run's and chunk's);
    None while the chunk has none (not played yet).

    Raises
    ------
    sim.study.tables.ResultsError
        The record is unreadable, edited or damaged, or another run's or chunk's (one
        line naming it; resuming the run plays the chunk again).
    """
    index, first, n = chunk
    path = layout.record(run_dir, index)
    fix = fix or f"play it again with: rummy run --resume {run_dir}"
    try:
        record = read_sealed(path, fix, error=ResultsError)
    except FileNotFoundError:
        return None
    ok = (
        record.get("config_hash") == layout.config_hash
        and (record.get("chunk"), record.get("first"), record.get("count")) == (index, first, n)
        and isinstance(record.get("hands"), int)
        and isinstance(record.get("parts"), dict)
        and set(record["parts"]) == set(layout.tables)
    )
    if not ok:
        raise ResultsError(f"{path}: not the record of this run's chunk {index}; {fix}")
    return record


def check_chunk(run_dir: StorePath, layout: Layout, chunk: Chunk) -> tuple[int | None, bool]:
    """``(hands, corrupted)`` of a chunk: hands None when it must be played (again).

    ``corrupted`` is True when the chunk was recorded as done but its record is damaged
    or a part no longer matches its digest (or is missing): it is then played again.
    """
    try:
        record = read_record(run_dir, layout, chunk)
    except ResultsError:
        return None, True
    if record is None:
        return None, False
    for table, digest in record["parts"].items():
        try:
            store.verify_file(layout.part(run_dir, table, chunk[0]), digest)
        except store.StorageError:
            return None, True
    return record["hands"], False


@contextlib.contextmanager
def locked(run_dir: StorePath) -> Iterator[None]:
    """Hold ``run_dir/.lock`` (released by the OS even on ``kill -9``; in an object
    store, a lock object, exclusive only as far as it can be: ``sim.remote.acquire``)."""
    lock = run_dir / ".lock"
    try:
        with lock.hold_lock():
            yield
    except BlockingIOError as holder:  # an object store's lock says whose it is
        whose = f" ({holder})" if str(holder) else ""
        raise RunError(f"{run_dir} is in use by another rummy process{whose}") from None
    except OSError as error:
        raise RunError(f"cannot lock {run_dir}: {lock.reason(error)}") from None


# What every manifest's config holds, with its JSON types (checked on load, so that a
# damaged manifest is one line, not a KeyError deep in an analysis).
_MANIFEST_KEYS: dict[str, type | tuple[type, ...]] = {
    "rules": dict,
    "lineup": list,
    "mode": str,
    "count": int,
    "seed": int,
    "chunk_size": int,
    "rows": str,
    "experiment": str,
    "variant": str,
    "config_hash": str,
}


def _runs_inside(folder: PathInput) -> str:
    """``; runs inside it: ...`` when run folders sit one level below ``folder`` (the
    ``--out``/``--name`` folder a command printed its run under), else nothing."""
    try:
        runs = sorted(str(p.parent) for p in store.location(folder).glob(f"*/{MANIFEST}"))
    except (OSError, ValueError):
        return ""
    if not runs:
        return ""
    return "; runs inside it: " + ", ".join(runs[:3]) + (" ..." if len(runs) > 3 else "")


def load_manifest(run_dir: PathInput) -> dict[str, Any]:
    """The manifest of a run directory, checked: its own digest, its layout, and that
    its ``config_hash`` is the hash of its config (``runs.stored_hash``).

    Raises
    ------
    RunError
        One line naming the manifest: absent, unreadable, edited or damaged (with how
        to play the run again), or not a manifest of this schema.
    """
    path = store.location(run_dir) / MANIFEST
    again = f"delete {path.parent} and play the run again with the command that made it"
    try:
        manifest = read_sealed(path, again, error=RunError)
    except FileNotFoundError:
        hint = _runs_inside(run_dir)
        raise RunError(f"{run_dir} is not a run directory (no {MANIFEST}){hint}") from None
    config = manifest.get("config")
    found = manifest.get("schema_version")
    if isinstance(found, int) and 0 < found < SCHEMA_VERSION:
        raise RunError(
            f"{path}: made by an older rummy-sim (schema_version {found}; this one reads "
            f"{SCHEMA_VERSION}): {again}"
        )
    if found != SCHEMA_VERSION or not isinstance(config, dict):
        raise RunError(f"{path}: not a rummy-sim manifest of schema_version {SCHEMA_VERSION}")
    for key, kinds in _MANIFEST_KEYS.items():
        if not isinstance(config.get(key), kinds) or isinstance(config.get(key), bool):
            raise RunError(f"{path}: incomplete config ({key!r} is missing or not valid)")
    if stored_hash(config) != config["config_hash"]:
        raise RunError(f"{path}: {_HASH_MISMATCH}; {again}")
    return manifest


def listed_runs(
    record_path: StorePath, listed: Any, again: str, *, unlisted_allowed: bool = False
) -> list[StorePath]:
    """The run folders a study's record lists, each checked to hold the run it names:
    what every loader of a study reads, never a glob of its folder.

    ``listed`` is the record's list of runs: mappings holding the ``run_id`` (the run
    folder's name, beside the record) and the ``config_hash`` the study played (an
    experiment's record holds only the id: the first 12 digits of that hash). A listed
    folder that is missing, holds no run, or holds another intact run (renamed, or
    copied in under that name), is refused in one line naming it, ending with ``again``
    (how to play the study's runs again, from anywhere: ``rummy run --resume DIR``,
    :func:`replay_command`); a damaged manifest by :func:`load_manifest`. A run folder
    beside them that the record does not list is refused as well, unless
    ``unlisted_allowed`` (an experiment's folder keeps the runs of its earlier versions,
    made before an edit to the code changed their ids: they are never read).

    Raises
    ------
    sim.study.records.RecordError
        The record lists no runs, or a run id that is not one (damaged, or written by
        an older rummy-sim).
    RunError
        A missing, foreign or swapped run folder, or one the record does not list.
    """
    wanted: dict[str, str | None] = {}  # run id -> the config hash the record names
    for entry in listed if isinstance(listed, list) else []:
        run_id = entry.get("run_id") if isinstance(entry, Mapping) else None
        full = entry.get("config_hash") if isinstance(entry, Mapping) else None
        ok = (
            isinstance(run_id, str)
            and RUN_ID.fullmatch(run_id) is not None
            and (full is None or (isinstance(full, str) and full.startswith(run_id)))
            and wanted.get(run_id, full) == full
        )
        if not ok:
            raise RecordError(f"{record_path}: damaged record (run {run_id!r}); {again}")
        wanted[str(run_id)] = full
    if not wanted:
        raise RecordError(f"{record_path} lists no runs (written by an older rummy-sim); {again}")
    directory = record_path.parent
    runs = [directory / run_id for run_id in wanted]
    wrong = []  # (folder, what it holds instead, whether it must be deleted to play it)
    for run_dir, full in zip(runs, wanted.values(), strict=True):
        if not (run_dir / MANIFEST).exists():
            there = run_dir.exists()
            wrong.append((run_dir, "holds no run" if there else "is missing", there))
            continue
        config = load_manifest(run_dir)["config"]
        held = config["config_hash"]
        if held[:12] != run_dir.name or (full is not None and held != full):
            wrong.append(
                (run_dir, f"holds another run ({held[:12]} of {config['experiment']})", True)
            )
    if wrong:  # all of them in the line: the repair plays every one again at once
        (run_dir, what, _), rest = wrong[0], wrong[1:]
        names = [d.name for d, _, _ in rest[:3]] + [f"{len(rest) - 3} more"] * (len(rest) > 3)
        also = f" (also wrong: {', '.join(names)})" if rest else ""
        doomed = sum(there for _, _, there in wrong)
        fix = (
            again
            if not doomed
            else f"delete {'it' if not rest else 'those that exist'} and {again}"
        )
        raise RunError(
            f"{run_dir} {what}, but {record_path.name} lists run {run_dir.name} there{also}; {fix}"
        )
    found = set() if unlisted_allowed else {m.parent.name for m in directory.glob(f"*/{MANIFEST}")}
    unlisted = sorted(found - set(wanted))
    if unlisted:
        raise RunError(
            f"{directory / unlisted[0]} is a run that {record_path.name} does not list (not "
            f"one of this study's); move it out of {directory}"
        )
    return runs


def replayed_runs(record_path: StorePath, kind: str) -> list[StorePath]:
    """The run folders of a finished study of ``kind`` that has no ``--resume`` (a
    comparison, a tournament: ``<root>/<kind>/<id>/``), as :func:`listed_runs` checks
    them, with :func:`replay_command` as the way to play them again."""
    record = load_record(record_path, kind)
    again = replay_command(record, record_path.parent.parent.parent)
    return listed_runs(record_path, record.get("runs"), again)


def replay_command(record: Mapping[str, Any], root: StorePath) -> str:
    """How to play a study's runs again, in words, for a study with no ``--resume``: the
    command its record holds, aimed at the results root it lies in now and at the seed
    it played (a drawn seed is not on the command line), so that, run from anywhere,
    it plays the missing runs into this study's folder (the finished ones are kept)."""
    command, seed = record.get("command"), record.get("seed")
    if not isinstance(command, str) or not isinstance(seed, int) or isinstance(seed, bool):
        return "play it again with the command that made it"
    if not command.startswith("rummy "):  # a notebook call (rummy.compare(...))
        return f"play it again with {command}, with out={str(root)!r} and seed={seed}"
    try:
        typed = shlex.split(command)
    except ValueError:  # not a command line shlex.join wrote
        return f"play it again with {command}, with --out {root} and --seed {seed}"
    words, skip = [], False
    for word in typed:
        if skip or word in ("--out", "-o", "--seed"):
            skip = not skip
            continue
        if not word.startswith(("--out=", "--seed=")):
            words.append(word)
    return f"play it again with: {shlex.join([*words, '--out', str(root), '--seed', str(seed)])}"


# A config whose config_hash is not its own: edited (and sealed again) since it was made.
_HASH_MISMATCH = "its manifest does not match its own config hash (edited or corrupted)"
_IDENTITY_WORDS = {
    "schema_version": "the table schema version",
    "package_version": "the rummy-sim version",
    "source_digest": "the kernel or strategy sources",
    "tables_digest": "the sim modules that play and shape the tables",
    "plugin_digests": "the sources of a plugin strategy's package",
}


def code_change(theirs: Mapping[str, Any], mine: Mapping[str, Any]) -> str | None:
    """What changed in the code between two identities, in words, or None: the same code."""
    key = next((k for k in _IDENTITY_WORDS if theirs.get(k) != mine.get(k)), None)
    return None if key is None else f"{_IDENTITY_WORDS[key]} changed since it was made"


def same_but_code(theirs: Mapping[str, Any], mine: Mapping[str, Any]) -> bool:
    """Whether two identities name the same run but for the code that plays it."""
    keys = (set(theirs) | set(mine)) - set(_IDENTITY_WORDS)
    return all(theirs.get(k) == mine.get(k) for k in keys)


def first_difference(theirs: dict[str, Any], mine: dict[str, Any]) -> str:
    """What differs between two identities, in words (code first, then settings)."""
    changed = code_change(theirs, mine)
    if changed is not None:
        return changed
    for key in sorted(set(theirs) | set(mine)):
        if theirs.get(key) != mine.get(key):
            return f"{key} is {theirs.get(key)!r} there, {mine.get(key)!r} here"
    return _HASH_MISMATCH


def make_run_dir(run_dir: StorePath) -> None:
    """Create a run directory (RunError, one line, when it cannot be written)."""
    try:
        store.make_dir(run_dir, "run directory")
    except store.StorageError as error:
        raise RunError(str(error)) from None


def prepare(
    config: RunConfig, run_dir: StorePath, executor: dict[str, Any]
) -> tuple[RunConfig, dict[str, Any], list[str]]:
    """Under the lock: check or write the manifest, remove stale temporary files.

    ``executor`` (``Executor.to_dict``) is stored with a new run: a resume plays on it
    unless told otherwise.

    Returns the config to play (an existing run keeps its chunk size), its provenance
    in this process (``provenance.provenance``: a new run's manifest holds it; every
    table written carries it) and notes for the user (a chunk size that was asked for
    but not used).
    """
    notes = []
    manifest_path = run_dir / MANIFEST
    agents = config.agents()  # started now: a program that cannot start stops us here
    if manifest_path.exists():
        manifest = load_manifest(run_dir)
        stored = manifest["config"]
        mine = config.identity()
        theirs = {k: stored.get(k) for k in mine}
        if theirs != mine:
            raise RunError(
                f"{run_dir} holds a different run ({first_difference(theirs, mine)}); "
                "refusing to overwrite it"
            )
        if manifest.get("agents", []) != agents:
            raise RunError(
                f"{run_dir} was played by other agents ({_who(manifest.get('agents'))}), not "
                f"{_who(agents)}; refusing to mix their hands in one run"
            )
        size = stored.get("chunk_size")
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise RunError(f"{manifest_path}: no valid chunk_size")
        if size != config.chunk_size:  # the tables do not depend on it; the parts do
            notes.append(
                f"chunk size {config.chunk_size:,} ignored: this run was started with "
                f"chunks of {size:,} and keeps them"
            )
            config = dataclasses.replace(config, chunk_size=size)
        record = provenance(config)
    else:
        strays = [
            p.name for p in run_dir.iterdir() if not p.name.startswith(".") and p.name != MANIFEST
        ]
        if strays:
            raise RunError(
                f"{run_dir} is not empty and holds no {MANIFEST} ({strays[0]}); "
                "refusing to write a run into it"
            )
        record = provenance(config)
        manifest = {**record, "created": datetime.now(UTC).isoformat(timespec="seconds")}
        manifest["tables"] = config.tables
        manifest["executor"] = executor
        if agents:
            manifest["agents"] = agents  # who they say they are (docs/AGENTS.md)
        write_or_fail(write_sealed, manifest_path, manifest)
    remove_temporaries(run_dir)
    return config, record, notes


def _who(agents: Any) -> str:
    """The agents of a manifest as they said who they are: ``seat 0: name 1.2``."""
    if not isinstance(agents, list) or not agents:
        return "none"
    return "; ".join(f"seat {a.get('seat')}: {a.get('name')} {a.get('version')}" for a in agents)


def remove_temporaries(run_dir: StorePath) -> None:
    """Remove what writers stopped mid-write left in a run's folders (``.*.tmp``: the
    temporaries of ``sim.store``'s atomic writes, a Ray study's markers). Only while
    the run is locked by this process and nothing writes it (no chunk in flight). A
    folder that is not there globs nothing, locally and in an object store: no question
    asked first (in an object store each would be a request)."""
    for folder in (run_dir, *(run_dir / table for table in (*TABLES, CHUNKS))):
        for stale in folder.glob(".*.tmp"):
            stale.unlink(missing_ok=True)


def write_or_fail(writer: Callable[..., Any], *args: Any) -> Any:
    """A store write whose StorageError becomes a RunError (the CLI prints one line)."""
    try:
        return writer(*args)
    except store.StorageError as error:
        raise RunError(str(error)) from None


def resume_config(
    run_dir: PathInput, *, command: str | None = None
) -> tuple[RunConfig, dict[str, Any]]:
    """The config :func:`resume` would play, checked (RunError, one line, if it cannot),
    and the executor the run was started on (``Executor`` keywords; local workers
    capped at this machine's CPU count)."""
    run_dir = store.location(run_dir)
    manifest = load_manifest(run_dir)
    stored = manifest["config"]
    # Runs made before the executor had its own entry kept it in their config.
    execution = manifest.get("executor") or stored
    backend = execution.get("backend", "local")
    workers = execution.get("workers")
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        workers = None
    if backend == "local":
        cpus = os.cpu_count() or 1
        workers = min(workers or cpus, cpus)
    executor = {"workers": workers, "backend": backend, "address": execution.get("address")}
    try:
        config = RunConfig.from_dict(
            stored,
            out=run_dir.parent.parent,
            command=command if command is not None else shlex.join(sys.argv),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise RunError(f"{run_dir / MANIFEST}: incomplete config ({one_line(error)})") from None
    if config.config_hash != stored.get("config_hash"):
        mine = config.identity()
        theirs = {k: stored.get(k) for k in mine}
        raise RunError(
            f"cannot resume {run_dir}: {first_difference(theirs, mine)}; "
            "start a new run instead (the same command without --resume)"
        )
    return config, executor


def is_live(run_dir: StorePath) -> bool:
    """Whether another process holds the run's lock now (it is still playing)."""
    return (run_dir / ".lock").lock_is_held()


def _parts(run_dir: PathInput, table: str) -> tuple[list[StorePath], dict[str, Any]]:
    """Every part of ``table``, in chunk order, each checked against its recorded digest.

    Raises
    ------
    RunError
        The run lacks the table, or is unfinished (still running, or interrupted).
    sim.study.tables.ResultsError
        A part is missing or no longer matches its digest (named, with the fix).
    """
    run_dir = store.location(run_dir)
    manifest = load_manifest(run_dir)
    cfg = manifest["config"]
    tables = manifest.get("tables") or []
    if table not in tables:
        why = (
            "it kept no rows (rows='none'): only the summary"
            if cfg.get("rows") == "none"
            else "it played single deals"
        )
        raise RunError(f"{run_dir} has no {table} table: {why}")
    layout = Layout.of_manifest(run_dir, manifest)
    fix = f"play it again with: {finish_command(run_dir, cfg)}"
    paths, missing = [], 0
    for chunk in chunks_of(layout.count, layout.chunk_size):
        record = read_record(run_dir, layout, chunk, fix)
        if record is None:
            missing += 1
            continue
        path = layout.part(run_dir, table, chunk[0])
        try:
            store.verify_file(path, record["parts"][table])
        except store.StorageError as error:
            raise ResultsError(f"{error}; {fix}") from None
        paths.append(path)
    if missing:
        if is_live(run_dir):
            raise RunError(
                f"{run_dir} is still being played by another process "
                f"({missing} of {layout.n_chunks} chunks to go); wait for it to finish"
            )
        raise RunError(
            f"{run_dir} is incomplete ({missing} of {layout.n_chunks} chunks missing); "
            f"finish it with: {finish_command(run_dir, cfg)}"
        )
    return paths, manifest


def load_hands(run_dir: PathInput) -> pl.LazyFrame:
    """The ``hands`` table of a finished run, lazily (sorted by ``game``, ``deal``).

    Every part is checked against its digest first. The parts are scanned in chunk
    order, and each part is in (game, deal) order, so the frame is sorted without a
    sort step.
    """
    paths, _ = _parts(run_dir, "hands")
    return scan_parquet_parts(paths).set_sorted("game")


def load_games(run_dir: PathInput) -> pl.LazyFrame:
    """The ``games`` table of a finished games run, lazily (sorted by ``game``)."""
    paths, _ = _parts(run_dir, "games")
    return scan_parquet_parts(paths).set_sorted("game")


def load_cells(run_dir: PathInput) -> pl.DataFrame:
    """A finished chart run's ``cells`` table: every part's per-cell sums, stacked
    (``sim.study.chart`` adds them up), each part checked against its digest."""
    paths, _ = _parts(run_dir, "cells")
    frames = [read_parquet_checked(p) for p in paths]
    return pl.concat(frames) if frames else pl.DataFrame()


def load_summary(run_dir: PathInput) -> pl.DataFrame:
    """The run's exact aggregates (``sim.study.summaries.combine_summaries`` of every part).

    The parts are checked against their digests and read with page checksums on.
    """
    paths, manifest = _parts(run_dir, "summary")
    frames = [read_parquet_checked(p) for p in paths]
    summary = combine_summaries(pl.concat(frames) if frames else pl.DataFrame())
    counted = summary.filter(pl.col("stat") == "count")["value"].sum()
    if counted != manifest["config"]["count"]:
        raise ResultsError(
            f"{run_dir}: summary counts {counted} of {manifest['config']['count']} units"
        )
    return summary
