"""A study kind's command, made from its front (``sim.front.declare.Front``).

The command takes the front's parameters as options (their typer annotations, in their
order; a subcommand parameter the front names is fixed by each command), then the
options every study command shares: ``--workers``, ``--out``, ``--backend``,
``--address`` and ``--json``. Its seed is the one given, else the one its values hold
(a file's, a folder's to resume), else a fresh one; it makes the request (a refusal: one
line, exit 1), makes its executor, and plays the request in a
:class:`sim.study.session.Session` whose progress prints the seed line (``seed 7``; a
drawn one says how to repeat it) and a bar (``sim.cli.output.study_progress``); then
prints the result, or its record as JSON. A kind that plays no session (advice) takes
``--json`` alone and prints what it found, without a seed line or a bar.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from sim.cli.options import (
    AddressOption,
    Backend,
    BackendOption,
    JsonOption,
    OutOption,
    WorkersOption,
)
from sim.front.declare import Front, ParamsError, spelled
from sim.study.kinds import RESULTS_ROOT

__all__ = ["command_of"]

# the options every study command ends with: (name, typer annotation, default)
_SESSION = (
    ("workers", WorkersOption, None),
    ("out", OutOption, Path(RESULTS_ROOT)),
    ("backend", BackendOption, Backend.local),
    ("address", AddressOption, None),
    ("as_json", JsonOption, False),
)


def command_of(front: Front[Any, Any], command_line: str | None = None) -> Any:
    """The typer callback of ``front``'s command ``command_line`` (default: its kind's
    first; register it with ``app.command``). Where the front names a ``subcommand``
    parameter, the command's last word is its value and the command does not take it."""
    words = (command_line or front.kind.commands[0]).split()
    fixed = {} if front.subcommand is None else {front.subcommand: words[-1]}

    def command(**given: Any) -> None:
        _play(front, {**given, **fixed})

    parameters = [
        inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default,
                          annotation=p.option)
        for p in front.params
        if p.name not in fixed
    ] + [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                          annotation=annotation)
        for name, annotation, default in (_SESSION if front.session else _SESSION[-1:])
    ]  # fmt: skip
    command.__signature__ = inspect.Signature(parameters, return_annotation=None)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": None}
    command.__doc__ = spelled(front.summary, front.spell)
    command.__name__ = words[-1]
    return command


def _play(front: Front[Any, Any], given: dict[str, Any]) -> None:
    """Play ``front``'s command given its options as typer parsed them (``given``: every
    parameter, then the shared options)."""
    from sim.cli.output import chatter, command_line, fail, print_json, study_progress
    from sim.cli.runner import executor_of
    from sim.study.session import Session

    try:
        values = {
            p.name: given[p.name] if p.parse is None else p.parse(given[p.name])
            for p in front.params
        }
        values["seed"], drawn = front.seed_of(values)
        request = front.request(values)
    except ParamsError as error:
        fail(error.words(front.spell, None))
    as_json = given["as_json"]
    if not front.session:  # plays here and now, writes nothing
        result = front.play(request)
        print_json(front.record(result)) if as_json else front.show(result)
        return
    executor = executor_of(given["workers"], given["backend"], given["address"])
    if front.announce is not None:
        chatter(as_json).print(front.announce(request, executor))
    # the seed line and the bar appear with the study's first progress: after every
    # check of its input, so a refused study prints only its error
    with study_progress(
        front.label_of(request), _seed_line(values["seed"], drawn), as_json
    ) as progress:
        result = front.play(request, Session(executor, given["out"], progress, command_line()))
    if front.told is not None:  # what playing said, once the bar is gone
        front.told(result, as_json)
    if as_json:
        print_json({**front.record(result), "seed_drawn": drawn})
    else:
        front.show(result)


def _seed_line(seed: int, drawn: bool) -> str:
    if drawn:
        return f"seed {seed} (drawn; pass --seed {seed} to repeat or resume)"
    return f"seed {seed}"
