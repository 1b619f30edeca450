"""``rummy run``: one run from options, an experiment file, or a resume.

Examples::

    rummy run experiments/gin_knock_threshold.toml            # an experiment file
    rummy run --rules gin --seats greedy:knock_at=7/simple --deals 1_000_000 --seed 7
    rummy run --resume results/default/3f9c2a1b4d5e           # finish an interrupted run
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from sim.cli.options import (
    AddressOption,
    Backend,
    BackendOption,
    ChunkOption,
    DealsOption,
    DuplicateOption,
    ForceOption,
    GamesOption,
    HeadlineOption,
    JsonOption,
    MaxCountOption,
    NameOption,
    OutOption,
    PrecisionOption,
    RowsOption,
    RuleOverrides,
    SeatsOption,
    SeedOption,
    WorkersOption,
    path_text,
)
from sim.cli.output import (
    ProgressView,
    chatter,
    chosen_seed,
    command_line,
    fail,
    study_size,
)
from sim.cli.runner import executor_of, refuse_on_resume
from sim.cli.studies import play_experiment, play_run, print_run_result
from sim.rules import DEFAULT_PRESET, get_rules, parse_overrides
from sim.study import records
from sim.study.design import EXPERIMENT_JSON
from sim.study.execute import Executor, resume
from sim.study.experiment_file import (
    experiment_from_dict,
    load_experiment,
    named_by_identity,
    replace_checked,
)
from sim.study.experiment_store import EXPERIMENT_KIND
from sim.study.kinds import RESULTS_ROOT, RUN
from sim.study.rundir import MANIFEST, resume_config
from sim.study.runs import RunConfig, RunError
from sim.study.tune_request import is_tune_file

app = typer.Typer()


@app.command("run")
def run(
    experiment_file: Annotated[
        Path | None,
        typer.Argument(
            help="An experiment file (TOML), e.g. experiments/gin_knock_threshold.toml.",
            show_default=False,
        ),
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option(
            "--rules",
            help=f"Rule preset (see `rummy rules list`) (default: {DEFAULT_PRESET}).",
            show_default=False,
        ),
    ] = None,
    rule: RuleOverrides = None,
    seats: SeatsOption = None,
    deals: DealsOption = None,
    games: GamesOption = None,
    seed: SeedOption = None,
    workers: WorkersOption = None,
    out: OutOption = Path(RESULTS_ROOT),
    name: NameOption = None,
    force: ForceOption = False,
    backend: BackendOption = Backend.local,
    address: AddressOption = None,
    rows: RowsOption = None,
    precision: PrecisionOption = None,
    max_count: MaxCountOption = None,
    duplicate: DuplicateOption = None,
    headline: HeadlineOption = None,
    chunk_size: ChunkOption = None,
    resume_dir: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            parser=path_text,
            help="Finish an interrupted run or experiment directory (plays only what is missing).",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Play many deals (or games): one run from options, or an experiment file.

    Prints the seed, a progress bar, then a summary with 95% intervals and where the
    results are. Runs are resumable: the same command again plays only missing chunks.
    With --precision, --duplicate or --headline a run is played as a one-setting
    experiment (its tables, charts and report).
    """
    executor = executor_of(workers, backend, address)
    study_size("run", deals, games)  # both given: refused before anything else
    settings = _Settings(
        rules, rule, seats, deals, games, seed, name, rows, precision, max_count, duplicate,
        headline, chunk_size,
    )  # fmt: skip
    if resume_dir is not None:
        refuse_on_resume(
            [*settings.given(), ("an experiment file", experiment_file)],
            "--workers, --backend and --address",
        )
        _resume(resume_dir, executor, as_json)
    elif experiment_file is not None:
        for flag, value in settings.given("rules", "rule", "seats"):
            if value:
                fail(
                    f"{flag} cannot be combined with an experiment file: edit the file, "
                    "or use `rummy sweep` for a grid from the command line"
                )
        if is_tune_file(experiment_file):  # a [tune] file: as `rummy tune --config`
            from sim.front.command import play_front
            from sim.front.tune import FRONT as TUNE_FRONT

            for flag, value in settings.given(
                "name", "rows", "precision", "max_count", "headline", "chunk_size"
            ):
                if value:
                    fail(f"{flag} does not apply to a tune file ({experiment_file})")
            defaults = {p.name: p.default for p in TUNE_FRONT.params}
            play_front(TUNE_FRONT, {
                **defaults, "config": experiment_file, "deals": deals, "games": games,
                "seed": seed, "duplicate": duplicate, "workers": workers,
                "backend": backend, "address": address, "out": out, "as_json": as_json,
            })  # fmt: skip
            return
        _experiment_file(
            experiment_file, settings, executor=executor, out=out, as_json=as_json,
            replace=force,
        )  # fmt: skip
    else:
        _from_flags(
            settings, executor=executor, out=out, as_json=as_json, replace=force
        )  # fmt: skip


