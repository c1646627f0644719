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
is better). Means and 95% confidence intervals (Student t,
:func:`experiments._base.stats.mean_ci`) are computed over
deals, the independent unit; for each pair of agents, the per-deal
difference gives a paired t-test and a 95% CI of the mean difference.

**Reproducible.** Deal ``d`` depends only on ``(seed, d)``: its chance
outcomes and every agent's seed are drawn from
``numpy.random.SeedSequence([seed, d, ...])``, so results do not depend on the
number of worker processes, on how the deals are split into units or on the
order in which they finish (agents with a time budget are the exception).

**One results engine.** Tournaments run through :mod:`experiments.runner`:
its worker backends (spawned processes that ignore SIGINT and die with the
driver; Ray for the registered experiment) and its results store (one shard
per unit with its SHA-256 recorded first, a lock per folder, resume, damaged
shards named and, with ``repair``/``recompute_corrupt``, moved aside and
recomputed, the code that made every unit recorded). ``run_tournament(config,
out)`` writes a runner folder at ``out`` (one unit per deal; ``rows.csv``,
``agents.csv``, ``pairs.csv``, ``summary.txt``, ``metadata.json``): a killed
tournament restarted with the same configuration plays only the deals not
saved, and a longer tournament of the same configuration (more ``deals``)
reuses the saved ones. ``--out`` folders of earlier versions (``deals.jsonl``,
one checksummed line per deal) are read by :func:`~.legacy.read_records` and turned
into runner folders by :func:`~.legacy.convert_deals`.

**Bad input is refused before anything is written.** The game parameters,
the seat lineup and every agent spec are checked (each agent is built once
on a throwaway seat) before ``out`` is created or touched.

**Per-move time limit.** With ``move_time_limit`` (seconds) the units run in
worker processes (at least one, also with ``workers=1``) that report every
agent call (building, ``restart``, ``step``, ``inform_action``) to the main
process (:func:`experiments.runner.call_watch`); a call that has not returned
after the limit (0.05 s resolution) stops the run: the workers are killed and
a :class:`~.config.TournamentError` (:class:`experiments.runner.RunError` from the
runner) names the agent, the seat, the deal, the seat assignment and the
limit. Finished deals stay saved.

**Stopping.** SIGINT (Ctrl-C) or SIGTERM stops the workers (killed at once)
and raises :class:`~.config.TournamentInterrupted` (a ``KeyboardInterrupt``) saying
how many deals are saved. Rerunning resumes.

**Results are never silently stale.** Every saved unit records the code that
made it: this package's sources, the source file of the module defining each
agent's factory, the files of the modules that module imports outside the
standard library and site-packages (a file bot's helpers), the SHA-256 of
every agent parameter naming an existing file (a checkpoint) and of the
shipped model a network agent loads, :func:`~.sources.agent_sources` (which also says
what is not tracked). A rerun says how many units it
reused; a unit made by other code is recomputed (saying which part differs)
unless ``reuse_stale``; ``fresh`` recomputes everything.

**The command line.** ``python -m experiments.tournament --agents heuristic
"ismcts(iterations=500)" --game '{"players": 6}' --deals 100 --workers 2 --out
results/tournaments/x`` runs the registered runner experiment ``tournament``
(:mod:`experiments.studies.tournament`, units of ``--deals-per-unit`` deals)
into ``results/tournaments/x/tournament@<8 hex>/`` (``rows.csv``,
``agents.csv``, ``pairs.csv``, ``summary.txt``, ``metadata.json``) and prints
the summary table; ``--move-time-limit SECONDS`` sets ``move_time_limit``,
``--recompute-corrupt`` moves damaged shards aside and recomputes them,
``--reuse-stale`` and ``--fresh`` as above. Ctrl-C or SIGTERM prints one line
(how many units are saved) and exits with 128 + the signal number; the same
command resumes.

**Modules.** :mod:`.config` (:class:`~.config.TournamentConfig`, the seat assignments, the
errors), :mod:`.agents` (building and checking the agents, their watched calls),
:mod:`.play` (one game, one deal, a block of deals; CPU time and core pinning),
:mod:`.rows` (deal records as tidy rows and back), :mod:`.stats` (the statistics
and their tables), :mod:`.sources` (what an agent's results depend on),
:mod:`.record_file` (the ``--records`` file), :mod:`.run` (:func:`~.run.run_tournament`),
:mod:`.legacy` (``deals.jsonl``) and :mod:`.cli` (the command line). Import the
names below from this package.
"""

from __future__ import annotations

from ._config import TournamentConfig, TournamentError, TournamentInterrupted, seat_assignments
from ._legacy import convert_deals, read_records
from ._play import pin_cores, play_deal
from ._rows import ROW_COLUMNS, deal_records, deal_rows
from ._run import TournamentResult, run_tournament
from ._stats import AGENT_COLUMNS, PAIR_COLUMNS, paired_test, per_deal_agent_values, summarize, \
    summary_table, summary_tables

# Internal names the studies, the command line and the tests import from here
# (not the documented API).
from ._agents import CHECK_STARTUP_SECONDS, check_agents  # noqa: F401
from ._cli import agent_parameters, main  # noqa: F401
from ._config import SHARD, _load_game  # noqa: F401
from ._legacy import FORMAT, MAX_DEALS_BYTES, _digest  # noqa: F401
from ._play import cpu_now, play_block, play_game  # noqa: F401
from ._record_file import RECORDS_SOURCE, game_records  # noqa: F401
from ._sources import agent_sources  # noqa: F401

__all__ = ["TournamentConfig", "TournamentError", "TournamentInterrupted", "TournamentResult",
           "run_tournament", "seat_assignments", "play_deal", "summarize", "summary_table",
           "summary_tables", "paired_test", "per_deal_agent_values", "deal_rows", "deal_records",
           "read_records", "convert_deals", "pin_cores", "ROW_COLUMNS", "AGENT_COLUMNS",
           "PAIR_COLUMNS"]
