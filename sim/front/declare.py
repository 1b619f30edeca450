"""What a study kind declares once: its parameters, and how a request is made of them.

A :class:`Param` is one parameter as both doors take it: the notebook's keyword
(``vs_seats``) is the command's flag with dashes (``--vs-seats``), the default is the same
at both, the help is one text, and each door's value is read into the one value the
request is made of (``--rule knock_limit=7`` and ``rule={"knock_limit": 7}`` both become
``{"knock_limit": 7}``). A :class:`Front` adds how the request is made from those values
(``request``), played in a :class:`sim.study.session.Session` (``play``), printed
(``show``) and written as ``--json`` (``record``).

Values that cannot go together, or that the request refuses, raise :class:`ParamsError`,
whose words each door spells its own way: ``give --deals or --games, not both`` at the
command line, ``give deals or games, not both`` in the notebook.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sim.study.kinds import StudyKind

__all__ = ["REQUIRED", "Front", "Param", "ParamsError", "flag_of", "literal", "spelled"]

REQUIRED = inspect.Parameter.empty  # the default of a parameter both doors require

Request = TypeVar("Request")
Result = TypeVar("Result")


def flag_of(name: str) -> str:
    """The command's flag of a parameter: ``vs_seats`` -> ``--vs-seats``."""
    return "--" + name.replace("_", "-")


def literal(text: str) -> str:
    """``text`` (a value as given) put into a template as it is: its braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")


def spelled(template: str, spell: Callable[[str], str]) -> str:
    """``template`` with each ``{name}`` written as ``spell`` writes it: a help text or a
    refusal in one door's words (``{seats}`` is ``--seats`` or ``seats``)."""
    return template.format_map(_Spelled(spell))


@dataclass(frozen=True)
class Param:
    """One parameter of a study's request, as the command and the notebook take it.

    ``help`` names other parameters as ``{name}`` (:func:`spelled`).

    ``option`` is the command's typer annotation (``Annotated[int | None,
    typer.Option("--deals", "-n", min=2, ...)]``), ``parse`` turns what typer parsed into
    the request's value; ``read`` turns the notebook's value into the same, raising a
    ``ValueError`` or ``TypeError`` whose text says what is allowed (the notebook puts
    ``name=value:`` before it). ``annotation`` is the notebook's type as its signature
    shows it; ``default`` is :data:`REQUIRED` where both doors require a value. Build them
    with the helpers of :mod:`sim.front.params`, which state each bound once for both
    doors.
    """

    name: str
    help: str
    option: Any
    read: Callable[[Any], Any]
    annotation: str
    default: Any = None
    parse: Callable[[Any], Any] | None = None  # None: the value as typer parsed it
    argument: bool = False  # the command takes it by position (STRATEGY), not as a flag

    @property
    def cli(self) -> str:
        """How the command line names it: ``--vs-seats``, or ``STRATEGY`` by position."""
        return self.name.upper() if self.argument else flag_of(self.name)


class ParamsError(ValueError):
    """A request's values refused: ``template`` names parameters as ``{name}`` (each door
    spells them: ``{deals}`` is ``--deals`` or ``deals``; a driver's words put in it go
    through :func:`literal`: a spec may hold braces); ``param`` and ``value``, where
    given, name the one refused (or a tuple of them: the values refused together), and
    the message starts with them."""

    def __init__(
        self, template: str, param: str | tuple[str, ...] | None = None, value: Any = None
    ) -> None:
        super().__init__(template)
        self.template, self.param, self.value = template, param, value

    def words(self, spell: Callable[[str], str], shown: Callable[[str, Any], str] | None) -> str:
        """The message for one door: ``spell`` writes a parameter's name, ``shown`` a
        refused parameter with its value (None: its name alone, the value being the
        door's reading of what was typed, not the text itself)."""
        text = spelled(self.template, spell)
        if self.param is None:
            return text
        names, values = (
            (self.param, self.value)
            if isinstance(self.param, tuple)
            else ((self.param,), (self.value,))
        )
        show = shown or (lambda name, _: spell(name))
        return ", ".join(show(n, v) for n, v in zip(names, values, strict=True)) + f": {text}"


