# Two entry points (see README): `make reproduce` and `make test`.
# Each creates or updates the virtual environment .venv by itself.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PROFILE ?= quick

.PHONY: test reproduce paper bench venv lock clean browser latex docs xinxin

# The environment is locked: requirements.lock pins every dependency of every
# extra (dev and all) for Python 3.11 on Linux; `make lock` regenerates it
# (docs/install.md). torch is the CPU build, installed first from TORCH: on this
# project's machines `pip install torch==2.13.0` takes the CPU wheel on disk;
# elsewhere pass e.g. TORCH="torch==2.13.0 --index-url
# https://download.pytorch.org/whl/cpu" (plain PyPI torch is a multi-GB CUDA build).
LOCK := requirements.lock
TORCH ?= torch==$(shell sed -n 's/^torch==//p' $(LOCK))

$(STAMP): pyproject.toml $(LOCK) Makefile
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip show torch >/dev/null 2>&1 || $(PY) -m pip install --quiet $(TORCH)
	$(PY) -m pip install --quiet -r $(LOCK)
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

venv: $(STAMP)

# Regenerate requirements.lock: a fresh environment resolves pyproject.toml's
# dependencies and extras (dev, all) to their newest releases, then is frozen.
# Run the tests before committing the new lock (tests/experiments/test_lock.py checks it
# against pyproject.toml).
LOCK_VENV := .lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/python -m pip install --quiet $(TORCH)
	$(LOCK_VENV)/bin/python -m pip install --quiet ".[dev,all]"
	{ sed -n '1,/^# Do not edit/p' $(LOCK); \
	  $(LOCK_VENV)/bin/python -m pip freeze --all --exclude pip --exclude cancellation-hearts \
	  | sed 's/+cpu$$//' | LC_ALL=C sort -f; } > $(LOCK).new
	mv $(LOCK).new $(LOCK)
	rm -rf $(LOCK_VENV)
	@echo "wrote $(LOCK); run make test, then commit it"

# The HTML rendering test drives a real headless browser (Debian's chromium).
# As root with apt-get, install it when missing; otherwise that test skips
# locally and fails under CI=true.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium (headless browser for tests/game/test_render.py)"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "could not install chromium"; \
	  else echo "chromium not found: the browser test will skip (fails under CI=true)"; fi; }

