"""Exact exploitability of registered agents on reduced decks.

:func:`agent_profile` turns any agent of :mod:`solvers._registry` (a spec such as
``"heuristic"`` or ``"ismcts(iterations=100)"``, an :class:`AgentSpec`, or a
factory ``f(game, player, seed)``; one for all seats or one per seat) into a
profile ``float64[S]`` over the information sets of a flat
:class:`~solvers.cfr._tree.GameTree`: at each information set, the agent's
action distribution at a representative state of that set (its first history
in breadth-first order, ``tree.infoset_node``). :func:`agent_exploitability`
then computes the profile's exact NashConv and each player's best-response
gain (:func:`solvers.cfr._best_response.nash_conv`), with a bootstrap interval
when the profile is estimated.

**What the profile means.** Every call builds a fresh agent
(``make_agent(spec, game, player, seed)``) and asks it for one move at the
given state, so nothing an agent keeps between moves survives, and each call
gets its own seed: ``seed_of(seed, infoset, j)`` for the ``j``-th call at an
information set (a SeedSequence hash, :func:`call_seed`). The profile is the
behaviour strategy of "the agent, freshly seeded at every decision"; an agent
that correlates its decisions through one seed over a whole hand plays a
mixed strategy whose behaviour equivalent may differ (not measured here).

**How each seat's distribution is obtained** (``method``):

* ``"deterministic"``: one action per information set; the agent is called
  with two different seeds at every information set with more than one legal
  action and must return the same action (else ValueError naming the set):
  the profile is exact (pure).
* ``"policy"``: the distribution the agent reports (``step_with_policy``),
  one call per information set. Exact for agents that draw their action from
  a seed-independent reported policy (``random``, ``openspiel_uniform``).
* ``"sample"``: the empirical distribution of the actions of ``samples``
  independently seeded calls per information set: an estimate, with counts.
* ``"auto"`` (default): ``"policy"`` for the agents in :data:`POLICY_AGENTS`;
  otherwise two seeds at every information set: if the actions agree
  everywhere the seat is ``"deterministic"``, else ``"sample"`` (the two probe
  calls are the first two samples).

Information sets with a single legal action need no call (probability 1).

**Sampling error.** For sampled seats, :func:`agent_exploitability` resamples
every sampled information set's actions (a multinomial bootstrap, ``bootstrap``
replicates) and recomputes NashConv and the gains. The plug-in NashConv of an
estimated profile is biased upward (a best response exploits sampling noise:
the expected maximum exceeds the maximum of the expectation; the on-policy
values are unbiased because the information sets are sampled independently),
and its bootstrap replicates are biased upward again by about as much, so the
interval reported is the basic (reverse-percentile) bootstrap interval
``[2 x - q_hi, 2 x - q_lo]`` (``x`` the plug-in value, ``q`` the replicates'
quantiles at ``confidence``, default 95%; lower ends clipped at 0), which
reflects the bias (the random agent sampled 64 times per set on ``micro3``,
seed 0: plug-in 9.06, percentile interval [8.68, 9.57] misses the exact 8.667,
basic interval [8.55, 9.44] holds it). The bootstrap mean minus the
plug-in value is reported as the bias estimate (``nash_conv_bias``). Both
shrink as ``samples`` grows.

**Leak check.** An agent must decide from the information set alone. Where an
information set has more than one history, the agent is also called at a
second history of the set (the last in breadth-first order) with the same
seed as the first call at the representative history; any difference is
recorded in :attr:`AgentProfile.leaks` (the set's key, both histories, both
answers). For deterministic and policy seats a difference means the decision
depends on hidden state; for sampled seats it means the agent's random stream
or decision depends on the state beyond the information set (a distributional
leak is then possible but not proved).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable, Sequence

import numpy as np
import pyspiel

from spiel_game._checks import shorten

from .cfr._best_response import nash_conv
from .cfr._tree import GameTree

__all__ = ["agent_profile", "agent_exploitability", "AgentProfile", "AgentExploitability",
           "Leak", "call_seed", "METHODS", "POLICY_AGENTS"]

#: Values of ``method``.
METHODS = ("auto", "deterministic", "policy", "sample")

#: Agents whose action is drawn from the policy they report, and whose
#: reported policy does not depend on the seed: ``method="auto"`` reads it.
POLICY_AGENTS = frozenset({"random", "openspiel_uniform"})

_MASK63 = (1 << 63) - 1


def call_seed(seed: int, infoset: int, j: int) -> int:
    """The agent seed (an int in ``[0, 2**63)``) of the ``j``-th call at
    information set ``infoset`` in a run seeded ``seed``."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(int(infoset), int(j)))
    return int(ss.generate_state(1, np.uint64)[0]) & _MASK63


