"""What a strategy is: :class:`Strategy` (name, description, parameters, three numba
hooks) and :class:`StrategyError`. The built-in strategies import it from here, and
``strategies`` (the registry) imports them: no module imports the package it is in."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from numba.core.dispatcher import Dispatcher

from kernels.link import Piece, Socket
from kernels.obs import N_PARAMS
from kernels.slots import param_slots

__all__ = [
    "MASK_LIMIT", "PARAM_LIMIT", "Bounds", "Strategy", "StrategyError", "choose", "param_bounds",
    "param_slots",
]  # fmt: skip

Bounds = Mapping[str, tuple[float | None, float | None]]


class StrategyError(ValueError):
    """An unknown strategy or parameter, a bad value, or a broken plugin."""


def choose(names: Iterable[str]) -> str:
    return ", ".join(names)


@dataclass(frozen=True)
class Strategy:
    """One strategy: its name, description, parameters and numba hooks.

    Attributes
    ----------
    name : str
        The name used on the command line (``greedy``); unique in the registry.
    description : str
        Plain words: what the strategy does. The first line is its summary.
    params : type[NamedTuple]
        The parameter type; its defaults are the strategy's defaults. Every field
        has an int or float default; at most ``N_PARAMS`` fields.
    take_nb, discard_nb, knock_nb : numba dispatchers or pieces
        The hooks, with the signatures of ``kernels/obs.py``. A hook that is a piece
        (``kernels/link.py``) compiles once, on its own, and the engine calls it through
        a slot (an indirect call) instead of compiling it into every engine: right for
        hooks whose work dwarfs the call (``mc``'s search, the chart's look-ahead,
        ``advice``, ``defensive``). A plain ``@njit`` hook is compiled into the loop:
        right for small, fast hooks (``greedy``, ``simple``, ``random``), where the
        call through a slot costs more than the decision (docs/ENGINE.md).
    module : str
        The module that defines the strategy (for metadata and error messages).
    bounds : mapping, optional
        ``field -> (low, high)`` inclusive limits (None: open) checked when a seat
        is parsed; not part of equality.
    masks : frozenset of str, optional
        Fields that are bit masks (whole numbers whose bits the hooks test, never
        add): their bounds may reach ``MASK_LIMIT`` instead of ``PARAM_LIMIT``.
    specs : mapping, optional
        ``field -> words``: fields whose value is a seat spec (text; ``""``: none), or
        one of the words (``mc``'s ``opponents=known``); the default is ``""`` or a
        word. The hooks cannot read text: their row holds 0 for ``""`` and -1 for
        anything else until a study binds the field (``sim/rollouts.py`` writes a
        handle there, or 0).
    turn_word : int, optional
        The scratch word where the hooks count the seat's own turns this hand (the
        chart, advice), -1 none: a rollout that starts in mid-hand sets it there
        (``kernels.mc.start_action``), the rest of the hand's memory zeroed.
    decides_slowly : bool, optional
        A decision takes milliseconds, not nanoseconds (``mc``'s search, an agent's
        other program): a run seating it plays smaller chunks (``sim.sizes``).
    """

    name: str
    description: str
    params: type[NamedTuple]
    take_nb: Any
    discard_nb: Any
    knock_nb: Any
    module: str
    bounds: Bounds = field(default_factory=dict, compare=False, hash=False)
    masks: frozenset[str] = field(default_factory=frozenset, compare=False, hash=False)
    specs: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False, hash=False)
    turn_word: int = field(default=-1, compare=False, hash=False)
    decides_slowly: bool = field(default=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        where = f"strategy {self.name!r} ({self.module})"
        if (
            not isinstance(self.name, str)
            or not self.name
            or any(ch in self.name for ch in ":/,= \t")
        ):
            raise StrategyError(
                f"{where}: the name must be non-empty text without ':', '/', ',', '=' or spaces"
            )
        if not isinstance(self.description, str) or not self.description.strip():
            raise StrategyError(f"{where}: the description must be non-empty text")
        fields = getattr(self.params, "_fields", None)
        is_class = isinstance(self.params, type) and issubclass(self.params, tuple)
        if not is_class or fields is None:
            raise StrategyError(f"{where}: params must be a NamedTuple class")
        if len(fields) > N_PARAMS:
            raise StrategyError(
                f"{where}: {len(fields)} parameters, at most {N_PARAMS} are allowed"
            )
        defaults = self.params._field_defaults
        for name in fields:
            if name not in defaults:
                raise StrategyError(f"{where}: parameter {name!r} has no default")
            value = defaults[name]
            if name in self.specs:
                if value != "" and value not in self.specs[name]:
                    raise StrategyError(
                        f"{where}: spec parameter {name!r} must default to '' or one of its words"
                    )
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise StrategyError(
                    f"{where}: parameter {name!r} must default to an int or a float, got {value!r}"
                )
        for hook in ("take_nb", "discard_nb", "knock_nb"):
            if not isinstance(getattr(self, hook), (Dispatcher, Piece, Socket)):
                raise StrategyError(f"{where}: {hook} must be an @njit function (or a piece)")
        for name in [*self.bounds, *self.masks, *self.specs]:
            if name not in fields:
                raise StrategyError(f"{where}: bounds name an unknown parameter {name!r}")

    @property
    def summary(self) -> str:
        """The first line of the description."""
        return self.description.strip().splitlines()[0].strip()

    def defaults(self) -> NamedTuple:
        """The default parameters (an instance of ``params``)."""
        return self.params._make(self.params._field_defaults[f] for f in self.params._fields)

    def parameters(self) -> dict[str, dict[str, Any]]:
        """Every parameter: its type name, default and bounds, in declaration order."""
        out: dict[str, dict[str, Any]] = {}
        for name, value in self.params._field_defaults.items():
            if name in self.specs:
                out[name] = {"type": "spec", "default": value, "words": list(self.specs[name])}
                continue
            low, high = param_bounds(self, name)
            out[name] = {
                "type": "int" if isinstance(value, int) else "float",
                "default": value,
                "min": low,
                "max": high,
            }
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description (``rummy strategies show --json``)."""
        return {
            "name": self.name,
            "summary": self.summary,
            "description": self.description.strip(),
            "module": self.module,
            "parameters": self.parameters(),
        }


PARAM_LIMIT = 1_000_000
"""Every parameter lies within +-PARAM_LIMIT, whatever bounds its strategy declares:
hooks read int parameters back from float64 (exact far beyond this) and add them to
deadwood and point counts, which then stay far inside int64."""

MASK_LIMIT = 2**52 - 1
"""A bit-mask field (``Strategy.masks``) lies within 0..MASK_LIMIT: 52 bits, every one
exact in the float64 parameter vector; hooks test its bits and never add it."""


def param_bounds(strategy: Strategy, name: str) -> tuple[float, float]:
    """The inclusive range a parameter may take: its declared bounds within the limit."""
    low, high = strategy.bounds.get(name, (None, None))
    if name in strategy.masks:
        low = 0 if low is None else max(low, 0)
        return low, MASK_LIMIT if high is None else min(high, MASK_LIMIT)
    low = -PARAM_LIMIT if low is None else max(low, -PARAM_LIMIT)
    high = PARAM_LIMIT if high is None else min(high, PARAM_LIMIT)
    return low, high
