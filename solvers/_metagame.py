"""Symmetric meta-games over a library of strategies (here: passing conventions).

A symmetric ``n``-player meta-game over ``k`` strategies is given by the list
of *count profiles* (:func:`profiles`: how many seats play each strategy) and
a payoff table ``table[r, i]``: the payoff of a seat playing strategy ``i`` in
profile ``r`` (NaN where ``i`` is absent). On it:

* :func:`replicator_nash`: a symmetric Nash equilibrium by discrete-time
  replicator dynamics (its regret is returned, 0 at an exact equilibrium);
* :func:`one_vs_population`: the 2-player reduction ``A[i, j]`` (one seat
  with ``i``, the other ``n - 1`` with ``j``);
* :func:`alpharank_masses`: OpenSpiel's single-population alpha-Rank on that
  reduction;
* :func:`symmetric_zero_sum_nash`: the maximin mixture of ``A - A^T`` (exact
  for 2 players when the game is constant-sum);
* :func:`library_gain`: the best deviation within the library from
  everyone-plays-``C``;
* :func:`metagame_table`: the table from payoffs of ordered seat assignments;
* :func:`bootstrap_tables`: bootstrap replicates of a table estimated on deals.

And one best response outside the library, :func:`rollout_pass_gain`: a seat
that chooses each passed card by simulation (sampled hidden cards, heuristic
roll-outs in the compiled simulator) against everyone passing by ``C``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence

import numpy as np

__all__ = ["profiles", "fitness_setup", "replicator_nash", "one_vs_population",
           "alpharank_masses", "symmetric_zero_sum_nash", "library_gain", "metagame_table",
           "bootstrap_tables", "rollout_pass_gain"]


def profiles(n_players: int, k: int) -> list[tuple[int, ...]]:
    """Count vectors of ``k`` strategies over ``n_players`` seats (multisets, in
    ``itertools.combinations_with_replacement`` order)."""
    out = []
    for combo in itertools.combinations_with_replacement(range(k), n_players):
        counts = [0] * k
        for i in combo:
            counts[i] += 1
        out.append(tuple(counts))
    return out


def fitness_setup(profs):
    """Opponent multisets (n-1 seats), their multinomial log-coefficients, and
    the row of the full profile for each (multiset, strategy). Depends on the
    profile list only: compute it once and pass it to :func:`replicator_nash`."""
    n, k = sum(profs[0]), len(profs[0])
    index = {p: i for i, p in enumerate(profs)}
    others = np.array(profiles(n - 1, k), np.float64)
    coef = np.array([math.lgamma(n) - sum(math.lgamma(c + 1) for c in row) for row in others])
    rows = np.zeros((len(others), k), np.int64)
    for m, row in enumerate(others.astype(int)):
        for i in range(k):
            full = list(row)
            full[i] += 1
            rows[m, i] = index[tuple(full)]
    return others, coef, rows


def _expected_payoffs(setup, table, x, gathered=None):
    """Fitness of each strategy against n-1 opponents drawn iid from ``x``
    (``gathered``: ``table[rows, arange(k)]``, when already computed)."""
    others, coef, rows = setup
    if gathered is None:
        gathered = table[rows, np.arange(table.shape[1])]
    logx = np.log(np.maximum(x, 1e-300))
    prob = np.exp(coef + others @ logx)
    return prob @ gathered


def replicator_nash(profs, table, *, steps: int = 3000, lr: float = 0.05, setup=None):
    """Discrete-time replicator dynamics from the uniform mixture.

    Returns (mixture, regret): regret = max_i f_i(x) - x . f(x) (0 at a
    symmetric Nash equilibrium of the estimated meta-game). ``setup``:
    :func:`fitness_setup` of ``profs`` (computed here when None)."""
    setup = fitness_setup(profs) if setup is None else setup
    k = table.shape[1]
    gathered = table[setup[2], np.arange(k)]
    x = np.full(k, 1.0 / k)
    for _ in range(steps):
        f = _expected_payoffs(setup, table, x, gathered)
        x = x * np.exp(lr * (f - x @ f))
        x /= x.sum()
    f = _expected_payoffs(setup, table, x, gathered)
    return x, float(f.max() - x @ f)


def one_vs_population(profs, table):
    """The 2-player reduction of the symmetric meta-game: ``A[i, j]`` = payoff of
    one seat using ``i`` while the other n-1 seats use ``j``."""
    k = table.shape[1]
    n = sum(profs[0])
    index = {p: i for i, p in enumerate(profs)}
    a = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            prof = tuple((n - 1 if q == j else 0) + (1 if q == i else 0) for q in range(k))
            a[i, j] = table[index[prof], i]
    return a


def alpharank_masses(profs, table, *, alpha: float = 10.0):
    """alpha-Rank (OpenSpiel) stationary distribution of the one-vs-population
    reduction (OpenSpiel's single-population alpha-Rank is defined for
    2-player symmetric games)."""
    import warnings
    from open_spiel.python.egt import alpharank
    with warnings.catch_warnings():     # exp overflow in the fixation probabilities: benign
        warnings.filterwarnings("ignore", message="overflow encountered",
                                category=RuntimeWarning)
        out = alpharank.compute([one_vs_population(profs, table)], alpha=alpha)
    return np.asarray(out[2], float)


def symmetric_zero_sum_nash(a: np.ndarray) -> np.ndarray:
    """Maximin mixture of the symmetric zero-sum game ``M = A - A^T``
    (``scipy.optimize.linprog``)."""
    from scipy.optimize import linprog
    m = a - a.T
    k = m.shape[0]
    # variables x (k) and v; maximise v s.t. x^T M[:, j] >= v, sum x = 1
    c = np.zeros(k + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-m.T, np.ones((k, 1))])
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(k), A_eq=[[1.0] * k + [0.0]], b_eq=[1.0],
                  bounds=[(0, None)] * k + [(None, None)], method="highs")
    if not res.success:
        raise RuntimeError(res.message)
    x = np.maximum(res.x[:k], 0.0)
    return x / x.sum()


def library_gain(profs, table) -> np.ndarray:
    """``gain[C] = max_j u_j(one j, others C) - u_C(all C)`` (0 when no strategy
    of the library gains by deviating from everyone-``C``)."""
    n, k = sum(profs[0]), table.shape[1]
    index = {p: i for i, p in enumerate(profs)}
    gain = np.zeros(k)
    for c in range(k):
        base = table[index[tuple(n if i == c else 0 for i in range(k))], c]
        best = base
        for j in range(k):
            if j != c:
                prof = tuple((n - 1 if i == c else 0) + (1 if i == j else 0) for i in range(k))
                best = max(best, table[index[prof], j])
        gain[c] = best - base
    return gain


def metagame_table(payoffs: dict, strategies: Sequence[str], n: int):
    """``(profs, table)``: ``table[r, i]`` = mean payoff of a seat playing
    strategy ``i`` over every seat arrangement of count profile ``profs[r]``
    (NaN where ``i`` is absent). ``payoffs[assignment] = float64[n]`` for
    ordered assignments (tuples of strategy names, one per seat)."""
    strategies = list(strategies)
    k = len(strategies)
    profs = profiles(n, k)
    index = {p: r for r, p in enumerate(profs)}
    tot = np.zeros((len(profs), k))
    cnt = np.zeros((len(profs), k))
    for assignment, vals in payoffs.items():
        idx = [strategies.index(c) for c in assignment]
        counts = tuple(idx.count(i) for i in range(k))
        for p, i in enumerate(idx):
            tot[index[counts], i] += vals[p]
            cnt[index[counts], i] += 1
    with np.errstate(invalid="ignore"):
        return profs, np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan)


def bootstrap_tables(pay: np.ndarray, rng: np.random.Generator,
                     replicates: int) -> Iterator[np.ndarray]:
    """Bootstrap over deals: yields ``replicates`` meta-game tables, each the mean
    payoff over ``D`` deals drawn with replacement (``rng.integers(0, D, D)``).

    ``pay[profile, deal, strategy]`` is NaN exactly where the strategy is
    absent from the profile (on every deal), so a resampled mean is a matrix
    product with the deal counts: no copy of ``pay`` per replicate (the
    11-player table holds 12,376 profiles)."""
    n_prof, n_deals, k = pay.shape
    present = ~np.isnan(pay[:, 0, :])
    flat = np.ascontiguousarray(np.nan_to_num(pay, nan=0.0).transpose(0, 2, 1)).reshape(
        n_prof * k, n_deals)
    for _ in range(replicates):
        w = np.bincount(rng.integers(0, n_deals, n_deals), minlength=n_deals)
        t = (flat @ w).reshape(n_prof, k) / n_deals
        t[~present] = np.nan
        yield t


def rollout_pass_gain(players: int, convention: str, *, deals: int, samples: int,
                      play: str = "heuristic", seed: int = 0,
                      workers: int | None = None) -> np.ndarray:
    """``float64[deals]``: per-deal gain of a rollout best-response passer on seat 0
    against everyone else passing by ``convention`` (and playing by ``play``).

    Deal ``d`` is the simulator's deal ``d`` of stream ``seed`` (the same deals as
    a meta-game simulated with that seed). Seat 0 chooses each passed card by
    simulation: it draws ``samples`` hidden-card worlds from its information
    state (``resample_from_infostate``), plays every candidate out with ``play``
    in the compiled engine (common random numbers across candidates) and passes
    the best; the gain is its points saved against passing by ``convention``
    on the same deal."""
    import pyspiel

    import spiel_game
    from spiel_game import _engine as E
    from spiel_game._simulator import make_rng, rollout, simulate

    from ._base.passing import choose_pass

    n = players
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": n})
    pol_c = f"pass:{convention}+{play}"
    out = np.zeros(deals)
    rng = np.random.default_rng(seed + 7919)
    # The deals: replayed from the simulator's traces (duplicate with the meta-game).
    res = simulate({"players": n}, deals, [pol_c] * n, seed=seed, record=True, workers=workers)
    for d in range(deals):
        base = -float(res.points[d, 0])
        st = game.new_initial_state()
        for a in res.trace[d][:game.rules.num_cards]:
            st.apply_action(int(a))
        # Seat 0 chooses its passes by simulation; everyone else passes by the convention.
        while st.engine_state[E.S_PHASE] == E.PH_PASS:
            if st.current_player() == 0:
                dets = [st.resample_from_infostate(0, rng) for _ in range(samples)]
                best, best_v = None, -np.inf
                for a in st.legal_actions():
                    v = 0.0
                    for j, det in enumerate(dets):
                        child = det.child(a)
                        ret = rollout(child.engine_params, np.asarray(child.engine_state),
                                      make_rng(seed, 1000 * d + j), [pol_c] * n)
                        v += ret[0]
                    if v > best_v:
                        best, best_v = a, v
                st.apply_action(best)
            else:
                dist = choose_pass(convention, st)
                st.apply_action(max(dist, key=dist.get) if convention != "random"
                                else int(rng.choice(list(dist))))
        ret = rollout(st.engine_params, np.asarray(st.engine_state), make_rng(seed, d),
                      [pol_c] * n)
        out[d] = ret[0] - base
    return out
