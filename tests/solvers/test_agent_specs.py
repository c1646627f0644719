"""Agents named by location (``module:factory``, ``path/to/bot.py:factory``), the
agent listing (``python -m experiments agents``), effective parameters and short
labels of :mod:`solvers._registry`."""

from __future__ import annotations

import sys
import textwrap

import pyspiel
import pytest

import spiel_game
from experiments.__main__ import main as experiments_main
from solvers import _registry as registry
from solvers._base.bots import AgentParameterError
from solvers._registry import AgentSpec, AgentSpecError, make_agent, parse_spec

BOT_SOURCE = textwrap.dedent('''
    """A user's agents, in a plain file."""
    from solvers._base.bots import Agent, check_int

    TAG = "{tag}"
    NOT_A_FACTORY = 42


    class FirstLegalBot(Agent):
        """Always the first legal action (or the ``k``-th, wrapping)."""

        def __init__(self, game, player, seed=0, *, k=0):
            super().__init__(game, player, seed)
            self.k = check_int("first_legal", "k", k, 0, 100)

        def _policy_and_action(self, state):
            legal = state.legal_actions()
            a = legal[self.k % len(legal)]
            return [(b, float(b == a)) for b in legal], a


    def make_bot(game, player, seed, *, depth=1):
        """First legal action, with a depth that does nothing."""
        check_int("make_bot", "depth", depth, 1, 5)
        bot = FirstLegalBot(game, player, seed)
        bot.depth = depth
        bot.tag = TAG
        return bot


    def too_few(game):
        return None
''')


@pytest.fixture
def game():
    return spiel_game.load(players=5)


@pytest.fixture
def bot_file(tmp_path):
    path = tmp_path / "mybots" / "bot.py"
    path.parent.mkdir()
    path.write_text(BOT_SOURCE.format(tag="first"))
    return path


@pytest.fixture
def bot_module(tmp_path, monkeypatch):
    name = f"ch_test_user_bots_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(BOT_SOURCE.format(tag="module"))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_location_specs_parse_and_round_trip():
    s = parse_spec("mypkg.mymod:make_bot(depth=2)")
    assert s == AgentSpec("mypkg.mymod:make_bot", (("depth", 2),))
    assert parse_spec(str(s)) == s
    f = parse_spec("path/to/bot.py:make_bot")
    assert f == AgentSpec("path/to/bot.py:make_bot")
    assert parse_spec("C:\\bots\\bot.py:Bot(k=1)").name == "C:\\bots\\bot.py:Bot"
    # a colon inside a parameter value is not a location
    assert parse_spec("ismcts(rollout='a:b')").name == "ismcts"


