"""Approximate best response (ABR) against a known profile of agents.

One seat plays :class:`ABRBot`; every other seat plays a fixed *target* agent
(an agent spec of :mod:`solvers._registry`, e.g. ``heuristic``,
``convention(passing='dump_points')`` or ``ismcts(iterations=100)``) whose
policy the ABR **knows**. Played against the target on duplicate deals, the
ABR's gain over the target in the same seat is an unbiased estimate of a
**lower bound** on that seat's best-response gain against the profile (the
ABR is one legal strategy; the best response is at least as good): a lower
bound on the target's exploitability, whatever the quality of the ABR's
decisions (:mod:`experiments.studies.abr` measures it with 95% intervals).

**Decision** (one-step lookahead, PIMC against known opponents): at each of
its decisions the ABR draws worlds (the hidden cards) consistent with its
information state, and for every legal action and world plays the rest of
the game with the other seats following the target's real policy and its own
seat following a rollout policy (``rollout``: ``heuristic``, ``random``, or
``lookahead``: a second lookahead step inside the playout, in that world),
``rollouts`` times with common random numbers; it plays the action with the
best mean return. Ties (frequent with deterministic playouts) go to the
target's own action when it is among them, else to the lowest action id; with
``margin > 0`` the ABR leaves the target's action only for one that beats it
by more than ``margin`` (in the game's utility).

**Worlds** (``belief``). Candidates come from the exact constrained sampler
(:class:`spiel_game._determinize.Determinizer`, the distribution of
``resample_from_infostate``), each completed into a full world
(:func:`solvers.beliefs._likelihood.complete_world`: the passes between other players,
which the ABR never sees, drawn uniformly). With ``belief='target'`` each
candidate's history is replayed from its deal and the ABR counts the observed
decisions of the other players that the target would *not* have taken in that
world (:func:`mismatches`): every card another player played, and the cards
passed to the ABR (compared as a multiset with the giver's deterministic
passes). A deterministic target gives likelihood 1 to a world without
mismatches and 0 to any other, so the posterior is the sampler's prior
restricted to the consistent worlds: candidates are drawn until ``worlds``
consistent ones are found (at most ``candidates`` draws) -- exact rejection
sampling. **When fewer than ``worlds`` candidates are consistent** (after a
few tricks the consistent worlds are a tiny fraction of the prior: at 6
players, typically none of 2,000 candidates after the third trick), the ABR
evaluates the ``worlds`` candidates with the fewest mismatches (ties to the
earlier draw): the consistent ones first, then the nearest to consistent (the
ordering of the softened model of :mod:`solvers.beliefs._replay` as epsilon -> 0,
whose likelihood is proportional to ``epsilon ** mismatches``).
``last_search`` reports ``consistent`` (consistent candidates found),
``mean_mismatches`` and ``max_mismatches`` of the evaluated worlds, and
``weighed`` (False when nothing was checked: passing phase, ``belief='none'``).
Not checked: the passes between other players (hidden from the ABR; as in
:mod:`solvers.beliefs._replay`) and earlier hands of a match. ``belief='none'``: the
plain sampler (no inference); ``belief='heuristic'``: the consistency check
with the heuristic as a stand-in model (for targets whose likelihood
cannot be computed cheaply, such as ISMCTS).
``belief='auto'`` (default): ``target`` for compiled targets, ``none`` otherwise.

**Compiled and Python paths.** Targets ``heuristic`` and
``convention(passing=NAME)`` (a passing convention, then the heuristic's play;
``NAME`` any of :data:`solvers._base.passing.CONVENTIONS` except ``random``) run in
compiled code: sampling, the consistency replay and the playouts
(microseconds per playout). Any other target (ISMCTS, PIMC, plug-ins) takes the
Python path: worlds from ``state.resample_from_infostate`` and playouts through
pyspiel states in which the other seats call the target agents (one per seat,
built once, seeded from the ABR's seed); ``horizon`` (plies of real play per
playout, ``None`` = to the end of the game) cuts the playout there and finishes
it in compiled code with every seat playing the heuristic (a cheaper, biased
evaluation; the lower bound stays valid since the ABR's play is still real).

Everything random comes from ``seed`` (one splitmix64 stream; target agents
of the Python path get seeds derived from it). Parameters are checked when the
bot is built (:class:`solvers._base.bots.AgentParameterError` naming the parameter,
the value and what is allowed).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from spiel_game import _engine as E
from spiel_game._determinize import Determinizer, deal_shuffled, determinize
from spiel_game._rng import make_rng_state
from spiel_game._simulator import step_apply, step_legal

from ._base.bots import (Agent, AgentParameterError, HeuristicBot, check_choice, check_int,
                   check_real)
from .beliefs._likelihood import complete_world, replay_score
from ._base.passing import CONVENTIONS, ConventionBot, policy_by_code

__all__ = ["ABRBot", "convention_agent", "target_code", "mismatches", "tabulate_agent",
           "exact_gains", "BELIEFS",
           "ROLLOUTS", "MAX_WORLDS", "MAX_CANDIDATES", "MAX_ROLLOUTS", "MAX_HORIZON"]

K = E.K
#: World models (see the module docstring).
BELIEFS = ("auto", "target", "heuristic", "none")
#: The ABR seat's playout policy: name -> compiled policy code (``lookahead``:
#: at each of its own decisions in a playout, the action whose heuristic
#: playout in that world returns the most, a second lookahead step).
ROLLOUTS = {"random": 0, "heuristic": 1, "lookahead": 2}
MAX_WORLDS = 10**5
MAX_CANDIDATES = 10**7
MAX_ROLLOUTS = 10**4
MAX_HORIZON = 10**6
_NO_MATCH = 1 << 30


# ================================================================ compiled kernels
@njit(cache=True)
def _playout_plain(p, s, me, tcode, rcode, rng, legal, deck_buf):
    """:func:`_playout` for the compiled policy codes (``rcode`` 0 or 1)."""
    while s[E.S_PHASE] != E.PH_OVER:
        if s[E.S_PHASE] == E.PH_DEAL:
            deal_shuffled(p, s, rng, deck_buf)
            continue
        k = step_legal(p, s, legal)
        code = rcode if s[E.S_CUR] == me else tcode
        step_apply(p, s, policy_by_code(code, p, s, legal, k, rng))


@njit(cache=True)
def _playout(p, s, me, tcode, rcode, rng, legal, deck_buf):
    """Play ``s`` to the end in place: seat ``me`` by ``rcode`` (0 uniform, 1 the
    heuristic, 2 :func:`_greedy`), every other seat by ``tcode`` (codes of
    :func:`solvers._base.passing.policy_by_code`); new hands of a match are dealt by shuffling."""
    if rcode != 2:
        _playout_plain(p, s, me, tcode, rcode, rng, legal, deck_buf)
        return
    while s[E.S_PHASE] != E.PH_OVER:
        if s[E.S_PHASE] == E.PH_DEAL:
            deal_shuffled(p, s, rng, deck_buf)
            continue
        k = step_legal(p, s, legal)
        if s[E.S_CUR] != me:
            step_apply(p, s, policy_by_code(tcode, p, s, legal, k, rng))
        else:
            step_apply(p, s, _greedy(p, s, me, tcode, legal, k, rng, deck_buf))


@njit(cache=True)
def _greedy(p, s, me, tcode, legal, k, rng, deck_buf):
    """The ``lookahead`` playout policy at ``me``'s decision in the world ``s``:
    the legal action (of ``legal[:k]``) whose playout (``me`` then playing the
    heuristic, the others ``tcode``, the same random numbers for every action)
    returns ``me`` the most; ties to the first."""
    if k == 1:
        return legal[0]
    acts = legal[:k].copy()
    lb = np.empty(legal.shape[0], np.int32)
    s2 = np.empty_like(s)
    crn = np.empty(1, np.uint64)
    start = rng[0]
    best = acts[0]
    bv = -1e300
    for i in range(k):
        s2[:] = s
        step_apply(p, s2, acts[i])
        crn[0] = start
        _playout_plain(p, s2, me, tcode, 1, crn, lb, deck_buf)
        v = E.returns(p, s2)[me]
        if v > bv:
            bv = v
            best = acts[i]
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    return best


# carries: the world and the observer (p, w, me), the target policy and the cap (tcode, cap), the
# replay's work arrays (fresh, r, scratch, legal, seats, cards, deal), the rng
@njit(cache=True)
def mismatches(p, w, me, tcode, cap, fresh, r, scratch, legal, seats, cards, deal, rng):
    """How many decisions of the other players that ``me`` observed differ, in
    the complete world ``w`` (every hidden field filled in, e.g. by
    :func:`solvers.beliefs._likelihood.complete_world`), from what deterministic
    policy ``tcode`` (:func:`solvers._base.passing.policy_by_code` codes >= 1) would have
    done: each card another player played this hand, plus, for the cards passed
    to ``me``, the size of the multiset difference between them and the giver's
    own passes under ``tcode`` (not counted for the ``random`` convention).
    Replays the current hand from its deal in ``r`` (the replay of
    :func:`solvers.beliefs._likelihood.replay_score`). Returns -1 when ``w``
    contradicts the plays (an illegal play), a number > ``cap`` as soon as the
    count exceeds ``cap``, and 0 outside the play and moon phases. Work arrays as
    :func:`solvers.beliefs._likelihood.world_log_likelihood`; ``scratch``
    int32[state_size]."""
    return np.int64(replay_score(p, w, me, fresh, r, deal, legal, seats, cards, rng, None,
                                 (tcode, cap, scratch)))


# carries: the root and the observer (p, root, me), the budget (worlds, candidates), the world
# model's policy and the rng (bcode, rng), the determinizer (det), the kept worlds and their
# mismatches (kept, miss), the work arrays (cand, fresh, r, scratch, legal, seats, cards, deal,
# tmp), the statistics (stats)
@njit(cache=True)
def _draw_worlds(p, root, me, worlds, candidates, bcode, rng, det, kept, miss, cand, fresh, r,
                 scratch, legal, seats, cards, deal, tmp, stats):
    """Fill ``kept[:m]`` with up to ``worlds`` worlds (see the module docstring):
    with ``bcode`` >= 1 (a policy code) and in the play or moon phase, the
    ``worlds`` candidates with the fewest mismatches (``miss[:m]``; ties to the
    earlier draw) among at most ``candidates`` draws, stopping once ``worlds``
    consistent ones are found; else ``worlds`` plain draws. Returns ``m`` (-1
    when the sampler fails). ``stats``: [candidates drawn, candidates
    contradicting the plays, consistent candidates found]."""
    ph = root[E.S_PHASE]
    weigh = bcode >= 1 and (ph == E.PH_PLAY or ph == E.PH_MOON)
    m = 0
    drawn = 0
    bad = 0
    good = 0
    limit = candidates if weigh else worlds
    for _ in range(limit):
        cand[:] = root
        if not determinize(p, cand, rng, det):
            return -1
        drawn += 1
        mm = 0
        if weigh:
            if not complete_world(p, cand, me, rng, seats, cards, tmp):
                bad += 1
                continue
            # Once full, only a candidate better than the worst kept one matters.
            worst = 0
            wi = 0
            if m == worlds:
                for i in range(m):
                    if miss[i] > worst:
                        worst = miss[i]
                        wi = i
                cap = worst - 1
            else:
                cap = _NO_MATCH
            mm = mismatches(p, cand, me, bcode, cap, fresh, r, scratch, legal, seats,
                            cards, deal, rng)
            if mm < 0:
                bad += 1
                continue
            if mm == 0:
                good += 1
            if m == worlds:
                if mm <= cap:
                    kept[wi, :] = cand
                    miss[wi] = mm
                if good >= worlds:
                    break
                continue
        kept[m, :] = cand
        miss[m] = mm
        m += 1
    stats[0] = drawn
    stats[1] = bad
    stats[2] = good
    return m


# carries: the kept worlds (p, kept, m), the ABR seat and its legal actions (me, legal, k), the
# playouts (rollouts, tcode, rcode, rng), the work arrays and the result (s2, lbuf, deck_buf,
# sums)
@njit(cache=True)
def _values(p, kept, m, me, legal, k, rollouts, tcode, rcode, rng, s2, lbuf, deck_buf, sums):
    """``sums[i]``: total return of ``me`` over the worlds ``kept[:m]`` and
    ``rollouts`` playouts after ``legal[i]`` (common random numbers per world
    and playout)."""
    crn = np.empty(1, np.uint64)
    for w in range(m):
        for _r in range(rollouts):
            rng[0] += np.uint64(0x9E3779B97F4A7C15)
            start = rng[0]
            for i in range(k):
                s2[:] = kept[w]
                step_apply(p, s2, legal[i])
                crn[0] = start
                _playout(p, s2, me, tcode, rcode, crn, lbuf, deck_buf)
                sums[i] += E.returns(p, s2)[me]


# ================================================================ targets
def convention_agent(game, player, seed=0, *, passing: str = "dump_points"):
    """A passing convention (:mod:`solvers._base.passing`) while passing, then the
    heuristic player: :class:`solvers._base.passing.ConventionBot` over
    :class:`solvers._base.bots.HeuristicBot` (the compiled policy
    ``pass:<passing>+heuristic`` of the simulator). ``passing``: one of
    :data:`solvers._base.passing.CONVENTIONS`."""
    passing = check_choice("convention", "passing", passing, CONVENTIONS)
    return ConventionBot(passing, HeuristicBot(game, player, seed), seed=seed)


def target_code(target: str) -> int | None:
    """The compiled policy code of a target spec
    (:func:`solvers._base.passing.policy_by_code`: 1 for ``heuristic``, ``2 + c`` for
    ``convention(passing=...)``), or None when the target has no compiled twin (the
    Python path)."""
    from ._registry import parse_spec
    sp = parse_spec(target)
    kw = sp.kwargs
    if sp.name == "heuristic" and not kw:
        return 1
    if sp.name == "convention" and set(kw) <= {"passing"}:
        name = kw.get("passing", "dump_points")
        if name in CONVENTIONS:
            return 2 + CONVENTIONS.index(name)
    return None


# ================================================================ the bot
def _advance(rng: np.ndarray) -> None:
    """Step the splitmix64 stream ``rng`` (uint64[1]) by its constant, mod 2**64
    (numpy warns on a scalar uint64 overflow; the array update does not)."""
    rng[0] = np.uint64((int(rng[0]) + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF)


class ABRBot(Agent):
    """Approximate best response: a search that models the other seats as a known target
    agent (see the module docstring).

    Keyword-only arguments, checked when the bot is built.

    Args:
      target: agent spec of the other seats' policy (a string; not ``abr``).
      worlds: worlds evaluated per decision, an int in [1, 10**5].
      candidates: most candidate worlds drawn per decision when weighing them,
        an int in [worlds, 10**7].
      rollouts: playouts per world and legal action, an int in [1, 10**4].
      rollout: own playout policy, ``auto`` (``lookahead`` for compiled targets,
        else ``heuristic``), ``heuristic``, ``random`` or ``lookahead``
        (compiled targets only: each own decision in a playout by a one-step
        heuristic lookahead in that world; about (legal actions x remaining
        decisions) times the cost of a playout).
      belief: ``auto`` | ``target`` | ``heuristic`` | ``none`` (``target`` needs a
        compiled target: ``heuristic`` or ``convention(passing=...)``, not
        ``random``).
      horizon: Python path only: plies of real play per playout before the
        compiled heuristic finishes it, an int in [1, 10**6], or None (no cut).
      margin: leave the target's own action only for one better by more than
        this, a number in [0, 10**6].
    """

    def __init__(self, game, player: int, seed: int = 0, *, target: str = "heuristic",
                 worlds: int = 16, candidates: int = 2000, rollouts: int = 1,
                 rollout: str = "auto", belief: str = "auto", horizon: int | None = None,
                 margin: float = 0.0):
        super().__init__(game, player, seed)
        a = "abr"
        from ._registry import AgentSpecError, parse_spec
        if not isinstance(target, str):
            raise AgentParameterError(f"{a}: target={target!r} is a {type(target).__name__}; "
                                      f"allowed: an agent spec string such as 'heuristic'")
        try:
            sp = parse_spec(target)
        except AgentSpecError as e:
            raise AgentParameterError(f"{a}: target={target!r} is not an agent spec: {e}") \
                from None
        if sp.name == "abr":
            raise AgentParameterError(f"{a}: target={target!r} is not allowed; allowed: any "
                                      f"agent spec except 'abr'")
        self.target = str(sp)
        self.worlds = check_int(a, "worlds", worlds, 1, MAX_WORLDS)
        self.candidates = check_int(a, "candidates", candidates, self.worlds, MAX_CANDIDATES)
        self.rollouts = check_int(a, "rollouts", rollouts, 1, MAX_ROLLOUTS)
        rollout = check_choice(a, "rollout", rollout, ("auto",) + tuple(ROLLOUTS))
        belief = check_choice(a, "belief", belief, BELIEFS)
        self.horizon = (None if horizon is None else
                        check_int(a, "horizon", horizon, 1, MAX_HORIZON))
        self.margin = check_real(a, "margin", margin, 0.0, 1e6)
        self.tcode = target_code(self.target)
        if sp.name == "convention":
            if self.tcode is None:
                raise AgentParameterError(
                    f"{a}: target={target!r}: convention takes passing=NAME with NAME one of "
                    f"{', '.join(CONVENTIONS)}")
        if belief == "auto":
            belief = "target" if self.tcode is not None and self.tcode != 2 else "none"
        if belief == "target" and (self.tcode is None or self.tcode == 2):
            raise AgentParameterError(
                f"{a}: belief='target' with target={self.target!r} is not allowed; allowed: "
                f"belief='target' only for deterministic compiled targets ('heuristic', "
                f"'convention(passing=NAME)' with NAME not 'random'); use 'heuristic' or "
                f"'none'")
        self.belief = belief
        self.bcode = {"target": self.tcode, "heuristic": 1, "none": 0}[belief]
        if rollout == "auto":
            rollout = "heuristic" if self.tcode is None else "lookahead"
        self.rollout = rollout
        if self.rollout == "lookahead" and self.tcode is None:
            raise AgentParameterError(f"{a}: rollout='lookahead' with target={self.target!r} "
                                      f"is not allowed; allowed: 'heuristic' or 'random' "
                                      f"(lookahead needs a compiled target)")
        if self.horizon is not None and self.tcode is not None:
            raise AgentParameterError(f"{a}: horizon={self.horizon} is only for targets "
                                      f"without a compiled twin; {self.target!r} plays out "
                                      f"in compiled code to the end (use horizon=None)")
        # Build the target once per other seat now: a bad spec fails here, naming it.
        from ._registry import make_agent
        self._rng = make_rng_state(np.uint64(self.seed), 0)
        self._targets = {}
        if self.tcode is None:
            for q in range(game.num_players()):
                if q != self.player:
                    try:
                        self._targets[q] = make_agent(self.target, game, q,
                                                      self._sub_seed(q))
                    except AgentSpecError as e:
                        raise AgentParameterError(f"{a}: target={target!r}: {e}") from None
        else:   # check the spec builds (e.g. a bad convention keyword)
            try:
                make_agent(self.target, game, (self.player + 1) % game.num_players(), 0)
            except AgentSpecError as e:
                raise AgentParameterError(f"{a}: target={target!r}: {e}") from None
        self._legal = np.empty(K + 2, np.int32)
        #: Statistics of the last decision: worlds, candidates, consistent, mismatches, seconds.
        self.last_search: dict = {}

    def _sub_seed(self, q: int) -> int:
        return int(np.random.SeedSequence([self.seed, 17, q]).generate_state(1, np.uint64)[0]
                   & np.uint64(2**62 - 1))

    # -------------------------------------------------------------- compiled path
    def _compiled_values(self, state, legal):
        me = self.player
        P = np.asarray(state.engine_params)
        det = Determinizer(state, me)
        root = det.root
        n, t = int(P[E.P_N]), int(P[E.P_HAND])
        kept = np.empty((self.worlds, root.shape[0]), np.int32)
        fresh = E.new_state(P)
        stats = np.zeros(3, np.int64)
        miss = np.zeros(self.worlds, np.int64)
        m = _draw_worlds(P, root, me, self.worlds, self.candidates, self.bcode, self._rng,
                         det.record, kept, miss, np.empty_like(root), fresh,
                         np.empty_like(root),
                         np.empty_like(root), np.empty(K + 2, np.int32),
                         np.empty(n * t, np.int64), np.empty(n * t, np.int64),
                         np.zeros((n + 1, K), np.int32),
                         np.empty(int(E.deck(P).sum()) + K, np.int64), stats)
        if m <= 0:
            raise RuntimeError(f"abr: no world could be drawn (sampler failed or every one of "
                               f"{int(stats[0])} candidates contradicts the plays)")
        sums = np.zeros(len(legal))
        _values(P, kept, m, me, legal, len(legal), self.rollouts, self.tcode,
                ROLLOUTS[self.rollout], self._rng, np.empty_like(root),
                np.empty(K + 2, np.int32), np.empty(int(P[E.P_NCARDS]), np.int32), sums)
        ph = root[E.S_PHASE]
        self.last_search.update(weighed=bool(self.bcode >= 1 and ph in (E.PH_PLAY, E.PH_MOON)),
                                worlds=int(m), candidates=int(stats[0]),
                                consistent=int(stats[2]), contradicting=int(stats[1]),
                                mean_mismatches=float(miss[:m].mean()),
                                max_mismatches=int(miss[:m].max()))
        return sums / (m * self.rollouts)

    # -------------------------------------------------------------- Python path
    def _python_worlds(self, state):
        """Worlds as pyspiel states (``resample_from_infostate``), weighed by
        consistency with the heuristic when ``belief='heuristic'``."""
        me = self.player
        gen = np.random.default_rng(int(self._rng[0] >> np.uint64(2)))
        _advance(self._rng)
        P = np.asarray(state.engine_params)
        ph = int(state.engine_state[E.S_PHASE])
        weigh = self.bcode >= 1 and ph in (E.PH_PLAY, E.PH_MOON)
        if not weigh:
            out = [state.resample_from_infostate(me, gen) for _ in range(self.worlds)]
            self.last_search.update(weighed=False, worlds=len(out), candidates=len(out),
                                    consistent=0,
                                    contradicting=0, mean_mismatches=0.0, max_mismatches=0)
            return out
        n, t = int(P[E.P_N]), int(P[E.P_HAND])
        fresh = E.new_state(P)
        r, scratch = np.empty_like(fresh), np.empty_like(fresh)
        legal = np.empty(K + 2, np.int32)
        seats, cards = np.empty(n * t, np.int64), np.empty(n * t, np.int64)
        deal = np.zeros((n + 1, K), np.int32)
        kept, drawn, bad, good = [], 0, 0, 0           # kept: (mismatches, draw, world)
        for _ in range(self.candidates):
            w = state.resample_from_infostate(me, gen)
            drawn += 1
            cap = max(k[0] for k in kept) - 1 if len(kept) == self.worlds else _NO_MATCH
            mm = int(mismatches(P, np.array(w.engine_state), me, self.bcode, cap, fresh, r,
                                scratch, legal, seats, cards, deal, self._rng))
            if mm < 0:
                bad += 1
                continue
            good += mm == 0
            if len(kept) < self.worlds:
                kept.append((mm, drawn, w))
            elif mm <= cap:
                kept.remove(max(kept, key=lambda x: (x[0], x[1])))
                kept.append((mm, drawn, w))
            if good >= self.worlds:
                break
        if not kept:
            raise RuntimeError(f"abr: every one of {drawn} candidate worlds contradicts the "
                               f"plays")
        miss = np.array([k[0] for k in kept])
        self.last_search.update(weighed=True, worlds=len(kept), candidates=drawn,
                                consistent=good,
                                contradicting=bad, mean_mismatches=float(miss.mean()),
                                max_mismatches=int(miss.max()))
        kept = [k[2] for k in sorted(kept, key=lambda x: x[1])]
        return kept

    def _python_playout(self, st, crn):
        """Return of the ABR seat after playing ``st`` on (module docstring)."""
        me = self.player
        P = np.asarray(st.engine_params)
        gen = None
        plies = 0
        while not st.is_terminal():
            if self.horizon is not None and plies >= self.horizon:
                s = np.array(st.engine_state)
                _playout(P, s, me, 1, ROLLOUTS[self.rollout], crn, self._legal,
                         np.empty(int(P[E.P_NCARDS]), np.int32))
                return float(E.returns(P, s)[me])
            if st.is_chance_node():
                if gen is None:
                    gen = np.random.default_rng(int(crn[0] >> np.uint64(2)))
                acts, probs = zip(*st.chance_outcomes())
                st.apply_action(int(acts[int(gen.choice(len(acts), p=np.asarray(probs)))]))
                continue
            cur = st.current_player()
            legal = st.legal_actions()
            if len(legal) == 1:
                a = legal[0]
            elif cur == me:
                s = np.array(st.engine_state)
                k = E.legal_into(P, s, self._legal)
                a = int(policy_by_code(ROLLOUTS[self.rollout], P, s, self._legal, k, crn))
            else:
                a = int(self._targets[cur].step(st))
            st.apply_action(a)
            plies += 1
        return float(st.returns()[me])

    def _python_values(self, state, legal):
        worlds = self._python_worlds(state)
        sums = np.zeros(len(legal))
        crn = np.empty(1, np.uint64)
        for w in worlds:
            for _r in range(self.rollouts):
                _advance(self._rng)
                start = self._rng[0]
                for i, a in enumerate(legal):
                    st = w.clone()
                    st.apply_action(int(a))
                    crn[0] = start
                    sums[i] += self._python_playout(st, crn)
        return sums / (len(worlds) * self.rollouts)

    # -------------------------------------------------------------- decisions
    def action_values(self, state):
        """(legal actions, mean return of the ABR seat after each) at ``state``
        (the ABR's turn); ``last_search`` gets the statistics."""
        if state.is_chance_node() or state.is_terminal():
            raise ValueError("abr decides at its own decision nodes, not at a chance or "
                             "terminal node")
        if state.current_player() != self.player:
            raise ValueError(f"abr plays seat {self.player}, but seat "
                             f"{state.current_player()} is to move")
        legal = np.array(state.legal_actions(), np.int32)
        self.last_search = {}
        t0 = time.perf_counter()
        vals = (self._compiled_values(state, legal) if self.tcode is not None
                else self._python_values(state, legal))
        self.last_search["seconds"] = time.perf_counter() - t0
        return legal, vals

    def target_action(self, state) -> int:
        """The action the target would take in the ABR's seat at ``state``."""
        if self.tcode is not None:
            P = state.engine_params
            s = np.array(state.engine_state)
            k = E.legal_into(P, s, self._legal)
            return int(policy_by_code(self.tcode, P, s, self._legal, k, self._rng))
        if self.player not in self._targets:
            from ._registry import make_agent
            self._targets[self.player] = make_agent(self.target, self.game, self.player,
                                                    self._sub_seed(self.player))
        return int(self._targets[self.player].step(state))

    def _policy_and_action(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)], legal[0]
        acts, vals = self.action_values(state)
        top = vals.max()
        ties = acts[vals >= top - 1e-9]
        if len(ties) > 1 or self.margin > 0:
            h = self.target_action(state)
            hv = float(vals[list(acts).index(h)])
            if h in ties or top - hv <= self.margin:
                a = h
            else:
                a = int(ties[0])
        else:
            a = int(ties[0])
        return [(int(b), 1.0 if b == a else 0.0) for b in acts], a


