"""Parameter search on common random numbers: which setting of a strategy plays best.

>>> from sim.study.tune import tune
>>> from sim.study.tune_request import make_request
>>> request = make_request("greedy", ["knock_at=0..10"], against="simple", rules="gin",
...                        count=50_000, seed=7, duplicate=True)
>>> result = tune(request)     # threads of this process, under results/ (a Session)
>>> result.best_label, result.vs_default          # knock_at=..., paired t vs the default

What is compared
----------------
The tuned strategy sits in seat 0; the other seats play the ``against`` line-up (one
spec fills them all, or one ``/``-separated spec per other seat). Every setting is
played through one queue (``sim.study.execute``) with the same seed, so setting ``x`` and setting
``y`` play identical deals (common random numbers) and are compared deal by deal. The
metric is seat 0's net points per hand (its points minus the mean of the other seats'),
or its net final score per game with ``mode="games"`` (``sim.study.units``, as every study). With
``duplicate`` every deal is also played with the line-up rotated (``players`` runs per
setting) and a deal's value is the mean over the rotations, so seat luck cancels.

How settings are searched
-------------------------
A space is the product of the parameters' value lists (``knock_at=0..10``,
``b=0..1:0.1``, ``a=8,9,10``). When it has at most ``max_evals`` settings every one is
played (``grid``). A larger space is searched by **coordinate descent**: start at the
default parameters (each snapped to the nearest value of its list), play every value
of the first parameter with the others held, move to the best, then the next
parameter, and so on; rounds repeat until a whole round moves nothing, the budget of
``max_evals`` distinct settings is spent (values nearest the current point first) or
``max_rounds`` rounds have run. Settings already played are never played again.

Why coordinate descent rather than successive halving: successive halving (Jamieson
and Talwalkar 2016) must play every setting of the space at least once, so a product
space of thousands spends its budget on tiny samples whose noise decides the early
cuts, and the survivors end with different sample sizes. The parameters tuned here
are thresholds whose effect on expected points is smooth and, along one axis, close to
unimodal; coordinate descent plays ``sum(n_i)`` settings a round instead of
``prod(n_i)``, every setting gets the full deal count (so every interval in the table
means the same thing), and each move compares settings on the same deals. Its weakness
is interaction: two parameters that trade off along a ridge (``schedule``'s ``a`` and
``b``) can stop it at a point that is best along each axis but not overall. Grid the
two coupled parameters instead when they fit the budget; the verdicts below speak only
of the settings actually played.

What is reported
----------------
Every setting played, with its mean and 95% t interval. The best (highest mean), its
paired difference with the default parameters (paired t interval and p-value; the
default is played too when it lies outside the space, as a reference that is not a
candidate), and whether it beats the runner-up: paired t tests of the best against
every other candidate, Holm-adjusted (``sim.stats.best_vs_runner_up``, as
``rummy sweep``). The best is picked on the same deals it is measured on, so its
in-search margin is optimistic (the winner's curse); ``confirm = N`` plays the best
and the default again on ``N`` fresh deals (an independent seed) and reports that
difference, which is unbiased.

Storage
-------
``<out>/tune/<tune_id>/``: ``request.json`` (the resolved request, written first,
atomically), one runner directory per (setting, rotation) (``<run_id>/``), then
``settings.parquet`` (one row per setting played) and ``tune.json`` (request, search
path, results and every run played: its loaders read those runs and refuse a folder
holding any other), written last and atomically (``sim.present.tune.save_chart`` draws
``charts/tune.png`` and ``.svg`` from the result). ``tune_id`` hashes the request and
the engine's identity (the default runs' config hashes). The same request again (or
:func:`resume` on the directory) plays only what is missing: finished runs are found by
the runner, and the search takes the same path because every evaluation is a pure
function of the seed.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from sim import store
from sim.stats import (
    DEFAULT_CONFIDENCE,
    Comparison,
    Interval,
    SweepVerdict,
    best_vs_runner_up,
    difference_test,
    mean_ci,
)
from sim.store import PathInput, StorePath, study_folder
from sim.study import records, rundir
from sim.study import tables as T
from sim.study.execute import Executor, Progress, execute
from sim.study.kinds import TUNE
from sim.study.provenance import with_provenance
from sim.study.records import study_id
from sim.study.runs import RunConfig
from sim.study.search import (
    Point,
    SearchResult,
    TuneError,
    Values,
    label_of,
)
from sim.study.search import search as _search
from sim.study.session import DEFAULT_SESSION, Session
from sim.study.settings import block_seed
from sim.study.tune_request import TuneRequest, whole
from sim.study.units import (
    Units,
    check_joined,
    focal_series,
    load_units,
    metric_name,
    position,
    rotate,
)

__all__ = ["TuneResult", "load_tune", "resume", "stored_request", "tune", "tune_runs"]

TUNE_FILE, REQUEST_FILE = TUNE.records
SETTINGS_FILE = "settings.parquet"
REQUEST_KIND = "rummy-tune-request"
TUNE_KIND = "rummy-tune"
CONFIRM_BLOCK = 1  # SeedSequence spawn key of the confirmation deals (independent of the seed's)


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TuneResult:
    """What :func:`tune` found. ``settings`` has one row per setting played."""

    tune_id: str
    directory: StorePath
    request: TuneRequest
    search: SearchResult
    settings: pl.DataFrame
    best: Point
    default: Point
    verdict: SweepVerdict
    vs_default: Comparison
    confirmation: Comparison | None
    confirm_seed: int | None
    confidence: float
    hands_played: int
    elapsed: float

    @property
    def best_label(self) -> str:
        return label_of(self.request.space, self.best)

    @property
    def default_label(self) -> str:
        return label_of(self.request.space, self.default)

    @property
    def metric(self) -> str:
        return metric_name(self.request.mode)

    def on_edge(self) -> list[str]:
        """Parameters whose best value is the first or last of its range (of 3 or more
        values): the optimum may lie beyond the range."""
        return [
            r.name
            for r, v in zip(self.request.space, self.best, strict=True)
            if len(r) >= 3 and v in (r.values[0], r.values[-1])
        ]

    @property
    def best_interval(self) -> Interval:
        return self.verdict.means[self.best_label]

    def to_dict(self) -> dict[str, Any]:
        req = self.request
        verdict = self.verdict
        runner_up = None
        if verdict.runner_up is not None:
            c, p = verdict.comparisons[0], verdict.adjusted_p[0]
            runner_up = {
                "setting": verdict.runner_up,
                **c.to_json(),
                "holm_p": p,
                "comparisons": len(verdict.comparisons),
            }
        s = self.search
        return {
            "tune_id": self.tune_id,
            "directory": str(self.directory),
            "name": req.name,
            "strategy": req.strategy,
            "against": list(req.against),
            "rules": req.rules.name,
            "players": req.players,
            "mode": req.mode,
            "count": req.count,
            "seed": req.seed,
            "duplicate": req.duplicate,
            "rotations": req.rotations,
            "metric": self.metric,
            "focal_seat": 0,
            "params": [r.to_dict() for r in req.space],
            "space_size": req.size,
            "search": {
                "method": s.method,
                "max_evals": req.max_evals,
                "evaluated": len(s.values),
                "rounds": s.rounds,
                "converged": s.converged,
                "budget_exhausted": s.budget_exhausted,
                "start": label_of(req.space, s.start) if s.start is not None else None,
                "path": [label_of(req.space, p) for p in s.path],
            },
            "best": {
                "setting": self.best_label,
                "params": dict(zip((r.name for r in req.space), self.best, strict=True)),
                "seat": req.seat_spec(self.best),
                **self.best_interval.to_json(),
            },
            "default": {
                "setting": self.default_label,
                "seat": req.seat_spec(self.default),
                "candidate": self.default in s.values,
            },
            "vs_default": self.vs_default.to_json(),
            "confirmation": (
                {
                    **self.confirmation.to_json(),
                    "seed": self.confirm_seed,
                    "count": req.confirm,
                }
                if self.confirmation is not None
                else None
            ),
            "runner_up": runner_up,
            "on_edge": self.on_edge(),
            "significant": verdict.significant,
            "alpha": verdict.alpha,
            "verdict": verdict.summary(),
            "settings": self.settings.to_dicts(),
            "hands_played": self.hands_played,
            "elapsed": self.elapsed,
        }


# --- playing settings -------------------------------------------------------------------------


class _Player:
    """Plays settings on common deals and returns the tuned seat's per-unit values."""

    def __init__(
        self,
        request: TuneRequest,
        executor: Executor,
        *,
        root: StorePath,
        chunk_size: int | None,
        command: str,
        progress: Callable[[Progress], None] | None,
    ):
        self.request = request
        self.executor = executor
        self.root = root
        self.tune_id = "pending"
        self.chunk_size = chunk_size
        self.command = command
        self.progress = progress
        self.references: dict[tuple[int, int], Units] = {}  # (seed, count) -> first Units
        self.hands_played = 0
        self.played: dict[str, RunConfig] = {}  # run id -> config: the record lists them

    def configs(self, point: Point, *, seed: int, count: int) -> list[RunConfig]:
        req = self.request
        lineup = req.lineup(point)
        labels = (
            ("setting", label_of(req.space, point)),
            *(
                (r.name, int(v) if r.kind == "int" else float(v))
                for r, v in zip(req.space, point, strict=True)
            ),
        )
        return [
            RunConfig(
                rules=req.rules,
                lineup=rotate(lineup, r),
                count=count,
                mode=req.mode,
                experiment=self.tune_id,
                seed=seed,
                chunk_size=self.chunk_size,
                labels=(*labels, ("seating", r)),
                out=self.root,
                command=self.command,
            )
            for r in range(req.rotations)
        ]

    def play(self, points: Sequence[Point], *, seed: int, count: int) -> list[Values]:
        """Each point's per-unit values: the tuned seat's net, averaged over seatings."""
        per_point = [self.configs(p, seed=seed, count=count) for p in points]
        done = execute([c for cs in per_point for c in cs], self.executor, progress=self.progress)
        self.played.update((c.run_id, c) for cs in per_point for c in cs)
        self.hands_played += sum(r.hands_played for r in {r.run_dir: r for r in done}.values())
        req = self.request
        positions = [position(0, r, req.players) for r in range(req.rotations)]
        out = []
        for point, configs in zip(points, per_point, strict=True):
            what = f"setting {label_of(req.space, point)}"
            units = [load_units(c.run_dir, req.mode, req.players) for c in configs]
            reference = self.references.setdefault((seed, count), units[0])
            check_joined(reference, units[0], what)
            out.append(focal_series(units, positions, what).net)
        return out


