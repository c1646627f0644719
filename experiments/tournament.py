"""Duplicate-deal tournaments between agents, with confidence intervals.

**Format.** Every *deal* (the chance outcomes of a game: the shuffled pack of
each hand) is played once per *seat assignment*: a lineup of the agents over
the seats (agent ``i % k`` on seat ``i`` by default) rotated cyclically, so
every agent plays every seat with the same cards and the luck of the deal
cancels. All distinct rotations are used, or an evenly spaced subset of
``rotations`` of them (e.g. for 11 players). Forced moves (a single legal
action) are played without asking the agent; every agent is informed of
every action (``inform_action``), as in ``pyspiel.evaluate_bots``.

**Statistics.** For each deal and agent: its mean points per hand over the
seats it held in all assignments (lower is better), and its mean zero-sum
payoff per hand (the mean of the other seats' points minus its own; higher
is better). Means and 95% confidence intervals (Student t) are computed over
deals, the independent unit; for each pair of agents, the per-deal
difference gives a paired t-test and a 95% CI of the mean difference.

**Reproducible and resumable.** Deal ``d`` depends only on ``(seed, d)``: its
chance outcomes and every agent's seed are drawn from
``numpy.random.SeedSequence([seed, d, ...])``, so results do not depend on the
number of worker processes (``multiprocessing``, spawned) or on the order in
which deals finish (agents with a time budget are the exception). Finished
deals are appended to ``<out>/deals.jsonl`` (one JSON line each, flushed and
fsynced); a killed tournament restarted with the same configuration skips
them. The summary goes to ``<out>/tournament.json`` with the configuration,
seed, package versions and git commit (:mod:`experiments.metadata`).

``python -m experiments.tournament --agents heuristic "ismcts(iterations=500)"
--game '{"players": 6}' --deals 100 --workers 2 --out results/tournaments/x``
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as _dt
import hashlib
import json
import math
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pyspiel
import scipy.stats

import spiel_game
from spiel_game import engine as E

from .metadata import metadata, write_result

__all__ = ["TournamentConfig", "TournamentError", "TournamentResult", "seat_assignments",
           "run_tournament", "play_deal", "ci95", "paired_test", "summarize"]

SHARD = "deals.jsonl"
RESULT = "tournament.json"


class TournamentError(RuntimeError):
    """A tournament that cannot run: a bad configuration, an illegal move, a foreign shard."""


@dataclasses.dataclass(frozen=True)
class TournamentConfig:
    """A tournament. ``agents``: registry specs (or names given in ``factories``);
    ``game``: game parameters as ``((key, value), ...)`` (a dict is accepted);
    ``lineup``: agent index per seat before rotation (default ``i % k``);
    ``rotations``: number of seat assignments (None: every distinct rotation);
    ``workers``: processes (results do not depend on it)."""

    agents: tuple[str, ...]
    game: tuple[tuple[str, Any], ...] = ()
    deals: int = 100
    seed: int = 0
    rotations: int | None = None
    lineup: tuple[int, ...] | None = None
    workers: int = 1

    def __post_init__(self):
        if isinstance(self.game, Mapping):
            object.__setattr__(self, "game", tuple(sorted(self.game.items())))
        object.__setattr__(self, "agents", tuple(str(a) for a in self.agents))
        if self.lineup is not None:
            object.__setattr__(self, "lineup", tuple(int(i) for i in self.lineup))
        if len(self.agents) < 1:
            raise TournamentError("a tournament needs at least one agent")
        if self.deals < 0:
            raise TournamentError(f"deals must be >= 0, got {self.deals}")
        if self.workers < 1:
            raise TournamentError(f"workers must be >= 1, got {self.workers}")
        if self.rotations is not None and self.rotations < 1:
            raise TournamentError(f"rotations must be >= 1 or None, got {self.rotations}")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "TournamentConfig":
        """Build from a dict; unknown keys are an error naming the allowed ones."""
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(d) - set(names))
        if unknown:
            raise TournamentError(f"unknown tournament setting(s) {unknown}; allowed: {names}")
        d = dict(d)
        for k in ("agents", "lineup"):
            if d.get(k) is not None:
                d[k] = tuple(d[k])
        return cls(**d)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["game"] = dict(self.game)
        return d

    @property
    def game_params(self) -> dict:
        return dict(self.game)

    def fingerprint(self) -> str:
        """What the per-deal results depend on (not ``deals`` nor ``workers``)."""
        d = self.to_dict()
        del d["deals"], d["workers"]
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()


def seat_assignments(n_seats: int, n_agents: int, lineup: Sequence[int] | None = None,
                     rotations: int | None = None) -> list[tuple[int, ...]]:
    """Agent index per seat for each assignment: the cyclic rotations of ``lineup``
    (distinct ones, in order of the shift), or ``rotations`` of them evenly spaced."""
    if n_agents > n_seats:
        raise TournamentError(f"{n_agents} agents do not fit {n_seats} seats")
    lineup = [i % n_agents for i in range(n_seats)] if lineup is None else list(lineup)
    if len(lineup) != n_seats:
        raise TournamentError(f"lineup has {len(lineup)} entries for {n_seats} seats")
    if min(lineup) < 0 or max(lineup) >= n_agents:
        raise TournamentError(f"lineup {lineup} names agents outside 0..{n_agents - 1}")
    if set(lineup) != set(range(n_agents)):
        raise TournamentError(f"lineup {lineup} leaves out agents "
                              f"{sorted(set(range(n_agents)) - set(lineup))}")
    seen, out = set(), []
    for r in range(n_seats):
        a = tuple(lineup[(q + r) % n_seats] for q in range(n_seats))
        if a not in seen:
            seen.add(a)
            out.append(a)
    if rotations is not None and rotations < len(out):
        out = [out[(j * len(out)) // rotations] for j in range(rotations)]
    return out


# ------------------------------------------------------------------ playing
def _seed(*words: int) -> int:
    return int(np.random.SeedSequence([int(w) for w in words]).generate_state(1, np.uint64)[0]
               & np.uint64(2**62 - 1))


class _Chance:
    """The chance outcomes of one deal: hand ``h`` is a shuffle of the pack drawn
    from ``SeedSequence([seed, deal, 1, h])`` (one outcome per card, or one whole
    deal drawn with the game's probabilities)."""

    def __init__(self, game, seed: int, deal: int):
        self.game, self.seed, self.deal = game, seed, deal
        self.whole = game.rules.deal == "whole"
        self.count = 0
        self._seq: list[int] = []

    def next(self, state) -> int:
        ncards = 1 if self.whole else self.game.rules.num_cards
        hand, pos = divmod(self.count, ncards)
        self.count += 1
        rng = np.random.default_rng([self.seed, self.deal, 1, hand])
        if self.whole:
            acts, probs = zip(*state.chance_outcomes())
            return int(acts[int(rng.choice(len(acts), p=np.asarray(probs)))])
        if pos == 0:
            seq = np.repeat(np.arange(E.K), self.game.rules.deck_counts)
            rng.shuffle(seq)
            self._seq = seq.tolist()
        return self._seq[pos]


def play_game(game, bots: Sequence, chance: _Chance):
    """Play one game; returns (points per seat per hand, hands, seconds per seat,
    decisions per seat)."""
    n = game.num_players()
    st = game.new_initial_state()
    for b in bots:
        b.restart()
    secs, decisions = [0.0] * n, [0] * n
    while not st.is_terminal():
        if st.is_chance_node():
            a = chance.next(st)
            player = pyspiel.PlayerId.CHANCE
        else:
            player = st.current_player()
            legal = st.legal_actions()
            if len(legal) == 1:
                a = legal[0]
            else:
                t0 = time.perf_counter()
                a = bots[player].step(st)
                secs[player] += time.perf_counter() - t0
                decisions[player] += 1
                if a not in legal:
                    raise TournamentError(
                        f"{type(bots[player]).__name__} on seat {player} chose illegal action "
                        f"{a} (legal: {legal}) in state {st.serialize()!r}")
            for q, b in enumerate(bots):
                if q != player:
                    b.inform_action(st, player, a)
        st.apply_action(int(a))
    s, P = st.engine_state, st.engine_params
    hands = max(1, int(s[E.S_HANDNO]))
    points = [int(s[P[E.L_SCORES] + q]) / hands for q in range(n)]
    return points, hands, secs, decisions


_WORKER: dict = {}


def _make(label: str, game, seat: int, seed: int, factories: Mapping[str, Callable] | None):
    from solvers.registry import make_agent
    if factories and label in factories:
        return make_agent(factories[label], game, seat, seed)
    return make_agent(label, game, seat, seed)


def play_deal(config: TournamentConfig, deal: int, game=None,
              factories: Mapping[str, Callable] | None = None) -> dict:
    """Every seat assignment of deal ``deal``; the JSON record written to the shard."""
    game = game or spiel_game.load(config.game_params)
    n, k = game.num_players(), len(config.agents)
    assigns = seat_assignments(n, k, config.lineup, config.rotations)
    points, hands = [], []
    secs, decs = np.zeros(k), np.zeros(k, np.int64)
    for ai, assign in enumerate(assigns):
        bots = [_make(config.agents[assign[q]], game, q, _seed(config.seed, deal, 2, ai, q),
                      factories) for q in range(n)]
        pts, h, sc, dc = play_game(game, bots, _Chance(game, config.seed, deal))
        points.append(pts)
        hands.append(h)
        for q in range(n):
            secs[assign[q]] += sc[q]
            decs[assign[q]] += dc[q]
    return {"deal": deal, "assignments": [list(a) for a in assigns], "points": points,
            "hands": hands, "timing": {"seconds": secs.tolist(), "decisions": decs.tolist()}}


def _init_worker(config_dict, factories):
    _WORKER["config"] = TournamentConfig.from_dict(config_dict)
    _WORKER["game"] = spiel_game.load(_WORKER["config"].game_params)
    _WORKER["factories"] = factories


def _worker_deal(deal: int) -> dict:
    return play_deal(_WORKER["config"], deal, _WORKER["game"], _WORKER["factories"])


# ------------------------------------------------------------------ statistics
def ci95(x) -> dict:
    """Mean and Student-t 95% confidence interval of ``x`` (the values over deals)."""
    x = np.asarray(x, np.float64)
    n = len(x)
    mean = float(x.mean()) if n else float("nan")
    if n < 2:
        return {"mean": mean, "lo": float("nan"), "hi": float("nan"), "sd": float("nan"), "n": n}
    sd = float(x.std(ddof=1))
    half = float(scipy.stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "sd": sd, "n": n}


def paired_test(x, y) -> dict:
    """Paired comparison over deals: mean of ``x - y`` with its 95% CI and the
    two-sided paired t-test p-value."""
    d = np.asarray(x, np.float64) - np.asarray(y, np.float64)
    out = ci95(d)
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
        agents.append({"agent": name, "points_per_hand": ci95(pts[:, i]),
                       "zero_sum_payoff": ci95(pay[:, i])})
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            pairs.append({"a": config.agents[i], "b": config.agents[j],
                          "payoff_difference": paired_test(pay[:, i], pay[:, j]),
                          "points_difference": paired_test(pts[:, i], pts[:, j])})
    secs = np.sum([r["timing"]["seconds"] for r in records], axis=0) if records else np.zeros(k)
    decs = np.sum([r["timing"]["decisions"] for r in records], axis=0) if records else np.zeros(k)
    timing = [{"agent": a, "seconds": float(s), "decisions": int(d),
               "ms_per_decision": float(1e3 * s / d) if d else None}
              for a, s, d in zip(config.agents, secs, decs)]
    return {"deals": len(records),
            "assignments": records[0]["assignments"] if records else [],
            "agents": agents, "pairs": pairs, "timing": timing}


# ------------------------------------------------------------------ running
@dataclasses.dataclass
class TournamentResult:
    config: TournamentConfig
    records: list[dict]
    summary: dict
    path: Path | None

    def table(self) -> str:
        return summary_table(self.summary)


def _read_shard(path: Path, config: TournamentConfig) -> dict[int, dict]:
    """Finished deals in the shard; drops a torn last line (a killed writer)."""
    if not path.exists():
        return {}
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    good_end = 0
    done: dict[int, dict] = {}
    header = None
    pos = 0
    for ln in lines:
        end = pos + len(ln) + 1
        if ln.strip():
            if end > len(raw):              # no newline: an unfinished write
                break
            try:
                obj = json.loads(ln)
            except json.JSONDecodeError:
                break
            if header is None:
                header = obj
                if obj.get("fingerprint") != config.fingerprint():
                    raise TournamentError(
                        f"{path} holds deals of another tournament (its config: "
                        f"{obj.get('config')}); use another --out folder or delete it")
            elif obj["deal"] not in done:
                done[obj["deal"]] = obj
        good_end = min(end, len(raw))
        pos = end
    if good_end < len(raw):
        with open(path, "r+b") as f:
            f.truncate(good_end)
    return done


def run_tournament(config: TournamentConfig, out: str | Path | None = None, *,
                   factories: Mapping[str, Callable] | None = None,
                   progress: bool = True) -> TournamentResult:
    """Play (or resume) the tournament; write ``out/deals.jsonl`` and ``out/tournament.json``.

    ``factories`` maps agent labels of ``config.agents`` to factories
    ``f(game, player, seed) -> pyspiel.Bot`` (OpenSpiel's bots, for example);
    with ``workers > 1`` they must be picklable (module-level functions).
    """
    started = _dt.datetime.now(_dt.timezone.utc)
    game = spiel_game.load(config.game_params)
    seat_assignments(game.num_players(), len(config.agents), config.lineup, config.rotations)
    path = None
    done: dict[int, dict] = {}
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        path = out / SHARD
        done = _read_shard(path, config)
        if not path.exists() or path.stat().st_size == 0:
            with open(path, "w") as f:
                f.write(json.dumps({"fingerprint": config.fingerprint(),
                                    "config": config.to_dict()}) + "\n")
    todo = [d for d in range(config.deals) if d not in done]
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=config.deals, initial=config.deals - len(todo), unit="deal",
                   desc=" vs ".join(config.agents)[:60], file=sys.stderr)

    def finished(rec):
        done[rec["deal"]] = rec
        if path is not None:
            with open(path, "a") as f:
                f.write(json.dumps(rec) + "\n")
                f.flush()
                os.fsync(f.fileno())
        if bar is not None:
            bar.update(1)

    try:
        if config.workers == 1 or len(todo) <= 1:
            for d in todo:
                finished(play_deal(config, d, game, factories))
        else:
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(min(config.workers, len(todo)), initializer=_init_worker,
                          initargs=(config.to_dict(), factories)) as pool:
                for rec in pool.imap_unordered(_worker_deal, todo):
                    finished(rec)
    finally:
        if bar is not None:
            bar.close()
    records = [done[d] for d in sorted(done) if d < config.deals]
    summary = summarize(config, records)
    if out is not None:
        write_result(out / RESULT, summary, metadata(config.to_dict(), config.seed, started))
    return TournamentResult(config, records, summary, out)


