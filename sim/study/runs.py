"""Runs: what one run plays, and its identity.

>>> from sim.study import RunConfig, run, load_hands
>>> config = RunConfig(experiment="demo", rules="gin", lineup=("greedy", "simple"),
...                    mode="deals", count=1_000_000, seed=7)
>>> result = run(config)                       # results/demo/<run_id>/
>>> load_hands(result.run_dir).group_by("outcome").len().collect()

A run is one rule set and one line-up played on deal (or game) numbers ``0 .. count-1``
from one seed. Its directory, chunks and records are ``sim/study/rundir.py``'s; the
chunks are played by ``sim/study/execute.py`` (in this process, on threads, or on
Ray) and written by ``sim/study/chunks.py``.

Run identity
------------
``config_hash`` is the sha256 of the canonical JSON of what determines the results
(:meth:`RunConfig.identity`): rules, variant label, line-up, mode, count, seed, rows,
the labels its rows carry, the package version, the table schema version and the
digests of every source that can change a table's bytes: the kernels and strategies,
the ``sim`` modules that play and shape the tables (``provenance.tables_digest``), and
the package of every plugin strategy seated (``strategies.plugin_digests``). Not in
it: chunk size (the tables do not depend on it: an existing run keeps the chunk size
it was started with), how it is played (``sim.study.execute.Executor``), output root,
command line.
``run_id`` is its first 12 hex digits. A directory whose manifest holds another
identity is refused, never overwritten, and a resume after an edit to any of those
sources is refused with a line that names what changed.

Labels
------
``labels`` are constants a study attaches to a run (its setting, the seating, the grid
values): every row of its tables carries them as a column, so that a whole study's
hands read as one dataset (``sim.study.scan_hands``). A label is text, an integer, a
float or a boolean; its name may not be one of the tables' own columns.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np

from sim import store
from sim.limits import MAX_COUNT, MAX_SEED
from sim.rules import RuleSet, get_rules
from sim.sizes import CHUNK_CHART, CHUNK_DEALS, CHUNK_GAMES, CHUNK_SLOW_DEALS, CHUNK_SLOW_GAMES
from sim.store import PathInput, StorePath
from sim.study import provenance as P
from sim.study import tables as T
from sim.study.kinds import RESULTS_ROOT, RUN

__all__ = [
    "CHUNK_CHART",
    "CHUNK_DEALS",
    "CHUNK_GAMES",
    "IDENTITY_KEYS",
    "Chunk",
    "RunConfig",
    "RunError",
    "RunResult",
    "check_count",
    "check_name",
    "chunks_of",
    "new_seed",
    "stored_hash",
    "stored_identity",
]

Chunk = tuple[int, int, int]  # (index, first number, count)
# Columns of the tables a label may not take the name of (the engine's, per seat too).
_RESERVED = {
    *(name for name, _ in T.HAND_FIELDS.values()),
    *(name for name, _ in T.GAME_FIELDS.values()),
    *T.RUN_COLUMNS,
}
_SEAT_PREFIXES = tuple(
    f"{name}_"
    for name in (
        *(name for name, _ in (*T.HAND_SEAT_FIELDS.values(), *T.GAME_SEAT_FIELDS.values())),
        *T.SEAT_LABELS,
    )
) + ("column",)


class RunError(ValueError):
    """A run that cannot start or go on (one-line message)."""


def new_seed() -> int:
    """A fresh seed from the OS entropy pool (NumPy's advice; print and store it)."""
    return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]


def _identity_hash(identity: Mapping[str, Any]) -> str:
    """The SHA-256 of ``identity`` as canonical JSON (sorted keys, no spaces, ASCII)."""
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


# The keys of :meth:`RunConfig.identity` (a test checks that they are all of them).
IDENTITY_KEYS = (
    "schema_version", "package_version", *P.CODE_KEYS, "variant", "rules", "lineup", "mode",
    "count", "seed", "rows", "labels",
)  # fmt: skip
# Keys only some identities hold: ``agents`` a line-up with agent seats (docs/AGENTS.md),
# ``names`` one with a chart seated by name or file (:meth:`RunConfig.identity`).
OPTIONAL_IDENTITY_KEYS = ("agents", "names")


