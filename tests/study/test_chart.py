"""The strategy charts: their kernel against a pure-Python twin, and a chart as a study.

The twin plays each deal with the reference engine (``tests/reference/engine_ref.py``,
its own event log), keeps the focal seat's view by hand and finds the positions with
the reference solver: for the knock chart where a knock is legal, scored with
``mc_ref.evaluate`` as knock with the best discard or discard it and play on; for the
draw chart every draw with a card on the pile (not the upcard option), classed by what
the card does (written here the plain way) and scored as take or draw. Sample by
sample as ``kernels.mc.evaluate`` does: every position the kernel scores must be the
twin's, with the same gain in exact units and the same hand wins.
"""

from __future__ import annotations

import shutil

import numpy as np
import polars as pl
import pytest

from kernels import chart as K
from kernels.layout import POINT_SCALE, R_DISCARD_TAKEN_CARD
from kernels.obs import PHASE_DISCARD, PHASE_DRAW
from sim.engine import key_of
from sim.rules import get_rules
from sim.stats import mean_ci
from sim.study.chart import knock_chart, load_chart, summarize_cells
from sim.study.chart_cells import ChartSpec, cell_sums, score_deals
from sim.study.rundir import load_cells
from sim.study.runs import RunError
from tests.reference import mc_ref, rng_ref
from tests.reference import strategies_ref as S
from tests.reference.draw_class_ref import draw_class_ref
from tests.reference.engine_ref import play_hand_ref
from tests.support.twins import ref_lineup

M64 = (1 << 64) - 1


# --- the twin ------------------------------------------------------------------------


def position_key_ref(seed: int, number: int, own_turn: int, kind: int = K.CHART_KNOCK) -> int:
    ckey = rng_ref.random64(int(key_of(seed)), K.CHART_SALT + kind)
    return rng_ref.mix64((rng_ref.mix64(ckey ^ ((number * rng_ref.GOLDEN) & M64)) + own_turn) & M64)


