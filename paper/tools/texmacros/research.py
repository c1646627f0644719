"""Paper macros of the results that hand-run research scripts saved.

Three result files under the benchmarks' folder (``paper/results/bench/`` for
the paper) are written by scripts of ``research/scripts/`` run by hand on
tournament run folders and checkpoints, not by a registered study:

* ``inference_field.json``: ``research/scripts/field_pair.py`` (one tested seat
  among a fixed field, paired deal by deal); :func:`field_macros`;
* ``net_strength.json``: ``research/scripts/net_strength.py`` (head-to-head
  tournaments of the networks and of the ladder's inference step);
  :func:`net_strength_macros`;
* ``card_location.json``: ``research/scripts/card_location.py evaluate`` (the
  learned card-location model); :func:`card_location_macros`.

This module only reads those files; it never imports the scripts (they import
the packages, and ``net_strength.py`` the names below, not the other way
round). What it holds besides the readers is the paper's vocabulary: which
saved comparisons the text quotes and under which macro names
(:data:`NET_STRENGTH`, :data:`CARD_LOCATION_LABELS`, :data:`WHY`), so that
every macro and ``\\if`` flag is defined, as not run, when a file is absent
(the quick profile has none of them).
``research/README.md`` lists the command that wrote each file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["NET_STRENGTH", "CARD_LOCATION_LABELS", "WHY", "bias_name", "oracle_name",
           "time_limit_ms", "paper_macros", "field_macros", "why_macros",
           "net_strength_macros", "card_location_macros"]


def paper_macros(m, results: Path, bench: Path) -> None:
    """Every macro of the three saved research results, in the order of
    ``macros.tex`` (:data:`texmacros.SOURCES`)."""
    field_macros(m, results, bench)
    net_strength_macros(m, results, bench)
    card_location_macros(m, results, bench)


# ------------------------------------------------------ inference against a field
def _saved_macros(m, ok: bool, name: str, get, what: str) -> None:
    """``<name>Saved`` (Y - X, > 0: X takes fewer points), ``Lo``, ``Hi``, ``P``
    and ``Deals`` of the comparison ``get()``."""
    from texmacros import pvalue, signed
    m.add_if(ok, f"{name}Saved", lambda: -get()["x_minus_y"]["mean"], signed, what)
    m.add_if(ok, f"{name}Lo", lambda: -get()["x_minus_y"]["hi"], signed, "")
    m.add_if(ok, f"{name}Hi", lambda: -get()["x_minus_y"]["lo"], signed, "")
    m.add_if(ok, f"{name}P", lambda: get()["p_value"], pvalue, "")
    m.add_if(ok, f"{name}Deals", lambda: get()["deals"], str, "")


def field_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers of inference against a heuristic field
    (:mod:`texmacros`), from ``bench/inference_field.json``: for each
    comparison of an agent with belief inference (X) and the same search without
    it (Y) at 6 and 11 players, ``\\InfField<Six|Eleven><Mcmc|Pool>`` +
    ``Saved`` (Y - X: points per hand inference saves; > 0 is a gain), ``Lo``,
    ``Hi``, ``P``, ``Deals``, ``Ms`` (X's mean time per decision, ms) and ``Budget``
    (its time limit per move, s); flags ``\\if<name>Gain`` / ``Loss``: the
    interval lies on the side of a gain / of a loss. ``\\ifInferenceField``: the file is there (the
    quick profile runs none of it; every macro is then not run)."""
    from texmacros import WORDS, fixed, read_json
    path = bench / "inference_field.json"
    there = path.is_file()
    m.flag("InferenceField", lambda: there, "the inference-field comparisons are there")

    def comp(n: int, kind: str) -> dict:
        for c in read_json(path)["result"]["comparisons"]:
            mc = "belief_mcmc" in c["x"]
            if c["players"] == n and (kind == "Mcmc") == mc and _plain_pair(c):
                return c
        raise KeyError(f"no {kind} comparison at {n} players")

    def budget(c) -> float:
        return float(re.search(r"time_limit=([0-9.]+)", c["x"]).group(1))

    for n in (6, 11):
        for kind in ("Mcmc", "Pool"):
            name = f"InfField{WORDS[n]}{kind}"
            get = lambda n=n, kind=kind: comp(n, kind)                  # noqa: E731
            ok = there and _has(path, n, kind)
            _saved_macros(m, ok, name, get,
                          f"points per hand inference saves, {n} players ({kind})")
            m.add_if(ok, f"{name}Budget", lambda g=get: budget(g()), fixed(2), "")
            m.flag(f"{name}Gain", lambda g=get, ok=ok: ok and g()["x_minus_y"]["hi"] < 0,
                   f"inference significantly better, {n} players ({kind})")
            m.flag(f"{name}Loss", lambda g=get, ok=ok: ok and g()["x_minus_y"]["lo"] > 0,
                   f"inference significantly worse, {n} players ({kind})")
            m.add_if(ok, f"{name}Ms", lambda g=get: 1e3 * g()["runs"][0]["seconds_per_decision"],
                     fixed(0), "")
    why_macros(m, results, bench)


