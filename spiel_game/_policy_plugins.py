"""Simulator policies from installed packages: the modules that packages
declare in the entry-point group :data:`POLICY_ENTRY_POINT_GROUP` register
compiled policies (:func:`spiel_game.register_policy`) when imported;
:func:`spiel_game.simulate` imports them once, the first time it meets a policy
name it does not know. This is how the rules package gets the heuristic and the
passing conventions of ``solvers`` without importing it."""
from __future__ import annotations

__all__ = ["POLICY_ENTRY_POINT_GROUP", "load_policy_plugins", "PolicyPluginError"]

#: Entry-point group of modules that register simulator policies when imported
#: (``name = "package.module"``; the name is only a label). A package that
#: adds its own compiled policies declares its module here, and users name them
#: in :func:`spiel_game.simulate` without importing anything.
POLICY_ENTRY_POINT_GROUP = "cancellation_hearts.policies"
_PLUGINS: dict = {"loaded": False, "entry_points": []}   # load_policy_plugins' record


class PolicyPluginError(ImportError):
    """A module declared in :data:`POLICY_ENTRY_POINT_GROUP` failed to import."""


def load_policy_plugins(*, reload: bool = False) -> list[str]:
    """Import every module that the installed packages declare in
    :data:`POLICY_ENTRY_POINT_GROUP` (each registers its policies with
    :func:`spiel_game.register_policy` on import); returns the entry points as
    ``"name = module"``. Runs once per process (``reload=True``: again). A
    module that fails to import raises :class:`PolicyPluginError` naming the
    entry point and its distribution; the table keeps what was registered."""
    if _PLUGINS["loaded"] and not reload:
        return list(_PLUGINS["entry_points"])
    import importlib.metadata
    done = []
    for ep in sorted(importlib.metadata.entry_points(group=POLICY_ENTRY_POINT_GROUP),
                     key=lambda e: (e.value, e.name)):
        where = f"{ep.name} = {ep.value}"
        try:
            ep.load()           # "package.module" (or "package.module:attr")
        except Exception as e:
            dist = getattr(ep.dist, "name", "?")
            raise PolicyPluginError(
                f"the simulator-policy entry point {where!r} of distribution {dist!r} "
                f"(group {POLICY_ENTRY_POINT_GROUP!r}) failed to import: "
                f"{type(e).__name__}: {e}") from e
        done.append(where)
    _PLUGINS.update(loaded=True, entry_points=done)
    return list(done)
