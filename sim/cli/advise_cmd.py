"""``rummy advise``: every legal action of one position, scored by Monte Carlo.

Example::

    rummy advise --rules gin --hand "9C 9D 9H JS QS KS AD 4D 2H 3S JC" --pile "5S KC"
"""

from __future__ import annotations

import math
from typing import Annotated

import typer

from kernels.engine import MAX_TURNS
from sim.advise import DEFAULT_MODEL, MAX_SAMPLES, MODELS, AdviseError, Position
from sim.advise import advise as run_advise
from sim.cards import CardError
from sim.cli.options import JsonOption, RuleOverrides, RulesOption, at_most, rules_of
from sim.cli.output import compact_table, console, err_console, fail, print_json
from sim.limits import MAX_SEED
from sim.rules import DEFAULT_PRESET, MAX_KNOCK_LIMIT
from sim.sizes import ADVISE_SEED, DEFAULT_SAMPLES
from sim.stats import format_estimate, format_p
from strategies.mc import misses_note


def _seat_cards(values: list[str] | None, option: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for value in values or []:
        seat, sep, cards = value.partition(":")
        if not sep or not seat.strip().isdigit():
            fail(f"{option} {value!r}: write SEAT:CARDS, e.g. {option} 1:7H,7D")
        out[int(seat)] = out.get(int(seat), "") + " " + cards.replace(",", " ")
    return out


def _seconds(value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise typer.BadParameter(f"{value} is not a positive number of seconds")
    return value


app = typer.Typer()


@app.command("advise")
def advise(
    hand: Annotated[
        str,
        typer.Option(
            "--hand",
            help='Your hand, e.g. "9C 9D 9H JS QS KS AD 4D 2H 3S" '
            "(one card more: a discard decision).",
        ),
    ],
    pile: Annotated[
        str, typer.Option("--pile", help="The discard pile in order, bottom (oldest) first.")
    ] = "",
    took: Annotated[
        list[str] | None,
        typer.Option(
            "--took", help="SEAT:CARDS an opponent took from the pile and still holds (repeatable)."
        ),
    ] = None,
    discarded: Annotated[
        list[str] | None,
        typer.Option(
            "--discarded",
            help="SEAT:CARDS an opponent discarded this hand (repeatable; the opponent "
            "models use them). Default: the pile's cards in turn order, backwards from the top.",
        ),
    ] = None,
    stock: Annotated[
        int | None,
        typer.Option(
            "--stock", min=0, help="Cards left in the stock (default: what the other counts leave)."
        ),
    ] = None,
    turn: Annotated[
        int,
        typer.Option("--turn", min=0, max=MAX_TURNS - 1, help="Draws made so far in the hand."),
    ] = 0,
    rebuilds: Annotated[
        int,
        typer.Option(
            "--rebuilds", min=0, help="Times the stock was rebuilt from the pile so far this hand."
        ),
    ] = 0,
    scores: Annotated[
        str | None, typer.Option("--scores", help="Game scores per seat, comma-separated.")
    ] = None,
    seat: Annotated[int, typer.Option("--seat", min=0, help="Your seat.")] = 0,
    dealer: Annotated[
        int | None,
        typer.Option("--dealer", min=0, help="The dealer's seat (default: the seat before yours)."),
    ] = None,
    upcard: Annotated[
        str | None,
        typer.Option("--upcard", help="The hand's first upcard (default: the bottom of the pile)."),
    ] = None,
    just_took: Annotated[
        str | None,
        typer.Option(
            "--just-took", help="The card you just took from the pile (it may not be discarded)."
        ),
    ] = None,
    upcard_option: Annotated[
        bool, typer.Option("--upcard-option", help="First turn of Gin: take the upcard or pass.")
    ] = False,
    rules: RulesOption = DEFAULT_PRESET,
    rule: RuleOverrides = None,
    samples: Annotated[
        int,
        typer.Option(
            "--samples",
            min=2,
            max=MAX_SAMPLES,
            help="Sampled deals (the same seed and count always give the same answer).",
        ),
    ] = DEFAULT_SAMPLES,
    time_limit: Annotated[
        float | None,
        typer.Option(
            "--time",
            callback=_seconds,
            help="Stop after the round of 250 samples that reaches this many seconds.",
        ),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", min=0, callback=at_most(MAX_SEED), help="Seed of the samples.")
    ] = ADVISE_SEED,
    model: Annotated[
        str,
        typer.Option(
            "--model", help=f"How opponents' unseen cards are sampled: {', '.join(MODELS)}."
        ),
    ] = DEFAULT_MODEL,
    knock_at: Annotated[
        int,
        typer.Option(
            "--knock-at",
            min=-1,
            max=MAX_KNOCK_LIMIT,
            help="Rollout policy: your knock threshold (-1: as mc, chosen from the rules).",
        ),
    ] = -1,
    throw_for_gin: Annotated[
        bool,
        typer.Option(
            "--throw-for-gin/--no-throw-for-gin",
            help="Rollout policy where yours play for gin: throw the card with the fewest "
            "meld partners (as mc before an opponent has knocked with deadwood), or the "
            "least-deadwood card.",
        ),
    ] = True,
    opponents: Annotated[
        str | None,
        typer.Option(
            "--opponents",
            help="The opponents' strategy, if you know it (e.g. greedy:knock_at=0): they "
            "play it in the rollouts (with no memory of the hand before this position), "
            "yours play greedy at the rollout threshold.",
            show_default=False,
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Score every legal action of a position (knock, each discard, or take vs draw) by
    Monte Carlo over the cards you cannot see: expected net points and win probability
    with 95% intervals, best first."""
    r = rules_of(rules, rule)
    try:
        score_list = None
        if scores is not None:
            try:
                score_list = [int(x) for x in scores.replace(",", " ").split()]
            except ValueError:
                raise AdviseError(
                    f"--scores {scores!r}: give one whole number per seat, e.g. 40,25"
                ) from None
        pos = Position.parse(
            r,
            hand=hand,
            pile=pile,
            took=_seat_cards(took, "--took"),
            discarded=None if discarded is None else _seat_cards(discarded, "--discarded"),
            stock=stock,
            seat=seat,
            dealer=dealer,
            turn=turn,
            upcard=upcard,
            just_took=just_took,
            upcard_option=upcard_option,
            scores=score_list,
            rebuilds=rebuilds,
        )
        result = run_advise(
            pos, samples=samples, seed=seed, time_limit=time_limit, model=model,
            knock_at=knock_at, throw_for_gin=throw_for_gin, opponents=opponents,
        )  # fmt: skip
    except (AdviseError, CardError) as error:
        fail(str(error))
    except ValueError as error:
        fail(str(error))
    if as_json:
        print_json({"rules": r.name, **result.as_dict()})
        return
    table = compact_table(
        f"{r.name}: {result.samples} samples in {result.seconds:.2f} s (seed {seed}, {model} model)"
    )
    for name in ("action", "net points", "hands won", "vs best", "p"):
        table.add_column(name, justify="left" if name == "action" else "right", no_wrap=True)
    for a in result.actions:
        best = a is result.actions[0]
        table.add_row(
            a.label,
            format_estimate(a.points.estimate, a.points.low, a.points.high, sign=True),
            format_estimate(a.win.estimate, a.win.low, a.win.high, percent=True),
            "best"
            if best
            else format_estimate(a.vs_best.estimate, a.vs_best.low, a.vs_best.high, sign=True),
            "" if best else format_p(a.p_value),
        )
    console().print(table)
    if result.inference_misses:
        err_console().print(f"note: {misses_note(result.inference_misses)}", markup=False)
    console().print(
        "net points: your points minus the mean of the others' for this hand (95% t interval), "
        "play continued by rollouts (yours greedy, knocking at "
        f"{result.rollout_knock_at} or less"
        f"{', throwing for gin' if result.rollout_throws_for_gin else ''}; the others "
        + (f"playing {opponents}" if opponents else "greedy, knocking at the rule's limit")
        + "); "
        "knock CARD: lay CARD away and knock; "
        "hands won: 95% Wilson interval; "
        "vs best: paired difference on the same samples (95% t interval) and its p-value",
        markup=False,
        highlight=False,
    )
