"""research/scripts/fit_epsilon.py: the opponent model's epsilon fitted to an agent."""

import json

import numpy as np
import pytest

import fit_epsilon as fe


def test_fit_recovers_the_epsilon_of_plays_drawn_from_the_model():
    """Plays drawn from the softened heuristic with a known epsilon: the fit finds it."""
    rng = np.random.default_rng(0)
    counts = rng.integers(2, 9, size=20_000)
    for eps in (0.2, 0.8):
        agrees = rng.random(counts.size) < 1 - eps + eps / counts
        got = fe.fit(agrees, counts)
        assert abs(got - eps) < 0.03, (eps, got)
        assert fe.log_likelihood(got, agrees, counts) >= \
            max(fe.log_likelihood(e, agrees, counts) for e in fe.GRID) - 1e-9


def test_the_heuristic_fits_near_zero_and_the_random_agent_near_one(tmp_path):
    heur = fe.run(fe.FitConfig(agent="heuristic", players=5, hands=1))
    assert heur["agreement"] == 1.0 and heur["epsilon"] < 1e-3 and heur["decisions"] > 5
    rand = fe.run(fe.FitConfig(agent="random", players=5, hands=2))
    assert rand["agreement"] < 0.7 and rand["epsilon"] > 0.7
    again = fe.run(fe.FitConfig(agent="random", players=5, hands=2))
    assert again == rand                                          # seeded
    out = tmp_path / "f.json"
    assert fe.main(["--agent", "random", "--players", "5", "--hands", "1", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["result"]["players"] == 5


@pytest.mark.parametrize("bad", [{"hands": 0}, {"players": 4}, {"players": 12}])
def test_bad_configs_are_named(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        fe.FitConfig(**bad)


def test_the_network_model_is_scored_on_the_same_plays(tmp_path):
    """With a checkpoint, the network model's fit is reported beside the
    heuristic's: an agent that plays the network's argmax is its top card on
    every play and fits the network with epsilon near 0 (and better than the
    heuristic and uniform models); the random agent fits it near 1."""
    torch = pytest.importorskip("torch")
    import spiel_game
    from solvers.net._features import FeatureLayout
    from solvers.net._model import PolicyValueNet, save_checkpoint
    layout = FeatureLayout({}, (5,))
    model = PolicyValueNet(layout.size, layout.num_actions, layout.max_players, hidden=16,
                           blocks=1, seed=2)
    with torch.no_grad():
        model.policy.weight.mul_(5.0)
    ck = str(save_checkpoint(tmp_path / "n.npz", model, layout))
    spiel_game.load(players=5)
    own = fe.run(fe.FitConfig(agent=f"network(checkpoint='{ck}')", players=5, hands=1,
                              checkpoint=ck))
    net = own["network"]
    assert net["agreement"] == 1.0 and net["epsilon"] < 1e-3
    assert net["log_likelihood"] > own["log_likelihood"] > own["uniform_log_likelihood"] - 1e-9
    rand = fe.run(fe.FitConfig(agent="random", players=5, hands=2, checkpoint=ck))
    assert rand["network"]["epsilon"] > 0.7 and rand["network"]["agreement"] < 0.7
    assert "| network |" in fe.table(rand)
    assert len(rand["network"]["sha256"]) == 64
