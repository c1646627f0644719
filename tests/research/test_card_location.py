"""research/scripts/card_location.py: collecting, training and evaluating the
learned card-location model, and its comparisons in net_strength."""

from __future__ import annotations

import card_location as CL
import numpy as np
import pyspiel
import pytest
from card_location import main as card_location_main

import spiel_game
from solvers.beliefs import _location as LOC


@pytest.fixture(scope="module")
def six():
    game = pyspiel.load_game(spiel_game.GAME_NAME, {"players": 6})
    data = CL.collect(6, 4, seed=5, agent="heuristic")
    prep = LOC.prepare_collection(data, prior_worlds=64, seed=0)
    return game, data, prep


def test_the_script_collects_trains_and_evaluates(tmp_path, capsys):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert card_location_main(["collect", "--players", "6", "--hands", "2", "--seed", "1",
                               "--agent", "heuristic", "--out", str(a)]) == 0
    assert card_location_main(["collect", "--players", "6", "--hands", "1", "--seed", "2",
                               "--agent", "heuristic", "--out", str(b)]) == 0
    ck = tmp_path / "m.npz"
    assert card_location_main(["train", str(a), "--out", str(ck), "--prior-worlds", "32",
                               "--hidden", "8", "--steps", "30", "--batch", "16"]) == 0
    js = tmp_path / "e.json"
    assert card_location_main(["evaluate", f"{ck}:{b}", "--json", str(js)]) == 0
    import json
    out = json.loads(js.read_text())
    r = out["result"]["by_players"]["6"]
    assert r["decisions"] > 50 and 0 < r["mse_prior"] and 0 < r["mean_ess"] <= 32
    assert r["checkpoint"] == str(ck) and r["collection"]["config"]["seed"] == 2
    assert out["metadata"]["config"]["models"]["6"]["steps"] == 30
    assert "share of the prior's error removed" in capsys.readouterr().out
    assert r["heldout_prior"] is not None and r["heldout_best_step"] == 30
    assert r["min_ess"] == 32 and r["mse_tilt_tempered"] > 0
    assert r["heldout_best"] == min(p["valid"] for p in out["metadata"]["config"]["models"]
                                    ["6"]["curve"] if p["step"] > 0)
    # labels: the paper's macros read every label of CARD_LOCATION_LABELS
    from texmacros import Macros
    from texmacros.research import CARD_LOCATION_LABELS
    from texmacros.research import card_location_macros as paper_macros
    bench = tmp_path / "bench"
    pairs = [f"{label}={ck}:{b}" for label in CARD_LOCATION_LABELS]
    assert card_location_main(["evaluate", *pairs[:-1], "--json",
                               str(bench / "card_location.json")]) == 0
    m = Macros()
    paper_macros(m, tmp_path, bench)
    assert "\\newif\\ifCardLocation  %" in "\n".join(m.lines)         # one label missing
    assert card_location_main(["evaluate", *pairs, "--json",
                               str(bench / "card_location.json")]) == 0
    m = Macros()
    paper_macros(m, tmp_path, bench)
    assert any(ln.startswith("\\newcommand{\\CardLocControlSixHands}{1}") for ln in m.lines)
    assert card_location_main(["evaluate", f"{ck}{b}"]) == 2          # no ":"
    eleven = tmp_path / "c.npz"
    assert card_location_main(["collect", "--players", "11", "--hands", "1", "--agent",
                               "heuristic", "--out", str(eleven)]) == 0
    assert card_location_main(["evaluate", f"{ck}:{eleven}"]) == 2    # another count
    assert "covers players [6]" in capsys.readouterr().err