@dataclasses.dataclass(frozen=True)
class Leak:
    """An information set where the agent answered differently at two of its
    histories with the same seed: ``key`` (``information_state_string``), the
    two histories (action lists from the root), the two actions and, for
    ``"policy"`` seats, the two reported policies."""
    player: int
    infoset: int
    key: str
    history_a: list
    history_b: list
    action_a: int
    action_b: int
    policy_a: dict | None = None
    policy_b: dict | None = None


@dataclasses.dataclass(frozen=True, eq=False)
class AgentProfile:
    """The agents of every seat as a profile on one tree.

    ``profile float64[S]``; ``counts int64[S]`` (sampled information sets:
    how many calls chose each action; 0 elsewhere); ``samples int64[I]``
    (calls behind each information set's distribution, 0 where it is exact:
    one legal action, or a deterministic or policy seat); ``methods``: the
    method each seat ended up with; ``specs``: each seat's agent as text;
    ``calls``: agent calls made (leak checks included); ``seconds``: wall
    time; ``leak_checked int64[n]``: information sets checked per seat;
    ``leaks``: the differences found (see the module docstring)."""
    profile: np.ndarray
    counts: np.ndarray
    samples: np.ndarray
    methods: tuple
    specs: tuple
    seed: int
    calls: int
    seconds: float
    leak_checked: np.ndarray
    leaks: tuple
    game: str
    num_sequences: int

    def __repr__(self) -> str:
        """One line: the seats' agents and methods, sizes and leaks (not the arrays)."""
        sampled = int(np.count_nonzero(self.samples > 0))
        game = shorten(self.game, 60, quote=False, count=False)
        return (f"AgentProfile(game={game!r}, agents={list(self.specs)}, "
                f"methods={list(self.methods)}, sequences={self.num_sequences:,}, "
                f"sampled_infosets={sampled:,}, calls={self.calls:,}, "
                f"leaks={len(self.leaks)}, seconds={self.seconds:.1f})")

    @property
    def estimated(self) -> bool:
        """Whether any information set's distribution is a sample estimate."""
        return bool(np.any(self.samples > 0))

    def sampled_infosets(self) -> np.ndarray:
        """Ids of the information sets whose distribution is estimated."""
        return np.flatnonzero(self.samples > 0)

    def resample(self, tree: GameTree, rng: np.random.Generator) -> np.ndarray:
        """A bootstrap replicate of the profile: every sampled information
        set's counts redrawn from a multinomial with its empirical
        frequencies (the other sets unchanged)."""
        out = self.profile.copy()
        ids = self.sampled_infosets()
        if ids.size == 0:
            return out
        a = tree.infoset_seq_start[ids]
        k = tree.infoset_seq_start[ids + 1] - a
        width = int(k.max())
        cols = np.arange(width)
        idx = a[:, None] + np.minimum(cols[None, :], k[:, None] - 1)
        valid = cols[None, :] < k[:, None]
        m = self.samples[ids]
        p = np.where(valid, self.counts[idx] / m[:, None], 0.0)
        p /= p.sum(axis=1, keepdims=True)
        draw = rng.multinomial(m, p)
        out[idx[valid]] = (draw / m[:, None])[valid]
        return out


@dataclasses.dataclass(frozen=True, eq=False)
class AgentExploitability:
    """Exact NashConv of an agent profile and each player's gain.

    ``nash_conv`` = ``sum(gains)``; ``gains[i]`` = ``best_response_values[i]
    - values[i]`` (``float64[n]``). When the profile is estimated
    (``estimated``): ``nash_conv_interval`` (lo, hi) and ``gains_interval
    float64[n, 2]``, basic bootstrap intervals at ``confidence``;
    ``nash_conv_bias``: bootstrap mean minus the plug-in value (the upward
    bias of the plug-in estimate); ``bootstrap``: replicates used. Exact
    profiles have zero-width intervals and zero bias."""
    nash_conv: float
    gains: np.ndarray
    values: np.ndarray
    best_response_values: np.ndarray
    estimated: bool
    nash_conv_interval: tuple
    gains_interval: np.ndarray
    nash_conv_bias: float
    bootstrap: int
    confidence: float
    agents: AgentProfile

    def __repr__(self) -> str:
        """One line: NashConv (with its interval when estimated) and each player's
        gain, the agents; not the arrays."""
        lo, hi = self.nash_conv_interval
        ci = (f" [{lo:.4g}, {hi:.4g}] ({self.confidence:.0%}, {self.bootstrap} bootstrap)"
              if self.estimated else " (exact)")
        gains = ", ".join(f"{g:.4g}" for g in np.asarray(self.gains).tolist())
        return (f"AgentExploitability(nash_conv={self.nash_conv:.4g}{ci}, gains=[{gains}], "
                f"agents={list(self.agents.specs)}, "
                f"game={shorten(self.agents.game, 60, quote=False, count=False)!r})")

    def as_row(self) -> dict:
        """A flat dict (for a results table)."""
        row = {"nash_conv": self.nash_conv, "nash_conv_lo": self.nash_conv_interval[0],
               "nash_conv_hi": self.nash_conv_interval[1], "nash_conv_bias": self.nash_conv_bias,
               "estimated": self.estimated}
        for p, g in enumerate(self.gains):
            row[f"gain_{p}"] = float(g)
            row[f"gain_{p}_lo"] = float(self.gains_interval[p, 0])
            row[f"gain_{p}_hi"] = float(self.gains_interval[p, 1])
        return row