def interested_ref(rule_row, taken: int, card: int) -> bool:
    """The next seat took (and holds) a card of ``card``'s rank or of its suit in one
    3-card run shape with it (any taken card, for a joker)."""
    held = S.cards_of(taken)
    if card >= 52:
        return bool(held)
    rank, suit = card % 13, card // 13
    near = S.near_ranks(rule_row, rank)
    return any(c < 52 and (c % 13 == rank or (c // 13 == suit and c % 13 in near)) for c in held)


def positions_ref(rules, spec: str, seed: int, deals: int, chart: ChartSpec) -> list[tuple]:
    """Every position of deals 0 .. deals-1, scored: (deal, own turn, column, took,
    gain in units, first action's wins, second's wins, card), as the kernel's rows."""
    strategies, params = ref_lineup(rules, spec)
    players = rules.players
    units = (players - 1) * POINT_SCALE
    rule_row = [int(v) for v in rules.compile()]
    out = []
    for number in range(deals):
        record = play_hand_ref(rules, int(key_of(seed)), number, strategies, params, log=True)
        hands: list[set[int]] = [set() for _ in range(players)]
        taken = [0] * players
        discarded = [0] * players
        pile: list[int] = []
        stock_n = rebuilds = rebuilt = turn = own_turn = took = 0
        upcard = -1
        pending = None  # discard chart: (card, own turn, interest) until the next seat draws
        for event in record["events"]:
            kind = event[0]
            if kind == "deal":
                hands = [set(h) for h in event[1]]
                upcard = event[2]
                pile = [upcard]
                stock_n = 52 + rules.jokers - players * rules.cards_per_hand - 1
            elif kind == "rebuild":
                stock_n = len(event[2])
                rebuilds += 1
                rebuilt = sum(1 << c for c in event[2])
                pile = pile[-1:]
            elif kind == "discard":
                _, seat, card = event
                hands[seat].discard(card)
                taken[seat] &= ~(1 << card)
                discarded[seat] |= 1 << card
                pile.append(card)
                if chart.chart == "discard" and seat == chart.focal:
                    nxt = (seat + 1) % players
                    pending = (card, own_turn, int(interested_ref(rule_row, taken[nxt], card)))
            elif kind == "draw":
                _, seat, card, where = event
                if pending is not None and seat == (chart.focal + 1) % players:
                    thrown, at_turn, interest = pending
                    took_it = where == "pile" and card == thrown
                    saved = 0
                    if took_it:  # the next seat's saving: the solver reads only the rules
                        view = S.RefObs(
                            seat=seat, players=players, hand=0, pile=[], taken=[0] * players,
                            discarded=[0] * players, stock_n=0, rebuilds=0, rebuilt=0,
                            turn=0, phase=PHASE_DRAW, upcard=upcard, drawn=-1,
                            from_pile=False, dealer=players - 1, rules=rule_row,
                        )  # fmt: skip
                        hand = sum(1 << c for c in hands[seat])
                        forbidden = card if rule_row[R_DISCARD_TAKEN_CARD] == 0 else None
                        _, after = S.best_discard(view, hand | (1 << card), forbidden)
                        saved = S.min_deadwood(hand, view) - after
                    column = 13 if thrown >= 52 else thrown % 13
                    out.append((number, at_turn, column, interest, saved, int(took_it),
                                int(not took_it), thrown))  # fmt: skip
                    pending = None
                if seat == chart.focal:
                    own_turn += 1
                option_turn = rules.upcard_option and turn == 0
                if chart.chart == "draw" and seat == chart.focal and pile and not option_turn:
                    obs = S.RefObs(
                        seat=seat, players=players, hand=sum(1 << c for c in hands[seat]),
                        pile=list(pile), taken=list(taken), discarded=list(discarded),
                        stock_n=stock_n, rebuilds=rebuilds, rebuilt=rebuilt, turn=turn,
                        phase=PHASE_DRAW, upcard=upcard, drawn=-1, from_pile=False,
                        dealer=players - 1, rules=rule_row, scores=[0] * players,
                    )  # fmt: skip
                    key = position_key_ref(seed, number, own_turn, K.CHART_DRAW)
                    net, won, _ = mc_ref.evaluate(
                        obs, [(mc_ref.ACT_TAKE, -1), (mc_ref.ACT_DRAW, -1)], key, 0,
                        chart.samples, chart.model, chart.knock_at, chart.min_gain,
                    )  # fmt: skip
                    gain = sum(round((t - d) * units) for t, d in zip(net[0], net[1], strict=True))
                    column = draw_class_ref(obs, obs.hand, pile[-1])
                    out.append(
                        (number, own_turn, column, took, gain, sum(won[0]), sum(won[1]), pile[-1])
                    )
                from_pile = where == "pile"
                if from_pile:
                    pile.pop()
                    taken[seat] |= 1 << card
                    took += seat != chart.focal
                else:
                    stock_n -= 1
                hands[seat].add(card)
                turn += 1
                if chart.chart != "knock" or seat != chart.focal:
                    continue
                obs = S.RefObs(
                    seat=seat, players=players, hand=sum(1 << c for c in hands[seat]),
                    pile=list(pile), taken=list(taken), discarded=list(discarded),
                    stock_n=stock_n, rebuilds=rebuilds, rebuilt=rebuilt, turn=turn,
                    phase=PHASE_DISCARD, upcard=upcard, drawn=card, from_pile=from_pile,
                    dealer=players - 1, rules=rule_row, scores=[0] * players,
                )  # fmt: skip
                best, d = S.best_discard(obs, obs.hand, S.forbidden_discard(obs))
                if not S.knock_legal(obs, d) or (d == 0 and S.big_gin_ready(obs)):
                    continue
                key = position_key_ref(seed, number, own_turn)
                net, won, _ = mc_ref.evaluate(
                    obs, [(mc_ref.ACT_KNOCK, best), (mc_ref.ACT_DISCARD, best)], key, 0,
                    chart.samples, chart.model, chart.knock_at, chart.min_gain,
                )  # fmt: skip
                gain = sum(round((k - p) * units) for k, p in zip(net[0], net[1], strict=True))
                out.append((number, own_turn, d, took, gain, sum(won[0]), sum(won[1]), best))
    return out


@pytest.mark.parametrize(
    "preset, overrides, spec, deals",
    [
        ("gin", {}, "greedy:knock_at=0/simple", 6),
        ("knock-rummy", {"players": 3}, "greedy:knock_at=12", 5),
        ("oklahoma-gin", {}, "greedy:knock_at=0", 4),
    ],
)
def test_kernel_matches_twin(preset, overrides, spec, deals):
    rules = get_rules(preset, **overrides)
    chart = ChartSpec(samples=3, knock_at=0 if "knock_at=0" in spec else -1, deadwood=31)
    rows = kernel_rows(rules, spec, deals, chart)
    want = positions_ref(rules, spec, 11, deals, chart)
    assert len(want) >= 3, "too few positions to compare: pick other deals"
    assert rows == want


def kernel_rows(rules, spec: str, deals: int, chart: ChartSpec) -> list[tuple]:
    _, rows = score_deals(rules, spec, 11, 0, deals, chart, np.ones(chart.n_cells))
    return [
        tuple(int(v) for v in row[[K.P_DEAL, K.P_TURN, K.P_COLUMN, K.P_TOOK, K.P_GAIN,
                                   K.P_FIRST_WON, K.P_SECOND_WON, K.P_CARD]])
        for row in rows
    ]  # fmt: skip


DRAW_CASES = [
    ("gin", {}, "greedy/simple", 3),  # the upcard option: the first draw is not charted
    ("knock-rummy", {"players": 4, "max_rebuilds": 1}, "greedy:knock_at=5", 3),
    ("gin", {"ace": "around", "discard_taken_card": True}, "greedy:knock_at=0", 2),
    ("joker-knock", {}, "greedy", 8),
]


def test_draw_chart_kernel_matches_twin():
    """Draw positions, their card classes and take-vs-draw gains are exactly the
    twin's, in every case; between them the cases meet every card class."""
    chart = ChartSpec(chart="draw", samples=2, deadwood=0)
    met = set()
    for preset, overrides, spec, deals in DRAW_CASES:
        rules = get_rules(preset, **overrides)
        rows = kernel_rows(rules, spec, deals, chart)
        assert rows == positions_ref(rules, spec, 11, deals, chart), (preset, overrides)
        assert len(rows) >= 10, (preset, overrides)
        met.update(row[2] for row in rows)
    assert met == set(range(K.N_DRAW_CLASSES))


def test_discard_chart_kernel_matches_twin():
    """Every discard of the focal seat the next seat meets, with its rank, the next
    seat's interest, whether it was taken and what it saved, exactly the twin's."""
    chart = ChartSpec(chart="discard", samples=0, per_cell=0, deadwood=0, took=2)
    taken = interest = 0
    for preset, overrides, spec, deals in DRAW_CASES:
        rules = get_rules(preset, **overrides)
        rows = kernel_rows(rules, spec, deals, chart)
        assert rows == positions_ref(rules, spec, 11, deals, chart), (preset, overrides)
        taken += sum(row[5] for row in rows)
        interest += sum(row[3] for row in rows)
    assert taken >= 5 and interest >= 3


def test_cells_and_counting_only():
    """A zero rate counts a cell's positions without scoring them; a rate of 1 scores
    every one; cells cap turns and deadwood into their last row and column."""
    rules = get_rules("gin")
    chart = ChartSpec(samples=2, turns=5, deadwood=6)
    counted, none = score_deals(
        rules, "greedy:knock_at=0", 2, 0, 40, chart, np.zeros(chart.n_cells)
    )
    scored, rows = score_deals(rules, "greedy:knock_at=0", 2, 0, 40, chart, np.ones(chart.n_cells))
    assert len(none) == 0 and counted.sum() == scored.sum() == len(rows) > 0
    assert rows[:, K.P_TURN].max() > 5 and rows[:, K.P_COLUMN].max() > 5
    turn = np.minimum(rows[:, K.P_TURN], 5) - 1
    deadwood = np.minimum(rows[:, K.P_COLUMN], 5)
    assert (rows[:, K.P_CELL] == turn * 6 + deadwood).all()


def test_summary_is_exact_statistics_of_positions():
    """The cell statistics from integer sums equal plain statistics of the per-position
    mean gains (points per hand)."""
    rules = get_rules("gin")
    chart = ChartSpec(samples=4)
    eligible, rows = score_deals(
        rules, "greedy:knock_at=0", 5, 0, 300, chart, np.ones(chart.n_cells)
    )
    sums = cell_sums(eligible, rows, chart)
    index = np.arange(chart.n_cells)
    raw = pl.DataFrame(
        {"turn": index // 11 + 1, "deadwood": index % 11, "took": 0 * index, **sums}
    ).filter(pl.col("eligible") > 0)
    cells = summarize_cells(raw, chart, 2, min_positions=5)
    assert cells["positions"].sum() == len(rows)
    busiest = cells.sort("positions", descending=True).row(0, named=True)
    mask = (rows[:, K.P_TURN] == busiest["turn"]) & (rows[:, K.P_COLUMN] == busiest["deadwood"])
    values = rows[mask, K.P_GAIN] / (4 * POINT_SCALE)
    plain = mean_ci(values)
    assert busiest["gain"] == pytest.approx(plain.estimate, abs=1e-12)
    assert busiest["gain_low"] == pytest.approx(plain.low, abs=1e-9)
    assert busiest["knock_win"] == rows[mask, K.P_FIRST_WON].sum() / (4 * mask.sum())
    for row in cells.iter_rows(named=True):
        if row["positions"] < 5:
            assert row["verdict"] == "too few"
        elif row["gain_low"] > 0:
            assert row["verdict"] == "knock"
        elif row["gain_high"] < 0:
            assert row["verdict"] == "play on"
        else:
            assert row["verdict"] == "too close"


# --- the study ----------------------------------------------------------------------


SMALL = {"deals": 240, "seed": 4, "samples": 2, "per_cell": 1, "pilot": 240}


def _raw(run_dir) -> pl.DataFrame:
    keys = ["turn", "deadwood", "took"]
    return (
        load_cells(run_dir)
        .group_by(keys)
        .agg(pl.col("eligible", "positions", "gain_sum", "gain_sq", "knock_won", "play_won").sum())
        .sort(keys)
    )


def test_same_sums_for_any_chunking_and_workers(tmp_path):
    """Thinned cells (per_cell 1), chunks of 240, 50 or 37 deals, one or two workers:
    the same per-cell sums and the same chart."""
    charts = [
        knock_chart(
            "gin",
            "greedy:knock_at=0",
            out=tmp_path / name,
            chunk_size=size,
            workers=workers,
            **SMALL,
        )  # fmt: skip
        for name, size, workers in (("a", 240, 1), ("b", 50, 2), ("c", 37, 1))
    ]
    first = _raw(charts[0].run_dir)
    assert first["positions"].sum() < first["eligible"].sum()  # thinning happened
    for chart in charts[1:]:
        assert _raw(chart.run_dir).equals(first)
        assert chart.cells.equals(charts[0].cells)


def test_resume_plays_only_missing_chunks(tmp_path):
    chart = knock_chart("gin", "greedy:knock_at=0", out=tmp_path, chunk_size=60, workers=1, **SMALL)
    assert chart.result.chunks_run == 4
    (chart.run_dir / "chunks" / "chunk-000002.json").unlink()
    shutil.rmtree(chart.run_dir / "cells")
    again = knock_chart("gin", "greedy:knock_at=0", out=tmp_path, chunk_size=60, workers=1, **SMALL)
    assert again.run_dir == chart.run_dir
    assert again.result.chunks_run == 4  # the parts were gone: every chunk played again
    (again.run_dir / "chunks" / "chunk-000001.json").unlink()
    last = knock_chart("gin", "greedy:knock_at=0", out=tmp_path, chunk_size=60, workers=1, **SMALL)
    assert last.result.chunks_run == 1
    assert last.cells.equals(chart.cells)
    assert load_chart(chart.run_dir).cells.equals(chart.cells)


def test_policy_sets_the_play_on_rollouts():
    from sim.study.chart import chart_spec

    rules = get_rules("gin")
    assert chart_spec(rules, ("greedy:knock_at=3", "simple")).knock_at == 3
    assert chart_spec(rules, ("simple", "simple")).knock_at == -1
    assert chart_spec(rules, ("greedy", "greedy"), knock_at=0).knock_at == 0
    assert chart_spec(get_rules("knock-rummy"), ("greedy",) * 4).deadwood == 31
    assert chart_spec(rules, ("greedy",) * 2).deadwood == 11


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"deals": 0}, "deals=0"),
        ({"focal": 2}, "focal=2"),
        ({"samples": 0}, "samples=0"),
        ({"model": "psychic"}, "model='psychic'"),
        ({"turns": 0}, "turns=0"),
    ],
)
def test_bad_values_are_one_line_errors(tmp_path, kwargs, message):
    args = {"deals": 10, "seed": 1, "out": tmp_path, **kwargs}
    with pytest.raises(RunError, match=message):
        knock_chart("gin", "greedy", **args)
    assert not any(tmp_path.iterdir())  # refused before anything was written
