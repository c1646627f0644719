"""The studies: every experiment of the paper, one module each.

A study is a registered runner experiment (:mod:`experiments._base.registry` finds
the modules of this package that call ``register(``): a frozen config
dataclass, ``units``, ``run_unit``, ``summarize`` and its ``register(...)``
call, results in ``results/<profile>/<name>/`` (``rows.csv`` and summary
tables). The paper turns those saved tables into its numbers (the macro
writers of ``paper/tools/texmacros/``, outside the installed package) and
draws its figure with a script in ``paper/figures/``
(:mod:`experiments._figures`). The ladder (:mod:`.ladder`) too: its units are
blocks of deals of :mod:`experiments.tournament`'s duplicate tournaments.
"""
