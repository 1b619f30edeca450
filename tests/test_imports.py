"""The package direction holds: no import circles, no private names across modules,
and no arrow against the layers (``sim/study/__init__.py``, docs/PYTHON.md's layout).

The graph is read from the sources (every ``import``, at any depth, ``TYPE_CHECKING``
blocks included), so a lazy import inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import ROOT

PACKAGES = ("sim", "kernels", "strategies")
# (importer prefix, imported prefix): arrows that point up the layers. Kernels are pure
# Numba; a driver returns data (present draws it); statistics and the play API stand
# below the study layer.
FORBIDDEN = (
    ("kernels", "sim"),
    ("kernels", "strategies"),
    ("sim.study", "sim.present"),
    ("sim.study", "sim.cli"),
    ("sim.stats", "sim.study"),
    ("sim.stats", "sim.present"),
    *((f"sim.{m}", "sim.study") for m in ("engine", "advise", "solver", "replay", "showdown")),
)


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> Iterator[tuple[str, str]]:
    """``(module imported, name taken from it or "")`` for every import in ``path``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ""
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield (full, "") if full in modules else (base, alias.name)


def _owner(target: str, modules: dict[str, Path]) -> str | None:
    """The project module ``target`` names (a submodule's parent when it is not one)."""
    while target and target not in modules:
        target = target.rpartition(".")[0]
    return target or None


def graph(root: Path = ROOT) -> tuple[dict[str, set[str]], list[str]]:
    """Module -> project modules it imports; and every private name taken across modules."""
    modules = _modules(root)
    edges: dict[str, set[str]] = {m: set() for m in modules}
    private = []
    for name, path in modules.items():
        for target, taken in _imports(name, path, modules):
            owner = _owner(target, modules)
            if owner is None or owner == name:
                continue
            edges[name].add(owner)
            if taken.startswith("_") and not taken.startswith("__"):
                private.append(f"{name} imports {owner}.{taken}")
    return edges, private


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while (w := stack.pop()) != v:
                group.append(w)
            if group:
                found.append(sorted([v, *group]))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


@pytest.fixture(scope="module")
def project() -> tuple[dict[str, set[str]], list[str]]:
    return graph()


def test_no_import_circles(project) -> None:
    assert circles(project[0]) == []


def test_no_private_names_across_modules(project) -> None:
    assert project[1] == []


def test_no_arrow_up_the_layers(project) -> None:
    against = [
        f"{m} -> {t}"
        for m, targets in project[0].items()
        for t in targets
        for low, high in FORBIDDEN
        if _within(m, low) and _within(t, high)
    ]
    assert against == []


def test_the_checks_see_what_they_look_for(tmp_path) -> None:
    """A circle, a private import and an arrow up, planted in a small tree, are found."""
    for name, text in {
        "sim/__init__.py": "",
        "sim/a.py": "from sim import b\n",
        "sim/b.py": "def f():\n    from sim.a import _hidden\n",
        "sim/stats/__init__.py": "",
        "sim/stats/c.py": "from sim.study import d\n",
        "sim/study/__init__.py": "",
        "sim/study/d.py": "",
        "kernels/__init__.py": "",
        "strategies/__init__.py": "",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    edges, private = graph(tmp_path)
    assert circles(edges) == [["sim.a", "sim.b"]]
    assert private == ["sim.b imports sim.a._hidden"]
    assert "sim.study.d" in edges["sim.stats.c"]