def test_card_location_comparisons_need_the_location_belief_at_5_ms(six, tmp_path, capsys):
    """``location<n>_5ms`` in ``research/scripts/net_strength.py``: the tested agent
    is the one with ``belief='location'``, both at 5 ms per move; a run at
    another budget is refused, and the paper's macros read the comparison."""
    import json

    from net_strength import COMPARISONS, LOCATION_SETTING, TESTED
    from net_strength import main as net_strength

    from texmacros import Macros
    from texmacros.research import net_strength_macros as paper_macros
    from experiments.tournament import main as tournament
    _, _, prep = six
    model, curve = LOC.train_location([prep], hidden=8, steps=10, batch_size=16, seed=1)
    ck = LOC.save_location(tmp_path / "loc.npz", model, {}, curve)
    assert LOCATION_SETTING == {"location6_5ms": 5.0, "location11_5ms": 5.0}
    assert COMPARISONS["location11_5ms"][:2] == ("LocationElevenFive", 11)
    assert TESTED["location6_5ms"] == "belief='location"

    def run(ms):
        out = tmp_path / f"runs{ms}"
        located = (f"ismcts(time_limit={ms / 1000}, rollout='heuristic', belief='location("
                   f"checkpoint=\"{ck}\", pool=16, min_ess=4)')")
        assert tournament(["--agents", located, f"ismcts(time_limit={ms / 1000}, "
                           "rollout='heuristic')", "--game", json.dumps({"players": 6}),
                           "--deals", "2", "--seed", "5", "--no-progress", "--out",
                           str(out)]) == 0
        (folder,) = out.glob("tournament@*")
        return folder

    out = tmp_path / "bench" / "net_strength.json"
    capsys.readouterr()
    assert net_strength([f"location6_5ms={run(2)}", "--json", str(out)]) == 2
    assert "belief='location' against ismcts, at 5 ms" in capsys.readouterr().err
    assert net_strength([f"location6_5ms={run(5)}", "--json", str(out)]) == 0
    c = json.loads(out.read_text())["result"]["comparisons"]["location6_5ms"]
    assert "belief='location(" in c["network"] and c["anchor"].startswith("ismcts(")
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    assert "\\newcommand{\\NetStrLocationSixFiveDeals}{2}" in m.lines


def test_an_interrupted_collection_resumes_from_its_saved_blocks(tmp_path, monkeypatch):
    """``collect`` saves every block of hands as it finishes; rerun after an
    interruption it keeps the saved blocks, plays the rest and gives the same
    collection as an uninterrupted run; blocks of another configuration are
    refused, naming the difference."""
    first = tmp_path / "whole.npz"
    whole = CL.collect(6, 5, seed=3, agent="heuristic", out=first, block=2)
    assert whole["meta"]["resumed_blocks"] == 0 and not CL.parts_dir(first).exists()
    real, calls = CL._collect_hands, []

    def stop_after_one(*a):
        if calls:
            raise KeyboardInterrupt
        calls.append(a)
        return real(*a)

    out = tmp_path / "cut.npz"
    monkeypatch.setattr(CL, "_collect_hands", stop_after_one)
    with pytest.raises(KeyboardInterrupt):
        CL.collect(6, 5, seed=3, agent="heuristic", out=out, block=2)
    assert not out.exists() and len(list(CL.parts_dir(out).glob("*.npz"))) == 1
    monkeypatch.setattr(CL, "_collect_hands", real)
    with pytest.raises(ValueError, match="seed: 3.*this run: seed: 4"):
        CL.collect(6, 5, seed=4, agent="heuristic", out=out, block=2)
    assert CL.main(["collect", "--players", "6", "--hands", "5", "--seed", "4", "--agent",
                    "heuristic", "--block", "2", "--out", str(out)]) == 2
    block0 = CL.parts_dir(out) / "0000000.npz"
    good = block0.read_bytes()
    block0.write_bytes(good[:len(good) // 2])                      # a damaged block
    with pytest.raises(ValueError, match="0000000.npz is damaged.*remove it"):
        CL.collect(6, 5, seed=3, agent="heuristic", out=out, block=2)
    block0.write_bytes(good)
    (CL.parts_dir(out) / ".0000002.npz.tmp").write_bytes(b"half")  # an unfinished write
    again = CL.collect(6, 5, seed=3, agent="heuristic", out=out, block=2)
    assert again["meta"]["resumed_blocks"] == 1 and not CL.parts_dir(out).exists()
    saved = CL.load_collection(out)
    for k in ("states", "observers", "hand", "returns"):
        assert np.array_equal(saved[k], whole[k]) and np.array_equal(again[k], whole[k])
    assert sorted(set(whole["hand"].tolist())) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="block = 0; allowed"):
        CL.collect(6, 5, seed=3, agent="heuristic", block=0)
