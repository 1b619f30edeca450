"""The run's front: ``rummy run`` and ``rummy.play``, declared once.

One line-up on seeded deals (or games): per seat points, net points and the share of
hands won with 95% intervals, how hands ended. With ``precision``, ``duplicate`` or
``headline`` it is played as a one-setting experiment (its tables, charts and report).
``file`` plays an experiment file (or a tune file, as ``rummy tune --config`` does), and
``resume`` finishes an interrupted run's or experiment's folder. Examples::

    rummy run --rules gin --seats greedy:knock_at=7/simple --deals 1_000_000 --seed 7
    rummy run experiments/gin_knock_threshold.toml
    rummy run --resume results/default/3f9c2a1b4d5e
    rummy.play("greedy:knock_at=7/simple", rules="gin", deals=1_000_000, seed=7)

A run is resumable: the same command again plays only the missing chunks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, cast

import typer
from rich.markup import escape

from sim.front import params
from sim.front import tune as tune_front
from sim.front.declare import Front, Param, ParamsError, literal
from sim.rules import DEFAULT_PRESET
from sim.sizes import DEFAULT_DEALS
from sim.store import StorePath
from sim.study.kinds import RUN
from sim.study.session import Session

__all__ = ["FRONT"]

EXAMPLES = """Examples:

rummy run --rules gin --seats greedy:knock_at=7/simple --deals 1_000_000 --seed 7

rummy run experiments/gin_knock_threshold.toml

rummy run --resume results/default/3f9c2a1b4d5e"""

# What a line-up from flags states: refused with a file. And with a resume, every setting.
SPEC = ("rules", "rule", "seats")
EXPERIMENT_ONLY = ("name", "rows", "precision", "max_count", "headline", "chunk_size")
SETTINGS = (*SPEC, "file", "deals", "games", *EXPERIMENT_ONLY, "duplicate", "force")


def _seats() -> Param:
    """The line-up: ``--seats greedy/simple`` (or the option once per seat) at the command
    line; text, or a list of specs (or agent objects) in the notebook; None: not given."""
    help = (
        "Line-up: seat specs separated by '/' or ',' (greedy:knock_at=7/simple); one spec "
        "fills every seat"
    )
    option = typer.Option("--seats", "-s", help=help + "; or the option once per seat.",
                          show_default=False)  # fmt: skip
    return Param("seats", help + "; or a list, one per seat.", Annotated[list[str] | None, option],
                 lambda v: None if v is None else params.seats_text(v),
                 "str | Sequence[str] | None",
                 parse=lambda v: (v[0] if len(v) == 1 else tuple(v)) if v else None)  # fmt: skip


PARAMS = (
    _seats(),
    params.path("file", "An experiment file (TOML), e.g. experiments/gin_knock_threshold.toml, "
                "or a tune file (as `rummy tune --config`).", argument=True),
    params.preset("rules", f"Rule preset (see `rummy rules list`) (default: {DEFAULT_PRESET}).",
                  default=None),
    params.overrides("rule", short="-r"),
    params.count("deals", 1, "Single hands to play (per run or setting; default: "
                 f"{DEFAULT_DEALS['run']:,}).", short="-n"),
    params.count("games", 1, "Whole games of the rule set's game mode (instead of {deals}); "
                 "the metric is then the net final score per game."),
    params.seed(),
    params.folder_name(),
    params.force(),
    params.rows(),
    params.precision(),
    params.max_count(),
    params.maybe("duplicate", "Also play every deal with the seats rotated, so seat luck "
                 "cancels."),
    params.headline(),
    params.chunk_size(),
    params.path("resume", "Finish an interrupted run or experiment directory (plays only what "
                "is missing).", uri=True),
)  # fmt: skip


# --- what is played --------------------------------------------------------------------


@dataclass(frozen=True)
class RunPlan:
    """One run from flags."""

    config: Any  # sim.study.runs.RunConfig (its out and command: the session's)


@dataclass(frozen=True)
class ExperimentPlan:
    """An experiment: a file's, or a run played as one setting (--duplicate, ...)."""

    experiment: Any  # sim.study.design.Experiment
    replace: bool = False