def _plain_pair(c: dict) -> bool:
    """An inference comparison of the first kind: the default tree, no oracle."""
    return "opponents=" not in c["x"] + c["y"] and "ismcts_oracle" not in c["x"]


def _has(path: Path, n: int, kind: str) -> bool:
    try:
        cs = json.loads(path.read_text())["result"]["comparisons"]
    except (OSError, ValueError, KeyError):
        return False
    return any(c["players"] == n and (kind == "Mcmc") == ("belief_mcmc" in c["x"])
               and _plain_pair(c) for c in cs)


#: The comparisons of "why" (``bench/inference_field.json``), by macro name:
#: a test of X's and Y's agent specs.
WHY = {
    "OracleSearch": lambda x, y: "ismcts_oracle" in x and "noise=0" in x
    and "opponents=" not in x + y,
    "OraclePolicy": lambda x, y: "ismcts_oracle" in x and "noise=0" in x
    and "opponents='policy'" in x and "opponents='policy'" in y,
    "PolicyTree": lambda x, y: x.startswith("ismcts(") and "opponents='policy'" in x
    and "belief" not in x and "opponents=" not in y,
    "PolicyMcmc": lambda x, y: x.startswith("ismcts(") and "opponents='policy'" in x
    and "belief_mcmc" in x and "belief_persist" not in x and "opponents='policy'" in y
    and "belief" not in y,
    "FreePosterior": lambda x, y: "ismcts_oracle" in x and "source='posterior'" in x
    and "opponents='policy'" in y,
}


