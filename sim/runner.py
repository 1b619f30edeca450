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
size. The driver writes each part atomically (``sim.results.write_parquet_atomic``)
and holds at most two chunks per worker in flight, so memory stays flat however large
the run. A chunk counts as done when all its parts exist and their provenance matches
the run (config hash, table, chunk bounds, row count); a killed run (even ``kill -9``)
leaves only complete parts and hidden temporary files, and :func:`resume` (or
:func:`run` with the same config) plays exactly the missing chunks.

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
the package version, the kernel/strategy source digest and the table schema version.
Not in it: chunk size (the tables do not depend on it: an existing run keeps the chunk
size it was started with), workers, backend, address, output root, command line.
``run_id`` is its first 12 hex digits. A directory whose manifest holds another
identity is refused (:class:`RunError`), never overwritten. Strategies loaded from
plugin files outside this package are not part of the source digest.
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
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
import polars as pl

from sim import results as R
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
MANIFEST = "manifest.json"
TABLES = ("hands", "games", "summary")
_IN_FLIGHT_PER_WORKER = 2  # chunks queued per worker: keeps workers busy, memory flat


class RunError(ValueError):
    """A run that cannot start or go on (one-line message)."""


class Progress(NamedTuple):
    """What a ``progress`` callback receives after each chunk (and once at the start).

    ``chunks_done`` and ``units_done`` (deals or games) count chunks finished before
    this call too; ``hands_done`` counts every hand of the finished chunks; ``elapsed``
    is seconds since this call started.
    """

    chunks_done: int
    chunks_total: int
    units_done: int
    units_total: int
    hands_done: int
    elapsed: float


