"""The analysis of an experiment: intervals per setting, the verdict per group.

Per setting: the headline metric of template seat 0 with its t interval (per deal,
averaged over the seatings with ``duplicate``), points and net points per hand, win
rate (Wilson), outcome mix, hand lengths, every seat's statistics; per group of
settings the best one against every other on common deals (paired t on the per-deal
values; Holm-adjusted). Sums come from the runs' exact summaries, per-deal values from
their hands (``sim.study.units``); with ``rows = "none"`` the comparisons are unpaired.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from kernels import layout as L
from sim import store
from sim.rules import DEFAULT_PRESET, PRESETS, RuleSet
from sim.stats import Interval, Moments, best_vs_runner_up, mean_ci, needed_for_half_width, wilson
from sim.store import PathInput, one_line
from sim.study import rundir
from sim.study.claims import claims_frame, derive_columns, evaluate_claims
from sim.study.design import (
    ALPHA,
    RATE_HEADLINES,
    Experiment,
    ExperimentError,
    default_charts,
    headline_unit,
)
from sim.study.house_rules import house_rule_table, setting_measures
from sim.study.runs import RunConfig
from sim.study.settings import Setting, format_value, short_key
from sim.study.sums import Sums, add_sums, knock_count, net_moments, own_moments, sums_of
from sim.study.units import focal_series, load_units

__all__ = ["Analysis", "ExperimentData", "data_from_run"]


@dataclass(frozen=True)
class ExperimentData:
    """The analysed results of an experiment (or of one run directory): frames and a
    JSON record; what charts and the report are drawn from."""

    kind: Literal["experiment", "run"]
    name: str
    record: dict[str, Any]
    summary: pl.DataFrame
    seats: pl.DataFrame
    outcomes: pl.DataFrame
    turns: pl.DataFrame
    comparisons: pl.DataFrame
    runs: pl.DataFrame
    config: dict[str, Any]
    provenance: dict[str, Any]
    claims: pl.DataFrame | None = None  # the claims' cells and verdicts (sim.study.claims)
    # how each rule setting changes the game (sim.study.house_rules); None: one rule set
    house_rules: pl.DataFrame | None = None

    @property
    def headline(self) -> str:
        return str(self.record["headline"])

    @property
    def mode(self) -> str:
        return str(self.record["mode"])

    @property
    def meta(self) -> dict[str, Any]:
        return dict(self.record.get("meta") or {})

    @property
    def verdicts(self) -> list[dict[str, Any]]:
        return list(self.record.get("verdicts") or [])

    @property
    def groups(self) -> dict[str, list[str]]:
        """The settings compared with each other, by rule setting ("all": one); from
        the summary's ``group`` column for a record written before it listed them."""
        stored = self.record.get("groups")
        if stored:
            return {str(k): list(v) for k, v in stored.items()}
        out: dict[str, list[str]] = {}
        if "group" in self.summary.columns:
            for group, setting in self.summary.select("group", "setting").iter_rows():
                out.setdefault(str(group), []).append(str(setting))
        return out

    @property
    def unit(self) -> str:
        """The headline's unit as printed: "%", "points per hand" or "points per game"."""
        return headline_unit(self.headline)

    def seat0(self) -> str:
        """Seat 0's spec in the line-up template (placeholders kept: ``greedy:knock_at={k}``);
        of a run, how its seat 0 is shown (``strategies.seat_label``)."""
        from strategies import StrategyError, seat_label, split_specs

        if not self.config.get("seats") and self.config.get("names"):
            return str(self.config["names"][0])
        seats = self.config.get("seats") or self.config.get("lineup") or ["?"]
        first = str(seats if isinstance(seats, str) else seats[0])
        try:
            first = split_specs(first)[0]
        except StrategyError:  # not a line-up (a template's placeholders aside)
            first = first.split("/")[0]
        if "seats" in self.config:
            return first.strip()
        try:
            return seat_label(first)
        except StrategyError:
            return first.strip()

    def charts(self) -> tuple[str, ...]:
        """The chart kinds to draw: those the experiment named, else all that fit."""
        named = self.record.get("charts")
        return tuple(named) if named else default_charts(self.meta)


