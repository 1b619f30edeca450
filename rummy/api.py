"""The notebook API: one function per common study, each over its ``sim.study`` driver.

Each function checks its input (a one-line :class:`UsageError`, a ``ValueError``, before
anything is played or written), plays on an ``Executor`` (default: threads, one per
CPU), shows a progress bar while it plays (rich, in a terminal or a notebook;
``progress=False`` for none), writes the same folders as the ``rummy`` command under
``out`` (default ``results``, as the command: the same call again reads back what is
done instead of playing it), and returns a typed result of :mod:`rummy.results`:
estimates with intervals and units, points in game points, cards as text.
docs/PYTHON.md shows each in use.

Checking the input
------------------
The drivers check what they are given, in their own words (``count=0``, ``--param``):
right for the command line, wrong for a notebook, and a wrong *type* often got past
them as a bare ``TypeError`` from inside (``rummy.play(5)``). So each function here
checks its own parameters first, by type and range (``_whole``, ``_text``, ...), and
builds its driver's request inside ``_checking(parameter, value)``: whatever the driver
refuses there comes back as a :class:`UsageError` whose one line starts with the
parameter as the caller wrote it (``deals=0: ...``, ``seats='nosuch/simple': ...``).
Keywords passed on to a driver (``**changes`` of :func:`experiment`, ...) are checked against
what that driver takes, so a misspelling names the keywords allowed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NoReturn, TypeVar, cast

from rummy.results import (
    ChartResult,
    Comparison,
    PlayResult,
    SolveResult,
    StudyResult,
    TournamentResult,
    TuneResult,
)
from sim.front import params
from sim.front.declare import Front, ParamsError
from sim.limits import MAX_COUNT, MAX_SEED
from sim.rules import RuleSet, get_rules
from sim.sizes import study_count
from sim.store import StorePath
from sim.study.execute import LOCAL, Executor
from sim.study.kinds import KINDS, RESULTS_ROOT, SOLVE

__all__ = [
    "UsageError",
    "experiment",
    "load",
    # the functions made from a study kind's front, on first use (__getattr__ below)
    *(kind.function for kind in KINDS if kind.front and kind.function),
]

Out = str | os.PathLike[str]
F = TypeVar("F", bound=Callable[..., Any])


class UsageError(ValueError):
    """A call of the notebook API that cannot be made: one line naming the parameter in
    Python's words (``deals=0: ...``), what was given and what is allowed. Raised before
    anything is played or written; a ``ValueError``, so ``except ValueError`` catches it."""


# --- checking the input -----------------------------------------------------------------------


def _shown(value: Any) -> str:
    """A value as the message shows it: its repr on one line, cut short."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 60 else text[:57] + "..."


def _said(error: ParamsError, given: Mapping[str, Any] | None = None) -> str:
    """A front's refusal in Python's words (``deals=10, games=10: give one, not both``):
    each refused parameter with the value the caller gave (``given``), where known."""
    given = given or {}
    return error.words(str, lambda name, value: f"{name}={_shown(given.get(name, value))}")


def _refuse(name: str, value: Any, allowed: str) -> NoReturn:
    raise UsageError(f"{name}={_shown(value)}: {allowed}")


@contextlib.contextmanager
def _checking(name: str | None, value: Any) -> Iterator[None]:
    """A driver's refusal of ``value`` as this API's: a :class:`UsageError` naming the
    parameter (the drivers name their own fields, or the command's options); with no
    ``name``, the driver's line as it is (it names the keyword itself)."""
    try:
        yield
    except UsageError:
        raise
    except (ValueError, TypeError) as error:
        text = " ".join(str(error).split()) or type(error).__name__
        raise UsageError(text if name is None else f"{name}={_shown(value)}: {text}") from None


def _whole(name: str, value: Any, low: int, high: int = MAX_COUNT) -> int:
    """A whole number in ``low..high`` (not a bool, not a float: ``2e3`` is refused)."""
    with _checking(name, value):
        return params.whole(value, low, high)


def _seed(value: Any) -> int | None:
    return None if value is None else _whole("seed", value, 0, MAX_SEED)


