"""Claims: strategy advice stated as a hypothesis an experiment tests, with its verdict.

An experiment file may list claims (``[[claims]]``), each a tip in the project's words
with the title of the text it comes from, and what would show it::

    [[claims]]
    name = "meld-only"                            # short id (default: claim N)
    says = "Take the discard only when it completes a meld."
    source = "Knock Rummy: Tips and Strategy"
    treatment = { take_if = 1 }                   # settings, by grid value or variant
    control = { take_if = 0 }
    expect = "higher"                             # the treatment's metric is higher
    metric = "net_points"                         # default: the experiment's headline
    baseline = { variant = "limit-10" }           # optional: difference in differences

    [[claims]]                                    # a rate among hands, against a level
    says = "A knock with 6 to 8 deadwood after four turns usually wins."
    source = "Knock Rummy: Tips and Strategy"
    among = "knocker_deadwood BETWEEN 6 AND 8 AND knocker_turn >= 4"
    event = "knocker_won"
    expect = "above"
    level = 0.5
    settings = { ... }                            # optional: which settings (default all)

    [[claims]]                                    # the best under each rule setting
    says = "Under every scoring, wait for gin."
    source = "..."
    best = { knock_at = 0 }                       # the setting named best, per rule setting
    settings = { ... }                            # optional: which settings (default all)

A **comparison** pairs every treatment setting with the control setting that has the
same values of every other grid key (and variant): one *cell* per such pair. The
effect in a cell is the mean over deals of treatment minus control (per deal, averaged
over the seatings under duplicate: the paired values the experiment's own comparisons
use), with its paired t interval; with ``baseline`` it is that difference minus the
same difference in the baseline's cell, deal by deal (so "gin gains more under a
stricter limit" is one paired interval). A **rate** is the share of hands meeting
``event`` among those meeting ``among`` (SQL conditions over the hands table's columns
and a few derived ones, ``DERIVED``), per selected setting, with its Wilson interval,
against ``level``. A **best** claim names one setting per rule setting (settings
under the same rules: ``Analysis.groups``) and says it is the best there: its cell per
rule setting is the named setting minus the best of the others (the runner-up when it
is the best itself), the paired t interval on common deals, and its verdict follows the
experiment's own Holm-adjusted test within that rule setting: **supported** when the
named setting is the best and beats the runner-up significantly, **refuted** when the
best beats it significantly, **too close to call** otherwise.

The verdict of a cell (95% intervals, ``verdict_of``): **supported** when the interval
lies entirely on the expected side (of 0, or of ``level``), **refuted** when entirely
on the other side, **too close to call** otherwise (the note says how many deals or
hands an effect of that size would need). A claim with one cell takes its verdict;
with several, the same verdict everywhere is the claim's verdict, and different ones
make it **depends on X**, X naming the grid keys whose values tell the cells apart
(``overall_verdict``). Intervals are not adjusted for the number of claims: each claim
is its own question.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from sim.stats import (
    Moments,
    difference_test,
    format_estimate,
    needed_for_half_width,
    normal_quantile,
    p_clause,
    wilson,
)
from sim.study.design import HEADLINES, ExperimentError, fail, headline_unit

__all__ = [
    "CLAIM_KEYS",
    "DERIVED",
    "VERDICTS",
    "Cell",
    "Claim",
    "claims_frame",
    "derive_columns",
    "evaluate_claims",
    "overall_verdict",
    "read_claims",
    "verdict_of",
]

SUPPORTED, REFUTED, TOO_CLOSE = "supported", "refuted", "too close to call"
VERDICTS = (SUPPORTED, REFUTED, TOO_CLOSE, "depends on ...")
CLAIM_KEYS = (
    "name", "says", "source", "expect", "treatment", "control", "metric", "baseline",
    "among", "event", "level", "settings", "best",
)  # fmt: skip
_COMPARE_KEYS = {"treatment", "control", "metric", "baseline"}
_RATE_KEYS = {"among", "event", "level", "settings"}
_BEST_KEYS = {"name", "says", "source", "best", "settings"}
_DIRECTIONS = {"compare": ("higher", "lower"), "rate": ("above", "below")}
MAX_PLAYERS = 6

DERIVED = {
    "players": "seats at the table",
    "knocker_deadwood": "the knocker's deadwood at the showdown (null: no knock)",
    "knocker_turn": "the knocker's own turn number when it knocked (1: its first turn)",
    "knocker_won": "the knocker won the hand",
    "knocker_points": "the knocker's points for the hand",
    "least_other_deadwood": "the least deadwood among the seats that did not knock",
}
"""Columns a rate claim may use besides the hands table's (``sim/study/tables.py``)."""

