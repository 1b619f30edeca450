"""The notebook API misused: every public function, every parameter, wrong types and values.

Each example takes one function, keeps every argument valid but one, and gives that one a
value drawn from a pool of misuses (None, ints, floats nan/inf, text, lists, dicts, an
object, a bool, an unknown keyword). The call must either work (the value was usable) or
raise ``rummy.UsageError`` (a ``ValueError``) whose one line names the parameter as the
caller wrote it: never a ``TypeError``, ``AttributeError``, ``KeyError`` or ``IndexError``
from inside, never another error. The valid arguments are small (at most 200 deals), so
a value that works plays in a moment. The default suite plays a fixed slice
(derandomized); ``-m slow`` plays many more.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rummy

HAND = "AS 2S 3S 7C 7D 7H 9C TC JD QH"
SMALL = {"deals": 200, "seed": 1, "progress": False}

# function -> (positional arguments, keywords): a call that works, quickly
VALID: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "play": (("greedy/simple",), SMALL),
    "compare": (("greedy/simple", "greedy:knock_at=5/simple"), SMALL),
    "experiment": (
        (
            {
                "name": "misuse",
                "seats": "greedy:knock_at={k}/simple",
                "deals": 200,
                "seed": 1,
                "grid": {"k": [5, 6]},
            },
        ),
        {"progress": False},
    ),  # fmt: skip
    "sweep": (("greedy:knock_at={k}/simple", {"k": "5..6"}), SMALL),
    "tournament": (("greedy,simple",), SMALL),
    "tune": (("greedy", ["knock_at=5..6"]), {**SMALL, "against": "simple"}),
    "strategy_chart": (
        ("greedy/simple",),
        {**SMALL, "samples": 2, "per_cell": 5, "turns": 3, "pilot": 200},
    ),
    "solve": (
        ("greedy:knock_at=0",),
        {
            **SMALL,
            "rounds": 0,
            "samples": 2,
            "per_cell": 50,
            "strength_deals": 100,
            "check": 1,
            "check_deals": 100,
        },
    ),  # fmt: skip
    "advise": ((HAND,), {"pile": "KS", "samples": 2, "seed": 1}),
    "load": ((), {}),  # its path is made by the fixture
}
POSITIONAL = {
    "play": ["seats"],
    "compare": ["seats", "vs_seats"],
    "experiment": ["source"],
    "sweep": ["seats", "grid"],
    "tournament": ["strategies"],
    "tune": ["strategy", "param"],
    "strategy_chart": ["seats"],
    "solve": ["seats"],
    "advise": ["hand"],
    "load": ["path"],
}
KEYWORDS = {
    "play": ["file", "rules", "rule", "deals", "games", "seed", "name", "force", "rows",
             "precision", "max_count", "duplicate", "headline", "chunk_size", "resume", "out",
             "executor", "progress"],
    "compare": ["rules", "vs_rules", "rule", "vs_rule", "label", "vs_label", "deals", "games",
                "seed", "duplicate", "out", "executor", "progress"],
    "experiment": ["out", "executor", "progress", "count", "seed", "duplicate", "precision",
                   "headline", "rows"],
    "sweep": ["rules", "rule", "deals", "games", "seed", "duplicate", "headline", "precision",
              "max_count", "name", "force", "rows", "chunk_size", "out", "executor", "progress"],
    "tournament": ["rules", "rule", "deals", "games", "chart", "seed", "out", "executor",
                   "progress"],
    "tune": ["against", "rules", "rule", "deals", "games", "duplicate", "max_evals", "search",
             "confirm", "config", "resume", "seed", "chart", "out", "executor", "progress"],
    "strategy_chart": ["kind", "rules", "deals", "seed", "out", "executor", "progress",
                       "samples", "turns", "took"],
    # not rounds: a misuse that is a fair value (5) would play five rounds
    "solve": ["rules", "rule", "players", "against", "average", "deals", "samples", "check",
              "check_deals", "seed", "name", "out", "executor", "progress"],
    "advise": ["rules", "rule", "pile", "samples", "seed", "stock", "turn", "seat", "took",
               "discarded", "rebuilds", "scores", "dealer", "upcard", "just_took",
               "upcard_option", "time", "model", "knock_at", "throw_for_gin", "opponents"],
    "load": [],
}  # fmt: skip

MISUSES = st.sampled_from(
    [None, 0, 1, -1, 5, 2**70, 1.5, math.nan, math.inf, "", " ", "x", "nosuch/simple",
     "5", [], [1], ["x"], ("greedy", 3), {}, {"k": 1}, {"k": "1..2"}, True, b"x", object(),
     "k=1..2", 201, {1: 5}, {1: "7H"}]
)  # fmt: skip
# a misspelt keyword: every function names it and the keywords allowed (a UsageError, a
# ValueError, as for any other misuse: never Python's TypeError)
ONE_OF = st.sampled_from(
    [(f, p) for f in VALID for p in POSITIONAL[f] + KEYWORDS[f]] + [(f, "deels") for f in VALID]
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder to work in (an ``out`` of "x" lands there) and a run for ``load``."""
    where = tmp_path_factory.mktemp("misuse")
    with contextlib.chdir(where):
        played = rummy.play("greedy/simple", deals=200, seed=1, out="loaded", progress=False)
    VALID["load"] = ((str(played.directory),), {})
    return where