@pytest.mark.parametrize("spec, message", [
    (":make_bot", "nothing before ':'"),
    ("mymod:", "nothing after ':'"),
    ("my-mod:make_bot", "neither a dotted module name"),
    ("mymod:make_bot(3)", "positional argument 3 is not allowed"),
    ("mymod:make_bot(depth=os.sep)", "must be a Python literal"),
])
def test_bad_location_specs_are_refused_when_parsed(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        parse_spec(spec)


def test_a_factory_in_a_file_is_built_with_the_usual_checks(game, bot_file):
    bot = make_agent(f"{bot_file}:make_bot(depth=3)", game, 2, seed=7)
    assert isinstance(bot, pyspiel.Bot)
    assert (bot.depth, bot.tag, bot.player, bot.seed) == (3, "first", 2, 7)
    with pytest.raises(AgentSpecError, match="has no parameter 'dept' \\(did you mean 'depth'"):
        make_agent(f"{bot_file}:make_bot(dept=3)", game, 0)
    with pytest.raises(AgentSpecError, match="depth=9 is out of range"):
        make_agent(f"{bot_file}:make_bot(depth=9)", game, 0)
    with pytest.raises(AgentParameterError, match="seed"):
        make_agent(f"{bot_file}:make_bot", game, 0, seed=-1)


def test_a_bot_subclass_in_a_file_and_a_relative_path(game, bot_file, monkeypatch):
    monkeypatch.chdir(bot_file.parent.parent)
    bot = make_agent("mybots/bot.py:FirstLegalBot(k=2)", game, 1, seed=3)
    assert type(bot).__name__ == "FirstLegalBot" and bot.k == 2
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    if state.current_player() == 1:
        legal = state.legal_actions()
        assert bot.step(state) == legal[2 % len(legal)]


def test_files_of_the_same_name_do_not_collide(game, tmp_path, bot_file):
    other = tmp_path / "elsewhere" / "bot.py"
    other.parent.mkdir()
    other.write_text(BOT_SOURCE.format(tag="second"))
    a = make_agent(f"{bot_file}:make_bot", game, 0)
    b = make_agent(f"{other}:make_bot", game, 0)
    assert (a.tag, b.tag) == ("first", "second")
    assert type(a).__module__ != type(b).__module__


def test_a_factory_in_an_importable_module(game, bot_module):
    bot = make_agent(f"{bot_module}:make_bot(depth=2)", game, 0, seed=1)
    assert (bot.depth, bot.tag) == (2, "module")
    bot = make_agent(f"{bot_module}:FirstLegalBot", game, 4, seed=1)
    assert bot.player == 4


@pytest.mark.parametrize("attr, message", [
    ("make_bott", "has no attribute 'make_bott' \\(did you mean 'make_bot'\\?\\); what it "
                  "defines: FirstLegalBot, make_bot, too_few"),
    ("NOT_A_FACTORY", "'NOT_A_FACTORY' of the file .* is a int, not a factory"),
    ("too_few", "too_few\\(game\\) cannot be called as too_few\\(game, player, seed, "
                "\\*\\*params\\)"),
])
def test_bad_attributes_say_what_is_wrong(game, bot_file, attr, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(f"{bot_file}:{attr}", game, 0)


def test_missing_files_and_modules_and_broken_imports(game, tmp_path):
    with pytest.raises(AgentSpecError, match="the file .*nope.py.* does not exist"):
        make_agent(f"{tmp_path / 'nope.py'}:make_bot", game, 0)
    with pytest.raises(AgentSpecError, match="is a folder, not a file"):
        make_agent(f"{tmp_path}/:make_bot", game, 0)
    txt = tmp_path / "bot.txt"
    txt.write_text("x = 1")
    with pytest.raises(AgentSpecError, match="not a Python file"):
        make_agent(f"{txt}:make_bot", game, 0)
    with pytest.raises(AgentSpecError, match="no module named 'no_such_module_ch'"):
        make_agent("no_such_module_ch.bots:make_bot", game, 0)
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nsys.exit(3)\n")
    with pytest.raises(AgentSpecError, match="importing the file .* raised SystemExit: 3"):
        make_agent(f"{broken}:make_bot", game, 0)
    broken.write_text("def make_bot(:\n")
    with pytest.raises(AgentSpecError, match="raised SyntaxError"):
        make_agent(f"{tmp_path / 'broken.py'}:make_bot", game, 0)


def test_register_refuses_a_location_name():
    with pytest.raises(AgentSpecError, match="cannot register"):
        registry.register("mod:make_bot", lambda g, p, s: None)


def test_effective_params_include_the_defaults():
    assert registry.effective_params("ismcts")["iterations"] == 1000
    p = registry.effective_params("ismcts(iterations=50)")
    assert p["iterations"] == 50 and p["uct_c"] == 0.4
    assert registry.effective_spec("random") == "random"
    assert registry.effective_spec("pimc(worlds=3)").startswith("pimc(worlds=3, rollouts=2, ")
    with pytest.raises(AgentSpecError, match="no parameter 'iteration'"):
        registry.effective_params("ismcts(iteration=5)")


def test_agent_info_and_describe(bot_file):
    infos = {i.name: i for i in registry.agents()}
    assert {"random", "heuristic", "ismcts", "pimc"} <= set(infos)
    ism = infos["ismcts"]
    assert ism.source == "built-in" and dict(ism.params)["iterations"] == 1000
    assert ism.summary.startswith("SO-ISMCTS") and "\n" not in ism.summary
    assert ism.signature().startswith("ismcts(iterations=1000, ")
    text = registry.describe(f"{bot_file}:make_bot")
    assert text.splitlines()[0] == f"{bot_file}:make_bot(depth=1)"
    assert "file; factory" in text and "depth that does nothing" in text


def test_the_agents_command_lists_and_describes(capsys, bot_file):
    assert experiments_main(["agents"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("ismcts  [built-in]"))
    assert "iterations=1000" in lines[i + 1] and "uct_c=0.4" in lines[i + 1]
    assert any(line.startswith("random  [built-in]  Uniform over the legal") for line in lines)
    # what an agent needs beyond a plain install is said under it, and only there
    from solvers._agent_info import BUILTIN_NEEDS
    builtins = {i.name for i in registry.agents() if i.source == "built-in"}
    assert set(BUILTIN_NEEDS) == {"dqn", "nfsp", "xinxin"} <= builtins
    for name, needs in BUILTIN_NEEDS.items():
        k = next(k for k, line in enumerate(lines) if line.startswith(f"{name}  [built-in]"))
        assert lines[k + 2] == f"    needs: {needs}"
    assert sum(line.startswith("    needs: ") for line in lines) == len(BUILTIN_NEEDS)
    assert "\nneeds: the xinxin driver program" in registry.describe("xinxin")
    assert "needs:" not in registry.describe("random")
    assert experiments_main(["agents", "pimc"]) == 0
    assert capsys.readouterr().out.startswith("pimc(worlds=16, rollouts=2, ")
    assert experiments_main(["agents", f"{bot_file}:make_bot"]) == 0
    assert "depth=1" in capsys.readouterr().out
    assert experiments_main(["agents", "ismtcs"]) == 2
    assert "did you mean 'ismcts'" in capsys.readouterr().err


def test_short_labels():
    long = "ismcts_bias(checkpoint='results/paper/expert_iteration/checkpoints/round-0024.npz')"
    assert registry.short_label(long) == "ismcts_bias(checkpoint=round-0024.npz)"
    assert registry.short_label("/home/me/bots/bot.py:make_bot(depth=2)") == \
        "bot.py:make_bot(depth=2)"
    assert registry.short_label("ismcts(iterations=500)") == "ismcts(iterations=500)"
    assert len(registry.short_label("pimc(" + "x" * 200)) == 48      # not a spec: cut
    labels = registry.short_labels(["network(checkpoint='a/best.npz')",
                                    "network(checkpoint='b/best.npz')", "heuristic"])
    assert labels == ["network(checkpoint=best.npz)#0", "network(checkpoint=best.npz)#1",
                      "heuristic"]


def test_a_file_agent_plays_a_tournament(bot_file, tmp_path):
    from experiments.tournament import TournamentConfig, run_tournament
    spec = f"{bot_file}:make_bot(depth=2)"
    cfg = TournamentConfig(agents=("random", spec), game={"players": 5, "max_hands": 1},
                           deals=1, seed=1)
    res = run_tournament(cfg, None, progress=False)
    assert [a["agent"] for a in res.summary["agents"]] == ["random", spec]
    assert res.summary["deals"] == 1


def test_location_specs_reach_every_user_of_the_registry(game, bot_file):
    """``registry.factory`` resolves a location like a name, so the tools that look
    factories up (the exploitability profile) accept file agents too."""
    from solvers._agent_policy import _fast_factory
    spec = f"{bot_file}:make_bot(depth=2)"
    assert registry.factory(f"{bot_file}:make_bot").__name__ == "make_bot"
    bot = _fast_factory(spec, game, 1)(game, 1, 5)
    assert (bot.depth, bot.player, bot.seed) == (2, 1, 5)
    with pytest.raises(AgentSpecError, match="unknown agent 'ismtcs'"):
        registry.factory("ismtcs")