class _Spelled(dict[str, str]):
    def __init__(self, spell: Callable[[str], str]) -> None:
        super().__init__()
        self.spell = spell

    def __missing__(self, key: str) -> str:
        return self.spell(key)


@dataclass(frozen=True)
class Front(Generic[Request, Result]):
    """A study kind's one declaration, from which its command and notebook function are
    made (``sim.front.command``, ``rummy.api``).

    Attributes
    ----------
    kind : StudyKind
        Its name, command and notebook function (``sim.study.kinds``).
    summary : str
        What it does, in a sentence or two: the command's help and the function's
        docstring begin with it.
    params : tuple of Param
        The request's parameters, in the order the help lists them; one is ``seed``
        (each door draws one when it is not given, so a drawn seed can be shown first).
    positional : int
        How many of the first parameters the notebook takes by position.
    request : callable
        The checked values (a dict by parameter name, every default filled) to the
        driver's request; raises :class:`ParamsError`.
    play : callable
        The request and a Session to the driver's result (the request alone where
        ``session`` is False).
    show, record : callable
        The result printed in a terminal, and as a JSON-able dict (``--json``).
    label : callable or None
        The request to its progress bar's label (None: the kind's name): a run's bar
        says the study's name.
    subcommand : str or None
        The parameter each of the kind's commands fixes to its last word (``strategy-chart
        knock`` charts ``kind="knock"``): the commands take the other parameters, the
        notebook all of them.
    stored_seed : callable or None
        The seed the values hold without ``seed`` given (a file's, a folder's to resume),
        or None: then each door draws one (:meth:`seed_of`). Asked first, it raises
        :class:`ParamsError` for values that cannot go with what is stored (a seed given
        to a resume).
    announce : callable or None
        The request and the executor to the line the command prints before it plays
        (what it will play and on how many workers).
    told : callable or None
        What the command says after playing, before the result or its JSON (the result
        and whether JSON follows): notes, hands played.
    notebook : callable
        The result as the notebook function returns it (a type of ``rummy.results``,
        imported when called: the declaration stays light).
    epilog : str
        The command's examples.
    session : bool
        Whether it plays chunks in a Session, writing under a results root (the command's
        ``--workers``, ``--out``, ``--backend``, ``--address``; the notebook's ``out``,
        ``executor``, ``progress``), or plays at once and writes nothing (advice).
    """

    kind: StudyKind
    summary: str
    params: tuple[Param, ...]
    positional: int
    request: Callable[[Mapping[str, Any]], Request]
    play: Callable[..., Result]
    show: Callable[[Result], None]
    record: Callable[[Result], dict[str, Any]]
    notebook: Callable[[Result], Any]
    epilog: str = ""
    session: bool = True
    announce: Callable[[Request, Any], str] | None = None
    told: Callable[[Result, bool], None] | None = None
    stored_seed: Callable[[Mapping[str, Any]], int | None] | None = None
    subcommand: str | None = None
    label: Callable[[Request], str] | None = None

    def label_of(self, request: Request) -> str:
        """The progress bar's label for ``request``."""
        return self.kind.name if self.label is None else self.label(request)

    def seed_of(self, values: Mapping[str, Any]) -> tuple[int, bool]:
        """The seed the request plays and whether it was drawn: the one given, else the
        one the values hold (``stored_seed``), else a fresh one."""
        stored = None if self.stored_seed is None else self.stored_seed(values)
        if values["seed"] is not None:
            return values["seed"], False
        if stored is not None:
            return stored, False
        from sim.study.runs import new_seed  # numpy: only for the studies that play

        return new_seed(), True

    def given(self, values: Mapping[str, Any], names: tuple[str, ...]) -> str | None:
        """The first of ``names`` whose value is not its default's: one the caller gave
        (``--no-duplicate`` where the default is None counts)."""
        defaults = {p.name: p.read(p.default) for p in self.params if p.name in names}
        return next((n for n in names if values[n] != defaults[n]), None)

    def spell(self, name: str) -> str:
        """A parameter as the command line names it (:attr:`Param.cli`)."""
        return next((p.cli for p in self.params if p.name == name), flag_of(name))

    def __post_init__(self) -> None:
        names = [p.name for p in self.params]
        if len(set(names)) != len(names) or "seed" not in names:
            raise ValueError(f"{self.kind.name}: parameters {names} (each once, seed among them)")
