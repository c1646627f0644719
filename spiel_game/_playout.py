"""Random play through the pyspiel API: the one random-play loop of the project.

:func:`play_random` works on any pyspiel state (this game's or another's): it
uses only ``is_terminal``, ``is_chance_node``, ``chance_outcomes``,
``legal_actions``, ``apply_action`` and ``clone``, and imports nothing of the
rules, so every layer (solvers, experiments, benchmarks, tests, notebooks)
may use it; :func:`cards_played` is a stopping rule for this game's states.

:func:`conformance` is the API check built on it, in the spirit of pgx's
``api_test(env)``: call it on any game variant (``conformance(spiel_game.load(
players=7, deck="kitty"))``) to play random games and check, at every state,
what the pyspiel API promises. Chance
nodes are sampled by their probabilities, decisions uniformly::

    st = play_random(game, np.random.default_rng(0))                 # a whole game
    st = play_random(game, rng, until=cards_played(40))              # mid-hand decision
    play_random(state, rng, in_place=True)                           # finish ``state``

The draws are those of the loops this replaced: a chance outcome is
``outcomes[rng.choice(len(outcomes), p=probs)]``, a decision
``legal[rng.integers(len(legal))]`` (the same stream as ``rng.choice(legal)``),
so a seed gives the same game as before.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["random_action", "play_random", "cards_played", "conformance", "ConformanceError"]


def random_action(state, rng: np.random.Generator) -> int:
    """A chance outcome drawn by its probability, or a uniformly random legal action."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        return int(outcomes[int(rng.choice(len(outcomes), p=np.asarray(probs, np.float64)))])
    legal = state.legal_actions()
    return int(legal[int(rng.integers(len(legal)))])


def play_random(game_or_state, rng: np.random.Generator, *,
                until: Callable[[object], bool] | None = None, in_place: bool = False):
    """Play random actions (:func:`random_action`) until the game ends or
    ``until(state)`` is true (checked before every action); return the state.

    ``game_or_state``: a game (play starts from ``new_initial_state()``) or a
    state (play continues from a clone of it, or from the state itself with
    ``in_place=True``). ``rng``: a ``numpy.random.Generator`` (or a seed)."""
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    if hasattr(game_or_state, "new_initial_state"):
        st = game_or_state.new_initial_state()
    else:
        st = game_or_state if in_place else game_or_state.clone()
    while not st.is_terminal() and not (until is not None and until(st)):
        st.apply_action(random_action(st, rng))
    return st


def cards_played(n: int) -> Callable[[object], bool]:
    """A stopping rule for :func:`play_random`: true at a decision (not a chance
    node) once ``n`` cards of the current hand have been played to tricks."""
    from . import _engine as E

    return lambda st: not st.is_chance_node() and int(st.engine_state[E.S_NPLAYED]) >= n


class ConformanceError(AssertionError):
    """A state broke a promise of the pyspiel API (the message names the check,
    the game and the history that reaches the state)."""


