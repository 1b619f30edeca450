"""The draw chart's card classes the plain way (``kernels.chart.draw_class``'s twin):
used by the chart twin (``tests/sim/study/test_chart.py``) and the chart strategy's twin
(``strategies_ref.ChartRef``)."""

from __future__ import annotations

from kernels import chart as K
from kernels.layout import R_DISCARD_TAKEN_CARD
from tests.reference import mc_ref
from tests.reference import strategies_ref as S


def draw_class_ref(obs, hand: int, top: int) -> int:
    """What taking ``top`` does for ``hand``: the first of meld, pair, near run (a card
    of its suit in one 3-card run shape with it), lower least deadwood by 1-3, 4-6,
    7+, nothing (``kernels.chart.DRAW_*``)."""
    if mc_ref.melds_with(obs, hand, top):
        return K.DRAW_MELD
    held = [c for c in S.cards_of(hand) if c < 52]
    if top < 52:
        rank, suit = top % 13, top // 13
        if any(c % 13 == rank for c in held):
            return K.DRAW_PAIR
        near = S.near_ranks(obs.rules, rank)
        if any(c // 13 == suit and c % 13 in near for c in held):
            return K.DRAW_NEAR_RUN
    forbidden = top if obs.rules[R_DISCARD_TAKEN_CARD] == 0 else None
    _, after = S.best_discard(obs, hand | (1 << top), forbidden)
    lower = S.min_deadwood(hand, obs) - after
    if lower >= 7:
        return K.DRAW_LOWER_7
    if lower >= 4:
        return K.DRAW_LOWER_4
    return K.DRAW_LOWER_1 if lower >= 1 else K.DRAW_NOTHING
