"""Paired comparisons: two rule variants or two line-ups played on identical deals.

>>> from sim.study.compare import CompareRequest, Side, compare
>>> result = compare(CompareRequest(
...     Side("gin", "greedy/simple"),
...     Side("gin", "greedy:knock_at=5/simple"),
...     count=100_000, seed=7, duplicate=True,
... ))
>>> print(result.difference)        # A - B, seat 0's net points per deal, paired t
>>> print(result.variance_reduction)

Method
------
Common random numbers
    Both sides are played through one queue (``sim.study.execute``) with the same seed, so deal
    ``n`` of side A is deal ``n`` of side B whenever the two rule sets deal the same
    cards (same players, hand size and jokers; ``identical_deals`` says so). The runs'
    rows are joined on ``(game, deal)``: both must hold exactly the same keys.
Metric
    The focal seat is seat 0 (the first to play; the last seat deals every single
    deal). Per deal (``--games``: per game) its *net points*: its points minus the
    mean of the other seats' points (for two players, its points minus the
    opponent's; in games mode the final game scores). The comparison is the paired
    difference A - B of that metric, deal by deal: mean, Student t interval on n - 1
    degrees of freedom and the two-sided paired t test (``sim.stats.difference_test``).
    The per-deal values come from ``sim.study.units`` (the same as every study's).
Win rate
    Each side's win rate (the focal seat won the hand, or the game) with its Wilson
    interval; the difference A - B is paired too: its interval is the paired t
    interval on the per-deal win indicators (-1, 0 or 1) and its p-value McNemar's
    exact test (a binomial test on the discordant deals: A won and B did not, or the
    reverse).
Duplicate (``duplicate=True``)
    Every deal is also played with the line-up rotated: in rotation ``r`` seat ``k``
    plays the strategy of seat ``(k + r) % players`` of the original line-up, so the
    focal strategy (the original seat 0) sits at seat ``(players - r) % players`` and
    holds every seat's cards once. The metric becomes the mean over the ``players``
    rotations of the focal strategy's net points, and the win rate the share of the
    rotations it won (each side's rate: Wilson over all hands of all rotations, which
    treats a deal's rotations as independent; they are negatively correlated, so
    the interval is conservative; the difference: paired t on the per-deal shares,
    p-value from the same t test). The plain comparison (rotation 0 alone) is
    reported next to it, with ``sim.stats.variance_reduction``: the variance of the
    per-deal difference without and with rotation, and the gain per hand played
    (each duplicate deal costs ``players`` hands).

Storage
-------
``<out>/compare/<compare_id>/``: one runner directory per distinct (side, rotation)
(``<run_id>/``, each with its own manifest and Parquet parts; identical runs are
played once), then ``comparison.json``, written last and atomically: the config,
every run and the results. ``compare_id`` hashes the runs' config hashes (rules,
line-ups, mode, count, seed, engine version) and the duplicate flag. Runs already
complete in that directory are not played again (the runner resumes them).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from sim import store
from sim.rules import RuleSet, get_rules
from sim.stats import (
    DEFAULT_CONFIDENCE,
    Comparison,
    Interval,
    VarianceReduction,
    difference_test,
    mcnemar_exact,
    mean_ci,
    variance_reduction,
    wilson,
)
from sim.store import PathInput, StorePath, study_folder
from sim.study import records, rundir
from sim.study.execute import execute
from sim.study.kinds import COMPARE
from sim.study.quantities import comparison_units
from sim.study.records import study_id
from sim.study.runs import RunConfig, check_count, new_seed
from sim.study.session import DEFAULT_SESSION, Session
from sim.study.units import (
    check_joined,
    focal_series,
    load_units,
    metric_name,
    position,
    rotate,
)

__all__ = [
    "COMPARISON_FILE",
    "CompareError",
    "CompareRequest",
    "CompareResult",
    "Side",
    "SideResult",
    "WinDifference",
    "compare",
    "comparison_runs",
    "load_comparison",
]

COMPARISON_FILE = COMPARE.records[0]
COMPARISON_KIND = "rummy-compare"

Mode = Literal["deals", "games"]


class CompareError(ValueError):
    """A comparison that cannot be made (one-line message)."""


# --- sides ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a rule set, a line-up and a label.

    ``rules`` is a RuleSet or a preset name; ``lineup`` seat specs (``greedy/simple``,
    a tuple of specs, or one spec for every seat); ``label`` names the side in the
    output (None: made from what differs between the two sides).
    """

    rules: RuleSet | str
    lineup: tuple[str, ...] | str
    label: str | None = None


