"""The CFR family on flat game trees: tree extraction, solvers, best response.

* :mod:`.tree`: :func:`build_tree` extracts a perfect-recall sequential game
  once into flat arrays (:class:`GameTree`); Cancellation Hearts single hands
  take a compiled path over the engine (:mod:`.engine_walk`).
* :mod:`.solvers`: CFR, CFR+, Linear CFR, DCFR, Predictive CFR+ on the arrays.
* :mod:`.best_response`: exact best response and NashConv, n players, general sum.
* :mod:`.mccfr`: external- and outcome-sampling MCCFR on pyspiel states.
* :mod:`.policy`: profiles to and from OpenSpiel policies.

A profile (a strategy for every player) is one ``float64[S]`` array over the
tree's sequences.
"""

from pathlib import Path as _Path


def _numba_cache_guard() -> None:
    """The kernels of this package call each other across modules (numba inlines
    them into the caller's cache entry, and its cache only notices edits to the
    caller's own file): drop this folder's cached kernels when any of its sources
    changed."""
    from spiel_game._numba_cache import guard
    here = _Path(__file__).resolve().parent
    guard(here / "__pycache__", sorted(here.glob("*.py")))


_numba_cache_guard()

from ._best_response import BestResponse, NashConvResult, best_response, nash_conv, policy_values  # noqa: E402
from ._mccfr import ExternalSamplingMCCFR, MCCFRPolicy, OutcomeSamplingMCCFR  # noqa: E402
from ._policy import FlatPolicy, from_policy, random_profile, to_tabular_policy, uniform_profile  # noqa: E402
from ._solvers import CFR, DCFR, SOLVERS, CFRPlus, LinearCFR, PCFRPlus, make_solver  # noqa: E402
from ._tree import CHANCE, TERMINAL, GameTree, build_tree  # noqa: E402

__all__ = ["GameTree", "build_tree", "CHANCE", "TERMINAL",
           "CFR", "CFRPlus", "LinearCFR", "DCFR", "PCFRPlus", "SOLVERS", "make_solver",
           "best_response", "nash_conv", "policy_values", "BestResponse", "NashConvResult",
           "ExternalSamplingMCCFR", "OutcomeSamplingMCCFR", "MCCFRPolicy",
           "to_tabular_policy", "from_policy", "FlatPolicy", "uniform_profile",
           "random_profile"]
