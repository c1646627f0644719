"""The networks' strength: head-to-head tournaments collected for the README and paper.

Each comparison is one two-agent duplicate-deal tournament (``python -m
experiments.tournament --agents A B ...``) in which one agent is a network agent
(``network(...)``, ``ismcts_net(...)`` or ``ismcts_bias(...)``) and the other its
anchor (``heuristic``, or plain ``ismcts`` at the same time per move), or one a
search with the network and the other the network alone (its anchor). The ladder's
inference step is collected the same way (:data:`TESTED`: ISMCTS with the learned
policy as its opponent model, or given the true world, against plain ISMCTS). This
script reads the run folders and writes one JSON file with every comparison: both
specs, the player count, deals, seatings, seed, the tested agent's gain over the
anchor in zero-sum payoff per hand (the mean of the other seats' points minus one's
own: n/(n-1) times the difference in points taken; the tournament's paired
comparison: 95% t interval over deals, paired t-test p-value), both agents' mean
time per decision, and each run's configuration, commit and package versions.

    python -m experiments.bench.net_strength NAME=RUN [NAME=RUN ...] [--json OUT]

``NAME`` is one of :data:`COMPARISONS` (what the paper quotes, by macro stem;
the root-bias names, :data:`BIAS_SETTING`, fix the run's time per move and weight,
the true-world names, :data:`ORACLE_SETTING`, and the card-location names,
:data:`LOCATION_SETTING`, its time per move);
``RUN`` a tournament run folder (``.../tournament@<hex>``). ``--update`` keeps
the comparisons already in the ``--json`` file (each carries its own run's
config, commit and versions) and replaces the named ones. The paper reads
``paper/results/bench/net_strength.json`` (:func:`paper_macros`).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from pathlib import Path

__all__ = ["BIAS_SETTING", "COMPARISONS", "LOCATION_SETTING", "ORACLE_SETTING", "TESTED",
           "NetStrengthError",
           "bias_name", "bias_weight", "load_comparison", "main", "oracle_name", "paper_macros",
           "setting_error", "time_limit_ms"]

#: Comparison names: (the paper's macro stem, player count, what it is).
COMPARISONS = {
    "hint6": ("HintSix", 6, "heuristic-guided network vs heuristic, 6 players"),
    "hint5": ("HintFive", 5, "heuristic-guided network vs heuristic, 5 players"),
    "hint11": ("HintEleven", 11, "heuristic-guided network vs heuristic, 11 players"),
    "raw6": ("RawSix", 6, "raw network (no hint) vs heuristic, 6 players"),
    "search6": ("SearchSix", 6, "ismcts_net (hinted prior) vs ismcts, equal time, 6 players"),
    "netsearch6": ("NetSearchSix", 6, "guided network alone vs ismcts at 2 ms per move, 6 players"),
    "netsearch6_5ms": ("NetSearchSixFive", 6,
                       "guided network alone vs ismcts at 5 ms per move, 6 players"),
    "netsearch11": ("NetSearchEleven", 11,
                    "guided network alone vs ismcts at 2 ms per move, 11 players"),
    "netsearch6_20ms": ("NetSearchSixTwenty", 6, "the network trained at every count 5-11 "
                        "alone vs ismcts at 20 ms per move, 6 players"),
    "netsearch11_20ms": ("NetSearchElevenTwenty", 11, "the network trained at every count "
                         "5-11 alone vs ismcts at 20 ms per move, 11 players"),
    "biasnet6_5ms": ("BiasNetSixFive", 6,
                     "ismcts_bias at 5 ms per move vs the guided network alone, 6 players"),
    "mixed6": ("MixedSix", 6, "guided network trained at 6 and 11 players vs heuristic, 6 players"),
    "mixed11": ("MixedEleven", 11,
                "guided network trained at 6 and 11 players vs heuristic, 11 players"),
    "mixed5": ("MixedFive", 5,
               "guided network trained at 6 and 11 players vs heuristic, 5 players (untrained)"),
    "mixed8": ("MixedEight", 8,
               "guided network trained at 6 and 11 players vs heuristic, 8 players (untrained)"),
    "beliefnet6": ("BeliefNetSix", 6, "ismcts with the learned policy as opponent model "
                   "(belief='network') vs ismcts, equal time, 6 players"),
    "oraclepolicy6": ("OraclePolicySix", 6, "ismcts given the true world vs ismcts, both with "
                      "the other players playing the heuristic in the tree, 6 players"),
    "oraclepolicy11": ("OraclePolicyEleven", 11, "ismcts given the true world vs ismcts, both "
                       "with the other players playing the heuristic in the tree, 11 players"),
}

#: One network trained at every count of the range (``docs/distill/``, "One
#: network for 5-11 players"), against the heuristic at each count: two runs of
#: the guided recipe, 15 hands per count a round (``all<n>``, the main result)
#: and 30 (``all<n>_h30``). :func:`paper_macros` also writes their table rows.
WORDS = dict(zip(range(5, 12), ("Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven")))
ALL_RUNS = {"": ("All", 15), "_h30": ("AllDouble", 30)}
for _n, _word in WORDS.items():
    for _suffix, (_stem, _hands) in ALL_RUNS.items():
        COMPARISONS[f"all{_n}{_suffix}"] = (
            f"{_stem}{_word}", _n, f"guided network trained at every count 5-11 "
            f"({_hands} hands per count a round) vs heuristic, {_n} players")
del _n, _word, _suffix, _stem, _hands

#: ISMCTS with a network as root bias (``ismcts_bias``) against plain ISMCTS at
#: equal time per move, by network, player count and time per move: the cells of
#: the paper's root-bias table (``\\NetStrBiasRows``, one row per time per move,
#: one cell group per column; weight 10). Names ``<prefix>bias<n>`` at 2 ms, else
#: ``<prefix>bias<n>_<ms>ms``. :data:`BIAS_SETTING` maps every root-bias name (the
#: table's, the reruns at another weight, ``..._w<weight>``, and the replication
#: ``bias11_50ms_rep``) to its time per move in ms and its weight; ``main``
#: refuses a run whose tested agent, time per move or weight is not the name's.
BIAS_NETWORKS = {"": ("", "the 6-player network"), "all": ("All", "the every-count network")}
BIAS_PLAYERS = (6, 11)
BIAS_MS = {2: "", 5: "Five", 20: "Twenty", 50: "Fifty"}
BIAS_COLUMNS = [(_net, _n) for _net in BIAS_NETWORKS for _n in BIAS_PLAYERS]
BIAS_SETTING: dict[str, tuple[float, float]] = {}


def bias_name(net: str, players: int, ms: int) -> str:
    """The comparison name of one cell of the root-bias table."""
    return f"{net}bias{players}" + (f"_{ms}ms" if ms != 2 else "")


for _net, (_stem, _what) in BIAS_NETWORKS.items():
    for _n in BIAS_PLAYERS:
        for _ms, _msword in BIAS_MS.items():
            _name = bias_name(_net, _n, _ms)
            BIAS_SETTING[_name] = (float(_ms), 10.0)
            COMPARISONS[_name] = (
                f"{_stem}Bias{WORDS[_n]}{_msword}", _n, f"ismcts_bias ({_what} as root bias) "
                f"vs ismcts, {_ms} ms per move, {_n} players")
for _n in BIAS_PLAYERS:        # the declared rerun at the weight the 20 ms pilots chose
    _name = f"allbias{_n}_20ms_w30"
    BIAS_SETTING[_name] = (20.0, 30.0)
    COMPARISONS[_name] = (f"AllBias{WORDS[_n]}TwentyWeightThirty", _n, "ismcts_bias (the "
                          f"every-count network as root bias, weight 30) vs ismcts, 20 ms per "
                          f"move, {_n} players")
# The declared replication of the 11-player 50 ms cell on fresh deals (seed 3).
BIAS_SETTING["bias11_50ms_rep"] = (50.0, 10.0)
COMPARISONS["bias11_50ms_rep"] = ("BiasElevenFiftyRep", 11, "ismcts_bias (the 6-player network "
                                  "as root bias) vs ismcts, 50 ms per move, 11 players, "
                                  "replication on fresh deals")
del _net, _stem, _what, _n, _ms, _msword, _name

#: The true world's worth to ISMCTS among ISMCTS players by time per move
#: (``ismcts_oracle`` against plain ``ismcts``, both at the same time per move;
#: ``docs/inference_equal_time/``, sections 6 and 8): the bound on the ladder's
#: inference step, one row per time per move of the paper's table
#: (``\\NetStrOracleRows``). Names ``oracle<n>`` at 50 ms (the first runs), else
#: ``oracle<n>_<ms>ms``, and ``oracle<n>_5ms_rep`` (the 5 ms row replicated on
#: other deals, not a table row); :data:`ORACLE_SETTING` maps each to its time
#: per move.
ORACLE_MS = {2: "Two", 5: "Five", 20: "Twenty", 50: ""}
ORACLE_SETTING: dict[str, float] = {}


def oracle_name(players: int, ms: int) -> str:
    """The comparison name of one cell of the true-world table."""
    return f"oracle{players}" + (f"_{ms}ms" if ms != 50 else "")


for _n in BIAS_PLAYERS:
    for _ms, _msword in ORACLE_MS.items():
        _name = oracle_name(_n, _ms)
        ORACLE_SETTING[_name] = float(_ms)
        COMPARISONS[_name] = (f"Oracle{WORDS[_n]}{_msword}", _n, "ismcts given the true world "
                              f"vs ismcts, {_ms} ms per move, {_n} players")
    _name = f"oracle{_n}_5ms_rep"      # the declared replication on fresh deals (seed 4)
    ORACLE_SETTING[_name] = 5.0
    COMPARISONS[_name] = (f"Oracle{WORDS[_n]}FiveRep", _n, "ismcts given the true world vs "
                          f"ismcts, 5 ms per move, {_n} players, replication on fresh deals")
del _n, _ms, _msword, _name

#: A learned card-location model as ISMCTS's belief (``belief='location'``)
#: against plain ISMCTS at the same time per move (``docs/inference_equal_time/``,
#: section 9): the ladder's inference step at the budget where the truth pays;
#: names ``location<n>_<ms>ms``, mapped to their time per move.
LOCATION_SETTING: dict[str, float] = {}
for _n in BIAS_PLAYERS:
    _name = f"location{_n}_5ms"
    LOCATION_SETTING[_name] = 5.0
    COMPARISONS[_name] = (f"Location{WORDS[_n]}Five", _n, "ismcts with a learned card-location "
                          f"model (belief='location') vs ismcts, 5 ms per move, {_n} players")
del _n, _name

#: The ladder's inference step (no network agent on either side, or the network
#: only as an opponent model): the tested agent is the one whose spec holds the
#: marker; the other is its anchor.
TESTED = {"beliefnet6": "belief='network'", "oraclepolicy6": "ismcts_oracle(",
          "oraclepolicy11": "ismcts_oracle(", **dict.fromkeys(ORACLE_SETTING, "ismcts_oracle("),
          **dict.fromkeys(LOCATION_SETTING, "belief='location'")}

_NET = ("network(", "ismcts_net(", "ismcts_bias(")


def _rank(spec: str) -> int:
    """0: no network; 1: the network alone; 2: a search with the network (the
    tested agent when the other plays the network alone)."""
    return 2 if spec.startswith(_NET[1:]) else 1 if spec.startswith(_NET[0]) else 0


class NetStrengthError(ValueError):
    """A run folder that is not a two-agent tournament with one network agent
    (or, with ``tested``, with exactly one agent whose spec holds it)."""


def load_comparison(folder, tested: str | None = None) -> dict:
    """The comparison of one head-to-head tournament run (module docstring).
    ``tested``: a marker (e.g. ``"ismcts_oracle("``) naming the tested agent by
    its spec instead of the network rule; the result's ``network`` key is then
    that agent and ``anchor`` the other."""
    folder = Path(folder)
    try:
        meta = json.loads((folder / "metadata.json").read_text())
        with open(folder / "pairs.csv", newline="") as f:
            pairs = list(csv.DictReader(f))
        with open(folder / "agents.csv", newline="") as f:
            agents = list(csv.DictReader(f))
    except (OSError, ValueError) as e:
        raise NetStrengthError(f"{folder}: not a finished tournament run folder "
                               f"(metadata.json, pairs.csv, agents.csv): {e}") from None
    if len(agents) != 2 or len(pairs) != 1:
        raise NetStrengthError(f"{folder}: {len(agents)} agents; allowed: exactly two")
    a, b = agents[0]["spec"], agents[1]["spec"]
    rank = ([_rank(x) for x in (a, b)] if tested is None
            else [int(tested in x) for x in (a, b)])
    if rank[0] == rank[1] and tested is not None:
        raise NetStrengthError(f"{folder}: agents {a!r}, {b!r}; exactly one must hold "
                               f"{tested!r} (the tested agent)")
    if rank[0] == rank[1]:
        raise NetStrengthError(
            f"{folder}: agents {a!r}, {b!r}; exactly one must be a network agent "
            f"({', '.join(n + '...)' for n in _NET)}), or one a search with the network "
            f"(ismcts_net, ismcts_bias) and the other the network alone")
    is_net = [rank[0] > rank[1], rank[1] > rank[0]]
    sign = 1.0 if is_net[0] else -1.0
    p = pairs[0]
    d, lo, hi = (float(p[k]) for k in ("payoff_difference", "payoff_lo", "payoff_hi"))
    gain = {"mean": sign * d, "lo": min(sign * lo, sign * hi), "hi": max(sign * lo, sign * hi)}
    net, anchor = (agents[0], agents[1]) if is_net[0] else (agents[1], agents[0])
    cfg = meta["config"]
    return {"network": net["spec"], "anchor": anchor["spec"], "players": int(cfg["players"]),
            "deals": int(net["deals"]), "seatings": int(net["seat_assignments"]),
            "seed": int(cfg["seed"]), "gain": gain, "p_value": float(p["payoff_p_value"]),
            "ms_per_decision": {"network": float(net["ms_per_decision"]),
                                "anchor": float(anchor["ms_per_decision"])},
            "run": {"folder": str(folder), "config": cfg, "git_commit": meta.get("git_commit"),
                    "versions": meta.get("versions"), "machine": meta.get("machine")}}


def time_limit_ms(spec: str) -> float:
    """The ``time_limit`` of an agent spec in milliseconds (0.0: none)."""
    hit = re.search(r"time_limit=([0-9.eE+-]+)", spec)
    return 1000.0 * float(hit.group(1)) if hit else 0.0


def bias_weight(spec: str) -> float:
    """The ``bias`` weight of an ``ismcts_bias(...)`` spec (its default, 1, when the
    spec does not set it)."""
    hit = re.search(r"\bbias=([0-9.eE+-]+)", spec)
    return float(hit.group(1)) if hit else 1.0


def setting_error(name: str, c: dict) -> str | None:
    """What a grid comparison (:data:`BIAS_SETTING`, :data:`ORACLE_SETTING`,
    :data:`LOCATION_SETTING`) must
    be, when the loaded comparison ``c`` is not that; None when it is (or when
    ``name`` fixes no setting)."""
    if name in BIAS_SETTING:
        ms, weight = BIAS_SETTING[name]
        tested, what = "ismcts_bias(", f"ismcts_bias with bias={weight:g}"
        same = math.isclose(bias_weight(c["network"]), weight)
    elif name in ORACLE_SETTING:
        ms, tested, what, same = ORACLE_SETTING[name], "ismcts_oracle(", "ismcts_oracle", True
    elif name in LOCATION_SETTING:
        ms, tested = LOCATION_SETTING[name], "ismcts("
        what, same = "ismcts with belief='location'", "belief='location'" in c["network"]
    else:
        return None
    if (same and c["network"].startswith(tested) and c["anchor"].startswith("ismcts(")
            and math.isclose(time_limit_ms(c["anchor"]), ms)
            and math.isclose(time_limit_ms(c["network"]), ms)):
        return None
    return f"{name} is {what} against ismcts, at {ms:g} ms per move each"


def main(argv=None) -> int:
    from experiments.metadata import metadata, write_result
    ap = argparse.ArgumentParser(prog="python -m experiments.bench.net_strength",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", metavar="NAME=RUN",
                    help=f"NAME one of {', '.join(COMPARISONS)}; RUN a tournament folder")
    ap.add_argument("--json", metavar="FILE", help="write the comparisons as JSON")
    ap.add_argument("--update", action="store_true",
                    help="keep the comparisons already in --json FILE (each carries its own "
                         "run's config, commit and versions); the named ones are replaced")
    args = ap.parse_args(argv)
    if args.update and not args.json:
        print("net_strength: --update needs --json FILE", file=sys.stderr)
        return 2
    out, runs = {}, []
    if args.update and Path(args.json).is_file():
        try:
            old = json.loads(Path(args.json).read_text())
            out = dict(old["result"]["comparisons"])
            runs = [r for r in old["metadata"]["config"]["runs"]
                    if r.partition("=")[0] not in {a.partition("=")[0] for a in args.runs}]
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"net_strength: --update: {args.json} is not a net_strength result "
                  f"({e!r})", file=sys.stderr)
            return 2
    new = []
    for item in args.runs:
        name, sep, run = item.partition("=")
        if not sep or name not in COMPARISONS:
            print(f"net_strength: {item!r}; allowed: NAME=RUN with NAME one of "
                  f"{', '.join(COMPARISONS)}", file=sys.stderr)
            return 2
        try:
            c = load_comparison(run, TESTED.get(name))
        except NetStrengthError as e:
            print(f"net_strength: {e}", file=sys.stderr)
            return 2
        if c["players"] != COMPARISONS[name][1]:
            print(f"net_strength: {name} is a {COMPARISONS[name][1]}-player comparison; "
                  f"{run} has {c['players']} players", file=sys.stderr)
            return 2
        bad = setting_error(name, c)
        if bad:
            print(f"net_strength: {bad}; {run} has {c['network']!r} against "
                  f"{c['anchor']!r}", file=sys.stderr)
            return 2
        new.append((name, c))
    for name, c in new:
        out[name] = c
        g = c["gain"]
        print(f"{name}: {c['network']} vs {c['anchor']}, {c['players']} players, "
              f"{c['deals']} deals x {c['seatings']}: {g['mean']:+.2f} [{g['lo']:+.2f}, "
              f"{g['hi']:+.2f}] payoff per hand (p = {c['p_value']:.2g}); "
              f"{c['ms_per_decision']['network']:.2f} vs "
              f"{c['ms_per_decision']['anchor']:.2f} ms per decision")
    if args.json:
        write_result(args.json, {"comparisons": out},
                     metadata({"runs": runs + list(args.runs)},
                              min(c["seed"] for c in out.values())))
    return 0


def paper_macros(m, results: Path, bench: Path) -> None:
    """``\\NetStr<Stem>{Gain,Lo,Hi,P,Deals,Seatings,Ms}`` for every comparison of
    :data:`COMPARISONS` in ``bench/net_strength.json`` (the network agent's gain
    over its anchor, points per hand; ``Ms``: the network agent's time per
    decision), flags ``\\ifNetStr<Stem>`` (there) and ``\\ifNetStr<Stem>Gain``
    (significant gain); ``\\ifNetStrength``: the file is there."""
    from ..macros import fixed, interval, pvalue, read_json, signed
    path = bench / "net_strength.json"
    there = path.is_file()
    m.flag("NetStrength", lambda: there, "the networks' strength comparisons are there")
    try:
        have = set(json.loads(path.read_text())["result"]["comparisons"]) if there else set()
    except (OSError, ValueError, KeyError):
        have = set()
    for name, (stem, _, what) in COMPARISONS.items():
        ok = name in have
        get = lambda name=name: read_json(path)["result"]["comparisons"][name]   # noqa: E731
        m.flag(f"NetStr{stem}", lambda ok=ok: ok, what)
        m.add_if(ok, f"NetStr{stem}Gain", lambda g=get: g()["gain"]["mean"], signed, what)
        m.add_if(ok, f"NetStr{stem}Lo", lambda g=get: g()["gain"]["lo"], signed, "")
        m.add_if(ok, f"NetStr{stem}Hi", lambda g=get: g()["gain"]["hi"], signed, "")
        m.add_if(ok, f"NetStr{stem}P", lambda g=get: g()["p_value"], pvalue, "")
        m.add_if(ok, f"NetStr{stem}Deals", lambda g=get: g()["deals"], str, "")
        m.add_if(ok, f"NetStr{stem}Seatings", lambda g=get: g()["seatings"], str, "")
        m.add_if(ok, f"NetStr{stem}Ms", lambda g=get: g()["ms_per_decision"]["network"],
                 fixed(2), "")
        m.add_if(ok, f"NetStr{stem}TimeMs", lambda g=get: time_limit_ms(g()["anchor"]),
                 lambda v: f"{v:g}" if v else "--", "the anchor's time per move, ms")
        m.flag(f"NetStr{stem}Gain", lambda g=get, ok=ok: ok and g()["gain"]["lo"] > 0,
               f"significant gain: {what}")

    def all_rows() -> list[int]:
        return [n for n in WORDS if any(f"all{n}{x}" in have for x in ALL_RUNS)]

    def all_row(n: int) -> str:
        comps = read_json(path)["result"]["comparisons"]
        cells = [str(n)]
        for suffix in ALL_RUNS:
            c = comps.get(f"all{n}{suffix}")
            if c is None:
                cells += ["--", "", "", ""]
                continue
            g = c["gain"]
            cells += [signed(g["mean"]), interval(g["lo"], g["hi"]), pvalue(c["p_value"]),
                      f"{c['deals']}${{\\times}}${c['seatings']}"]
        return " & ".join(cells)

    def served(suffix: str) -> list[int]:
        comps = read_json(path)["result"]["comparisons"]
        return [n for n in WORDS if f"all{n}{suffix}" in comps
                and comps[f"all{n}{suffix}"]["gain"]["lo"] > 0]

    def words(ns: list[int]) -> str:
        w = [WORDS[n].lower() for n in ns] or ["none"]
        return w[0] if len(w) == 1 else ", ".join(w[:-1]) + " and " + w[-1]

    for suffix, (stem, hands) in ALL_RUNS.items():
        ok = any(f"all{n}{suffix}" in have for n in WORDS)
        what = f"the counts where the every-count network ({hands} hands) beats the heuristic"
        m.add_if(ok, f"NetStr{stem}Served", lambda x=suffix: words(served(x)), str, what)
        m.add_if(ok, f"NetStr{stem}ServedCount", lambda x=suffix: len(served(x)), str,
                 f"how many of {what}")

    def grid(budgets, names):
        """The rows (times per move with a run) and row builder of a table with
        one row per time per move and a cell group (gain, interval) per name."""
        def rows() -> list[int]:
            return [ms for ms in budgets if any(name(ms) in have for name in names)]

        def row(ms: int) -> str:
            comps = read_json(path)["result"]["comparisons"]
            cells = [str(ms)]
            for name in names:
                c = comps.get(name(ms))
                if c is None:
                    cells += ["--", ""]
                    continue
                g = c["gain"]
                cells += [signed(g["mean"]), interval(g["lo"], g["hi"])]
            return " & ".join(cells)
        return rows, row

    bias = grid(BIAS_MS, [lambda ms, net=net, n=n: bias_name(net, n, ms)
                          for net, n in BIAS_COLUMNS])
    oracle = grid(sorted(ORACLE_MS), [lambda ms, n=n: oracle_name(n, ms) for n in BIAS_PLAYERS])
    for name, (items, line), what in (
            ("NetStrBiasRows", bias, "ismcts_bias vs ismcts per time per move, "
             "a cell group per network and player count"),
            ("NetStrOracleRows", oracle, "ismcts given the true world vs ismcts per time per "
             "move, a cell group per player count"),
            ("NetStrAllRows", (all_rows, all_row), "the network trained at every count 5-11 vs "
             "the heuristic, per count (15 and 30 hands per count a round)")):
        if items():
            m.add_rows(name, items, line, f"table rows: {what}")
        else:
            m.not_run(name, what)


if __name__ == "__main__":
    sys.exit(main())