@dataclass(frozen=True)
class TunePlan:
    """A tune file, played as ``rummy tune --config`` plays it."""

    plan: tune_front.Plan


@dataclass(frozen=True)
class ResumePlan:
    """An interrupted run's or experiment's folder, finished."""

    directory: StorePath
    experiment: Any = None  # the experiment stored there, or None: a run
    config: Any = None  # the run's config
    workers: int | None = None  # the run's stored workers (kept unless --workers is given)
    backend: str = "local"


Plan = RunPlan | ExperimentPlan | TunePlan | ResumePlan


def _stored(values: Mapping[str, Any]) -> ResumePlan | None:
    """The folder to resume, read (refused in one line where nothing can be resumed)."""
    from sim.study import records
    from sim.study.design import EXPERIMENT_JSON
    from sim.study.experiment_file import experiment_from_dict
    from sim.study.experiment_store import EXPERIMENT_KIND
    from sim.study.rundir import MANIFEST, resume_config

    directory = values["resume"]
    if directory is None:
        return None
    with params.refused("resume", directory):
        if (directory / EXPERIMENT_JSON).exists():
            path = directory / EXPERIMENT_JSON
            record = records.load_record(path, EXPERIMENT_KIND, finished=False)
            experiment = experiment_from_dict(record.get("experiment") or {}, source=str(path))
            return ResumePlan(directory, experiment=experiment)
        if not (directory / MANIFEST).exists():
            raise ValueError(
                f"{directory}: nothing to resume (no {EXPERIMENT_JSON} or {MANIFEST}); give a "
                "run directory (results/NAME/RUN_ID) or an experiment directory (results/NAME)"
            )
        config, stored = resume_config(directory)
        if config.mode == "chart":
            raise ValueError(f"{directory} is a strategy chart: resume it with `rummy "
                             "strategy-chart knock` and the same arguments")  # fmt: skip
        return ResumePlan(directory, config=config, workers=stored["workers"],
                          backend=stored["backend"])  # fmt: skip


def _stored_seed(values: Mapping[str, Any]) -> int | None:
    """The seed of the folder to resume (which takes no setting: each is refused before
    the folder is read), or the file's where it names one."""
    if values["resume"] is not None:
        params.resumed_alone(values, FRONT.given(values, (*SETTINGS, "seed")))
        plan = cast(ResumePlan, _stored(values))
        return plan.config.seed if plan.experiment is None else plan.experiment.seed
    return None if values["file"] is None else params.seed_in_file(values["file"])


def _request(values: Mapping[str, Any]) -> Plan:
    # both given: refused first
    count, mode = params.size(RUN.name, values["deals"], values["games"])
    if values["resume"] is not None:  # its settings refused with the seed (_stored_seed)
        return cast(ResumePlan, _stored(values))
    if values["file"] is not None:
        return _file(values)
    return _flags(values, count, mode)


def _file(values: Mapping[str, Any]) -> Plan:
    from sim.study.experiment_file import load_experiment, replace_checked
    from sim.study.tune_request import is_tune_file

    given = FRONT.given(values, SPEC)
    if given is not None:
        raise ParamsError(
            f"{{{given}}} cannot be combined with an experiment file: edit the file, or use "
            "`rummy sweep` for a grid from the command line"
        )
    path = values["file"]
    if is_tune_file(path):  # as `rummy tune --config`
        given = FRONT.given(values, EXPERIMENT_ONLY)
        if given is not None:
            raise ParamsError(f"{{{given}}} does not apply to a tune file "
                              f"({literal(str(path))})")  # fmt: skip
        tune_values = {p.name: p.read(p.default) for p in tune_front.PARAMS}
        tune_values |= {k: values[k] for k in ("deals", "games", "seed", "duplicate")}
        return TunePlan(tune_front.FRONT.request({**tune_values, "config": path}))
    with params.refused("file", path):
        experiment = load_experiment(path)
        changes: dict[str, Any] = {"seed": values["seed"]}
        if values["deals"] is not None or values["games"] is not None:
            changes["mode"] = "deals" if values["deals"] is not None else "games"
            changes["count"] = values["deals"] if values["deals"] is not None else values["games"]
            if changes["mode"] != experiment.mode:
                changes["headline"] = ""  # the mode's default headline
            if experiment.max_count is not None and experiment.max_count < changes["count"]:
                changes["max_count"] = None
        for key in ("name", *EXPERIMENT_ONLY[1:], "duplicate"):
            if values[key] is not None:
                changes[key] = values[key]
        return ExperimentPlan(replace_checked(experiment, **changes), values["force"])


