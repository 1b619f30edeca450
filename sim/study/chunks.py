"""One chunk of a run: played, turned into tables, written. What a worker does.

:func:`run_chunk` plays deal (or game) numbers ``first .. first + n - 1`` of a run
with ``threads=1`` and returns its Arrow tables, each carrying its provenance: a pure
function of its arguments, wherever it runs (this process, a worker thread, a Ray
task). :func:`write_chunk` writes the tables as Parquet parts, atomically, then the
chunk's record with the size and sha256 of every part, sealed with its own digest
(``records.write_sealed``): the chunk is done once the record is. The two steps are
apart (:func:`write_parts`, :func:`write_record`) so that a Ray worker that sees the
run directory writes the parts and the driver only the record.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np

from sim.rules import RuleSet
from sim.store import StorePath
from sim.study import provenance as P
from sim.study import summaries as S
from sim.study import tables as T
from sim.study.records import write_sealed
from sim.study.rundir import Layout
from sim.study.runs import Chunk, RunConfig

__all__ = ["load_engine", "payload_of", "run_chunk", "write_chunk", "write_parts", "write_record"]

_RULES_CACHE: dict[str, RuleSet] = {}


def payload_of(config: RunConfig, record: dict[str, Any]) -> dict[str, Any]:
    """What a chunk needs, as plain data (sent to worker threads and Ray tasks):
    ``config``'s dict, its row labels, its provenance ``record`` (computed once, by
    ``rundir.prepare``) and ``code``, this process's source digests
    (``provenance.code_digests``): a Ray worker refuses to play when its own differ.
    """
    cfg = record["config"]
    return {
        "config": cfg,
        "labels": config.row_labels,
        "provenance": record,
        "code": {key: cfg[key] for key in P.CODE_KEYS},
    }


def _rules(data: dict[str, Any]) -> RuleSet:
    key = json.dumps(data, sort_keys=True)
    rules = _RULES_CACHE.get(key)
    if rules is None:
        rules = _RULES_CACHE.setdefault(key, RuleSet.from_dict(data))
    return rules


def load_engine(payload: dict[str, Any]) -> None:
    """Load (or compile) a run's engine in this thread, before any chunk needs it: the
    first load writes the generated dispatcher and imports it, which is not meant to
    happen twice at once (and a Ray node compiles it once, for all its workers)."""
    from sim.engine import play_deals, play_games

    cfg = payload["config"]
    rules = _rules(cfg["rules"])
    if cfg["mode"] == "chart":  # a strategy chart plays its deals with the engine's probe
        from sim.study.chart_cells import ChartSpec, score_deals

        spec = ChartSpec.from_labels(cfg["labels"])
        score_deals(rules, cfg["lineup"], cfg["seed"], 0, 0, spec, np.zeros(spec.n_cells))
    elif cfg["mode"] == "deals":
        play_deals(rules, cfg["lineup"], deals=0, seed=cfg["seed"], threads=1)
    else:
        play_games(rules, cfg["lineup"], games=0, seed=cfg["seed"], threads=1)


def run_chunk(
    payload: dict[str, Any],
    chunk_index: int,
    first: int,
    n: int,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Play one chunk and return its tables: a pure function of its arguments
    (``progress``, told the deals or games played as they are, changes nothing).

    Parameters
    ----------
    payload : dict
        :func:`payload_of` the run's config.
    chunk_index, first, n : int
        The chunk plays deal or game numbers ``first .. first + n - 1``.

    Returns
    -------
    dict
        ``{"chunk": chunk_index, "hands": hands played, "misses": sampled opponent
        hands that fit nothing shown (``strategies.mc.inference_misses``), "tables":
        {name: pa.Table}}`` with ``summary`` always, ``hands`` (and ``games`` in games
        mode) when rows are kept; every table carries its provenance.
    """
    from sim.engine import play_deals, play_games
    from strategies.mc import inference_misses

    cfg = payload["config"]
    inference_misses()  # this thread's count starts with the chunk
    if cfg["mode"] == "chart":
        from sim.study.chart_cells import chart_chunk

        return {**chart_chunk(payload, chunk_index, first, n), "misses": inference_misses()}
    rules = _rules(cfg["rules"])
    players = rules.players
    labels = payload["labels"]
    hollywood = rules.game_mode[0] == "hollywood"
    games = None
    if cfg["mode"] == "deals":
        hands = play_deals(rules, cfg["lineup"], deals=n, seed=cfg["seed"], first=first,
                           threads=1, progress=progress)  # fmt: skip
    else:
        games, hands = play_games(rules, cfg["lineup"], games=n, seed=cfg["seed"], first=first,
                                  threads=1, progress=progress)  # fmt: skip
    rows = [("count", -1, -1, n), *S.summarize_hands(hands, players)]
    misses = inference_misses()
    if misses:
        rows.append(("inference_misses", -1, -1, misses))
    tables = {}
    if cfg["rows"] == "hands":
        tables["hands"] = T.to_arrow(hands, players, labels)
    if games is not None:
        rows += S.summarize_games(games, players, hollywood=hollywood)
        if cfg["rows"] == "hands":
            tables["games"] = T.games_to_arrow(games, players, labels, hollywood=hollywood)
    tables["summary"] = S.summary_to_arrow(rows, labels["variant"], labels["lineup"])
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
        tables[name] = P.with_provenance(table, meta)
    return {"chunk": chunk_index, "hands": n_hands, "misses": misses, "tables": tables}


def write_chunk(run_dir: StorePath, layout: Layout, chunk: Chunk, result: dict[str, Any]) -> None:
    """Write a chunk's parts, then its record: the chunk is done once the record is."""
    parts = write_parts(run_dir, layout, chunk[0], result["tables"])
    write_record(run_dir, layout, chunk, result["hands"], parts)


def write_parts(
    run_dir: StorePath, layout: Layout, index: int, tables: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """Write a chunk's tables as Parquet parts, atomically; their digests by table."""
    return {
        table: T.write_parquet_atomic(data, layout.part(run_dir, table, index))
        for table, data in tables.items()
    }


def write_record(
    run_dir: StorePath, layout: Layout, chunk: Chunk, hands: int, parts: dict[str, dict[str, Any]]
) -> None:
    """Write a chunk's record (its parts' digests): after its parts, never before."""
    index, first, n = chunk
    record = {
        "config_hash": layout.config_hash,
        "chunk": index,
        "first": first,
        "count": n,
        "hands": hands,
        "parts": parts,
    }
    write_sealed(layout.record(run_dir, index), record)
