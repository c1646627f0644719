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

    python research/scripts/net_strength.py NAME=RUN [NAME=RUN ...] [--json OUT]

``NAME`` is one of :data:`COMPARISONS` (what the paper quotes, by macro stem:
:data:`texmacros.research.NET_STRENGTH`; the root-bias names,
:data:`BIAS_SETTING`, fix the run's time per move and weight, the true-world
names, :data:`ORACLE_SETTING`, and the card-location names,
:data:`LOCATION_SETTING`, its time per move, each read from the name);
``RUN`` a tournament run folder (``.../tournament@<hex>``). ``--update`` keeps
the comparisons already in the ``--json`` file (each carries its own run's
config, commit and versions) and replaces the named ones. The paper reads
``paper/results/bench/net_strength.json``
(:func:`texmacros.research.net_strength_macros`).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from pathlib import Path

# The paper's vocabulary lives with its macro writers (paper/tools/texmacros).
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "paper" / "tools"))
from texmacros.research import (NET_STRENGTH, bias_name, oracle_name,
                                time_limit_ms)

__all__ = ["BIAS_SETTING", "COMPARISONS", "LOCATION_SETTING", "ORACLE_SETTING", "TESTED",
           "NetStrengthError",
           "bias_name", "bias_weight", "load_comparison", "main", "oracle_name",
           "setting_error", "time_limit_ms"]

#: Comparison names: (the paper's macro stem, player count, what it is); the
#: paper's vocabulary, defined with the macros that read the saved file.
COMPARISONS = NET_STRENGTH


def _setting(pattern: str) -> dict[str, re.Match]:
    return {name: hit for name in COMPARISONS if (hit := re.fullmatch(pattern, name))}


#: Root-bias names (``<prefix>bias<n>[_<ms>ms][_w<weight>][_rep]``) -> (time per
#: move in ms, weight): 2 ms and weight 10 unless the name says otherwise.
BIAS_SETTING: dict[str, tuple[float, float]] = {
    name: (float(hit[1] or 2), float(hit[2] or 10))
    for name, hit in _setting(r"(?:all)?bias\d+(?:_(\d+)ms)?(?:_w(\d+))?(?:_rep)?").items()}
#: True-world names (``oracle<n>[_<ms>ms][_rep]``) -> time per move in ms (50 unless named).
ORACLE_SETTING: dict[str, float] = {
    name: float(hit[1] or 50)
    for name, hit in _setting(r"oracle\d+(?:_(\d+)ms)?(?:_rep)?").items()}
#: Card-location names (``location<n>_<ms>ms``) -> time per move in ms.
LOCATION_SETTING: dict[str, float] = {
    name: float(hit[1]) for name, hit in _setting(r"location\d+_(\d+)ms").items()}

#: The ladder's inference step (no network agent on either side, or the network
#: only as an opponent model): the tested agent is the one whose spec holds the
#: marker; the other is its anchor. The belief markers hold for a belief value
#: with its options (``belief='network(checkpoint=...)'``) and for the runs
#: recorded with the former flat keywords (``belief='network', belief_checkpoint=...``).
TESTED = {"beliefnet6": "belief='network", "oraclepolicy6": "ismcts_oracle(",
          "oraclepolicy11": "ismcts_oracle(", **dict.fromkeys(ORACLE_SETTING, "ismcts_oracle("),
          **dict.fromkeys(LOCATION_SETTING, "belief='location")}

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
        what = "ismcts with belief='location'"
        same = TESTED[name] in c["network"]
    else:
        return None
    if (same and c["network"].startswith(tested) and c["anchor"].startswith("ismcts(")
            and math.isclose(time_limit_ms(c["anchor"]), ms)
            and math.isclose(time_limit_ms(c["network"]), ms)):
        return None
    return f"{name} is {what} against ismcts, at {ms:g} ms per move each"


def main(argv=None) -> int:
    from experiments._base.metadata import metadata, write_result
    ap = argparse.ArgumentParser(prog="python research/scripts/net_strength.py",
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


if __name__ == "__main__":
    sys.exit(main())
