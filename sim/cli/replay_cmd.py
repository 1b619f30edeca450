"""``rummy replay``: one hand, turn by turn, in readable cards.

Example: ``rummy replay --rules gin --seats simple/greedy:knock_at=5 --seed 7 --deal 12``
"""

from __future__ import annotations

from typing import Annotated

import typer

from kernels import engine as E
from sim.cards import card_name, format_cards
from sim.cli.common import fail, print_json
from sim.cli.table_cmds import JsonOption, RuleOverrides, RulesOption, load_rules
from sim.engine import Replay, StrategyDecisionError, replay_hand
from sim.showdown import score_showdown
from strategies import StrategyError


def _describe(event: tuple[int, int, int, int], names: list[str]) -> str:
    code, seat, card, extra = event
    who = f"seat {seat} ({names[seat]})" if seat >= 0 else ""
    text = {
        E.EV_DEAL: lambda: f"deal      {who}: {format_cards(extra)}",
        E.EV_UPCARD: lambda: f"upcard    {card_name(card)}",
        E.EV_PASS: lambda: f"pass      {who} passes the upcard {card_name(card)}",
        E.EV_DRAW_PILE: lambda: f"draw      {who} takes {card_name(card)} from the pile",
        E.EV_DRAW_STOCK: lambda: f"draw      {who} draws {card_name(card)} from the stock",
        E.EV_REBUILD: lambda: f"rebuild   the stock is rebuilt from the pile (rebuild {extra})",
        E.EV_DISCARD: lambda: f"discard   {who} discards {card_name(card)}",
        E.EV_KNOCK: lambda: f"knock     {who} knocks, laying {card_name(card)} away",
        E.EV_BIG_GIN: lambda: f"big gin   {who} goes out with every card",
        E.EV_DEAD_HAND: lambda: "dead hand the stock is down to the wall: no score",
        E.EV_EXHAUSTED: lambda: "exhausted the stock ran out once too often: showdown, no knocker",
    }[code]
    return text()


def _to_json(replay: Replay, showdown: dict[str, object] | None) -> dict[str, object]:
    names = replay.lineup.names
    return {
        "rules": replay.rules.to_dict(),
        "seats": names,
        "seed": replay.seed,
        "deal": replay.deal,
        "events": [
            {"code": code, "seat": seat, "card": card_name(card) if card >= 0 else None, "extra": extra}
            for code, seat, card, extra in replay.events
        ],
        "moves": [_describe(e, names) for e in replay.events],
        "record": replay.record,
        "showdown": showdown,
    }


def replay(
    seats: Annotated[
        str, typer.Option(help="Line-up: one spec per seat separated by ',' or '/', e.g. simple,greedy:knock_at=5.")
    ],
    seed: Annotated[int, typer.Option(help="The run's seed.")],
    deal: Annotated[int, typer.Option(help="The deal number to replay.")],
    rules: RulesOption = "gin",
    rule: RuleOverrides = None,
    as_json: JsonOption = False,
) -> None:
    """Replay one hand turn by turn: the deal, every draw and discard, the knock,
    the arrangements, lay-offs and scores."""
    r = load_rules(rules, rule)
    try:
        rp = replay_hand(r, seats, seed=seed, deal=deal)
    except (StrategyError, ValueError) as error:
        fail(str(error))
    except StrategyDecisionError as error:
        fail(str(error))
    showdown = None
    outcome = rp.record["outcome_label"]
    if outcome != "dead_hand":
        knocker = rp.record["knocker"]
        result = score_showdown(
            r,
            rp.final_hands,
            None if knocker < 0 else knocker,
            upcard=rp.record["upcard"],
            dealer=rp.record["dealer"],
        )
        showdown = result.to_dict()
    if as_json:
        print_json(_to_json(rp, showdown))
        return
    names = rp.lineup.names
    typer.echo(f"rules {r.name}, seed {seed}, deal {deal}; dealer seat {rp.record['dealer']}")
    for event in rp.events:
        typer.echo("  " + _describe(event, names))
    typer.echo(f"outcome: {outcome} after {rp.record['turns']} turns")
    if showdown is not None:
        for s in showdown["seats"]:  # type: ignore[union-attr]
            melds = " | ".join(s["melds"]) or "-"
            laid = f", laid off {s['laid_off']}" if s["laid_off"] else ""
            typer.echo(
                f"  seat {s['seat']} ({names[s['seat']]}): {melds}; unmatched {s['unmatched'] or '-'}"
                f"{laid}; deadwood {s['deadwood']}; points {s['points']}"
            )
