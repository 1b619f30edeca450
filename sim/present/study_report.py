"""A comparison's, a round robin's or a tune's report and charts, from its folder.

``rummy report`` and ``rummy chart`` of such a folder (``sim.study.folders``) draw from
what the study wrote, its record and its table, nothing played: the report states
the answer first (the difference A - B, every pairing, the best setting), each figure
as ``estimate [low, high]`` in the unit the notebook and ``--json`` name it
(``sim.study.quantities``), then the table, the chart, and the record's configuration
and provenance at the end.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from sim.present import charts
from sim.present.report import Section, write_report
from sim.present.tournament import CHART_STEM as MATRIX_STEM
from sim.present.tournament import matrix_chart
from sim.present.tune import CHART_STEM as TUNE_STEM
from sim.present.tune import tune_chart
from sim.rules import RuleSet
from sim.stats import format_estimate, p_clause
from sim.store import PathInput, StorePath, location
from sim.study import kinds
from sim.study.folders import StudyFolder
from sim.study.quantities import points_unit, share_unit
from sim.study.tune_request import TuneRequest
from sim.study.units import metric_name

__all__ = ["save_study_charts", "study_figures", "write_study_report"]

_PROVENANCE = ("command", "created", "finished", "format_version", "elapsed", "hands_played")


def _estimate(interval: Mapping[str, Any], unit: str = "", sign: bool = False) -> str:
    """An interval of the record in a sentence, as every output writes it: a share in %,
    a difference of shares in percentage points, other figures in ``unit`` (if any)."""
    share = unit.startswith("share of")
    return format_estimate(
        interval["estimate"], interval["low"], interval["high"],
        unit=("percentage points" if sign else "%") if share else unit, percent=share,
        sign=sign,
    )  # fmt: skip


def _cell(value: float, low: float, high: float, share: bool = False, sign: bool = False) -> str:
    """An interval in a table's cell: its unit (and a share's %) in the column's name, as
    the notebook's tables write it."""
    text = format_estimate(value, low, high, percent=share, sign=sign)
    return text.replace("%", "", 1) if share else text


def _signed(value: float | None) -> str:
    """A difference in a table's cell; a dash where there is none (NaN)."""
    return f"{value:+.3f}" if _finite(value) else "-"


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


# --- charts ------------------------------------------------------------------------------


def _compare_figures(study: StudyFolder) -> list[tuple[str, Any]]:
    r = study.record
    sides = [(s["label"], s["net"]["estimate"], s["net"]["low"], s["net"]["high"])
             for s in (r["a"], r["b"])]  # fmt: skip
    d = r["difference"]
    fig = charts.comparison(
        sides, (d["estimate"], d["low"], d["high"]), unit=points_unit(r["mode"]),
        title=f"Side A against side B on the same {r['count']:,} {r['mode']}",
        confidence=d["confidence"],
    )  # fmt: skip
    return [("Seat 0 on each side, and the paired difference A - B", fig)]


def _tournament_figures(study: StudyFolder) -> list[tuple[str, Any]]:
    record, matrix = study.record, study.table
    assert matrix is not None  # a round robin's folder holds its matrix
    fig = matrix_chart(matrix, RuleSet.from_dict(record["rules"]), record["mode"],
                       record["confidence"])  # fmt: skip
    return [("Row against column: win rate and net result", fig)]


def _tune_figures(study: StudyFolder) -> list[tuple[str, Any]]:
    record, settings = study.record, study.table
    assert settings is not None  # a tune's folder holds its settings
    request = TuneRequest.from_dict(record["request"])
    best = tuple(record["best"]["params"][r.name] for r in request.space)
    fig = tune_chart(
        settings, request, best=best, default=request.default_point(),
        confidence=record["best"]["confidence"],
    )  # fmt: skip
    return [("Every setting played, the best marked", fig)]


_FIGURES: dict[kinds.StudyKind, Callable[[StudyFolder], list[tuple[str, Any]]]] = {
    kinds.COMPARE: _compare_figures,
    kinds.TOURNAMENT: _tournament_figures,
    kinds.TUNE: _tune_figures,
}


def study_figures(study: StudyFolder) -> list[tuple[str, Any]]:
    """The study's charts as (caption, figure)."""
    return _FIGURES[study.kind](study)


def save_study_charts(study: StudyFolder, out: PathInput | None = None) -> list[StorePath]:
    """Draw the study's charts (PNG and SVG) where its command draws them (a round
    robin's ``matrix.png`` beside its matrix, a tune's ``charts/tune.png``; a
    comparison's ``comparison.png`` beside its record), or into the folder ``out``; the
    paths written."""
    stem = {kinds.COMPARE: "comparison", kinds.TOURNAMENT: MATRIX_STEM, kinds.TUNE: TUNE_STEM}[
        study.kind
    ]
    where = study.directory / stem if out is None else location(out) / stem.split("/")[-1]
    written: list[StorePath] = []
    for _, fig in study_figures(study):
        written += charts.save(fig, where)
    return written


# --- the report ---------------------------------------------------------------------------


