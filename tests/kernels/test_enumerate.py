"""The least-deadwood distribution: exact enumeration, Monte Carlo, and their CLIs.

The exact counts are checked against a brute force over every hand (``sim.min_deadwood``
on all C(52, N) masks) for small N; Monte Carlo against the exact mean, for
reproducibility by seed and for independence from the thread count.
"""

from __future__ import annotations

import json
import math

import numba
import numpy as np
import pytest
import typer
from typer.testing import CliRunner

import sim
from kernels.enumerate import (
    N_CHUNKS,
    enumeration_items_nb,
    exact_histogram_nb,
    pattern_tables,
    random_hands_nb,
    sample_hand_nb,
)
from kernels.layout import JOKER_BITS
from sim.cli.bench_cmd import app as bench_app
from sim.cli.stats_cmd import app as stats_app
from sim.rules import RuleError, get_rules
from sim.solver import tables_for
from sim.stats.deadwood import deadwood_distribution, histogram_size

THREADS = min(2, numba.config.NUMBA_NUM_THREADS)


def _all_hands(cards: int) -> np.ndarray:
    """Every ``cards``-card hand of natural cards as a uint64 mask, C(52, cards) of them."""
    masks = np.zeros(1, np.uint64)
    highest = np.full(1, -1, np.int64)
    for _ in range(cards):
        new_masks, new_highest = [], []
        for card in range(52):
            keep = highest < card
            new_masks.append(masks[keep] | np.uint64(1 << card))
            new_highest.append(np.full(int(keep.sum()), card, np.int64))
        masks, highest = np.concatenate(new_masks), np.concatenate(new_highest)
    return masks


def _brute_force_counts(cards: int, rules: object) -> dict[int, int]:
    deadwood = sim.min_deadwood(_all_hands(cards), rules=rules)
    values, counts = np.unique(deadwood, return_counts=True)
    return {int(v): int(c) for v, c in zip(values, counts, strict=True)}


# --- exact enumeration ----------------------------------------------------------------


@pytest.mark.parametrize("cards", [1, 2, 3, 4, 5])
def test_exact_equals_brute_force(cards: int) -> None:
    result = deadwood_distribution(cards, exact=True)
    assert result.method == "exact" and result.seed is None and result.sem is None
    assert result.n == math.comb(52, cards)
    assert result.counts == _brute_force_counts(cards, "gin")


@pytest.mark.parametrize(
    "rules",
    [get_rules("gin", ace="high_or_low"), get_rules("round-the-corner-gin")],
    ids=["high_or_low", "around"],
)
@pytest.mark.parametrize("cards", [3, 4])
def test_exact_honours_the_ace_mode(cards: int, rules: object) -> None:
    assert deadwood_distribution(cards, exact=True, rules=rules).counts == _brute_force_counts(
        cards, rules
    )


def test_exact_one_card_summary() -> None:
    """A=1, 2..10 face value, J/Q/K = 10: four cards of each value, sixteen tens."""
    result = deadwood_distribution(1, exact=True)
    assert result.counts == {**dict.fromkeys(range(1, 10), 4), 10: 16}
    assert result.mean == pytest.approx((4 * sum(range(1, 11)) + 12 * 10) / 52)
    assert result.quantiles == {5: 1, 25: 4, 50: 7, 75: 10, 95: 10}
    assert sum(result.probabilities.values()) == pytest.approx(1.0)
    # An unmelded ace is worth ace_high_value when aces may be high.
    high = deadwood_distribution(
        1, exact=True, rules=get_rules("gin", ace="around", ace_high_value=20)
    )
    assert high.counts[20] == 4 and 1 not in high.counts


@pytest.mark.parametrize("cards", range(1, 9))
def test_exact_total_weight_is_the_number_of_hands(cards: int) -> None:
    rules = get_rules("gin")
    tab = tables_for(rules)
    patterns, offsets, start_index = pattern_tables()
    items = enumeration_items_nb(cards, offsets, start_index)
    hist = np.zeros((N_CHUNKS, histogram_size(rules, cards)), np.int64)
    exact_histogram_nb(cards, patterns, offsets, start_index, items, tab, hist)
    assert int(hist.sum()) == math.comb(52, cards)


def test_exact_is_independent_of_thread_count() -> None:
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = deadwood_distribution(6, exact=True)
        numba.set_num_threads(THREADS)
        many = deadwood_distribution(6, exact=True)
    finally:
        numba.set_num_threads(before)
    assert one == many


# --- Monte Carlo ------------------------------------------------------------------------


