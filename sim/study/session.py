"""Where and how a study plays, apart from what it plays: one value for its driver.

A study's request says what to play (the rules, the seats, the deals, the seed); its
:class:`Session` says where the chunks run (the executor), under which folder the study
writes, who hears its progress and what call to store as its provenance. The command
line makes one from ``--workers``, ``--backend``, ``--address`` and ``--out``; the
notebook from ``executor=``, ``out=`` and ``progress=``. None of it changes a result:
the same request gives the same numbers in any session. The drivers of the kinds made
from a front take one (``sim.study.compare``, ``sim.study.tournament``,
``sim.study.tune``, and an experiment's ``sim.present.experiment.play_drawn``); the
others still take its parts as keywords.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sim import store
from sim.store import StorePath
from sim.study.execute import LOCAL, Executor
from sim.study.kinds import RESULTS_ROOT

__all__ = ["DEFAULT_SESSION", "Session"]


@dataclass(frozen=True)
class Session:
    """Attributes
    ----------
    executor : Executor
        How the chunks play (threads here, or a Ray cluster).
    out : StorePath
        The results root (a path or a URI given is read as one): a study writes under
        ``out/<its kind's folder>/``.
    progress : callable or None
        Called with each :class:`sim.study.execute.Progress` as the chunks play.
    command : str or None
        The call stored as provenance (None: this process's command line).
    """

    executor: Executor = LOCAL
    out: StorePath = field(default_factory=lambda: store.location(RESULTS_ROOT))
    progress: Callable[[Any], None] | None = None
    command: str | None = None

    def __post_init__(self) -> None:  # a path or a URI's text given for out: its StorePath
        object.__setattr__(self, "out", store.location(self.out))

    @property
    def provenance(self) -> str:
        """The command a study's record stores: ``command``, else this process's."""
        return self.command if self.command is not None else shlex.join(sys.argv)


DEFAULT_SESSION = Session()  # threads of this process, under results/, no progress shown