def _text(name: str, value: Any, example: str) -> str:
    with _checking(name, value):
        return params.text(value, example)


def _flag(name: str, value: Any) -> bool:
    with _checking(name, value):
        return params.truth(value)


def _texts(name: str, value: Any, example: str) -> str | tuple[str, ...]:
    """Text, or a list or tuple of texts (one per seat, strategy or parameter)."""
    with _checking(name, value):
        return params.texts(value, example)


def _rules(rules: Any, name: str = "rules") -> RuleSet:
    with _checking(name, rules):
        return get_rules(params.preset_or_rules(rules))


def _lineup(name: str, seats: Any, rules: RuleSet) -> str | tuple[str, ...]:
    """A line-up (text, or one spec or agent object per seat), parsed for ``rules`` so
    that a bad spec is refused here, named."""
    from strategies import parse_lineup

    with _checking(name, seats):
        lineup = params.seats_text(seats)
        parse_lineup(lineup, rules.players, rules=rules)
    return lineup


def _out(out: Any) -> StorePath:
    """The results root: a path or an object store's URI, as the command's ``--out``."""
    from sim import store

    if not isinstance(out, str | os.PathLike) or (isinstance(out, str) and not out.strip()):
        _refuse("out", out, "give a folder (a str or a Path) or an s3:// URI")
    with _checking("out", out):
        return store.location(out)


def _common(executor: Any, progress: Any) -> None:
    if not isinstance(executor, Executor):
        _refuse("executor", executor, "give a rummy.Executor, e.g. rummy.Executor(workers=2)")
    _flag("progress", progress)


def _keywords(function: str, given: Iterable[str], allowed: Iterable[str]) -> None:
    """Refuse a keyword the driver does not take, naming the ones it does."""
    allowed = sorted(allowed)
    for key in given:
        if key not in allowed:
            raise UsageError(
                f"{function}() got an unknown keyword {key!r}; its keywords: {', '.join(allowed)}"
            )


