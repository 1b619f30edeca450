"""sim/charts.py: every chart renders headless, has labelled axes with units, and
``save`` writes PNG and SVG atomically."""

from __future__ import annotations

import os

import numpy as np
import polars as pl
import pytest
from matplotlib.figure import Figure

from sim import stats
from sim.present import charts
from tests.support.twins import hands_frame

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _curve_frame() -> pl.DataFrame:
    rows = []
    for variant, shift in (("gin", 0.0), ("oklahoma-gin", 1.0)):
        for k in range(0, 11):
            net = shift + 2.0 - 0.3 * k
            win = 0.35 + 0.015 * k
            rows.append(
                {
                    "variant": variant,
                    "threshold": k,
                    "net": net,
                    "net_low": net - 0.7,
                    "net_high": net + 0.7,
                    "win_rate": win,
                    "win_low": win - 0.015,
                    "win_high": win + 0.015,
                }
            )
    return pl.DataFrame(rows)


def _labels(fig: Figure) -> list[tuple[str, str]]:
    return [(ax.get_xlabel(), ax.get_ylabel()) for ax in fig.axes]


def _texts(fig: Figure) -> str:
    parts = [t.get_text() for ax in fig.axes for t in ax.texts]
    parts += [ax.get_title() for ax in fig.axes]
    if fig._suptitle is not None:
        parts.append(fig._suptitle.get_text())
    return "\n".join(parts)


def _main_axes(fig: Figure) -> list:
    """Axes that are not colorbars."""
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]


def test_knock_curve_labels_bands_and_best():
    fig = charts.knock_curve(_curve_frame(), subtitle="greedy vs simple")
    assert isinstance(fig, Figure)
    top, bottom = fig.axes[:2]
    assert "points per hand" in top.get_ylabel() and "(points)" in top.get_ylabel()
    assert bottom.get_ylabel() == "win rate (%)"
    assert bottom.get_xlabel() == "knock threshold (deadwood)"
    assert fig._suptitle is not None and fig._suptitle.get_text()
    # per line a band and error bars (a narrow interval still shows); the two variants'
    # win rates are identical here, so the win panel draws them once and says so
    assert len(top.collections) == 4 and len(bottom.collections) == 2
    assert "gin = oklahoma-gin" in bottom.get_title()
    win_line = bottom.get_lines()[0]
    assert 30 < np.nanmax(win_line.get_ydata()) < 60
    legend_text = [t.get_text() for t in fig.legends[0].get_texts()]
    assert {"gin", "oklahoma-gin", "95% CI", "best threshold"} <= set(legend_text)


def test_heatmap_annotations_and_colorbar():
    fig = charts.heatmap(_curve_frame())
    ax = _main_axes(fig)[0]
    assert ax.get_xlabel() == "knock threshold (deadwood)" and ax.get_ylabel() == "variant"
    cbar = [a for a in fig.axes if a.get_label() == "<colorbar>"]
    assert cbar and "points per hand" in cbar[0].get_ylabel()
    assert len(ax.texts) == 22 and ax.texts[0].get_text() == "2.00\n[1.30, 2.70]"
    assert "best of each row" in ax.get_title()
    pct = charts.heatmap(
        _curve_frame(),
        value="win_rate",
        low="win_low",
        high="win_high",
        percent=True,
        value_label="win rate (%)",
    )
    assert "%" in _main_axes(pct)[0].texts[0].get_text()


def test_outcome_mix_chart():
    df = pl.DataFrame(
        {
            "variant": ["a"] * 5 + ["b"] * 5,
            "outcome": ["knock_win", "knock_win", "undercut", "gin", "dead_hand"] * 2,
        }
    )
    fig = charts.outcome_mix(stats.outcome_mix(df, by=["variant"]), setting="variant")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "share of hands (%)" and ax.get_ylabel() == "variant"
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["knock win", "undercut", "gin / rummy", "dead hand"]  # unused groups left out
    widths = [p.get_width() for p in ax.patches]
    assert sum(widths) == pytest.approx(200.0)  # two bars of 100%


def test_hand_length_chart():
    rng = np.random.default_rng(0)
    df = pl.DataFrame({"variant": ["x"] * 500 + ["y"] * 500, "turns": rng.poisson(12, 1000)})
    fig = charts.hand_length(df, by="variant")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "turns (draws)" and ax.get_ylabel() == "share of hands (%)"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(labels) == 2 and all("mean" in s for s in labels)
    counted = df.group_by("variant", "turns", maintain_order=True).agg(pl.len().alias("count"))
    again = charts.hand_length(counted, by="variant", count="count")
    assert [t.get_text() for t in again.axes[0].get_legend().get_texts()] == labels


