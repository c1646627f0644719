"""Exact analysis of the passing conventions on reduced deals.

For a 2-player deal (``micro_pass``: H/S x Q/A, 2 cards each, pass 1) and a
3-player deal (``micro3``: 2 packs of JQK of spades, 2 cards each, pass 1),
everything is exact on the flat game tree of :mod:`solvers.cfr`:

1. **Fixed passing, solved play.** For an assignment of conventions to seats,
   every pass-phase decision node of the tree is turned into a *chance* node
   whose probabilities are the convention's distribution
   (:func:`solvers._base.passing.choose_pass` at that information set)
   (:func:`solvers.cfr._exploitability.fix_to_chance`). Sequences and information sets keep
   their numbers, so a profile of the fixed tree is a profile of the full tree. The play
   phase is then solved by a CFR variant (``DCFR`` by default) on that tree;
   its NashConv (``play_nash_conv``) is the exact NashConv of the play
   subgame with passing fixed (best responses range over play decisions only).
   This needs no change to the solver API (which has no notion of frozen
   information sets): the kernels already treat chance nodes generically.
2. **Exploitability of C.** Profile ``P_C`` = C's passes + the play solved
   for everyone-C. For each seat ``p`` (exact, :func:`best_response`):

   * ``gain_pass_play``: ``BR_p(P_C) - v_p(P_C)`` on the full tree (``p``
     deviates in passing and play);
   * ``gain_pass_only``: the same on the tree where ``p``'s *play* nodes are
     chance nodes with ``P_C``'s play policy (``p`` deviates in passing only)
     (:func:`solvers.cfr._exploitability.deviation_gains`).

   Reported per seat and averaged over seats.
3. **Meta-game.** For every ordered assignment of conventions to seats
   (``k**n``), the play is solved *for that assignment* (CFR as in 1) and the
   exact expected payoff of each seat is recorded. The symmetric meta-game
   ``table[count profile, strategy]`` averages over all seat arrangements of a
   count profile. Nash: for 2 players, the symmetric zero-sum game of payoff
   differences ``A - A^T`` (``A[i, j]`` = payoff of ``i`` against ``j``) by
   :func:`scipy.optimize.linprog` (exact Nash of ``A`` when the deal is
   constant-sum; the regret of the mixture in ``A`` itself is reported); for
   3 players, replicator dynamics (:func:`solvers._metagame.replicator_nash`,
   regret reported). alpha-Rank: OpenSpiel's single-population
   ``alpharank.compute`` on the one-vs-population matrix (for 2 players this is
   ``A`` itself).

Approximations: the play phase is solved only to the stated NashConv (the
exploitabilities are exact *given* that play policy); the 3-player Nash is a
replicator rest point (its regret is reported); alpha-Rank uses the 2-player
one-vs-population reduction for 3 players. Payoffs are the game's returns
(negative points).

``python -m experiments run passing_exact --profile quick`` (rows in
``results/<profile>/passing_exact/rows.csv``).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools

import numpy as np

import spiel_game
from solvers.cfr._best_response import nash_conv, policy_values
from solvers.cfr._exploitability import deviation_gains, fix_to_chance, phase_infosets
from solvers.cfr._solvers import SOLVERS, make_solver
from solvers.cfr._tree import GameTree, build_tree
from solvers._metagame import (alpharank_masses, metagame_table, one_vs_population,
                              replicator_nash, symmetric_zero_sum_nash)
from solvers._base.passing import CONVENTIONS, choose_pass
from spiel_game._engine import PH_PASS

from .._base.config import check_names
from .._base.registry import Summary, Unit, register, table_text

__all__ = ["PassingExactConfig", "DealAnalysis", "convention_pass_profile", "solve_play",
           "exploitability", "units", "run_unit", "summarize"]


@dataclasses.dataclass(frozen=True)
class PassingExactConfig:
    seed: int = 0                                    # recorded only: all exact
    deals: tuple[str, ...] = ("micro_pass", "micro3")
    conventions: tuple[str, ...] = tuple(CONVENTIONS)
    solver: str = "DCFR"
    iterations: int = 200                            # CFR iterations per play solve
    tremble: float = 1e-3                            # pass tremble while solving play
    alpha: float = 10.0                              # alpha-Rank ranking intensity

    def __post_init__(self):
        check_names("preset", self.deals, sorted(spiel_game.PRESETS))
        check_names("convention", self.conventions, list(CONVENTIONS))
        check_names("solver", [self.solver], list(SOLVERS))


@functools.cache
def _deal(deal: str) -> DealAnalysis:
    return DealAnalysis(deal)


class DealAnalysis:
    """A deal's full tree, its pass-phase information sets and the conventions'
    pass distributions there (cached per deal name)."""

    def __init__(self, deal: str):
        self.deal = deal
        self.tree = build_tree(spiel_game.load(deal))
        tr = self.tree
        self.is_pass = phase_infosets(tr, PH_PASS)
        self.pass_nodes = (tr.node_player >= 0) & self.is_pass[np.maximum(tr.node_data, 0)]
        self.pass_seq = self.is_pass[tr.sequence_infoset]
        self._conv: dict[str, np.ndarray] = {}

    def convention(self, name: str) -> np.ndarray:
        """``float64[S]``: ``name``'s pass distribution on pass sequences, 0 elsewhere."""
        if name not in self._conv:
            self._conv[name] = convention_pass_profile(self.tree, self.is_pass, name)
        return self._conv[name]

    def assignment_profile(self, assignment) -> np.ndarray:
        """Pass sequences of seat ``p`` follow ``assignment[p]`` (0 elsewhere)."""
        tr = self.tree
        out = np.zeros(tr.num_sequences)
        for p, c in enumerate(assignment):
            sl = tr.player_sequences(p)
            out[sl] = self.convention(c)[sl]
        return out


