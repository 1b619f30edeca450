"""Result tables: Arrow schemas mirroring the engine's columns, and their provenance.

A run (``sim/runner.py``) writes three tables as Parquet parts, one part per chunk:

``hands``: one row per hand (for ``--games`` runs every hand dealt, dead hands too)
    =============== ================================ =====================================
    column          type                             meaning (engine field)
    =============== ================================ =====================================
    ``game``        int64                            game number; for single deals the deal
                                                     number (``number``)
    ``deal``        int32                            hand index within the game, 0 for single
                                                     deals (``hand_index``)
    ``dealer``      int8                             dealing seat
    ``upcard``      int8                             first upcard as a card index
                                                     ``suit * 13 + rank`` (suits C D H S,
                                                     ranks A..K), 52-53 jokers;
                                                     ``sim.cards.card_name`` gives ``"QS"``
    ``knocker``     int8                             knocking seat, -1 none
    ``winner``      int8                             the hand's winner, -1 none
    ``outcome``     dictionary<int8, string>         RULES.md label (``OUTCOME_LABELS``)
    ``turns``       int16                            turns played
    ``stock_left``  int8                             cards left in the stock
    ``rebuilds``    int8                             stock rebuilds
    ``deadwood_k``  int16, k = 0..players-1          seat k's deadwood at the showdown
    ``laid_off_k``  int8                             cards seat k laid off
    ``points_k``    float64                          seat k's points (engine units / 60)
    ``variant``     dictionary<int32, string>        the run's variant label
    ``lineup``      dictionary<int32, string>        the run's line-up, seats joined by "/"
    =============== ================================ =====================================

``games``: one row per game (``--games`` runs only)
    ``game`` int64, ``hands`` int32 (scored hands), ``hands_dealt`` int32,
    ``first_dealer`` int8, ``winner`` int8 (a seat, -1 none), ``points_k`` float64
    (cumulative hand points), ``score_k`` float64 (final score: Gin boxes and bonuses
    added), ``boxes_k`` int32 (hands won), and for Hollywood games only
    ``column{c}_score_k`` float64 (c = 0, 1, 2: the three columns' final scores);
    then ``variant`` and ``lineup`` as above.

``summary``: exact per-chunk aggregates, one row per statistic (``SUMMARY_STATS``)
    ``stat`` string, ``seat`` int8 (-1: not per seat), ``key`` int32 (-1: none; an
    outcome code, a histogram bin or a second seat, see ``SUMMARY_STATS``), ``value``
    decimal128(38, 0), ``variant``, ``lineup``. Points and scores in the summary are
    integer engine units (1/``POINT_SCALE`` point) so that chunk sums combine exactly:
    :func:`combine_summaries` adds them up, and the result does not depend on how a
    run was chunked. The values are 38-digit integers, not int64: a sum of squared
    game scores can pass 2**63 in one chunk of extreme (but allowed) rules, and a
    run's sums must never wrap around.

Per-seat values are wide (one column per seat, exactly ``players`` of them), the same
in every table. Integer types are the engine's dtypes (``kernels/engine.py``); a test
checks the mirror so that the two cannot drift. Points become float64 points: the
engine's integer unit is 1/60 point (``kernels.layout.POINT_SCALE``) and a float64
holds ``units / 60`` for every score a game can reach.

Dictionary columns: Parquet stores dictionary values per file and row group, so a
reader rebuilds each column's dictionary from the values a part holds (polars shows a
Categorical, DuckDB a VARCHAR). Compare tables by value: :func:`canonical_bytes`
decodes dictionaries first.

Provenance
----------
Every Parquet file carries one schema-metadata key, ``b"rummy_sim"``, holding JSON
(:func:`provenance`): ``schema_version``, package name, version, kernel source digest
and git revision, the RNG, ``point_scale``, the outcome labels, the run's full config
(every rule parameter, the line-up and each seat's strategy with all its parameters,
mode, count, seed, chunking, workers, backend, command line), library versions and,
per file, the table name, the chunk and the row count. :func:`read_provenance`
validates it and raises :class:`ResultsError` (one line) for anything else.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import subprocess
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from kernels import layout as L
from kernels.engine import N_COLUMNS
from sim import store

__all__ = [
    "GAME_FIELDS",
    "GAME_SEAT_FIELDS",
    "HAND_FIELDS",
    "HAND_SEAT_FIELDS",
    "LABEL_TYPE",
    "METADATA_KEY",
    "OUTCOME_TYPE",
    "RNG_NAME",
    "SCALED_FIELDS",
    "SCHEMA_VERSION",
    "SUMMARY_SCHEMA",
    "SUMMARY_STATS",
    "SUMMARY_VALUE_TYPE",
    "ResultsError",
    "canonical_bytes",
    "combine_summaries",
    "games_schema",
    "games_to_arrow",
    "hands_schema",
    "provenance",
    "read_footer",
    "read_provenance",
    "summarize_games",
    "summarize_hands",
    "summary_to_arrow",
    "tables_digest",
    "to_arrow",
    "with_provenance",
    "read_parquet_checked",
    "read_verified",
    "write_parquet_atomic",
]

SCHEMA_VERSION = 2
"""Version of the table layout and the provenance record; bump on any change.

