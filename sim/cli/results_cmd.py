"""``rummy chart`` and ``rummy report``: draw and write up finished results.

Examples::

    rummy chart results/gin_knock_threshold --kind knock-curve
    rummy report results/gin_knock_threshold
    rummy report results/compare/COMPARE_ID
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from sim import store
from sim.cli.options import file_text, out_check, path_text
from sim.cli.output import console, fail
from sim.present.experiment import save_charts, write_experiment_report
from sim.study.design import EXPERIMENT_JSON
from sim.study.experiment_store import load_results
from sim.study.folders import open_study

app = typer.Typer()


class ChartKind(StrEnum):
    knock_curve = "knock-curve"
    curve = "curve"
    heatmap = "heatmap"
    outcome_mix = "outcome-mix"
    hand_length = "hand-length"


ResultsArgument = Annotated[
    Path,
    typer.Argument(
        parser=path_text,
        help="A study's folder: an experiment's (results/NAME), a run's "
        "(results/NAME/RUN_ID) or one of their Parquet files, a comparison's, a round "
        "robin's or a tune's (results/compare/ID, ...); a folder, or an object store's URI.",
        show_default=False,
    ),
]


@contextmanager
def _store_errors(path: Path) -> Iterator[None]:
    """A failure that names no file (an object store that is unreachable or does not
    answer) as one line naming the results and why (a store by its endpoint), not
    pyarrow's own message; one that names its file is left to ``sim.cli``'s line."""
    try:
        yield
    except OSError as error:
        if error.filename:
            raise
        raise store.failure(path, error) from None


def _results_dir(path: Path) -> Path:
    if path.is_file():
        return path.parent if (path.parent / EXPERIMENT_JSON).exists() else path.parent.parent
    return path


@app.command("chart")
def chart(
    path: ResultsArgument,
    kind: Annotated[
        list[ChartKind] | None,
        typer.Option(
            "--kind",
            "-k",
            help="Chart to draw (repeatable) (default: every chart that fits the results).",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            parser=path_text,
            callback=out_check,
            help="Folder for the files (default: PATH/charts; a strategy chart's run, a "
            "comparison and a round robin: PATH).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Draw charts (PNG and SVG) of an experiment or a run: the knock-threshold curve,
    threshold x variant heatmap, outcome mix per setting, distribution of hand length;
    of a strategy chart's run (`rummy strategy-chart`, a solve's rounds), the chart; of
    a comparison, each side and the difference A - B; of a round robin, its matrix; of a
    tune, every setting played."""
    from sim.study.chart import is_chart_run

    with _store_errors(path):
        if out is not None:  # never into another study's folder
            store.refuse_record_path(out, owner=path)
        if is_chart_run(path):
            from sim.present.chart_figure import save_chart_figures
            from sim.study.chart import load_chart

            for file in save_chart_figures(load_chart(path), out if out is not None else path):
                console().print(str(file), markup=False)
            return
        study = open_study(path)
        if study is not None:  # a comparison's, a round robin's or a tune's folder
            from sim.present.study_report import save_study_charts

            if kind:
                fail("--kind chooses among an experiment's or a run's charts; drop it")
            for file in save_study_charts(study, out):
                console().print(str(file), markup=False)
            return
        data = load_results(path)
        charts = out if out is not None else _results_dir(path) / "charts"
        for file in save_charts(data, charts, [k.value for k in kind] if kind else None):
            console().print(str(file), markup=False)


@app.command("report")
def report(
    path: ResultsArgument,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            parser=file_text,
            callback=out_check,
            help="The HTML file (default: PATH/report.html).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write a self-contained HTML report (charts embedded, tables, config, provenance)
    of any study's folder: an experiment, a run, a strategy chart, a comparison, a round
    robin or a tune."""
    from sim.study.chart import is_chart_run

    with _store_errors(path):
        if out is not None:  # never into another study's folder
            store.refuse_record_path(out, owner=path)
        if is_chart_run(path):  # a strategy chart (rummy strategy-chart): its own report
            from sim.present.chart_figure import write_chart_report
            from sim.study.chart import load_chart

            target = out if out is not None else path / "report.html"
            console().print(str(write_chart_report(load_chart(path), target)), markup=False)
            return
        study = open_study(path)
        if study is not None:  # a comparison's, a round robin's or a tune's folder
            from sim.present.study_report import write_study_report

            target = out if out is not None else path / "report.html"
            console().print(str(write_study_report(study, target)), markup=False)
            return
        data = load_results(path)
        target = out if out is not None else _results_dir(path) / "report.html"
        console().print(str(write_experiment_report(data, target)), markup=False)