_HAND_COLUMNS = {
    "game": pl.Int64, "deal": pl.Int32, "dealer": pl.Int8, "upcard": pl.Int8,
    "knocker": pl.Int8, "winner": pl.Int8, "outcome": pl.String, "turns": pl.Int16,
    "stock_left": pl.Int8, "rebuilds": pl.Int8,
}  # fmt: skip


@dataclass(frozen=True)
class Claim:
    """One tip as a testable claim (see the module notes)."""

    name: str
    says: str
    source: str
    expect: str
    treatment: tuple[tuple[str, Any], ...] = ()
    control: tuple[tuple[str, Any], ...] = ()
    metric: str = ""
    baseline: tuple[tuple[str, Any], ...] = ()
    among: str = ""
    event: str = ""
    level: float = 0.5
    settings: tuple[tuple[str, Any], ...] = ()
    best: tuple[tuple[str, Any], ...] = ()

    @property
    def kind(self) -> str:
        return "best" if self.best else "rate" if self.event else "compare"

    def to_dict(self) -> dict[str, Any]:
        """The claim in the file's keys."""
        out: dict[str, Any] = {"name": self.name, "says": self.says, "source": self.source}
        if self.kind == "best":
            out["best"] = dict(self.best)
            if self.settings:
                out["settings"] = dict(self.settings)
            return out
        out["expect"] = self.expect
        if self.kind == "compare":
            out.update(treatment=dict(self.treatment), control=dict(self.control))
            if self.metric:
                out["metric"] = self.metric
            if self.baseline:
                out["baseline"] = dict(self.baseline)
        else:
            out.update(among=self.among, event=self.event, level=self.level)
            if self.settings:
                out["settings"] = dict(self.settings)
        return out


# --- reading ---------------------------------------------------------------------------


def read_claims(where: str, value: Any, mode: str) -> tuple[Claim, ...]:
    """The ``claims`` of an experiment file: a list of tables (``[[claims]]``)."""
    if not isinstance(value, list) or not value or not all(isinstance(c, Mapping) for c in value):
        raise fail(where, "claims must be a list of tables: write each as [[claims]]")
    claims = []
    names: set[str] = set()
    for i, table in enumerate(value, 1):
        claim = _read_claim(where, i, table, mode)
        if claim.name in names:
            raise fail(where, f"claims: the name {claim.name!r} is used twice")
        names.add(claim.name)
        claims.append(claim)
    return tuple(claims)


