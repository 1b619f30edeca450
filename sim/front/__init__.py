"""A study kind's front: the one declaration its command and its notebook function are
made from.

A study kind declares its request's parameters once (:class:`sim.front.declare.Param`:
name, default, bounds, help, how each door's value is read) and how a request is made of
them, played, printed and recorded (:class:`sim.front.declare.Front`). The command line
(``sim.front.command.command_of``) and the notebook (``rummy.api``) build their entry
points from it, so the two take the same parameters with the same defaults and refuse
the same values, and neither restates them. Plain Python: importing the declarations
loads neither numba nor polars.
"""
