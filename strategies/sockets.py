"""Sockets: the seats of the engine of every strategy that plugin strategies play in.

The engine of every strategy (``sim/engine.py``) is compiled once for every line-up of
the built-in strategies. A plugin's hooks cannot be compiled into it without compiling
a new engine for every plugin (each loop it holds: minutes of one core), so the engine
holds ``SOCKETS`` stand-in strategies, whose hooks are sockets (``kernels/link.py``):
calls through a slot that ``sim.engine_build.plug`` fills with the hooks of a plugin
whose hooks are pieces, compiled into pieces of their own. Such a plugin compiles its
three hooks (seconds), never a loop, and an edit to it compiles them again, never the
engine. (A plugin of small plain hooks is compiled into an engine: ``engine_with``.)
"""

from __future__ import annotations

from typing import NamedTuple

from kernels.link import Socket
from kernels.obs import DISCARD_HOOK, KNOCK_HOOK, TAKE_HOOK
from strategies.base import Strategy

SOCKETS = 6  # plugins of pieces that can play in one process: one per seat of a table


class Params(NamedTuple):
    pass  # a plugin seat's parameter row is its own strategy's


def _socket(k: int) -> Strategy:
    """Socket ``k``'s stand-in strategy; its hooks are also this module's names
    ``take_k``, ``discard_k`` and ``knock_k``, where the generated engine imports them."""
    take, discard, knock = (
        Socket(__name__, f"{hook}_{k}", signature)
        for hook, signature in (
            ("take", TAKE_HOOK),
            ("discard", DISCARD_HOOK),
            ("knock", KNOCK_HOOK),
        )
    )
    globals().update({take.__name__: take, discard.__name__: discard, knock.__name__: knock})
    return Strategy(
        name=f"socket{k}",
        description="Where a plugin strategy plays in the engine of every strategy.",
        params=Params,
        take_nb=take,
        discard_nb=discard,
        knock_nb=knock,
        module=__name__,
    )


SOCKETED = [_socket(k) for k in range(SOCKETS)]
"""The stand-in strategies, in the order of their sockets."""
