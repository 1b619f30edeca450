"""``rummy agent``: serve a strategy's decisions over stdin and stdout (docs/AGENTS.md).

Example: ``rummy agent mc --rules eaai``, started by a table elsewhere (the EAAI
framework's ``contrib/eaai/RummySimPlayer.java``) that writes one JSON request a line
and reads one answer a line (``sim.agents.serve``).
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from sim.cli.options import RuleOverrides, RulesOption, rules_of
from sim.rules import DEFAULT_PRESET

app = typer.Typer()


@app.command("agent")
def agent(
    spec: Annotated[
        str,
        typer.Argument(
            help="The strategy to serve: mc, greedy:knock_at=7, chart:gin, chart:file=PATH."
        ),
    ],
    rules: RulesOption = DEFAULT_PRESET,
    rule: RuleOverrides = None,
) -> None:
    """Serve one strategy's decisions to a table elsewhere: JSON lines on stdin and stdout.

    Each request is one JSON object on one line (hello, take, discard, melds, bye) and
    gets one answer line, made by the strategy's compiled hooks from the seat's view as
    in our engine (docs/AGENTS.md: the protocol, a sample exchange). A bad request is
    answered with {"error": "..."} and the talk goes on; the command ends at bye or at
    the end of its input. A bad SPEC or rule set: one line on stderr, exit status 1,
    before any request is read.
    """
    from sim.agents.player import player
    from sim.agents.serve import serve

    served = player(spec, rules=rules_of(rules, rule))  # compiled or loaded here, not later
    try:
        serve(served, sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:
        # The table stopped reading: the talk is over. Nothing left to say on the way out.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
