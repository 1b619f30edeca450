"""``rummy rules``: list the presets of docs/RULES.md and show a rule set in full.

Examples: ``rummy rules list``, ``rummy rules show gin --rule knock_limit=7 --json``.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console

from sim.cli.output import compact_table, fail, print_json
from sim.rules import (
    PRESET_DESCRIPTIONS,
    PRESETS,
    RuleError,
    RuleSet,
    allowed_values,
    get_rules,
    parse_overrides,
)

app = typer.Typer(
    help="List the rule presets, or show every parameter of a rule set.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _text(value: Any) -> str:
    """Write a parameter value as the CLI accepts it back (``--rule k=v``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _players(rules: RuleSet) -> str:
    # Knock Rummy presets default to 4 but RULES.md allows 2-6; Gin is two-player only.
    return str(rules.players) if rules.scoring == "gin" else f"{rules.players} (2-6)"


def _layoff(rules: RuleSet) -> str:
    if not rules.layoff:
        return "off"
    return "on" if rules.layoff_play == "optimal" else f"on, {rules.layoff_play}"


@app.command("list", short_help="The rule presets (docs/RULES.md: every rule).")
def list_presets(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print every preset's parameters as JSON.")
    ] = False,
) -> None:
    """List the rule presets (docs/RULES.md gives every rule and formula)."""
    if as_json:
        print_json(
            {
                name: {"description": PRESET_DESCRIPTIONS[name], **rules.to_dict()}
                for name, rules in PRESETS.items()
            }
        )
        return
    out = Console()
    # Two tables, so that each fits 80 columns whole: what each preset is, then its
    # main parameters (no name is ever cut).
    about = compact_table("Rule presets (every rule and formula: docs/RULES.md)")
    about.add_column("name", no_wrap=True, style="bold")
    about.add_column("description")
    for name in PRESETS:
        about.add_row(name, PRESET_DESCRIPTIONS[name])
    out.print(about)
    out.print()
    table = compact_table(
        "Their main parameters (knock: the knock limit; `rummy rules show NAME`: all)"
    )
    for column in ("name", "players", "knock", "layoff", "scoring", "stock", "game"):
        table.add_column(
            column, no_wrap=column != "game", style="bold" if column == "name" else None
        )
    for name, rules in PRESETS.items():
        table.add_row(
            name,
            _players(rules),
            _text(rules.knock_limit),
            _layoff(rules),
            rules.scoring,
            rules.stock_exhaustion,
            rules.game,
        )
    out.print(table)


@app.command("show")
def show(
    preset: Annotated[
        str,
        typer.Argument(help=f"Preset name, one of: {', '.join(PRESETS)}.", show_default=False),
    ],
    rule: Annotated[
        list[str] | None,
        typer.Option(
            "--rule",
            "-r",
            help="Override one parameter, as key=value (e.g. knock_limit=7); repeatable.",
            show_default=False,
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the parameters as JSON instead of a table.")
    ] = False,
) -> None:
    """Show every parameter of a preset, after any --rule overrides."""
    try:
        overrides = parse_overrides(rule or [])
        rules = get_rules(preset, **overrides)
    except RuleError as error:
        fail(str(error))
    if as_json:
        print_json(rules.to_dict())
        return
    title = f"{preset}" + "".join(f" {key}={_text(value)}" for key, value in overrides.items())
    caption = f"{PRESET_DESCRIPTIONS.get(preset)}. Every rule and formula: docs/RULES.md"
    table = compact_table(title)
    table.caption = caption
    table.add_column("parameter", no_wrap=True, style="bold")
    table.add_column("value", no_wrap=True)
    table.add_column("", no_wrap=True)
    table.add_column("allowed")
    for key, value in rules.to_dict().items():
        if key == "hand_size" and rules.hand_size is None:
            note = "auto, by players"
        else:
            note = "--rule" if key in overrides else ""
        table.add_row(key, _text(value), note, allowed_values(key))
    Console().print(table)
