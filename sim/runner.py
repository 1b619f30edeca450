"""Runs: many deals or games, in chunks, on worker threads or Ray, to Parquet parts.

>>> from sim.runner import RunConfig, run, load_hands
>>> config = RunConfig(experiment="demo", rules="gin", lineup=("greedy", "simple"),
...                    mode="deals", count=1_000_000, seed=7)
>>> result = run(config)                       # results/demo/<run_id>/
>>> load_hands(result.run_dir).group_by("outcome").len().collect()

Layout of a run directory ``<out>/<experiment>/<run_id>/``::

    manifest.json                 full config and provenance (written first, atomically)
    hands/part-000000.parquet     one part per chunk (rows="hands")
    games/part-000000.parquet     one part per chunk (mode="games", rows="hands")
    summary/part-000000.parquet   exact per-chunk aggregates (always)
    chunks/chunk-000000.json      a finished chunk: its parts' sizes and sha256 digests
    .lock                         held while a process works on the run

Chunks
------
``[0, count)`` is cut into chunks of ``chunk_size`` deal or game numbers. A chunk is a
pure function of (config, first number, count): :func:`run_chunk` plays it with
``threads=1`` and returns its Arrow tables, wherever it runs (in this process when
``workers == 1``, on a pool of ``workers`` threads of this process (the kernels
release the GIL), or as a Ray task). Every hand depends only
on (seed, number) (``kernels/rng.py``), so the loaded tables are identical for any
chunk size, worker count and backend; the part files themselves differ with the chunk
size. The driver writes each part atomically (``sim.results.write_parquet_atomic``),
then the chunk's record with the digest of every part, and holds at most two chunks
per worker in flight; chunks are listed lazily, so memory stays flat however large
the run. A chunk counts as done when its record exists and every part it lists still
has the recorded size and sha256: a part that rotted, was truncated or was swapped is
played again on resume, and named by the loaders, which check every part before they
read it. A killed run (even ``kill -9``) leaves only complete parts and records and
hidden temporary files, and :func:`resume` (or :func:`run` with the same config)
plays exactly the missing chunks.

Local workers are threads, not processes: a spawn process pool paid a process start
and an engine load (about a second each) on every run and pickled every chunk's tables
back to the driver. Side by side on 2 million Gin deals, 2 workers on 2 busy cores, a
run writing the hands table took 53% more CPU time than the bare kernel with the pool
and 8% more with threads (``rummy bench run`` measures it). Threads share the engine
the driver loaded and one copy of its memory.

Run identity
------------
``config_hash`` is the sha256 of the canonical JSON of what determines the results
(:meth:`RunConfig.identity`): rules, variant label, line-up, mode, count, seed, rows,
the package version, the table schema version and the digests of every source that
can change a table's bytes: the kernels and strategies, the ``sim`` modules that play
and shape the tables (``kernels.results_digest``), and the package of every plugin
strategy seated (``strategies.plugin_digest``). Not in it: chunk size (the tables do
not depend on it: an existing run keeps the chunk size it was started with), workers,
backend, address, output root, command line. ``run_id`` is its first 12 hex digits.
A directory whose manifest holds another identity is refused (:class:`RunError`),
never overwritten, and a resume after an edit to any of those sources is refused
with a line that names what changed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
import polars as pl

from sim import results as R
from sim import store
from sim.rules import RuleSet, get_rules

__all__ = [
    "CHUNK_DEALS",
    "CHUNK_GAMES",
    "Progress",
    "RunConfig",
    "RunError",
    "RunResult",
    "load_games",
    "load_hands",
    "load_manifest",
    "load_summary",
    "resume",
    "run",
    "run_chunk",
]

CHUNK_DEALS = 100_000  # ~1 s of one core for two greedy seats: progress and resume granularity
CHUNK_GAMES = 2_000  # ~20 hands a game: about as many hands as CHUNK_DEALS
MAX_COUNT = 2**63 - 1  # deal and game numbers are the engine's int64: 0 .. 2**63 - 2
MAX_SEED = 2**128 - 1  # numpy's SeedSequence takes any size; 128 bits is all its entropy
MANIFEST = "manifest.json"
TABLES = ("hands", "games", "summary")
CHUNKS = "chunks"  # one record per finished chunk
Chunk = tuple[int, int, int]  # (index, first number, count)
_IN_FLIGHT_PER_WORKER = 2  # chunks queued per worker: keeps workers busy, memory flat


class RunError(ValueError):
    """A run that cannot start or go on (one-line message)."""


class Progress(NamedTuple):
    """What a ``progress`` callback receives after each chunk (and once at the start).

    ``chunks_done`` and ``units_done`` (deals or games) count chunks finished before
    this call too (found done as the run goes through its chunks); ``hands_done``
    counts every hand of the finished chunks, ``hands_played`` only those this call
    played; ``elapsed`` is seconds since this call started.
    """

    chunks_done: int
    chunks_total: int
    units_done: int
    units_total: int
    hands_done: int
    elapsed: float
    hands_played: int = 0


def new_seed() -> int:
    """A fresh seed from the OS entropy pool (NumPy's advice; print and store it)."""
    return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def check_name(name: str, key: str = "experiment") -> str:
    """A name that becomes a folder: letters, digits, '.', '_', '-', not starting with
    '.' or '-' (a hidden folder, or one that reads as an option)."""
    ok = (
        isinstance(name, str)
        and (name[:1].isalnum() or name[:1] == "_")
        and all(c.isalnum() or c in "._-" for c in name)
    )
    if not ok:
        raise RunError(
            f"{key}={name!r} is not allowed; use letters, digits, '.', '_' and '-', "
            "starting with a letter, a digit or '_'"
        )
    return name


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """Everything a run needs; validated and normalised when built.

    Attributes
    ----------
    rules : RuleSet or str
        A rule set or a preset name.
    lineup : tuple of str
        Seat specs (``greedy:knock_at=7``); one spec fills every seat. Stored
        normalised: one canonical spec per seat (``strategies.format_seat``).
    count : int
        Deals (``mode="deals"``: single hands) or games (``mode="games"``: the rule
        set's ``game`` mode, which must not be "hand").
    experiment : str
        Folder name under ``out``.
    variant : str or None
        Label of the rule variant in the tables; None: the rule set's name.
    seed : int or None
        Master seed; None draws a fresh one (read it back from ``config.seed``).
    chunk_size : int or None
        Deals or games per chunk; None: ``CHUNK_DEALS`` or ``CHUNK_GAMES``.
    workers : int or None
        Threads (local) or concurrent tasks (Ray); None: the CPU count.
    backend : {"local", "ray"}
    address : str or None
        Ray cluster address (``ray.init(address=...)``); None starts a local instance
        (or uses the one this process already started). Cluster nodes need rummy-sim
        installed, at the same version.
    rows : {"hands", "none"}
        Keep the per-hand and per-game rows, or only the summary aggregates.
    out : Path
        Results root (default ``results``).
    command : str or None
        The command line, stored as provenance; None: this process's ``sys.argv``.
    """

    rules: RuleSet | str
    lineup: tuple[str, ...] | str
    count: int
    mode: Literal["deals", "games"] = "deals"
    experiment: str = "default"
    variant: str | None = None
    seed: int | None = None
    chunk_size: int | None = None
    workers: int | None = None
    backend: Literal["local", "ray"] = "local"
    address: str | None = None
    rows: Literal["hands", "none"] = "hands"
    out: Path | str = Path("results")
    command: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        from strategies import format_seat, parse_lineup

        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        rules = self.rules if isinstance(self.rules, RuleSet) else get_rules(self.rules)
        put("rules", rules)
        put("lineup", tuple(format_seat(s, p) for s, p in parse_lineup(self.lineup, rules.players)))
        check_name(self.experiment)
        if self.mode not in ("deals", "games"):
            raise RunError(f"mode={self.mode!r} is not allowed; choose 'deals' or 'games'")
        if self.mode == "games" and rules.game_mode[0] == "hand":
            raise RunError(
                f"rules {rules.name!r} have game='hand': play single deals, or set a game mode"
            )
        for name in ("count", "chunk_size", "workers", "seed"):
            value = getattr(self, name)
            if value is None:
                continue
            low = 0 if name == "seed" else 1
            high = MAX_SEED if name == "seed" else MAX_COUNT
            ok = isinstance(value, int | np.integer) and not isinstance(value, bool)
            if not ok or not low <= value <= high:
                raise RunError(f"{name}={value!r} is not allowed; choose an integer {low}..{high}")
            put(name, int(value))
        if self.seed is None:
            put("seed", new_seed())
        if self.chunk_size is None:
            put("chunk_size", CHUNK_DEALS if self.mode == "deals" else CHUNK_GAMES)
        if self.workers is None:
            put("workers", os.cpu_count() or 1)
        if self.backend not in ("local", "ray"):
            raise RunError(f"backend={self.backend!r} is not allowed; choose 'local' or 'ray'")
        if self.address is not None and self.backend != "ray":
            raise RunError("an address needs backend='ray'")
        if self.rows not in ("hands", "none"):
            raise RunError(f"rows={self.rows!r} is not allowed; choose 'hands' or 'none'")
        if self.variant is None:
            put("variant", rules.name)
        elif not isinstance(self.variant, str) or not self.variant:
            raise RunError(f"variant={self.variant!r} is not allowed; give a non-empty label")
        put("out", Path(self.out))
        if self.command is None:
            put("command", shlex.join(sys.argv))

    # --- identity ------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.rules.players  # type: ignore[union-attr]

    @property
    def lineup_label(self) -> str:
        """The ``lineup`` column: canonical seat specs joined by "/"."""
        return "/".join(self.lineup)

    @property
    def hollywood(self) -> bool:
        return self.rules.game_mode[0] == "hollywood"  # type: ignore[union-attr]

    def identity(self) -> dict[str, Any]:
        """What determines the results: hashed into ``config_hash``."""
        from kernels import source_digest
        from sim import __version__
        from strategies import parse_lineup, plugin_digests

        seated = [strategy for strategy, _ in parse_lineup(self.lineup, self.players)]
        return {
            "schema_version": R.SCHEMA_VERSION,
            "package_version": __version__,
            "source_digest": source_digest(),
            "tables_digest": R.tables_digest(),
            "plugin_digests": plugin_digests(seated),
            "variant": self.variant,
            "rules": self.rules.to_dict(),  # type: ignore[union-attr]
            "lineup": list(self.lineup),
            "mode": self.mode,
            "count": self.count,
            "seed": self.seed,
            "rows": self.rows,
        }

    @cached_property
    def config_hash(self) -> str:
        return hashlib.sha256(_canonical_json(self.identity()).encode()).hexdigest()

    @property
    def run_id(self) -> str:
        return self.config_hash[:12]

    @property
    def run_dir(self) -> Path:
        return Path(self.out) / self.experiment / self.run_id

    @property
    def n_chunks(self) -> int:
        return -(-self.count // self.chunk_size)  # type: ignore[operator]

    def chunks(self) -> Iterator[Chunk]:
        """``(index, first, n)`` of every chunk, lazily (a run may have billions)."""
        assert self.chunk_size is not None
        return _chunks(self.count, self.chunk_size)

    @property
    def layout(self) -> Layout:
        return Layout(self.config_hash, self.count, self.chunk_size, _tables_of(self))  # type: ignore[arg-type]

    def to_dict(self) -> dict[str, Any]:
        """The full config, JSON-ready (stored in the manifest and every file)."""
        from strategies import parse_lineup

        seats = parse_lineup(self.lineup, self.players)
        return {
            **self.identity(),
            "config_hash": self.config_hash,
            "run_id": self.run_id,
            "experiment": self.experiment,
            "strategies": [
                {"seat": k, "name": s.name, "params": dict(p._asdict())}
                for k, (s, p) in enumerate(seats)
            ],
            "chunk_size": self.chunk_size,
            "n_chunks": self.n_chunks,
            "workers": self.workers,
            "backend": self.backend,
            "address": self.address,
            "out": str(self.out),
            "command": self.command,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], **overrides: Any) -> RunConfig:
        """Rebuild a config from :meth:`to_dict` output (e.g. a manifest's)."""
        values = {
            "rules": RuleSet.from_dict(data["rules"]),
            "lineup": tuple(data["lineup"]),
            "count": data["count"],
            "mode": data["mode"],
            "experiment": data["experiment"],
            "variant": data["variant"],
            "seed": data["seed"],
            "chunk_size": data["chunk_size"],
            "workers": data.get("workers"),
            "backend": data.get("backend", "local"),
            "address": data.get("address"),
            "rows": data["rows"],
            "out": data.get("out", "results"),
            "command": data.get("command"),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


@dataclass(frozen=True)
class RunResult:
    """What :func:`run` did: the run directory and counts; ``hands()`` etc. load it."""

    config: RunConfig
    run_dir: Path
    chunks_total: int
    chunks_run: int
    chunks_skipped: int
    hands: int
    elapsed: float
    notes: tuple[str, ...] = ()  # what the user should know (a chunk size not used, replays)

    @property
    def run_id(self) -> str:
        return self.config.run_id

    @property
    def seed(self) -> int:
        return self.config.seed  # type: ignore[return-value]

    def load_hands(self) -> pl.LazyFrame:
        return load_hands(self.run_dir)

    def load_games(self) -> pl.LazyFrame:
        return load_games(self.run_dir)

    def load_summary(self) -> pl.DataFrame:
        return load_summary(self.run_dir)


# --- one chunk -----------------------------------------------------------------------

_RULES_CACHE: dict[str, RuleSet] = {}


def _payload(config: RunConfig) -> dict[str, Any]:
    """What a chunk needs, as plain data (pickled to workers and Ray tasks)."""
    return {"config": config.to_dict(), "provenance": R.provenance(config)}


def run_chunk(payload: dict[str, Any], chunk_index: int, first: int, n: int) -> dict[str, Any]:
    """Play one chunk and return its tables: a pure function of its arguments.

    Parameters
    ----------
    payload : dict
        ``{"config": RunConfig.to_dict(), "provenance": results.provenance(config)}``.
    chunk_index, first, n : int
        The chunk plays deal or game numbers ``first .. first + n - 1``.

    Returns
    -------
    dict
        ``{"chunk": chunk_index, "hands": hands played, "tables": {name: pa.Table}}``
        with ``summary`` always, ``hands`` (and ``games`` in games mode) when rows are
        kept; every table carries its provenance.
    """
    from sim.engine import play_deals, play_games

    cfg = payload["config"]
    rules_key = _canonical_json(cfg["rules"])
    rules = _RULES_CACHE.get(rules_key)
    if rules is None:
        rules = _RULES_CACHE.setdefault(rules_key, RuleSet.from_dict(cfg["rules"]))
    players = rules.players
    variant, lineup = cfg["variant"], "/".join(cfg["lineup"])
    hollywood = rules.game_mode[0] == "hollywood"
    games = None
    if cfg["mode"] == "deals":
        hands = play_deals(rules, cfg["lineup"], deals=n, seed=cfg["seed"], first=first, threads=1)
    else:
        games, hands = play_games(
            rules, cfg["lineup"], games=n, seed=cfg["seed"], first=first, threads=1
        )
    rows = [("count", -1, -1, n), *R.summarize_hands(hands, players)]
    tables = {}
    if cfg["rows"] == "hands":
        tables["hands"] = R.to_arrow(hands, players, variant, lineup)
    if games is not None:
        rows += R.summarize_games(games, players, hollywood=hollywood)
        if cfg["rows"] == "hands":
            tables["games"] = R.games_to_arrow(games, players, variant, lineup, hollywood=hollywood)
    tables["summary"] = R.summary_to_arrow(rows, variant, lineup)
    chunk = {
        "index": chunk_index,
        "first": first,
        "count": n,
        "size": cfg["chunk_size"],
        "n_chunks": cfg["n_chunks"],
    }
    n_hands = len(hands.number)
    for name, table in tables.items():
        meta = {
            **payload["provenance"],
            "table": name,
            "chunk": chunk,
            "rows": table.num_rows,
            "hands": n_hands,
        }
        tables[name] = R.with_provenance(table, meta)
    return {"chunk": chunk_index, "hands": n_hands, "tables": tables}


# --- the run directory ---------------------------------------------------------------


def _tables_of(config: RunConfig) -> list[str]:
    if config.rows == "none":
        return ["summary"]
    return ["hands", "games", "summary"] if config.mode == "games" else ["hands", "summary"]


class Layout(NamedTuple):
    """How a run directory is cut into files: enough to find and check every part.

    Built from a config (to play) or from a manifest as stored (to load: a finished
    run made by older code still loads, although it could not be resumed).
    """

    config_hash: str
    count: int
    chunk_size: int
    tables: list[str]

    @classmethod
    def of_manifest(cls, run_dir: Path, manifest: dict[str, Any]) -> Layout:
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

    def part(self, run_dir: Path, table: str, index: int) -> Path:
        return run_dir / table / f"part-{self._number(index)}.parquet"

    def record(self, run_dir: Path, index: int) -> Path:
        return run_dir / CHUNKS / f"chunk-{self._number(index)}.json"


def _chunks(count: int, size: int) -> Iterator[Chunk]:
    for i in range(-(-count // size)):
        yield i, i * size, min(size, count - i * size)


def _read_record(run_dir: Path, layout: Layout, chunk: Chunk) -> dict[str, Any] | None:
    """A chunk's record when it exists and belongs to this run and chunk, else None."""
    index, first, n = chunk
    try:
        record = json.loads(layout.record(run_dir, index).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    ok = (
        isinstance(record, dict)
        and record.get("config_hash") == layout.config_hash
        and (record.get("chunk"), record.get("first"), record.get("count")) == (index, first, n)
        and isinstance(record.get("hands"), int)
        and isinstance(record.get("parts"), dict)
        and set(record["parts"]) == set(layout.tables)
    )
    return record if ok else None


def _check_chunk(run_dir: Path, layout: Layout, chunk: Chunk) -> tuple[int | None, bool]:
    """``(hands, corrupted)`` of a chunk: hands None when it must be played (again).

    ``corrupted`` is True when the chunk was recorded as done but a part no longer
    matches its digest (or is missing): it is then played again.
    """
    record = _read_record(run_dir, layout, chunk)
    if record is None:
        return None, False
    for table, digest in record["parts"].items():
        try:
            store.verify_file(layout.part(run_dir, table, chunk[0]), digest)
        except store.StorageError:
            return None, True
    return record["hands"], False


def _write_chunk(run_dir: Path, layout: Layout, chunk: Chunk, result: dict[str, Any]) -> None:
    """Write a chunk's parts, then its record: the chunk is done once the record is."""
    index, first, n = chunk
    parts = {
        table: R.write_parquet_atomic(data, layout.part(run_dir, table, index))
        for table, data in result["tables"].items()
    }
    record = {
        "config_hash": layout.config_hash,
        "chunk": index,
        "first": first,
        "count": n,
        "hands": result["hands"],
        "parts": parts,
    }
    store.write_json_atomic(layout.record(run_dir, index), record)


@contextlib.contextmanager
def _locked(run_dir: Path) -> Iterator[None]:
    """Hold ``run_dir/.lock`` (released by the OS even on ``kill -9``)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock
        yield
        return
    with open(run_dir / ".lock", "a+b") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunError(f"{run_dir} is in use by another rummy process") from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


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


def load_manifest(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of a run directory (RunError, one line, when absent or broken)."""
    path = Path(run_dir) / MANIFEST
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise RunError(f"{run_dir} is not a run directory (no {MANIFEST})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RunError(f"{path}: unreadable manifest ({R._one_line(error)})") from None
    ok = (
        isinstance(manifest, dict)
        and manifest.get("schema_version") == R.SCHEMA_VERSION
        and isinstance(manifest.get("config"), dict)
    )
    if not ok:
        raise RunError(f"{path}: not a rummy-sim manifest of schema_version {R.SCHEMA_VERSION}")
    config = manifest["config"]
    for key, kinds in _MANIFEST_KEYS.items():
        if not isinstance(config.get(key), kinds) or isinstance(config.get(key), bool):
            raise RunError(f"{path}: incomplete config ({key!r} is missing or not valid)")
    return manifest  # type: ignore[no-any-return]


_IDENTITY_WORDS = {
    "schema_version": "the table schema version",
    "package_version": "the rummy-sim version",
    "source_digest": "the kernel or strategy sources",
    "tables_digest": "the sim modules that play and shape the tables",
    "plugin_digests": "the sources of a plugin strategy's package",
}


def _first_difference(theirs: dict[str, Any], mine: dict[str, Any]) -> str:
    """What differs between two identities, in words (code first, then settings)."""
    for key in [*_IDENTITY_WORDS, *sorted(set(theirs) | set(mine))]:
        if theirs.get(key) != mine.get(key):
            if key in _IDENTITY_WORDS:
                return f"{_IDENTITY_WORDS[key]} changed since it was made"
            return f"{key} is {theirs.get(key)!r} there, {mine.get(key)!r} here"
    return "its manifest does not match its own config hash (edited or corrupted)"


def _make_dir(run_dir: Path) -> None:
    try:
        store.make_dir(run_dir, "run directory")
    except store.StorageError as error:
        raise RunError(str(error)) from None


def _prepare(config: RunConfig, run_dir: Path) -> tuple[RunConfig, list[str]]:
    """Under the lock: check or write the manifest, remove stale temporary files.

    Returns the config to play (an existing run keeps its chunk size) and notes for
    the user (a chunk size that was asked for but not used).
    """
    notes = []
    manifest_path = run_dir / MANIFEST
    if manifest_path.exists():
        manifest = load_manifest(run_dir)
        stored = manifest["config"]
        mine = config.identity()
        theirs = {k: stored.get(k) for k in mine}
        if theirs != mine:
            raise RunError(
                f"{run_dir} holds a different run ({_first_difference(theirs, mine)}); "
                "refusing to overwrite it"
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
    else:
        strays = [
            p.name for p in run_dir.iterdir() if not p.name.startswith(".") and p.name != MANIFEST
        ]
        if strays:
            raise RunError(
                f"{run_dir} is not empty and holds no {MANIFEST} ({strays[0]}); "
                "refusing to write a run into it"
            )
        manifest = R.provenance(config)
        manifest["created"] = datetime.now(UTC).isoformat(timespec="seconds")
        manifest["tables"] = _tables_of(config)
        _write(store.write_json_atomic, manifest_path, manifest)
    for folder in (run_dir, *(run_dir / table for table in (*TABLES, CHUNKS))):
        if folder.is_dir():
            for stale in folder.glob(".*.tmp"):
                stale.unlink(missing_ok=True)
    return config, notes


def _write(writer: Callable[..., Any], *args: Any) -> Any:
    """A store write whose StorageError becomes a RunError (the CLI prints one line)."""
    try:
        return writer(*args)
    except store.StorageError as error:
        raise RunError(str(error)) from None


# --- executing chunks ----------------------------------------------------------------


def _run_local_inline(payload: dict[str, Any], todo: Iterator[Chunk]) -> Iterator[dict[str, Any]]:
    for index, first, n in todo:
        yield run_chunk(payload, index, first, n)


def _load_engine(payload: dict[str, Any]) -> None:
    """Load (or compile) the engine for this run in the calling thread.

    The worker threads then find it loaded: the first load writes the generated
    dispatcher and imports it, which is not meant to happen twice at once.
    """
    from sim.engine import play_deals, play_games

    cfg = payload["config"]
    rules = RuleSet.from_dict(cfg["rules"])
    if cfg["mode"] == "deals":
        play_deals(rules, cfg["lineup"], deals=0, seed=cfg["seed"], threads=1)
    else:
        play_games(rules, cfg["lineup"], games=0, seed=cfg["seed"], threads=1)


def _run_local_threads(
    payload: dict[str, Any], todo: Iterator[Chunk], workers: int
) -> Iterator[dict[str, Any]]:
    """Chunks on ``workers`` threads of this process.

    The engine kernels release the GIL, so chunks play in parallel as on a process
    pool, without a process start and an engine load per worker (about a second
    each, a large share of a run of a few million hands) and without pickling every
    chunk's tables back to the driver. The Python work around a chunk (summaries,
    Arrow conversion) holds the GIL only briefly; Parquet writing releases it.
    """
    _load_engine(payload)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rummy-chunk")
    pending: set[Future[dict[str, Any]]] = set()
    limit = workers * _IN_FLIGHT_PER_WORKER
    try:
        while True:
            for index, first, n in todo:
                pending.add(pool.submit(run_chunk, payload, index, first, n))
                if len(pending) >= limit:
                    break
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()  # a chunk's error (e.g. StrategyDecisionError) stops the run
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_ray(
    payload: dict[str, Any], todo: Iterator[Chunk], workers: int, address: str | None
) -> Iterator[dict[str, Any]]:
    try:
        import ray
    except ImportError:
        raise RunError("backend 'ray' needs Ray: pip install 'rummy-sim[ray]'") from None
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address is None:
            options["num_cpus"] = workers
        ray.init(address=address, **options)
        started = True
    try:
        task = ray.remote(num_cpus=1, max_retries=2)(run_chunk)
        payload_ref = ray.put(payload)
        pending: list[Any] = []
        limit = workers * _IN_FLIGHT_PER_WORKER
        while True:
            for index, first, n in todo:
                pending.append(task.remote(payload_ref, index, first, n))
                if len(pending) >= limit:
                    break
            if not pending:
                break
            done, pending = ray.wait(pending, num_returns=1)
            try:
                result = ray.get(done[0])
            except ray.exceptions.RayTaskError as error:
                cause = getattr(error, "cause", None)
                if isinstance(cause, Exception):  # e.g. StrategyDecisionError, as locally
                    raise cause from None
                raise RunError(f"a Ray task failed: {R._one_line(error)}") from None
            yield result
    finally:
        if started:
            ray.shutdown()


def _execute(
    config: RunConfig, payload: dict[str, Any], todo: Iterator[Chunk]
) -> Iterator[dict[str, Any]]:
    workers = min(config.workers or 1, config.n_chunks)
    if config.backend == "ray":
        return _run_ray(payload, todo, workers, config.address)
    if workers == 1:
        return _run_local_inline(payload, todo)
    return _run_local_threads(payload, todo, workers)


def _run_in(
    config: RunConfig,
    run_dir: Path,
    progress: Callable[[Progress], None] | None,
) -> RunResult:
    started = time.perf_counter()
    _make_dir(run_dir)
    with _locked(run_dir):
        config, notes = _prepare(config, run_dir)
        count = {"done": 0, "units": 0, "hands": 0, "played": 0, "corrupted": 0, "new": 0}
        sizes: dict[int, Chunk] = {}  # chunks in flight

        def report() -> None:
            if progress is not None:
                progress(
                    Progress(
                        count["done"],
                        config.n_chunks,
                        count["units"],
                        config.count,
                        count["hands"],
                        time.perf_counter() - started,
                        count["new"],
                    )
                )

        def finished(chunk: Chunk, hands: int) -> None:
            count["done"] += 1
            count["units"] += chunk[2]
            count["hands"] += hands

        layout = config.layout

        def todo() -> Iterator[Chunk]:
            """The chunks left to play, checked one by one as the workers ask for them."""
            for chunk in config.chunks():
                hands, corrupted = _check_chunk(run_dir, layout, chunk)
                count["corrupted"] += corrupted
                if hands is None:
                    sizes[chunk[0]] = chunk
                    yield chunk
                else:
                    finished(chunk, hands)
                    report()

        report()
        for folder in (*_tables_of(config), CHUNKS):
            (run_dir / folder).mkdir(exist_ok=True)
        payload = _payload(config)
        with contextlib.closing(_execute(config, payload, todo())) as results:
            for result in results:
                chunk = sizes.pop(result["chunk"])
                _write(_write_chunk, run_dir, layout, chunk, result)
                finished(chunk, result["hands"])
                count["played"] += 1
                count["new"] += result["hands"]
                del result
                report()
    if count["corrupted"]:
        notes.append(
            f"{count['corrupted']} finished chunk(s) failed their digest check "
            "(a part changed on disk) and were played again"
        )
    return RunResult(
        config=config,
        run_dir=run_dir,
        chunks_total=config.n_chunks,
        chunks_run=count["played"],
        chunks_skipped=config.n_chunks - count["played"],
        hands=count["hands"],
        elapsed=time.perf_counter() - started,
        notes=tuple(notes),
    )


def run(config: RunConfig, progress: Callable[[Progress], None] | None = None) -> RunResult:
    """Play a run into ``config.run_dir``; chunks already done there are kept.

    Raises
    ------
    RunError
        The run directory cannot be made or written, holds another run, or is in use.
    """
    return _run_in(config, config.run_dir, progress)


def resume(
    run_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    backend: Literal["local", "ray"] | None = None,
    address: str | None = None,
    command: str | None = None,
    progress: Callable[[Progress], None] | None = None,
) -> RunResult:
    """Finish the run in ``run_dir`` from its manifest: plays only the missing chunks.

    ``workers``, ``backend`` and ``address`` may differ from the first call (they do
    not change results); by default the stored ones, local workers capped at this
    machine's CPU count. A run made by other code (any source in its identity) is
    refused with a line that says what changed.
    """
    run_dir = Path(run_dir)
    config = resume_config(
        run_dir, workers=workers, backend=backend, address=address, command=command
    )
    return _run_in(config, run_dir, progress)


def resume_config(
    run_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    backend: Literal["local", "ray"] | None = None,
    address: str | None = None,
    command: str | None = None,
) -> RunConfig:
    """The config :func:`resume` would play, checked (RunError, one line, if it cannot)."""
    run_dir = Path(run_dir)
    manifest = load_manifest(run_dir)
    stored = manifest["config"]
    if workers is None and (backend or stored.get("backend")) == "local":
        stored_workers = stored.get("workers")
        cpus = os.cpu_count() or 1
        workers = min(stored_workers, cpus) if isinstance(stored_workers, int) else cpus
    try:
        config = RunConfig.from_dict(
            stored,
            out=run_dir.parent.parent,
            workers=workers,
            backend=backend,
            address=address,
            command=command if command is not None else shlex.join(sys.argv),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise RunError(f"{run_dir / MANIFEST}: incomplete config ({R._one_line(error)})") from None
    if config.config_hash != stored.get("config_hash"):
        mine = config.identity()
        theirs = {k: stored.get(k) for k in mine}
        raise RunError(
            f"cannot resume {run_dir}: {_first_difference(theirs, mine)}; "
            "start a new run instead (the same command without --resume)"
        )
    return config


# --- loading ---------------------------------------------------------------------------


def is_live(run_dir: Path) -> bool:
    """Whether another process holds the run's lock now (it is still playing)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock
        return False
    try:
        with open(run_dir / ".lock", "rb") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    except OSError:
        return False
    return False


def _parts(run_dir: str | os.PathLike[str], table: str) -> tuple[list[Path], dict[str, Any]]:
    """Every part of ``table``, in chunk order, each checked against its recorded digest.

    Raises
    ------
    RunError
        The run lacks the table, or is unfinished (still running, or interrupted).
    sim.results.ResultsError
        A part is missing or no longer matches its digest (named, with the fix).
    """
    run_dir = Path(run_dir)
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
    paths, missing = [], 0
    for chunk in _chunks(layout.count, layout.chunk_size):
        record = _read_record(run_dir, layout, chunk)
        if record is None:
            missing += 1
            continue
        path = layout.part(run_dir, table, chunk[0])
        try:
            store.verify_file(path, record["parts"][table])
        except store.StorageError as error:
            fix = f"play it again with: rummy run --resume {run_dir}"
            raise R.ResultsError(f"{error}; {fix}") from None
        paths.append(path)
    if missing:
        if is_live(run_dir):
            raise RunError(
                f"{run_dir} is still being played by another process "
                f"({missing} of {layout.n_chunks} chunks to go); wait for it to finish"
            )
        raise RunError(
            f"{run_dir} is incomplete ({missing} of {layout.n_chunks} chunks missing); "
            f"finish it with: rummy run --resume {run_dir}"
        )
    return paths, manifest


def load_hands(run_dir: str | os.PathLike[str]) -> pl.LazyFrame:
    """The ``hands`` table of a finished run, lazily (sorted by ``game``, ``deal``).

    Every part is checked against its digest first. The parts are scanned in chunk
    order, and each part is in (game, deal) order, so the frame is sorted without a
    sort step.
    """
    paths, _ = _parts(run_dir, "hands")
    return pl.scan_parquet([str(p) for p in paths]).set_sorted("game")


def load_games(run_dir: str | os.PathLike[str]) -> pl.LazyFrame:
    """The ``games`` table of a finished games run, lazily (sorted by ``game``)."""
    paths, _ = _parts(run_dir, "games")
    return pl.scan_parquet([str(p) for p in paths]).set_sorted("game")


def load_summary(run_dir: str | os.PathLike[str]) -> pl.DataFrame:
    """The run's exact aggregates (``sim.results.combine_summaries`` of every part).

    The parts are checked against their digests and read with page checksums on.
    """
    paths, manifest = _parts(run_dir, "summary")
    frames = [R.read_parquet_checked(p) for p in paths]
    summary = R.combine_summaries(pl.concat(frames) if frames else pl.DataFrame())
    counted = summary.filter(pl.col("stat") == "count")["value"].sum()
    if counted != manifest["config"]["count"]:
        raise R.ResultsError(
            f"{run_dir}: summary counts {counted} of {manifest['config']['count']} units"
        )
    return summary
