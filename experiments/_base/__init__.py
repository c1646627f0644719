"""The experiments' base layer: what the runner, the studies, the tournament
and the benchmarks all build on.

:mod:`experiments._base.registry` (the plug-in interface: ``register``,
``Unit``, ``Summary``, re-exported by :mod:`experiments`),
:mod:`experiments._base.config` (typed, closed configurations),
:mod:`experiments._base.metadata` (a result's provenance) and
:mod:`experiments._base.stats` (intervals and Holm's procedure). These modules
import nothing from the rest of :mod:`experiments`, so no folder of the
package imports itself in a circle.
"""
