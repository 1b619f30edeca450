"""The chart strategy's seats shipped in the package (``strategies/charts/NAME.chart``,
the solved charts of docs/CHARTS.md, "Shipped charts"): each seats by name, carries
the header of the rules it was solved under, and plays whole deals of those rules and
player count, differently from the default chart (so its masks are read)."""

from __future__ import annotations

from typing import Any

import pytest

from sim.engine import play_deals
from sim.rules import get_rules, house_rules
from strategies import parse_seat, seat_label
from strategies.chart_files import chart_file_text, read_chart_text, shipped_chart, shipped_names
from tests.support import ROOT

# name -> (preset, players, house rules) each was solved under (docs/CHARTS.md, "Shipped charts")
SHIPPED: dict[str, tuple[str, int, dict[str, Any]]] = {
    "gin": ("gin", 2, {}),
    "gin-lookahead": ("gin", 2, {}),
    "gin-plain": ("gin", 2, {}),
    "gin-classic": ("gin-classic", 2, {}),
    "oklahoma-gin": ("oklahoma-gin", 2, {}),
    **{f"knock-rummy-{n}p": ("knock-rummy", n, {}) for n in range(2, 7)},
    "knock-rummy-4p-undercut-0": ("knock-rummy", 4, {"undercut_penalty": 0}),
    "knock-rummy-4p-undercut-25": ("knock-rummy", 4, {"undercut_penalty": 25}),
    "knock-rummy-4p-each-lower": ("knock-rummy", 4, {"penalty_to": "each_lower"}),
}


def test_every_shipped_seat_is_listed() -> None:
    assert shipped_names() == tuple(sorted(SHIPPED))
    folder = ROOT / "strategies" / "charts"
    assert sorted(p.stem for p in folder.glob("*.chart")) == sorted(SHIPPED)
    assert not list((ROOT / "docs" / "charts").glob("*.chart"))  # moved into the package


def test_the_package_data_is_declared() -> None:
    """A plain (not editable) install carries the charts: pyproject.toml says so."""
    text = (ROOT / "pyproject.toml").read_text()
    assert '[tool.setuptools.package-data]\nstrategies = ["charts/*.chart"]' in text


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_header_names_its_rules(name: str) -> None:
    preset, players, house = SHIPPED[name]
    chart = shipped_chart(name)
    rules = get_rules(preset, players=players, **house)
    assert house_rules(rules) == house
    reached = chart.header.get("reached")  # the solve's, not the rules'
    written = read_chart_text(
        chart_file_text(chart.spec, rules, house, None if reached is None else int(reached)), "x"
    )
    assert dict(written.header) == dict(chart.header)  # the header of exactly these rules
    assert parse_seat(f"chart:{name}", rules=rules) == parse_seat(chart.spec)
    assert seat_label(f"chart:{name}") == f"chart:{name}"


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_seat_plays_its_rules(name: str) -> None:
    preset, players, house = SHIPPED[name]
    strategy, _ = parse_seat(f"chart:{name}")
    assert strategy.name == "chart"
    rest = "/greedy" * (players - 1)
    rules = get_rules(preset, players=players, **house)
    shipped = play_deals(rules, f"chart:{name}" + rest, deals=500, seed=3)
    default = play_deals(rules, "chart" + rest, deals=500, seed=3)
    assert len(shipped.knocker) == 500
    assert list(shipped.points.ravel()) != list(default.points.ravel())
