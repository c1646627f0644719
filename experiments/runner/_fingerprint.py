"""Code fingerprints: what made a unit's results besides its config (this
package's sources, the experiment's own sources such as agent modules and
checkpoints), recorded in every shard so that a resumed run never silently
reuses units made by other code."""

from __future__ import annotations

import hashlib
from pathlib import Path
from collections.abc import Mapping

from .._base.registry import Experiment
from ._backends import RAY_PACKAGES

__all__ = ["package_code_hash", "code_fingerprint"]


_PACKAGE_HASH: str | None = None


def package_code_hash() -> str:
    """SHA-256 of the Python sources of :data:`RAY_PACKAGES` as this process
    imports them (every ``.py`` file's path and content), computed once per
    process (a few milliseconds)."""
    global _PACKAGE_HASH
    if _PACKAGE_HASH is None:
        import importlib.util
        h = hashlib.sha256()
        for pkg in RAY_PACKAGES:
            spec = importlib.util.find_spec(pkg)
            for where in (spec.submodule_search_locations or []) if spec else []:
                base = Path(where)
                for f in sorted(base.rglob("*.py")):
                    if "__pycache__" in f.parts:
                        continue
                    h.update(f"{pkg}/{f.relative_to(base).as_posix()}\n".encode())
                    h.update(hashlib.sha256(f.read_bytes()).digest())
        _PACKAGE_HASH = h.hexdigest()
    return _PACKAGE_HASH


def code_fingerprint(exp: Experiment, config) -> dict[str, str]:
    """What made a unit's results besides its config: ``{"package code": sha256}``
    (:func:`package_code_hash`) and the experiment's own ``sources``
    (:func:`experiments._base.registry.register`: agent modules, checkpoints)."""
    out = {"package code": package_code_hash()}
    if exp.sources_fn is not None:
        out.update({str(k): str(v) for k, v in dict(exp.sources_fn(config)).items()})
    return out


def _differing(old, new: Mapping[str, str]) -> list[str]:
    """The parts (labels) in which the code that made a shard differs from ``new``."""
    if not isinstance(old, Mapping):
        return ["code not recorded (saved before code fingerprints)"]
    return [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
