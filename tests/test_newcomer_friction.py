"""What a newcomer trips over first: file bots with helper modules, clear
messages for misspelt or malformed names, one bound for deals, labels that keep
variants apart, names in ``agents.csv``, quiet alpha-Rank, no ``-0.0``, notebook
cell ids, the layout docs and the quick start's blocks. Each test is fast."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import spiel_game
from solvers import _registry as registry

ROOT = Path(__file__).resolve().parents[1]


def test_a_file_bot_imports_a_module_beside_it_and_the_path_is_restored(tmp_path):
    (tmp_path / "nf_helper_mod.py").write_text("LEVEL = 7\n")
    (tmp_path / "nf_bot.py").write_text(
        "import nf_helper_mod\n"
        "from solvers._base.bots import RandomBot\n"
        "def make_bot(game, player, seed):\n"
        "    return RandomBot(game, player, seed + nf_helper_mod.LEVEL)\n")
    before = list(sys.path)
    try:
        f = registry.factory(f"{tmp_path / 'nf_bot.py'}:make_bot")
        assert sys.path == before, "the bot's folder stays on sys.path"
        bot = registry.make_agent(f"{tmp_path / 'nf_bot.py'}:make_bot", spiel_game.load(), 0, 1)
        assert f.__module__.startswith("_cancellation_hearts_agent_") and bot is not None
        assert sys.modules["nf_helper_mod"].LEVEL == 7
    finally:
        sys.modules.pop("nf_helper_mod", None)
    docs = (ROOT / "docs" / "agents.md").read_text()
    assert "import helper" in docs and "sys.path" in docs


@pytest.mark.parametrize("spec", ["bots/mybot.py", "mybot.py", "/abs/mybot.py(depth=2)"])
def test_a_file_spec_without_its_factory_says_name_the_factory(spec):
    with pytest.raises(registry.AgentSpecError, match="name the factory: FILE.py:FUNCTION") as e:
        registry.parse_spec(spec)
    assert "invalid syntax" not in str(e.value) and "column" not in str(e.value)


def test_misspelt_experiment_profile_preset_and_solver_names_get_did_you_mean():
    from experiments._base import registry as exps
    from solvers.cfr import build_tree
    from solvers.cfr._solvers import UnknownSolverError, make_solver

    with pytest.raises(exps.UnknownExperimentError, match="did you mean 'rules_stats'"):
        exps.get("rules_stat")
    with pytest.raises(exps.UnknownExperimentError, match="did you mean 'quick'") as e:
        exps.get("rules_stats").config("quik")
    assert str(e.value).startswith("experiment 'rules_stats' has no profile 'quik'")
    with pytest.raises(spiel_game._rules.UnknownPresetError,
                       match=r"unknown preset 'clasic' \(did you mean 'classic'\?\); the ") as e:
        spiel_game.preset("clasic")
    assert isinstance(e.value, ValueError) and isinstance(e.value, KeyError)
    assert not str(e.value).startswith('"'), "a bare KeyError's quoted message"
    with pytest.raises(spiel_game.GameParameterError, match="did you mean 'micro'"):
        spiel_game.load("micr")
    tree = build_tree(spiel_game.load("micro"))
    with pytest.raises(UnknownSolverError, match=r"did you mean 'CFR\+'.*the solvers: CFR, ") as e:
        make_solver("CFR++", tree)
    assert isinstance(e.value, ValueError) and isinstance(e.value, KeyError)
    with pytest.raises(registry.AgentSpecError, match="did you mean 'heuristic'"):
        registry.factory("heuristc")


def test_negative_deals_give_one_message_and_bound_in_the_library_and_the_cli(tmp_path, capsys):
    from experiments.tournament import TournamentConfig, TournamentError, main

    msg = "deals must be >= 1, got -5"
    with pytest.raises(TournamentError, match=msg):
        TournamentConfig(agents=("random",), deals=-5)
    with pytest.raises(TournamentError, match="deals must be >= 1, got 0"):
        TournamentConfig(agents=("random",), deals=0)
    assert main(["--agents", "random", "--deals", "-5", "--no-progress",
                 "--out", str(tmp_path / "o")]) == 1
    assert msg in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_long_specs_as_labels_keep_the_differing_parameters():
    base = ("ismcts_bias(checkpoint='runs/x/r24.npz', iterations=200, uct_c=0.4, "
            "rollout='heuristic', bias={})")
    a, b = base.format(1.0), base.format(10.0)
    labels = registry.short_labels([a, b, "heuristic"])
    assert labels[2] == "heuristic"
    assert "bias=1.0" in labels[0] and "bias=10.0" in labels[1]
    assert "#" not in labels[0] + labels[1] and len(set(labels)) == 3
    assert all(len(x) <= 48 for x in labels)
    # the same spec twice, or one file name in two folders: told apart by index
    same = registry.short_labels(["network(checkpoint='a/best.npz')",
                                  "network(checkpoint='b/best.npz')"])
    assert same == ["network(checkpoint=best.npz)#0", "network(checkpoint=best.npz)#1"]
    # short specs are unchanged
    assert registry.short_labels(["random", "ismcts(iterations=50)"]) == \
        ["random", "ismcts(iterations=50)"]


def test_agents_csv_holds_the_agents_labels(tmp_path):
    from experiments.tournament import AGENT_COLUMNS, main

    out = tmp_path / "t"
    assert main(["--agents", "random", "heuristic", "--game", json.dumps({"players": 5}),
                 "--deals", "1", "--no-progress", "--out", str(out)]) == 0
    (csv,) = out.rglob("agents.csv")
    agents = pd.read_csv(csv)
    assert list(agents.columns) == list(AGENT_COLUMNS)
    assert list(agents["label"]) == ["random", "heuristic"]
    assert list(agents["spec"]) == ["random", "heuristic"] and list(agents["agent"]) == [0, 1]


def test_alpharank_is_quiet_and_summaries_show_no_negative_zero():
    from experiments._base.registry import table_text
    from solvers._metagame import alpharank_masses, profiles

    profs = profiles(4, 3)
    t = np.full((len(profs), 3), np.nan)
    for r, c in enumerate(profs):
        for i in range(3):
            if c[i]:
                t[r, i] = i - 0.5 * c[0]    # with alpha=100, exp overflows inside alpha-Rank
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        masses = alpharank_masses(profs, t, alpha=100.0)
    assert masses[2] > 0.99
    table = pd.DataFrame({"convention": ["low", "high"], "alpharank": [-0.0, -1e-9],
                          "deals": [3, 4]})
    text = table_text(table, 4)
    assert "-0.0" not in text and "0.0" in text
    assert text.splitlines()[1].split()[-1] == "3"       # the int column stays an int


def test_notebook_05_cells_all_have_ids_and_no_outputs():
    import nbformat
    raw = json.loads((ROOT / "notebooks" / "05_inference_and_networks.ipynb").read_text())
    assert all("id" in c for c in raw["cells"])
    assert all(not c.get("outputs") and c.get("execution_count") is None
               for c in raw["cells"] if c["cell_type"] == "code")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbformat.validate(raw)


def test_format_layout_names_its_view_and_the_docs_show_the_information_state_call():
    from spiel_game import observers as O
    game = spiel_game.load("tiny")
    assert O.format_layout(game).splitlines()[1].startswith("view: observation")
    info = O.format_layout(game, O.INFO_STATE_OBS_TYPE)
    assert info.splitlines()[1].startswith("view: information state")
    assert "INFO_STATE_OBS_TYPE" in O.format_layout.__doc__
    assert "format_layout(game, observers.INFO_STATE_OBS_TYPE)" in \
        (ROOT / "docs" / "game.md").read_text()


def test_the_quick_start_shows_infostate_tensors_and_a_conventions_exploitability():
    from docs_snippets import page_script
    code = page_script(ROOT / "docs" / "quickstart.md")
    assert "information_state_tensor(" in code
    assert "exploitability(" in code and "void_short" in code
