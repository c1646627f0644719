"""A tournament's statistics over its deals: per agent and per pair of agents, with 95%
intervals and paired tests, as a dict, as tables and as printed text."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.stats

from .._base.stats import mean_ci
from ._config import TournamentConfig

__all__ = ["paired_test", "per_deal_agent_values", "summarize", "summary_tables",
           "summary_table", "AGENT_COLUMNS", "PAIR_COLUMNS"]


def paired_test(x, y) -> dict:
    """Paired comparison over deals: mean of ``x - y`` with its 95% CI and the
    two-sided paired t-test p-value."""
    d = np.asarray(x, np.float64) - np.asarray(y, np.float64)
    out = mean_ci(d)
    if len(d) >= 2 and out["sd"] > 0:
        out["p_value"] = float(scipy.stats.ttest_1samp(d, 0.0).pvalue)
    else:
        out["p_value"] = float("nan") if len(d) < 2 else (1.0 if out["mean"] == 0 else 0.0)
    return out


def per_deal_agent_values(record: dict, n_agents: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean points per hand, mean zero-sum payoff per hand) of each agent in one deal."""
    pts = np.zeros(n_agents)
    pay = np.zeros(n_agents)
    cnt = np.zeros(n_agents)
    for assign, row in zip(record["assignments"], record["points"]):
        row = np.asarray(row, np.float64)
        n = len(row)
        payoff = (row.sum() - row) / (n - 1) - row if n > 1 else -row
        for q, a in enumerate(assign):
            pts[a] += row[q]
            pay[a] += payoff[q]
            cnt[a] += 1
    return pts / cnt, pay / cnt


def summarize(config: TournamentConfig, records: Sequence[dict]) -> dict:
    """The tournament's statistics from its deal records (in deal order)."""
    k = len(config.agents)
    records = sorted(records, key=lambda r: r["deal"])
    if records:
        vals = [per_deal_agent_values(r, k) for r in records]
        pts = np.array([v[0] for v in vals])        # [deals, agents]
        pay = np.array([v[1] for v in vals])
    else:
        pts = pay = np.zeros((0, k))
    agents = []
    for i, name in enumerate(config.agents):
        agents.append({"agent": name, "points_per_hand": mean_ci(pts[:, i]),
                       "zero_sum_payoff": mean_ci(pay[:, i])})
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            pairs.append({"a": config.agents[i], "b": config.agents[j],
                          "payoff_difference": paired_test(pay[:, i], pay[:, j]),
                          "points_difference": paired_test(pts[:, i], pts[:, j])})
    secs = np.sum([r["timing"]["seconds"] for r in records], axis=0) if records else np.zeros(k)
    decs = np.sum([r["timing"]["decisions"] for r in records], axis=0) if records else np.zeros(k)
    # CPU seconds: only when every record has them (older records do not)
    cpu = (np.sum([r["timing"]["cpu_seconds"] for r in records], axis=0)
           if records and all(r["timing"].get("cpu_seconds") is not None for r in records)
           else [None] * k)
    timing = [{"agent": a, "seconds": float(s), "decisions": int(d),
               "ms_per_decision": float(1e3 * s / d) if d else None,
               "cpu_seconds": None if c is None else float(c),
               "cpu_ms_per_decision": float(1e3 * c / d) if d and c is not None else None}
              for a, s, d, c in zip(config.agents, secs, decs, cpu)]
    return {"deals": len(records),
            "assignments": records[0]["assignments"] if records else [],
            "agents": agents, "pairs": pairs, "timing": timing}


#: The columns of the ``agents`` and ``pairs`` tables (``agent``, ``a``, ``b``: the agent's
#: index; ``label``: its name in the printed tables, :func:`solvers._registry.short_labels`).
AGENT_COLUMNS = ("agent", "spec", "deals", "seat_assignments", "points_per_hand", "points_lo",
                 "points_hi", "payoff", "payoff_lo", "payoff_hi", "seconds", "decisions",
                 "ms_per_decision", "cpu_ms_per_decision", "label")
PAIR_COLUMNS = ("a", "b", "a_spec", "b_spec", "payoff_difference", "payoff_lo", "payoff_hi",
                "payoff_p_value", "points_difference", "points_lo", "points_hi",
                "points_p_value")