def stored_identity(config: Mapping[str, Any]) -> dict[str, Any]:
    """The identity a stored config holds (:meth:`RunConfig.to_dict`, a manifest's
    ``config``): what :meth:`RunConfig.identity` was when it was written."""
    identity = {key: config.get(key) for key in IDENTITY_KEYS}
    for key in OPTIONAL_IDENTITY_KEYS:
        if key in config:
            identity[key] = config[key]
    return identity


def stored_hash(config: Mapping[str, Any]) -> str:
    """The ``config_hash`` of a stored config, recomputed from the identity it holds:
    equal to its own ``config_hash`` unless the config was edited since it was written."""
    return _identity_hash(stored_identity(config))


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
        normalised: one canonical spec per seat (``strategies.format_seat``): a chart
        seated by name or file (``chart:gin``) as the parameters it names, checked to
        be made for ``rules``.
    names : tuple of str or None
        How each seat is shown in tables and reports (``strategies.seat_label``); None:
        made from ``lineup`` as given (``chart:gin`` stays ``chart:gin``). Part of the
        identity only where it says more than the specs do (a chart by name or file).
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
    rows : {"hands", "none"}
        Keep the per-hand and per-game rows, or only the summary aggregates.
    labels : mapping or tuple of pairs
        Constants every row of the run carries as a column (a study's setting,
        seating, grid values); part of the identity. Stored as a tuple of pairs.
    out : Path, RemotePath or str
        Results root (default ``results``): a folder, or an object store's URI
        (``s3://bucket/prefix``; ``sim.store.location``).
    command : str or None
        The command line, stored as provenance; None: this process's ``sys.argv``.
    """

    rules: RuleSet | str
    lineup: tuple[str, ...] | str
    count: int
    mode: Literal["deals", "games", "chart"] = "deals"
    experiment: str = RUN.folder
    variant: str | None = None
    seed: int | None = None
    chunk_size: int | None = None
    rows: Literal["hands", "none"] = "hands"
    labels: tuple[tuple[str, Any], ...] | Mapping[str, Any] = ()
    out: PathInput = RESULTS_ROOT  # a StorePath once made (sim.store.location)
    command: str | None = field(default=None, compare=False)
    names: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        from strategies import format_seat, lineup_labels, parse_lineup

        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        rules = self.rules if isinstance(self.rules, RuleSet) else get_rules(self.rules)
        put("rules", rules)
        seated = parse_lineup(self.lineup, rules.players, rules=rules)
        if self.names is None:
            put("names", tuple(lineup_labels(self.lineup, rules.players)))
        else:
            names = self.names
            ok = isinstance(names, (tuple, list)) and len(names) == rules.players
            if not ok or not all(isinstance(n, str) and n for n in names):
                raise RunError(
                    f"names={names!r} is not allowed; give one non-empty text per seat "
                    f"({rules.players})"
                )
            put("names", tuple(names))
        for strategy, values in seated:
            if getattr(values, "time", 0) > 0:  # mc's time budget: the clock decides
                raise RunError(
                    f"{format_seat(strategy, values)}: time= makes a decision depend on the "
                    "machine's speed and load, and a study must be reproducible: set samples= "
                    "(and stop=) instead; time= is for rummy agent and rummy.player"
                )
        put("lineup", tuple(format_seat(s, p) for s, p in seated))
        check_name(self.experiment)
        if self.mode not in ("deals", "games", "chart"):
            raise RunError(f"mode={self.mode!r} is not allowed; choose 'deals', 'games' or 'chart'")
        if self.mode == "games" and rules.game_mode[0] == "hand":
            raise RunError(
                f"rules {rules.name!r} have game='hand': play single deals, or set a game mode"
            )
        for name in ("count", "chunk_size", "seed"):
            value = getattr(self, name)
            if value is None:
                continue
            low = 0 if name == "seed" else 1
            high = MAX_SEED if name == "seed" else MAX_COUNT
            ok = isinstance(value, int | np.integer) and not isinstance(value, bool)
            if not ok or not low <= value <= high:
                raise RunError(f"{name}={value!r} is not allowed; choose an integer {low}..{high}")
            if type(value) is not int:  # a numpy integer: stored as Python's
                put(name, int(value))
        if self.seed is None:
            put("seed", new_seed())
        if self.chunk_size is None:
            sizes = {"deals": CHUNK_DEALS, "games": CHUNK_GAMES, "chart": CHUNK_CHART}
            if self.mode != "chart" and any(s.decides_slowly for s, _ in seated):
                sizes = {"deals": CHUNK_SLOW_DEALS, "games": CHUNK_SLOW_GAMES}
            put("chunk_size", sizes[self.mode])
        if self.rows not in ("hands", "none"):
            raise RunError(f"rows={self.rows!r} is not allowed; choose 'hands' or 'none'")
        if self.variant is None:
            put("variant", rules.name)
        elif not isinstance(self.variant, str) or not self.variant:
            raise RunError(f"variant={self.variant!r} is not allowed; give a non-empty label")
        put("labels", _checked_labels(self.labels))
        put("out", store.location(self.out))
        if self.command is None:
            put("command", shlex.join(sys.argv))

    # --- identity ------------------------------------------------------------------

    @property
    def rule_set(self) -> RuleSet:
        """``rules`` as built: a preset name given is a RuleSet by then."""
        assert isinstance(self.rules, RuleSet)
        return self.rules

    @property
    def seats(self) -> tuple[str, ...]:
        """``lineup`` as built: one canonical seat spec per seat."""
        assert isinstance(self.lineup, tuple)
        return self.lineup

    @property
    def players(self) -> int:
        return self.rule_set.players

    @property
    def lineup_label(self) -> str:
        """The ``lineup`` column: canonical seat specs joined by "/"."""
        return "/".join(self.lineup)

    @property
    def seat_names(self) -> tuple[str, ...]:
        """``names`` as built: how each seat is shown (``strategies.seat_label``)."""
        assert isinstance(self.names, tuple)
        return self.names

    @property
    def shown_lineup(self) -> str:
        """The line-up as tables and reports show it: the seats' names joined by "/"."""
        return "/".join(self.seat_names)

    def _names_say_more(self) -> bool:
        """Whether ``names`` differ from what the specs alone show: a chart seated by
        name or file (then they are part of the identity and the manifest)."""
        from strategies import seat_label

        return list(self.seat_names) != [seat_label(spec) for spec in self.seats]

    @property
    def hollywood(self) -> bool:
        return self.rule_set.game_mode[0] == "hollywood"

    def identity(self) -> dict[str, Any]:
        """What determines the results: hashed into ``config_hash``."""
        from sim import __version__, rollouts
        from strategies import parse_lineup
        from strategies.agent import AgentStrategy

        seats = parse_lineup(self.lineup, self.players)
        seated = [strategy for strategy, _ in seats]
        agents = [
            {"seat": seat, "spec": s.spec, "files": s.files_digest()}
            for seat, s in enumerate(seated)
            if isinstance(s, AgentStrategy)
        ]
        # A chart seated by name or file: the names join the identity (the specs, its
        # parameters, are in it already), so that a run's manifest, rows and tables
        # always show the names it was asked with.
        names = {"names": list(self.seat_names)} if self._names_say_more() else {}
        return {
            "schema_version": T.SCHEMA_VERSION,
            "package_version": __version__,
            **P.code_digests(rollouts.strategies_in(seats)),
            **({"agents": agents} if agents else {}),
            **names,
            "variant": self.variant,
            "rules": self.rule_set.to_dict(),
            "lineup": list(self.lineup),
            "mode": self.mode,
            "count": self.count,
            "seed": self.seed,
            "rows": self.rows,
            "labels": dict(self.labels),
        }

    @property
    def seats_agents(self) -> bool:
        """Whether an agent plays a seat (docs/AGENTS.md): one worker, this machine."""
        from strategies.agent import is_agent_spec

        return any(is_agent_spec(spec) for spec in self.seats)

    def agents(self) -> list[dict[str, Any]]:
        """Who plays each agent seat, as the agents say (``sim.agents.seats.identities``:
        they are started here, before anything plays)."""
        if not self.seats_agents:
            return []
        from sim.agents.seats import identities
        from strategies import parse_lineup

        return identities(parse_lineup(self.lineup, self.players), self.rule_set)

    @cached_property
    def config_hash(self) -> str:
        return _identity_hash(self.identity())

    @property
    def run_id(self) -> str:
        return self.config_hash[:12]

    @property
    def run_dir(self) -> StorePath:
        return store.location(self.out) / self.experiment / self.run_id

    @property
    def n_chunks(self) -> int:
        return -(-self.count // self.chunk_size)  # type: ignore[operator]

    def chunks(self) -> Iterator[Chunk]:
        """``(index, first, n)`` of every chunk, lazily (a run may have billions)."""
        assert self.chunk_size is not None
        return chunks_of(self.count, self.chunk_size)

    @property
    def tables(self) -> list[str]:
        """The tables a run writes: the summary always, rows when they are kept (a
        chart: its cells' sums, ``sim/study/chart_cells.py``)."""
        if self.mode == "chart":
            return ["cells"]
        if self.rows == "none":
            return ["summary"]
        return ["hands", "games", "summary"] if self.mode == "games" else ["hands", "summary"]

    @property
    def row_labels(self) -> dict[str, Any]:
        """The constant columns of every row: ``variant``, ``lineup``, who sat where
        (``strategy_k``: seat k's spec; ``player_k``: the player of the study's line-up
        in seat k, rotated by the ``seating`` label of duplicate play), then the labels."""
        seats = self.seats
        rotation = int(dict(self.labels).get("seating", 0))
        strategies = {f"strategy_{k}": spec for k, spec in enumerate(seats)}
        players = {f"player_{k}": (k + rotation) % len(seats) for k in range(len(seats))}
        return {
            "variant": self.variant,
            "lineup": self.lineup_label,
            **strategies,
            **players,
            **dict(self.labels),
        }

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
            "rows": data["rows"],
            "labels": tuple((k, v) for k, v in (data.get("labels") or {}).items()),
            "out": data.get("out", "results"),
            "command": data.get("command"),
            "names": tuple(data["names"]) if data.get("names") else None,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


@dataclass(frozen=True)
class RunResult:
    """What playing a run did: its directory and counts (``sim.study.load_hands`` etc.
    read its tables)."""

    config: RunConfig
    run_dir: StorePath
    chunks_total: int
    chunks_run: int
    chunks_skipped: int
    hands: int
    elapsed: float
    notes: tuple[str, ...] = ()  # what the user should know (a chunk size not used, replays)
    hands_played: int = 0  # hands of the chunks played by this call

    @property
    def run_id(self) -> str:
        return self.config.run_id

    @property
    def seed(self) -> int:
        return self.config.seed  # type: ignore[return-value]


def check_count(count: int, mode: str) -> int:
    """The size of a study's runs: deals or games, at least 2 (an interval needs two)."""
    if mode not in ("deals", "games"):
        raise RunError(f"mode={mode!r} is not allowed; choose 'deals' or 'games'")
    ok = isinstance(count, int | np.integer) and not isinstance(count, bool)
    if not ok or not 2 <= count <= MAX_COUNT:
        raise RunError(f"{mode}={count!r} is not allowed; give 2..{MAX_COUNT} (a CI needs two)")
    return int(count)


def chunks_of(count: int, size: int) -> Iterator[Chunk]:
    """``(index, first, n)`` of the chunks of ``count`` numbers cut ``size`` at a time."""
    for i in range(-(-count // size)):
        yield i, i * size, min(size, count - i * size)


def _checked_labels(labels: Any) -> tuple[tuple[str, Any], ...]:
    """Labels as a tuple of pairs, each a valid column name and value."""
    pairs = tuple(labels.items()) if isinstance(labels, Mapping) else tuple(labels)
    names = set()
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)):
            raise RunError(f"label {pair!r} is not allowed; give (name, value) pairs")
        name, value = pair
        ok = name and all(c.isalnum() or c in "._" for c in name) and not name[0].isdigit()
        if not ok or name in _RESERVED or name.startswith(_SEAT_PREFIXES) or name in names:
            raise RunError(
                f"label name {name!r} is not allowed: use letters, digits, '_' and '.', "
                "not a column of the tables, each name once"
            )
        if (
            not isinstance(value, str | int | float | bool)
            or isinstance(value, float)
            and (value != value or value in (float("inf"), float("-inf")))
        ):
            raise RunError(f"label {name}={value!r} is not allowed; give text or a finite number")
        names.add(name)
    return pairs
