"""Crafted checkpoints (``.npz`` of the policy network, ``.pt`` of dqn/nfsp) are
refused with a clear error naming the field, within a second of CPU time and a
bounded amount of memory, before anything large is allocated or decompressed;
a FIFO never blocks; dtypes are checked, not cast. A property-based test feeds
random configs and member lists and expects a checkpoint or CheckpointError,
nothing else."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import spiel_game  # noqa: E402  (registers the game)
from solvers.net import _checkpoint as ck  # noqa: E402
from solvers.net._checkpoint import CheckpointError, read_checkpoint  # noqa: E402
from solvers.net._features import FeatureLayout  # noqa: E402
from solvers.net._model import PolicyValueNet, save_checkpoint  # noqa: E402
from solvers._registry import AgentSpecError, make_agent  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CPU_SECONDS = 1.0           # the most CPU time one refusal may take
MEMORY_MB = 64              # the most the peak resident memory may grow during one


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A small valid checkpoint: (path, config, params)."""
    layout = FeatureLayout({}, (6,))
    model = PolicyValueNet(layout.size, layout.num_actions, layout.max_players, hidden=8,
                           blocks=1, seed=3)
    path = save_checkpoint(tmp_path_factory.mktemp("good") / "net.npz", model, layout)
    config, params = read_checkpoint(path)
    return path, config, params


def _write(path, config, params, **extra) -> Path:
    arrays = {f"param/{k}": v for k, v in params.items()}
    arrays["config"] = np.array(json.dumps(config))
    arrays.update(extra)
    np.savez(path, **arrays)
    return path


# A load measured in a fresh process: CPU seconds and growth of the peak resident
# set over a warm-up load of a good file (imports and caches already paid).
_PROBE = textwrap.dedent("""
    import json, resource, sys, time
    kind, good, bad = sys.argv[1:4]
    if kind == "npz":
        from solvers.net._checkpoint import read_checkpoint as load
    else:
        import torch  # noqa: F401  (imported before the clock starts)
        from solvers._openspiel_rl_play import _mlp_shapes, load_checkpoint as load
        _mlp_shapes(2, [2], 2)
    if good != "-":
        load(good)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.process_time()
    try:
        load(bad)
        error = None
    except Exception as e:
        error = f"{type(e).__name__}: {e}"
    out = {"cpu_seconds": time.process_time() - t0, "error": error,
           "rss_growth_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024}
    print(json.dumps(out))
""")


def _probe(kind: str, bad, good="-") -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", _PROBE, kind, str(good), str(bad)],
                       capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["error"] is not None, "the crafted file was accepted"
    assert out["cpu_seconds"] < CPU_SECONDS, out
    assert out["rss_growth_mb"] < MEMORY_MB, out
    assert len(out["error"]) < 1000, out            # no value echoed in full
    return out


# ------------------------------------------------------------------ .npz
def test_blocks_of_a_million_is_refused_fast_and_small(good, tmp_path):
    path, config, params = good
    bad = _write(tmp_path / "blocks.npz", {**config, "blocks": 10**6}, params)
    out = _probe("npz", bad, path)
    assert "config field 'blocks' is 1000000; allowed: an integer 0..64" in out["error"]
    huge = _write(tmp_path / "blocks8.npz", {**config, "blocks": 10**8}, params)
    assert "'blocks' is 100000000" in _probe("npz", huge, path)["error"]


def test_parameter_count_over_the_limit_is_refused(good, tmp_path):
    path, config, params = good
    bad = _write(tmp_path / "many.npz", {**config, "hidden": 8192, "blocks": 64}, params)
    out = _probe("npz", bad, path)
    assert "parameters; the limit is 33,554,432" in out["error"]


def _bomb(path: Path, name: str, gib: float = 1.0) -> Path:
    """A zip whose member ``name`` inflates to ``gib`` GiB of zeros (a few MB on disk)."""
    chunk = b"\0" * (1 << 24)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("config.npy", b"")
        with z.open(name, "w", force_zip64=True) as f:
            for _ in range(int(gib * 64)):
                f.write(chunk)
    return path