# ============================================================== agents
def _spec_text(spec) -> str:
    if isinstance(spec, str):
        return spec
    if callable(spec) and not hasattr(spec, "name"):
        return getattr(spec, "__qualname__", None) or repr(spec)
    return str(spec)


def _spec_name(spec) -> str | None:
    from solvers._registry import AgentSpec, parse_spec
    if isinstance(spec, (str, AgentSpec)):
        return parse_spec(spec).name
    return None


def _fast_factory(spec, game, player: int) -> Callable:
    """A factory ``f(game, player, seed)`` for ``spec``, checked once through
    :func:`solvers._registry.make_agent` (which reports a bad spec, an unknown
    agent or an agent that refuses the game), resolved so that later calls
    skip the registry's plug-in scan."""
    from solvers._registry import AgentSpec, factory, make_agent, parse_spec
    make_agent(spec, game, player, 0)
    if isinstance(spec, (str, AgentSpec)):
        sp = parse_spec(spec)
        return functools.partial(factory(sp.name), **sp.kwargs)
    return spec


def _call(factory, game, player: int, seed: int, state, spec_text: str, key_of):
    """One move of a fresh agent: ``(action, reported policy dict or None)``."""
    from solvers._registry import make_agent
    bot = make_agent(factory, game, player, seed)
    policy = None
    try:
        pol, action = bot.step_with_policy(state)
        policy = {int(a): float(p) for a, p in pol} if pol else None
    except (NotImplementedError, AttributeError, pyspiel.SpielError):
        action = bot.step(state)
    action = int(action)
    legal = state.legal_actions()
    if action not in legal:
        raise ValueError(f"agent {spec_text!r} (player {player}) chose action {action}, not "
                         f"legal at information set {key_of()!r}; legal: {legal}")
    return action, policy


def _policy_row(policy, actions, spec_text, player, key) -> np.ndarray:
    if policy is None:
        raise ValueError(f"agent {spec_text!r} (player {player}) reports no policy "
                         f"(step_with_policy); use method='sample' or 'deterministic'")
    row = np.array([policy.get(int(a), 0.0) for a in actions], np.float64)
    outside = {a: q for a, q in policy.items() if q > 0 and a not in set(actions.tolist())}
    if np.any(row < 0) or abs(row.sum() - 1.0) > 1e-9 or outside:
        raise ValueError(f"agent {spec_text!r} (player {player}) reports a policy that is not "
                         f"a distribution over the legal actions at {key!r}: {policy}")
    return row


def _as_specs(tree: GameTree, agents) -> list:
    n = tree.num_players
    if isinstance(agents, (str, bytes)) or callable(agents) or not isinstance(agents, Sequence):
        return [agents] * n
    specs = list(agents)
    if len(specs) != n:
        raise ValueError(f"agents: expected one spec for all seats or {n} (one per seat of "
                         f"this {n}-player game), got {len(specs)}")
    return specs


def _check_tree(tree) -> None:
    if not isinstance(tree, GameTree):
        raise TypeError(f"expected a GameTree (solvers.cfr.build_tree(game)), got "
                        f"{type(tree).__name__}")
    if tree.game is None:
        raise ValueError("the tree has no game; build it with build_tree(game)")


def _other_history(tree: GameTree) -> np.ndarray:
    """``int64[I]``: the last history of each information set in breadth-first
    order (equal to ``infoset_node`` where the set has one history)."""
    last = tree.infoset_node.astype(np.int64).copy()
    dec = np.flatnonzero(tree.node_player >= 0)
    np.maximum.at(last, tree.node_data[dec], dec)
    return last


