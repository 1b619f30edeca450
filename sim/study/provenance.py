"""Provenance: what made a result file, stored in its Parquet footer and checked on read.

Every Parquet file carries one schema-metadata key, ``b"rummy_sim"``, holding JSON
(:func:`provenance`): ``schema_version``, package name, version, kernel source digest
and git revision, the RNG, ``point_scale``, the outcome labels, the run's full config
(every rule parameter, the line-up and each seat's strategy with all its parameters,
mode, count, seed, chunking, command line), library versions and,
per file, the table name, the chunk and the row count. :func:`read_provenance`
validates it and raises ``ResultsError`` (one line) for anything else.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from kernels import layout as L
from sim import store
from sim.store import PathInput, one_line
from sim.study.tables import SCHEMA_VERSION, ResultsError

__all__ = [
    "CODE_KEYS",
    "METADATA_KEY",
    "RNG_NAME",
    "TABLE_SOURCES",
    "code_digests",
    "provenance",
    "read_footer",
    "read_provenance",
    "tables_digest",
    "with_provenance",
]

METADATA_KEY = b"rummy_sim"
RNG_NAME = "splitmix64-counter/lemire/fisher-yates (kernels/rng.py)"

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
    "agents/__init__.py",
    "agents/protocol.py",
    "agents/seats.py",
    "agents/view.py",
    "cards.py",
    "engine.py",
    "engine_build.py",
    "limits.py",
    "rules/__init__.py",
    "rules/overrides.py",
    "rules/presets.py",
    "rules/ruleset.py",
    "rollouts.py",
    "sizes.py",
    "solver.py",
    "store.py",
    "study/__init__.py",
    "study/chunks.py",
    "study/kinds.py",
    "study/provenance.py",
    "study/records.py",
    "study/rundir.py",
    "study/runs.py",
    "study/summaries.py",
    "study/tables.py",
    "warm.py",
)
"""Every ``sim`` module a chunk runs, relative to ``sim/`` (the kernels and strategies
are covered by ``kernels.source_digest``): a test plays a chunk in a fresh process and
checks that it imports exactly these."""


@lru_cache(maxsize=1)
def tables_digest() -> str:
    """Short hash of :data:`TABLE_SOURCES`: part of every run's identity."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for name in TABLE_SOURCES:
        h.update(name.encode())
        h.update((root / name).read_bytes())
    return h.hexdigest()[:16]


CODE_KEYS = ("source_digest", "tables_digest", "plugin_digests")
"""The keys of :func:`code_digests`, in a run's identity and a chunk's payload."""


def code_digests(strategies: Iterable[Any]) -> dict[str, Any]:
    """Digests of every source that can change a run's tables, seated ``strategies`` given.

    ``source_digest`` (kernels, strategies, numba, numpy, llvmlite), ``tables_digest``
    (:data:`TABLE_SOURCES`) and ``plugin_digests`` (each seated plugin's package). Part
    of every run's identity; a Ray worker compares its own with the driver's before it
    plays a chunk (``sim.study.cluster``), so that no node stamps other numbers with
    this run's label.
    """
    from kernels import source_digest
    from strategies import plugin_digests

    return {
        "source_digest": source_digest(),
        "tables_digest": tables_digest(),
        "plugin_digests": plugin_digests(strategies),
    }


@lru_cache(maxsize=1)
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
        A ``sim.study.runs.RunConfig`` (its ``to_dict()`` is stored) or that dict.

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
        "libraries": dict(_library_versions()),  # a copy: the versions are read once
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


def read_footer(path: PathInput) -> tuple[dict[str, Any], int]:
    """Provenance and row count of a Parquet file, from its footer alone."""
    where = str(path)
    source, filesystem = store.arrow_source(path)
    try:
        footer = pq.read_metadata(source, filesystem=filesystem)
    except FileNotFoundError:
        raise ResultsError(f"{where}: no such file") from None
    except (OSError, pa.ArrowException) as error:
        raise ResultsError(f"{where}: not a readable Parquet file ({one_line(error)})") from None
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