@dataclass(frozen=True)
class _Settings:
    """What ``rummy run`` was told to play, flag by flag (None: not given); a field is
    the experiment key of the same name, and its flag is spelt ``--field-name``."""

    rules: str | None
    rule: list[str] | None
    seats: list[str] | None
    deals: int | None
    games: int | None
    seed: int | None
    name: str | None
    rows: Any
    precision: float | None
    max_count: int | None
    duplicate: bool | None
    headline: Any
    chunk_size: int | None

    def given(self, *names: str) -> list[tuple[str, Any]]:
        """``(flag, value)`` of the fields named (every field when none is)."""
        names = names or tuple(f.name for f in dataclasses.fields(self))
        return [(f"--{n.replace('_', '-')}", getattr(self, n)) for n in names]


def _experiment_file(path: Path, settings: _Settings, **play: Any) -> None:
    experiment = load_experiment(path)
    changes: dict[str, Any] = {}
    deals, games = settings.deals, settings.games
    if deals is not None or games is not None:
        changes["mode"] = "deals" if deals is not None else "games"
        changes["count"] = deals if deals is not None else games
        if changes["mode"] != experiment.mode:
            changes["headline"] = ""  # the mode's default headline
        if experiment.max_count is not None and experiment.max_count < changes["count"]:
            changes["max_count"] = None
    for key in ("seed", "name", "rows", "precision", "max_count", "duplicate", "headline",
                "chunk_size"):  # fmt: skip
        value = getattr(settings, key)
        if value is not None:
            changes[key] = value.value if hasattr(value, "value") else value
    if changes:
        experiment = replace_checked(experiment, **changes)
    seed, drawn = chosen_seed(experiment.seed)
    if drawn:
        experiment = replace_checked(experiment, seed=seed)
    play_experiment(experiment, drawn=drawn, **play)


def _from_flags(settings: _Settings, **play: Any) -> None:
    seats = settings.seats
    if not seats:
        fail(
            "give a line-up with --seats (e.g. greedy:knock_at=7/simple), or an "
            "experiment file (e.g. experiments/gin_knock_threshold.toml)"
        )
    count, mode = study_size("run", settings.deals, settings.games)
    seed, drawn = chosen_seed(settings.seed)
    rows = settings.rows.value if settings.rows else "hands"
    preset = settings.rules or DEFAULT_PRESET
    overrides = parse_overrides(settings.rule or [])
    headline = settings.headline
    if settings.precision is not None or settings.duplicate or headline is not None:
        data: dict[str, Any] = {
            "name": settings.name or "run",
            "seed": seed,
            mode: count,
            "rules": {"preset": preset, **overrides},
            "seats": list(seats),
            "duplicate": bool(settings.duplicate),
            "rows": rows,
        }
        for key in ("precision", "max_count", "chunk_size"):
            if getattr(settings, key) is not None:
                data[key] = getattr(settings, key)
        if headline is not None:
            data["headline"] = headline.value
        experiment = experiment_from_dict(data, source="rummy run")
        if settings.name is None:  # a folder of its own: results/run-ID
            experiment = named_by_identity(experiment, "run")
        play_experiment(experiment, drawn=drawn, **play)
        return
    if settings.max_count is not None:
        fail("--max-count needs --precision")
    config = RunConfig(
        rules=get_rules(preset, **overrides),
        lineup=tuple(seats),
        count=count,
        mode=mode,  # type: ignore[arg-type]
        experiment=settings.name or RUN.folder,
        seed=seed,
        chunk_size=settings.chunk_size,
        rows=rows,  # type: ignore[arg-type]
        out=play["out"],
        command=command_line(),
    )
    play_run(config, play["executor"], drawn=drawn, as_json=play["as_json"])


def _resume(directory: Path, executor: Executor, as_json: bool) -> None:
    """Finish an experiment or a run. A run keeps its stored worker count unless
    --workers is given (or the backend changes)."""
    say = chatter(as_json)
    if (directory / EXPERIMENT_JSON).exists():
        record = records.load_record(directory / EXPERIMENT_JSON, EXPERIMENT_KIND, finished=False)
        experiment = experiment_from_dict(
            record.get("experiment") or {}, source=str(directory / EXPERIMENT_JSON)
        )
        say.print(f"resuming experiment {experiment.name} in {directory}", markup=False)
        play_experiment(experiment, executor, out=directory.parent, drawn=False, as_json=as_json)
        return
    if not (directory / MANIFEST).exists():
        raise RunError(
            f"{directory}: nothing to resume (no {EXPERIMENT_JSON} or {MANIFEST}); give "
            "a run directory (results/NAME/RUN_ID) or an experiment directory (results/NAME)"
        )
    config, stored = resume_config(directory)
    if executor.workers is None and stored["backend"] == executor.backend:
        executor = dataclasses.replace(executor, workers=stored["workers"])
    if config.mode == "chart":
        raise RunError(
            f"{directory} is a strategy chart: resume it with `rummy strategy-chart knock` and "
            "the same arguments"
        )
    say.print(f"resuming run {directory} (seed {config.seed})", markup=False)
    with ProgressView(directory.name) as view:
        result = resume(directory, executor, command=command_line(), progress=view.progress)
    print_run_result(result, as_json)
