"""The strength ladder as a runner experiment: its units play blocks of a step's
duplicate tournament, so the steps' statistics equal those of the whole
tournament; earlier tournament records are imported into a verifiable runner
folder without playing a deal."""

from __future__ import annotations

import json

import pytest

from experiments import runner
from experiments._base.registry import Unit, get
from experiments.studies import ladder

from _legacy_deals import play as play_legacy
from experiments.tournament import run_tournament

#: Two steps (random -> heuristic -> random), two deals each, one deal per unit.
TINY = {"rungs": ("random", "heuristic", "random"), "deals": 2, "deals_per_unit": 1,
        "sweep": (), "players": (6,)}
QUIET = {"progress": False, "verbose": False}


def _no_time(rows):
    """Rows (dicts or a DataFrame, NaN as None) without the timing and the origin."""
    if hasattr(rows, "to_json"):
        rows = json.loads(rows.to_json(orient="records"))
    return [{k: v for k, v in r.items() if k not in ("seconds", "cpu_seconds", "origin")}
            for r in rows]


def test_units_are_blocks_of_every_step_and_budget():
    config = get("ladder").config("paper")
    units = ladder.units(config)
    assert len(units) == 6 * 20 + 5 * 5
    assert [u["first_deal"] for u in units[:3]] == [0, 10, 20]
    assert {u["step"] for u in units} == {f"n{n}_step{i}" for n in (6, 11) for i in range(3)} | {
        f"sweep_{it}" for it in (100, 300, 1000, 3000, 10000)}
    sweep = [u for u in units if u["step"] == "sweep_10000"]
    assert sum(u["deals"] for u in sweep) == 50 and sweep[0]["iterations"] == 10000
    assert ladder.units(config) == units
    quick = get("ladder").config("quick")
    assert quick == ladder.PROFILES["quick"] and quick.deals == 10 and quick.sweep == (100, 300)


def test_a_tiny_ladder_gives_the_gains_of_whole_tournaments(tmp_path):
    res = runner.run("ladder", overrides=TINY, out=tmp_path, workers=2, **QUIET)
    config = res.config
    steps = res.tables["steps"].to_dict("records")
    assert [s["step"] for s in steps] == ["n6_step0", "n6_step1"]
    assert res.tables["sweep"].empty
    for s, spec in zip(steps, ladder._steps(config)):
        whole = run_tournament(ladder.step_config(config, spec), None, progress=False)
        d = whole.summary["pairs"][0]["payoff_difference"]
        assert (s["gain"], s["gain_lo"], s["gain_hi"], s["p_value"]) == (
            -d["mean"], -d["hi"], -d["lo"], d["p_value"])
        assert s["deals"] == 2 and s["seat_assignments"] == 2
        assert [s["lower_decisions"], s["higher_decisions"]] == [
            t["decisions"] for t in whole.summary["timing"]]
        rows = ladder.records_to_rows({**spec, "iterations": None}, whole.records, "run")
        mine = res.rows[res.rows["step"] == s["step"]]
        assert _no_time(rows) == _no_time(mine)
    loaded = runner.load("ladder", out=tmp_path, overrides=TINY)
    assert loaded.tables["steps"].equals(res.tables["steps"])
    assert "ladder holds at 6 players" in loaded.text and "where the deals" not in loaded.text


def _old_ladder(tmp_path, config):
    """Tournament folders as the ladder wrote them before it was a runner experiment."""
    old = tmp_path / "old"
    for spec in ladder._steps(config):
        play_legacy(old / spec["step"], ladder.step_config(config, spec))
    return old


def test_tournament_records_import_into_a_verified_runner_folder(tmp_path):
    config = get("ladder").config("quick", TINY)
    old = _old_ladder(tmp_path, config)
    res = ladder.import_tournament_records(old, tmp_path / "imported", "quick", TINY)
    played = runner.run("ladder", overrides=TINY, out=tmp_path / "played", workers=1, **QUIET)
    assert _no_time(res.rows) == _no_time(played.rows)
    cols = ["step", "players", "lower", "higher", "deals", "seat_assignments", "gain",
            "gain_lo", "gain_hi", "p_value", "holds", "lower_decisions", "higher_decisions"]
    assert res.tables["steps"][cols].equals(played.tables["steps"][cols])
    assert set(res.rows["origin"]) == {ladder._origin(old / "n6_step0")}
    assert "imported with ladder.import_tournament_records" in res.text
    again = runner.load("ladder", out=tmp_path / "imported", overrides=TINY)   # verified
    assert again.metadata["units"] == 4 and again.tables["steps"].equals(res.tables["steps"])
    with pytest.raises(runner.RunError, match="exists"):
        ladder.import_tournament_records(old, tmp_path / "imported", "quick", TINY)


def test_damaged_or_foreign_records_are_refused(tmp_path):
    config = get("ladder").config("quick", TINY)
    old = _old_ladder(tmp_path, config)
    shard = old / "n6_step1" / "deals.jsonl"
    lines = shard.read_text().splitlines(keepends=True)
    rec = json.loads(lines[1])
    rec["points"][0][0] += 1                              # an edited number
    shard.write_text(lines[0] + json.dumps(rec) + "\n" + "".join(lines[2:]))
    with pytest.raises(runner.RunError, match=r"(?s)step n6_step1: .*line 2: deal \d: checksum"):
        ladder.import_tournament_records(old, tmp_path / "a", "quick", TINY)
    assert not (tmp_path / "a").exists()
    other = {**TINY, "seed": 1}                           # another tournament's records
    with pytest.raises(runner.RunError, match="(?s)step n6_step0: .*another tournament"):
        ladder.import_tournament_records(_old_ladder(tmp_path / "o", config), tmp_path / "b",
                                         "quick", other)
    assert not (tmp_path / "b").exists()
    short = {**TINY, "deals": 3}                          # a deal missing
    with pytest.raises(runner.RunError, match="lacks 1 deal"):
        ladder.import_tournament_records(old, tmp_path / "c", "quick", short)


@pytest.mark.parametrize("raised, caught", [("error", "RunError"), ("signal", "_Stop")])
def test_a_unit_plays_through_the_tournament_block(monkeypatch, raised, caught):
    """A ladder unit is a tournament block (experiments.tournament.play_block): an
    error names the step and its deals, and SIGTERM inside a deal reaches the runner
    as its own interruption (which prints how many units are saved)."""
    import signal

    from experiments import tournament

    def stop(*args, **kwargs):
        if raised == "error":
            raise tournament.TournamentError("agent 1 played an illegal action")
        raise runner._Stop(signal.SIGTERM)          # what the runner's handler raises
    monkeypatch.setattr(tournament._play, "play_deal", stop)
    config = get("ladder").config("quick", TINY)
    unit = Unit(index=1, seed=0, params=ladder.units(config)[1])
    with pytest.raises(getattr(runner, caught)) as err:
        ladder.run_unit(config, unit)
    if raised == "error":
        assert str(err.value) == ("ladder step n6_step0 (random vs heuristic, 6 players), "
                                  "deals 1..1: agent 1 played an illegal action")
    else:
        assert err.value.signum == signal.SIGTERM
