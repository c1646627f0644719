import functools
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
#: The paper's tools (``paper/tools``: the macro writers ``texmacros``, the build),
#: importable the way the paper's scripts import them.
PAPER_TOOLS = ROOT / "paper" / "tools"
if str(PAPER_TOOLS) not in sys.path:
    sys.path.insert(0, str(PAPER_TOOLS))

import spiel_game  # noqa: E402,F401  (registers the game)

IN_CI = os.environ.get("CI") == "true"


@functools.cache
def paper_build():
    """``paper/tools/build.py`` as a module (loaded from its path: the top-level
    name ``build`` belongs to another package)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("paper_build", PAPER_TOOLS / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def paper_figure(name: str):
    """``main`` of the paper's figure script ``paper/figures/<name>.py``."""
    import importlib.util
    path = ROOT / "paper" / "figures" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_figure", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.main


def check_figure_and_macros(name: str, study, results: Path, tmp_path: Path) -> str:
    """A study's paper figure and macros from ``results`` (a folder holding the
    study's profile folder ``name``): the figure is drawn, a folder without the
    results draws nothing and still exits 0, and every macro is defined.
    Returns the macros' TeX (the study's writer, ``texmacros.studies.<module>``)."""
    import importlib

    import texmacros as macros
    writer = importlib.import_module(
        "texmacros.studies." + study.__name__.rsplit(".", 1)[-1])
    figure = paper_figure(name)
    assert figure([str(results), str(tmp_path / "fig")]) == 0
    assert (tmp_path / "fig" / f"{name}.png").stat().st_size > 0
    assert figure([str(tmp_path / "missing"), str(tmp_path / "fig2")]) == 0
    assert not (tmp_path / "fig2").exists()
    m = macros.Macros()
    writer.paper_macros(m, results, tmp_path)
    assert not m.warnings, m.warnings
    return m.tex("test")


def shell_signals() -> None:
    """``preexec_fn`` for a command a test interrupts as a user would: SIGINT and
    SIGTERM at their defaults and not blocked, as a terminal's shell starts it
    (a child inherits an ignored or blocked signal from the test process, and
    another test running in that process may leave one so)."""
    import signal
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