@pytest.fixture(scope="module")
def bombs(tmp_path_factory):
    d = tmp_path_factory.mktemp("bomb")
    return {"junk": _bomb(d / "junk.npz", "junk.npy"),
            "param": _bomb(d / "param.npz", "param/embed.weight.npy")}


def test_zip_bomb_is_refused_before_decompressing(good, bombs):
    path = good[0]
    assert bombs["junk"].stat().st_size < 8 << 20          # a few MB on disk
    out = _probe("npz", bombs["junk"], path)
    assert "member 'junk.npy' is not allowed here" in out["error"]
    out = _probe("npz", bombs["param"], path)
    assert "declare 1,073,741,824+ bytes unpacked; the limit is" in out["error"]


def test_fifo_is_refused_without_blocking(good, tmp_path):
    fifo = tmp_path / "net.npz"
    os.mkfifo(fifo)
    out = _probe("npz", fifo, good[0])
    assert "is a FIFO; allowed: a regular file" in out["error"]
    pt = tmp_path / "net.pt"
    os.mkfifo(pt)
    assert "is a FIFO" in _probe("pt", pt)["error"]
    with pytest.raises(CheckpointError, match="is a folder"):
        read_checkpoint(tmp_path)


@pytest.mark.parametrize("dtype", [np.complex64, np.float64, np.float16, np.int32])
def test_dtypes_are_checked_not_cast(good, tmp_path, dtype):
    path, config, params = good
    bad = _write(tmp_path / "dtype.npz", config,
                 {**params, "bias0": params["bias0"].astype(dtype)})
    with pytest.raises(CheckpointError, match=r"'bias0' has dtype .*allowed: float32"):
        read_checkpoint(bad)


@pytest.mark.parametrize("field, value, words", [
    ("blocks", "two", "config field 'blocks' is 'two'; allowed: an integer 0..64"),
    ("hidden", 2.5, "config field 'hidden' is 2.5"),
    ("hidden", True, "config field 'hidden' is True"),
    ("input_size", -3, "config field 'input_size' is -3"),
    ("layout", [1, 2], "config field 'layout' is [1, 2]"),
    ("layout", {"base": {}, "players": list(range(100))}, "config field 'layout'"),
    ("blocks", "x" * 10**5, "characters)"),
])
def test_damaged_fields_are_named_through_the_agents(good, tmp_path, field, value, words):
    path, config, params = good
    bad = _write(tmp_path / "field.npz", {**config, field: value}, params)
    game = spiel_game.load({"players": 6})
    for spec in ("network", "ismcts_net", "ismcts_bias"):
        with pytest.raises(AgentSpecError) as e:
            make_agent(f"{spec}(checkpoint={str(bad)!r})", game, 0)
        msg = str(e.value)
        assert words in msg and "factory failed" not in msg and len(msg) < 1500, msg


def test_a_good_checkpoint_still_loads_and_plays(good):
    path, config, params = good
    game = spiel_game.load({"players": 6})
    bot = make_agent(f"network(checkpoint={str(path)!r})", game, 0)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert bot.step(state) in state.legal_actions()


# ------------------------------------------------------------------ .pt (dqn, nfsp)
def _pt_blob(hidden, input_size=40, num_actions=60, nets=None):
    return {"format": "cancellation-hearts-openspiel-rl/1", "algorithm": "dqn",
            "game": "python_cancellation_hearts()", "game_params": {},
            "observation": "info_state", "input_size": input_size, "num_actions": num_actions,
            "hidden": hidden, "players": 1, "episodes": 1,
            "policy_networks": nets if nets is not None else [{}]}


def test_pt_hidden_bomb_is_refused_before_building(tmp_path):
    from solvers import openspiel_rl as rl
    fmt = rl.FORMAT
    small = tmp_path / "small.pt"
    torch.save({**_pt_blob([4]), "format": fmt}, small)
    for hidden, words in (([8000, 8000], "ask for 64,816,060 parameters"),
                          ([10**6], "field 'hidden' is [1000000]"),
                          ([8] * 1000, "1..16 layer sizes")):
        bad = tmp_path / "bomb.pt"
        torch.save({**_pt_blob(hidden), "format": fmt}, bad)
        assert bad.stat().st_size < 8000
        out = _probe("pt", bad, "-")
        assert words in out["error"], out


