"""``rummy replay``: one hand, or one whole game, turn by turn in readable cards.

Examples: ``rummy replay --rules gin --seats simple/greedy:knock_at=5 --seed 7 --deal 12``
and ``rummy replay --rules hollywood-gin --seats simple/greedy --seed 7 --game 3``.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from typing import Annotated

import typer

from sim.cli.options import (
    JsonOption,
    RuleOverrides,
    RulesOption,
    at_most,
    rules_of,
)
from sim.cli.output import fail, print_json
from sim.engine import GameReplay, Replay, StrategyDecisionError, replay_game, replay_hand
from sim.limits import MAX_COUNT, MAX_SEED
from sim.replay import describe_event, game_to_json, hand_to_json, points_of, showdown_of
from sim.rules import DEFAULT_PRESET, RuleSet
from strategies import StrategyError


def _echo(line: str) -> None:
    """One line of the replay; in a terminal wrapped between words to its width, the
    lines after the first indented under it (piped, as it is: one event a line)."""
    if not sys.stdout.isatty():
        typer.echo(line)
        return
    width = shutil.get_terminal_size().columns
    lead = " " * (len(line) - len(line.lstrip()) + 4)
    for part in textwrap.wrap(line, width, subsequent_indent=lead, break_long_words=False,
                              break_on_hyphens=False) or [""]:  # fmt: skip
        typer.echo(part)


def _print_hand(replay: Replay, who: list[str], indent: str) -> None:
    """The hand's moves, outcome and showdown, one line each."""
    for event in replay.events:
        _echo(f"{indent}  {describe_event(event, who)}")
    record = replay.record
    _echo(f"{indent}outcome: {record['outcome_label']} after {record['turns']} turns")
    showdown = showdown_of(replay)
    for s in showdown["seats"] if showdown else []:
        melds = " | ".join(s["melds"]) or "-"
        laid = f", laid off {s['laid_off']}" if s["laid_off"] else ""
        _echo(
            f"{indent}  {who[s['seat']]}: {melds}; unmatched {s['unmatched'] or '-'}"
            f"{laid}; deadwood {s['deadwood']}; points {s['points']}"
        )


def _by_seat(values: list[int], label: list[str] | None = None) -> str:
    """``seat 0 12, seat 1 -3``: points per seat (``label``: how seats are named)."""
    return ", ".join(
        f"{label[s] if label else f'seat {s}'} {points_of(v)}" for s, v in enumerate(values)
    )


def _print_game(gr: GameReplay) -> None:
    names = gr.lineup.labels
    label = [f"seat {seat} ({name})" for seat, name in enumerate(names)]
    record = gr.record
    _echo(
        f"rules {gr.rules.name} (game {gr.rules.game}), seed {gr.seed}, game {gr.game}; "
        f"first dealer seat {record['first_dealer']}"
    )
    totals = [0] * len(names)
    for hand in gr.hands:
        replay, who = hand.replay, [label[s] for s in hand.seats]
        dealer = hand.seats[replay.record["dealer"]]
        out = [str(s) for s in range(len(names)) if s not in hand.seats]
        _echo(
            f"hand {replay.hand_index}: dealer seat {dealer}"
            + (f"; out of the pool: seat {', '.join(out)}" if out else "")
        )
        _print_hand(replay, who, "  ")
        for i, seat in enumerate(hand.seats):
            totals[seat] += replay.record["points"][i]
        _echo("  points so far: " + _by_seat(totals))
    winner = record["winner"]
    result = "no winner" if winner < 0 else f"winner {label[winner]}"
    _echo(
        f"game over after {record['hands_dealt']} hands ({record['hands']} scored): {result}; "
        "final scores: " + _by_seat(record["scores"], label)
    )
    if gr.rules.game.startswith(("gin", "hollywood")):
        boxes = ", ".join(f"seat {s} {b}" for s, b in enumerate(record["boxes"]))
        _echo("  hands won: " + boxes)
    if gr.rules.game.startswith("hollywood"):
        for col, scores in enumerate(record["columns"]):
            _echo(f"  column {col + 1}: " + _by_seat(scores))


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
            "--seats",
            "-s",
            help="Line-up: one spec per seat separated by ',' or '/', "
            "e.g. simple,greedy:knock_at=5.",
        ),
    ],
    seed: Annotated[int, typer.Option(min=0, callback=at_most(MAX_SEED), help="The run's seed.")],
    deal: Annotated[
        int | None,
        typer.Option(
            min=0, callback=at_most(MAX_COUNT), help="The deal number to replay (one hand)."
        ),
    ] = None,
    game: Annotated[
        int | None,
        typer.Option(
            min=0,
            callback=at_most(MAX_COUNT),
            help="The game number to replay: its every hand, under the rules' game mode.",
        ),
    ] = None,
    rules: RulesOption = DEFAULT_PRESET,
    rule: RuleOverrides = None,
    as_json: JsonOption = False,
) -> None:
    """Replay one hand (--deal) or one game (--game) turn by turn: the deal, every draw
    and discard, the knock, the arrangements, lay-offs and scores."""
    if (deal is None) == (game is None):
        fail("give exactly one of --deal N (one hand) and --game N (one game)")
    r = rules_of(rules, rule)
    played = _play(r, seats, seed, deal, game)
    if isinstance(played, GameReplay):
        if as_json:
            print_json(game_to_json(played))
        else:
            _print_game(played)
        return
    who = [f"seat {seat} ({name})" for seat, name in enumerate(played.lineup.labels)]
    if as_json:
        head = {"rules": r.to_dict(), "seats": played.lineup.names, "seed": seed, "deal": deal}
        print_json({**head, **hand_to_json(played, who)})
        return
    _echo(f"rules {r.name}, seed {seed}, deal {deal}; dealer seat {played.record['dealer']}")
    _print_hand(played, who, "")