# --- analysis --------------------------------------------------------------------------


def _interval_row(prefix: str, iv: Interval) -> dict[str, float]:
    return {prefix: iv.estimate, f"{prefix}_low": iv.low, f"{prefix}_high": iv.high}


def _unpaired(a: Moments, b: Moments) -> Moments:
    """Moments whose paired-t test equals Welch's unpaired test at equal n (rows='none':
    no per-deal pairing; ignoring the positive correlation of common deals is
    conservative)."""
    n = min(a.n, b.n)
    var = (a.variance if a.n > 1 else 0.0) * n / max(a.n, 1) + (
        b.variance if b.n > 1 else 0.0
    ) * n / max(b.n, 1)
    return Moments(n, a.mean - b.mean, var * (n - 1))


class Analysis:
    """The analysis of finished runs: ``blocks[0]`` are the planned settings
    (``expand(experiment)``), further blocks those ``precision`` added.

    Per setting: the headline metric of template seat 0 with its t interval (per deal,
    averaged over the seatings with ``duplicate``), points and net points per hand,
    win rate (Wilson), outcome mix, hand lengths; per group of settings the best one
    against every other on common deals (paired t on the per-deal values, joined by
    deal number; Holm-adjusted). :meth:`data` gives it as :class:`ExperimentData`.
    """

    def __init__(self, experiment: Experiment, blocks: Sequence[Sequence[Setting]]):
        self.experiment = experiment
        self.blocks = blocks
        self.settings = list(blocks[0])
        self.rows_kept = experiment.rows == "hands"
        self.mode = experiment.mode
        self.headline = experiment.headline
        n = len(self.settings)
        # per setting: per rotation index, summary sums over blocks
        self.sums: list[list[Sums]] = [[{} for _ in s.configs] for s in self.settings]
        self.units = [0] * n
        self.values: list[dict[str, np.ndarray]] = [{} for _ in range(n)]
        # the house-rule measures per deal (sim.study.house_rules): only when the
        # settings differ in their rules and per-hand rows of single deals are kept
        self.house = len(self.groups()) > 1 and self.rows_kept and self.mode == "deals"
        self.measures: list[dict[str, np.ndarray]] = [{} for _ in range(n)]
        for block in blocks:
            for i, setting in enumerate(block):
                self.units[i] += setting.configs[0].count
                for r, run_dir in enumerate(setting.dirs):
                    self.sums[i][r] = add_sums(
                        self.sums[i][r], sums_of(rundir.load_summary(run_dir))
                    )
                if self.rows_kept:
                    self._add_values(i, setting)
                if self.house:
                    _, measures = setting_measures(
                        setting.dirs, setting.players, f"setting {setting.label}"
                    )
                    for name, v in measures.items():
                        old = self.measures[i].get(name)
                        self.measures[i][name] = v if old is None else np.concatenate([old, v])
        self.headline_iv: list[Interval] = []
        self.headline_m: list[Moments] = []
        for i in range(n):
            iv, m = self._headline(i)
            self.headline_iv.append(iv)
            self.headline_m.append(m)

    # per-unit values: template seat 0, averaged over rotations, concatenated over blocks
    def _add_values(self, i: int, setting: Setting) -> None:
        units = [load_units(d, self.mode, setting.players) for d in setting.dirs]
        expected = np.arange(setting.configs[0].count)
        for u, run_dir in zip(units, setting.dirs, strict=True):
            if u.keys.shape[0] != expected.shape[0] or not np.array_equal(u.keys[:, 0], expected):
                raise ExperimentError(
                    f"{run_dir}: rows do not cover numbers 0..{len(expected) - 1}"
                )
        positions = [setting.position(0, r) for r in setting.rotations]
        series = focal_series(units, positions, f"setting {setting.label}")
        if self.mode == "deals":
            metrics = {"net_points": series.net, "points": series.points, "win_rate": series.won}
        else:
            metrics = {"net_score": series.net, "game_win_rate": series.won}
        for column, values in metrics.items():
            old = self.values[i].get(column)
            self.values[i][column] = values if old is None else np.concatenate([old, values])

    def pooled(self, i: int, seat: int = 0) -> dict[str, Any]:
        """Seat ``seat`` of setting ``i`` over every rotation (hands pooled)."""
        setting = self.settings[i]
        P = setting.players
        hands = games = wins = knocks = gins = undercuts = game_wins = 0
        points = net = net_score = Moments()
        special = {L.OUTCOME_LABELS.index(x) for x in ("gin", "big_gin", "rummy")}
        undercut = L.OUTCOME_LABELS.index("undercut")
        for r, s in zip(setting.rotations, self.sums[i], strict=True):
            pos = setting.position(seat, r)
            h = s.get(("hands", -1, -1), 0)
            hands += h
            points += own_moments(s, "points", h, pos)
            net += net_moments(s, "points", h, pos, P)
            wins += s.get(("wins", pos, -1), 0)
            knocks += knock_count(s, pos)
            gins += knock_count(s, pos, special)
            undercuts += knock_count(s, pos, [undercut])
            if self.mode == "games":
                g = s.get(("count", -1, -1), 0)
                games += g
                net_score += net_moments(s, "score", g, pos, P)
                game_wins += s.get(("game_wins", pos, -1), 0)
        return {
            "hands": hands,
            "games": games,
            "points": points,
            "net": net,
            "wins": wins,
            "knocks": knocks,
            "gins": gins,
            "undercuts": undercuts,
            "net_score": net_score,
            "game_wins": game_wins,
        }

    def _headline(self, i: int) -> tuple[Interval, Moments]:
        rotations = len(self.settings[i].configs)
        if self.rows_kept:
            m = Moments.of(self.values[i][self.headline])
            iv = mean_ci(m)
            method = "t" + (
                f" over duplicate {self.mode} ({rotations} seatings)" if rotations > 1 else ""
            )
            return dataclasses.replace(iv, method=method), m
        p = self.pooled(i)
        if self.headline in ("win_rate", "game_win_rate"):
            n, k = (
                (p["hands"], p["wins"])
                if self.headline == "win_rate"
                else (p["games"], p["game_wins"])
            )
            return wilson(k, n), Moments.from_sums(n, k, k)
        m = {"net_points": p["net"], "points": p["points"], "net_score": p["net_score"]}[
            self.headline
        ]
        iv = mean_ci(m)
        method = "t" + (" (seatings pooled)" if rotations > 1 else "")
        return dataclasses.replace(iv, method=method), m

    def widest_half_width(self) -> float:
        return max(iv.half_width for iv in self.headline_iv)

    def extra_units(self, target: float) -> int:
        """Deals (games) to add to every setting so the widest interval should fit."""
        extra = 0
        for i, m in enumerate(self.headline_m):
            need = needed_for_half_width(m, target)
            per_unit = m.n / max(self.units[i], 1)  # values per deal: seatings when pooled
            extra = max(extra, math.ceil((need - m.n) / max(per_unit, 1e-9)))
        return extra

    def rule_setting(self, i: int) -> str:
        """Setting ``i``'s rules in words: its variant (when there are several) and its
        ``rule.*`` grid values; "" when every setting has the same rules."""
        exp = self.experiment
        s = self.settings[i]
        keys = exp.grid_keys
        parts = [s.variant] if len(exp.variants) > 1 else []
        parts += [
            f"{short_key(k, keys)}={format_value(v)}" for k, v in s.params if k.startswith("rule.")
        ]
        return ", ".join(parts)

    def strategy_setting(self, i: int) -> str:
        """Setting ``i``'s grid values that are not rules (what tells strategies apart)."""
        keys = self.experiment.grid_keys
        return ", ".join(
            f"{short_key(k, keys)}={format_value(v)}"
            for k, v in self.settings[i].params
            if not k.startswith("rule.")
        )

    def groups(self) -> dict[str, list[int]]:
        """Settings compared with each other: those under the same rules (variant and
        ``rule.*`` grid values, so also the same number of seats). Scores under
        different rules are not one scale, so a best is named per rule setting; one
        group, "all", when every setting has the same rules."""
        out: dict[str, list[int]] = {}
        for i in range(len(self.settings)):
            out.setdefault(self.rule_setting(i), []).append(i)
        return out if len(out) > 1 else {"all": list(range(len(self.settings)))}

    def compare(
        self,
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[int, dict[str, Any]]]:
        verdicts: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        per_setting: dict[int, dict[str, Any]] = {}
        for group, members in self.groups().items():
            if len(members) < 2:
                continue
            labels = [self.settings[i].label for i in members]
            if self.rows_kept:
                values: dict[str, Any] = {
                    self.settings[i].label: self.values[i][self.headline] for i in members
                }
                verdict = best_vs_runner_up(values)
                method = verdict.method
            else:
                moments = {self.settings[i].label: self.headline_m[i] for i in members}
                diffs = {
                    (a, b): _unpaired(moments[a], moments[b])
                    for a, b in itertools.permutations(labels, 2)
                }
                verdict = best_vs_runner_up(moments, diffs)
                method = (
                    f"unpaired t (rows='none' keeps no per-deal values), best vs each of "
                    f"{len(labels) - 1} others, Holm-Bonferroni"
                )
            by_label = {self.settings[i].label: i for i in members}
            per_setting[by_label[verdict.best]] = {
                "best": True,
                "diff_vs_best": 0.0,
                "diff_low": 0.0,
                "diff_high": 0.0,
                "p_value": math.nan,
                "holm_p": math.nan,
                "compare_method": method,
            }
            for comp, p in zip(verdict.comparisons, verdict.adjusted_p, strict=True):
                per_setting[by_label[comp.label_b]] = {
                    "best": False,
                    "diff_vs_best": -comp.mean_diff,
                    "diff_low": -comp.ci.high,
                    "diff_high": -comp.ci.low,
                    "p_value": comp.p_value,
                    "holm_p": p,
                    "compare_method": method,
                }
                rows.append(
                    {
                        "group": group,
                        "best": verdict.best,
                        "setting": comp.label_b,
                        "difference": comp.mean_diff,
                        "low": comp.ci.low,
                        "high": comp.ci.high,
                        "p_value": comp.p_value,
                        "holm_p": p,
                        "significant": bool(p < ALPHA and comp.mean_diff > 0),
                        "n": comp.n,
                        "method": method,
                    }
                )
            text = verdict.summary(
                headline_unit(self.headline), percent=self.headline in RATE_HEADLINES
            )
            if not self.rows_kept:
                text = text.replace("Holm-adjusted", "unpaired, Holm-adjusted")
            verdicts.append(
                {
                    "group": group,
                    "best": verdict.best,
                    "runner_up": verdict.runner_up,
                    "significant": verdict.significant,
                    "summary": text,
                    "method": method,
                    "alpha": ALPHA,
                }
            )
        return verdicts, rows, per_setting

    def hands(self, i: int) -> pl.LazyFrame:
        """Setting ``i``'s hands over every seating and block, with the claims' columns."""
        frames = [rundir.load_hands(d) for block in self.blocks for d in block[i].dirs]
        return derive_columns(pl.concat(frames, how="diagonal_relaxed"), self.settings[i].players)

    def claims(
        self, per_setting: Mapping[int, Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]
    ) -> tuple[pl.DataFrame | None, list[dict[str, Any]]]:
        """The experiment's claims tested: their cells' frame and one record each.
        ``per_setting`` and ``rows``: :meth:`compare`'s (what best claims judge by)."""
        exp = self.experiment
        if not exp.claims:
            return None, []
        many = len(exp.variants) > 1
        points = [
            {**({"variant": s.variant} if many else {}), **dict(s.params)} for s in self.settings
        ]
        n_of = {r["setting"]: r["n"] for r in rows}
        labels = [s.label for s in self.settings]
        standing = {i: {**row, "n": n_of.get(labels[i], 0)} for i, row in per_setting.items()}
        results = evaluate_claims(
            exp.claims,
            points,
            lambda i, metric: self.values[i][metric],
            self.hands,
            unit=exp.mode,
            headline=exp.headline,
            where=exp.source,
            groups=self.groups(),
            standing=standing,
            labels=labels,
            alpha=ALPHA,
        )
        record = [
            {"name": c.name, "says": c.says, "source": c.source, "verdict": verdict}
            for c, _, verdict in results
        ]
        return claims_frame(results, exp.headline), record

    def data(self, *, started: float, hands_played: int, reached: bool | None) -> ExperimentData:
        exp = self.experiment
        verdicts, comparisons, per_setting = self.compare()
        claims, claim_record = self.claims(per_setting, comparisons)
        summary_rows, seat_rows, outcome_rows, turn_rows, run_rows = [], [], [], [], []
        for i, setting in enumerate(self.settings):
            params = dict(setting.params)
            p = self.pooled(i)
            iv = self.headline_iv[i]
            row: dict[str, Any] = {
                "setting": setting.label,
                "group": next(g for g, m in self.groups().items() if i in m),
                "variant": setting.variant,
                **params,
                "rules": setting.rules.name,
                "lineup": "/".join(setting.shown),
                "mode": exp.mode,
                "units": self.units[i],
                "hands": p["hands"],
                "rotations": len(setting.configs),
                "headline": exp.headline,
                "estimate": iv.estimate,
                "low": iv.low,
                "high": iv.high,
                "half_width": iv.half_width,
                "method": iv.method,
            }
            row.update(_interval_row("points", mean_ci(p["points"])))
            if self.rows_kept and self.mode == "deals":
                net_iv = mean_ci(Moments.of(self.values[i]["net_points"]))
                net_method = "t" + (" over duplicate deals" if len(setting.configs) > 1 else "")
            else:
                net_iv = mean_ci(p["net"])
                net_method = "t over hands" + (
                    " (seatings pooled)" if len(setting.configs) > 1 else ""
                )
            row.update(_interval_row("net", net_iv))
            row["net_method"] = net_method
            w = wilson(p["wins"], p["hands"])
            row.update(win_rate=w.estimate, win_low=w.low, win_high=w.high, win_method="Wilson")
            h = max(p["hands"], 1)
            row.update(
                knock_rate=p["knocks"] / h,
                gin_rate=p["gins"] / h,
                undercut_rate=p["undercuts"] / h,
            )
            turns: dict[int, int] = {}
            outcomes: dict[int, int] = {}
            for s in self.sums[i]:
                for (stat, _, key), v in s.items():
                    if stat == "turns":
                        turns[key] = turns.get(key, 0) + v
                    elif stat == "outcome":
                        outcomes[key] = outcomes.get(key, 0) + v
            n_turns = sum(turns.values())
            row["mean_turns"] = (
                sum(k * v for k, v in turns.items()) / n_turns if n_turns else math.nan
            )
            if self.mode == "games":
                if self.rows_kept:
                    ns = mean_ci(Moments.of(self.values[i]["net_score"]))
                else:
                    ns = mean_ci(p["net_score"])
                row.update(_interval_row("net_score", ns))
                gw = wilson(p["game_wins"], p["games"])
                row.update(game_win_rate=gw.estimate, game_win_low=gw.low, game_win_high=gw.high)
                row["hands_per_game"] = p["hands"] / max(p["games"], 1)
            row.update(
                per_setting.get(
                    i,
                    {
                        "best": False,
                        "diff_vs_best": math.nan,
                        "diff_low": math.nan,
                        "diff_high": math.nan,
                        "p_value": math.nan,
                        "holm_p": math.nan,
                        "compare_method": "",
                    },
                )
            )
            row["run_ids"] = " ".join(c.run_id for b in self.blocks for c in b[i].configs)
            summary_rows.append(row)
            for seat in range(setting.players):
                q = self.pooled(i, seat)
                pts, net = mean_ci(q["points"]), mean_ci(q["net"])
                sw = wilson(q["wins"], q["hands"])
                seat_row = {
                    "setting": setting.label,
                    "variant": setting.variant,
                    **params,
                    "seat": seat,
                    "strategy": setting.shown[seat],
                    "hands": q["hands"],
                    **_interval_row("points", pts),
                    **_interval_row("net", net),
                    "win_rate": sw.estimate,
                    "win_low": sw.low,
                    "win_high": sw.high,
                    "knock_rate": q["knocks"] / max(q["hands"], 1),
                    "points_method": "t over hands",
                    "rate_method": "Wilson",
                }
                if self.mode == "games":
                    gw = wilson(q["game_wins"], q["games"])
                    seat_row.update(_interval_row("net_score", mean_ci(q["net_score"])))
                    seat_row.update(
                        game_win_rate=gw.estimate, game_win_low=gw.low, game_win_high=gw.high
                    )
                seat_rows.append(seat_row)
            n_hands = sum(outcomes.values())
            for code, label in enumerate(L.OUTCOME_LABELS):
                c = outcomes.get(code, 0)
                ow = wilson(c, n_hands)
                outcome_rows.append(
                    {
                        "setting": setting.label,
                        "outcome": label,
                        "count": c,
                        "hands": n_hands,
                        "share": ow.estimate,
                        "low": ow.low,
                        "high": ow.high,
                        "method": "Wilson",
                    }
                )
            turn_rows += [
                {"setting": setting.label, "turns": k, "count": v} for k, v in sorted(turns.items())
            ]
            for b, block in enumerate(self.blocks):
                for cfg, r, d in zip(
                    block[i].configs, block[i].rotations, block[i].dirs, strict=True
                ):
                    run_rows.append(
                        {
                            "setting": setting.label,
                            "block": b,
                            "rotation": r,
                            "run_id": cfg.run_id,
                            "run_dir": str(d),
                            "seed": cfg.seed,
                            "count": cfg.count,
                            "lineup": cfg.shown_lineup,
                        }
                    )
        keys = exp.grid_keys
        groups = self.groups()
        house = (
            house_rule_table(
                groups,
                self.measures,
                [self.values[i][self.headline] for i in range(len(self.settings))],
                [self.strategy_setting(i) for i in range(len(self.settings))],
                headline_unit(self.headline),
                self.headline in RATE_HEADLINES,
            )
            if self.house
            else None
        )
        record = {
            "name": exp.name,
            "description": exp.description,
            "mode": exp.mode,
            "headline": exp.headline,
            "seed": exp.seed,
            "grid_keys": list(keys),
            "meta": exp.meta(),
            "charts": list(exp.charts) if exp.charts is not None else None,
            "groups": {g: [self.settings[i].label for i in m] for g, m in groups.items()},
            "verdicts": verdicts,
            **({"claims": claim_record} if claims is not None else {}),
            "elapsed": time.perf_counter() - started,
            "hands_played": hands_played,
            "blocks": len(self.blocks),
            "precision": exp.precision,
            "precision_reached": reached,
        }
        first_manifest = rundir.load_manifest(self.settings[0].dirs[0])
        return ExperimentData(
            kind="experiment",
            name=exp.name,
            record=_jsonable(record),
            summary=_frame(summary_rows, keys),
            seats=_frame(seat_rows, keys),
            outcomes=pl.DataFrame(outcome_rows),
            turns=pl.DataFrame(
                turn_rows, schema={"setting": pl.String, "turns": pl.Int64, "count": pl.Int64}
            ),
            comparisons=pl.DataFrame(
                comparisons,
                schema={
                    "group": pl.String,
                    "best": pl.String,
                    "setting": pl.String,
                    "difference": pl.Float64,
                    "low": pl.Float64,
                    "high": pl.Float64,
                    "p_value": pl.Float64,
                    "holm_p": pl.Float64,
                    "significant": pl.Boolean,
                    "n": pl.Int64,
                    "method": pl.String,
                },
            ),
            runs=pl.DataFrame(run_rows),
            config=exp.to_dict(),
            provenance=_provenance_of(first_manifest, exp.seed, record["hands_played"]),
            claims=claims,
            house_rules=house,
        )


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str, allow_nan=True))