def summary_table(summary: dict) -> str:
    """A markdown table of the agents and of the pairwise tests."""
    def fmt(c):
        if c["n"] < 2:
            return f"{c['mean']:.3f}"
        return f"{c['mean']:.3f} [{c['lo']:.3f}, {c['hi']:.3f}]"
    lines = [f"{summary['deals']} deals x {len(summary['assignments'])} seat assignments", "",
             "| agent | points per hand (95% CI) | zero-sum payoff (95% CI) | ms per decision |",
             "|---|---|---|---|"]
    for a, t in zip(summary["agents"], summary["timing"]):
        ms = f"{t['ms_per_decision']:.2f}" if t["ms_per_decision"] is not None else "-"
        lines.append(f"| {a['agent']} | {fmt(a['points_per_hand'])} | "
                     f"{fmt(a['zero_sum_payoff'])} | {ms} |")
    if summary["pairs"]:
        lines += ["", "| a vs b | payoff a - b (95% CI) | paired t p-value |", "|---|---|---|"]
        for p in summary["pairs"]:
            d = p["payoff_difference"]
            lines.append(f"| {p['a']} vs {p['b']} | {fmt(d)} | {d['p_value']:.2g} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.tournament",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", nargs="+", required=True, help="agent specs (solvers.registry)")
    ap.add_argument("--game", default="{}", help='game parameters as JSON, e.g. \'{"players": 6}\'')
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rotations", type=int, default=None)
    ap.add_argument("--lineup", type=int, nargs="+", default=None)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", required=True, help="results folder (resumable)")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    try:
        game = json.loads(args.game)
    except json.JSONDecodeError as e:
        ap.error(f"--game is not JSON: {e}")
    config = TournamentConfig(agents=tuple(args.agents), game=game, deals=args.deals,
                              seed=args.seed, rotations=args.rotations,
                              lineup=tuple(args.lineup) if args.lineup else None,
                              workers=args.workers)
    res = run_tournament(config, args.out, progress=not args.no_progress)
    print(res.table())
    print(f"written to {Path(args.out) / RESULT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
