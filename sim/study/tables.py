"""Result tables: Arrow schemas mirroring the engine's columns, and their Parquet files.

A run (``sim/study/runs.py``) writes three tables as Parquet parts, one part per chunk:

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
    ``strategy_k``  dictionary<int32, string>        the strategy spec that sat in seat k
    ``player_k``    int64                            the player in seat k: its index in the
                                                     study's line-up (duplicate play rotates
                                                     the seats: in seating ``r`` seat k
                                                     holds player ``(k + r) % players``;
                                                     without seatings, k)
    labels          text: dictionary; numbers        a study's setting, seating and grid
                                                     values (``RunConfig.labels``), one
                                                     constant column each
    =============== ================================ =====================================

``games``: one row per game (``--games`` runs only)
    ``game`` int64, ``hands`` int32 (scored hands), ``hands_dealt`` int32,
    ``first_dealer`` int8, ``winner`` int8 (a seat, -1 none), ``points_k`` float64
    (cumulative hand points), ``score_k`` float64 (final score: Gin boxes and bonuses
    added), ``boxes_k`` int32 (hands won), and for Hollywood games only
    ``column{c}_score_k`` float64 (c = 0, 1, 2: the three columns' final scores);
    then ``variant``, ``lineup``, ``strategy_k``, ``player_k`` and the labels as above.

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

The provenance of every file (``sim/study/provenance.py``) rides in its footer; the
summaries' statistics are described in ``sim/study/summaries.py``.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from kernels import layout as L
from kernels.engine import N_COLUMNS
from sim import store
from sim.store import PathInput, one_line

__all__ = [
    "GAME_FIELDS",
    "GAME_SEAT_FIELDS",
    "HAND_FIELDS",
    "HAND_SEAT_FIELDS",
    "LABEL_TYPE",
    "OUTCOME_TYPE",
    "SCALED_FIELDS",
    "SCHEMA_VERSION",
    "ResultsError",
    "canonical_bytes",
    "games_schema",
    "games_to_arrow",
    "hands_schema",
    "label_column",
    "label_type",
    "read_parquet_checked",
    "read_verified",
    "scan_parquet_parts",
    "to_arrow",
    "write_parquet_atomic",
]

SCHEMA_VERSION = 3
"""Version of the table layout and the provenance record; bump on any change.

2: summary values are decimal128(38, 0) (were int64); parts carry a content digest.
3: hand and game rows say who sat where (``strategy_k``, ``player_k``)."""

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
"""The labels every run's rows carry; a study adds its own (``RunConfig.labels``)."""
SEAT_LABELS = ("strategy", "player")
"""Who sat where, one run constant per seat (``strategy_k``, ``player_k``), after
:data:`RUN_COLUMNS`."""
Labels = Mapping[str, str | int | float | bool]


class ResultsError(ValueError):
    """A result file that is not a valid rummy-sim table (one-line message)."""


def _seat_fields(
    fields: Mapping[str, tuple[str, pa.DataType]], players: int
) -> list[tuple[str, pa.DataType]]:
    return [(f"{name}_{k}", typ) for name, typ in fields.values() for k in range(players)]


def label_type(value: str | int | float | bool) -> pa.DataType:
    """A run constant's column type: text is a dictionary (one value), numbers stay
    numbers (Parquet's encodings store a constant column in a few bytes either way)."""
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, float):
        return pa.float64()
    return LABEL_TYPE


def label_column(value: str | int | float | bool, n: int) -> pa.Array:
    """``n`` rows of one run constant, typed by :func:`label_type`."""
    typ = label_type(value)
    if typ == LABEL_TYPE:
        return _dictionary(np.zeros(n, np.int32), [str(value)], LABEL_TYPE)
    return pa.repeat(pa.scalar(value, typ), n)


def _run_fields(labels: Labels | None) -> list[tuple[str, pa.DataType]]:
    if labels is None:
        return [(name, LABEL_TYPE) for name in RUN_COLUMNS]
    return [(name, label_type(value)) for name, value in labels.items()]