def _provenance_of(manifest: Mapping[str, Any], seed: Any, hands: Any) -> dict[str, Any]:
    keep = ("package", "rng", "point_scale", "libraries", "command", "created")
    out = {k: manifest.get(k) for k in keep if k in manifest}
    out["seed"] = seed
    out["hands_played_by_this_call"] = hands
    return out


def _frame(rows: list[dict[str, Any]], grid_keys: Sequence[str]) -> pl.DataFrame:
    """A frame whose grid columns have one type each (text when a list mixes types)."""
    for key in grid_keys:
        values = [r.get(key) for r in rows]
        kinds = {type(v) for v in values}
        if len(kinds) > 1:
            if kinds <= {int, float}:
                for r in rows:
                    r[key] = float(r[key])
            else:
                for r in rows:
                    r[key] = format_value(r[key])
    return pl.DataFrame(rows, infer_schema_length=None)


def data_from_run(run_dir: PathInput) -> ExperimentData:
    """Analyse one run directory (``rummy run`` without an experiment) as a
    one-setting experiment: its seats, outcome mix and hand lengths."""
    run_dir = store.location(run_dir)
    manifest = rundir.load_manifest(run_dir)
    cfg = manifest["config"]
    rules = RuleSet.from_dict(cfg["rules"])
    mode = cfg["mode"]
    if mode == "chart":  # its table is the chart's cells (sim.study.chart), not hands
        raise ExperimentError(
            f"{run_dir} is a strategy chart, not a run of hands: read it again with "
            "`rummy strategy-chart knock` (or `draw`) and the same arguments, "
            "`rummy report` it, or load it with rummy.load"
        )
    try:
        config = RunConfig.from_dict(cfg, out=run_dir.parent.parent)
    except (KeyError, TypeError, ValueError) as error:
        raise ExperimentError(f"{run_dir}: incomplete manifest ({one_line(error)})") from None
    experiment = Experiment(
        name=cfg["experiment"],
        seats=tuple(cfg["lineup"]),
        seed=cfg["seed"],
        mode=mode,
        count=cfg["count"],
        rules=rules.name if rules.name in PRESETS else DEFAULT_PRESET,
        rows=cfg["rows"],
        source=str(run_dir),
    )
    setting = Setting(
        label=cfg.get("variant") or rules.name,
        variant=cfg.get("variant") or rules.name,
        params=(),
        rules=rules,
        lineup=tuple(cfg["lineup"]),
        configs=(config,),
        rotations=(0,),
        run_dirs=(run_dir,),  # read in place, wherever the directory is now
        names=config.seat_names,
    )
    analysis = Analysis(experiment, [[setting]])
    data = analysis.data(started=time.perf_counter(), hands_played=0, reached=None)
    record = dict(data.record)
    record.update(name=f"{cfg['experiment']}/{run_dir.name}", meta=_run_meta(cfg), charts=None)
    return dataclasses.replace(
        data,
        kind="run",
        name=record["name"],
        record=record,
        config=cfg,
        provenance={k: v for k, v in manifest.items() if k != "config"},
    )


def _run_meta(cfg: Mapping[str, Any]) -> dict[str, Any]:
    seats = cfg.get("lineup") or []
    return {
        "grid_keys": [],
        "numeric_keys": [],
        "threshold": None,
        "variants": [],
        "symmetric": len(set(seats)) <= 1,
    }