FRESH = itertools.count()


def _call(function: str, parameter: str, value: Any) -> Callable[[], Any]:
    args, keywords = VALID[function]
    args, keywords = list(args), dict(keywords)
    if function not in ("advise", "load"):  # a folder per call: no study meets another
        keywords["out"] = f"results-{next(FRESH)}"
    names = POSITIONAL[function]
    if parameter in names:
        args[names.index(parameter)] = value
    else:
        keywords[parameter] = value
    return lambda: getattr(rummy, function)(*args, **keywords)


def _check(function: str, parameter: str, value: Any) -> None:
    try:
        _call(function, parameter, value)()
    except rummy.UsageError as error:
        line = str(error)
        assert "\n" not in line and line.strip(), line
        named = (f"{parameter}=", f"'{parameter}'", f"{parameter}:", f"{parameter} =")
        assert any(n in line for n in named), f"{function}({parameter}={value!r}): {line}"
        assert isinstance(error, ValueError)


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    with contextlib.chdir(folder):
        yield


def _fuzz(workspace: Path, examples: int, derandomize: bool) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=derandomize,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(ONE_OF, MISUSES)
    def one(case: tuple[str, str], value: Any) -> None:
        _check(*case, value)

    with _inside(workspace):
        one()


def test_the_reported_misuses_are_one_line_naming_the_parameter(workspace: Path) -> None:
    """The cases issue 39 found, each refused by name (they were TypeError,
    AttributeError, or a silent self-comparison)."""
    with _inside(workspace):
        for function, parameter, value, says in [
            ("play", "seats", 5, "seats=5: give text"),
            ("play", "executor", "ray", "executor='ray': give a rummy.Executor"),
            ("play", "deals", 0, "deals=0: give a whole number 1.."),
            ("play", "name", 5, "name=5: give text"),
            ("advise", "pile", None, "pile=None"),
            ("advise", "hand", 5, "hand=5: give text"),  # never read as a card mask
            ("sweep", "grid", "k=1..2", "grid='k=1..2': give a dict"),
            ("compare", "vs_seats", None, "vs_seats=None, vs_rules=None, vs_rule=None: none given"),
            ("compare", "vs_seats", "greedy,simple", "both sides are the same"),
            ("experiment", "deels", 100, "unknown keyword 'deels'; its keywords: "),
            ("tune", "bogus", 1, "unexpected keyword argument 'bogus'; its keywords: strategy"),
            ("tune", "param", ["k"], "param=['k']: 'k': write name=values"),
            ("strategy_chart", "kind", 5, "kind=5: choose one of: knock, draw, discard"),
        ]:
            with pytest.raises(rummy.UsageError) as caught:
                _call(function, parameter, value)()
            assert says in str(caught.value) and "--" not in str(caught.value), caught.value


def test_wrong_types_and_values_are_one_line_naming_the_parameter(workspace: Path) -> None:
    """A derandomized slice of the misuses: fast, the same every run."""
    _fuzz(workspace, examples=40, derandomize=True)


@pytest.mark.slow
def test_wrong_types_and_values_many_more(workspace: Path) -> None:
    _fuzz(workspace, examples=600, derandomize=False)


@pytest.mark.parametrize("function", sorted(VALID))
def test_a_misspelt_missing_or_extra_argument_is_a_value_error(
    workspace: Path, function: str
) -> None:
    """Python would raise a TypeError: the notebook names the keyword and those allowed."""
    with _inside(workspace):
        _check(function, "deels", 3)
        # play's, compare's, sweep's and tune's every parameter has a default: called bare,
        # they say what is missing (a line-up or a file; side B's parameters; the line-up
        # template; the strategy)
        missing = rf"^{function}\(\): missing a required"
        if function in ("play", "compare", "sweep", "tune"):
            missing = "none given; give|give a line-up template|give the strategy to tune"
        if function not in ("strategy_chart", "solve"):  # bare: greedy's, as the command's
            with pytest.raises(rummy.UsageError, match=missing):
                getattr(rummy, function)()
        args, _ = VALID[function]
        with pytest.raises(rummy.UsageError, match="too many positional arguments"):
            getattr(rummy, function)(*args, *[None] * 20)