def conformance(game, *, games: int = 3, seed: int = 0, serialize: bool = True) -> dict:
    """Play ``games`` random games of ``game`` and check every state.

    At every state: the current player is a seat, chance or terminal and
    agrees with ``is_chance_node``/``is_terminal``; legal actions are sorted,
    distinct, in ``[0, num_distinct_actions)`` (chance outcomes in
    ``[0, max_chance_outcomes)`` with positive probabilities summing to 1) and
    match ``legal_actions_mask``; a clone has the same string, history and
    legal actions and does not share state with the original; information
    state and observation tensors have the game's shapes (when provided) and
    strings are text; ``returns`` (and ``rewards``) have one entry per player,
    returns within ``[min_utility, max_utility]``, and a zero-sum game's
    returns add to 0; the game ends within ``max_game_length`` decisions; with
    ``serialize``, ``game.deserialize_state(state.serialize())`` gives the same
    state. Then OpenSpiel's own ``pyspiel.random_sim_test`` runs on ``game``.

    Returns ``{"games", "states", "max_length"}``; raises
    :class:`ConformanceError` at the first broken promise."""
    import pyspiel

    rng = np.random.default_rng(seed)
    gtype = game.get_type()
    n = game.num_players()
    n_actions, n_chance = game.num_distinct_actions(), game.max_chance_outcomes()
    lo, hi = game.min_utility(), game.max_utility()
    info_shape = (list(game.information_state_tensor_shape())
                  if gtype.provides_information_state_tensor else None)
    obs_shape = list(game.observation_tensor_shape()) if gtype.provides_observation_tensor else None
    size = lambda shape: int(np.prod(shape))                                # noqa: E731
    states = longest = 0

    def check(ok: bool, what: str, st) -> None:
        if not ok:
            raise ConformanceError(f"{what} ({game}; history {st.history()})")

    for _ in range(games):
        st = game.new_initial_state()
        decisions = 0
        while True:
            states += 1
            cur = st.current_player()
            check(st.is_terminal() == (cur == pyspiel.PlayerId.TERMINAL),
                  f"is_terminal() disagrees with current_player() = {cur}", st)
            check(st.is_chance_node() == (cur == pyspiel.PlayerId.CHANCE),
                  f"is_chance_node() disagrees with current_player() = {cur}", st)
            check(st.is_terminal() or st.is_chance_node() or 0 <= cur < n,
                  f"current_player() = {cur} is not a seat of {n}", st)
            clone = st.clone()
            check(str(clone) == str(st) and clone.history() == st.history(),
                  "clone() differs from the state", st)
            if serialize:
                back = game.deserialize_state(st.serialize())
                check(str(back) == str(st) and back.history() == st.history(),
                      "deserialize_state(serialize()) differs from the state", st)
            for p in range(n):
                if info_shape is not None:
                    check(len(st.information_state_tensor(p)) == size(info_shape),
                          f"information_state_tensor({p}) is not of shape {info_shape}", st)
                    check(isinstance(st.information_state_string(p), str),
                          f"information_state_string({p}) is not text", st)
                if obs_shape is not None:
                    check(len(st.observation_tensor(p)) == size(obs_shape),
                          f"observation_tensor({p}) is not of shape {obs_shape}", st)
                    check(isinstance(st.observation_string(p), str),
                          f"observation_string({p}) is not text", st)
            check(len(st.rewards()) == n, f"rewards() has not {n} entries", st)
            if st.is_terminal():
                ret = st.returns()
                check(len(ret) == n, f"returns() has not {n} entries", st)
                check(all(lo - 1e-9 <= r <= hi + 1e-9 for r in ret),
                      f"returns() {ret} outside [{lo}, {hi}]", st)
                if gtype.utility == pyspiel.GameType.Utility.ZERO_SUM:
                    check(abs(sum(ret)) < 1e-9, f"returns() {ret} of a zero-sum game", st)
                check(st.legal_actions() == [], "a terminal state has legal actions", st)
                break
            legal = st.legal_actions()
            check(len(legal) > 0, "no legal action at a non-terminal state", st)
            check(legal == sorted(set(legal)), "legal_actions() not sorted and distinct", st)
            if st.is_chance_node():
                outcomes = st.chance_outcomes()
                check([a for a, _ in outcomes] == legal,
                      "chance_outcomes() and legal_actions() differ", st)
                check(all(0 <= a < n_chance and pr > 0 for a, pr in outcomes),
                      "a chance outcome out of range or with probability <= 0", st)
                check(abs(sum(pr for _, pr in outcomes) - 1) < 1e-9,
                      "chance probabilities do not add to 1", st)
            else:
                decisions += 1
                check(all(0 <= a < n_actions for a in legal),
                      f"a legal action outside [0, {n_actions})", st)
                mask = st.legal_actions_mask(cur)
                check([a for a, m in enumerate(mask) if m] == legal,
                      "legal_actions_mask() and legal_actions() differ", st)
                check(decisions <= game.max_game_length(),
                      f"more than max_game_length() = {game.max_game_length()} moves", st)
            action = random_action(st, rng)
            st.apply_action(action)
            check(str(clone) != str(st) or clone.history() != st.history(),
                  "apply_action on the state changed its clone (shared state)", clone)
        longest = max(longest, decisions)
    pyspiel.random_sim_test(game, num_sims=1, serialize=serialize, verbose=False)
    return {"games": games, "states": states, "max_length": longest}