# ================================================================ exact validation
def tabulate_agent(tree, bot, infosets, out: np.ndarray) -> np.ndarray:
    """Write into ``out`` (a ``float64[S]`` profile of the flat tree ``tree``,
    :mod:`solvers.cfr._tree`) the action ``bot`` chooses at each information set
    in ``infosets`` (queried once, at the set's first history ``tree.state``):
    probability 1 on that action. Exact for a deterministic agent; for a random
    one, the pure strategy of one draw per information set."""
    start = tree.infoset_seq_start
    for i in infosets:
        a, b = int(start[i]), int(start[i + 1])
        acts = tree.sequence_action[a:b]
        if b - a == 1:
            out[a] = 1.0
            continue
        choice = int(bot.step(tree.state(int(tree.infoset_node[i]))))
        if choice not in acts:
            raise RuntimeError(f"{bot!r} chose {choice}, not legal at information set {i} "
                               f"(legal: {acts.tolist()})")
        out[a:b] = (acts == choice).astype(np.float64)
    return out


def exact_gains(game, target: str = "heuristic", abr: str = "abr", seats=None,
                seed: int = 0) -> list[dict]:
    """Exact check of the ABR on a game small enough for a flat tree
    (:func:`solvers.cfr.build_tree`, e.g. the presets ``micro_pass``, ``micro3``,
    ``small``, ``small3``): the profile where every seat plays ``target``
    (tabulated with :func:`tabulate_agent`), and for each seat ``p`` in ``seats``
    (default: all) the ABR's policy (``abr``: an ``abr(...)`` spec without
    ``target``; the target is filled in) tabulated at every information set of
    ``p`` that chance and the others reach. Returns one dict per seat:
    ``target_value`` (the seat's exact expected utility when everyone plays the
    target), ``br_value`` (exact best response to the others' target play),
    ``abr_value`` (the ABR's exact expected utility against them, for the draws
    of its own randomness under ``seed``), ``br_gain = br_value - target_value``,
    ``abr_gain = abr_value - target_value``, ``gap = br_value - abr_value``
    (>= 0), and ``queried`` (information sets at which the ABR was asked).
    Utilities are the game's returns (minus points for ``utility='points'``)."""
    from solvers.cfr import best_response, build_tree, policy_values
    from solvers.cfr._best_response import cf_reach
    from ._registry import make_agent, parse_spec
    sp = parse_spec(abr)
    if sp.name != "abr" or "target" in sp.kwargs:
        raise ValueError(f"abr={abr!r}: expected an 'abr(...)' spec without target= (the "
                         f"target is {target!r})")
    tree = build_tree(game)
    n = tree.num_players
    seats = list(range(n)) if seats is None else [int(q) for q in seats]
    for q in seats:
        if not 0 <= q < n:
            raise ValueError(f"seat {q} is not a seat of this {n}-player game")
    spec = f"abr({', '.join([f'target={target!r}'] + [f'{k}={v!r}' for k, v in sp.params])})"
    prof = np.zeros(tree.num_sequences)
    for q in range(n):
        lo, hi = int(tree.player_infoset_start[q]), int(tree.player_infoset_start[q + 1])
        tabulate_agent(tree, make_agent(target, game, q, seed), range(lo, hi), prof)
    base = policy_values(tree, prof)
    out = []
    for p in seats:
        reach = np.zeros(tree.num_nodes)
        cf_reach(p, tree.node_player, tree.node_data, tree.child_start, tree.chance_prob,
                  tree.infoset_seq_start, prof, reach)
        dec = np.flatnonzero((tree.node_player == p) & (reach > 0))
        infosets = np.unique(tree.node_data[dec])
        mine = prof.copy()
        tabulate_agent(tree, make_agent(spec, game, p, seed), infosets, mine)
        v_abr = float(policy_values(tree, mine)[p])
        br = best_response(tree, prof, p).value
        out.append({"seat": p, "target_value": float(base[p]), "br_value": float(br),
                    "abr_value": v_abr, "br_gain": float(br - base[p]),
                    "abr_gain": float(v_abr - base[p]), "gap": float(br - v_abr),
                    "queried": int(len(infosets))})
    return out