2: summary values are decimal128(38, 0) (were int64); parts carry a content digest."""

METADATA_KEY = b"rummy_sim"
RNG_NAME = "splitmix64-counter/lemire/fisher-yates (kernels/rng.py)"

OUTCOME_TYPE = pa.dictionary(pa.int8(), pa.string())
"""``outcome``: the engine's int8 code indexes ``kernels.layout.OUTCOME_LABELS``."""
LABEL_TYPE = pa.dictionary(pa.int32(), pa.string())
"""``variant`` and ``lineup``: run constants."""

# --- the mirror of the engine's columns ----------------------------------------------
# engine field -> (column name, Arrow type). Per-seat fields (2-D arrays) become one
# column per seat, ``name_k``. SCALED_FIELDS are int64 engine units turned into float64
# points; every other type is the engine dtype (a dictionary's index type included).

HAND_FIELDS: dict[str, tuple[str, pa.DataType]] = {
    "number": ("game", pa.int64()),
    "hand_index": ("deal", pa.int32()),
    "dealer": ("dealer", pa.int8()),
    "upcard": ("upcard", pa.int8()),
    "knocker": ("knocker", pa.int8()),
    "winner": ("winner", pa.int8()),
    "outcome": ("outcome", OUTCOME_TYPE),
    "turns": ("turns", pa.int16()),
    "stock_left": ("stock_left", pa.int8()),
    "rebuilds": ("rebuilds", pa.int8()),
}
HAND_SEAT_FIELDS: dict[str, tuple[str, pa.DataType]] = {
    "deadwood": ("deadwood", pa.int16()),
    "laid_off": ("laid_off", pa.int8()),
    "points": ("points", pa.float64()),
}
GAME_FIELDS: dict[str, tuple[str, pa.DataType]] = {
    "number": ("game", pa.int64()),
    "hands": ("hands", pa.int32()),
    "hands_dealt": ("hands_dealt", pa.int32()),
    "first_dealer": ("first_dealer", pa.int8()),
    "winner": ("winner", pa.int8()),
}
GAME_SEAT_FIELDS: dict[str, tuple[str, pa.DataType]] = {
    "points": ("points", pa.float64()),
    "scores": ("score", pa.float64()),
    "boxes": ("boxes", pa.int32()),
}
GAME_COLUMN_FIELD = "columns"  # int64[n, N_COLUMNS, players] -> column{c}_score_k (Hollywood)
SCALED_FIELDS = frozenset({"points", "scores", "columns"})
RUN_COLUMNS = ("variant", "lineup")


class ResultsError(ValueError):
    """A result file that is not a valid rummy-sim table (one-line message)."""


def _one_line(error: BaseException | str) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _seat_fields(
    fields: Mapping[str, tuple[str, pa.DataType]], players: int
) -> list[tuple[str, pa.DataType]]:
    return [(f"{name}_{k}", typ) for name, typ in fields.values() for k in range(players)]


def _run_fields() -> list[tuple[str, pa.DataType]]:
    return [(name, LABEL_TYPE) for name in RUN_COLUMNS]


def hands_schema(players: int) -> pa.Schema:
    """The ``hands`` table's schema for ``players`` seats (no metadata)."""
    return pa.schema(
        list(HAND_FIELDS.values()) + _seat_fields(HAND_SEAT_FIELDS, players) + _run_fields()
    )