def test_monte_carlo_is_reproducible_and_seed_dependent() -> None:
    a = deadwood_distribution(10, samples=20_000, seed=7)
    b = deadwood_distribution(10, samples=20_000, seed=7)
    c = deadwood_distribution(10, samples=20_000, seed=8)
    assert a == b
    assert a.counts != c.counts
    assert a.method == "monte carlo" and a.seed == 7 and a.n == 20_000


def test_monte_carlo_is_independent_of_thread_count() -> None:
    if THREADS < 2:
        pytest.skip("numba has a single thread here")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = deadwood_distribution(10, samples=30_000, seed=123)
        joker_one = deadwood_distribution(7, rules="joker-knock", samples=3_000, seed=5)
        numba.set_num_threads(2)
        two = deadwood_distribution(10, samples=30_000, seed=123)
        joker_two = deadwood_distribution(7, rules="joker-knock", samples=3_000, seed=5)
    finally:
        numba.set_num_threads(before)
    assert one == two
    assert joker_one == joker_two


def test_monte_carlo_sample_prefix_is_stable() -> None:
    """Sample i depends only on (seed, i): a longer run extends a shorter one."""
    key = np.uint64(99)
    short = np.empty(100, np.int64)
    long = np.empty(1000, np.int64)
    random_hands_nb(key, 0, 10, 52, short)
    random_hands_nb(key, 0, 10, 52, long)
    tail = np.empty(900, np.int64)
    random_hands_nb(key, 100, 10, 52, tail)
    assert np.array_equal(short, long[:100])
    assert np.array_equal(tail, long[100:])


def test_monte_carlo_mean_matches_exact() -> None:
    exact = deadwood_distribution(4, exact=True)
    mc = deadwood_distribution(4, samples=200_000, seed=2024)
    assert mc.sem is not None and 0 < mc.sem < 0.05
    assert abs(mc.mean - exact.mean) < 4 * mc.sem
    assert mc.std == pytest.approx(exact.std, rel=0.02)


def test_random_seed_is_reported_and_replays() -> None:
    first = deadwood_distribution(5, samples=5_000)
    assert isinstance(first.seed, int) and first.seed >= 0
    assert deadwood_distribution(5, samples=5_000, seed=first.seed) == first


def test_sampled_hands_are_valid() -> None:
    out = np.empty(20_000, np.int64)
    random_hands_nb(np.uint64(1), 0, 11, 54, out)
    masks = out.astype(np.uint64)
    assert (np.bitwise_count(masks) == 11).all()
    assert not (masks >> np.uint64(54)).any()
    # Every card, jokers included, turns up about 11/54 of the time.
    frequency = ((out[:, None] >> np.arange(54)) & 1).mean(axis=0)
    assert np.abs(frequency - 11 / 54).max() < 0.02
    # A full deal is a permutation: all 52 cards, and the scratch deck is restored.
    deck = np.arange(52, dtype=np.int64)
    swaps = np.empty(53, np.int64)
    for index in range(5):
        assert sample_hand_nb(np.uint64(3), index, 52, deck, swaps) == (1 << 52) - 1
        assert np.array_equal(deck, np.arange(52))