def _flags(values: Mapping[str, Any], count: int, mode: str) -> Plan:
    from sim.study.experiment_file import experiment_from_dict, named_by_identity
    from sim.study.runs import RunConfig

    seats = values["seats"]
    if seats is None:
        raise ParamsError(
            "none given; give a line-up (e.g. greedy:knock_at=7/simple), or an experiment "
            "{file} (e.g. experiments/gin_knock_threshold.toml)",
            ("seats", "file"),
            (None, None),
        )
    rules = params.rule_set({"rules": values["rules"] or DEFAULT_PRESET, "rule": values["rule"]},
                            "rules", "rule")  # fmt: skip
    params.seated("seats", seats, rules)
    lineup = [seats] if isinstance(seats, str) else list(seats)
    rows = values["rows"] or "hands"
    if values["precision"] is not None or values["duplicate"] or values["headline"] is not None:
        data: dict[str, Any] = {
            "name": values["name"] or "run", "seed": values["seed"], mode: count,
            "rules": _rules_key(values["rules"], values["rule"]),
            "seats": lineup, "duplicate": bool(values["duplicate"]), "rows": rows,
        }  # fmt: skip
        for key in ("precision", "max_count", "chunk_size", "headline"):
            if values[key] is not None:
                data[key] = values[key]
        with params.refused(("seats", "rules"), (seats, values["rules"])):
            experiment = experiment_from_dict(data, source="rummy run")
        if values["name"] is None:  # a folder of its own: results/run-ID
            experiment = named_by_identity(experiment, "run")
        return ExperimentPlan(experiment, values["force"])
    if values["max_count"] is not None:
        raise ParamsError("needs {precision}", "max_count", values["max_count"])
    with params.refused("name", values["name"]):
        config = RunConfig(
            rules=rules, lineup=tuple(lineup), count=count, mode=mode,  # type: ignore[arg-type]
            experiment=values["name"] or RUN.folder, seed=values["seed"],
            chunk_size=values["chunk_size"], rows=rows,  # type: ignore[arg-type]
        )  # fmt: skip
    return RunPlan(config)


def _rules_key(rules: Any, changes: Mapping[str, Any]) -> dict[str, Any]:
    """An experiment's ``rules``: the preset and the rule changes (a RuleSet given in the
    notebook: every parameter, under the preset it names, else the default's)."""
    from sim.rules import PRESETS, RuleSet

    if isinstance(rules, RuleSet):
        preset = rules.name if rules.name in PRESETS else DEFAULT_PRESET
        return {"preset": preset, **rules.to_dict(), **changes}
    return {"preset": rules or DEFAULT_PRESET, **changes}


# --- playing it ------------------------------------------------------------------------


def _label(plan: Plan) -> str:
    """The study's name: the run's folder, the experiment's, the tune's kind."""
    if isinstance(plan, RunPlan):
        return str(plan.config.experiment)
    if isinstance(plan, ExperimentPlan):
        return str(plan.experiment.name)
    if isinstance(plan, ResumePlan):
        return plan.directory.name
    return "tune"


def _play(plan: Plan, session: Session) -> Any:
    from sim.present.experiment import play_drawn
    from sim.study.execute import resume, run

    if isinstance(plan, TunePlan):
        return tune_front.FRONT.play(plan.plan, session)
    if isinstance(plan, ExperimentPlan):
        return play_drawn(plan.experiment, session, replace=plan.replace)
    if isinstance(plan, RunPlan):
        config = dataclasses.replace(plan.config, out=session.out, command=session.provenance)
        return run(config, session.executor, progress=session.progress)
    if plan.experiment is not None:
        return play_drawn(plan.experiment, dataclasses.replace(session,
                          out=plan.directory.parent), resume=True)  # fmt: skip
    executor = session.executor  # a run keeps its stored workers unless others are given
    if executor.workers is None and plan.backend == executor.backend:
        executor = dataclasses.replace(executor, workers=plan.workers)
    return resume(plan.directory, executor, command=session.provenance, progress=session.progress)


