"""No default is stated twice: a default a user sees (a command's option, a notebook
function's keyword) is one named value, read by the command, the notebook and the code
they call, never the same literal written again in two places (where a change to one
would leave the other behind).

The test reads the sources (no import): every parameter default and dataclass field
default in sim/, rummy/ and strategies/ that is written as a literal, keyed by
(parameter name, value). A key written at a front door (sim/cli/, rummy/api.py) and again
anywhere else is a default stated twice. None, a bool, 0, "" and -1 (a knob's "chosen
from the rules") say "nothing chosen", not a choice, and are not counted.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "rummy", "strategies")
FRONT_DOORS = ("sim/cli/", "rummy/api.py")


def _literal(node: ast.expr) -> object | None:
    """The default's value when it is written as a literal (``Path("x")``, ``-5`` too)
    and is a choice (not None, a bool, 0, "" or -1)."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Path" and node.args:
        node = node.args[0]
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node, sign = node.operand, -1
    if not isinstance(node, ast.Constant):
        return None
    value = node.value if sign == 1 else -node.value
    if value is None or isinstance(value, bool) or value in (0, "", -1):
        return None
    return value


def _defaults(tree: ast.AST) -> list[tuple[str, ast.expr]]:
    found: list[tuple[str, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            positional = (args.posonlyargs + args.args)[
                len(args.posonlyargs + args.args) - len(args.defaults) :
            ]
            found += [(a.arg, d) for a, d in zip(positional, args.defaults, strict=True)]
            found += [
                (a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d
            ]
        elif isinstance(node, ast.ClassDef):
            found += [
                (s.target.id, s.value)
                for s in node.body
                if isinstance(s, ast.AnnAssign) and s.value and isinstance(s.target, ast.Name)
            ]
    return found


def stated_defaults() -> dict[tuple[str, object], list[str]]:
    """(parameter, literal value) -> every place it is written, as ``path:line``."""
    places: dict[tuple[str, object], list[str]] = defaultdict(list)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            for name, node in _defaults(ast.parse(path.read_text(), where)):
                value = _literal(node)
                if value is not None:
                    places[(name, value)].append(f"{where}:{node.lineno}")
    return places


def test_no_default_a_user_sees_is_stated_twice() -> None:
    twice = {
        key: where
        for key, where in stated_defaults().items()
        if len(where) > 1 and any(w.startswith(FRONT_DOORS) for w in where)
    }
    assert not twice, "\n".join(f"{k[0]}={k[1]!r}: {', '.join(w)}" for k, w in twice.items())


def test_the_collector_finds_a_default_written_twice() -> None:
    source = 'def a(deals: int = 5, name=Path("x"), low=-5, seed=None, on=True, at=-1, p=""): ...\n'
    values = [(name, _literal(node)) for name, node in _defaults(ast.parse(source * 2))]
    assert values.count(("deals", 5)) == values.count(("name", "x")) == 2
    assert values.count(("low", -5)) == 2
    assert {value for name, value in values if name in ("seed", "on", "at", "p")} == {None}