def _tune_id(request: TuneRequest, player: _Player) -> str:
    reference = player.configs(request.default_point(), seed=request.seed, count=request.count)
    return study_id(
        {
            "kind": "tune",
            "request": {
                k: v for k, v in request.to_dict().items() if k not in ("name", "description")
            },
            "reference_runs": [c.config_hash for c in reference],
        }
    )


def _settings_frame(
    request: TuneRequest,
    found: SearchResult,
    values: Mapping[Point, Values],
    default: Point,
    verdict: SweepVerdict,
    confidence: float,
) -> pl.DataFrame:
    space = request.space
    by_other = {
        c.label_b: (c, p) for c, p in zip(verdict.comparisons, verdict.adjusted_p, strict=True)
    }
    best = found.best
    rows = []
    for order, (point, v) in enumerate(values.items()):
        label = label_of(space, point)
        iv = mean_ci(v, confidence, "t")
        candidate = point in found.values
        vs_default = difference_test(v - values[default], confidence)
        c, holm_p = by_other.get(label, (None, math.nan))
        rows.append(
            {
                "setting": label,
                **{
                    r.name: (int(x) if r.kind == "int" else float(x))
                    for r, x in zip(space, point, strict=True)
                },
                "seat": request.seat_spec(point),
                "order": order,
                "candidate": candidate,
                "default": point == default,
                "best": point == best,
                "units": int(v.size),
                "mean": iv.estimate,
                "low": iv.low,
                "high": iv.high,
                "diff_vs_best": (-c.mean_diff if c else (0.0 if point == best else math.nan)),
                "diff_low": (-c.ci.high if c else math.nan),
                "diff_high": (-c.ci.low if c else math.nan),
                "p_value": c.p_value if c else math.nan,
                "holm_p": holm_p,
                "diff_vs_default": vs_default.mean_diff,
            }
        )
    return pl.DataFrame(rows)