def test_monte_carlo_with_jokers() -> None:
    result = deadwood_distribution(7, rules="joker-knock", samples=5_000, seed=1)
    assert result.n == 5_000
    assert max(result.counts) <= histogram_size(get_rules("joker-knock"), 7, 54) - 1
    # Jokers make low deadwood more likely than without them.
    plain = deadwood_distribution(7, rules="knock-rummy", samples=5_000, seed=1)
    assert result.counts.get(0, 0) > plain.counts.get(0, 0)
    assert JOKER_BITS == 3 << 52


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cards": 0}, "cards=0 is not allowed; choose 1..11"),
        ({"cards": 12}, "cards=12 is not allowed; choose 1..11"),
        ({"cards": 12, "exact": True}, "cards=12 is not allowed; choose 1..11"),
        ({"cards": True}, "cards=True is not allowed"),
        ({"cards": 5, "samples": 0}, "samples=0 is not allowed"),
        ({"cards": 5, "seed": -1}, "seed=-1 is not allowed"),
        ({"cards": 5, "exact": True, "rules": "joker-knock"}, "natural cards only"),
    ],
)
def test_bad_input(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        deadwood_distribution(**kwargs)  # type: ignore[arg-type]


def test_unknown_preset() -> None:
    with pytest.raises(RuleError, match="unknown preset 'nope'"):
        deadwood_distribution(3, rules="nope")


# --- CLI ---------------------------------------------------------------------------------

ENV = {"COLUMNS": "200", "NO_COLOR": "1"}
runner = CliRunner()


def _main() -> typer.Typer:
    """A stand-in for the main app, wired as the lead wires it."""
    main = typer.Typer()

    @main.callback()
    def root() -> None:
        """Root command (a callback keeps the sub-apps sub-commands)."""

    main.add_typer(stats_app, name="stats")
    main.add_typer(bench_app, name="bench")
    return main


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(_main(), list(args), env=ENV)
    return result.exit_code, result.stdout, result.stderr


def test_cli_stats_exact_table() -> None:
    code, out, err = invoke("stats", "deadwood", "--cards", "3", "--exact")
    assert code == 0, err
    for text in ("deadwood", "count", "probability", "method: exact", "22,100", "mean:"):
        assert text in out
    assert "standard deviation:" in out and "quantiles: 5%:" in out and "elapsed:" in out


def test_cli_stats_json_matches_api() -> None:
    code, out, err = invoke(
        "stats", "deadwood", "--cards", "4", "--samples", "3000", "--seed", "11", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    api = deadwood_distribution(4, samples=3000, seed=11)
    assert data["method"] == "monte carlo" and data["seed"] == 11 and data["n"] == 3000
    assert data["counts"] == {str(v): c for v, c in api.counts.items()}
    assert data["mean"] == pytest.approx(api.mean) and data["sem"] == pytest.approx(api.sem)
    assert set(data["quantiles"]) == {"5", "25", "50", "75", "95"}
    assert data["elapsed_s"] >= 0


def test_cli_stats_rule_override() -> None:
    code, out, err = invoke(
        "stats", "deadwood", "--cards", "1", "--exact", "--rule", "ace=around", "--json"
    )
    assert code == 0, err
    assert json.loads(out)["counts"]["15"] == 4  # aces worth ace_high_value = 15


def test_cli_monte_carlo_prints_seed() -> None:
    code, out, err = invoke("stats", "deadwood", "--cards", "2", "--samples", "100")
    assert code == 0, err
    assert "method: monte carlo, seed " in out and "95% CI" in out


def test_cli_bench_json() -> None:
    code, out, err = invoke("bench", "deadwood", "--hands", "40", "--repeat", "2", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["threads"] == 1 and data["repeat"] == 2 and len(data["rows"]) == 8
    natural = [row for row in data["rows"] if row["jokers"] == 0]
    jokers = [row for row in data["rows"] if row["jokers"] == 2]
    assert [(r["cards"], r["operation"]) for r in natural] == [
        (10, "min deadwood"),
        (11, "best discard"),
        (7, "min deadwood"),
        (8, "best discard"),
    ]
    for row in natural:
        assert row["naive_agrees"] is True and row["ratio"] > 0
        assert row["min_ns"] <= row["median_ns"] <= row["max_ns"]
    for row in jokers:
        assert row["rules"] == "joker-knock" and row["hands"] == 4 and row["ratio"] is None


def test_cli_bench_table() -> None:
    code, out, err = invoke("bench", "deadwood", "--hands", "20", "--repeat", "1")
    assert code == 0, err
    for text in (
        "10 cards, min deadwood",
        "11 cards, best discard",
        "naive / solver",
        "first s",
    ):
        assert text in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["stats", "deadwood", "--cards", "5", "--rules", "nope"], "unknown preset 'nope'"),
        (["stats", "deadwood", "--cards", "5", "--rule", "ace=up"], "ace='up' is not allowed"),
        (["stats", "deadwood", "--cards", "5", "--exact", "--seed", "1"], "Monte Carlo only"),
        (
            ["stats", "deadwood", "--cards", "5", "--exact", "--rules", "joker-knock"],
            "natural cards only",
        ),
        (["bench", "deadwood", "--threads", "999"], "threads=999 is not allowed"),
        (["bench", "deadwood", "--rules", "nope"], "unknown preset 'nope'"),
    ],
)
def test_cli_bad_input_is_one_line(args: list[str], message: str) -> None:
    code, out, err = invoke(*args)
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["stats", "deadwood", "--cards", "0"], "'0' (input should be greater than or equal to 1)"),
        (["stats", "deadwood", "--cards", "12"], "'12' (input should be less than or equal to 11)"),
        (["stats", "deadwood", "--cards", "12", "--exact"], "'12' (input should be less than"),
        (["stats", "deadwood", "--cards", "5", "--samples", "0"], "'--samples': '0' (input"),
        (["stats", "deadwood", "--cards", "5", "--samples", str(10**10 + 1)], "or equal to 1000"),
        (["bench", "deadwood", "--hands", "0"], "'--hands': '0' (input should be greater"),
    ],
)
def test_cli_sizes_outside_their_range_are_usage_errors(args: list[str], message: str) -> None:
    """A hand size or count outside the option's declared range: the parser's (status 2),
    in the one line of the real ``rummy`` command."""
    from sim.cli import app

    result = runner.invoke(app, args, env=ENV)
    assert result.exit_code == 2
    assert result.stdout == ""
    err = result.stderr
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err
