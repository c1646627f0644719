"""research/scripts/net_strength.py: head-to-head network tournaments collected for the paper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")   # the tiny checkpoint is written by the torch model

from net_strength import NetStrengthError, load_comparison, main

from texmacros import Macros, minus_signs, signed
from texmacros.research import net_strength_macros as paper_macros
from experiments.tournament import main as tournament
from solvers.net._features import FeatureLayout
from solvers.net._model import PolicyValueNet, save_checkpoint

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    lay = FeatureLayout({}, (5, 6), hint="heuristic")
    model = PolicyValueNet(lay.size, lay.num_actions, lay.max_players, hidden=8, blocks=0,
                           seed=2)
    return save_checkpoint(tmp_path_factory.mktemp("ck") / "net.npz", model, lay)


def _run(tmp_path, agents, players=6):
    out = tmp_path / f"runs-{abs(hash((agents, players))) % 10**8}"
    assert tournament(["--agents", *agents, "--game", json.dumps({"players": players}),
                       "--deals", "3", "--seed", "5", "--deals-per-unit", "3",
                       "--no-progress", "--out", str(out)]) == 0
    (folder,) = out.glob("tournament@*")
    return folder


def test_gain_is_the_network_agents_whichever_its_position(tmp_path, ckpt):
    net = f"network(checkpoint={str(ckpt)!r})"
    first = load_comparison(_run(tmp_path, (net, "heuristic")))
    second = load_comparison(_run(tmp_path, ("heuristic", net)))
    for c in (first, second):
        assert c["network"] == net and c["anchor"] == "heuristic" and c["players"] == 6
        assert c["deals"] == 3 and c["seatings"] == 2
        assert c["gain"]["lo"] <= c["gain"]["mean"] <= c["gain"]["hi"]
        assert c["run"]["config"]["seed"] == 5 and c["run"]["git_commit"]
    # the same deals and seatings, the agents listed the other way round (both
    # agents are deterministic, so the hands are played identically)
    assert first["gain"]["mean"] == pytest.approx(second["gain"]["mean"])
    # the gain is the network's zero-sum payoff minus the anchor's, from agents.csv
    import csv
    with open(_run(tmp_path, (net, "heuristic")) / "agents.csv", newline="") as f:
        pay = {r["spec"]: float(r["payoff"]) for r in csv.DictReader(f)}
    assert first["gain"]["mean"] == pytest.approx(pay[net] - pay["heuristic"], abs=1e-9)
    assert first["gain"]["mean"] != 0.0


def test_json_macros_and_refusals(tmp_path, ckpt, capsys):
    net = f"network(checkpoint={str(ckpt)!r})"
    run6 = _run(tmp_path, (net, "heuristic"))
    out = tmp_path / "bench" / "net_strength.json"
    assert main([f"hint6={run6}", "--json", str(out)]) == 0
    saved = json.loads(out.read_text())
    assert saved["metadata"]["git_commit"] and set(saved["result"]["comparisons"]) == {"hint6"}
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    tex = "\n".join(m.lines)
    gain = saved["result"]["comparisons"]["hint6"]["gain"]["mean"]
    assert "\\newif\\ifNetStrength\\NetStrengthtrue" in tex
    assert f"\\newcommand{{\\NetStrHintSixGain}}{{{signed(gain)}}}" in tex
    assert "\\newcommand{\\NetStrRawSixGain}{--}" in tex and not m.warnings
    # refusals: an unknown name, a player count that does not match, no network agent
    assert main([f"hint7={run6}"]) == 2
    assert "allowed: NAME=RUN with NAME one of hint6" in capsys.readouterr().err
    assert main([f"hint11={run6}"]) == 2
    assert "11-player comparison" in capsys.readouterr().err
    with pytest.raises(NetStrengthError, match="exactly one must be a network agent"):
        load_comparison(_run(tmp_path, ("heuristic", "random")))
    with pytest.raises(NetStrengthError, match="exactly one must be a network agent"):
        load_comparison(_run(tmp_path, (net, f"network(checkpoint={str(ckpt)!r}, "
                                             f"policy='sample')")))
    with pytest.raises(NetStrengthError, match="not a finished tournament run folder"):
        load_comparison(tmp_path)
    # no file: the flag is false and every macro is not run
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "nowhere")
    assert "\\newif\\ifNetStrength  %" in "\n".join(m.lines) and not m.warnings


def test_ismcts_bias_is_a_network_agent_against_plain_ismcts(tmp_path, ckpt):
    biased = f"ismcts_bias(checkpoint={str(ckpt)!r}, bias=2.0, iterations=20)"
    run = _run(tmp_path, ("ismcts(iterations=20)", biased))
    c = load_comparison(run)
    assert c["network"] == biased and c["anchor"] == "ismcts(iterations=20)"
    # against the network alone, the search is the tested agent, in either order
    net = f"network(checkpoint={str(ckpt)!r})"
    for pair in ((net, biased), (biased, net)):
        c2 = load_comparison(_run(tmp_path, pair))
        assert c2["network"] == biased and c2["anchor"] == net
    # a fixed iteration count is not the equal time per move the name promises
    out = tmp_path / "net_strength.json"
    assert main([f"bias6={run}", "--json", str(out)]) == 2 and not out.exists()


def test_update_keeps_other_comparisons_and_time_macro(tmp_path, ckpt, capsys):
    net = f"network(checkpoint={str(ckpt)!r})"
    run6 = _run(tmp_path, (net, "heuristic"))
    biased = f"ismcts_bias(checkpoint={str(ckpt)!r}, bias=10.0, time_limit=0.002)"
    runb = _run(tmp_path, ("ismcts(time_limit=0.002)", biased))
    out = tmp_path / "bench" / "net_strength.json"
    assert main([f"hint6={run6}", "--json", str(out)]) == 0
    first = json.loads(out.read_text())["result"]["comparisons"]["hint6"]
    assert main([f"bias6={runb}", "--json", str(out), "--update"]) == 0
    saved = json.loads(out.read_text())
    assert set(saved["result"]["comparisons"]) == {"hint6", "bias6"}
    assert saved["result"]["comparisons"]["hint6"] == first
    assert [r.partition("=")[0] for r in saved["metadata"]["config"]["runs"]] == ["hint6", "bias6"]
    # without --update the file holds only the named comparisons
    assert main([f"bias6={runb}", "--json", str(out)]) == 0
    assert set(json.loads(out.read_text())["result"]["comparisons"]) == {"bias6"}
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    tex = "\n".join(m.lines)
    assert "\\newcommand{\\NetStrBiasSixTimeMs}{2}" in tex
    assert main([f"bias6={runb}", "--update"]) == 2
    assert "--update needs --json" in capsys.readouterr().err
    out.write_text("{}")
    assert main([f"bias6={runb}", "--json", str(out), "--update"]) == 2
    assert "not a net_strength result" in capsys.readouterr().err


def test_the_inference_step_names_its_tested_agent_by_a_marker(tmp_path, capsys):
    """The ladder's inference step (no network agent on either side): the shipped
    oracle run (the oracle listed second) loads with the oracle as the tested
    agent, and its gain is the oracle's zero-sum payoff minus plain ISMCTS's."""
    import csv

    from net_strength import TESTED
    run = ROOT / "research" / "inference_equal_time" / "oracle_ismcts_field" / "field6"
    with pytest.raises(NetStrengthError, match="exactly one must be a network agent"):
        load_comparison(run)
    c = load_comparison(run, TESTED["oracle6"])
    with open(run / "agents.csv", newline="") as f:
        pay = {r["spec"]: float(r["payoff"]) for r in csv.DictReader(f)}
    assert c["network"].startswith("ismcts_oracle(") and c["anchor"].startswith("ismcts(")
    assert c["gain"]["mean"] == pytest.approx(pay[c["network"]] - pay[c["anchor"]], abs=1e-9)
    assert c["gain"]["lo"] < c["gain"]["mean"] < c["gain"]["hi"] and c["players"] == 6
    # a run without the marker's agent (or with it on both sides) is refused, named
    with pytest.raises(NetStrengthError, match=r"exactly one must hold \"belief='network\""):
        load_comparison(run, TESTED["beliefnet6"])
    out = tmp_path / "bench" / "net_strength.json"
    assert main([f"oracle6={run}", "--json", str(out)]) == 0
    assert "ismcts_oracle" in capsys.readouterr().out
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    tex = "\n".join(m.lines)
    assert f"\\newcommand{{\\NetStrOracleSixGain}}{{{signed(c['gain']['mean'])}}}" in tex
    assert "\\newcommand{\\NetStrOracleSixTimeMs}{50}" in tex
    assert main([f"beliefnet6={run}"]) == 2
    assert "exactly one must hold" in capsys.readouterr().err


def _rows(m, name: str) -> list[str]:
    """The table rows of the macro ``\\name``."""
    (rows,) = [ln for ln in m.lines if ln.startswith(f"\\newcommand{{\\{name}}}{{")]
    return rows.split("{", 2)[2].rsplit("}", 1)[0].split("\n")


def _row(m, n: int) -> str:
    """The row of ``n`` players in ``\\NetStrAllRows``."""
    return next(r for r in _rows(m, "NetStrAllRows") if r.startswith(f"{n} & "))


def test_the_every_count_network_gets_a_macro_per_count_and_table_rows(tmp_path, ckpt):
    """``all<n>`` (15 hands per count a round) and ``all<n>_h30`` (30): their own
    macro stems, and one table row per count with a cell group per run."""
    from net_strength import COMPARISONS
    from texmacros import interval
    assert [COMPARISONS[f"all{n}"][:2] for n in (5, 8, 11)] == [
        ("AllFive", 5), ("AllEight", 8), ("AllEleven", 11)]
    assert COMPARISONS["all11_h30"][:2] == ("AllDoubleEleven", 11)
    net = f"network(checkpoint={str(ckpt)!r})"
    run5 = _run(tmp_path, (net, "heuristic"), players=5)
    out = tmp_path / "bench" / "net_strength.json"
    assert main([f"all5={run5}", "--json", str(out)]) == 0
    assert main([f"all6={run5}"]) == 2                   # a 5-player run is not all6
    g = json.loads(out.read_text())["result"]["comparisons"]["all5"]["gain"]
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    tex = "\n".join(m.lines)
    assert f"\\newcommand{{\\NetStrAllFiveGain}}{{{signed(g['mean'])}}}" in tex
    assert "\\newcommand{\\NetStrAllDoubleFiveGain}{--}" in tex
    row = _row(m, 5)
    # table cells typeset a negative number's hyphen as a minus sign
    assert row.startswith(minus_signs(f"5 & {signed(g['mean'])} & {interval(g['lo'], g['hi'])} & "))
    assert row.endswith("3${\\times}$5 & -- &  &  &  \\\\")    # the 30-hand run: not there
    assert main([f"all5_h30={run5}", "--json", str(out), "--update"]) == 0
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    served = "five" if g["lo"] > 0 else "none"
    assert f"\\newcommand{{\\NetStrAllServed}}{{{served}}}" in "\n".join(m.lines)
    row = _row(m, 5)
    assert row.count(minus_signs(signed(g["mean"]))) == 2 and "--" not in row
    # served: the counts whose interval lies above 0, in words
    saved = json.loads(out.read_text())
    comps = saved["result"]["comparisons"]
    comps["all5"]["gain"]["lo"] = 0.5
    comps["all7"] = dict(comps["all5"], players=7)
    out.write_text(json.dumps(saved))
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    tex = "\n".join(m.lines)
    assert "\\newcommand{\\NetStrAllServed}{five and seven}" in tex
    assert "\\newcommand{\\NetStrAllServedCount}{2}" in tex
    assert "\\newcommand{\\NetStrAllDoubleServed}{none}" in tex
    # no every-count comparison at all: the rows are "not run", never a ??
    assert main([f"hint6={_run(tmp_path, (net, 'heuristic'))}", "--json", str(out)]) == 0
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    assert "\\newcommand{\\NetStrAllRows}{--}" in "\n".join(m.lines) and not m.warnings


def test_root_bias_comparisons_fill_a_table_by_time_per_move(tmp_path, ckpt, capsys):
    """``bias<n>[_<ms>ms]`` (the 6-player network) and ``allbias<n>[_<ms>ms]`` (the
    every-count network): the name fixes the time per move and the tested agent,
    and ``\\NetStrBiasRows`` has one row per time per move, a cell group per
    network and player count."""
    from net_strength import BIAS_SETTING, COMPARISONS, bias_name, bias_weight
    from texmacros import interval
    assert bias_name("", 6, 2) == "bias6" and bias_name("all", 11, 20) == "allbias11_20ms"
    assert COMPARISONS["bias6_50ms"][:2] == ("BiasSixFifty", 6)          # stems kept
    assert COMPARISONS["allbias11_20ms"][:2] == ("AllBiasElevenTwenty", 11)
    assert BIAS_SETTING["allbias6_5ms"] == (5.0, 10.0)
    assert BIAS_SETTING["allbias11_20ms_w30"] == (20.0, 30.0)
    assert BIAS_SETTING["bias11_50ms_rep"] == (50.0, 10.0)            # the replication
    assert COMPARISONS["bias11_50ms_rep"][:2] == ("BiasElevenFiftyRep", 11)
    assert bias_weight("ismcts_bias(checkpoint='x', bias=3.5)") == 3.5
    assert bias_weight("ismcts_bias(checkpoint='x')") == 1.0        # the agent's default
    plain = "ismcts(time_limit=0.002, rollout='heuristic')"
    biased = (f"ismcts_bias(checkpoint={str(ckpt)!r}, bias=10.0, time_limit=0.002, "
              f"rollout='heuristic')")
    run = _run(tmp_path, (plain, biased))
    out = tmp_path / "bench" / "net_strength.json"
    capsys.readouterr()
    assert main([f"allbias6_5ms={run}", "--json", str(out)]) == 2     # 2 ms, not 5
    assert "5 ms per move" in capsys.readouterr().err and not out.exists()
    alone = _run(tmp_path, (f"network(checkpoint={str(ckpt)!r})", plain))
    assert main([f"allbias6={alone}", "--json", str(out)]) == 2       # not ismcts_bias
    weak = _run(tmp_path, (plain, biased.replace("bias=10.0", "bias=3.0")))
    assert main([f"allbias6={weak}", "--json", str(out)]) == 2        # weight 3, not 10
    assert "bias=10" in capsys.readouterr().err and not out.exists()
    assert main([f"allbias6={run}", "--json", str(out)]) == 0
    g = json.loads(out.read_text())["result"]["comparisons"]["allbias6"]["gain"]
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    assert _rows(m, "NetStrBiasRows") == [minus_signs(
        f"2 & -- &  & -- &  & {signed(g['mean'])} & {interval(g['lo'], g['hi'])} & -- &  \\\\")]
    assert main([f"bias6={run}", "--json", str(out), "--update"]) == 0
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    rows = "\n".join(_rows(m, "NetStrBiasRows"))
    assert rows.count(minus_signs(signed(g["mean"]))) == 2 and rows.count("--") == 2
    # none there: "not run", never a ??
    out.unlink()
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    assert "\\newcommand{\\NetStrBiasRows}{--}" in "\n".join(m.lines) and not m.warnings


def test_true_world_comparisons_fill_a_table_by_time_per_move(tmp_path, capsys):
    """``oracle<n>[_<ms>ms]``: ``ismcts_oracle`` against plain ``ismcts`` at the
    name's time per move (50 ms without a suffix); ``\\NetStrOracleRows`` has one
    row per time per move, a cell group per player count, in order of budget."""
    from net_strength import COMPARISONS, ORACLE_SETTING, oracle_name
    from oracle_worlds import main as oracle_worlds
    from texmacros import interval
    assert oracle_name(6, 50) == "oracle6" and oracle_name(11, 2) == "oracle11_2ms"
    assert COMPARISONS["oracle6"][:2] == ("OracleSix", 6)               # the stem kept
    assert COMPARISONS["oracle11_20ms"][:2] == ("OracleElevenTwenty", 11)
    assert ORACLE_SETTING["oracle6_5ms"] == 5.0 and ORACLE_SETTING["oracle11"] == 50.0
    assert ORACLE_SETTING["oracle11_5ms_rep"] == 5.0
    shipped = ROOT / "research" / "inference_equal_time" / "oracle_ismcts_field" / "field6"
    out = tmp_path / "bench" / "net_strength.json"
    capsys.readouterr()
    assert main([f"oracle6_2ms={shipped}", "--json", str(out)]) == 2      # 50 ms, not 2
    assert "2 ms per move" in capsys.readouterr().err and not out.exists()
    runs = tmp_path / "runs"
    assert oracle_worlds(["--agents", "ismcts(time_limit=0.002, rollout='heuristic')",
                          "ismcts_oracle(time_limit=0.002, rollout='heuristic')",
                          "--game", json.dumps({"players": 6}), "--deals", "2", "--seed", "5",
                          "--no-progress", "--out", str(runs)]) == 0
    (run,) = runs.glob("tournament@*")
    assert main([f"oracle6={run}", "--json", str(out)]) == 2             # 2 ms, not 50
    assert main([f"oracle6_2ms={run}", f"oracle6={shipped}", "--json", str(out)]) == 0
    comps = json.loads(out.read_text())["result"]["comparisons"]
    m = Macros()
    paper_macros(m, tmp_path, tmp_path / "bench")
    cells = {ms: minus_signs(f"{signed(comps[k]['gain']['mean'])} & "
                             f"{interval(comps[k]['gain']['lo'], comps[k]['gain']['hi'])}")
             for ms, k in ((2, "oracle6_2ms"), (50, "oracle6"))}
    assert _rows(m, "NetStrOracleRows") == [f"2 & {cells[2]} & -- &  \\\\",
                                            f"50 & {cells[50]} & -- &  \\\\"]
