"""Experiments: each module runs one experiment and writes results with metadata."""