def games_schema(players: int, *, hollywood: bool = False) -> pa.Schema:
    """The ``games`` table's schema; Hollywood games add ``column{c}_score_k``."""
    columns = (
        [(f"column{c}_score_{k}", pa.float64()) for c in range(N_COLUMNS) for k in range(players)]
        if hollywood
        else []
    )
    return pa.schema(
        list(GAME_FIELDS.values())
        + _seat_fields(GAME_SEAT_FIELDS, players)
        + columns
        + _run_fields()
    )


SUMMARY_VALUE_TYPE = pa.decimal128(38, 0)
"""Exact integer sums far beyond int64 (polars reads them as Decimal(38, 0))."""

SUMMARY_SCHEMA = pa.schema(
    [
        ("stat", pa.string()),
        ("seat", pa.int8()),
        ("key", pa.int32()),
        ("value", SUMMARY_VALUE_TYPE),
        ("variant", LABEL_TYPE),
        ("lineup", LABEL_TYPE),
    ]
)

SUMMARY_STATS: dict[str, str] = {
    "count": "deals (single-deal runs) or games played; seat -1, key -1",
    "hands": "hands dealt (rows of the hands table); seat -1, key -1",
    "outcome": "hands by outcome; key = outcome code (OUTCOME_LABELS), seat -1",
    "knocker_outcome": "hands by knocker (seat, -1 none) and outcome code (key)",
    "wins": "hands won; seat = the hand's winner (-1 none), key -1",
    "points_sum": "sum of seat's hand points, engine units (1/60 point); key -1",
    "points_sumsq": "sum of squared hand points, units squared; key -1",
    "points_cross": "sum of points_seat * points_key over hands, units squared (seat < key)",
    "deadwood_sum": "sum of seat's showdown deadwood; key -1",
    "deadwood_sumsq": "sum of squared deadwood; key -1",
    "laid_off_sum": "cards seat laid off; key -1",
    "turns": "histogram of turns per hand; key = turns, seat -1",
    "rebuilds": "histogram of stock rebuilds per hand; key = rebuilds, seat -1",
    "game_wins": "games won; seat = the game's winner (-1 none), key -1",
    "game_hands": "histogram of scored hands per game; key = hands, seat -1",
    "game_hands_dealt": "hands dealt over all games (dead hands too); seat -1, key -1",
    "score_sum": "sum of seat's final game score, units; key -1",
    "score_sumsq": "sum of squared final scores, units squared; key -1",
    "score_cross": "sum of score_seat * score_key over games, units squared (seat < key)",
    "game_points_sum": "sum of seat's cumulative hand points per game, units; key -1",
    "boxes_sum": "hands (boxes) seat won in games; key -1",
    "column_score_sum": "Hollywood: sum of seat's final score in column key, units",
}
"""Every statistic a ``summary`` part may hold; ``combine_summaries`` sums them."""

_LIMIT = float(2**62)  # numpy int64 sums below this cannot wrap; above, Python ints
_SUMMARY_LIMIT = 1e37  # combined sums stay inside decimal128(38, 0)


# --- building tables -------------------------------------------------------------------


def _dictionary(codes: npt.NDArray[Any], labels: Sequence[str], typ: pa.DataType) -> pa.Array:
    indices = pa.array(np.ascontiguousarray(codes), type=typ.index_type)
    return pa.DictionaryArray.from_arrays(indices, pa.array(list(labels), pa.string()), safe=True)


def _constant(value: str, n: int) -> pa.Array:
    return _dictionary(np.zeros(n, np.int32), [value], LABEL_TYPE)


def _column(values: npt.NDArray[Any], typ: pa.DataType, scaled: bool) -> pa.Array:
    if scaled:
        return pa.array(np.ascontiguousarray(values, dtype=np.float64) / L.POINT_SCALE)
    return pa.array(np.ascontiguousarray(values), type=typ)


def _check_seats(array: npt.NDArray[Any], players: int, what: str) -> None:
    if array.ndim < 2 or array.shape[-1] != players:
        raise ValueError(f"{what} has shape {array.shape}, expected {players} seats")


