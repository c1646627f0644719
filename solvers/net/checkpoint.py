"""Checkpoints of the policy-value network, readable without torch.

A checkpoint is one ``.npz`` file (numpy, ``allow_pickle=False``): the
model's ``state_dict`` as arrays named ``param/<name>`` and ``config``, a
JSON string: ``format`` (:data:`FORMAT`), ``layout`` (the game family:
``base`` parameters and ``players``, see
:class:`solvers.net.features.FeatureLayout`), ``layout_fingerprint``, the
sizes (``input_size``, ``num_actions``, ``max_players``, ``hidden``,
``blocks``), ``seed``, ``step`` (optimizer steps so far), ``generation``, the
package ``versions``, the git ``commit`` and whatever the caller adds.
:func:`read_checkpoint` checks all of it and raises
:class:`CheckpointError` naming the file and what is wrong.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

__all__ = ["FORMAT", "CheckpointError", "read_checkpoint", "write_checkpoint", "read_npz",
           "write_npz",
           "param_shapes", "versions"]

FORMAT = "cancellation-hearts-policy-value-mlp/1"
_SIZE_KEYS = ("input_size", "num_actions", "max_players", "hidden", "blocks")


class CheckpointError(ValueError):
    """A checkpoint file that is missing, damaged, of another format, or made for
    other games than the one it is used with."""


def param_shapes(config: dict) -> dict[str, tuple[int, ...]]:
    """The ``state_dict`` names and shapes of a network of ``config``'s sizes."""
    D, A, V = config["input_size"], config["num_actions"], config["max_players"]
    H, nb = config["hidden"], config["blocks"]
    out = {"embed.weight": (D, H), "bias0": (H,)}
    for b in range(nb):
        out[f"blocks.{b}.0.weight"] = (H, H)
        out[f"blocks.{b}.0.bias"] = (H,)
        out[f"blocks.{b}.1.weight"] = (H, H)
        out[f"blocks.{b}.1.bias"] = (H,)
    out.update({"policy.weight": (A, H), "policy.bias": (A,),
                "value.weight": (V, H), "value.bias": (V,)})
    return out


def versions() -> dict[str, str]:
    """Versions of the packages a checkpoint depends on (torch only if imported)."""
    import sys

    import numba
    out = {"python": sys.version.split()[0], "numpy": np.__version__,
           "numba": numba.__version__}
    torch = sys.modules.get("torch")
    if torch is not None:
        out["torch"] = torch.__version__
    return out


def write_checkpoint(path, params: dict[str, np.ndarray], config: dict) -> Path:
    """Write ``params`` (name -> array) and ``config`` to ``path`` atomically
    (a temporary file renamed into place). ``config`` gets ``format``."""
    path = Path(path)
    config = {**config, "format": FORMAT}
    expected = param_shapes(config)
    if set(params) != set(expected):
        raise CheckpointError(f"{path}: parameters {sorted(set(params) ^ set(expected))} do "
                              f"not match the sizes in the config")
    return write_npz(path, params, config)


def write_npz(path, params: dict[str, np.ndarray], config: dict) -> Path:
    """``params`` (as float32 arrays ``param/<name>``) and ``config`` (JSON) written
    to ``path`` atomically (a temporary file renamed into place); the file format
    of every network checkpoint (this module's and
    :mod:`solvers.beliefs.location`'s)."""
    path = Path(path)
    arrays = {f"param/{k}": np.ascontiguousarray(v, np.float32) for k, v in params.items()}
    arrays["config"] = np.array(json.dumps(config, sort_keys=True, default=str))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path


def read_npz(path, what: str = "checkpoint",
             writer: str = "solvers.net.model.save_checkpoint") -> tuple[dict, dict]:
    """``(config, params)`` of a file written by :func:`write_npz`, unchecked
    beyond being one: a missing or damaged file, no config, a config that is
    not JSON raise :class:`CheckpointError` naming ``what`` and the file."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{what} {path} does not exist (a .npz file written by "
                              f"{writer})")
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except Exception as err:    # zipfile/numpy errors of a damaged file
        raise CheckpointError(f"{what} {path} is not a readable .npz file: {err}") from None
    if "config" not in data:
        raise CheckpointError(f"{what} {path} has no config entry (not a {what})")
    try:
        config = json.loads(str(data.pop("config")))
    except ValueError as err:
        raise CheckpointError(f"{what} {path}: its config is not JSON: {err}") from None
    params = {k[len("param/"):]: v for k, v in data.items() if k.startswith("param/")}
    return config, params


def read_checkpoint(path) -> tuple[dict, dict[str, np.ndarray]]:
    """``(config, params)`` of a checkpoint, checked (module docstring)."""
    path = Path(path)
    config, params = read_npz(path, "checkpoint")
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        got = config.get("format") if isinstance(config, dict) else config
        raise CheckpointError(f"checkpoint {path} has format {got!r}; this code reads "
                              f"{FORMAT!r}")
    missing = [k for k in (*_SIZE_KEYS, "layout", "layout_fingerprint") if k not in config]
    if missing:
        raise CheckpointError(f"checkpoint {path}: config lacks {missing}")
    expected = param_shapes(config)
    problems = [f"{k}: missing" for k in expected if k not in params]
    problems += [f"{k}: unexpected" for k in params if k not in expected]
    problems += [f"{k}: shape {params[k].shape}, config says {expected[k]}"
                 for k in expected if k in params and params[k].shape != expected[k]]
    if problems:
        raise CheckpointError(f"checkpoint {path}: parameters do not match its config: "
                              + "; ".join(problems))
    bad = [k for k, v in params.items() if not np.isfinite(v).all()]
    if bad:
        raise CheckpointError(f"checkpoint {path}: parameters {bad} hold NaN or infinity")
    return config, params