def _called(function: F) -> F:
    """A notebook function whose call is checked before it runs: a keyword it does not
    take, one given twice or a required one missing is a :class:`UsageError` (a
    ``ValueError``) naming it and the keywords allowed, not Python's ``TypeError``."""
    signature = inspect.signature(function)
    named = [p.name for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            signature.bind(*args, **kwargs)
        except TypeError as error:
            raise UsageError(
                f"{function.__name__}(): {error}; its keywords: {', '.join(named)}"
            ) from None
        return function(*args, **kwargs)

    return cast(F, checked)


# --- what every study shares ----------------------------------------------------------------


@contextlib.contextmanager
def _progress(label: str, show: bool) -> Iterator[Any]:
    """The progress bar (``sim.present.terminal.ProgressView``: one look for a study, in
    a terminal or a notebook, the same as the command line's), or None when not shown."""
    if not show:
        yield None
        return
    from sim.present.terminal import ProgressView

    with ProgressView(label) as view:
        yield view


def _callback(view: Any) -> Callable[[Any], None] | None:
    """The bar's callback (it takes a run's progress and an experiment's phases alike)."""
    return None if view is None else view.progress


def _size(kind: str, deals: Any, games: Any, low: int = 1) -> tuple[int, str]:
    """The count and mode of a study: ``deals=`` single hands or ``games=`` whole games
    (at least ``low``: a study's interval needs two), else the kind's default deals
    (``sim.sizes``, as the command's)."""
    try:  # both given: refused in the front's words, before either is read
        params.size(kind, deals, games)
    except ParamsError as error:
        raise UsageError(_said(error)) from None
    return study_count(
        kind,
        None if deals is None else _whole("deals", deals, low),
        None if games is None else _whole("games", games, low),
    )


def _call(name: str, /, **args: Any) -> str:
    """The call as provenance (stored where the command line stores its command)."""
    given = ", ".join(f"{k}={v!r}" for k, v in args.items() if v is not None)
    return f"rummy.{name}({given})"


# --- a study's front as a notebook function -------------------------------------------------


def _function_of(front: Front[Any, Any]) -> Any:
    """The notebook function of ``front`` (``sim.front``): its parameters, the first
    ``front.positional`` by position too, then (for a kind that plays in a session)
    ``out``, ``executor`` and ``progress``. Each value is read by its parameter (a refusal:
    ``name=value: what is allowed``); the request is made and played as the command plays
    it, and returned as ``front.notebook`` makes it."""
    from sim.front.declare import REQUIRED, spelled

    name = front.kind.function or front.kind.name
    declared = [
        inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD if i < front.positional
                          else inspect.Parameter.KEYWORD_ONLY, default=p.default,
                          annotation=p.annotation)
        for i, p in enumerate(front.params)
    ]  # fmt: skip
    session = [
        inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        for key, default, kind in (("out", RESULTS_ROOT, "str | os.PathLike[str]"),
                                   ("executor", LOCAL, "Executor"), ("progress", True, "bool"))
        if front.session
    ]  # fmt: skip
    signature = inspect.Signature(declared + session)

    def function(*args: Any, **kwargs: Any) -> Any:
        from sim.study.session import Session

        given = signature.bind(*args, **kwargs)  # a wrong call: _called's UsageError
        given.apply_defaults()
        values, arguments = {}, given.arguments
        if front.session:
            _common(arguments["executor"], arguments["progress"])
        for param in front.params:
            with _checking(param.name, arguments[param.name]):
                values[param.name] = param.read(arguments[param.name])
        try:
            values["seed"] = front.seed_of(values)[0]
            request = front.request(values)
        except ParamsError as error:
            raise UsageError(_said(error, arguments)) from None
        if not front.session:
            return front.notebook(front.play(request))
        root = _out(arguments["out"])
        call = _call(name, **{p.name: arguments[p.name] for p in front.params
                              if arguments[p.name] is not p.default})  # fmt: skip
        with _progress(front.label_of(request), arguments["progress"]) as view:
            done = front.play(request, Session(arguments["executor"], root, _callback(view), call))
        return front.notebook(done)

    lines = [f"{p.name} : {p.annotation}" + ("" if p.default is REQUIRED else f" = {p.default!r}")
             + f"\n    {spelled(p.help, str)}" for p in front.params]  # fmt: skip
    if front.session:
        lines.append("out, executor, progress\n    The results root, how the chunks play, "
                     "whether a progress bar shows.")  # fmt: skip
    function.__doc__ = (
        f"{spelled(front.summary, str)} (``rummy {front.kind.commands[0]}``)\n\n"
        "Parameters\n----------\n" + "\n".join(lines) + "\n"
    )
    function.__name__ = function.__qualname__ = name
    function.__module__ = __name__
    function.__signature__ = signature  # type: ignore[attr-defined]
    return _called(function)


def __getattr__(name: str) -> Any:
    """The notebook function of a study kind declared by a front (``compare``), made
    from it on first use."""
    import importlib

    fronts = {kind.function: kind.front for kind in KINDS if kind.front and kind.function}
    if name not in fronts:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    function = globals()[name] = _function_of(importlib.import_module(fronts[name]).FRONT)
    return function


# --- one run ---------------------------------------------------------------------------------


def _solved(folder: StorePath) -> SolveResult:
    """A solve's folder read back: its rounds, how they ended, its largest deviation."""
    from sim.front.solve import deviation, ending
    from sim.study.solve import load_solve

    result, settings = load_solve(folder)
    average = bool(settings.get("average", False))
    return SolveResult.of(result, settings["seed"], ending(result, average), deviation(result))


def _chart(folder: StorePath) -> ChartResult:
    """A strategy chart's run folder read back: its cells, its saved check, the figures
    and report drawn beside them."""
    from sim.study.chart import load_chart
    from sim.study.chart_check import load_check

    chart = load_chart(folder)
    drawn = [p for p in folder.iterdir() if p.suffix in (".png", ".svg")]
    figures = tuple(sorted(drawn, key=lambda p: p.name))
    return ChartResult.of(chart, load_check(chart), figures, folder / "report.html")


# --- experiments and sweeps ------------------------------------------------------------------


