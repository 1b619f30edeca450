"""The comparison's front: ``rummy compare`` and ``rummy.compare``, declared once.

Side A is ``rules`` (with its ``rule`` changes) and ``seats``. Side B is side A with what
the ``vs_*`` parameters change: ``vs_rules`` swaps the preset (``rule`` still applies),
``vs_rule`` changes rule parameters for B only (winning over ``rule``), ``vs_seats``
replaces the line-up; one of them is needed, and side B must differ from side A (in its
rules or its line-up, as parsed). Seat 0 is the focal seat: the comparison is seat 0's
net points (its points minus the others' mean) per deal, A - B, deal by deal. Examples::

    # two strategies in seat 0, same rules
    rummy compare --rules gin --seats greedy/simple --vs-seats greedy:knock_at=5/simple
    # two rule variants, same line-up; seats rotated as well (duplicate deals)
    rummy compare --rules gin --vs-rules gin-classic --seats greedy/simple --duplicate
    # one rule parameter, in the notebook
    rummy.compare("greedy/simple", rules="gin", vs_rule={"knock_limit": 7}, deals=200_000)

The command prints the seed (drawn and printed when ``--seed`` is omitted), the results
directory and every estimate with its 95% confidence interval and the interval's
method; ``--json`` prints the same as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sim.front import params
from sim.front.declare import Front, ParamsError
from sim.present.terminal import ci, compact_table
from sim.present.terminal import console as output_console
from sim.sizes import DEFAULT_DEALS
from sim.stats import format_estimate, p_clause
from sim.study.compare import CompareRequest, CompareResult, Side, compare
from sim.study.kinds import COMPARE

__all__ = ["FRONT"]

EXAMPLES = """Examples (side B is side A with what the --vs-* options change):

rummy compare --rules gin --seats greedy/simple --vs-seats greedy:knock_at=5/simple

rummy compare --rules gin --vs-rules gin-classic --seats greedy/simple --duplicate