def test_tournament_matrix():
    rows = []
    for a in ("greedy", "simple", "random"):
        for b in ("greedy", "simple", "random"):
            if a != b:
                w = 0.5 + (0.4 if b == "random" else 0.0) - (0.4 if a == "random" else 0.0)
                rows.append(
                    {
                        "player": a,
                        "opponent": b,
                        "win_rate": w,
                        "win_low": w - 0.02,
                        "win_high": w + 0.02,
                        "net": (w - 0.5) * 40,
                        "net_low": (w - 0.5) * 40 - 1,
                        "net_high": (w - 0.5) * 40 + 1,
                    }
                )
    fig = charts.tournament_matrix(pl.DataFrame(rows))
    axes = _main_axes(fig)
    assert len(axes) == 2
    assert all(
        ax.get_xlabel() == "opponent (column)" and ax.get_ylabel() == "player (row)" for ax in axes
    )
    assert "hands won" in axes[0].get_title() and "net points per hand" in axes[1].get_title()
    assert sum(t.get_text() == "—" for t in axes[0].texts) == 3  # the diagonal
    assert any("\n[" in t.get_text() for ax in axes for t in ax.texts)  # value [low, high]
    assert "CI]" in fig._suptitle.get_text()
    win_image = axes[0].images[0]
    assert win_image.norm.vmin + win_image.norm.vmax == pytest.approx(100.0)  # centred on 50%


def test_tournament_matrix_units_and_even_share():
    """Games measure games won and net final score; the win colours centre on the even
    share of the hands someone won: (1 - no_winner_rate) / players."""
    rows = [
        {"player": a, "opponent": b, "win_rate": w, "win_low": w - 0.01, "win_high": w + 0.01,
         "no_winner_rate": 0.04, "net": 3.0, "net_low": 2.0, "net_high": 4.0}
        for a, b, w in (("greedy", "simple", 0.30), ("simple", "greedy", 0.20))
    ]  # fmt: skip
    fig = charts.tournament_matrix(pl.DataFrame(rows), players=4, mode="games")
    axes = _main_axes(fig)
    assert "games won" in axes[0].get_title()
    assert "net final score per game" in axes[1].get_title()
    norm = axes[0].images[0].norm
    assert (norm.vmin + norm.vmax) / 2 == pytest.approx(24.0)  # 96% / 4 players
    bars = [ax.get_ylabel() for ax in fig.axes if ax.get_label() == "<colorbar>"]
    assert bars == ["games won (%), even 24.0%", "net final score per game"]
    with pytest.raises(ValueError, match="mode="):
        charts.tournament_matrix(pl.DataFrame(rows), mode="hands")


def test_comparison_draws_each_side_and_the_difference_where_they_are():
    sides = [("greedy:knock_at=3/simple", 4.0, 1.5, 6.5), ("simple/simple", 0.4, -2.0, 2.7)]
    fig = charts.comparison(sides, (3.6, 1.0, 6.2), unit="points per hand", title="A vs B")
    left, right = fig.axes
    labels = [t.get_text() for t in left.get_yticklabels()]
    assert labels == ["A: greedy:knock_at=3/simple", "B: simple/simple"]
    assert left.get_yticks().tolist() == [1, 0]  # A on top
    (points,) = [line for line in left.lines if line.get_marker() == "o"]
    assert list(points.get_xdata()) == [4.0, 0.4]
    (diff,) = [line for line in right.lines if line.get_marker() == "D"]
    assert list(diff.get_xdata()) == [3.6]
    assert "points per hand [95% CI]" in left.get_xlabel() and "A - B" in right.get_xlabel()
    (caps,) = right.collections[:1]  # the interval's bar spans low..high
    assert caps.get_segments()[0][:, 0].tolist() == [1.0, 6.2]


def test_save_writes_png_and_svg_atomically(tmp_path):
    fig = charts.knock_curve(_curve_frame())
    paths = charts.save(fig, tmp_path / "sub" / "knock_curve")
    assert [p.name for p in paths] == ["knock_curve.png", "knock_curve.svg"]
    assert paths[0].read_bytes()[:8] == PNG_MAGIC
    svg = paths[1].read_text()
    assert "<svg" in svg and "knock threshold (deadwood)" in svg  # text kept as text
    assert sorted(os.listdir(tmp_path / "sub")) == [
        "knock_curve.png",
        "knock_curve.svg",
    ]  # no temp left
    again = charts.save(charts.knock_curve(_curve_frame()), tmp_path / "again")
    assert again[1].read_text() == svg  # the same chart gives the same file
    # a writer killed mid-write leaves a temporary file; the next save removes it
    stale = tmp_path / "sub" / ".knock_curve.png.12345-abcd.tmp"
    stale.write_bytes(b"")
    charts.save(fig, tmp_path / "sub" / "knock_curve")
    assert not stale.exists()


def test_charts_from_engine_hands(tmp_path):
    from sim.engine import play_deals

    frames = []
    for k in (2, 10):
        cols = play_deals("gin", [f"greedy:knock_at={k}", "simple"], deals=150, seed=9, threads=1)
        frames.append(
            hands_frame(cols, "gin", f"greedy:knock_at={k}/simple").with_columns(
                threshold=pl.lit(k)
            )
        )
    hands = pl.concat(frames)
    seat0 = stats.seat_summary(hands, by=["variant", "threshold"]).filter(pl.col("seat") == 0)
    written = []
    written += charts.save(charts.knock_curve(seat0), tmp_path / "curve")
    written += charts.save(
        charts.outcome_mix(stats.outcome_mix(hands, by=["threshold"]), setting="threshold"),
        tmp_path / "mix",
    )
    written += charts.save(charts.hand_length(hands, by=["threshold"]), tmp_path / "length")
    assert all(p.stat().st_size > 1000 for p in written)
