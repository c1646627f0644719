"""The model zoo: trained networks shipped with the package.

Each model is a checkpoint file in ``solvers/net/models/`` (package data) and
an entry of ``models.json`` beside it: its file, SHA-256, what it is, the
players it was trained at, how it was trained (the command that rebuilds it)
and its measured strength. :func:`model_path` checks the file's SHA-256 the
first time a process uses it and refuses a file that differs
(:class:`~solvers.net._checkpoint.CheckpointError`), so a damaged or replaced
model never plays silently.

The network agents (``network``, ``ismcts_net``, ``ismcts_bias``) take
``checkpoint=None`` (the default) as the shipped model made for the game's rules
and player count (:func:`default_for`: :data:`DEFAULT_MODEL` for the Cancellation
rules at 5-11 players, ``classic-4`` for classic Hearts), and a model's name
(``checkpoint='guided-5-11'``) as that model, found only in the zoo: a file
of that name in the working folder is never read instead. A file is named by
a path, which must say so: it holds a ``/`` (``'./guided-5-11'``) or ends in
``.npz``. ``python -m experiments models`` lists the models.

Before its SHA-256 is computed, a shipped model's file must be a regular file
(a FIFO, a device such as a link to ``/dev/zero``, or a folder is refused)
whose size is the manifest's (at most :data:`MAX_MODEL_BYTES`).

Rebuilding a model: train it with the command in its card
(``python -m experiments models NAME``), then
``python -m solvers.net.zoo build CHECKPOINT NAME`` writes the float16 file
and updates the manifest's SHA-256 and size (:func:`build`).

Example::

    from solvers.net import zoo
    for m in zoo.models().values():
        print(m.name, m.size_bytes, m.summary)
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from pathlib import Path

from ._checkpoint import CheckpointError
from spiel_game._provenance import file_sha256
from spiel_game._safe_io import RefusedFile, kind, open_regular

__all__ = ["MODELS_DIR", "DEFAULT_MODEL", "ModelCard", "models", "model_path", "resolve",
           "default_for", "file_sha256", "build", "models_from", "is_path", "PATH_SUFFIXES",
           "MAX_MODEL_BYTES"]

#: The folder of the shipped models and their manifest ``models.json``.
MODELS_DIR = Path(__file__).resolve().parent / "models"
#: The model the network agents use when no checkpoint is given.
DEFAULT_MODEL = "guided-5-11"
#: File name endings that make a ``checkpoint=`` value a path without a ``/``.
PATH_SUFFIXES = (".npz",)
#: The largest shipped model file read (the manifest's size is checked first).
MAX_MODEL_BYTES = 256 * 1024 * 1024

_VERIFIED: dict[tuple, str] = {}


@dataclasses.dataclass(frozen=True)
class ModelCard:
    """One shipped model: ``name``, ``file`` (in :data:`MODELS_DIR`), ``sha256``
    of the file, ``size_bytes``, a one-line ``summary``, the ``players`` it was
    trained at, ``training`` (the recipe: command, commit, wall time, source
    checkpoint), ``strength`` (measured results, each with its protocol),
    ``quantization`` (what was shrunk and what it costs) and ``game`` (the game
    parameters other than ``players`` it was made for; empty: the defaults)."""

    name: str
    file: str
    sha256: str
    size_bytes: int
    summary: str
    players: tuple[int, ...]
    training: dict
    strength: tuple[dict, ...] = ()
    quantization: dict = dataclasses.field(default_factory=dict)
    game: dict = dataclasses.field(default_factory=dict)

    @property
    def path(self) -> Path:
        return MODELS_DIR / self.file

    def __repr__(self) -> str:
        return (f"ModelCard({self.name!r}, {self.size_bytes / 1e6:.1f} MB, players "
                f"{self.players_text}: {self.summary})")

    @property
    def players_text(self) -> str:
        """``'5-11'``, or ``'4'`` for one count."""
        lo, hi = min(self.players), max(self.players)
        return f"{lo}" if lo == hi else f"{lo}-{hi}"

    def covers(self, game) -> bool:
        """Whether the model was made for ``game``'s rules and player count (its
        parameters other than ``players`` resolve to the same as ``self.game``'s)."""
        import pyspiel

        import spiel_game

        from ._features import game_base_params
        n = game.num_players()
        if n not in self.players:
            return False
        own = pyspiel.load_game(spiel_game.GAME_NAME, {**self.game, "players": n})
        return game_base_params(own) == game_base_params(game)


def models() -> dict[str, ModelCard]:
    """The shipped models by name (read from ``models.json``)."""
    try:
        return models_from(MODELS_DIR / "models.json")
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise CheckpointError(f"the model zoo's manifest {MODELS_DIR / 'models.json'} cannot "
                              f"be read: {err}") from None


def model_path(name: str) -> Path:
    """The checked path of the shipped model ``name``: its SHA-256 must equal
    the manifest's (checked once per process and file version), else
    :class:`CheckpointError`; an unknown name is a :class:`KeyError` listing the
    models."""
    cards = models()
    if name not in cards:
        raise KeyError(f"no shipped model {name!r}; the models: {', '.join(sorted(cards))}")
    card = cards[name]
    path = card.path
    try:
        st = os.stat(path)
    except OSError:
        raise CheckpointError(f"the shipped model {name!r} ({path}) is missing: reinstall the "
                              f"package or rebuild it ({card.training.get('command')})") from None
    if not stat.S_ISREG(st.st_mode):
        raise CheckpointError(f"the shipped model {name!r} ({path}) is {kind(st.st_mode)}; "
                              f"allowed: a regular file; reinstall the package")
    if st.st_size != card.size_bytes or st.st_size > MAX_MODEL_BYTES:
        raise CheckpointError(f"the shipped model {name!r} ({path}) is {st.st_size:,} bytes "
                              f"long, but the manifest says {card.size_bytes:,}: the file is "
                              f"damaged or was replaced; reinstall the package")
    key = (str(path), st.st_size, st.st_mtime_ns)
    if _VERIFIED.get(key) != card.sha256:
        got = _bounded_sha256(path, card.size_bytes)
        if got != card.sha256:
            raise CheckpointError(f"the shipped model {name!r} ({path}) has SHA-256 {got}, "
                                  f"but the manifest says {card.sha256}: the file is damaged "
                                  f"or was replaced; reinstall the package")
        _VERIFIED[key] = got
    return path