def _compare_sections(study: StudyFolder) -> list[Section]:
    r = study.record
    points, share = points_unit(r["mode"]), share_unit(r["mode"])
    won = "hands won" if r["mode"] == "deals" else "games won"
    d, w = r["difference"], r["win_difference"]
    how = f"every seating ({r['rotations']})" if r["duplicate"] else "one seating"
    sides = [
        {
            "side": name,
            "label": side["label"],
            "rules": side["rules"]["name"],
            "seats": "/".join(side.get("names", side["lineup"])),
            f"net {points}": _cell(
                side["net"]["estimate"], side["net"]["low"], side["net"]["high"], sign=True
            ),
            f"{won} %": _cell(
                side["win_rate"]["estimate"],
                side["win_rate"]["low"],
                side["win_rate"]["high"],
                share=True,
            ),
        }
        for name, side in (("A", r["a"]), ("B", r["b"]))
    ]
    notes = [
        f"A - B, {metric_name(r['mode'])}: {_estimate(d, sign=True)} "
        f"({d['method']}, {p_clause(d['p_value'])}, n = {d['n']:,} {r['mode']})",
        f"A - B, {won}: {_estimate(w, share, sign=True)} ({w['method']}; "
        f"{p_clause(w['p_value'])}, {w['p_method']})",
    ]
    vr = r.get("variance_reduction")
    if vr:
        notes.append(
            f"duplicate play: the variance of A - B is x{vr['ratio']:.3f} that of one seating; "
            f"each duplicate {r['mode'][:-1]} is worth {vr['factor']:.2f} plain ones"
        )
    return [
        Section(
            "Answer",
            text=f"Seat 0 on side A against seat 0 on side B, on the same {r['count']:,} "
            f"{r['mode']} ({how}), seed {r['seed']}.",
            notes=notes,
            figures=study_figures(study),
            tables=[("The two sides", sides)],
        )
    ]


def _tournament_sections(study: StudyFolder) -> list[Section]:
    r = study.record
    points = points_unit(r["mode"])
    won = "hands won" if r["mode"] == "deals" else "games won"
    rows = [
        {
            "player": c["player"],
            "opponent": c["opponent"],
            f"net {points}": _cell(c["net"], c["net_low"], c["net_high"], sign=True),
            "p": f"{c['p_value']:.2g}",
            f"{won} %": _cell(c["win_rate"], c["win_low"], c["win_high"], share=True),
        }
        for c in study.table.iter_rows(named=True)  # type: ignore[union-attr]
    ]
    return [
        Section(
            "Answer",
            text=f"{', '.join(r.get('names', r['strategies']))} under {r['rules']['name']}: "
            f"{r['scheme']}; {r['count']:,} {r['mode']} per seating, seed {r['seed']}.",
            notes=[f"{key}: {method}" for key, method in r["methods"].items()],
            tables=[("Every pairing, row against column", rows)],
            figures=study_figures(study),
        )
    ]


def _tune_sections(study: StudyFolder) -> list[Section]:
    r = study.record
    points = points_unit(r["mode"])
    best, default = r["best"], r["default"]
    notes = [
        f"best: {best['setting']} ({best['seat']}): {_estimate(best, points)}",
        f"best - default ({default['setting']}): {_estimate(r['vs_default'], points, True)} "
        f"({p_clause(r['vs_default']['p_value'])}; optimistic: the best was picked on these "
        "deals)",
    ]
    confirmed = r.get("confirmation")
    if confirmed:
        notes.append(
            f"on {confirmed['count']:,} fresh {r['mode']} (seed {confirmed['seed']}): best - "
            f"default {_estimate(confirmed, points, True)} ({p_clause(confirmed['p_value'])})"
        )
    notes.append(r["verdict"])
    rows = [
        {
            "setting": s["setting"]
            + (" (default)" if s["default"] else "")
            + ("" if s["candidate"] else ", not in the space"),
            f"net {points}": _cell(s["mean"], s["low"], s["high"]),
            "vs best": "" if s["best"] else _signed(s["diff_vs_best"]),
            "Holm p": "" if s["best"] or not _finite(s["holm_p"]) else f"{s['holm_p']:.2g}",
            "vs default": _signed(s["diff_vs_default"]),
        }
        for s in study.table.sort("mean", descending=True).iter_rows(named=True)  # type: ignore[union-attr]
    ]
    against = "/".join(r["against"])
    return [
        Section(
            "Answer",
            text=f"The best setting of {r['strategy']} (seat 0) against {against} under "
            f"{r['rules']}: "
            f"{r['metric']}, {r['count']:,} {r['mode']} per setting on the same deals, "
            f"seed {r['seed']}.",
            notes=notes,
            figures=study_figures(study),
            tables=[("Every setting played, best first", rows)],
        )
    ]


def _compare_config(r: dict[str, Any]) -> dict[str, Any]:
    keep = ("label", "rules", "lineup", "names")
    sides = {s: {k: r[s][k] for k in keep if k in r[s]} for s in ("a", "b")}
    return {k: r[k] for k in ("seed", "mode", "count", "duplicate", "rotations")} | sides


def _tournament_config(r: dict[str, Any]) -> dict[str, Any]:
    keep = ("seed", "mode", "count", "strategies", "names", "rules", "scheme", "confidence")
    return {k: r[k] for k in keep if k in r}


_CONFIG: dict[kinds.StudyKind, Callable[[dict[str, Any]], Any]] = {
    kinds.COMPARE: _compare_config,
    kinds.TOURNAMENT: _tournament_config,
    kinds.TUNE: lambda r: r["request"],  # what was asked; the answer is above
}
_SECTIONS: dict[kinds.StudyKind, Callable[[StudyFolder], list[Section]]] = {
    kinds.COMPARE: _compare_sections,
    kinds.TOURNAMENT: _tournament_sections,
    kinds.TUNE: _tune_sections,
}


def write_study_report(study: StudyFolder, path: PathInput) -> StorePath:
    """Write the study's self-contained HTML report to ``path``; the path written."""
    record = study.record
    config = _CONFIG[study.kind](record)
    provenance = {k: record[k] for k in _PROVENANCE if k in record}
    title = f"rummy-sim: {study.kind.noun} {study.directory.name}"
    subtitle = f"{study.kind.noun}; seed {record['seed']}"
    return write_report(
        title, _SECTIONS[study.kind](study), config, provenance, path, subtitle=subtitle
    )
