"""The wheel, installed as a user installs it: built from this checkout, installed
non-editable into a fresh virtual environment, used from another folder.

Every listed agent plays a hand (those whose listing says what they need
fail with one line naming it), a tournament, ``run`` and ``check`` run from
the command line, a playthrough is regenerated into a named folder, a missing
optional dependency is one line naming its extra, and nothing is written
under the environment's site-packages.

The environment is cheap: the wheel goes into a venv of its own (``pip
--python``, no dependencies), and a ``.pth`` file puts this checkout's
``.venv`` site-packages after it for the dependencies. Only that folder is
added (its own ``.pth`` files are not read), so the editable install's finder
never loads, and the test asserts that ``spiel_game`` comes from the wheel.

Caches are not outputs: the check ignores ``__pycache__`` folders (bytecode,
and the compiled kernels numba writes next to a writable installed module;
an unwritable install makes numba use its per-user cache instead). To keep
the test quick, numba's cache goes to ``build/wheel-test/numba`` of this
checkout (``NUMBA_CACHE_DIR``), kept between runs and seeded with this
checkout's own compiled kernels: the environment sits at a fixed path and its
sources keep this checkout's modification times, so numba's own checks
accept the kernels of an unchanged engine (and recompile any other).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow

PACKAGES = ("spiel_game", "solvers", "experiments")
WORK = ROOT / "build" / "wheel-test"
#: Small settings so that every agent plays its hand in seconds.
SPECS = {"abr": "abr(worlds=2, candidates=50)", "ismcts": "ismcts(iterations=20)",
         "pimc": "pimc(worlds=2)",
         "openspiel_ismcts": "openspiel_ismcts(iterations=20)",
         "ismcts_net": "ismcts_net(iterations=20)", "ismcts_bias": "ismcts_bias(iterations=20)"}


def _run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert r.returncode == 0, f"{cmd} failed ({r.returncode}):\n{r.stdout[-3000:]}\n" \
                              f"{r.stderr[-3000:]}"
    return r


def _snapshot(site: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``site`` outside ``__pycache__``: (size, mtime in ns)."""
    out = {}
    for p in site.rglob("*"):
        if "__pycache__" in p.parts or not p.is_file():
            continue
        st = p.stat()
        out[p.relative_to(site).as_posix()] = (st.st_size, st.st_mtime_ns)
    return out


def _seed_numba_cache(site: Path, cache: Path) -> None:
    """Copy this checkout's compiled kernels (``__pycache__/*.nbi|.nbc`` and the
    source stamps of :mod:`spiel_game._numba_cache`) to where numba looks for those
    of the installed copy under ``NUMBA_CACHE_DIR=cache``, where newer. numba
    loads a kernel only if its source file's size and modification time and its
    bytecode match, and recompiles otherwise, so this saves time, never changes
    what runs."""
    from numba.core.caching import UserProvidedCacheLocator
    for pkg in PACKAGES:
        for built in (ROOT / pkg).rglob("__pycache__"):
            files = [f for f in built.iterdir()
                     if f.suffix in (".nbi", ".nbc") or f.name.endswith(".sources.sha256")]
            if not any(f.suffix == ".nbi" for f in files):
                continue
            installed = site / built.parent.relative_to(ROOT) / "module.py"
            dst = cache / UserProvidedCacheLocator.get_suitable_cache_subpath(str(installed))
            dst.mkdir(parents=True, exist_ok=True)
            for f in files:
                target = dst / f.name
                if not target.exists() or target.stat().st_mtime_ns < f.stat().st_mtime_ns:
                    shutil.copy2(f, target)