def new_seed() -> int:
    """A fresh seed from the OS entropy pool (NumPy's advice; print and store it)."""
    return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _check_name(name: str) -> str:
    ok = (
        isinstance(name, str)
        and name not in ("", ".", "..")
        and all(c.isalnum() or c in "._-" for c in name)
    )
    if not ok:
        raise RunError(f"experiment={name!r} is not allowed; use letters, digits, '.', '_' and '-'")
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
        _check_name(self.experiment)
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
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
                raise RunError(f"{name}={value!r} is not allowed; choose an integer >= {low}")
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

        return {
            "schema_version": R.SCHEMA_VERSION,
            "package_version": __version__,
            "source_digest": source_digest(),
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

    def chunks(self) -> list[tuple[int, int, int]]:
        """``(index, first, n)`` of every chunk."""
        size = self.chunk_size
        assert size is not None
        return [(i, i * size, min(size, self.count - i * size)) for i in range(self.n_chunks)]

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


def _part_name(index: int, n_chunks: int) -> str:
    width = max(6, len(str(max(n_chunks - 1, 0))))
    return f"part-{index:0{width}d}.parquet"


def _tables_of(config: RunConfig) -> list[str]:
    if config.rows == "none":
        return ["summary"]
    return ["hands", "games", "summary"] if config.mode == "games" else ["hands", "summary"]


def _chunk_hands(run_dir: Path, config: RunConfig, chunk: tuple[int, int, int]) -> int | None:
    """Hands of a finished chunk, or None when any of its parts is missing or invalid."""
    index, first, n = chunk
    hands = None
    for table in _tables_of(config):
        path = run_dir / table / _part_name(index, config.n_chunks)
        if not path.is_file():
            return None
        try:
            meta, rows = R.read_footer(path)
        except R.ResultsError:
            return None
        part = meta.get("chunk") or {}
        ok = (
            (meta.get("config") or {}).get("config_hash") == config.config_hash
            and meta.get("table") == table
            and part.get("index") == index
            and part.get("first") == first
            and part.get("count") == n
            and meta.get("rows") == rows
        )
        if not ok:
            return None
        hands = meta.get("hands")
    return hands if isinstance(hands, int) else None


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


def _write_json_atomic(path: Path, value: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w") as handle:
            handle.write(json.dumps(value, indent=2, sort_keys=True) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


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
    return manifest  # type: ignore[no-any-return]


def _first_difference(a: dict[str, Any], b: dict[str, Any]) -> str:
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            return f"{key}: {a.get(key)!r} there, {b.get(key)!r} here"
    return "?"


def _make_dir(run_dir: Path) -> None:
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        why = error.strerror or error
        raise RunError(f"cannot create run directory {run_dir}: {why}") from None
    if not os.access(run_dir, os.W_OK):
        raise RunError(f"cannot write to run directory {run_dir}: permission denied")


def _prepare(config: RunConfig, run_dir: Path) -> RunConfig:
    """Under the lock: check or write the manifest, remove stale temporary files."""
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
        manifest["created"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        manifest["tables"] = _tables_of(config)
        try:
            _write_json_atomic(manifest_path, manifest)
        except OSError as error:
            raise RunError(f"cannot write {manifest_path}: {error.strerror or error}") from None
    for table in TABLES:
        folder = run_dir / table
        if folder.is_dir():
            for stale in folder.glob(".*.tmp"):
                stale.unlink(missing_ok=True)
    for stale in run_dir.glob(f".{MANIFEST}.*.tmp"):
        stale.unlink(missing_ok=True)
    return config


# --- executing chunks ----------------------------------------------------------------

Chunk = tuple[int, int, int]


def _run_local_inline(payload: dict[str, Any], todo: list[Chunk]) -> Iterator[dict[str, Any]]:
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
    payload: dict[str, Any], todo: list[Chunk], workers: int
) -> Iterator[dict[str, Any]]:
    """Chunks on ``workers`` threads of this process.

    The engine kernels release the GIL, so chunks play in parallel as on a process
    pool, without a process start and an engine load per worker (about a second
    each, a large share of a run of a few million hands) and without pickling every
    chunk's tables back to the driver. The Python work around a chunk (summaries,
    Arrow conversion) holds the GIL only briefly; Parquet writing releases it.
    """
    _load_engine(payload)
    pool = ThreadPoolExecutor(
        max_workers=min(workers, len(todo)), thread_name_prefix="rummy-chunk"
    )
    pending: set[Future[dict[str, Any]]] = set()
    queue = iter(todo)
    limit = workers * _IN_FLIGHT_PER_WORKER
    try:
        while True:
            for index, first, n in queue:
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
    payload: dict[str, Any], todo: list[Chunk], workers: int, address: str | None
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
        queue = iter(todo)
        limit = workers * _IN_FLIGHT_PER_WORKER
        while True:
            for index, first, n in queue:
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
    config: RunConfig, payload: dict[str, Any], todo: list[Chunk]
) -> Iterator[dict[str, Any]]:
    workers = config.workers or 1
    if config.backend == "ray":
        return _run_ray(payload, todo, workers, config.address)
    if workers == 1 or len(todo) <= 1:
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
        config = _prepare(config, run_dir)
        chunks = config.chunks()
        todo: list[Chunk] = []
        hands_done = units_done = 0
        for chunk in chunks:
            hands = _chunk_hands(run_dir, config, chunk)
            if hands is None:
                todo.append(chunk)
            else:
                hands_done += hands
                units_done += chunk[2]
        skipped = len(chunks) - len(todo)
        done = skipped

        def report() -> None:
            if progress is not None:
                progress(
                    Progress(
                        done,
                        len(chunks),
                        units_done,
                        config.count,
                        hands_done,
                        time.perf_counter() - started,
                    )
                )

        report()
        if todo:
            for table in _tables_of(config):
                (run_dir / table).mkdir(exist_ok=True)
            sizes = {index: n for index, _, n in todo}
            payload = _payload(config)
            with contextlib.closing(_execute(config, payload, todo)) as results:
                for result in results:
                    index, n_hands = result["chunk"], result["hands"]
                    for table, data in result["tables"].items():
                        path = run_dir / table / _part_name(index, config.n_chunks)
                        try:
                            R.write_parquet_atomic(data, path)
                        except OSError as error:
                            raise RunError(
                                f"cannot write {path}: {error.strerror or error}"
                            ) from None
                    del result
                    done += 1
                    units_done += sizes[index]
                    hands_done += n_hands
                    report()
    return RunResult(
        config=config,
        run_dir=run_dir,
        chunks_total=len(chunks),
        chunks_run=len(todo),
        chunks_skipped=skipped,
        hands=hands_done,
        elapsed=time.perf_counter() - started,
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
    machine's CPU count. A run made by another version of the engine is refused.
    """
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
    except (KeyError, TypeError) as error:
        raise RunError(f"{run_dir / MANIFEST}: incomplete config ({R._one_line(error)})") from None
    if config.config_hash != stored.get("config_hash"):
        mine = config.identity()
        theirs = {k: stored.get(k) for k in mine}
        raise RunError(
            f"cannot resume {run_dir}: it was made by another version "
            f"({_first_difference(theirs, mine)}); start a new run instead"
        )
    return _run_in(config, run_dir, progress)


# --- loading ---------------------------------------------------------------------------


def _parts(run_dir: str | os.PathLike[str], table: str) -> tuple[list[Path], dict[str, Any]]:
    """Every part of ``table``, in chunk order, checked against the manifest."""
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
    n_chunks = cfg["n_chunks"]
    paths, missing = [], 0
    for index in range(n_chunks):
        path = run_dir / table / _part_name(index, n_chunks)
        if not path.is_file():
            missing += 1
            continue
        meta, rows = R.read_footer(path)
        if (meta.get("config") or {}).get("config_hash") != cfg["config_hash"] or (
            meta.get("table"),
            (meta.get("chunk") or {}).get("index"),
            meta.get("rows"),
        ) != (table, index, rows):
            raise R.ResultsError(f"{path}: belongs to another run or chunk")
        paths.append(path)
    if missing:
        raise RunError(
            f"{run_dir} is incomplete ({missing} of {n_chunks} chunks missing); "
            f"finish it with: rummy run --resume {run_dir}"
        )
    return paths, manifest


def load_hands(run_dir: str | os.PathLike[str]) -> pl.LazyFrame:
    """The ``hands`` table of a finished run, lazily (sorted by ``game``, ``deal``).

    The parts are scanned in chunk order, and each part is in (game, deal) order, so
    the frame is sorted without a sort step.
    """
    paths, _ = _parts(run_dir, "hands")
    return pl.scan_parquet([str(p) for p in paths]).set_sorted("game")


def load_games(run_dir: str | os.PathLike[str]) -> pl.LazyFrame:
    """The ``games`` table of a finished games run, lazily (sorted by ``game``)."""
    paths, _ = _parts(run_dir, "games")
    return pl.scan_parquet([str(p) for p in paths]).set_sorted("game")


def load_summary(run_dir: str | os.PathLike[str]) -> pl.DataFrame:
    """The run's exact aggregates (``sim.results.combine_summaries`` of every part)."""
    paths, manifest = _parts(run_dir, "summary")
    summary = R.combine_summaries(pl.scan_parquet([str(p) for p in paths]))
    counted = summary.filter(pl.col("stat") == "count")["value"].sum()
    if counted != manifest["config"]["count"]:
        raise R.ResultsError(
            f"{run_dir}: summary counts {counted} of {manifest['config']['count']} units"
        )
    return summary