def why_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers of why inference has not helped: ``\\InfWhy<name>``
    (``name`` in :data:`WHY`: the true world with the default tree and with
    ``opponents='policy'``, that tree against the default, resample-move with
    it, and calibrated posterior chains built off the clock with it) +
    ``Saved`` (Y - X, > 0: X takes fewer points), ``Lo``, ``Hi``, ``P``,
    ``Deals``, at 6 players from ``bench/inference_field.json``; and from
    ``bench/inference_calibration.json`` (``research/scripts/belief_quality.py calibration``)
    ``\\InfCalib<Prior|Few|Resampled|Chains>`` + ``Ece`` / ``Brier``. Flags
    ``\\ifInferenceWhy``, ``\\ifInferenceCalibration``: the numbers are there."""
    from texmacros import fixed, read_json
    path = bench / "inference_field.json"

    def find(name):
        for c in read_json(path)["result"]["comparisons"]:
            if c["players"] == 6 and WHY[name](c["x"], c["y"]):
                return c
        raise KeyError(f"no comparison {name!r} in {path}")

    def have(name) -> bool:
        try:
            find(name)
            return True
        except (OSError, ValueError, KeyError):
            return False

    ok_all = path.is_file() and all(have(k) for k in WHY)
    m.flag("InferenceWhy", lambda: ok_all, "the why-comparisons are there")
    for name in WHY:
        ok = ok_all
        get = lambda name=name: find(name)                            # noqa: E731
        _saved_macros(m, ok, f"InfWhy{name}", get,
                      f"points per hand X saves against Y ({name})")
    cal = bench / "inference_calibration.json"
    designs = {"Prior": (2048, 2048, 0), "Few": (16, 16, 0), "Resampled": (16, 4, 30),
               "Chains": (64, 64, 150)}

    def row(key):
        size, ess, mcmc = designs[key]
        for r in read_json(cal)["result"]["rows"]:
            if (r["size"], r["min_ess"], r["mcmc"]) == (size, ess, mcmc):
                return r
        raise KeyError(f"no calibration row {key!r} in {cal}")

    def cal_ok() -> bool:
        try:
            return all(row(k) is not None for k in designs)
        except (OSError, ValueError, KeyError):
            return False

    ok = cal.is_file() and cal_ok()
    m.flag("InferenceCalibration", lambda: ok, "the calibration numbers are there")
    for key in designs:
        m.add_if(ok, f"InfCalib{key}Ece", lambda k=key: row(k)["ece"], fixed(3),
                 f"expected calibration error, {key}")
        m.add_if(ok, f"InfCalib{key}Brier", lambda k=key: row(k)["brier"], fixed(4), "")



# ------------------------------------------------------ the networks' strength
#: The saved head-to-head comparisons the paper quotes (``net_strength.json``,
#: ``result.comparisons[NAME]``): NAME -> (macro stem, player count, what it is).
#: ``research/scripts/net_strength.py`` accepts exactly these names, and reads
#: the setting a name fixes (time per move, root-bias weight) from the name.
NET_STRENGTH = {
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

#: One network trained at every count of the range (``research/distill/``, "One
#: network for 5-11 players"), against the heuristic at each count: two runs of
#: the guided recipe, 15 hands per count a round (``all<n>``, the main result)
#: and 30 (``all<n>_h30``); also the rows of ``\\NetStrAllRows``.
WORDS = dict(zip(range(5, 12), ("Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven")))
ALL_RUNS = {"": ("All", 15), "_h30": ("AllDouble", 30)}
for _n, _word in WORDS.items():
    for _suffix, (_stem, _hands) in ALL_RUNS.items():
        NET_STRENGTH[f"all{_n}{_suffix}"] = (
            f"{_stem}{_word}", _n, f"guided network trained at every count 5-11 "
            f"({_hands} hands per count a round) vs heuristic, {_n} players")
del _n, _word, _suffix, _stem, _hands

#: ISMCTS with a network as root bias (``ismcts_bias``, weight 10) against plain
#: ISMCTS at equal time per move: the cells of the root-bias table
#: (``\\NetStrBiasRows``, one row per time per move, one cell group per
#: network and player count). Names ``<prefix>bias<n>`` at 2 ms, else
#: ``<prefix>bias<n>_<ms>ms``; also the declared rerun at weight 30
#: (``allbias<n>_20ms_w30``) and the replication ``bias11_50ms_rep``.
BIAS_NETWORKS = {"": ("", "the 6-player network"), "all": ("All", "the every-count network")}
BIAS_PLAYERS = (6, 11)
BIAS_MS = {2: "", 5: "Five", 20: "Twenty", 50: "Fifty"}
BIAS_COLUMNS = [(_net, _n) for _net in BIAS_NETWORKS for _n in BIAS_PLAYERS]


def bias_name(net: str, players: int, ms: int) -> str:
    """The comparison name of one cell of the root-bias table."""
    return f"{net}bias{players}" + (f"_{ms}ms" if ms != 2 else "")


for _net, (_stem, _what) in BIAS_NETWORKS.items():
    for _n in BIAS_PLAYERS:
        for _ms, _msword in BIAS_MS.items():
            NET_STRENGTH[bias_name(_net, _n, _ms)] = (
                f"{_stem}Bias{WORDS[_n]}{_msword}", _n, f"ismcts_bias ({_what} as root bias) "
                f"vs ismcts, {_ms} ms per move, {_n} players")
for _n in BIAS_PLAYERS:
    NET_STRENGTH[f"allbias{_n}_20ms_w30"] = (
        f"AllBias{WORDS[_n]}TwentyWeightThirty", _n, "ismcts_bias (the every-count network as "
        f"root bias, weight 30) vs ismcts, 20 ms per move, {_n} players")
NET_STRENGTH["bias11_50ms_rep"] = ("BiasElevenFiftyRep", 11, "ismcts_bias (the 6-player "
                                   "network as root bias) vs ismcts, 50 ms per move, 11 "
                                   "players, replication on fresh deals")
del _net, _stem, _what, _n, _ms, _msword

#: The true world's worth to ISMCTS among ISMCTS players by time per move
#: (``ismcts_oracle`` against plain ``ismcts``, ``research/inference_equal_time/``):
#: one row per time per move of ``\\NetStrOracleRows``. Names ``oracle<n>`` at
#: 50 ms, else ``oracle<n>_<ms>ms``, and ``oracle<n>_5ms_rep`` (the 5 ms row
#: replicated on other deals, not a table row).
ORACLE_MS = {2: "Two", 5: "Five", 20: "Twenty", 50: ""}


def oracle_name(players: int, ms: int) -> str:
    """The comparison name of one cell of the true-world table."""
    return f"oracle{players}" + (f"_{ms}ms" if ms != 50 else "")


for _n in BIAS_PLAYERS:
    for _ms, _msword in ORACLE_MS.items():
        NET_STRENGTH[oracle_name(_n, _ms)] = (
            f"Oracle{WORDS[_n]}{_msword}", _n, "ismcts given the true world vs ismcts, "
            f"{_ms} ms per move, {_n} players")
    NET_STRENGTH[f"oracle{_n}_5ms_rep"] = (
        f"Oracle{WORDS[_n]}FiveRep", _n, "ismcts given the true world vs ismcts, 5 ms per "
        f"move, {_n} players, replication on fresh deals")
del _n, _ms, _msword
# A learned card-location model as ISMCTS's belief (``belief='location'``) against
# plain ISMCTS at 5 ms per move (``research/inference_equal_time/``, section 9).
for _n in BIAS_PLAYERS:
    NET_STRENGTH[f"location{_n}_5ms"] = (
        f"Location{WORDS[_n]}Five", _n, "ismcts with a learned card-location model "
        f"(belief='location') vs ismcts, 5 ms per move, {_n} players")
del _n


def time_limit_ms(spec: str) -> float:
    """The ``time_limit`` of an agent spec in milliseconds (0.0: none)."""
    hit = re.search(r"time_limit=([0-9.eE+-]+)", spec)
    return 1000.0 * float(hit.group(1)) if hit else 0.0


def net_strength_macros(m, results: Path, bench: Path) -> None:
    """``\\NetStr<Stem>{Gain,Lo,Hi,P,Deals,Seatings,Ms}`` for every comparison of
    :data:`NET_STRENGTH` in ``bench/net_strength.json`` (the network agent's gain
    over its anchor, points per hand; ``Ms``: the network agent's time per
    decision), flags ``\\ifNetStr<Stem>`` (there) and ``\\ifNetStr<Stem>Gain``
    (significant gain); ``\\ifNetStrength``: the file is there."""
    from texmacros import fixed, interval, pvalue, read_json, signed
    path = bench / "net_strength.json"
    there = path.is_file()
    m.flag("NetStrength", lambda: there, "the networks' strength comparisons are there")
    try:
        have = set(json.loads(path.read_text())["result"]["comparisons"]) if there else set()
    except (OSError, ValueError, KeyError):
        have = set()
    for name, (stem, _, what) in NET_STRENGTH.items():
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


# ------------------------------------------------------ the card-location model
#: The evaluations the paper quotes (``evaluate LABEL=CHECKPOINT:DATA``): the
#: playing models (early-stopped), the declared 4,000-step models and the
#: positive control (a model of heuristic players), by macro stem.
CARD_LOCATION_LABELS = {"6": "Six", "11": "Eleven", "declared6": "DeclaredSix",
                "declared11": "DeclaredEleven", "control6": "ControlSix"}


def card_location_macros(m, results: Path, bench: Path) -> None:
    """From ``bench/card_location.json``, per label of :data:`CARD_LOCATION_LABELS`:
    ``\\CardLoc<Stem>{Decisions,Hands,MsePrior,MseModel,ShareModel,MseTilt,
    ShareTilt,BrierPool,BrierTilt,ShareTempered,BrierTempered,Ess,Pool,HeldPrior,
    HeldBest,HeldBestStep,TrainHands}``
    (shares in percent, held-out losses per uncertain card); flag
    ``\\ifCardLocation``: every label is there."""
    from texmacros import fixed, read_json, thousands
    path = bench / "card_location.json"

    def get(label):
        return read_json(path)["result"]["by_players"][label]

    def train_hands(label):
        model = read_json(path)["metadata"]["config"]["models"][label]
        return sum(int(c["config"]["hands"]) for c in model["collections"])

    try:
        ok = path.is_file() and all(k in read_json(path)["result"]["by_players"]
                                    for k in CARD_LOCATION_LABELS)
    except (OSError, ValueError, KeyError, TypeError):
        ok = False
    m.flag("CardLocation", lambda: ok, "the card-location model's evaluation is there")
    pct = lambda v: f"{100 * v:.1f}"        # noqa: E731
    # a curve without step 0 (trained before it was recorded) has no prior's loss
    held = lambda v: "--" if v is None else fixed(4)(v)    # noqa: E731
    fields = (("Decisions", "decisions", str), ("Hands", "hands", str),
              ("MsePrior", "mse_prior", fixed(4)), ("MseModel", "mse_model", fixed(4)),
              ("ShareModel", "share_removed", pct), ("MseTilt", "mse_tilt", fixed(4)),
              ("ShareTilt", "share_removed_tilt", pct), ("BrierPool", "brier_pool", fixed(4)),
              ("ShareTempered", "share_removed_tempered", pct),
              ("BrierTempered", "brier_tilt_tempered", fixed(4)),
              ("BrierTilt", "brier_tilt", fixed(4)), ("Ess", "mean_ess", fixed(1)),
              ("Pool", "pool_worlds", str), ("HeldPrior", "heldout_prior", held),
              ("HeldBest", "heldout_best", fixed(4)),
              ("HeldBestStep", "heldout_best_step", str))
    for label, stem in CARD_LOCATION_LABELS.items():
        for key, field, fmt in fields:
            m.add_if(ok, f"CardLoc{stem}{key}", lambda k=label, f=field: get(k)[f], fmt,
                     f"card-location model {label}: {field}")
        m.add_if(ok, f"CardLoc{stem}TrainHands", lambda k=label: train_hands(k), thousands,
                 f"card-location model {label}: hands it was trained on")