@pytest.fixture(scope="module")
def wheel_env(tmp_path_factory):
    """``(python, site-packages, env)`` of a fresh venv holding the wheel."""
    WORK.mkdir(parents=True, exist_ok=True)
    lock = open(WORK / ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)              # one run of this test at a time
    try:
        tmp = tmp_path_factory.mktemp("wheel")
        src = tmp / "src"
        for pkg in PACKAGES:                      # copy2 keeps the modification times
            shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns(
                "__pycache__", "*.pyc", "*.nbi", "*.nbc"))
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, src / name)
        _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index",
              "--no-build-isolation", "--disable-pip-version-check", "-w", str(tmp / "dist"),
              str(src)])
        (wheel,) = (tmp / "dist").glob("cancellation_hearts-*.whl")
        venv = WORK / "venv"
        shutil.rmtree(venv, ignore_errors=True)
        _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
        python = venv / "bin" / "python"
        _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
              "--no-deps", "--no-index", "--disable-pip-version-check", str(wheel)])
        site = Path(_run([str(python), "-c", "import sysconfig; "
                          "print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
        for pkg in PACKAGES:                      # this checkout's times: numba reuses kernels
            for f in (site / pkg).rglob("*"):
                if f.is_file() and "__pycache__" not in f.parts:
                    st = (src / f.relative_to(site)).stat()
                    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
        _seed_numba_cache(site, WORK / "numba")
        deps = Path(sysconfig.get_paths()["purelib"])
        (site / "zz_checkout_dependencies.pth").write_text(f"{deps}\n")
        home = tmp / "home"
        home.mkdir()
        env = {"PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", "HOME": str(home),
               "XDG_CACHE_HOME": str(home / ".cache"), "NUMBA_CACHE_DIR": str(WORK / "numba"),
               "MPLBACKEND": "Agg", "LANG": "C.UTF-8"}
        yield python, site, env
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()


PLAY = textwrap.dedent("""
    import importlib.metadata, json, sys
    import pyspiel, spiel_game
    from solvers import _registry as registry
    from solvers._registry import make_agent
    specs = json.loads(sys.argv[1])
    out = {"spiel_game": spiel_game.__file__,
           "dist": str(importlib.metadata.distribution("cancellation-hearts")._path),
           "agents": {}}
    for info in registry.agents():
        game = spiel_game.load("classic" if info.name == "xinxin" else {"players": 5})
        spec = specs.get(info.name, info.name)
        try:
            bots = [make_agent(spec if p == 0 else "random", game, p, seed=p)
                    for p in range(game.num_players())]
            returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)
            out["agents"][info.name] = {"needs": info.needs, "returns": returns}
        except Exception as err:
            out["agents"][info.name] = {"needs": info.needs, "error": str(err)}
    print(json.dumps(out))
""")


def test_the_installed_wheel_works_from_another_folder(wheel_env, tmp_path):
    python, site, env = wheel_env
    work = tmp_path / "user"
    work.mkdir()
    before = _snapshot(site)
    assert "spiel_game/playthroughs/tiny.txt" in before           # package data shipped
    assert "solvers/net/models/models.json" in before

    def cli(*args, ok=True):
        r = subprocess.run([str(python), *args], cwd=work, env=env, capture_output=True,
                           text=True, timeout=600)
        if ok:
            assert r.returncode == 0, f"{args}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        return r

    # every listed agent plays a hand, or fails with one line naming what it needs
    played = json.loads(cli("-c", PLAY, json.dumps(SPECS)).stdout.strip().splitlines()[-1])
    assert Path(played["spiel_game"]).is_relative_to(site), played["spiel_game"]
    assert Path(played["dist"]).is_relative_to(site), played["dist"]
    agents = played["agents"]
    import tomllib
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert set(declared["cancellation_hearts.agents"]) <= set(agents)
    for name, got in agents.items():
        if got["needs"]:
            assert "error" in got and "\n" not in got["error"], (name, got)
        else:
            assert "returns" in got, (name, got.get("error"))
            assert len(got["returns"]) == (4 if name == "xinxin" else 5)
    needing = {n for n, got in agents.items() if got["needs"]}
    assert needing == {"dqn", "nfsp", "xinxin"}, needing
    assert "none ships: train one with python -m solvers.openspiel_rl train" \
        in agents["dqn"]["error"]
    assert "make xinxin XINXIN_SRC=" in agents["xinxin"]["error"]
    listing = cli("-m", "experiments", "agents").stdout
    assert listing.count("    needs: ") == len(needing)

    # a tournament and two runs from the command line, results where the user said
    cli("-m", "experiments.tournament", "--agents", "heuristic", "random", "--game",
        '{"players": 5}', "--deals", "2", "--out", "tour", "--no-progress")
    assert (work / "tour").is_dir()
    cli("-m", "experiments", "run", "demo", "--set", "hands=10", "chunk=5", "--workers", "1",
        "--no-progress")
    assert list((work / "results" / "quick").glob("demo*/metadata.json"))
    cli("-m", "experiments", "run", "demo", "--set", "hands=10", "chunk=5", "--workers", "2",
        "--no-progress", "--out", "mine")
    (meta,) = (work / "mine").glob("demo*/metadata.json")
    meta = json.loads(meta.read_text())
    assert meta["git_commit"] is None and meta["package_version"], meta
    env_results = dict(env, CH_RESULTS="elsewhere")
    r = subprocess.run([str(python), "-m", "experiments", "run", "demo", "--set", "hands=10",
                        "chunk=5", "--workers", "1", "--no-progress"], cwd=work,
                       env=env_results, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert list((work / "elsewhere" / "quick").glob("demo*/metadata.json"))

    # check: nothing to compare with is one line naming the flag
    r = cli("-m", "experiments", "check", "--quick", "results/quick", ok=False)
    assert r.returncode == 2 and "--paper DIR" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr

    # a playthrough regenerated into a named folder; the shipped ones replay
    code = ("from spiel_game import playthrough as p; "
            "print(p.regenerate('golden', names=['tiny'])); print(p.verify(names=['tiny']))")
    out = cli("-c", code).stdout
    assert (work / "golden" / "tiny.txt").read_text() == \
        (site / "spiel_game" / "playthroughs" / "tiny.txt").read_text()
    assert out.strip().endswith("[]"), out

    # a missing optional dependency: one line naming its extra, no traceback
    blocked = tmp_path / "blocked"
    (blocked / "flask").mkdir(parents=True)
    (blocked / "flask" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'flask'\", name='flask')\n")
    r = subprocess.run([str(python), "-m", "experiments", "play", "--agents", "random"],
                       cwd=work, env=dict(env, PYTHONPATH=str(blocked)), capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "pip install 'cancellation-hearts[play]'" in r.stderr, r.stderr

    # nothing written under site-packages (caches in __pycache__ aside, see above)
    after = _snapshot(site)
    assert after == before, {k: (before.get(k), after.get(k))
                             for k in set(before) | set(after) if before.get(k) != after.get(k)}


def test_reproduce_runs_its_studies_and_benchmarks_in_the_users_folder(tmp_path, monkeypatch,
                                                                       capsys):
    """``reproduce`` starts each study and benchmark as a process in the working folder
    (never the package's), so a relative path means the same folder to all of them."""
    from experiments import _reproduce as cli
    monkeypatch.chdir(tmp_path)
    where = [sys.executable, "-c", "import os; print('cwd=' + os.getcwd())"]
    assert cli.side_by_side([("a", where), ("b", where)], jobs=2) == []
    assert capsys.readouterr().out.count(f"cwd={tmp_path}") == 2
    import experiments.bench as bench
    monkeypatch.setattr(bench, "BENCHES", ("engine",))
    monkeypatch.setattr(cli.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(
        cmd, 0 if "cwd" not in kw else 3))
    assert cli.run_benchmarks(Path("rel") / "bench", quick=True) == []
    from experiments import runner
    monkeypatch.delenv("CH_RESULTS", raising=False)
    assert runner.results_root() == tmp_path / "results"
    monkeypatch.setenv("CH_RESULTS", "mine")
    assert runner.results_root() == tmp_path / "mine"
