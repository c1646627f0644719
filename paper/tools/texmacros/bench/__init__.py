"""The paper's macros of :mod:`experiments.bench`, one module per benchmark."""
