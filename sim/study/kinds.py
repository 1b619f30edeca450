"""The kinds of study rummy-sim plays, each declared once.

What the rest of the program knows about a study kind without playing it is stated
here and read from here: the command that plays it, the notebook function of the same
study, the folder it writes under ``--out``, the sealed records that mark that folder,
how much it plays when given no size, and whether its command resumes it. The store's
guard over study folders (``sim.store.RECORD_NAMES``), the default sizes
(``sim.sizes.DEFAULT_DEALS``), which commands say on Ctrl-C that they resume
(``sim.cli``) and the notebook's names (``rummy.__all__``) are derived from
:data:`KINDS`, so they cannot disagree with it or with each other.

Adding a kind: its declaration here, its driver (``sim/study/NAME.py``) and its front
(``sim/front/NAME.py``: its parameters, how a request is made of them, how its result is
printed, recorded and returned to the notebook), from which ``sim.cli`` makes its command
and ``rummy.api`` its notebook function. Every kind but the experiment has one; an
experiment file plays through the run's front (``rummy run FILE``), and its notebook
function (``rummy.experiment``, which also takes a dict) is written out in
``rummy/api.py``.

Plain Python: importing it loads neither numba nor polars (``rummy --help`` reads it).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ADVISE",
    "CHART",
    "COMPARE",
    "EXPERIMENT",
    "KINDS",
    "RESULTS_ROOT",
    "RUN",
    "SOLVE",
    "SWEEP",
    "TOURNAMENT",
    "TUNE",
    "StudyKind",
    "of_record",
]

RESULTS_ROOT = "results"  # the folder every study writes under when given none (--out, out=)


@dataclass(frozen=True)
class StudyKind:
    """One kind of study, as the command line, the notebook and the store know it."""

    name: str
    noun: str  # how the words call one ("a comparison", "a round robin")
    commands: tuple[str, ...]  # the command lines that play it: "compare", "strategy-chart knock"
    function: str | None  # the notebook function: rummy.NAME (None: the command only)
    records: tuple[str, ...]  # the sealed records that mark its folder, the main one first
    folder: str  # its folder under --out when not named ("": named by its own file)
    default_deals: int | None = None  # deals played when given no size (None: the request's)
    resumes: bool = True  # its command, run again, keeps its finished chunks and goes on
    # A kind declared by a front (sim.front): the module holding its FRONT, from which its
    # command and notebook function are made, and the line ``rummy --help`` shows for it.
    front: str | None = None
    summary: str = ""


RUN = StudyKind(
    "run", "run", commands=("run",), function="play", records=("manifest.json",),
    folder="default", default_deals=100_000, front="sim.front.run",
    summary="Play many deals or games: one run, or an experiment file.",
)  # fmt: skip
EXPERIMENT = StudyKind(
    "experiment", "experiment", commands=("run",), function="experiment",
    records=("experiment.json",), folder="",  # named by its file
)  # fmt: skip
SWEEP = StudyKind(
    "sweep", "sweep", commands=("sweep",), function="sweep", records=("experiment.json",),
    folder="sweep", default_deals=100_000,  # per setting
    front="sim.front.sweep", summary="Play a grid on common deals and mark the best setting.",
)  # fmt: skip
COMPARE = StudyKind(
    "compare", "comparison", commands=("compare",), function="compare",
    records=("comparison.json",), folder="compare",
    default_deals=100_000,  # per side: about 1 s of one core for two greedy seats
    front="sim.front.compare",
    summary="Compare two rule variants or line-ups on the same deals.",
)  # fmt: skip
TOURNAMENT = StudyKind(
    "tournament", "round robin", commands=("tournament",), function="tournament",
    records=("tournament.json",), folder="tournament",
    default_deals=20_000,  # per seating run: a 4-strategy Gin round robin is 12 runs
    front="sim.front.tournament", summary="Round robin of strategies on the same deals.",
)  # fmt: skip
TUNE = StudyKind(
    "tune", "tune", commands=("tune",), function="tune",
    records=("tune.json", "request.json"), folder="tune",  # the request is written first
    default_deals=50_000,  # per setting (and per seating with duplicate play)
    front="sim.front.tune", summary="Search a strategy's parameters on common deals.",
)  # fmt: skip
CHART = StudyKind(
    "chart", "strategy chart",
    commands=("strategy-chart knock", "strategy-chart draw", "strategy-chart discard"),
    function="strategy_chart", records=("manifest.json",), folder="chart",
    default_deals=100_000,  # deals the policy plays; each chart is a run of its own
    front="sim.front.chart",
    summary="Strategy charts for the table: when to knock, when to take, what to throw.",
)  # fmt: skip
SOLVE = StudyKind(
    "solve", "solve", commands=("strategy-chart solve",), function="solve",
    records=("solve.json",), folder="solve", front="sim.front.solve",
    summary="A chart that is its own best answer, solved by rounds.",
)  # fmt: skip
ADVISE = StudyKind(  # one position's sampled deals (sim.sizes.DEFAULT_SAMPLES): no folder
    "advise", "advice", commands=("advise",), function="advise", records=(), folder="",
    resumes=False, front="sim.front.advise",
    summary="Score every legal action of a position by Monte Carlo.",
)  # fmt: skip

KINDS: tuple[StudyKind, ...] = (
    RUN, EXPERIMENT, SWEEP, COMPARE, TOURNAMENT, TUNE, CHART, SOLVE, ADVISE
)  # fmt: skip


def of_record(name: str) -> StudyKind | None:
    """The first kind whose folders a record of this name marks, or None."""
    return next((kind for kind in KINDS if name in kind.records), None)