def _bounded_sha256(path: Path, size: int) -> str:
    """SHA-256 of the regular file ``path`` of ``size`` bytes, reading at most
    ``size + 1`` bytes (a file that grows meanwhile gets another digest)."""
    import hashlib
    h = hashlib.sha256()
    try:
        with open_regular(path, size, "the shipped model") as f:
            left = size + 1
            while left > 0:
                block = f.read(min(left, 1 << 20))
                if not block:
                    break
                h.update(block)
                left -= len(block)
    except RefusedFile as err:
        raise CheckpointError(f"{err}; reinstall the package") from None
    return h.hexdigest()


def is_path(checkpoint: str | os.PathLike) -> bool:
    """Whether a ``checkpoint=`` value names a file (a path object, or text
    holding a folder separator or ending in one of :data:`PATH_SUFFIXES`)
    rather than a shipped model."""
    if not isinstance(checkpoint, str):
        return isinstance(checkpoint, os.PathLike)
    seps = {"/", os.sep} | ({os.altsep} if os.altsep else set())
    return any(c in checkpoint for c in seps) or checkpoint.endswith(PATH_SUFFIXES)


def default_for(game) -> str:
    """The name of the shipped model that a network agent uses for ``game`` when
    given no checkpoint: :data:`DEFAULT_MODEL` if it covers the game, else the
    first model of the manifest that does (:meth:`ModelCard.covers`), else
    :data:`DEFAULT_MODEL` (whose loader then says which rules it was made for)."""
    cards = models()
    order = [DEFAULT_MODEL] + [n for n in cards if n != DEFAULT_MODEL]
    for name in order:
        if name in cards and cards[name].covers(game):
            return name
    return DEFAULT_MODEL


def resolve(checkpoint) -> str | os.PathLike | None:
    """What a network agent's ``checkpoint=`` means: None -> the checked path of
    :data:`DEFAULT_MODEL`; a bare name (:func:`is_path` false) -> the checked
    path of that shipped model, looked up only in the zoo (a file of that name
    in the working folder is not read), or :class:`KeyError` listing the models
    and how to name a file; a path -> unchanged (checked by the loader)."""
    if checkpoint is None:
        return str(model_path(DEFAULT_MODEL))
    if isinstance(checkpoint, str) and not is_path(checkpoint):
        try:
            return str(model_path(checkpoint))
        except KeyError as err:
            raise KeyError(f"{err.args[0]}; a file is named by a path: './{checkpoint}' (with "
                           f"a '/') or a name ending in {' or '.join(PATH_SUFFIXES)}") from None
    return checkpoint


def build(source, name: str, models_dir: Path | None = None) -> ModelCard:
    """Write the float16 copy of the float32 checkpoint ``source`` as model
    ``name`` (``<name>.npz`` in ``models_dir``, default :data:`MODELS_DIR`) and
    update its manifest entry's file, SHA-256, size and the source's SHA-256
    (the entry must exist: its summary, training and strength are written by
    hand). Returns the updated card."""
    import numpy as np

    from ._checkpoint import read_checkpoint, write_npz
    folder = Path(models_dir) if models_dir is not None else MODELS_DIR
    manifest = folder / "models.json"
    raw = json.loads(manifest.read_text())
    entries = {e["name"]: e for e in raw["models"]}
    if name not in entries:
        raise KeyError(f"no entry {name!r} in {manifest}; add one (name, summary, players, "
                       f"training) first")
    config, params = read_checkpoint(source)
    config = {**config, "weights_dtype": "float16"}
    out = write_npz(folder / f"{name}.npz", params, config)
    _, half = read_checkpoint(out)
    change = max(float(np.abs(half[k] - params[k]).max()) for k in params)
    entry = entries[name]
    entry.update(file=out.name, sha256=file_sha256(out), size_bytes=out.stat().st_size)
    entry.setdefault("training", {})["source_checkpoint_sha256"] = file_sha256(source)
    entry.setdefault("quantization", {}).update(
        weights="float16 (widened to float32 on load)",
        float32_bytes=Path(source).stat().st_size, max_abs_weight_change=round(change, 6))
    manifest.write_text(json.dumps(raw, indent=1) + "\n")
    return models_from(manifest)[name]


def models_from(manifest: Path) -> dict[str, ModelCard]:
    """The models of a manifest file (:func:`models` reads the package's)."""
    raw = json.loads(Path(manifest).read_text())
    out = {}
    for entry in raw["models"]:
        entry = dict(entry)
        entry["players"] = tuple(entry["players"])
        entry["strength"] = tuple(entry.get("strength", ()))
        out[entry["name"]] = ModelCard(**entry)
    return out


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(prog="python -m solvers.net.zoo",
                                 description="Rebuild a shipped model from its checkpoint.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="write a float32 checkpoint as a shipped float16 model")
    b.add_argument("checkpoint")
    b.add_argument("name")
    b.add_argument("--models-dir", default=None)
    a = ap.parse_args()
    print(build(a.checkpoint, a.name, a.models_dir))