@_called
def experiment(
    source: Out | Mapping[str, Any],
    *,
    out: Out = RESULTS_ROOT,
    executor: Executor = LOCAL,
    progress: bool = True,
    **changes: Any,
) -> StudyResult:
    """An experiment (``rummy run FILE.toml``): every setting of its grid on common deals,
    the best per group and its Holm-adjusted test against the others.

    ``source`` is an experiment file (TOML), or its keys as a dict; ``changes`` set any
    of its fields (``count=2_000``, ``seed=1``, ``duplicate=True``: the fields of
    ``sim.study.design.Experiment``), checked as the file is. Written to
    ``<out>/<name>/`` (tables, record; charts and the report are drawn by
    ``sim.present.experiment``)."""
    from sim.study import load_experiment
    from sim.study.design import Experiment
    from sim.study.experiment_file import experiment_from_dict, replace_checked

    _common(executor, progress)
    fields = [f.name for f in dataclasses.fields(Experiment) if f.name != "source"]
    _keywords("experiment", changes, fields)
    if isinstance(source, Mapping):
        with _checking("source", "a dict"):
            planned = experiment_from_dict(source, source="rummy.experiment")
        what = "a dict"
    elif isinstance(source, str | os.PathLike) and str(source).strip():
        with _checking("source", source):
            planned = load_experiment(source)
        what = str(source)
    else:
        _refuse("source", source, "give an experiment file (TOML: a str or a Path) or a dict")
    for key, value in changes.items():
        # replace_checked expands the settings with a seed of its own: check these here
        if key == "seed":
            _seed(value)
        elif key == "count":
            _whole("count", value, 1)
        elif key == "duplicate":
            _flag("duplicate", value)
        with _checking(key, value):
            planned = replace_checked(planned, **{key: value})
    return _play_planned(
        planned, out, executor, progress, _call("experiment", source=what, **changes)
    )


def _play_planned(
    planned: Any, out: Out, executor: Executor, progress: bool, command: str
) -> StudyResult:
    """Play a planned experiment (``sim.study.design.Experiment``) into ``<out>``."""
    from sim.study import run_experiment

    root = _out(out)
    with _progress(planned.name, progress) as view:
        done = run_experiment(
            planned, executor, out=root, progress=_callback(view), command=command
        )
    return StudyResult.of_data(done.data, done.directory, done.notes)


@_called
def load(
    path: Out,
) -> (
    PlayResult
    | StudyResult
    | Comparison
    | TournamentResult
    | TuneResult
    | ChartResult
    | SolveResult
):
    """The results in a study's folder as the function that played them returned them
    (its ``raw`` aside: here the study's record, or for a run or an experiment the data
    read back): a run folder (``results/NAME/RUN_ID``: :func:`play`), a strategy chart's
    run folder (its cells' verdicts at the default ``min_positions``), a solve's, an
    experiment's or
    a sweep's (``results/NAME``), a comparison's, a tournament's or a tune's
    (``results/compare/ID``, ...). Nothing is played or written. ``sim.study.load_summary``
    gives a run's raw integer sums."""
    from sim import store
    from sim.study import kinds, load_results
    from sim.study.chart import is_chart_run
    from sim.study.folders import open_study

    if not isinstance(path, str | os.PathLike) or (isinstance(path, str) and not path.strip()):
        _refuse("path", path, "give a study's folder (a str or a Path)")
    with _checking("path", path):
        folder = store.location(path)
        if (folder / SOLVE.records[0]).is_file():
            return _solved(folder)
        study = open_study(folder)
        if study is not None and study.kind is kinds.COMPARE:
            return Comparison.of_record(study.record, folder, study.record)
        if study is not None and study.kind is kinds.TOURNAMENT:
            record = study.record
            assert study.table is not None  # a round robin's folder holds its matrix
            return TournamentResult.of_matrix(
                study.table, record["mode"], record["seed"], folder, record
            )
        if study is not None:  # a tune
            assert study.table is not None  # its settings
            return TuneResult.of(study.record, study.table, folder, study.record)
        if is_chart_run(folder):
            return _chart(folder)
        data = load_results(path)
    if data.kind == "run":
        return PlayResult.of_data(data, folder)
    return StudyResult.of_data(data, folder)
