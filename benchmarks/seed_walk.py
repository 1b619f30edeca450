"""The walk of a seed from the command line to the engine: which of our functions it
passes through, in which modules, how often it climbs back up the stack on its way.

Runs one small ``rummy run`` in this process under ``sys.setprofile`` and follows every
call of a function of this project (``sim``, ``kernels``, ``strategies``, ``rummy``)
that is handed the seed: an argument (not ``self``: a method of an object that holds
the seed is not handed it) equal to it, or holding it one level down (a container's
item, an object's ``seed`` attribute). The seed is a number no other value
of the run takes. Prints the calls in order (indented by their depth), then:

- ``calls``: calls handed the seed;
- ``modules``: the distinct modules among them;
- ``climbs``: calls that come after a shallower one's return, i.e. the walk went back up
  before it went down again (a seed handed straight down climbs 0 times);
- ``store``: calls in ``sim/store.py``;
- the same counts for the walk ``to the engine``: its calls up to the first one in
  ``sim.engine`` (the issue's "walk of a seed from the CLI to the engine"); the rest
  records and reads back what the run wrote.

Usage (compare two checkouts by putting each first on the path)::

    python benchmarks/seed_walk.py
    PYTHONPATH=/path/to/other/checkout python benchmarks/seed_walk.py --quiet
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import Any

SEED = 918_273_645_123  # no count, size or id of the run is this number
PACKAGES = ("sim", "kernels", "strategies", "rummy")


def _holds(value: Any, depth: int = 1) -> bool:
    """Whether ``value`` is the seed, or holds it ``depth`` levels down."""
    if type(value) is int:
        return bool(value == SEED)
    if depth == 0:
        return False
    return any(_holds(v, depth - 1) for v in _parts(value))


def _parts(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        yield from value.values()
    elif isinstance(value, list | tuple):
        yield from value[:64]
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        yield getattr(value, "seed", None)
    elif hasattr(value, "__dict__") and "seed" in getattr(value, "__dict__", {}):
        yield value.__dict__["seed"]


def _ours(module: str) -> bool:
    return module.split(".")[0] in PACKAGES


def walk(args: list[str]) -> list[tuple[int, str, str]]:
    """(depth, module, function) of each call handed the seed, in order."""
    from typer.testing import CliRunner

    from sim.cli import app

    found: list[tuple[int, str, str]] = []
    stack = threading.local()  # each thread's depth (the chunks play on worker threads)

    def profile(frame: Any, event: str, _: Any) -> None:
        depth = getattr(stack, "depth", 0)
        if event == "call":
            stack.depth = depth = depth + 1
            module = frame.f_globals.get("__name__", "")
            if _ours(module):
                code = frame.f_code
                names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
                handed = [n for n in names if n not in ("self", "cls")]  # not its own
                if any(_holds(frame.f_locals.get(n)) for n in handed):
                    found.append((depth, module, code.co_qualname))
        elif event == "return":
            stack.depth = depth - 1

    runner = CliRunner()
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        result = runner.invoke(app, args)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    if result.exit_code != 0:
        raise SystemExit(f"the run failed: {result.output}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", action="store_true", help="only the counts")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as out:
        args = ["run", "--rules", "gin", "--seats", "greedy/simple", "--deals", "200",
                "--seed", str(SEED), "--workers", "1", "--out", out, "--json"]  # fmt: skip
        calls = walk(args)
    if not options.quiet:
        for d, module, name in calls:
            print(f"{'  ' * min(d, 40)}{module}.{name}")
    engine = next(i for i, (_, module, _) in enumerate(calls) if module == "sim.engine")
    print(f"whole walk: {_counts(calls)}")
    print(f"to the engine: {_counts(calls[: engine + 1])}")


def _counts(calls: list[tuple[int, str, str]]) -> str:
    climbs = sum(1 for a, b in zip(calls, calls[1:], strict=False) if b[0] <= a[0])
    return (f"calls {len(calls)}, modules {len({m for _, m, _ in calls})}, climbs {climbs}, "
            f"store {sum(m == 'sim.store' for _, m, _ in calls)}")  # fmt: skip


if __name__ == "__main__":
    main()