def _announce(plan: Plan, executor: Any) -> str:
    from sim.present.experiment_text import announce_experiment

    if isinstance(plan, TunePlan):
        return tune_front.FRONT.announce(plan.plan, executor)  # type: ignore[misc]
    if isinstance(plan, ExperimentPlan):
        return announce_experiment(plan.experiment, executor)
    if isinstance(plan, ResumePlan):
        what = "experiment" if plan.experiment is not None else "run"
        return escape(f"resuming {what} {plan.directory}")
    config = plan.config
    return (
        f"[bold]{escape(config.experiment)}[/bold]: {config.rule_set.name} "
        f"({config.players} players), {escape(config.shown_lineup)}, {config.count:,} "
        f"{config.mode}, {executor.describe(config.seats_agents)}"
    )


def _told(done: Any, as_json: bool) -> None:
    from sim.present.experiment_text import tell_experiment, tell_notes
    from sim.present.terminal import chatter
    from sim.study.runs import RunResult

    if isinstance(done, tune_front.Tuned):
        tune_front.FRONT.told(done, as_json)  # type: ignore[misc]
    elif not isinstance(done, RunResult):
        tell_experiment(done, as_json)
    else:
        say = chatter(as_json)
        tell_notes(done.notes)
        if done.chunks_skipped:
            say.print(f"{done.chunks_skipped} of {done.chunks_total} chunks were already done")
        if done.chunks_run and done.elapsed > 0:
            say.print(f"{done.chunks_run} chunks played in {done.elapsed:.1f} s")


def _show(done: Any) -> None:
    from sim.present.experiment_text import print_experiment_summary, print_run_summary
    from sim.present.terminal import console
    from sim.study.analysis import data_from_run
    from sim.study.runs import RunResult

    if isinstance(done, tune_front.Tuned):
        tune_front.FRONT.show(done)
    elif isinstance(done, RunResult):
        print_run_summary(data_from_run(done.run_dir), done.run_dir, console())
    else:
        print_experiment_summary(done.result.data, done.result.directory, console())


def _record(done: Any) -> dict[str, Any]:
    from sim.present.experiment_text import experiment_record
    from sim.study.analysis import data_from_run
    from sim.study.quantities import experiment_units
    from sim.study.runs import RunResult

    if isinstance(done, tune_front.Tuned):
        return tune_front.FRONT.record(done)
    if not isinstance(done, RunResult):
        return experiment_record(done)
    data = data_from_run(done.run_dir)
    return {
        "kind": "run",
        "run_dir": str(done.run_dir),
        "seed": done.seed,
        "chunks_run": done.chunks_run,
        "chunks_skipped": done.chunks_skipped,
        "elapsed": done.elapsed,
        "summary": data.summary.to_dicts()[0],
        "units": experiment_units(data.headline),
        "seats": data.seats.to_dicts(),
        "outcomes": data.outcomes.select("outcome", "count", "share", "low", "high").to_dicts(),
    }


def _notebook(done: Any) -> Any:
    from rummy.results import PlayResult, StudyResult
    from sim.study.analysis import data_from_run
    from sim.study.runs import RunResult

    if isinstance(done, tune_front.Tuned):
        return tune_front.FRONT.notebook(done)
    if isinstance(done, RunResult):
        return PlayResult.of_data(data_from_run(done.run_dir), done.run_dir, done.notes)
    return StudyResult.of_data(done.result.data, done.result.directory, done.notes)


FRONT = Front(
    kind=RUN,
    summary="Play many deals (or games): one run from options, or an experiment file. Prints "
    "the seed, a progress bar, then a summary with 95% intervals and where the results are. "
    "Runs are resumable: the same command again plays only missing chunks. With {precision}, "
    "{duplicate} or {headline} a run is played as a one-setting experiment (its tables, "
    "charts and report).",
    params=PARAMS,
    positional=1,
    request=_request,
    play=_play,
    show=_show,
    record=_record,
    notebook=_notebook,
    epilog=EXAMPLES,
    announce=_announce,
    told=_told,
    stored_seed=_stored_seed,
    label=_label,
)