def _text(where: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise fail(where, f"{key} = {value!r} is not allowed; give a non-empty text in quotes")
    return value.strip()


def _selector(where: str, key: str, value: Any) -> tuple[tuple[str, Any], ...]:
    if not isinstance(value, Mapping) or not value:
        raise fail(
            where,
            f"{key} = {value!r} is not allowed; give a table of grid values, "
            'e.g. { knock_at = 0 } or { variant = "gin" }',
        )
    flat: dict[str, Any] = {}
    for k, v in value.items():
        if k == "rule" and isinstance(v, Mapping):  # rule.x = ... unquoted in TOML
            flat.update({f"rule.{p}": x for p, x in v.items()})
        else:
            flat[k] = v
    return tuple(flat.items())


def _read_claim(where: str, i: int, table: Mapping[str, Any], mode: str) -> Claim:
    at = f"claims[{i}]"
    for key in table:
        if key not in CLAIM_KEYS:
            raise fail(where, f"{at}: unknown key {key!r}; allowed: {', '.join(CLAIM_KEYS)}")
    if "best" in table:
        wrong_keys = sorted(set(table) - _BEST_KEYS)
        if wrong_keys:
            raise fail(
                where,
                f"{at}: {', '.join(wrong_keys)} do not fit a best claim; it has "
                "says, source, best and optionally name and settings",
            )
        best: dict[str, Any] = {"name": f"claim {i}", "expect": "best"}
        if "name" in table:
            best["name"] = _text(where, f"{at}.name", table["name"])
        for key in ("says", "source"):
            if key not in table:
                raise fail(where, f'{at}: {key} is missing; give {key} = "..."')
            best[key] = _text(where, f"{at}.{key}", table[key])
        best["best"] = _selector(where, f"{at}.best", table["best"])
        if "settings" in table:
            best["settings"] = _selector(where, f"{at}.settings", table["settings"])
        return Claim(**best)
    kind = "rate" if "event" in table else "compare"
    wrong = (_RATE_KEYS if kind == "compare" else _COMPARE_KEYS) & set(table)
    if wrong:
        raise fail(
            where,
            f"{at}: {', '.join(sorted(wrong))} do not fit a "
            + ("comparison (treatment vs control)" if kind == "compare" else "rate (event)")
            + "; a rate claim has among, event, level; a comparison treatment, control",
        )
    values: dict[str, Any] = {"name": f"claim {i}"}
    if "name" in table:
        values["name"] = _text(where, f"{at}.name", table["name"])
    for key in ("says", "source"):
        if key not in table:
            raise fail(where, f'{at}: {key} is missing; give {key} = "..."')
        values[key] = _text(where, f"{at}.{key}", table[key])
    allowed = _DIRECTIONS[kind]
    expect = table.get("expect")
    if expect not in allowed:
        raise fail(
            where,
            f"{at}.expect = {expect!r} is not allowed; choose {allowed[0]!r} or {allowed[1]!r}",
        )
    values["expect"] = expect
    if kind == "compare":
        for key in ("treatment", "control"):
            if key not in table:
                raise fail(where, f"{at}: {key} is missing; give {key} = {{ grid key = value }}")
            values[key] = _selector(where, f"{at}.{key}", table[key])
        if "baseline" in table:
            values["baseline"] = _selector(where, f"{at}.baseline", table["baseline"])
        if "metric" in table:
            metric = _text(where, f"{at}.metric", table["metric"])
            fits = [k for k, v in HEADLINES.items() if v[0] == mode]
            if metric not in fits:
                raise fail(
                    where,
                    f"{at}.metric = {metric!r} is not allowed; choose one of: {', '.join(fits)}",
                )
            values["metric"] = metric
    else:
        for key in ("among", "event"):
            text = table.get(key, "true")
            values[key] = _text(where, f"{at}.{key}", text)
            _check_condition(where, f"{at}.{key}", values[key])
        level = table.get("level", 0.5)
        if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
            raise fail(
                where, f"{at}.level = {level!r} is not allowed; give a share between 0 and 1"
            )
        values["level"] = float(level)
        if "settings" in table:
            values["settings"] = _selector(where, f"{at}.settings", table["settings"])
    return Claim(**values)


def _check_condition(where: str, key: str, text: str) -> None:
    """Parse and type-check ``text`` on an empty hands frame of the widest table."""
    try:
        expr = pl.sql_expr(text)
        derive_columns(_empty_hands(), MAX_PLAYERS).filter(expr).collect()
    except Exception as error:  # polars' parse, column and type errors: one line
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        columns = ", ".join([*_HAND_COLUMNS, "deadwood_k", "points_k", *DERIVED])
        raise fail(
            where,
            f"{key} = {text!r} is not a condition on the hands ({reason}); columns: {columns}",
        ) from None


def _empty_hands() -> pl.LazyFrame:
    schema = dict(_HAND_COLUMNS)
    for k in range(MAX_PLAYERS):
        schema.update({f"deadwood_{k}": pl.Int16, f"points_{k}": pl.Float64})
    return pl.LazyFrame(schema=schema)


def check_claims(
    where: str,
    claims: Sequence[Claim],
    grid: Mapping[str, Sequence[Any]],
    variants: Sequence[str],
) -> None:
    """Every selector names a grid key (or ``variant``) and one of its values, and a
    comparison's treatment and control differ."""
    choices: dict[str, Sequence[Any]] = dict(grid)
    if len(variants) > 1:
        choices["variant"] = list(variants)
    for i, claim in enumerate(claims, 1):
        for key in ("treatment", "control", "baseline", "settings", "best"):
            for k, v in getattr(claim, key):
                if k not in choices:
                    raise fail(
                        where,
                        f"claims[{i}].{key}: {k!r} is not a grid key"
                        + (" nor variant" if len(variants) > 1 else "")
                        + f"; choose from: {', '.join(choices) or '(no grid)'}",
                    )
                if not any(_same(v, x) for x in choices[k]):
                    shown = ", ".join(repr(x) for x in choices[k])
                    raise fail(
                        where,
                        f"claims[{i}].{key}: {k} = {v!r} is not in the grid; choose from: {shown}",
                    )
        if claim.kind == "compare":
            if dict(claim.treatment).keys() != dict(claim.control).keys():
                raise fail(where, f"claims[{i}]: treatment and control must name the same keys")
            if claim.treatment == claim.control:
                raise fail(where, f"claims[{i}]: treatment and control are the same settings")
            if set(dict(claim.baseline)) & set(dict(claim.treatment)):
                raise fail(where, f"claims[{i}].baseline must name keys other than treatment's")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


# --- verdicts ----------------------------------------------------------------------------


def verdict_of(low: float, high: float, expect: str, reference: float = 0.0) -> str:
    """Supported, refuted or too close to call: where the interval lies against
    ``reference`` (0 for a difference, the level for a rate), for the expected side
    (``higher``/``above`` or ``lower``/``below``)."""
    up = expect in ("higher", "above")
    if math.isnan(low) or math.isnan(high):
        return TOO_CLOSE
    if low > reference:
        return SUPPORTED if up else REFUTED
    if high < reference:
        return REFUTED if up else SUPPORTED
    return TOO_CLOSE


def overall_verdict(cells: Sequence[Cell]) -> str:
    """The claim's verdict from its cells' (see the module notes).

    "depends on X" names the keys X such that two cells differing in X alone have
    different verdicts (where no such pair exists, every key whose value varies)."""
    verdicts = {c.verdict for c in cells}
    if len(verdicts) == 1:
        return verdicts.pop()
    varying = [k for k, _ in cells[0].at if len({repr(dict(c.at)[k]) for c in cells}) > 1]
    keys = [
        k
        for k in varying
        if any(
            a.verdict != b.verdict and all(_same(v, dict(b.at)[j]) for j, v in a.at if j != k)
            for a in cells
            for b in cells
        )
    ]
    return "depends on " + (", ".join(_short(k) for k in keys or varying) or "the setting")


@dataclass(frozen=True)
class Cell:
    """One cell's estimate: ``at`` the grid values that tell it apart."""

    at: tuple[tuple[str, Any], ...]
    estimate: float
    low: float
    high: float
    n: int
    verdict: str
    note: str = ""
    successes: int | None = None  # a rate's events

    @property
    def label(self) -> str:
        return ", ".join(f"{_short(k)}={v}" for k, v in self.at)


def _short(key: str) -> str:
    """``rule.players`` reads as ``players`` (as in the settings' labels)."""
    return key[5:] if key.startswith("rule.") else key


def compare_cell(at: Any, diffs: np.ndarray, expect: str, unit: str) -> Cell:
    """A comparison's cell from its per-deal differences."""
    comp = difference_test(diffs)
    verdict = verdict_of(comp.ci.low, comp.ci.high, expect)
    note = ""
    if verdict == TOO_CLOSE and comp.mean_diff != 0 and comp.n > 1:
        need = needed_for_half_width(Moments.of(diffs), abs(comp.mean_diff))
        note = f"an effect this size needs about {need:,} {unit} to resolve"
    return Cell(at, comp.mean_diff, comp.ci.low, comp.ci.high, comp.n, verdict, note)


def rate_cell(at: Any, successes: int, n: int, expect: str, level: float) -> Cell:
    """A rate's cell: the Wilson interval of ``successes`` in ``n`` against ``level``."""
    iv = wilson(successes, n)
    verdict = verdict_of(iv.low, iv.high, expect, level) if n else TOO_CLOSE
    note = ""
    if n == 0:
        note = "no hand meets the condition"
    elif verdict == TOO_CLOSE and iv.estimate != level:
        z = normal_quantile(0.975)
        p = iv.estimate
        need = math.ceil(z * z * max(p * (1 - p), 1e-9) / (p - level) ** 2)
        note = f"a rate this far from {level:g} needs about {need:,} such hands to resolve"
    return Cell(at, iv.estimate, iv.low, iv.high, n, verdict, note, successes)


# --- evaluation ------------------------------------------------------------------------------


def derive_columns(hands: pl.LazyFrame, players: int) -> pl.LazyFrame:
    """The hands with ``DERIVED``'s columns (a seat's turns count from the dealer's left)."""
    knocker = pl.col("knocker").cast(pl.Int64)
    first = (pl.col("dealer").cast(pl.Int64) + 1) % players
    offset = (knocker - first) % players
    pick_dead = pl.lit(None, pl.Int64)
    pick_points = pl.lit(None, pl.Float64)
    least = pl.lit(None, pl.Int64)
    for k in range(players):
        dead = pl.col(f"deadwood_{k}").cast(pl.Int64)
        pick_dead = pl.when(knocker == k).then(dead).otherwise(pick_dead)
        pick_points = pl.when(knocker == k).then(pl.col(f"points_{k}")).otherwise(pick_points)
        other = pl.when(knocker != k).then(dead)
        least = pl.min_horizontal(least, other)
    knocked = knocker >= 0
    return hands.with_columns(
        pl.lit(players).alias("players"),
        pl.when(knocked).then(pick_dead).alias("knocker_deadwood"),
        pl.when(knocked)
        .then((pl.col("turns").cast(pl.Int64) - 1 - offset) // players + 1)
        .alias("knocker_turn"),
        (knocked & (pl.col("winner").cast(pl.Int64) == knocker)).alias("knocker_won"),
        pl.when(knocked).then(pick_points).alias("knocker_points"),
        pl.when(knocked).then(least).alias("least_other_deadwood"),
    )


def _matches(selector: Sequence[tuple[str, Any]], at: Mapping[str, Any]) -> bool:
    return all(_same(at.get(k), v) for k, v in selector)


def evaluate_claims(
    claims: Sequence[Claim],
    points: Sequence[Mapping[str, Any]],
    values: Any,
    hands: Any,
    *,
    unit: str,
    headline: str,
    where: str,
    groups: Mapping[str, Sequence[int]] | None = None,
    standing: Mapping[int, Mapping[str, Any]] | None = None,
    labels: Sequence[str] = (),
    alpha: float = 0.05,
) -> list[tuple[Claim, list[Cell], str]]:
    """Every claim's cells and verdict.

    ``points[i]``: setting i's grid values (with ``variant`` when the experiment has
    several); ``values(i, metric)``: its per-deal values of a metric (common deals, in
    deal order); ``hands(i)``: its hands as one LazyFrame (every seating and block).
    Best claims need ``groups`` (the settings compared with each other, by rule
    setting), ``standing[i]`` (setting i against its group's best: ``best``,
    ``diff_vs_best``, ``diff_low``, ``diff_high``, ``holm_p``, ``n``) and ``labels``.
    """
    out = []
    for claim in claims:
        if claim.kind == "best":
            if groups is None or standing is None:
                raise ExperimentError(f"{where}: claim {claim.name!r}: no comparisons to judge")
            cells = _best(claim, points, groups, standing, labels, alpha, where)
        elif claim.kind == "compare":
            cells = _compare(claim, points, values, unit, headline, where)
        else:
            cells = _rate(claim, points, hands)
        out.append((claim, cells, overall_verdict(cells)))
    return out


def _compare(
    claim: Claim,
    points: Sequence[Mapping[str, Any]],
    values: Any,
    unit: str,
    headline: str,
    where: str,
) -> list[Cell]:
    metric = claim.metric or headline
    chosen = {k for k, _ in claim.treatment}
    rest = [k for k in points[0] if k not in chosen]

    def cell_of(i: int) -> tuple[tuple[str, Any], ...]:
        return tuple((k, points[i][k]) for k in rest)

    treated = {cell_of(i): i for i, p in enumerate(points) if _matches(claim.treatment, p)}
    controls = {cell_of(i): i for i, p in enumerate(points) if _matches(claim.control, p)}
    pairs = {at: (t, controls[at]) for at, t in treated.items() if at in controls}
    if not pairs:
        raise ExperimentError(
            f"{where}: claim {claim.name!r}: no control setting matches a treatment"
        )

    def diff(at: tuple[tuple[str, Any], ...]) -> np.ndarray:
        t, c = pairs[at]
        a, b = values(t, metric), values(c, metric)
        if a.shape != b.shape:
            raise ExperimentError(
                f"{where}: claim {claim.name!r}: settings {t} and {c} hold different numbers of "
                f"{unit} ({a.size} and {b.size}); they cannot be paired"
            )
        return np.asarray(a, np.float64) - np.asarray(b, np.float64)

    cells = []
    base_keys = [k for k, _ in claim.baseline]
    for at, _ in pairs.items():
        here = dict(at)
        if claim.baseline and _matches(claim.baseline, here):
            continue
        d = diff(at)
        if claim.baseline:
            base_at = tuple((k, dict(claim.baseline)[k] if k in base_keys else v) for k, v in at)
            if base_at not in pairs:
                continue
            d = d - diff(base_at)
        shown = tuple((k, v) for k, v in at if len(set(_column(pairs, k))) > 1)
        cells.append(compare_cell(shown, d, claim.expect, unit))
    if not cells:
        raise ExperimentError(f"{where}: claim {claim.name!r}: no cell besides the baseline")
    return cells


def _best(
    claim: Claim,
    points: Sequence[Mapping[str, Any]],
    groups: Mapping[str, Sequence[int]],
    standing: Mapping[int, Mapping[str, Any]],
    labels: Sequence[str],
    alpha: float,
    where: str,
) -> list[Cell]:
    """One cell per rule setting: the named setting against the best of the others."""
    cells = []
    for members in groups.values():
        members = [i for i in members if _matches(claim.settings, points[i]) and i in standing]
        named = [i for i in members if _matches(claim.best, points[i])]
        if not named or len(members) < 2:
            continue
        if len(named) > 1:
            shown = ", ".join(labels[i] for i in named)
            raise ExperimentError(
                f"{where}: claim {claim.name!r}: best = {dict(claim.best)} matches "
                f"{len(named)} settings under the same rules ({shown}); "
                "name one setting per rule setting"
            )
        i = named[0]
        at = tuple((k, v) for k, v in points[i].items() if k == "variant" or k.startswith("rule."))
        row = standing[i]
        if row["best"]:
            others = [j for j in members if j != i]
            runner = max(others, key=lambda j: standing[j]["diff_vs_best"])
            r = standing[runner]
            estimate, low, high = -r["diff_vs_best"], -r["diff_high"], -r["diff_low"]
            p, n = r["holm_p"], r["n"]
            verdict = SUPPORTED if p < alpha and estimate > 0 else TOO_CLOSE
            note = f"runner-up: {labels[runner]}"
        else:
            estimate, low, high = row["diff_vs_best"], row["diff_low"], row["diff_high"]
            p, n = row["holm_p"], row["n"]
            verdict = REFUTED if p < alpha and estimate < 0 else TOO_CLOSE
            best = next(j for j in members if standing[j]["best"])
            note = f"best here: {labels[best]}"
        cells.append(
            Cell(at, estimate, low, high, int(n), verdict, f"{note}; Holm-adjusted {p_clause(p)}")
        )
    if not cells:
        raise ExperimentError(
            f"{where}: claim {claim.name!r}: best = {dict(claim.best)} matches no setting "
            "compared with others"
        )
    return cells


def _column(pairs: Mapping[tuple[tuple[str, Any], ...], Any], key: str) -> list[Any]:
    return [dict(at)[key] for at in pairs]


def _rate(claim: Claim, points: Sequence[Mapping[str, Any]], hands: Any) -> list[Cell]:
    chosen = [i for i, p in enumerate(points) if _matches(claim.settings, p)]
    varying = [k for k in points[0] if len({repr(points[i][k]) for i in chosen}) > 1]
    cells = []
    among, event = pl.sql_expr(claim.among), pl.sql_expr(claim.event)
    for i in chosen:
        counts = (
            hands(i)
            .filter(among)
            .select(pl.len().alias("n"), event.fill_null(False).cast(pl.Int64).sum().alias("k"))
            .collect()
        )
        n, k = int(counts["n"][0]), int(counts["k"][0])
        at = tuple((key, points[i][key]) for key in varying)
        cells.append(rate_cell(at, k, n, claim.expect, claim.level))
    return cells


def claims_frame(
    results: Sequence[tuple[Claim, Sequence[Cell], str]], headline: str
) -> pl.DataFrame:
    """One row per claim and cell: the table ``claims.parquet`` holds."""
    rows = []
    for claim, cells, overall in results:
        for cell in cells:
            rows.append(
                {
                    "claim": claim.name,
                    "says": claim.says,
                    "source": claim.source,
                    "kind": claim.kind,
                    "expect": claim.expect,
                    "reference": claim.level if claim.kind == "rate" else 0.0,
                    "metric": "rate" if claim.kind == "rate" else (claim.metric or headline),
                    "cell": cell.label,
                    "estimate": cell.estimate,
                    "low": cell.low,
                    "high": cell.high,
                    "n": cell.n,
                    "successes": cell.successes,
                    "verdict": cell.verdict,
                    "claim_verdict": overall,
                    "note": cell.note,
                    "method": {
                        "rate": "Wilson",
                        "best": "paired t over deals, verdict Holm-adjusted within the rules",
                    }.get(claim.kind, "paired t over deals"),
                }
            )
    return pl.DataFrame(
        rows,
        schema={
            "claim": pl.String, "says": pl.String, "source": pl.String, "kind": pl.String,
            "expect": pl.String, "reference": pl.Float64, "metric": pl.String,
            "cell": pl.String, "estimate": pl.Float64, "low": pl.Float64, "high": pl.Float64,
            "n": pl.Int64, "successes": pl.Int64, "verdict": pl.String,
            "claim_verdict": pl.String, "note": pl.String, "method": pl.String,
        },
    )  # fmt: skip


def display_rows(frame: pl.DataFrame) -> list[dict[str, str]]:
    """The claims for people (terminal and report): per claim a row with its verdict,
    then, when it has several cells, one row per cell; a single cell shares the
    claim's row. Differences are signed (treatment minus control), rates in %."""
    rows: list[dict[str, str]] = []
    for (name,), cells in frame.group_by("claim", maintain_order=True):
        first = cells.row(0, named=True)
        head = {
            "name": str(name),
            "claim": f"{name}: {first['says']} ({first['source']})",
            "verdict": first["claim_verdict"],
            "effect": "",
            "ci": "",
            "n": "",
            "note": "",
        }
        shown = [_cell_text(c) for c in cells.iter_rows(named=True)]
        if len(shown) == 1 and not shown[0]["claim"]:
            head.update({k: v for k, v in shown[0].items() if k not in ("claim", "verdict")})
            rows.append(head)
            continue
        rows.append(head)
        rows += [{**c, "name": f"{name}, {c['claim']}", "claim": "  " + c["claim"]} for c in shown]
    return rows


def _cell_text(cell: Mapping[str, Any]) -> dict[str, str]:
    rate = cell["kind"] == "rate"
    if math.isnan(cell["estimate"]):
        effect, interval = "-", "-"
    else:
        # one rule for every number (sim.stats.format_estimate): split into the estimate
        # and its interval, the two columns of the claims' table
        text = format_estimate(
            cell["estimate"], cell["low"], cell["high"], percent=rate, sign=not rate
        )
        effect, _, rest = text.partition(" [")
        interval = f"[{rest}" if rest else ""
    if rate:
        effect += f" vs {cell['reference'] * 100:g}%"
        n = f"{cell['successes'] or 0:,} of {cell['n']:,} hands"
    else:
        n = f"{cell['n']:,} deals"
        effect += f" {headline_unit(cell['metric'])} ({cell['metric']})"
    return {
        "claim": cell["cell"],
        "verdict": cell["verdict"],
        "effect": effect,
        "ci": interval,
        "n": n,
        "note": cell["note"] or "",
    }