def _canonical_lineup(
    lineup: tuple[str, ...] | str, rules: RuleSet
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The side's canonical seat specs (what it plays) and how each seat is shown
    (``strategies.seat_label``: ``chart:gin`` as written)."""
    from strategies import format_seat, lineup_labels, parse_lineup

    seats = parse_lineup(lineup, rules.players, rules=rules)
    names = lineup_labels(lineup, rules.players)
    return tuple(format_seat(s, p) for s, p in seats), tuple(names)


def _rules_text(rules: RuleSet, other: RuleSet) -> str:
    """The rule set's name, plus the parameters in which it differs from ``other``
    when the names do not tell the two apart."""
    if rules.name != other.name or rules == other:
        return rules.name
    mine, theirs = rules.to_dict(), other.to_dict()
    changed = [f"{k}={mine[k]}" for k in mine if k != "name" and mine[k] != theirs[k]]
    return f"{rules.name}[{','.join(changed)}]"


def _labels(
    a: tuple[RuleSet, tuple[str, ...], str | None, tuple[str, ...]],
    b: tuple[RuleSet, tuple[str, ...], str | None, tuple[str, ...]],
) -> tuple[str, str]:
    """Default labels: what differs (rules, line-up as shown, or both); A and B when
    nothing does."""
    (ra, la, label_a, na), (rb, lb, label_b, nb) = a, b
    parts_a: list[str] = []
    parts_b: list[str] = []
    if ra != rb:
        parts_a.append(_rules_text(ra, rb))
        parts_b.append(_rules_text(rb, ra))
    if la != lb:
        parts_a.append("/".join(na))
        parts_b.append("/".join(nb))
    auto_a = " ".join(parts_a) or "A"
    auto_b = " ".join(parts_b) or "B"
    out_a = label_a or auto_a
    out_b = label_b or auto_b
    if out_a == out_b:
        out_a, out_b = f"{out_a} (A)", f"{out_b} (B)"
    return out_a, out_b


def deals_key(rules: RuleSet) -> tuple[int, int, int]:
    """What the cards dealt depend on besides the seed and the deal number."""
    return (rules.players, rules.cards_per_hand, rules.jokers)


@dataclass(frozen=True)
class WinDifference:
    """Paired difference of win rates A - B on the same deals."""

    estimate: float
    ci: Interval
    p_value: float
    method: str  # of the interval
    p_method: str  # of the p-value
    a_only: int | None = None  # plain: deals A won and B did not
    b_only: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "estimate": self.estimate,
            "low": self.ci.low,
            "high": self.ci.high,
            "confidence": self.ci.confidence,
            "method": self.method,
            "p_value": self.p_value,
            "p_method": self.p_method,
            "a_only": self.a_only,
            "b_only": self.b_only,
        }


# --- results -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SideResult:
    """One side's rules, line-up, runs and headline numbers."""

    label: str
    rules: RuleSet
    lineup: tuple[str, ...]
    run_dirs: tuple[StorePath, ...]  # one per rotation (rotation 0 first)
    net: Interval  # focal strategy's net points per deal (t)
    win: Interval  # focal strategy's win rate (Wilson)
    names: tuple[str, ...] = ()  # how each seat is shown (strategies.seat_label)

    @property
    def shown(self) -> tuple[str, ...]:
        """How each seat of ``lineup`` is shown (``chart:gin``, never a chart's spec)."""
        from strategies import seat_label

        return self.names or tuple(seat_label(spec) for spec in self.lineup)

    @property
    def focal(self) -> str:
        """How the focal strategy (seat 0 of the line-up) is shown."""
        return self.shown[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "rules": self.rules.to_dict(),
            "lineup": list(self.lineup),
            # how the seats are shown, where that is not the specs (a chart: chart:gin)
            **({"names": list(self.shown)} if self.shown != self.lineup else {}),
            "focal_strategy": self.focal,
            "run_dirs": [str(p) for p in self.run_dirs],
            "net": self.net.to_json(),
            "win_rate": self.win.to_json(),
        }


@dataclass(frozen=True)
class CompareResult:
    """What :func:`compare` found. ``difference`` is A - B of the metric (paired t);
    with ``duplicate``, ``plain_difference`` is the same from rotation 0 alone and
    ``variance_reduction`` compares the two."""

    compare_id: str
    directory: StorePath
    seed: int
    mode: str
    count: int
    duplicate: bool
    rotations: int
    identical_deals: bool
    a: SideResult
    b: SideResult
    difference: Comparison
    win_difference: WinDifference
    plain_difference: Comparison | None = None
    variance_reduction: VarianceReduction | None = None

    @property
    def metric(self) -> str:
        return metric_name(self.mode)

    @property
    def unit(self) -> str:
        return "deal" if self.mode == "deals" else "game"

    def to_dict(self) -> dict[str, Any]:
        vr = self.variance_reduction
        return {
            "compare_id": self.compare_id,
            "directory": str(self.directory),
            "seed": self.seed,
            "mode": self.mode,
            "count": self.count,
            "duplicate": self.duplicate,
            "rotations": self.rotations,
            "identical_deals": self.identical_deals,
            "metric": self.metric,
            "units": comparison_units(self.mode),
            "focal_seat": 0,
            "a": self.a.to_dict(),
            "b": self.b.to_dict(),
            "difference": self.difference.to_json(),
            "win_difference": self.win_difference.to_dict(),
            "plain_difference": (
                self.plain_difference.to_json() if self.plain_difference else None
            ),
            "variance_reduction": dataclasses.asdict(vr) if vr is not None else None,
        }


# --- the comparison ------------------------------------------------------------------------


def _win_difference(
    won_a: npt.NDArray[np.float64],
    won_b: npt.NDArray[np.float64],
    rotations: int,
    confidence: float,
) -> WinDifference:
    """A - B of the per-unit wins (indicators, or shares of the rotations won)."""
    test = difference_test(won_a - won_b, confidence)
    if rotations > 1:
        return WinDifference(
            estimate=test.mean_diff,
            ci=test.ci,
            p_value=test.p_value,
            method="paired t on per-deal win shares over rotations",
            p_method="paired t",
        )
    a_only = int(np.count_nonzero((won_a == 1) & (won_b == 0)))
    b_only = int(np.count_nonzero((won_a == 0) & (won_b == 1)))
    return WinDifference(
        estimate=test.mean_diff,
        ci=test.ci,
        p_value=mcnemar_exact(a_only, b_only),
        method="paired t on win indicators",
        p_method="McNemar exact",
        a_only=a_only,
        b_only=b_only,
    )


Resolved = tuple[RuleSet, tuple[str, ...], str | None, tuple[str, ...]]


def _resolve(side: Side) -> Resolved:
    if not isinstance(side, Side):
        raise CompareError(f"a side must be a sim.study.compare.Side, got {type(side).__name__}")
    rules = side.rules if isinstance(side.rules, RuleSet) else get_rules(side.rules)
    lineup, names = _canonical_lineup(side.lineup, rules)
    return rules, lineup, side.label, names


@dataclass(frozen=True)
class CompareRequest:
    """What a comparison studies: two sides played on the same deals.

    ``count`` deals (``mode="deals"``) or games (``mode="games"``) per run, at least 2;
    ``seed`` the master seed of every run (common random numbers; None draws one, read
    it back from ``result.seed``); ``duplicate`` also plays every deal with the line-up
    rotated (``players`` runs per side). The sides' rule sets must have the same number
    of players, and the sides must differ in their rules or their line-up (as parsed:
    ``greedy/simple`` is ``greedy,simple``; labels do not count). :func:`compare` checks
    every value before the first deal is played.
    """

    a: Side
    b: Side
    count: int
    mode: Mode = "deals"
    seed: int | None = None
    duplicate: bool = False

    def sides(self) -> tuple[Resolved, Resolved]:
        """Each side's rules, line-up, label and seat names, checked to differ in their
        rules or line-up and to seat as many players (CompareError, one line)."""
        a, b = _resolve(self.a), _resolve(self.b)
        (ra, la, _, na), (rb, lb, _, _) = a, b
        if (ra, la) == (rb, lb):  # labels aside: one line-up against itself, +0.00, p = 1
            raise CompareError(
                f"both sides are the same (rules {ra.name}, seats {'/'.join(na)}); give side "
                "B other seats or other rules"
            )
        if ra.players != rb.players:
            raise CompareError(
                f"the sides have different player counts ({ra.players} and {rb.players}); "
                "a paired comparison needs the same seats"
            )
        return a, b


def compare(
    request: CompareRequest,
    session: Session = DEFAULT_SESSION,
    *,
    chunk_size: int | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> CompareResult:
    """Play both sides of ``request`` on the same deals and compare seat 0's net points.

    Parameters
    ----------
    request : CompareRequest
        What to compare (the sides, the deals or games, the seed, duplicate play).
    session : Session
        Where it plays (its executor), the results root (the comparison goes to
        ``<out>/compare/<compare_id>/``), who hears its progress and the command stored.
    chunk_size
        Passed to every ``RunConfig``.

    Raises
    ------
    RuleError, StrategyError, CompareError, RunError
        One-line messages, all ``ValueError``: an unknown preset, rule parameter,
        strategy or strategy parameter, two sides with the same rules and line-up
        (after parsing), different player counts, a bad count or
        seed, or an output directory that cannot be written. Everything is checked
        before the first deal is played.
    """
    mode, duplicate = request.mode, request.duplicate
    count = check_count(request.count, mode)
    seed = new_seed() if request.seed is None else request.seed
    (ra, la, label_a, na), (rb, lb, label_b, nb) = request.sides()
    labels = _labels((ra, la, label_a, na), (rb, lb, label_b, nb))
    players = ra.players
    rotations = players if duplicate else 1
    root = session.out / COMPARE.folder

    def configs_of(
        side: str, rules: RuleSet, lineup: tuple[str, ...], names: tuple[str, ...]
    ) -> list[RunConfig]:
        return [
            RunConfig(
                rules=rules,
                lineup=rotate(lineup, r),
                names=rotate(names, r),
                count=count,
                mode=mode,
                experiment="compare",
                seed=seed,
                chunk_size=chunk_size,
                labels=(("side", side), ("seating", r)),
                out=root,
                command=session.command,
            )
            for r in range(rotations)
        ]

    draft = {"a": configs_of("a", ra, la, na), "b": configs_of("b", rb, lb, nb)}
    compare_id = study_id(
        {
            "kind": "compare",
            "duplicate": bool(duplicate),
            "a": [c.config_hash for c in draft["a"]],
            "b": [c.config_hash for c in draft["b"]],
        }
    )
    runs = {
        side: [dataclasses.replace(c, experiment=compare_id) for c in configs]
        for side, configs in draft.items()
    }
    directory = root / compare_id
    with study_folder(directory):  # its lock held from the first run to the record
        execute(runs["a"] + runs["b"], session.executor, progress=session.progress)

        units = {
            side: [load_units(c.run_dir, mode, players) for c in configs]
            for side, configs in runs.items()
        }
        positions = [position(0, r, players) for r in range(rotations)]
        series = {
            side: focal_series(units[side], positions, f"side {side.upper()}") for side in units
        }
        check_joined(units["a"][0], units["b"][0], "side B")
        n = len(series["a"])
        net_a, won_a, wins_a = series["a"].net, series["a"].won, series["a"].wins
        net_b, won_b, wins_b = series["b"].net, series["b"].won, series["b"].wins
        difference = difference_test(net_a - net_b, confidence, labels[0], labels[1])

        def side_result(
            side: str, label: str, rules: RuleSet, lineup: tuple[str, ...], names: tuple[str, ...]
        ) -> SideResult:
            net, wins = (net_a, wins_a) if side == "a" else (net_b, wins_b)
            win = wilson(wins, n * rotations, confidence)
            if rotations > 1:
                win = dataclasses.replace(win, method="Wilson (all hands of all rotations)")
            return SideResult(
                label=label,
                rules=rules,
                lineup=lineup,
                run_dirs=tuple(c.run_dir for c in runs[side]),
                net=mean_ci(net, confidence, "t"),
                win=win,
                names=names,
            )

        win_difference = _win_difference(won_a, won_b, rotations, confidence)

        plain = reduction = None
        if rotations > 1:
            plain_diffs = units["a"][0].net(0) - units["b"][0].net(0)
            plain = difference_test(plain_diffs, confidence, labels[0], labels[1])
            reduction = variance_reduction(plain_diffs, net_a - net_b, cost=rotations)

        result = CompareResult(
            compare_id=compare_id,
            directory=directory,
            seed=seed,
            mode=mode,
            count=count,
            duplicate=bool(duplicate),
            rotations=rotations,
            identical_deals=deals_key(ra) == deals_key(rb),
            a=side_result("a", labels[0], ra, la, na),
            b=side_result("b", labels[1], rb, lb, nb),
            difference=difference,
            win_difference=win_difference,
            plain_difference=plain,
            variance_reduction=reduction,
        )
        record = {
            "command": session.provenance,
            "runs": [
                {
                    "side": side,
                    "rotation": r,
                    "lineup": list(c.lineup),
                    **({"names": list(c.seat_names)} if c.seat_names != c.seats else {}),
                    "focal_seat": position(0, r, players),
                    "run_id": c.run_id,
                    "config_hash": c.config_hash,
                }
                for side, configs in runs.items()
                for r, c in enumerate(configs)
            ],
            **result.to_dict(),
        }
        records.write_record(directory / COMPARISON_FILE, COMPARISON_KIND, record)
    return result


def load_comparison(directory: PathInput) -> dict[str, Any]:
    """The ``comparison.json`` of a finished comparison, checked (``load_record``); its
    runs are not read (:func:`comparison_runs` checks them)."""
    return records.load_record(store.location(directory) / COMPARISON_FILE, COMPARISON_KIND)


def comparison_runs(directory: PathInput) -> list[StorePath]:
    """The run folders a finished comparison's record lists, each checked to be the run
    it names, with no other run beside them (``rundir.replayed_runs``)."""
    return rundir.replayed_runs(store.location(directory) / COMPARISON_FILE, COMPARISON_KIND)