def to_arrow(hand_columns: Any, players: int, variant: str, lineup: str) -> pa.Table:
    """The ``hands`` table of one batch of the engine's ``HandColumns``.

    Parameters
    ----------
    hand_columns : HandColumns
        As returned by ``sim.engine.play_deals`` or ``play_games`` (numpy arrays).
    players : int
        Seats (the width of the per-seat arrays).
    variant, lineup : str
        Run constants stored as dictionary columns.
    """
    n = len(hand_columns.number)
    arrays: list[pa.Array] = []
    for field, (_, typ) in HAND_FIELDS.items():
        values = getattr(hand_columns, field)
        if field == "outcome":
            arrays.append(_dictionary(values, L.OUTCOME_LABELS, typ))
        else:
            arrays.append(_column(values, typ, field in SCALED_FIELDS))
    for field, (_, typ) in HAND_SEAT_FIELDS.items():
        values = getattr(hand_columns, field)
        _check_seats(values, players, field)
        arrays += [_column(values[:, k], typ, field in SCALED_FIELDS) for k in range(players)]
    arrays += [_constant(variant, n), _constant(lineup, n)]
    return pa.Table.from_arrays(arrays, schema=hands_schema(players))


def games_to_arrow(
    game_columns: Any, players: int, variant: str, lineup: str, *, hollywood: bool = False
) -> pa.Table:
    """The ``games`` table of one batch of the engine's ``GameColumns``."""
    n = len(game_columns.number)
    arrays: list[pa.Array] = [
        _column(getattr(game_columns, field), typ, False) for field, (_, typ) in GAME_FIELDS.items()
    ]
    for field, (_, typ) in GAME_SEAT_FIELDS.items():
        values = getattr(game_columns, field)
        _check_seats(values, players, field)
        arrays += [_column(values[:, k], typ, field in SCALED_FIELDS) for k in range(players)]
    if hollywood:
        values = getattr(game_columns, GAME_COLUMN_FIELD)
        _check_seats(values, players, GAME_COLUMN_FIELD)
        arrays += [
            _column(values[:, c, k], pa.float64(), True)
            for c in range(N_COLUMNS)
            for k in range(players)
        ]
    arrays += [_constant(variant, n), _constant(lineup, n)]
    return pa.Table.from_arrays(arrays, schema=games_schema(players, hollywood=hollywood))


# --- per-chunk aggregates ------------------------------------------------------------

Row = tuple[str, int, int, int]


def _sum(values: npt.NDArray[Any]) -> int:
    """Exact integer sum (checked against int64 overflow)."""
    as_int = values.astype(np.int64, copy=False)
    if as_int.size and float(np.abs(as_int).max()) * as_int.size >= _LIMIT:
        return sum(int(x) for x in as_int)  # Python ints: exact, slower, never needed in practice
    return int(as_int.sum())


def _sumsq(values: npt.NDArray[Any], other: npt.NDArray[Any] | None = None) -> int:
    a = values.astype(np.int64, copy=False)
    b = a if other is None else other.astype(np.int64, copy=False)
    if a.size and float(np.abs(a).max()) * float(np.abs(b).max()) * a.size >= _LIMIT:
        return sum(int(x) * int(y) for x, y in zip(a.tolist(), b.tolist(), strict=True))
    return int(np.dot(a, b))


# Histograms of values spanning at most this many integers are counted in one pass
# (``np.bincount``); wider ones are sorted (``np.unique``). Same bins either way.
_DENSE_SPAN = 1 << 16


def _histogram(stat: str, values: npt.NDArray[Any], seat: int = -1) -> list[Row]:
    """Non-zero bins only, so that combined histograms do not depend on chunking."""
    if values.size == 0:
        return []
    if values.dtype.kind == "i" and values.dtype.itemsize <= 2:
        # The engine's int8 and int16 columns: counted on their raw bits, no widened
        # copy; bins at and above the sign bit are the negative values.
        width = 8 * values.dtype.itemsize
        counts = np.bincount(values.view(f"u{values.dtype.itemsize}"))
        keys = np.flatnonzero(counts)
        signed = np.where(keys >= 1 << (width - 1), keys - (1 << width), keys)
        order = np.argsort(signed, kind="stable")
        return [(stat, seat, int(signed[i]), int(counts[keys[i]])) for i in order]
    v = values.astype(np.int64, copy=False)
    low = int(v.min())
    if int(v.max()) - low < _DENSE_SPAN:
        counts = np.bincount(v - low)
        keys = np.flatnonzero(counts)
        return [(stat, seat, int(k) + low, int(counts[k])) for k in keys]
    keys, counts = np.unique(v, return_counts=True)
    return [(stat, seat, int(k), int(c)) for k, c in zip(keys, counts, strict=True)]