def test_pt_tensors_are_checked_not_cast(tmp_path):
    from solvers import _openspiel_rl_play as rl
    want = rl._mlp_shapes(40, [4], 60)
    good = {k: torch.zeros(s) for k, s in want.items()}
    cases = [({**good, "model.0.0.bias": torch.zeros(4, dtype=torch.complex64)},
              "model.0.0.bias is torch.complex64; allowed: float32"),
             ({**good, "model.0.0.bias": torch.zeros(5)}, "does not fit [4] hidden units"),
             ({k: v for k, v in good.items() if k != "model.1.bias"}, "does not fit"),
             ({**good, "model.0.0.bias": torch.full((4,), float("nan"))}, "NaN")]
    for i, (sd, words) in enumerate(cases):
        p = tmp_path / f"t{i}.pt"
        torch.save({**_pt_blob([4], nets=[sd]), "format": rl.FORMAT}, p)
        with pytest.raises(Exception) as e:
            rl.load_checkpoint(p, "dqn")
        assert words in str(e.value) and "damaged" in str(e.value)


def test_pt_compressed_members_are_refused(tmp_path):
    from solvers import openspiel_rl as rl
    p = tmp_path / "deflated.pt"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("archive/data.pkl", b"\0" * 100000)
    with pytest.raises(Exception, match="compression method 8; allowed: \\[0\\]"):
        rl.load_checkpoint(p, "dqn")


# ------------------------------------------------------------------ random files
_NAMES = st.sampled_from(["config.npy", "param/embed.weight.npy", "param/bias0.npy",
                          "param/policy.weight.npy", "junk.npy", "param/../x.npy"])
_SIZE = st.one_of(st.integers(-5, 70), st.integers(10**5, 10**12), st.floats(),
                  st.text(max_size=5), st.booleans(), st.none())


@pytest.mark.filterwarnings("ignore:Duplicate name")
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.dictionaries(st.sampled_from(ck._SIZE_KEYS), _SIZE),
       drop=st.lists(st.sampled_from(ck._SIZE_KEYS), max_size=2),
       members=st.lists(st.tuples(_NAMES, st.sampled_from(["<f4", "<f8", "<c8", "|u1"]),
                                  st.lists(st.integers(0, 9), max_size=3)), max_size=4),
       cut=st.one_of(st.none(), st.integers(0, 3000)))
def test_random_checkpoints_load_or_raise_checkpoint_error(good, tmp_path, sizes, drop,
                                                           members, cut):
    path, config, params = good
    cfg = {**config, **sizes}
    for k in drop:
        cfg.pop(k, None)
    p = tmp_path / "random.npz"
    with zipfile.ZipFile(p, "w") as z:
        for name, dtype, shape in members:
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.zeros(shape, dtype))
            z.writestr(name, buf.getvalue())
        if "config.npy" not in [m[0] for m in members]:
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.array(json.dumps(cfg)))
            z.writestr("config.npy", buf.getvalue())
        for k, v in params.items():
            if f"param/{k}.npy" not in [m[0] for m in members]:
                buf = io.BytesIO()
                np.lib.format.write_array(buf, v)
                z.writestr(f"param/{k}.npy", buf.getvalue())
    if cut is not None:
        p.write_bytes(p.read_bytes()[:cut])
    try:
        got, arrays = read_checkpoint(p)
    except CheckpointError as e:
        assert str(p) in str(e) and len(str(e)) < 2000
        return
    # accepted: then it is exactly a network of its (bounded) sizes
    sizes_ok = ck.check_sizes(got)
    assert {k: v.shape for k, v in arrays.items()} == ck.param_shapes(sizes_ok)
    assert all(v.dtype == np.float32 for v in arrays.values())
