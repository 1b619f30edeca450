"""``rummy replay``: one hand, or one whole game, turn by turn in readable cards.

Examples: ``rummy replay --rules gin --seats simple/greedy:knock_at=5 --seed 7 --deal 12``
and ``rummy replay --rules hollywood-gin --seats simple/greedy --seed 7 --game 3``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any

import typer

from kernels import engine as E
from kernels import layout as L
from sim.cards import card_name, format_cards
from sim.cli.options import JsonOption, RuleOverrides, RulesOption, rules_of
from sim.cli.output import fail, print_json
from sim.engine import GameReplay, Replay, StrategyDecisionError, replay_game, replay_hand
from sim.rules import RuleSet
from sim.showdown import score_showdown
from strategies import StrategyError


def _describe(event: tuple[int, int, int, int], who: list[str]) -> str:
    """One event in words; ``who[seat]`` names the hand's seats."""
    code, seat, card, extra = event
    player = who[seat] if seat >= 0 else ""
    text = {
        E.EV_DEAL: lambda: f"deal      {player}: {format_cards(extra)}",
        E.EV_UPCARD: lambda: f"upcard    {card_name(card)}",
        E.EV_PASS: lambda: f"pass      {player} passes the upcard {card_name(card)}",
        E.EV_DRAW_PILE: lambda: f"draw      {player} takes {card_name(card)} from the pile",
        E.EV_DRAW_STOCK: lambda: f"draw      {player} draws {card_name(card)} from the stock",
        E.EV_REBUILD: lambda: f"rebuild   the stock is rebuilt from the pile (rebuild {extra})",
        E.EV_DISCARD: lambda: f"discard   {player} discards {card_name(card)}",
        E.EV_KNOCK: lambda: f"knock     {player} knocks, laying {card_name(card)} away",
        E.EV_BIG_GIN: lambda: f"big gin   {player} goes out with every card",
        E.EV_DEAD_HAND: lambda: "dead hand the stock is down to the wall: no score",
        E.EV_EXHAUSTED: lambda: "exhausted the stock ran out once too often: showdown, no knocker",
    }[code]
    return text()


def _showdown(replay: Replay) -> dict[str, Any] | None:
    """The hand's showdown as ``rummy score`` gives it (None after a dead hand)."""
    if replay.record["outcome_label"] == "dead_hand":
        return None
    knocker = replay.record["knocker"]
    return score_showdown(
        replay.rules,
        replay.final_hands,
        None if knocker < 0 else knocker,
        upcard=replay.record["upcard"],
        dealer=replay.record["dealer"],
    ).to_dict()


def _hand_json(replay: Replay, who: list[str]) -> dict[str, Any]:
    """A hand's replay for tools (seat numbers are the hand's own)."""
    return {
        "events": [
            {
                "code": code,
                "seat": seat,
                "card": card_name(card) if card >= 0 else None,
                "extra": extra,
            }
            for code, seat, card, extra in replay.events
        ],  # fmt: skip
        "moves": [_describe(e, who) for e in replay.events],
        "record": replay.record,
        "showdown": _showdown(replay),
    }


def _print_hand(replay: Replay, who: list[str], indent: str) -> None:
    """The hand's moves, outcome and showdown, one line each."""
    for event in replay.events:
        typer.echo(f"{indent}  {_describe(event, who)}")
    record = replay.record
    typer.echo(f"{indent}outcome: {record['outcome_label']} after {record['turns']} turns")
    showdown = _showdown(replay)
    for s in showdown["seats"] if showdown else []:
        melds = " | ".join(s["melds"]) or "-"
        laid = f", laid off {s['laid_off']}" if s["laid_off"] else ""
        typer.echo(
            f"{indent}  {who[s['seat']]}: {melds}; unmatched {s['unmatched'] or '-'}"
            f"{laid}; deadwood {s['deadwood']}; points {s['points']}"
        )


def _by_seat(values: list[int], label: list[str] | None = None) -> str:
    """``seat 0 12, seat 1 -3``: points per seat (``label``: how seats are named)."""
    return ", ".join(
        f"{label[s] if label else f'seat {s}'} {_points(v)}" for s, v in enumerate(values)
    )


def _points(units: int) -> int | float:
    """Engine units (1/POINT_SCALE point) as points: whole where they are whole."""
    value = Fraction(int(units), L.POINT_SCALE)
    return int(value) if value.denominator == 1 else float(value)


