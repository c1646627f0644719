"""The paper's macros of :mod:`experiments.studies`, one module per study."""
