"""One grammar for the values a study sweeps: grids, sweeps and tuned parameters.

``lo..hi`` (step 1), ``lo..hi:step``, or a list ``a,b,c``. In a range the bounds and
the step may be fractions (``0..1:0.125``): a range of whole numbers gives integers,
any fraction makes every value a float (rounded off its binary noise: ``0.1 * 3`` is
0.3). A list item is an integer, else a float, else text (``rule.ace=low,around``).
A ``kind`` ("int" or "float") asks for that type: a fraction where a whole number is
needed is refused. The same grammar reads experiment files' ``[grid]``,
``rummy sweep --grid`` and ``rummy tune --param``.

A range or list of more values than ``limit`` is refused before it is listed, and a
value given twice is refused: every error is one line (:class:`GridError`) that the
caller prefixes with where the text came from.
"""

from __future__ import annotations

import math
import re
from typing import Literal

__all__ = ["GridError", "Kind", "Value", "parse_values"]

Kind = Literal["int", "float"] | None
Value = int | float | str

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"^\s*({_NUMBER})\s*\.\.\s*({_NUMBER})\s*(?::\s*({_NUMBER})\s*)?$")


class GridError(ValueError):
    """Grid values that cannot be read (one line, without saying where from)."""


def _clean(value: float) -> float:
    """A float value off its binary noise (``0.30000000000000004`` is 0.3), no -0.0."""
    return float(round(value, 10)) + 0.0


def _number(text: str, kind: Kind) -> int | float:
    text = text.strip()
    if kind != "float":
        try:
            return int(text)
        except ValueError:
            if kind == "int":
                raise GridError(f"{text!r} is not a whole number") from None
    try:
        value = float(text)
    except ValueError:
        raise GridError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise GridError(f"{text!r} is not finite")
    return value


def _too_many(text: str, n: int, limit: int) -> GridError:
    shown = repr(text[:40]) + ("..." if len(text) > 40 else "")
    return GridError(f"{shown} has {n:,} values; at most {limit:,} are allowed")


def parse_values(text: str, *, kind: Kind = None, limit: int) -> list[Value]:
    """The values ``text`` names, in order (see the module docstring).

    Raises
    ------
    GridError
        A malformed or empty range, a step that is not > 0, a value of the wrong type,
        an empty item, a value listed twice, or more than ``limit`` values.
    """
    text = text.strip()
    match = _RANGE.match(text)
    if match:
        bounds = [_number(match.group(i), kind) for i in (1, 2)]
        step = _number(match.group(3), kind) if match.group(3) else 1
        if not step > 0:
            raise GridError(f"the step must be > 0, got {match.group(3).strip()}")
        low, high = bounds
        if high < low:
            raise GridError(f"the range {text!r} is empty; write low..high with low <= high")
        whole = kind != "float" and all(isinstance(x, int) for x in (low, high, step))
        count = (high - low) // step + 1 if whole else math.floor((high - low) / step + 1e-9) + 1
        if count > limit:
            raise _too_many(text, int(count), limit)
        if whole:
            return list(range(int(low), int(high) + 1, int(step)))
        return [_clean(low + i * step) for i in range(int(count))]
    if ".." in text:
        raise GridError(f"bad range {text!r}; write low..high or low..high:step (e.g. 0..1:0.1)")
    items = text.split(",")
    if len(items) > limit:
        raise _too_many(text, len(items), limit)
    values: list[Value] = []
    seen: set[tuple[type, Value]] = set()
    for item in items:
        if not item.strip():
            raise GridError(f"empty value in {text!r}; separate values with commas")
        try:
            value: Value = _number(item, kind)
            if isinstance(value, float):
                value = _clean(value)
        except GridError:
            if kind is not None:
                raise
            value = item.strip()  # text, such as a rule's choice
        if (type(value), value) in seen:
            raise GridError(f"{value} is listed twice")
        seen.add((type(value), value))
        values.append(value)
    return values