def agent_profile(tree: GameTree, agents, *, samples: int = 32, seed: int = 0,
                  method: str = "auto", leak_check: bool = True,
                  progress: Callable[[str], None] | None = None) -> AgentProfile:
    """The agents' behaviour as a profile on ``tree`` (see the module docstring).

    Args:
      tree: a :class:`GameTree` built with its game (``build_tree(game)``).
      agents: one agent for every seat (a spec string, an ``AgentSpec`` or a
        factory ``f(game, player, seed)``) or a sequence of one per seat.
      samples: calls per information set for sampled seats (>= 2 under
        ``"auto"``, >= 1 under ``"sample"``).
      seed: the seed every call's seed derives from (:func:`call_seed`).
      method: one of :data:`METHODS`, for every seat (see the module docstring).
      leak_check: also call the agent at a second history of every
        information set that has one (same seed) and record differences.
      progress: called with a line of text after each seat.
    """
    _check_tree(tree)
    if method not in METHODS:
        raise ValueError(f"method={method!r}: expected one of {', '.join(METHODS)}")
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or \
            samples < (2 if method == "auto" else 1):
        raise ValueError(f"samples={samples!r}: expected an int >= "
                         f"{2 if method == 'auto' else 1} for method={method!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or \
            not 0 <= seed < 2**63:
        raise ValueError(f"seed={seed!r}: expected an int in [0, 2**63)")
    game = tree.game
    specs = _as_specs(tree, agents)
    t0 = time.perf_counter()
    S, n = tree.num_sequences, tree.num_players
    seq = tree.infoset_seq_start
    profile = np.zeros(S)
    counts = np.zeros(S, np.int64)
    nsamp = np.zeros(tree.num_infosets, np.int64)
    other = _other_history(tree) if leak_check else None
    keys = tree.infoset_keys()
    methods, leaks, checked = [], [], np.zeros(n, np.int64)
    calls = 0
    for p in range(n):
        spec = specs[p]
        text = _spec_text(spec)
        factory = _fast_factory(spec, game, p)
        lo, hi = int(tree.player_infoset_start[p]), int(tree.player_infoset_start[p + 1])
        ids = [i for i in range(lo, hi) if seq[i + 1] - seq[i] > 1]
        for i in range(lo, hi):
            if seq[i + 1] - seq[i] == 1:
                profile[seq[i]] = 1.0
        states = {i: tree.state(int(tree.infoset_node[i])) for i in ids}

        def act(i, j, state=None, _f=factory, _p=p, _t=text, _states=states):
            nonlocal calls
            calls += 1
            st = _states[i] if state is None else state
            return _call(_f, game, _p, call_seed(seed, i, j), st, _t, lambda: keys[i])

        m = method
        if m == "auto":
            m = "policy" if _spec_name(spec) in POLICY_AGENTS else None
        first = {}
        if m == "policy":
            for i in ids:
                first[i] = act(i, 0)
                a = int(seq[i])
                profile[a:int(seq[i + 1])] = _policy_row(first[i][1], tree.sequence_action[
                    a:int(seq[i + 1])], text, p, keys[i])
        else:
            second = {}
            for i in ids:
                first[i] = act(i, 0)
                if m == "deterministic" or m is None or samples > 1:
                    second[i] = act(i, 1)
            differ = [i for i in ids if i in second and second[i][0] != first[i][0]]
            if m == "deterministic" and differ:
                i = differ[0]
                raise ValueError(
                    f"agent {text!r} (player {p}) is not deterministic: at information set "
                    f"{keys[i]!r} seeds {call_seed(seed, i, 0)} and {call_seed(seed, i, 1)} "
                    f"chose {first[i][0]} and {second[i][0]} ({len(differ)} sets differ); "
                    f"use method='sample' or 'auto'")
            if m is None:
                m = "sample" if differ else "deterministic"
            if m == "deterministic":
                for i in ids:
                    k = tree.sequence_action[seq[i]:seq[i + 1]].tolist().index(first[i][0])
                    profile[seq[i] + k] = 1.0
            else:
                for i in ids:
                    a = int(seq[i])
                    acts = tree.sequence_action[a:int(seq[i + 1])].tolist()
                    got = [first[i][0]] + ([second[i][0]] if i in second else [])
                    got += [act(i, j)[0] for j in range(len(got), samples)]
                    for x in got:
                        counts[a + acts.index(x)] += 1
                    nsamp[i] = samples
                    profile[a:int(seq[i + 1])] = counts[a:int(seq[i + 1])] / samples
        methods.append(m)
        if leak_check:
            for i in ids:
                h = int(other[i])
                if h == int(tree.infoset_node[i]):
                    continue
                checked[p] += 1
                b = act(i, 0, tree.state(h))
                a = first[i]
                same = a[0] == b[0] and (m != "policy" or _close(a[1], b[1]))
                if not same:
                    leaks.append(Leak(p, i, keys[i], tree.history(int(tree.infoset_node[i])),
                                      tree.history(h), a[0], b[0],
                                      a[1] if m == "policy" else None,
                                      b[1] if m == "policy" else None))
        if progress is not None:
            progress(f"player {p}: {text} -> {m}, {len(ids)} information sets with a choice, "
                     f"{calls} calls so far, {time.perf_counter() - t0:.1f} s")
    return AgentProfile(profile=profile, counts=counts, samples=nsamp, methods=tuple(methods),
                        specs=tuple(_spec_text(s) for s in specs), seed=int(seed), calls=calls,
                        seconds=time.perf_counter() - t0, leak_checked=checked,
                        leaks=tuple(leaks), game=str(game), num_sequences=S)


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= 1e-12 for k in a)