def _per_seat(stat: str, values: npt.NDArray[Any], players: int, square: bool) -> list[Row]:
    rows = [(f"{stat}_sum", k, -1, _sum(values[:, k])) for k in range(players)]
    if square:
        rows += [(f"{stat}_sumsq", k, -1, _sumsq(values[:, k])) for k in range(players)]
    return rows


def _cross(stat: str, values: npt.NDArray[Any], players: int) -> list[Row]:
    return [
        (stat, i, j, _sumsq(values[:, i], values[:, j]))
        for i in range(players)
        for j in range(i + 1, players)
    ]


def summarize_hands(hand_columns: Any, players: int) -> list[Row]:
    """Exact aggregates of a batch of hands: ``(stat, seat, key, value)`` rows.

    Per-seat sums are always present (zero or not); histogram and count bins only
    when non-zero. See :data:`SUMMARY_STATS`.
    """
    h = hand_columns
    n_out = len(L.OUTCOME_LABELS)
    rows: list[Row] = [("hands", -1, -1, len(h.number))]
    rows += [(s, -1, k, v) for s, _, k, v in _histogram("outcome", h.outcome)]
    pair = (h.knocker.astype(np.int64) + 1) * n_out + h.outcome
    rows += [
        ("knocker_outcome", int(k // n_out) - 1, int(k % n_out), v)
        for _, _, k, v in _histogram("", pair)
    ]
    rows += [("wins", int(k), -1, v) for _, _, k, v in _histogram("", h.winner)]
    rows += _per_seat("points", h.points, players, square=True)
    rows += _cross("points_cross", h.points, players)
    rows += _per_seat("deadwood", h.deadwood, players, square=True)
    rows += _per_seat("laid_off", h.laid_off, players, square=False)
    rows += _histogram("turns", h.turns)
    rows += _histogram("rebuilds", h.rebuilds)
    return rows


def summarize_games(game_columns: Any, players: int, *, hollywood: bool = False) -> list[Row]:
    """Exact aggregates of a batch of games (see :func:`summarize_hands`)."""
    g = game_columns
    rows: list[Row] = [("game_wins", int(k), -1, v) for _, _, k, v in _histogram("", g.winner)]
    rows += _histogram("game_hands", g.hands)
    rows.append(("game_hands_dealt", -1, -1, _sum(g.hands_dealt)))
    rows += _per_seat("score", g.scores, players, square=True)
    rows += _cross("score_cross", g.scores, players)
    rows += [("game_points_sum", k, -1, _sum(g.points[:, k])) for k in range(players)]
    rows += [("boxes_sum", k, -1, _sum(g.boxes[:, k])) for k in range(players)]
    if hollywood:
        rows += [
            ("column_score_sum", k, c, _sum(g.columns[:, c, k]))
            for k in range(players)
            for c in range(N_COLUMNS)
        ]
    return rows


def summary_to_arrow(rows: Sequence[Row], variant: str, lineup: str) -> pa.Table:
    """A ``summary`` part from ``(stat, seat, key, value)`` rows."""
    unknown = {stat for stat, *_ in rows} - set(SUMMARY_STATS)
    if unknown:
        raise ValueError(f"unknown summary statistic {sorted(unknown)[0]!r}")
    n = len(rows)
    stat, seat, key, value = zip(*rows, strict=True) if rows else ((), (), (), ())
    return pa.Table.from_arrays(
        [
            pa.array(stat, pa.string()),
            pa.array(seat, pa.int8()),
            pa.array(key, pa.int32()),
            pa.array(value, SUMMARY_VALUE_TYPE),
            _constant(variant, n),
            _constant(lineup, n),
        ],
        schema=SUMMARY_SCHEMA,
    )


def combine_summaries(parts: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    """Add up summary parts: one row per (variant, lineup, stat, seat, key), sorted.

    Sums are exact (38-digit integers, checked against overflow), so the result is the
    same however a run was chunked. ``variant`` and ``lineup`` come back as plain
    strings; ``value`` as Decimal(38, 0) (``int(value)`` is exact).
    """
    frame = parts.lazy().with_columns(
        pl.col("variant").cast(pl.String), pl.col("lineup").cast(pl.String)
    )
    keys = ["variant", "lineup", "stat", "seat", "key"]
    out = (
        frame.group_by(keys)
        .agg(pl.col("value").sum(), pl.col("value").abs().cast(pl.Float64).sum().alias("_bound"))
        .sort(keys)
        .collect()
    )
    if out.height and float(out["_bound"].max()) >= _SUMMARY_LIMIT:  # type: ignore[arg-type]
        raise ResultsError("summary sums exceed 10**37; combine fewer parts at a time")
    return out.drop("_bound").select(["stat", "seat", "key", "value", "variant", "lineup"])


# --- provenance ----------------------------------------------------------------------


@lru_cache(maxsize=1)
def _git_revision() -> str | None:
    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


TABLE_SOURCES = (
    "__init__.py",
    "cards.py",
    "engine.py",
    "engine_build.py",
    "results.py",
    "rules.py",
    "runner.py",
    "solver.py",
    "store.py",
)
"""Every ``sim`` module a chunk runs (the kernels and strategies are covered by
``kernels.source_digest``): a test plays a chunk in a fresh process and checks that it
imports exactly these."""


@lru_cache(maxsize=1)
def tables_digest() -> str:
    """Short hash of :data:`TABLE_SOURCES`: part of every run's identity."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for name in TABLE_SOURCES:
        h.update(name.encode())
        h.update((root / name).read_bytes())
    return h.hexdigest()[:16]


def _library_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for lib in ("numpy", "numba", "llvmlite", "pyarrow", "polars"):
        try:
            out[lib] = version(lib)
        except PackageNotFoundError:  # pragma: no cover - all are dependencies
            out[lib] = "unknown"
    return out


def provenance(config: Any) -> dict[str, Any]:
    """The provenance record of a run: the JSON stored under ``b"rummy_sim"``.

    Parameters
    ----------
    config : RunConfig or dict
        A ``sim.runner.RunConfig`` (its ``to_dict()`` is stored) or that dict.

    Returns
    -------
    dict
        ``schema_version``, ``package`` (name, version, kernel source digest, git
        revision), ``rng``, ``point_scale``, ``outcome_labels``, ``config`` (the full
        run config), ``command`` and ``libraries``. The runner adds ``table``,
        ``chunk`` and ``rows`` per file.
    """
    from kernels import source_digest
    from sim import __version__

    cfg = dict(config) if isinstance(config, Mapping) else dict(config.to_dict())
    return {
        "schema_version": SCHEMA_VERSION,
        "package": {
            "name": "rummy-sim",
            "version": __version__,
            "source_digest": source_digest(),
            "git_revision": _git_revision(),
        },
        "rng": RNG_NAME,
        "point_scale": L.POINT_SCALE,
        "outcome_labels": list(L.OUTCOME_LABELS),
        "config": cfg,
        "command": cfg.get("command"),
        "libraries": _library_versions(),
    }


def _encode(meta: Mapping[str, Any]) -> bytes:
    return json.dumps(meta, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def with_provenance(table: pa.Table, meta: Mapping[str, Any]) -> pa.Table:
    """``table`` with ``meta`` as JSON under ``b"rummy_sim"`` in its schema metadata."""
    if meta.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"provenance needs schema_version {SCHEMA_VERSION}")
    existing = dict(table.schema.metadata or {})
    existing[METADATA_KEY] = _encode(meta)
    return table.replace_schema_metadata(existing)


def _decode(raw: bytes | None, where: str) -> dict[str, Any]:
    if raw is None:
        raise ResultsError(f"{where}: not a rummy-sim result (no {METADATA_KEY.decode()} metadata)")
    try:
        meta = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ResultsError(f"{where}: corrupted {METADATA_KEY.decode()} metadata") from None
    if not isinstance(meta, dict) or "schema_version" not in meta:
        raise ResultsError(f"{where}: corrupted {METADATA_KEY.decode()} metadata (no version)")
    found = meta["schema_version"]
    if found != SCHEMA_VERSION:
        raise ResultsError(
            f"{where}: schema_version {found!r} is not supported (this version reads "
            f"{SCHEMA_VERSION})"
        )
    return meta


def read_footer(path: str | os.PathLike[str]) -> tuple[dict[str, Any], int]:
    """Provenance and row count of a Parquet file, from its footer alone."""
    where = str(path)
    try:
        footer = pq.read_metadata(where)
    except FileNotFoundError:
        raise ResultsError(f"{where}: no such file") from None
    except (OSError, pa.ArrowException) as error:
        raise ResultsError(f"{where}: not a readable Parquet file ({_one_line(error)})") from None
    return _decode((footer.metadata or {}).get(METADATA_KEY), where), footer.num_rows


def read_provenance(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The provenance record of a result file.

    Raises
    ------
    ResultsError
        One line: the file is missing, not Parquet, truncated or corrupted, carries no
        ``rummy_sim`` key, or a record that is not valid JSON or has another
        ``schema_version``.
    """
    return read_footer(path)[0]


# --- writing and comparing -----------------------------------------------------------


# Columns whose min/max statistics a reader can use to skip files: the run labels
# (dictionary columns) and these numbers.
_STATISTICS = ("game", "deal")


def _encodings(schema: pa.Schema) -> dict[str, Any]:
    """Parquet options by column type: dictionary columns as dictionaries, integer
    columns delta-encoded (deal numbers count up, counts are small), floats split by
    byte, the rest plain; statistics only where a filter can use them. On a ``hands``
    table this writes 35% faster than pyarrow's defaults (a dictionary tried on every
    column, statistics for all) and 20% smaller; polars, pyarrow and DuckDB read it."""
    dictionaries = [f.name for f in schema if pa.types.is_dictionary(f.type)]
    encodings = {}
    for f in schema:
        if pa.types.is_integer(f.type):
            encodings[f.name] = "DELTA_BINARY_PACKED"
        elif pa.types.is_floating(f.type):
            encodings[f.name] = "BYTE_STREAM_SPLIT"
    return {
        "use_dictionary": dictionaries,
        "column_encoding": encodings,
        "write_statistics": dictionaries + [name for name in _STATISTICS if name in schema.names],
    }


def write_parquet_atomic(table: pa.Table, path: str | os.PathLike[str]) -> dict[str, Any]:
    """Write ``table`` to ``path`` (zstd, page checksums) atomically; return its digest.

    The file is made in memory, its digest taken, then written with
    ``sim.store.write_bytes_atomic`` (absent, old or complete: never torn).

    Returns
    -------
    dict
        ``{"bytes": size, "sha256": hex}`` of the file as written: record it, and
        :func:`read_verified` (or ``sim.store.verify_file``) checks the file against it
        before it is trusted.
    """
    buffer = pa.BufferOutputStream()
    pq.write_table(
        table, buffer, compression="zstd", write_page_checksum=True, **_encodings(table.schema)
    )
    data = buffer.getvalue()
    digest = store.digest_of(data)
    store.write_bytes_atomic(path, data)
    return digest


def read_verified(path: str | os.PathLike[str], digest: Mapping[str, Any]) -> pl.DataFrame:
    """A whole Parquet file, after ``sim.store.verify_file``, its page checksums checked.

    Raises
    ------
    sim.store.StorageError
        The file is missing or changed since it was written.
    ResultsError
        It matches its digest but cannot be read as Parquet.
    """
    store.verify_file(path, digest)
    return read_parquet_checked(path)


def read_parquet_checked(path: str | os.PathLike[str]) -> pl.DataFrame:
    """A whole Parquet file, every page's CRC checked (ResultsError, one line, if bad)."""
    try:
        table = pq.read_table(str(path), page_checksum_verification=True)
    except (OSError, pa.ArrowException) as error:
        raise ResultsError(f"{path}: unreadable ({_one_line(error)})") from None
    return pl.from_arrow(table)  # type: ignore[return-value]


def canonical_bytes(table: pa.Table) -> bytes:
    """A canonical serialisation of a table's content, for comparing results.

    Dictionary columns are decoded to their values (Parquet rebuilds dictionaries per
    file), chunks are combined and schema metadata dropped, then the table is written
    as uncompressed Parquet: equal content gives equal bytes.
    """
    columns = []
    for column in table.columns:
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        columns.append(column)
    plain = pa.Table.from_arrays(columns, names=table.column_names).combine_chunks()
    buffer = io.BytesIO()
    pq.write_table(plain, buffer, compression="none", store_schema=False)
    return buffer.getvalue()