def _print_game(gr: GameReplay) -> None:
    names = gr.lineup.names
    label = [f"seat {seat} ({name})" for seat, name in enumerate(names)]
    record = gr.record
    typer.echo(
        f"rules {gr.rules.name} (game {gr.rules.game}), seed {gr.seed}, game {gr.game}; "
        f"first dealer seat {record['first_dealer']}"
    )
    totals = [0] * len(names)
    for hand in gr.hands:
        replay, who = hand.replay, [label[s] for s in hand.seats]
        dealer = hand.seats[replay.record["dealer"]]
        out = [str(s) for s in range(len(names)) if s not in hand.seats]
        typer.echo(
            f"hand {replay.hand_index}: dealer seat {dealer}"
            + (f"; out of the pool: seat {', '.join(out)}" if out else "")
        )
        _print_hand(replay, who, "  ")
        for i, seat in enumerate(hand.seats):
            totals[seat] += replay.record["points"][i]
        typer.echo("  points so far: " + _by_seat(totals))
    winner = record["winner"]
    result = "no winner" if winner < 0 else f"winner {label[winner]}"
    typer.echo(
        f"game over after {record['hands_dealt']} hands ({record['hands']} scored): {result}; "
        "final scores: " + _by_seat(record["scores"], label)
    )
    if gr.rules.game.startswith(("gin", "hollywood")):
        boxes = ", ".join(f"seat {s} {b}" for s, b in enumerate(record["boxes"]))
        typer.echo("  hands won: " + boxes)
    if gr.rules.game.startswith("hollywood"):
        for col, scores in enumerate(record["columns"]):
            typer.echo(f"  column {col + 1}: " + _by_seat(scores))


def _game_json(gr: GameReplay) -> dict[str, Any]:
    names = gr.lineup.names
    return {
        "rules": gr.rules.to_dict(),
        "seats": names,
        "seed": gr.seed,
        "game": gr.game,
        "hands": [
            {
                "hand_index": h.replay.hand_index,
                "dealt_in": h.seats,  # the game seat of each of the hand's seats
                **_hand_json(h.replay, [f"seat {s} ({names[s]})" for s in h.seats]),
            }
            for h in gr.hands
        ],
        "record": gr.record,
        "final_scores": [_points(v) for v in gr.record["scores"]],
    }


def _play(
    r: RuleSet, seats: str, seed: int, deal: int | None, game: int | None
) -> Replay | GameReplay:
    try:
        if game is not None:
            return replay_game(r, seats, seed=seed, game=game)
        assert deal is not None
        return replay_hand(r, seats, seed=seed, deal=deal)
    except (StrategyError, ValueError, StrategyDecisionError) as error:
        fail(str(error))


app = typer.Typer()


@app.command("replay")
def replay(
    seats: Annotated[
        str,
        typer.Option(
            help="Line-up: one spec per seat separated by ',' or '/', "
            "e.g. simple,greedy:knock_at=5."
        ),
    ],
    seed: Annotated[int, typer.Option(help="The run's seed.")],
    deal: Annotated[int | None, typer.Option(help="The deal number to replay (one hand).")] = None,
    game: Annotated[
        int | None,
        typer.Option(help="The game number to replay: its every hand, under the rules' game mode."),
    ] = None,
    rules: RulesOption = "gin",
    rule: RuleOverrides = None,
    as_json: JsonOption = False,
) -> None:
    """Replay one hand (--deal) or one game (--game) turn by turn: the deal, every draw
    and discard, the knock, the arrangements, lay-offs and scores."""
    if (deal is None) == (game is None):
        fail("give exactly one of --deal N (one hand) and --game N (one game)")
    for name, value in (("deal", deal), ("game", game)):
        if value is not None and value < 0:
            fail(f"--{name} must be a non-negative integer, got {value}")
    r = rules_of(rules, rule)
    played = _play(r, seats, seed, deal, game)
    if isinstance(played, GameReplay):
        if as_json:
            print_json(_game_json(played))
        else:
            _print_game(played)
        return
    names = played.lineup.names
    who = [f"seat {seat} ({name})" for seat, name in enumerate(names)]
    if as_json:
        head = {"rules": r.to_dict(), "seats": names, "seed": seed, "deal": deal}
        print_json({**head, **_hand_json(played, who)})
        return
    typer.echo(f"rules {r.name}, seed {seed}, deal {deal}; dealer seat {played.record['dealer']}")
    _print_hand(played, who, "")