def hands_schema(players: int, labels: Labels | None = None) -> pa.Schema:
    """The ``hands`` table's schema for ``players`` seats (no metadata); ``labels``
    (default: ``variant`` and ``lineup`` as text) are the run constants, in order."""
    return pa.schema(
        list(HAND_FIELDS.values()) + _seat_fields(HAND_SEAT_FIELDS, players) + _run_fields(labels)
    )


def games_schema(
    players: int, *, hollywood: bool = False, labels: Labels | None = None
) -> pa.Schema:
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
        + _run_fields(labels)
    )


# --- building tables -------------------------------------------------------------------


def _dictionary(codes: npt.NDArray[Any], labels: Sequence[str], typ: pa.DataType) -> pa.Array:
    indices = pa.array(np.ascontiguousarray(codes), type=typ.index_type)
    return pa.DictionaryArray.from_arrays(indices, pa.array(list(labels), pa.string()), safe=True)


def _column(values: npt.NDArray[Any], typ: pa.DataType, scaled: bool) -> pa.Array:
    if scaled:
        return pa.array(np.ascontiguousarray(values, dtype=np.float64) / L.POINT_SCALE)
    return pa.array(np.ascontiguousarray(values), type=typ)


def _check_seats(array: npt.NDArray[Any], players: int, what: str) -> None:
    if array.ndim < 2 or array.shape[-1] != players:
        raise ValueError(f"{what} has shape {array.shape}, expected {players} seats")


def to_arrow(hand_columns: Any, players: int, labels: Labels) -> pa.Table:
    """The ``hands`` table of one batch of the engine's ``HandColumns``.

    Parameters
    ----------
    hand_columns : HandColumns
        As returned by ``sim.engine.play_deals`` or ``play_games`` (numpy arrays).
    players : int
        Seats (the width of the per-seat arrays).
    labels : mapping
        The run's constants, one column each after the engine's (``variant`` and
        ``lineup`` first, then a study's setting, seating and grid values).
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
    arrays += [label_column(value, n) for value in labels.values()]
    return pa.Table.from_arrays(arrays, schema=hands_schema(players, labels))


def games_to_arrow(
    game_columns: Any, players: int, labels: Labels, *, hollywood: bool = False
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
    arrays += [label_column(value, n) for value in labels.values()]
    return pa.Table.from_arrays(
        arrays, schema=games_schema(players, hollywood=hollywood, labels=labels)
    )


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


def write_parquet_atomic(table: pa.Table, path: PathInput) -> dict[str, Any]:
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


def read_verified(path: PathInput, digest: Mapping[str, Any]) -> pl.DataFrame:
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


def read_parquet_checked(path: PathInput) -> pl.DataFrame:
    """A whole Parquet file, every page's CRC checked (ResultsError, one line, if bad)."""
    where, filesystem = store.arrow_source(path)
    try:
        table = pq.read_table(where, filesystem=filesystem, page_checksum_verification=True)
    except (OSError, pa.ArrowException) as error:
        raise ResultsError(f"{path}: unreadable ({one_line(error)})") from None
    return pl.from_arrow(table)  # type: ignore[return-value]


def scan_parquet_parts(paths: Sequence[Any]) -> pl.LazyFrame:
    """Parquet parts as one lazy frame, in the order given: local files through polars'
    own reader, files in an object store (``sim.remote``) through pyarrow's file system
    (its options and credentials are the URI's and the environment's, not polars')."""
    sources = [store.arrow_source(p) for p in paths]
    if all(filesystem is None for _, filesystem in sources):  # all on this machine
        return pl.scan_parquet([where for where, _ in sources])
    import pyarrow.dataset as ds

    return pl.concat(
        [
            pl.scan_pyarrow_dataset(ds.dataset(where, filesystem=filesystem, format="parquet"))
            for where, filesystem in sources
        ]
    )


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
