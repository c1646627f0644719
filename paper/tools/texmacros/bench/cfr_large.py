"""The paper's numbers from the saved results of the benchmark
:mod:`experiments.bench.cfr_large` (``BENCH/cfr_large.json``): :func:`paper_macros`
(:mod:`texmacros`)."""

from __future__ import annotations

from pathlib import Path


def paper_macros(m, results: Path, bench: Path) -> None:
    """The paper's numbers of CFR at larger scale (:mod:`texmacros`), from
    three benchmark files of ``bench``: ``cfr_scale.json`` (LiteEFG side by side,
    :mod:`experiments.bench.cfr_scale`), ``cfr_scale_multicore.json`` (the
    multi-core rows and the bandwidth floor, measured on an idle machine) and
    ``cfr_large.json`` (this module). ``\\ifCfrScale`` is true when all three
    are there; otherwise (the quick profile runs none of them) every macro is
    defined as not run (``--``), used only under the flag."""
    from texmacros import fixed, read_json, sci, seconds, thousands, tt
    scale = lambda: read_json(bench / "cfr_scale.json")["result"]              # noqa: E731
    multi = lambda: read_json(bench / "cfr_scale_multicore.json")["result"]    # noqa: E731
    large = lambda: read_json(bench / "cfr_large.json")["result"]              # noqa: E731

    def lite(game: str) -> dict:
        return next(r for r in scale()["liteefg"] if r["game"] == game)

    def core(preset: str) -> dict:
        return next(r for r in multi()["multicore"] if r["preset"] == preset)

    def floor(preset: str) -> dict:
        return next(r for r in multi()["floor"] if r["preset"] == preset)

    files = [bench / f"{n}.json" for n in ("cfr_scale", "cfr_scale_multicore", "cfr_large")]
    there = all(f.is_file() for f in files)
    m.flag("CfrScale", lambda: there, "the CFR-at-scale benchmark results are there")

    def add(name, getter, fmt=str, what=""):
        """Without the files (the quick profile): defined as not run, used only under
        the flag; a flag whose getter fails is false."""
        m.add_if(there, name, getter, fmt, what)

    one = fixed(1)
    add("CfrScaleLeducOursMs", lambda: 1e3 * lite("leduc_poker")["ours_s"], fixed(2),
          "our CFR iteration on leduc_poker, ms")
    add("CfrScaleLeducLiteMs", lambda: 1e3 * lite("leduc_poker")["liteefg_s"], fixed(2),
          "LiteEFG's CFR iteration on leduc_poker, ms")
    add("CfrScaleLeducSpeedup", lambda: lite("leduc_poker")["speedup"], one,
          "LiteEFG time over ours, leduc_poker")
    presets = lambda: [r["speedup"] for r in scale()["liteefg"]                # noqa: E731
                       if r["game"] != "leduc_poker"]
    add("CfrScalePresetSpeedupLo", lambda: min(presets()), fixed(0),
          "smallest LiteEFG/ours ratio on our presets")
    add("CfrScalePresetSpeedupHi", lambda: max(presets()), fixed(0),
          "largest LiteEFG/ours ratio on our presets")
    add("CfrScaleLiteVersion", lambda: scale()["liteefg_version"], str, "LiteEFG version")
    for key, preset in (("MediumThree", "medium3"), ("Medium", "medium")):
        add(f"CfrScale{key}Histories", lambda p=preset: core(p)["histories"], thousands,
              f"histories of {preset}")
        add(f"CfrScale{key}Speedup", lambda p=preset: core(p)["speedup_vs_one_core"],
              fixed(2), f"2 threads over one core, {preset} (median of paired repeats)")
        add(f"CfrScale{key}SpeedupLo", lambda p=preset: min(
            o[0] / t[0] for o, t in zip(core(p)["all"]["one_core"],
                                        core(p)["all"]["blocks_on_T_threads"])),
            fixed(2), f"smallest paired speed-up, {preset}")
        add(f"CfrScale{key}Repeats", lambda p=preset: len(core(p)["all"]["one_core"]), str,
              f"paired repeats, {preset}")
        add(f"CfrScale{key}OverFloor", lambda p=preset: floor(p)["one_core_over_floor"], one,
              f"one-core ns per history over the bandwidth floor, {preset}")
        add(f"CfrScale{key}Bytes", lambda p=preset: floor(p)["bytes_per_history"], fixed(0),
              f"bytes touched per history and iteration, one core, {preset}")
    add("CfrScaleSharedPct", lambda: 100 * core("medium3")["shared_fraction"], fixed(0),
          "percent of medium3's decision histories in information sets spanning blocks")
    add("CfrScaleTriadGBs", lambda: multi()["bandwidth"]["triad_1_gbs"], one,
          "STREAM triad bandwidth, one thread, GB/s")
    add("CfrScaleNextHistories", lambda: large()["next"]["histories"], lambda x: sci(x, 1),
          "Knuth estimate of the histories with one more card passed")
    add("CfrScaleNextGiB", lambda: large()["next"]["gib"], fixed(0),
          "GiB to solve it at the large solve's peak bytes per history")
    def game_name() -> str:
        """The solved game as a preset's name when one has its rules, else as given."""
        import spiel_game

        from experiments.bench.cfr_scale import load_game
        params = load_game(large()["game"]).get_parameters()
        same = [k for k in spiel_game.PRESETS
                if spiel_game.load(k).get_parameters() == params and k != large()["game"]]
        return f"{same[0]} ({large()['game']})" if same else large()["game"]

    add("CfrLargeGame", game_name, tt, "the largest solved game")

    def rules():
        import spiel_game

        from experiments.bench.cfr_scale import load_game
        return spiel_game.RuleSet.from_params(load_game(large()["game"]).get_parameters())
    add("CfrLargeDeck", lambda: rules().deck_description, str, "its deck")
    m.flag("CfrLargeMoonChoice", lambda: rules().moon == "choose",
           "the solved game lets the shooter choose how the moon scores")
    add("CfrLargeHistories", lambda: large()["histories"], thousands, "its histories")
    add("CfrLargeHistoriesSci", lambda: large()["histories"], lambda x: sci(x, 2),
          "its histories, scientific")
    add("CfrLargeInfosets", lambda: large()["infosets"], thousands, "its information sets")
    add("CfrLargeBuildS", lambda: large()["build_s"], seconds, "tree build seconds")
    add("CfrLargeTreeGiB", lambda: large()["tree_gib"], one, "tree GiB")
    add("CfrLargePeakGiB", lambda: large()["peak_gib"], one, "peak resident GiB of the run")
    add("CfrLargeSolver", lambda: large()["solver"], tt, "solver")
    add("CfrLargeThreads", lambda: large()["threads"], str, "threads")
    add("CfrLargeIterS", lambda: large()["s_per_iteration"], seconds, "seconds per iteration")
    add("CfrLargeIterations", lambda: large()["checkpoints"][-1]["iteration"], thousands,
          "iterations run")
    add("CfrLargeSolveMin", lambda: large()["checkpoints"][-1]["solve_s"] / 60, fixed(0),
          "solve minutes (without the NashConv checkpoints)")
    add("CfrLargeNashConv", lambda: large()["checkpoints"][-1]["nash_conv"],
          lambda x: sci(x, 2), "NashConv of the average after the last iteration")
    add("CfrLargeNashConvFirst", lambda: large()["checkpoints"][0]["nash_conv"],
          lambda x: sci(x, 2), "NashConv at the first checkpoint")
    add("CfrLargeNashConvFirstIt", lambda: large()["checkpoints"][0]["iteration"], str,
          "iteration of the first checkpoint")
    low = lambda: min(large()["checkpoints"], key=lambda r: r["nash_conv"])   # noqa: E731
    add("CfrLargeNashConvMin", lambda: low()["nash_conv"], lambda x: sci(x, 2),
          "the lowest NashConv at a checkpoint")
    add("CfrLargeNashConvMinIt", lambda: low()["iteration"], thousands,
          "the iteration of the lowest NashConv")
    m.flag("CfrLargeMonotone", lambda: all(
        a["nash_conv"] >= b["nash_conv"] for a, b in zip(large()["checkpoints"],
                                                         large()["checkpoints"][1:])),
           "NashConv fell at every checkpoint of the large solve")
    add("CfrLargeNashConvS", lambda: large()["checkpoints"][-1]["nash_conv_s"], seconds,
          "seconds of one exact NashConv")
    add("CfrLargeOverMedium", lambda: large()["histories"] / core("medium")["histories"],
          one, "the largest solved tree over medium")