# The paper needs LaTeX (latexmk, TeX Live's recommended LaTeX and fonts, and
# Latin Modern: outline fonts in T1 encoding, so the PDF has no bitmap fonts).
# As root with apt-get, install it when missing; otherwise print the command
# (make reproduce still writes every figure and table, only the PDF is missing).
LATEX_PKGS := latexmk texlive-latex-recommended texlive-fonts-recommended lmodern
latex:
	@{ command -v latexmk && kpsewhich lmodern.sty; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing LaTeX ($(LATEX_PKGS)) to build paper/main.pdf"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends $(LATEX_PKGS) >/dev/null) || echo "could not install LaTeX"; \
	  else echo "LaTeX not found: install it with"; \
	    echo "    sudo apt-get install -y --no-install-recommends $(LATEX_PKGS)"; fi; }

# The suite runs on every logical CPU (pytest-xdist; TEST_WORKERS=0 runs it in
# this one process). --dist loadfile keeps each test file on one worker, so a
# module's shared fixtures (the quick reproduce of tests/experiments/test_notebooks.py,
# the paper builds) are computed once.
TEST_WORKERS ?= logical
test: $(STAMP) browser latex
	$(PY) -m ruff check .
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile

# The whole pipeline: every experiment and benchmark of PROFILE into
# results/$(PROFILE), then the paper from them (paper/tools/build.py: every
# figure, table and number, then paper/main.pdf). The paper is built even
# after a failed experiment, so that every failure is listed; a failure of
# either step fails the target.
reproduce: $(STAMP) latex
	@rc=0; \
	$(PY) -m experiments reproduce --profile $(PROFILE) --out results/$(PROFILE) || rc=1; \
	$(PY) paper/tools/build.py results/$(PROFILE) || rc=1; \
	exit $$rc

# The paper alone, from saved results: results/$(PROFILE), or RESULTS=DIR
# (e.g. RESULTS=paper/results, the shipped paper-profile results).
RESULTS ?= results/$(PROFILE)
paper: $(STAMP) latex
	$(PY) paper/tools/build.py $(RESULTS)

# The benchmarks of experiments/bench/ (make bench BENCH="engine sim observers
# resample search cfr" runs all six; each writes results/paper/bench/<name>.json).
BENCH ?= engine
bench: $(STAMP)
	for b in $(BENCH); do $(PY) -m experiments.bench.$$b || exit 1; done

# The documentation site (Sphinx: docs/conf.py) into docs/_build/html; warnings
# are errors, as in tests/test_docs.py.
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "open docs/_build/html/index.html"

clean:
	rm -rf $(VENV) results/quick docs/_build docs/api/_generated

# xinxin, Nathan Sturtevant's Hearts program (GPL v3), as an opponent for the
# classic 4-player game (agent "xinxin", docs/xinxin.md). Its sources are not
# part of this repository: clone https://github.com/nathansttt/hearts and name
# the folder, e.g. make xinxin XINXIN_SRC=$$HOME/hearts. This compiles our
# driver (solvers/xinxin/driver.cc) with xinxin's sources into
# build/xinxin/xinxin_driver (git-ignored; it links GPL code) and copies it to
# the user's cache folder, where the agent finds it (also from a wheel install).
XINXIN_SRC ?=
XINXIN_BUILD := build/xinxin
XINXIN_CACHE := $${XDG_CACHE_HOME:-$$HOME/.cache}/cancellation-hearts/xinxin
CXX ?= g++
XINXIN_CXXFLAGS ?= -std=c++14 -O3 -pthread -w
# xinxin's sources except its own main program (main.cpp, statistics.cpp).
XINXIN_FILES := Algorithm CardGameState CardProbabilityData Game GameState Hearts \
  HeartsGameData HeartsGameHistories Player ProblemState States Timer UCT \
  algorithmStates fpUtil hash iiGameState iiMonteCarlo mt_random
xinxin:
	@test -n "$(XINXIN_SRC)" || { echo "make xinxin needs XINXIN_SRC=/path/to/hearts (a clone of https://github.com/nathansttt/hearts)"; exit 2; }
	@for f in $(XINXIN_FILES); do test -f "$(XINXIN_SRC)/$$f.cpp" || { echo "$(XINXIN_SRC)/$$f.cpp not found: XINXIN_SRC must be a clone of https://github.com/nathansttt/hearts"; exit 2; }; done
	mkdir -p $(XINXIN_BUILD)/obj
	@for f in $(XINXIN_FILES); do \
	  if [ ! -f $(XINXIN_BUILD)/obj/$$f.o ] || [ "$(XINXIN_SRC)/$$f.cpp" -nt $(XINXIN_BUILD)/obj/$$f.o ]; then \
	    echo "$(CXX) $$f.cpp"; $(CXX) $(XINXIN_CXXFLAGS) -c "$(XINXIN_SRC)/$$f.cpp" -o $(XINXIN_BUILD)/obj/$$f.o || exit 1; fi; done
	$(CXX) $(XINXIN_CXXFLAGS) -I"$(XINXIN_SRC)" solvers/xinxin/driver.cc $(XINXIN_BUILD)/obj/*.o -o $(XINXIN_BUILD)/xinxin_driver
	mkdir -p "$(XINXIN_CACHE)" && cp $(XINXIN_BUILD)/xinxin_driver "$(XINXIN_CACHE)/xinxin_driver"
	@echo "built $(XINXIN_BUILD)/xinxin_driver, copied to $(XINXIN_CACHE)/xinxin_driver (agent 'xinxin' finds it there)"