rummy compare --rules gin --vs-rule knock_limit=7 --seats greedy/simple --deals 200_000"""

PARAMS = (
    params.lineup(
        "seats", "Side A's line-up: one strategy spec per seat joined by '/' or ',' "
        "(greedy:knock_at=7/simple); one spec fills every seat. Seat 0 is the focal seat.",
        default="greedy", short="-s",
    ),
    params.lineup("vs_seats", "Side B's line-up (default: {seats}).", default=None),
    params.preset("rules"),
    params.preset("vs_rules", "Side B's rule preset (default: {rules}); the {rule} overrides "
                  "apply to it too.", default=None),
    params.overrides("rule", short="-r"),
    params.overrides("vs_rule", " for side B only", wins_over="rule"),
    params.label("label", "Side A's name in the output (default: what differs)."),
    params.label("vs_label", "Side B's name in the output (default: what differs)."),
    params.count("deals", 2, f"Single deals per run (default: {DEFAULT_DEALS['compare']:,}).",
                 short="-n"),
    params.games(2, "run"),
    params.duplicate("Also replay every deal with the seats rotated (seat k plays seat k+1's "
                     "strategy), so seat luck cancels; reports the variance reduction achieved."),
    params.seed(),
)  # fmt: skip


def _request(values: Mapping[str, Any]) -> CompareRequest:
    side_b = ("vs_seats", "vs_rules", "vs_rule")
    if not any(values[name] for name in side_b):
        # without one, side B is side A: the line-up against itself, +0.00 and p = 1
        raise ParamsError(
            "none given; give one (side B is side A with what they change)",
            side_b, tuple(values[name] for name in side_b),
        )  # fmt: skip
    count, mode = params.size(COMPARE.name, values["deals"], values["games"])
    rules_a = params.rule_set(values, "rules", "rule")
    rules_b = params.rule_set(
        {**values, "vs_rules": values["vs_rules"] or values["rules"]}, "vs_rules", "vs_rule",
        base=values["rule"],
    )  # fmt: skip
    seats_b = values["seats"] if values["vs_seats"] is None else values["vs_seats"]
    params.seated("seats", values["seats"], rules_a)
    params.seated("vs_seats", seats_b, rules_b)
    request = CompareRequest(
        Side(rules_a, values["seats"], values["label"]),
        Side(rules_b, seats_b, values["vs_label"]),
        count=count, mode=mode, seed=values["seed"], duplicate=values["duplicate"],  # type: ignore[arg-type]
    )  # fmt: skip
    with params.refused("vs_seats" if values["vs_seats"] is not None else "vs_rules",
                        values["vs_seats"] or values["vs_rules"] or values["vs_rule"]):  # fmt: skip
        request.sides()  # the sides differ, and seat as many players
    return request


def _print_comparison(result: CompareResult) -> None:
    console = output_console(markup=False)
    unit = result.unit
    runs = len({p for side in (result.a, result.b) for p in side.run_dirs})
    how = (
        f"duplicate: {result.rotations} seat rotations per side"
        if result.duplicate
        else "one seating"
    )
    console.print(
        f"comparison {result.directory} ({runs} runs of {result.count:,} {result.mode}, "
        f"same seed; {how})"
    )
    if not result.identical_deals:
        console.print(
            "note: the rule sets deal different cards (hand size or jokers differ); the "
            "runs share the seed, not the deals"
        )
    for name, side in (("A", result.a), ("B", result.b)):
        seats = "/".join(side.shown)
        console.print(f"{name}: {side.label}  (rules {side.rules.name}, seats {seats})")
    level = f"{result.a.net.confidence * 100:g}%"
    table = compact_table(f"Focal seat 0 ({result.a.focal} / {result.b.focal})")
    table.add_column("side")
    table.add_column(f"{result.metric}, {level} CI", justify="right")
    table.add_column(f"win rate %, {level} CI", justify="right")
    for name, side in (("A", result.a), ("B", result.b)):
        table.add_row(
            name,
            ci(side.net.estimate, side.net.low, side.net.high, 3, sign=True),
            ci(side.win.estimate, side.win.low, side.win.high, 2, 100.0),
        )
    console.print(table)
    console.print(f"intervals: {result.a.net.method} (means), {result.a.win.method} (rates)")
    d = result.difference
    console.print(
        f"A - B, {result.metric}: {ci(d.mean_diff, d.ci.low, d.ci.high, 3, sign=True)} "
        f"({level} {d.method} CI, half-width {d.ci.half_width:.3f}), {p_clause(d.p_value)}, "
        f"n = {d.n:,} {unit}s"
    )
    w = result.win_difference
    won = format_estimate(w.estimate, w.ci.low, w.ci.high, unit="%", percent=True, sign=True)
    console.print(
        f"A - B, {'hands' if result.mode == 'deals' else 'games'} won: {won} "
        f"({level} {w.method} CI), "
        f"{p_clause(w.p_value)} ({w.p_method})"
    )
    plain, vr = result.plain_difference, result.variance_reduction
    if plain is not None and vr is not None:
        console.print(
            "plain (rotation 0 only): "
            f"{ci(plain.mean_diff, plain.ci.low, plain.ci.high, 3, sign=True)}, "
            f"half-width {plain.ci.half_width:.3f}, {p_clause(plain.p_value)}"
        )
        console.print(
            f"variance reduction ({vr.method}): {vr.plain_variance:.3f} plain -> "
            f"{vr.duplicate_variance:.3f} duplicate, x{vr.ratio:.3f} ({vr.reduction * 100:.1f}% "
            f"less); each duplicate {unit} is worth {vr.factor:.2f} plain {unit}s, "
            f"{vr.efficiency:.2f} per hand played ({vr.cost:g} hands each)"
        )


def _notebook(result: CompareResult) -> Any:
    from rummy.results import Comparison

    return Comparison.of_record(result.to_dict(), result.directory, result)


FRONT = Front(
    kind=COMPARE,
    summary="Compare two rule variants or two line-ups on identical deals: the paired "
    "difference of seat 0's net points (95% paired t CI, p-value) and of its win rate.",
    params=PARAMS,
    positional=2,
    request=_request,
    play=compare,
    show=_print_comparison,
    record=CompareResult.to_dict,
    notebook=_notebook,
    epilog=EXAMPLES,
)