def summary_tables(s: dict):
    """The DataFrames ``(agents, pairs)`` of a :func:`summarize` result: per agent
    its points per hand and zero-sum payoff with 95% intervals, thinking time and
    decisions; per pair ``a < b`` the paired differences (payoff, points) with
    95% intervals and p-values (columns :data:`AGENT_COLUMNS`, :data:`PAIR_COLUMNS`)."""
    import pandas as pd
    from solvers._registry import short_labels
    labels = short_labels([a["agent"] for a in s["agents"]])    # the table's names
    agents = []
    for i, (a, t) in enumerate(zip(s["agents"], s["timing"])):
        p, z = a["points_per_hand"], a["zero_sum_payoff"]
        agents.append({"agent": i, "spec": a["agent"], "label": labels[i], "deals": s["deals"],
                       "seat_assignments": len(s["assignments"]),
                       "points_per_hand": p["mean"], "points_lo": p["lo"], "points_hi": p["hi"],
                       "payoff": z["mean"], "payoff_lo": z["lo"], "payoff_hi": z["hi"],
                       "seconds": t["seconds"], "decisions": t["decisions"],
                       "ms_per_decision": t["ms_per_decision"],
                       "cpu_ms_per_decision": t.get("cpu_ms_per_decision")})
    k = len(s["agents"])
    index = [(i, j) for i in range(k) for j in range(i + 1, k)]    # summarize's order
    pairs = []
    for (i, j), p in zip(index, s["pairs"]):
        z, q = p["payoff_difference"], p["points_difference"]
        pairs.append({"a": i, "b": j, "a_spec": p["a"], "b_spec": p["b"],
                      "payoff_difference": z["mean"], "payoff_lo": z["lo"],
                      "payoff_hi": z["hi"], "payoff_p_value": z["p_value"],
                      "points_difference": q["mean"], "points_lo": q["lo"],
                      "points_hi": q["hi"], "points_p_value": q["p_value"]})
    return (pd.DataFrame(agents, columns=list(AGENT_COLUMNS)),
            pd.DataFrame(pairs, columns=list(PAIR_COLUMNS)))


def summary_table(summary: dict) -> str:
    """A markdown table of the agents and of the pairwise tests. Agents are named by
    their short labels (:func:`solvers._registry.short_labels`: checkpoint paths by
    file name); a legend under the tables gives the full spec of every shortened
    label."""
    from solvers._registry import short_labels

    def fmt(c):
        if c["n"] < 2:
            return f"{c['mean']:.3f}"
        return f"{c['mean']:.3f} [{c['lo']:.3f}, {c['hi']:.3f}]"
    specs = [a["agent"] for a in summary["agents"]]
    labels = short_labels(specs)
    k = len(specs)
    lines = [f"{summary['deals']} deals x {len(summary['assignments'])} seat assignments", "",
             "| agent | points per hand, lower is better (95% CI) | zero-sum payoff, higher is "
             "better (95% CI) | ms per decision | CPU ms per decision |",
             "|---|---|---|---|---|"]
    for lab, a, t in zip(labels, summary["agents"], summary["timing"]):
        ms = f"{t['ms_per_decision']:.2f}" if t["ms_per_decision"] is not None else "-"
        cpu = t.get("cpu_ms_per_decision")
        cpu = f"{cpu:.2f}" if cpu is not None else "-"
        lines.append(f"| {lab} | {fmt(a['points_per_hand'])} | "
                     f"{fmt(a['zero_sum_payoff'])} | {ms} | {cpu} |")
    if summary["pairs"]:
        lines += ["", "| a vs b | zero-sum payoff a - b, > 0: a is better (95% CI) | "
                      "paired t p-value |", "|---|---|---|"]
        index = [(i, j) for i in range(k) for j in range(i + 1, k)]   # summarize's order
        for (i, j), p in zip(index, summary["pairs"]):
            d = p["payoff_difference"]
            lines.append(f"| {labels[i]} vs {labels[j]} | {fmt(d)} | {d['p_value']:.2g} |")
    lines += ["", "zero-sum payoff: per hand, the mean of the other seats' points minus the "
                  "agent's own"]
    legend = [f"  {lab} = {x}" for lab, x in zip(labels, specs) if lab != x]
    if legend:
        lines += ["", "agents (full specs):", *legend]
    return "\n".join(lines)
