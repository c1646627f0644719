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

from .best_response import BestResponse, NashConvResult, best_response, nash_conv, policy_values
from .mccfr import ExternalSamplingMCCFR, MCCFRPolicy, OutcomeSamplingMCCFR
from .policy import FlatPolicy, from_policy, random_profile, to_tabular_policy, uniform_profile
from .solvers import CFR, DCFR, SOLVERS, CFRPlus, LinearCFR, PCFRPlus, make_solver
from .tree import CHANCE, TERMINAL, GameTree, build_tree

__all__ = ["GameTree", "build_tree", "CHANCE", "TERMINAL",
           "CFR", "CFRPlus", "LinearCFR", "DCFR", "PCFRPlus", "SOLVERS", "make_solver",
           "best_response", "nash_conv", "policy_values", "BestResponse", "NashConvResult",
           "ExternalSamplingMCCFR", "OutcomeSamplingMCCFR", "MCCFRPolicy",
           "to_tabular_policy", "from_policy", "FlatPolicy", "uniform_profile",
           "random_profile"]
