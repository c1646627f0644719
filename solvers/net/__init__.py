"""A policy-value network over the information-state tensor.

Modules:

* :mod:`.features`: :class:`~.features.FeatureLayout`, one input layout that
  covers several player counts (each named piece of the observer's
  information-state tensor padded to its largest shape over the covered
  games, plus a one-hot of the player count), and compiled, batched feature
  extraction from engine vectors (the observer's own kernel, ``fill_view``);
* :mod:`.model`: the PyTorch model (:class:`~.model.PolicyValueNet`: a sparse
  first layer, residual MLP blocks, masked policy logits, a value head with
  every seat's scaled return), training losses, checkpoints (``.npz``:
  ``state_dict`` arrays plus a JSON config; readable without torch);
* :mod:`.inference`: the same network in numpy/numba (weights exported from a
  checkpoint), used by the agents and inside the compiled search;
* :mod:`.agents`: :class:`~.agents.NetworkBot` (the raw policy, the built-in
  agent ``network``, an entry point naming the class: :mod:`solvers._catalog`)
  and the evaluator cache;
* :mod:`.selfplay`: self-play with search, recording training samples, and
  training on them;
* :mod:`.rounds`: the training loop of the studies that train the network
  round after round (:class:`~.rounds.Rounds`: data, training set, training,
  checkpoint, evaluation; the studies plug in hooks).

The search with the network (``ismcts_net``, ``ismcts_bias``) sits beside the
search it extends, in :mod:`solvers._ismcts_net`: this package is below
:mod:`solvers._ismcts` and :mod:`solvers.beliefs`, which evaluate it, and imports
neither.

Only :mod:`.model` (and the training of :mod:`.selfplay` and :mod:`.rounds`)
imports torch; the agents and the search run with numpy and numba alone.
"""

from __future__ import annotations

from pathlib import Path


def _numba_cache_guard() -> None:
    """The kernels here inline the engine's, the observer's and the heuristic's:
    drop this package's cached kernels when a source of ``spiel_game``, of
    ``solvers/_base/heuristic.py`` or of the kernel modules here changed."""
    from spiel_game._numba_cache import engine_sources, guard
    here = Path(__file__).resolve().parent
    kernels = [here / f for f in ("_features.py", "_inference.py")]
    guard(here / "__pycache__", engine_sources() + kernels
          + [here.parent / "_base" / "heuristic.py"])


_numba_cache_guard()
