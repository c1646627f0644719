"""The experiments' base layer: what the runner, the studies, the tournament
and the benchmarks all build on.

:mod:`.registry` (the plug-in interface: ``register``, ``Unit``, ``Summary``,
re-exported by :mod:`experiments`), :mod:`.config` (typed, closed
configurations), :mod:`.metadata` (a result's provenance) and :mod:`.stats`
(intervals and Holm's procedure). These modules import nothing from the rest
of :mod:`experiments`, so no folder of the package imports itself in a circle.
"""
