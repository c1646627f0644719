"""The agents' base layer: what every other folder of :mod:`solvers` builds on.

:mod:`solvers._base.bots` (the ``Agent`` base class, ``RandomBot``, ``HeuristicBot``, the
argument checks), :mod:`solvers._base.heuristic` (the compiled rule-based player),
:mod:`solvers._base.passing` (the passing conventions) and :mod:`solvers._base.specs`
(the agent-spec parser). These modules import nothing from the rest of :mod:`solvers`, so the
search, belief, network and CFR folders can use them without an import loop.
The public names are re-exported by :mod:`solvers`.
"""
