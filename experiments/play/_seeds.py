"""The play app's seeds (:mod:`experiments.play._app`, **Seeds.**): a server key
that never leaves the process, each game's own seed derived from it, and the
seeds of the game's agents derived from that.

* ``fresh_seed()``: a random server seed below ``2**SEED_BITS``.
* ``server_key(seed)``: the server's key (None: 256 fresh random bits; else
  derived from ``seed`` by scrypt).
* ``game_seed(key, number)``: game ``number``'s seed (HMAC-SHA256, 62 bits).
* ``seat_seed(game_seed, 2, q)``: the seed of seat ``q``'s agent.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets

import numpy as np

__all__ = ["SEED_BITS", "fresh_seed", "server_key", "game_seed", "seat_seed"]

#: Server seeds are ints ``0 <= seed < 2**SEED_BITS`` (``--seed``, ``seed=``).
SEED_BITS = 32


def fresh_seed() -> int:
    """A random server seed ``0 <= seed < 2**32`` from the operating system."""
    return secrets.randbits(SEED_BITS)


@functools.lru_cache(maxsize=16)
def _seed_key(seed: int) -> bytes:
    """The server key of ``--seed seed``: scrypt (slow on purpose, so that a
    32-bit seed is not found by trying them all against a game's seed)."""
    return hashlib.scrypt(str(int(seed)).encode(), salt=b"cancellation-hearts play server",
                          n=2**14, r=8, p=1, dklen=32)


def server_key(seed: int | None) -> bytes:
    """A fresh 256-bit key (``seed=None``) or the key of ``seed``."""
    return secrets.token_bytes(32) if seed is None else _seed_key(int(seed))


def game_seed(key: bytes, number: int) -> int:
    """The seed of game ``number`` of a server with ``key``: the first 62 bits of
    ``HMAC-SHA256(key, "game <number>")`` (one way: it reveals neither the key
    nor any other game's seed)."""
    d = hmac.new(key, f"game {int(number)}".encode(), hashlib.sha256).digest()
    return int.from_bytes(d[:8], "little") & (2**62 - 1)


def seat_seed(*words: int) -> int:
    """62 bits of ``numpy.random.SeedSequence(words)`` (a game's agents are seeded
    with ``seat_seed(game_seed, 2, seat)``)."""
    return int(np.random.SeedSequence([int(w) for w in words]).generate_state(1, np.uint64)[0]
               & np.uint64(2**62 - 1))
