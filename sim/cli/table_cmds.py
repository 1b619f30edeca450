"""Commands a player uses at the table: ``rummy deadwood`` and ``rummy score``.

Examples::

    rummy deadwood 5C 6C 7C 7D 7H 7S KD 2S 9H TH JH
    rummy score --rules gin --knocker 0 --hand "AC 2C 3C 4D 5D 6D 9H 9S 9C 2S" \\
        --hand "TD JD QD KD 5S 6S 7S 8H 2H 3H"
"""

from __future__ import annotations

from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console

from sim.cards import CardError, card_name, format_cards, parse_cards
from sim.cli.options import JsonOption, RuleOverrides, RulesOption, rules_of
from sim.cli.output import compact_table, fail, print_json
from sim.rules import DEFAULT_PRESET
from sim.showdown import ShowdownError, score_showdown
from sim.solver import arrangement, best_discard

app = typer.Typer()


@app.command("deadwood")
def deadwood(
    cards: Annotated[list[str], typer.Argument(help="The hand, e.g. 5C 6C 7C 7D 7H 7S KD.")],
    rules: RulesOption = DEFAULT_PRESET,
    rule: RuleOverrides = None,
    as_json: JsonOption = False,
) -> None:
    """Show a hand's best arrangement and deadwood (and its best discard when the
    hand holds one card more than the rule set's hand size)."""
    r = rules_of(rules, rule)
    try:
        mask = parse_cards(cards, jokers=r.jokers)
        if mask == 0:
            raise CardError("no cards given; name a hand such as 5C 6C 7C 7D 7H")
        best = arrangement(mask, r)
    except (CardError, ValueError) as error:
        fail(str(error))
    n_cards = bin(mask).count("1")
    result: dict[str, Any] = {
        "rules": r.name,
        "cards": format_cards(mask),
        "melds": [format_cards(m) for m in best.melds],
        "unmatched": format_cards(best.unmatched),
        "deadwood": best.deadwood,
    }
    if n_cards == r.cards_per_hand + 1:
        card, left = best_discard(np.array([mask], np.uint64), r)
        result["best_discard"] = card_name(int(card[0]))
        result["deadwood_after_discard"] = int(left[0])
    if as_json:
        print_json(result)
        return
    console = Console()
    console.print(f"[bold]{result['cards']}[/bold]  ({n_cards} cards, rules {r.name})")
    for meld in result["melds"]:
        console.print(f"  meld       {meld}")
    console.print(f"  unmatched  {result['unmatched'] or '-'}")
    console.print(f"  deadwood   [bold]{best.deadwood}[/bold]")
    if "best_discard" in result:
        console.print(
            f"  best discard [bold]{result['best_discard']}[/bold] "
            f"leaves deadwood {result['deadwood_after_discard']}"
        )


def _knocker(value: str) -> str:
    """A seat number or 'none': anything else is a malformed command line."""
    if value.lower() != "none" and not (value.isascii() and value.isdigit()):
        raise typer.BadParameter(f"{value!r} is not a seat number (0, 1, ...) or 'none'")
    return value


@app.command("score")
def score(
    hand: Annotated[
        list[str],
        typer.Option(
            "--hand",
            help="One seat's cards, in seat order (repeat once per seat). The knocker's "
            "hand after it laid its card away, or all its cards for big gin.",
        ),
    ],
    knocker: Annotated[
        str,
        typer.Option(
            callback=_knocker,
            help="The knocking seat (0-based), or 'none' when the stock ran out.",
        ),
    ],
    rules: RulesOption = DEFAULT_PRESET,
    rule: RuleOverrides = None,
    upcard: Annotated[
        str | None,
        typer.Option(help="The first upcard (Oklahoma's knock limit and the spade double)."),
    ] = None,
    dealer: Annotated[
        int | None, typer.Option(min=0, help="Dealer seat (ties at an exhausted showdown).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Score a showdown exactly as docs/RULES.md says: arrangements, lay-offs, outcome, points."""
    r = rules_of(rules, rule, players=len(hand))  # one --hand per seat
    seat = None if knocker.lower() == "none" else int(knocker)
    if dealer is not None and not 0 <= dealer < len(hand):
        fail(f"--dealer {dealer} is not a seat; seats are 0..{len(hand) - 1}")
    try:
        result = score_showdown(r, hand, seat, upcard=upcard, dealer=dealer)
    except (CardError, ShowdownError) as error:
        fail(str(error))
    if as_json:
        print_json({"rules": r.to_dict(), **result.to_dict()})
        return
    data: dict[str, Any] = result.to_dict()
    console = Console()
    limit = "any" if result.knock_limit is None else result.knock_limit
    who = "no knocker (stock exhausted)" if seat is None else f"seat {seat} knocks"
    console.print(f"rules {r.name}: {who}, knock limit {limit}")
    table = compact_table()
    for column in ("seat", "melds", "unmatched", "laid off", "deadwood", "points"):
        table.add_column(column, justify="right" if column in ("deadwood", "points") else "left")
    for s in data["seats"]:
        table.add_row(
            f"{s['seat']}{' (knocker)' if s['seat'] == seat else ''}",
            " | ".join(s["melds"]) or "-",
            s["unmatched"] or "-",
            s["laid_off"] or "-",
            str(s["deadwood"]),
            str(s["points"]),
        )
    console.print(table)
    console.print(f"outcome: [bold]{result.outcome}[/bold]")