def convention_pass_profile(tree: GameTree, is_pass: np.ndarray, name: str) -> np.ndarray:
    out = np.zeros(tree.num_sequences)
    seq = tree.infoset_seq_start
    for i in np.flatnonzero(is_pass):
        dist = choose_pass(name, tree.state(int(tree.infoset_node[i])))
        for s in range(seq[i], seq[i + 1]):
            out[s] = dist[int(tree.sequence_action[s])]
    return out


# ------------------------------------------------------------------ solving
def solve_play(da: DealAnalysis, assignment, *, solver: str = "DCFR", iterations: int = 200,
               tremble: float = 1e-3):
    """Solve the play phase with passing fixed by ``assignment``.

    CFR runs on the tree whose passes follow ``(1 - tremble) * C + tremble *
    uniform``, so that play after passes the convention never makes (reached
    when a player deviates in passing) is solved rather than left uniform; the
    reported NashConv is that of the play subgame with the *exact* passes.

    Returns ``(profile float64[S] on the full tree, play NashConv, values float64[n])``."""
    pass_prof = da.assignment_profile(assignment)
    fixed = fix_to_chance(da.tree, pass_prof, da.pass_nodes)
    train = fixed
    if tremble > 0:
        uni = np.zeros(da.tree.num_sequences)
        seq = da.tree.infoset_seq_start
        width = (seq[1:] - seq[:-1])[da.tree.sequence_infoset]
        uni[da.pass_seq] = 1.0 / width[da.pass_seq]
        train = fix_to_chance(da.tree, (1 - tremble) * pass_prof + tremble * uni, da.pass_nodes)
    s = make_solver(solver, train).iterate(iterations)
    prof = s.average_policy()
    prof[da.pass_seq] = pass_prof[da.pass_seq]
    nc = nash_conv(fixed, prof)
    return prof, float(nc), policy_values(da.tree, prof)


def exploitability(da: DealAnalysis, profile: np.ndarray) -> dict[str, np.ndarray]:
    """Per seat: ``values``, ``gain_pass_only`` (best response in the passing
    phase only) and ``gain_pass_play`` (in passing and play): exact gains."""
    g = deviation_gains(da.tree, profile, da.pass_nodes)
    return {"values": g["values"], "gain_pass_only": g["gain_free"],
            "gain_pass_play": g["gain_all"]}


# ------------------------------------------------------------------ runner
def units(config: PassingExactConfig) -> list[dict]:
    """One unit per deal."""
    return [{"deal": d} for d in config.deals]


def run_unit(config: PassingExactConfig, unit: Unit) -> list[dict]:
    """Tidy rows of one deal: ``kind`` = ``seat`` (per convention and seat),
    ``convention`` (per convention: averages, meta-game Nash and alpha-Rank
    masses) and ``assignment`` (per ordered assignment of conventions to seats)."""
    da = _deal(unit.params["deal"])
    n = da.tree.num_players
    convs = list(config.conventions)
    rows = []
    payoffs, solved = {}, {}
    for assignment in itertools.product(convs, repeat=n):
        prof, nc, vals = solve_play(da, assignment, solver=config.solver,
                                    iterations=config.iterations, tremble=config.tremble)
        payoffs[assignment] = vals
        solved[assignment] = (prof, nc)
        rows.append({"deal": da.deal, "kind": "assignment", "players": n,
                     "assignment": "|".join(assignment), "play_nash_conv": nc,
                     **{f"payoff_{p}": float(v) for p, v in enumerate(vals)}})
    profs, table = metagame_table(payoffs, convs, n)
    a = one_vs_population(profs, table)
    if n == 2:
        nash = symmetric_zero_sum_nash(a)
        method = "linprog(A - A^T)"
    else:
        nash, _ = replicator_nash(profs, table)
        method = "replicator"
    f = a @ nash if n == 2 else None
    if n == 2:
        regret = float(f.max() - nash @ f)
    else:
        regret = replicator_nash(profs, table)[1]
    ar = alpharank_masses(profs, table, alpha=config.alpha)
    for ci, c in enumerate(convs):
        prof, nc = solved[(c,) * n]
        ex = exploitability(da, prof)
        for p in range(n):
            rows.append({"deal": da.deal, "kind": "seat", "players": n, "convention": c,
                         "seat": p, "value": float(ex["values"][p]),
                         "gain_pass_only": float(ex["gain_pass_only"][p]),
                         "gain_pass_play": float(ex["gain_pass_play"][p])})
        rows.append({"deal": da.deal, "kind": "convention", "players": n, "convention": c,
                     "solver": config.solver, "iterations": config.iterations,
                     "tremble": config.tremble,
                     "play_nash_conv": nc, "self_play_value": float(ex["values"].mean()),
                     "gain_pass_only": float(ex["gain_pass_only"].mean()),
                     "gain_pass_play": float(ex["gain_pass_play"].mean()),
                     "nash": float(nash[ci]), "nash_method": method, "nash_regret": regret,
                     "alpharank": float(ar[ci])})
    return rows


def summarize(config: PassingExactConfig, rows):
    conv = rows[rows.kind == "convention"]
    table = conv[["deal", "convention", "play_nash_conv", "gain_pass_only", "gain_pass_play",
                  "nash", "alpharank", "nash_regret"]].reset_index(drop=True)
    return Summary(tables={"summary": table}, text=table_text(table, 4))


register("passing_exact", PassingExactConfig, units, run_unit, summarize,
         profiles={"quick": {"iterations": 200},
                   "paper": {"iterations": 2000}},
         description="exact exploitability and meta-game of passing conventions on "
                     "reduced deals (fixed passing, CFR-solved play, exact best response)")
