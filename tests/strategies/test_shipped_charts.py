"""The chart strategy's seats shipped under ``docs/charts/`` (the solved charts of
docs/CHARTS.md, "Shipped charts"): each parses as a ``chart`` seat and plays whole deals
of its rules and player count, differently from the default chart (so its masks are
read)."""

from __future__ import annotations

import pytest

from sim.engine import play_deals
from sim.rules import get_rules
from strategies import parse_seat
from tests.support import ROOT

SHIPPED = {
    "gin.chart": ("gin", 2),
    "gin_lookahead.chart": ("gin", 2),
    "gin_plain.chart": ("gin", 2),
    "gin_classic.chart": ("gin-classic", 2),
    "oklahoma.chart": ("oklahoma-gin", 2),
    "knock_rummy_2p.chart": ("knock-rummy", 2),
    "knock_rummy_4p.chart": ("knock-rummy", 4),
    "knock_rummy_6p.chart": ("knock-rummy", 6),
}


def test_every_shipped_seat_is_listed() -> None:
    assert sorted(p.name for p in (ROOT / "docs" / "charts").glob("*.chart")) == sorted(SHIPPED)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_seat_plays_its_rules(name: str) -> None:
    preset, players = SHIPPED[name]
    spec = (ROOT / "docs" / "charts" / name).read_text().strip()
    strategy, _ = parse_seat(spec)
    assert strategy.name == "chart"
    rest = "/greedy" * (players - 1)
    rules = get_rules(preset, players=players)
    shipped = play_deals(rules, spec + rest, deals=500, seed=3)
    default = play_deals(rules, "chart" + rest, deals=500, seed=3)
    assert len(shipped.knocker) == 500
    assert list(shipped.points.ravel()) != list(default.points.ravel())
