"""Result tables: the Arrow schemas mirror the engine's columns; provenance is checked.

The mirror tests fail when a field is added to, removed from or retyped in the engine's
``HandColumns`` / ``GameColumns`` without the same change in ``sim/results.py``.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kernels import engine as K
from kernels import layout as L
from sim.engine import play_deals, play_games
from sim.store import StorageError
from sim.study import provenance as P
from sim.study import summaries as S
from sim.study import tables as T

SEED = 11


@pytest.fixture(scope="module")
def gin_hands():
    return play_deals("gin", ["greedy", "simple"], deals=400, seed=SEED, threads=1)


@pytest.fixture(scope="module")
def hollywood_games():
    return play_games("hollywood-gin", ["greedy"], games=6, seed=SEED, threads=1)


def _expected_type(field: str, dtype: np.dtype, mapped: pa.DataType) -> None:
    """``mapped`` is the engine dtype, its float64 points, or a dictionary over it."""
    engine_type = pa.from_numpy_dtype(dtype)
    if field in T.SCALED_FIELDS:
        assert engine_type == pa.int64(), f"{field}: engine units are int64"
        assert mapped == pa.float64(), f"{field}: points are float64"
    elif pa.types.is_dictionary(mapped):
        assert mapped.index_type == engine_type, f"{field}: index {mapped.index_type} != {dtype}"
        assert mapped.value_type == pa.string()
    else:
        assert mapped == engine_type, f"{field}: {mapped} != engine {dtype}"


@pytest.mark.parametrize("players", [2, 4, 6])
def test_hands_schema_mirrors_engine_columns(players: int) -> None:
    columns = K.new_columns(0, players)
    per_seat = {f for f in columns._fields if getattr(columns, f).ndim == 2}
    assert set(columns._fields) - per_seat == set(T.HAND_FIELDS), (
        "a HandColumns field is not mapped"
    )
    assert per_seat == set(T.HAND_SEAT_FIELDS)
    expected = []
    for field in columns._fields:
        if field in per_seat:
            continue
        name, typ = T.HAND_FIELDS[field]
        _expected_type(field, getattr(columns, field).dtype, typ)
        expected.append((name, typ))
    for field, (name, typ) in T.HAND_SEAT_FIELDS.items():
        _expected_type(field, getattr(columns, field).dtype, typ)
        expected += [(f"{name}_{k}", typ) for k in range(players)]
    expected += [("variant", T.LABEL_TYPE), ("lineup", T.LABEL_TYPE)]
    assert T.hands_schema(players) == pa.schema(expected)
    required = {"game", "deal", "dealer", "knocker", "outcome", "turns", "deadwood_0", "points_0"}
    assert required <= set(T.hands_schema(players).names)


@pytest.mark.parametrize("players", [2, 5])
def test_games_schema_mirrors_engine_columns(players: int) -> None:
    columns = K.new_game_columns(0, players)
    multi = {f for f in columns._fields if getattr(columns, f).ndim >= 2}
    assert set(columns._fields) - multi == set(T.GAME_FIELDS), "a GameColumns field is not mapped"
    assert multi == set(T.GAME_SEAT_FIELDS) | {T.GAME_COLUMN_FIELD}
    expected = []
    for field, (name, typ) in T.GAME_FIELDS.items():
        _expected_type(field, getattr(columns, field).dtype, typ)
        expected.append((name, typ))
    for field, (name, typ) in T.GAME_SEAT_FIELDS.items():
        _expected_type(field, getattr(columns, field).dtype, typ)
        expected += [(f"{name}_{k}", typ) for k in range(players)]
    plain = pa.schema(expected + [("variant", T.LABEL_TYPE), ("lineup", T.LABEL_TYPE)])
    assert T.games_schema(players) == plain
    _expected_type("columns", columns.columns.dtype, pa.float64())
    assert columns.columns.shape[1] == K.N_COLUMNS
    hollywood = T.games_schema(players, hollywood=True)
    assert [n for n in hollywood.names if n.startswith("column")] == [
        f"column{c}_score_{k}" for c in range(K.N_COLUMNS) for k in range(players)
    ]
    for name in ("game", "winner", "hands", "score_0"):
        assert name in plain.names


def test_engine_output_has_the_mirrored_fields(gin_hands, hollywood_games) -> None:
    """The generated engine module returns the same fields as ``kernels.engine``."""
    assert gin_hands._fields == K.HandColumns._fields
    assert hollywood_games[0]._fields == K.GameColumns._fields


def test_to_arrow_values(gin_hands) -> None:
    h = gin_hands
    table = T.to_arrow(h, 2, {"variant": "gin", "lineup": "greedy/simple"})
    assert table.schema == T.hands_schema(2)
    assert table.num_rows == 400
    assert table["game"].to_numpy().tolist() == h.number.tolist()
    assert table["deal"].to_numpy().tolist() == h.hand_index.tolist()
    assert table["upcard"].to_numpy().tolist() == h.upcard.tolist()
    assert table["outcome"].to_pylist() == [L.OUTCOME_LABELS[c] for c in h.outcome]
    for k in range(2):
        np.testing.assert_array_equal(table[f"points_{k}"].to_numpy(), h.points[:, k] / 60)
        np.testing.assert_array_equal(table[f"deadwood_{k}"].to_numpy(), h.deadwood[:, k])
        np.testing.assert_array_equal(table[f"laid_off_{k}"].to_numpy(), h.laid_off[:, k])
    assert set(table["variant"].to_pylist()) == {"gin"}
    assert set(table["lineup"].to_pylist()) == {"greedy/simple"}
    with pytest.raises(ValueError, match="seats"):
        T.to_arrow(h, 3, {"variant": "gin", "lineup": "x"})


def test_games_to_arrow_hollywood(hollywood_games) -> None:
    games, hands = hollywood_games
    labels = {"variant": "hollywood-gin", "lineup": "greedy/greedy"}
    table = T.games_to_arrow(games, 2, labels, hollywood=True)
    assert table.schema == T.games_schema(2, hollywood=True)
    np.testing.assert_array_equal(table["score_1"].to_numpy(), games.scores[:, 1] / 60)
    np.testing.assert_array_equal(table["column2_score_0"].to_numpy(), games.columns[:, 2, 0] / 60)
    assert table["hands_dealt"].to_numpy().sum() == len(hands.number)
    plain = T.games_to_arrow(games, 2, {"variant": "v", "lineup": "l"})
    assert not [n for n in plain.column_names if n.startswith("column")]


def test_summaries_combine_exactly(gin_hands) -> None:
    """Split a batch anywhere: the combined aggregates are those of the whole batch."""
    h = gin_hands

    def part(lo: int, hi: int) -> pa.Table:
        piece = type(h)(*(c[lo:hi] for c in h))
        return S.summary_to_arrow(S.summarize_hands(piece, 2), "gin", "l")

    whole = S.combine_summaries(pl.from_arrow(part(0, 400)))
    split = S.combine_summaries(pl.from_arrow(pa.concat_tables([part(0, 123), part(123, 400)])))
    assert whole.equals(split)

    def value(stat: str, seat: int = -1, key: int = -1) -> int:
        row = whole.filter(
            (pl.col("stat") == stat) & (pl.col("seat") == seat) & (pl.col("key") == key)
        )
        return int(row["value"].item())

    assert value("hands") == 400
    assert value("points_sum", 0) == int(h.points[:, 0].sum())
    assert value("points_sumsq", 1) == int((h.points[:, 1] ** 2).sum())
    assert value("points_cross", 0, 1) == int((h.points[:, 0] * h.points[:, 1]).sum())
    for code in range(len(L.OUTCOME_LABELS)):
        n = int((h.outcome == code).sum())
        if n:
            assert value("outcome", -1, code) == n
    assert sum(whole.filter(pl.col("stat") == "turns")["value"]) == 400
    assert set(whole["stat"]) <= set(S.SUMMARY_STATS)


@pytest.mark.parametrize(
    "values",
    [
        [],
        [7],
        [-1, 0, 0, 3, -1, 5],
        [-128, 127, -1, 0, -128],
        [-32768, 300, 32767, -5],
        list(range(1000)) * 2 + [999],
        [-3, 10**9, -3],
        [-(2**40), 2**40],
    ],
)
def test_histogram_bins_are_the_sorted_distinct_values(values) -> None:
    """Counted in one pass for narrow ranges, sorted for wide ones: the same bins."""
    array = np.array(values, np.int64)
    keys, counts = np.unique(array, return_counts=True)
    want = [("x", 2, int(k), int(c)) for k, c in zip(keys, counts, strict=True)]
    assert S._histogram("x", array, seat=2) == want
    for small in (np.int8, np.int16):  # the engine's narrow columns: counted on raw bits
        if all(np.iinfo(small).min <= v <= np.iinfo(small).max for v in values):
            assert S._histogram("x", array.astype(small), seat=2) == want


def test_summarize_games(hollywood_games) -> None:
    games, _ = hollywood_games
    rows = S.summarize_games(games, 2, hollywood=True)
    by = {(s, seat, key): v for s, seat, key, v in rows}
    assert by[("score_sum", 0, -1)] == int(games.scores[:, 0].sum())
    assert by[("column_score_sum", 1, 2)] == int(games.columns[:, 2, 1].sum())
    assert sum(v for (s, _, _), v in by.items() if s == "game_wins") == 6


def _meta() -> dict:
    return P.provenance({"seed": 3, "rules": {"name": "gin"}, "command": "rummy run"})


def test_provenance_round_trip(tmp_path, gin_hands) -> None:
    meta = _meta()
    assert meta["schema_version"] == T.SCHEMA_VERSION
    assert meta["command"] == "rummy run"
    assert {"numpy", "numba", "pyarrow", "polars", "python"} <= set(meta["libraries"])
    table = P.with_provenance(T.to_arrow(gin_hands, 2, {"variant": "gin", "lineup": "g/s"}), meta)
    path = tmp_path / "part.parquet"
    T.write_parquet_atomic(table, path)
    assert [p.name for p in tmp_path.iterdir()] == ["part.parquet"]
    assert P.read_provenance(path) == json.loads(json.dumps(meta))
    assert pq.read_metadata(path).row_group(0).column(0).compression == "ZSTD"
    # the key travels with the schema through pyarrow and the data reads back in polars
    assert P.METADATA_KEY in pq.read_table(path).schema.metadata
    assert pl.read_parquet(path).height == 400
    with pytest.raises(ValueError):
        P.with_provenance(table, {"schema_version": 0})


def _one_line_error(path) -> str:
    with pytest.raises(T.ResultsError) as caught:
        P.read_provenance(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    return message


def test_read_provenance_refuses_foreign_and_corrupted_files(tmp_path, gin_hands) -> None:
    table = T.to_arrow(gin_hands, 2, {"variant": "gin", "lineup": "g/s"})
    foreign = tmp_path / "foreign.parquet"
    pq.write_table(table, foreign)
    assert "not a rummy-sim result" in _one_line_error(foreign)

    good = tmp_path / "good.parquet"
    T.write_parquet_atomic(P.with_provenance(table, _meta()), good)
    data = good.read_bytes()
    truncated = tmp_path / "truncated.parquet"
    truncated.write_bytes(data[: len(data) // 2])
    assert "not a readable Parquet file" in _one_line_error(truncated)
    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"PAR1" + b"\x00" * 100)
    _one_line_error(garbage)
    _one_line_error(tmp_path / "missing.parquet")

    bad_json = tmp_path / "bad_json.parquet"
    pq.write_table(table.replace_schema_metadata({P.METADATA_KEY: b"{not json"}), bad_json)
    assert "corrupted" in _one_line_error(bad_json)
    newer = tmp_path / "newer.parquet"
    meta = {**_meta(), "schema_version": T.SCHEMA_VERSION + 1}
    pq.write_table(
        table.replace_schema_metadata({P.METADATA_KEY: json.dumps(meta).encode()}), newer
    )
    assert "schema_version" in _one_line_error(newer)


def test_write_parquet_atomic_leaves_nothing_on_failure(tmp_path, gin_hands) -> None:
    table = T.to_arrow(gin_hands, 2, {"variant": "gin", "lineup": "g/s"})
    with pytest.raises(StorageError, match=r"^cannot write .*part.parquet: No such file"):
        T.write_parquet_atomic(table, tmp_path / "missing-folder" / "part.parquet")
    with pytest.raises((TypeError, AttributeError)):  # fails before anything is written
        T.write_parquet_atomic("not a table", tmp_path / "part.parquet")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_canonical_bytes_ignores_chunking_and_dictionaries(gin_hands) -> None:
    whole = T.to_arrow(gin_hands, 2, {"variant": "gin", "lineup": "g/s"})
    pieces = pa.concat_tables([whole.slice(0, 150), whole.slice(150)])
    assert T.canonical_bytes(whole) == T.canonical_bytes(pieces)
    other = T.to_arrow(gin_hands, 2, {"variant": "gin", "lineup": "g/x"})
    assert T.canonical_bytes(whole) != T.canonical_bytes(other)


def test_summaries_stay_exact_at_the_largest_allowed_values() -> None:
    """Every bonus at its largest allowed value, games to the largest target (each is
    cut at 1,000 hands, the longest a game can be): the engine's int64 scores stay far
    inside int64, and the summaries' sums of squares are exact (Python integers)."""
    from sim.rules import MAX_BONUS, MAX_TARGET, get_rules

    rules = get_rules(
        "gin", gin_bonus=MAX_BONUS, undercut_bonus=MAX_BONUS, big_gin_bonus=MAX_BONUS,
        box_bonus=MAX_BONUS, game_bonus=MAX_BONUS, game=f"gin:{MAX_TARGET}",
    )  # fmt: skip
    games, _ = play_games(rules, "greedy/simple", games=3, seed=1, threads=1)
    scores = [[int(x) for x in row] for row in games.scores]
    assert all(abs(x) < 2**40 for row in scores for x in row)  # far inside int64
    rows = S.summarize_games(games, 2)
    square = {seat: v for stat, seat, _, v in rows if stat == "score_sumsq"}
    assert square == {k: sum(row[k] ** 2 for row in scores) for k in range(2)}
    table = S.summary_to_arrow(rows, "v", "l")
    combined = S.combine_summaries(pl.concat([pl.from_arrow(table)] * 3))
    got = combined.filter(pl.col("stat") == "score_sumsq").sort("seat")["value"].to_list()
    assert [int(v) for v in got] == [3 * square[0], 3 * square[1]]