def _write_settings(frame: pl.DataFrame, path: StorePath, tune_id: str) -> dict[str, Any]:
    meta = {"schema_version": T.SCHEMA_VERSION, "table": "tune_settings", "tune_id": tune_id}
    return T.write_parquet_atomic(with_provenance(frame.to_arrow(), meta), path)


def tune(
    request: TuneRequest,
    session: Session = DEFAULT_SESSION,
    *,
    chunk_size: int | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    on_batch: Callable[[str, int], None] | None = None,
    on_start: Callable[[TuneRequest, StorePath], None] | None = None,
) -> TuneResult:
    """Search the request's parameters on common deals; see the module docstring.

    ``request`` comes from :func:`make_request` (or a tune file), checked before the
    first deal is played and before anything is written; ``session`` says how the runs
    play, where the tune writes (``out/tune/ID``) and who hears their progress.
    ``on_batch`` receives a description before each batch of settings and ``on_start``
    the request and the directory once everything is checked.

    Raises
    ------
    TuneError, StrategyError, RuleError, RunError
        One-line messages (all ``ValueError``).
    """
    started = time.perf_counter()
    if not isinstance(request, TuneRequest):
        raise TuneError(f"a tune needs a TuneRequest (make_request), got {type(request).__name__}")
    command = session.provenance
    root = session.out / TUNE.folder
    player = _Player(
        request, session.executor, root=root, chunk_size=chunk_size, command=command,
        progress=session.progress,
    )  # fmt: skip
    tune_id = _tune_id(request, player)
    player.tune_id = tune_id
    directory = root / tune_id
    if chunk_size is not None:
        whole("chunk_size", chunk_size, 1)
    if on_start is not None:
        on_start(request, directory)
    default = request.default_point()
    with study_folder(directory) as created:  # its lock held to the last write
        try:
            records.write_record(directory / REQUEST_FILE, REQUEST_KIND, request.to_dict())

            def evaluate(points: Sequence[Point]) -> list[Values]:
                return player.play(points, seed=request.seed, count=request.count)

            found = _search(
                request.space,
                evaluate,
                start=default,
                max_evals=request.max_evals,
                method=request.search,
                max_rounds=request.max_rounds,
                on_batch=on_batch,
            )
            values = dict(found.values)
            if default not in values:
                if on_batch is not None:
                    on_batch("the default parameters (reference)", 1)
                values[default] = evaluate([default])[0]
            best = found.best
            confirmation = None
            confirm_seed = None
            if request.confirm and best != default:
                confirm_seed = block_seed(request.seed, CONFIRM_BLOCK)
                if on_batch is not None:
                    fresh_units = f"{request.confirm:,} fresh {request.mode}"
                    on_batch(f"confirmation: best and default on {fresh_units}", 2)
                fresh = player.play([best, default], seed=confirm_seed, count=request.confirm)
                confirmation = difference_test(
                    fresh[0] - fresh[1],
                    confidence,
                    label_of(request.space, best),
                    f"default ({label_of(request.space, default)})",
                )
        except BaseException:
            if created and not any(
                p.name not in (REQUEST_FILE, store.LOCK_NAME) for p in directory.iterdir()
            ):
                (directory / REQUEST_FILE).unlink(missing_ok=True)  # then the folder goes too
            raise

        space = request.space
        labels = {p: label_of(space, p) for p in values}
        verdict = best_vs_runner_up(
            {labels[p]: found.values[p] for p in found.values}, confidence=confidence
        )
        assert labels[best] == verdict.best
        vs_default = difference_test(
            values[best] - values[default], confidence, labels[best], f"default ({labels[default]})"
        )
        settings = _settings_frame(request, found, values, default, verdict, confidence)
        digest = _write_settings(settings, directory / SETTINGS_FILE, tune_id)
        result = TuneResult(
            tune_id=tune_id,
            directory=directory,
            request=request,
            search=found,
            settings=settings,
            best=best,
            default=default,
            verdict=verdict,
            vs_default=vs_default,
            confirmation=confirmation,
            confirm_seed=confirm_seed,
            confidence=confidence,
            hands_played=player.hands_played,
            elapsed=time.perf_counter() - started,
        )
        final = {
            "command": command,
            "request": request.to_dict(),
            **result.to_dict(),
            "runs": [  # what its loaders read (rundir.listed_runs), in the order played
                {
                    "setting": dict(c.labels)["setting"],
                    "seating": dict(c.labels)["seating"],
                    "seed": c.seed,
                    "count": c.count,
                    "run_id": c.run_id,
                    "config_hash": c.config_hash,
                }
                for c in player.played.values()
            ],
            "tables": {SETTINGS_FILE: digest},
        }
        records.write_record(directory / TUNE_FILE, TUNE_KIND, final)
    return result


