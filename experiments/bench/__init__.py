"""The benchmarks: ``python -m experiments.bench.<name>`` (engine, sim, observers,
resample, search, cfr), each printing a markdown table and writing
``results/bench/<name>.json`` (``make bench BENCH="engine sim"``). They measure;
they define nothing that a test or a notebook imports.
"""
