"""``greedy`` written as a Python agent: the example of docs/AGENTS.md, seated with
``--seats python:sim.agents.greedy:Greedy/simple``.

In plain words, the decisions of the compiled ``greedy`` with its defaults
(``strategies/greedy.py``), made from what the seat's :class:`~sim.agents.view.View`
shows and nothing else:

* Take the pile's top card when that lowers the least deadwood by at least one point:
  the hand's least deadwood now against the least after taking the card and throwing
  the best other card (the card itself too, where the rules allow throwing it back).
* Throw the card whose removal leaves the least deadwood (ties: the highest value,
  then the highest index), never the card the seat may not throw now.
* Go out with big gin when the rules pay it and every card is melded; else knock when
  the discard leaves at most the knock limit (10 where the rules set none).

The solver calls are the engine's own compiled kernels, so the agent plays exactly the
hands the compiled ``greedy`` plays on the same seed (a test), and fast enough to
measure what the table costs (docs/AGENTS.md "Speed").
"""

from __future__ import annotations

from kernels.deadwood import best_discard_one, min_deadwood_one
from sim.agents.view import View
from sim.rules import RuleSet
from sim.solver import tables_for

__all__ = ["Greedy"]

DEFAULT_KNOCK_AT = 10  # where the rules set no knock limit (compiled greedy's too)
# Called from Python with plain ints: numba's own dispatch (the piece's slot checks its
# argument types in Python, ten times slower than the solve itself).
best_discard = best_discard_one.dispatcher


class Greedy:
    name = "python greedy"
    version = "1"

    def hello(self, rules: RuleSet, seat: int) -> None:
        self.tab = tables_for(rules)
        self.throw_back = rules.discard_taken_card
        self.big_gin = rules.big_gin_bonus > 0
        # The solver's first calls compile it (or load it from the cache): here, in the
        # time a table gives ``hello``, not in the first decision's (docs/AGENTS.md).
        some_hand = (1 << 11) - 1
        min_deadwood_one(some_hand, self.tab)
        best_discard(some_hand, -1, self.tab)

    def take(self, view: View) -> bool:
        pile = view.pile
        if not pile:
            return False
        top = pile[-1]
        hand = view.hand
        now = min_deadwood_one(hand, self.tab)
        _, after = best_discard(hand | 1 << top, -1 if self.throw_back else top, self.tab)
        return bool(now - after >= 1)

    def discard(self, view: View) -> int:
        forbidden = view.forbidden
        card, _ = best_discard(view.hand, -1 if forbidden is None else forbidden, self.tab)
        return int(card)

    def knock(self, view: View, discard: int) -> str:
        hand = view.hand
        if self.big_gin and min_deadwood_one(hand, self.tab) == 0:
            return "big_gin"
        left = min_deadwood_one(hand & ~(1 << discard), self.tab)
        limit = view.knock_limit
        return "knock" if left <= (DEFAULT_KNOCK_AT if limit is None else limit) else "continue"
