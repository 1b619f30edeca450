"""Rollout: mc's rollout policy as a strategy of its own (``kernels/rollout.py``).

In plain words:

* Greedy (take the pile card when it lowers the least deadwood by ``min_gain``, knock
  at ``knock_at`` or less, -1 the rule's limit, -2 the threshold ``mc`` chooses for
  the rules (docs/MC.md), big gin when ready), except the discard of a seat that
  plays for gin: with ``gin_drops`` 1, while the hand is not gin, it throws the card
  with the fewest meld partners in the hand (other cards of its rank, cards of its suit
  within two ranks; ties to the higher value), keeping the pairs and near runs that
  the least-deadwood discard throws for being high; with -1 it does so until an
  opponent has knocked with deadwood in this game; with 0 (the default) it is greedy.
* What ``mc``'s own rollouts play for its seat by default: ``mc:opponents=...`` rolls
  its seat out as ``rollout:knock_at=K,gin_drops=D`` with mc's ``knock_at`` (-2 for
  its default) and ``gin_drop`` (``sim/rollouts.py``), the same play as its built-in
  policy.
"""

from __future__ import annotations

from kernels import rollout
from strategies.base import Strategy

Params = rollout.Params  # the kernel's: knock_at, min_gain, gin_drops
SLOT = rollout.SLOT  # where each field sits in the row the hooks read

STRATEGY: Strategy = Strategy(
    name="rollout",
    description=__doc__,
    params=Params,
    take_nb=rollout.take,
    discard_nb=rollout.discard,
    knock_nb=rollout.knock,
    module=__name__,
    bounds={"knock_at": (rollout.FROM_RULES, None), "gin_drops": (-1, 1)},
)
