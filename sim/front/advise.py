"""Advice's front: ``rummy advise`` and ``rummy.advise``, declared once.

Every legal action of one position (knock, each discard, or take vs draw), scored by
Monte Carlo over the cards you cannot see. Example::

    rummy advise --rules gin --hand "9C 9D 9H JS QS KS AD 4D 2H 3S JC" --pile "5S KC"
    rummy.advise("9C 9D 9H JS QS KS AD 4D 2H 3S JC", pile="5S KC", took={1: "7H"})

It plays at once and writes nothing (no session): the same position, samples and seed
always give the same answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kernels.engine import MAX_TURNS
from sim.advise import MAX_SAMPLES, MODELS, Advice, Position, advise, model_refused
from sim.front import params
from sim.front.declare import REQUIRED, Front
from sim.limits import MAX_SEED
from sim.present.terminal import compact_table, console, err_console
from sim.rules import MAX_KNOCK_LIMIT, RuleSet
from sim.sizes import ADVISE_SEED, DEFAULT_SAMPLES
from sim.stats import format_estimate, format_p
from sim.study.kinds import ADVISE

__all__ = ["FRONT"]

EXAMPLES = """Example:

rummy advise --rules gin --hand "9C 9D 9H JS QS KS AD 4D 2H 3S JC" --pile "5S KC\""""

# what the position is: Position.parse's keywords, each a parameter of the same name
POSITION = (
    params.words(
        "hand",
        'Your hand, e.g. "9C 9D 9H JS QS KS AD 4D 2H 3S" (one card more: a discard decision).',
        REQUIRED,
        "'AS 2S 3S 7C 7D 7H 9C TC JD QH'",
    ),
    params.words("pile", "The discard pile in order, bottom (oldest) first.", "", "'5S KC'"),
    params.seat_cards("took", "SEAT:CARDS an opponent took from the pile and still holds."),
    params.seat_cards(
        "discarded",
        "SEAT:CARDS an opponent discarded this hand (the opponent "
        "models use them). Default: the pile's cards in turn order, backwards "
        "from the top.",
    ),
    params.number(
        "stock", "Cards left in the stock (default: what the other counts leave).", None, 0
    ),
    params.number("turn", "Draws made so far in the hand.", 0, 0, MAX_TURNS - 1),
    params.number("rebuilds", "Times the stock was rebuilt from the pile so far this hand.", 0, 0),
    params.whole_numbers("scores", "Game scores per seat, comma-separated.", "40,25"),
    params.number("seat", "Your seat.", 0, 0),
    params.number("dealer", "The dealer's seat (default: the seat before yours).", None, 0),
    params.words(
        "upcard", "The hand's first upcard (default: the bottom of the pile).", None, "'7H'"
    ),
    params.words(
        "just_took", "The card you just took from the pile (it may not be discarded).", None, "'7H'"
    ),
    params.flag("upcard_option", "First turn of Gin: take the upcard or pass."),
)
# how it is scored: advise's keywords
SCORING = (
    params.preset("rules"),
    params.overrides("rule", short="-r"),
    params.number("samples", "Sampled deals (the same seed and count always give the same "
                  "answer).", DEFAULT_SAMPLES, 2, MAX_SAMPLES),
    params.seconds("time", "Stop after the round of 250 samples that reaches this many "
                   "seconds."),
    params.number("seed", "Seed of the samples.", ADVISE_SEED, 0, MAX_SEED),
    params.words("model", f"How opponents' unseen cards are sampled: {', '.join(MODELS)} "
                 "(default: as mc, shown where any deadwood may knock, else kept).", None,
                 "'kept'"),
    params.number("knock_at", "Rollout policy: your knock threshold (-1: as mc, chosen from "
                  "the rules).", -1, -1, MAX_KNOCK_LIMIT),
    params.flag("throw_for_gin", "Rollout policy where yours play for gin: throw the card "
                "with the fewest meld partners (as mc before an opponent has knocked with "
                "deadwood), or the least-deadwood card.", default=True),
    params.words("opponents", "The opponents' strategy, if you know it (e.g. "
                 "greedy:knock_at=0): they play it in the rollouts (with no memory of the hand "
                 "before this position), yours play greedy at the rollout threshold.", None,
                 "'greedy:knock_at=0'"),
)  # fmt: skip


@dataclass(frozen=True)
class Asked:
    """A position and how to score it (``sim.advise.advise``'s keywords)."""

    rules: RuleSet
    position: Position
    scoring: dict[str, Any]


def _request(values: Mapping[str, Any]) -> Asked:
    rules = params.rule_set(values, "rules", "rule")
    given = {p.name: values[p.name] for p in POSITION}
    # Position.parse names the card or value at fault, not where it was given: name the
    # hand, the pile and every other part of the position given
    named = ["hand", "pile"] + [p.name for p in POSITION[2:] if values[p.name] != p.default]
    with params.refused(tuple(named), tuple(values[n] for n in named)):
        position = Position.parse(rules, **given)
    if values["model"] is not None and values["model"] not in MODELS:
        with params.refused("model", values["model"]):
            raise ValueError(model_refused(values["model"]))
    if values["opponents"] is not None:
        params.seated("opponents", values["opponents"], rules)
    scoring = {p.name: values[p.name] for p in SCORING if p.name not in ("rules", "rule")}
    scoring["time_limit"] = scoring.pop("time")
    return Asked(rules, position, scoring)


def _play(asked: Asked) -> tuple[Asked, Advice]:
    return asked, advise(asked.position, **asked.scoring)


def _record(done: tuple[Asked, Advice]) -> dict[str, Any]:
    asked, result = done
    return {"rules": asked.rules.name, **result.as_dict()}


def _notebook(done: tuple[Asked, Advice]) -> Any:
    from rummy.results import Advice as Shown

    return Shown.of(done[1])


def _show(done: tuple[Asked, Advice]) -> None:
    from strategies.mc import misses_note

    asked, result = done
    r, seed, model = asked.rules, asked.scoring["seed"], asked.scoring["model"]
    opponents = asked.scoring["opponents"]
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


FRONT = Front(
    kind=ADVISE,
    summary="Score every legal action of a position (knock, each discard, or take vs draw) "
    "by Monte Carlo over the cards you cannot see: expected net points and win probability "
    "with 95% intervals, best first.",
    params=POSITION + SCORING,
    positional=1,
    request=_request,
    play=_play,
    show=_show,
    record=_record,
    notebook=_notebook,
    epilog=EXAMPLES,
    session=False,
)
