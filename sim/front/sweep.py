"""The sweep's front: ``rummy sweep`` and ``rummy.sweep``, declared once.

A grid from arguments, played as an experiment on common deals: ``seats`` is a line-up
template whose ``{placeholders}`` take the grid's values (a strategy parameter, or a rule
parameter as ``rule.NAME``); several presets in ``rules`` become variants. It marks the
best setting and says whether it beats the runner-up (Holm-adjusted paired t tests), and
draws its charts and report. Example::

    rummy sweep --rules gin --seats 'greedy:knock_at={k}/simple' --grid k=0..10 --duplicate
    rummy.sweep("greedy:knock_at={k}/simple", {"k": "0..10"}, rules="gin", duplicate=True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from sim.front import params
from sim.front.declare import Front, Param, ParamsError, flag_of, literal, spelled
from sim.present.experiment import Drawn, play_drawn
from sim.rules import DEFAULT_PRESET
from sim.sizes import DEFAULT_DEALS
from sim.study.design import MAX_SETTINGS, Experiment
from sim.study.experiment_file import sweep_experiment
from sim.study.grid import GridError, parse_values
from sim.study.kinds import SWEEP
from sim.study.session import Session

__all__ = ["FRONT"]

EXAMPLES = """Example:

rummy sweep --rules gin --seats 'greedy:knock_at={k}/simple' --grid k=0..10 --duplicate"""


def _grid() -> Param:
    """The grid: ``--grid k=0..10`` (repeatable: every combination is a setting) at the
    command line, ``{"k": "0..10"}`` (values as text or a list) in the notebook."""
    help = (
        "A grid key and its values: k=0..10, k=0..10:2 (step), k=0..1:0.1, k=1,3,7, or a "
        "rule parameter rule.undercut_bonus=10,25"
    )

    def parse(items: list[str] | None) -> dict[str, Any]:
        grid: dict[str, Any] = {}
        for item in items or []:
            key, eq, text = (part.strip() for part in item.partition("="))
            bad = "bad {grid} " + literal(repr(item))
            if not eq or not key or not text:
                raise ParamsError(f"{bad}: write key=values, e.g. k=0..10 or rule.gin_bonus=20,25")
            if key in grid:
                raise ParamsError(f"{bad}: {literal(key)} is given more than once")
            try:
                grid[key] = parse_values(text, limit=MAX_SETTINGS)
            except GridError as error:
                raise ParamsError(f"{bad}: {literal(str(error))}") from None
        return grid

    def read(value: Any) -> dict[str, Any]:
        if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
            raise ValueError('give a dict of placeholder -> values, e.g. {"k": "0..10"}')
        return dict(value)

    cli = spelled(help + " (repeatable: every combination is a setting).", flag_of)
    option = typer.Option("--grid", "-g", help=cli, show_default=False)
    notebook = help + '; a dict, e.g. {{"k": "0..10"}}.'
    return Param("grid", notebook, Annotated[list[str] | None, option],
                 lambda v: {} if v is None else read(v), "Mapping[str, Any] | None",
                 parse=parse)  # fmt: skip


def _presets() -> Param:
    """Rule presets: one, or several to compare (each becomes a variant)."""
    help = (
        f"Rule preset (default: {DEFAULT_PRESET}); give several to compare presets (each "
        "becomes a variant)."
    )

    def read(value: Any) -> list[str]:
        presets = params.texts(value, "gin")
        return [presets] if isinstance(presets, str) else list(dict.fromkeys(presets))

    option = typer.Option("--rules", help=spelled(help, flag_of), show_default=False)
    return Param("rules", help, Annotated[list[str] | None, option],
                 lambda v: [DEFAULT_PRESET] if v is None else read(v), "str | Sequence[str] | None",
                 parse=lambda v: list(dict.fromkeys(v or [DEFAULT_PRESET])))  # fmt: skip


PARAMS = (
    params.lineup_template(
        "seats", "The line-up template: seat specs separated by '/' or ',' whose "
        "{{placeholders}} take the grid's values (greedy:knock_at={{k}}/simple).",
        "greedy:knock_at={k}/simple", short="-s",
    ),
    _grid(),
    _presets(),
    params.overrides("rule", short="-r"),
    params.count("deals", 1, f"Single hands per setting (default: {DEFAULT_DEALS['sweep']:,}).",
                 short="-n"),
    params.games(1, "setting"),
    params.seed(),
    params.duplicate("Also play every deal with the seats rotated, so seat luck cancels."),
    params.headline(),
    params.precision(),
    params.max_count(),
    params.folder_name(),
    params.force(),
    params.rows(),
    params.chunk_size(),
)  # fmt: skip


@dataclass(frozen=True)
class Plan:
    """The experiment a sweep plays, and whether it may replace another study's folder."""

    experiment: Experiment
    replace: bool


def _request(values: Mapping[str, Any]) -> Plan:
    if not values["seats"]:
        raise ParamsError("give a line-up template, e.g. 'greedy:knock_at={{k}}/simple'",
                          "seats", values["seats"])  # fmt: skip
    if not values["grid"]:
        raise ParamsError("give at least one placeholder and its values, e.g. k=0..10", "grid",
                          values["grid"])  # fmt: skip
    if values["max_count"] is not None and values["precision"] is None:
        raise ParamsError("needs {precision}", "max_count", values["max_count"])
    count, mode = params.size(SWEEP.name, values["deals"], values["games"])
    for preset in values["rules"]:  # each preset, with the rule changes
        params.rule_set({"rules": preset, "rule": values["rule"]}, "rules", "rule")
    seats = values["seats"]
    with params.refused(("seats", "grid"), (seats, values["grid"])):  # they make the settings
        experiment = sweep_experiment(
            seats if isinstance(seats, str) else list(seats), values["grid"],
            presets=values["rules"], seed=values["seed"], mode=mode, count=count,
            rule=values["rule"], duplicate=values["duplicate"], rows=values["rows"] or "hands",
            name=values["name"], headline=values["headline"], precision=values["precision"],
            max_count=values["max_count"], chunk_size=values["chunk_size"],
        )  # fmt: skip
    return Plan(experiment, values["force"])


def _play(plan: Plan, session: Session) -> Drawn:
    return play_drawn(plan.experiment, session, replace=plan.replace)


def _announce(plan: Plan, executor: Any) -> str:
    from sim.present.experiment_text import announce_experiment

    return announce_experiment(plan.experiment, executor)


def _told(drawn: Drawn, as_json: bool) -> None:
    from sim.present.experiment_text import tell_experiment

    tell_experiment(drawn, as_json)


def _show(drawn: Drawn) -> None:
    from sim.present.experiment_text import print_experiment_summary
    from sim.present.terminal import console

    print_experiment_summary(drawn.result.data, drawn.result.directory, console())


def _record(drawn: Drawn) -> dict[str, Any]:
    from sim.present.experiment_text import experiment_record

    return experiment_record(drawn)


def _notebook(drawn: Drawn) -> Any:
    from rummy.results import StudyResult

    return StudyResult.of_data(drawn.result.data, drawn.result.directory, drawn.notes)


FRONT = Front(
    kind=SWEEP,
    summary="Run a grid (strategy parameters x rule parameters) on common deals, mark the "
    "best setting and say whether it beats the runner-up (Holm-adjusted paired t tests).",
    params=PARAMS,
    positional=2,
    request=_request,
    play=_play,
    show=_show,
    record=_record,
    notebook=_notebook,
    epilog=EXAMPLES,
    announce=_announce,
    told=_told,
)
