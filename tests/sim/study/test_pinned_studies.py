"""Pinned outputs of every study: a refactor can never change a number silently.

Small seeded runs of ``run``, ``sweep``, an experiment file, ``compare``,
``tournament``, ``tune``, ``replay`` and ``advise`` are played through the command line;
their ``--json`` output and the tables they write are reduced to sha256 digests and
compared with ``tests/sim/study/pinned/studies.json``. What legitimately varies is left
out: timings, paths, folder names and ids (a run's id hashes the code's sources), the
digests of table files (their bytes depend on the Parquet writer), provenance, and
columns added later (each table is read with the columns it had when pinned).

History: recorded at 8dfb4e4, before the study layer was redesigned (issue 14); recorded
again after it, when the only differences in the normalised outputs were ids, the new
``status`` key and the tables' file digests (every number equal, checked with a diff);
then once more when tune's comparisons gained the keys every study writes
(``half_width``, ``t``, ``sd``: ``Comparison.to_json``), nothing else changed; and
when ``tune.json`` came to list its runs (``runs``, read by its loaders: issue 39):
without that key, the digests of the run before.

The knock chart was pinned later (December 2026), after its rollouts learnt to rebuild
the stock (3-player Knock Rummy: rebuilds happen), and recorded again when the samples
learnt which cards a real rebuild put into the stock (``Obs.rebuilt``), and when its
positions came to be scored from the deals' true state by the engine's probe
(``kernels/probe.py``) instead of determinized greedy rollouts (issue 28); and when its
check's cells gained a ``verdict`` (agreement at 95% over the checked cells, or "not
reached") in place of ``agrees``, and the check its ``z``: with those keys taken out and
the old ``agrees`` recomputed from the same numbers, the digest of the run before; and
when ``z`` came from ``sim.stats.normal_quantile`` instead of ``statistics.NormalDist``
(they differ in the last bit; with ``NormalDist`` back, the digest of the run before);
and when each checked cell gained ``met`` (the fresh deals that met it) and a cell met
by fewer than 30 became "too rare" to judge: without ``met`` and with that minimum at
0, the digest of the run before. And when Knock Rummy's knock chart came to tell every
deadwood from 0 to 50 apart (52 columns, "51 or more" the last; was 31, "30 or more"):
its cells summed over the columns from 30 up equal the old chart's column 30 in every
sum (positions, gains, their squares, wins), and the cells below 30 are unchanged.

``advise`` was recorded again when its default rollout threshold (``--knock-at -1``)
became ``mc``'s choice from the rules (0 in Gin); with ``--knock-at 10`` it still gave
the old digest; and once more when it gained the key ``rollout_knock_at`` (without it,
the digest of the run before). Again when its rollouts learnt to throw for gin where
they play for gin (as ``mc`` in a game's first hand) and the key
``rollout_throws_for_gin`` was added: with ``--no-throw-for-gin`` and without that key,
the digest of the run before. Again when it gained ``inference_misses`` (0 here: the
kept model never deals again); without that key, the digest of the run before.

``sweep``, ``experiment``, ``compare``, ``tournament``, ``tune`` and ``tune_descent`` were
recorded again when one unit name came to label every per-deal figure (``net points per
hand``, was ``net points per deal``) and the house-rule table's rates their unit (``share
of hands``, was ``%``): with the old two labels, the digests of the run before. And every
study's ``--json`` but replay's and advise's gained ``units`` (each figure's unit): without
that key, the digests of the run before.

``sweep`` was recorded again when its command came to be made from its front
(``sim.front.sweep``) and its ``--json`` gained ``seed_drawn``, as every front-made study
command's: without that key, the digest of the run before; ``knock_chart`` for the same
reason (``sim.front.chart``), and ``run``, ``run_games``, ``experiment`` and
``experiment_games`` when ``rummy run`` came to be made from its front
(``sim.front.run``): each ``--json`` differed from the run before in that key alone.
``knock_chart`` again when its ``--json`` gained ``units`` (each cell figure's unit):
without that key, the digest of the run before.

When a change is meant to change results, record the digests again (all, or the cases
named) and say why in the commit::

    python -m tests.sim.study.test_pinned_studies --record [CASE ...]
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app

PINNED = Path(__file__).parent / "pinned" / "studies.json"

# Keys whose values vary between runs of the same study and never hold a result.
VOLATILE = {
    "elapsed", "seconds", "created", "started", "finished", "command", "run_dir", "run_dirs",
    "directory", "path", "paths", "files", "digests", "provenance", "config_hash", "run_id",
    "compare_id", "tune_id", "tournament_id", "run_ids", "tables", "source_digest",
    "tables_digest", "plugin_digests",
    "package_version", "git_revision", "libraries", "chart_paths", "charts", "report",
    "out", "workers", "backend", "address", "chunk_size", "n_chunks", "source",
    "hands_per_second", "rate",
}  # fmt: skip

TOML = """
name = "pinned_exp"
seed = 9
deals = 400
duplicate = true
seats = "greedy:knock_at={k}/simple"
[rules]
preset = "gin"
[variants.modern]
preset = "gin"
[variants.classic]
preset = "gin-classic"
[grid]
k = [6, 9]
"""
TOML_GAMES = """
name = "pinned_games"
seed = 4
games = 12
seats = "greedy:knock_at={k}/greedy/greedy"
rows = "none"
[rules]
preset = "knock-rummy"
players = 3
[grid]
k = [5, 15]
"""


def normalised(value: Any) -> Any:
    """``value`` without volatile keys; floats as exact text (repr); sorted keys."""
    if isinstance(value, dict):
        return {k: normalised(v) for k, v in sorted(value.items()) if k not in VOLATILE}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if isinstance(value, Decimal):  # exact summary sums
        return int(value)
    return value


def digest(value: Any) -> str:
    text = json.dumps(normalised(value), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def table_digest(path: Path, columns: list[str] | None) -> tuple[str, list[str]]:
    """Digest of a Parquet table read as values, with ``columns`` (None: all of them)."""
    frame = pl.read_parquet(path)
    frame = frame.select(columns or [c for c in frame.columns if c not in VOLATILE])
    frame = frame.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))
    rows = [list(r) for r in frame.rows()]
    return digest({"columns": frame.columns, "rows": rows}), frame.columns


def cli(args: list[str]) -> dict[str, Any]:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def run_dir_tables(run_dir: Path) -> dict[str, Path]:
    """The tables of a run directory, each as one Parquet file (its parts in order)."""
    out = {}
    for table in ("hands", "games", "summary"):
        parts = sorted((run_dir / table).glob("part-*.parquet"))
        if parts:
            merged = run_dir.parent / f".{run_dir.name}-{table}.parquet"
            pl.concat([pl.read_parquet(p) for p in parts]).write_parquet(merged)
            out[table] = merged
    return out


def study_cases(tmp: Path) -> dict[str, Callable[[], tuple[Any, dict[str, Path]]]]:
    """Each case plays one study and returns its JSON output and its tables."""
    out = str(tmp / "out")

    def run() -> tuple[Any, dict[str, Path]]:
        data = cli(["run", "--rules", "gin", "--seats", "greedy:knock_at=7/simple", "--deals",
                    "2000", "--seed", "11", "--out", out, "-w", "1", "--chunk-size", "500",
                    "--json"])  # fmt: skip
        return data, run_dir_tables(Path(data["run_dir"]))

    def run_games() -> tuple[Any, dict[str, Path]]:
        data = cli(["run", "--rules", "hollywood-gin", "--seats", "greedy/simple", "--games",
                    "16", "--seed", "2", "--out", out, "-w", "1", "--json"])  # fmt: skip
        return data, run_dir_tables(Path(data["run_dir"]))

    def experiment_tables(name: str) -> dict[str, Path]:
        folder = Path(out) / name
        return {p.stem: p for p in sorted(folder.glob("*.parquet"))}

    def sweep() -> tuple[Any, dict[str, Path]]:
        data = cli(["sweep", "--seats", "greedy:knock_at={k}/simple", "--grid", "k=5,8",
                    "--grid", "rule.undercut_bonus=10,25", "--deals", "500", "--duplicate",
                    "--seed", "3", "--out", out, "-w", "1", "--json",
                    "--name", "sweep"])  # fmt: skip
        return data, experiment_tables("sweep")

    def experiment() -> tuple[Any, dict[str, Path]]:
        (tmp / "pinned_exp.toml").write_text(TOML)
        data = cli(["run", str(tmp / "pinned_exp.toml"), "--out", out, "-w", "1", "--json"])
        return data, experiment_tables("pinned_exp")

    def experiment_games() -> tuple[Any, dict[str, Path]]:
        (tmp / "pinned_games.toml").write_text(TOML_GAMES)
        data = cli(["run", str(tmp / "pinned_games.toml"), "--out", out, "-w", "1", "--json"])
        return data, experiment_tables("pinned_games")

    def compare() -> tuple[Any, dict[str, Path]]:
        data = cli(["compare", "--rules", "gin", "--seats", "greedy:knock_at=7/simple",
                    "--vs-seats", "greedy/simple", "--duplicate", "--deals", "400", "--seed",
                    "5", "--out", out, "--workers", "1", "--json"])  # fmt: skip
        return data, {}

    def compare_rules() -> tuple[Any, dict[str, Path]]:
        data = cli(["compare", "--rules", "gin", "--seats", "greedy/simple", "--vs-rule",
                    "undercut_bonus=10", "--games", "10", "--seed", "6", "--out", out,
                    "--workers", "1", "--json"])  # fmt: skip
        return data, {}

    def tournament() -> tuple[Any, dict[str, Path]]:
        data = cli(["tournament", "-s", "greedy,simple,defensive", "--rules", "gin", "--deals",
                    "300", "--seed", "2", "--out", out, "--workers", "1", "--json"])  # fmt: skip
        folder = Path(out) / "tournament"
        return data, {p.stem: p for p in sorted(folder.glob("*/matrix.parquet"))}

    def tune() -> tuple[Any, dict[str, Path]]:
        data = cli(["tune", "greedy", "--param", "knock_at=5..8", "--against", "simple",
                    "--deals", "400", "--confirm", "400", "--seed", "4", "--out", out, "-w",
                    "1", "--json"])  # fmt: skip
        folder = Path(out) / "tune"
        return data, {"settings": sorted(folder.glob("*/settings.parquet"))[0]}

    def tune_descent() -> tuple[Any, dict[str, Path]]:
        data = cli(["tune", "schedule", "--param", "a=6..10:2", "--param", "b=0..1:0.5",
                    "--max-evals", "4", "--against", "simple", "--deals", "300", "--confirm",
                    "300", "--seed", "8", "--out", str(tmp / "descent"), "-w", "1",
                    "--json"])  # fmt: skip
        folder = tmp / "descent" / "tune"
        return data, {"settings": sorted(folder.glob("*/settings.parquet"))[0]}

    def replay() -> tuple[Any, dict[str, Path]]:
        deal = cli(["replay", "--rules", "gin", "--seats", "greedy/simple", "--seed", "7",
                    "--deal", "12", "--json"])  # fmt: skip
        game = cli(["replay", "--rules", "hollywood-gin", "--seats", "greedy/simple", "--seed",
                    "7", "--game", "3", "--json"])  # fmt: skip
        return {"deal": deal, "game": game}, {}

    def advise() -> tuple[Any, dict[str, Path]]:
        data = cli(["advise", "--rules", "gin", "--hand", "9C 9D 9H JS QS KS AD 4D 2H 3S JC",
                    "--pile", "5S KC 7D 8H 2C", "--samples", "300", "--seed", "1",
                    "--json"])  # fmt: skip
        return data, {}

    def knock_chart() -> tuple[Any, dict[str, Path]]:
        data = cli(["strategy-chart", "knock", "--rules", "knock-rummy", "--players", "3",
                    "--seats", "greedy", "--deals", "400", "--seed", "3", "--samples", "4",
                    "--per-cell", "0", "--out", out, "-w", "1", "--json"])  # fmt: skip
        data.pop("figures")  # paths
        return data, {}

    return {
        "run": run,
        "run_games": run_games,
        "sweep": sweep,
        "experiment": experiment,
        "experiment_games": experiment_games,
        "compare": compare,
        "compare_rules": compare_rules,
        "tournament": tournament,
        "tune": tune,
        "tune_descent": tune_descent,
        "replay": replay,
        "advise": advise,
        "knock_chart": knock_chart,
    }


def play(name: str, tmp: Path, pinned: dict[str, Any] | None) -> dict[str, Any]:
    """Digests of one case: its JSON output and each of its tables."""
    output, tables = study_cases(tmp)[name]()
    got: dict[str, Any] = {"json": digest(output), "tables": {}}
    for table, path in tables.items():
        columns = (pinned or {}).get("tables", {}).get(table, {}).get("columns")
        value, used = table_digest(path, columns)
        got["tables"][table] = {"digest": value, "columns": used}
    return got


@pytest.fixture(scope="module")
def pinned() -> dict[str, Any]:
    return json.loads(PINNED.read_text())


@pytest.mark.parametrize(
    "name",
    ["run", "run_games", "sweep", "experiment", "experiment_games", "compare",
     "compare_rules", "tournament", "tune", "tune_descent", "replay", "advise", "knock_chart"],
)  # fmt: skip
def test_study_outputs_are_pinned(name, pinned, tmp_path) -> None:
    expected = pinned[name]
    got = play(name, tmp_path, expected)
    assert got["json"] == expected["json"], f"{name}: the --json output changed"
    for table, want in expected["tables"].items():
        assert got["tables"][table]["digest"] == want["digest"], f"{name}: table {table} changed"


def record(names: list[str]) -> None:
    """Record the digests of the cases ``names`` (every case when empty)."""
    import tempfile

    out = json.loads(PINNED.read_text()) if names and PINNED.exists() else {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names or study_cases(Path(tmp)):
            (Path(tmp) / name).mkdir()
            out[name] = play(name, Path(tmp) / name, None)
            print(name, out[name]["json"][:12], file=sys.stderr)
    PINNED.parent.mkdir(exist_ok=True)
    PINNED.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] != ["--record"]:
        sys.exit("usage: python -m tests.sim.study.test_pinned_studies --record [CASE ...]")
    record(sys.argv[2:])
