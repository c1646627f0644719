# Two entry points (see README): `make reproduce` and `make test`.
# Each creates or updates the virtual environment .venv by itself.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PROFILE ?= quick

.PHONY: test reproduce bench venv clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,paper]"
	touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q

reproduce: $(STAMP)
	$(PY) -m experiments reproduce --profile $(PROFILE)

bench: $(STAMP)
	$(PY) -m experiments.bench_engine

clean:
	rm -rf $(VENV) results/quick