def agent_exploitability(tree: GameTree, agents, *, samples: int = 32, seed: int = 0,
                         method: str = "auto", bootstrap: int = 200,
                         confidence: float = 0.95, leak_check: bool = True,
                         progress: Callable[[str], None] | None = None) -> AgentExploitability:
    """Exact NashConv and per-player best-response gains of ``agents`` on ``tree``.

    ``agents``: what :func:`agent_profile` takes, or an :class:`AgentProfile`
    already computed on this tree (then ``samples``, ``method`` and
    ``leak_check`` are not used). When the profile is estimated, ``bootstrap``
    replicates (seeded from ``seed``) give the ``confidence`` basic bootstrap
    intervals and the bias estimate; ``bootstrap=0`` skips them (intervals
    NaN).
    """
    _check_tree(tree)
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)) or \
            bootstrap < 0:
        raise ValueError(f"bootstrap={bootstrap!r}: expected an int >= 0")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence={confidence!r}: expected a number in (0, 1)")
    if isinstance(agents, AgentProfile):
        prof = agents
        if prof.game != str(tree.game) or prof.num_sequences != tree.num_sequences:
            raise ValueError(f"the AgentProfile was made on a tree of {prof.game!r} "
                             f"({prof.num_sequences:,} sequences); this tree is of "
                             f"{str(tree.game)!r} ({tree.num_sequences:,} sequences)")
    else:
        prof = agent_profile(tree, agents, samples=samples, seed=seed, method=method,
                             leak_check=leak_check, progress=progress)
    res = nash_conv(tree, prof.profile, return_details=True)
    n = tree.num_players
    gains = np.asarray(res.player_improvements, np.float64)
    if not prof.estimated:
        interval = (res.nash_conv, res.nash_conv)
        gi = np.stack([gains, gains], axis=1)
        bias, reps = 0.0, 0
    elif bootstrap == 0:
        interval, gi, bias, reps = (np.nan, np.nan), np.full((n, 2), np.nan), np.nan, 0
    else:
        rng = np.random.default_rng(np.random.SeedSequence(entropy=int(seed),
                                                           spawn_key=(2**32 - 1,)))
        rep = np.empty((bootstrap, n))
        for b in range(bootstrap):
            rep[b] = nash_conv(tree, prof.resample(tree, rng),
                               return_details=True).player_improvements
        q = [(1 - confidence) / 2, (1 + confidence) / 2]
        tot = rep.sum(axis=1)
        lo, hi = np.quantile(tot, q)
        # The basic (reverse-percentile) interval: the plug-in value is biased
        # upward and its bootstrap replicates more so; reflecting corrects it.
        interval = (max(0.0, 2 * res.nash_conv - hi), 2 * res.nash_conv - lo)
        glo, ghi = np.quantile(rep, q, axis=0)
        gi = np.stack([np.maximum(0.0, 2 * gains - ghi), 2 * gains - glo], axis=1)
        bias, reps = float(tot.mean() - res.nash_conv), bootstrap
    return AgentExploitability(
        nash_conv=float(res.nash_conv), gains=gains, values=np.asarray(res.on_policy_values),
        best_response_values=np.asarray(res.best_response_values), estimated=prof.estimated,
        nash_conv_interval=tuple(float(x) for x in interval), gains_interval=np.asarray(gi),
        nash_conv_bias=bias, bootstrap=reps, confidence=float(confidence), agents=prof)