def stored_request(directory: PathInput) -> TuneRequest:
    """The request a tune's folder holds (``request.json``, written before its first run)."""
    path = store.location(directory) / REQUEST_FILE
    data = records.load_record(path, REQUEST_KIND)
    try:
        return TuneRequest.from_dict(data)
    except (KeyError, TypeError) as error:
        raise TuneError(f"{path}: incomplete request ({error})") from None


def resume(directory: PathInput, session: Session = DEFAULT_SESSION, **options: Any) -> TuneResult:
    """Finish (or redo the analysis of) the tune in ``directory`` from its request.

    ``session``'s results root is the folder's own; ``options`` are :func:`tune`'s other
    keywords.
    """
    directory = store.location(directory)
    request = stored_request(directory)
    result = tune(request, dataclasses.replace(session, out=directory.parent.parent), **options)
    if result.directory.resolve() != directory.resolve():
        raise TuneError(
            f"cannot resume {directory}: it was made by another version of the engine "
            f"(this one files it under {result.directory})"
        )
    return result


def load_tune(directory: PathInput) -> dict[str, Any]:
    """The ``tune.json`` of a finished tune, checked (``records.load_record``); its runs
    are not read (:func:`tune_runs` checks them)."""
    return records.load_record(store.location(directory) / TUNE_FILE, TUNE_KIND)


def tune_runs(directory: PathInput) -> list[StorePath]:
    """The run folders a finished tune's record lists, each checked to be the run it
    names, with no other run beside them (``rundir.listed_runs``)."""
    path = store.location(directory) / TUNE_FILE
    record = records.load_record(path, TUNE_KIND)
    again = f"play it again with: rummy tune --resume {path.parent}"
    return rundir.listed_runs(path, record.get("runs"), again)
