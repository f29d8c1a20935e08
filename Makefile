# benchbill: two commands on a fresh machine (Python 3.11 and make; everything else is installed here).
#   make run        set up and build the warehouse, print the shortlist
#   make test       set up, then the gates (lint, format, types, definitions) and every test tier
#   make test-unit  the unit tier alone (no ../shared needed: it runs with BENCHBILL_SHARED pointing nowhere)
#   make lint       the gates alone: ruff check, ruff format --check, mypy, dg check defs
#   make tools-venv the load-test tools whose own parsers check a plan's files (AIPerf, GuideLLM, inference-perf),
#                   each in its own virtualenv under .venv-tools/ (tests/tools-requirements/ says why)
#   make bench      the benchmark harness (bench/): ours vs one DuckDB query vs pandas, 1M and 10M requests
#   make dev        the Dagster UI and daemon (`dg dev`) on http://127.0.0.1:$(PORT), sensors and schedule running;
#                   stop with Ctrl-C, or `make stop` from another terminal (every process of the group ends)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
# Variables (`make run SHARED=/data/shared`, `make run RUN_ARGS="--mlperf r.json --dumps d"`):
#   SHARED     the folder holding the real published data (default ../shared); when SHARED/data holds the MLPerf
#              round tables, `make run` and `make dev` read its v5.1 and v4.1 tables, examples/dumps (linked into it) and
#              examples/run-profiles.yaml (chat-8b on its real Azure trace) (no network); otherwise they read the
#              rounds in assets/defaults/mlperf_sources.yaml online and the bundled profiles (no traffic log)
#   RUN_ARGS   the options `make run` gives `benchbill run` after --warehouse (default: as just said); a value
#              replaces the default whole (add --force, --prices FILE, ... to the --mlperf/--dumps you want)
#   WAREHOUSE  the warehouse folder (default ./warehouse)
#   DEV_INPUTS the BENCHBILL_* settings `make dev` gives the Dagster definitions (default: the inputs of RUN_ARGS)
#   WORKERS    how many pytest-xdist workers `make test` runs each tier in (default 2, the cores measured on;
#              WORKERS=0 runs every test in one process)
SHARED ?= ../shared
WAREHOUSE ?= warehouse
DAGSTER_HOME ?= $(abspath $(WAREHOUSE))/dagster_home
PORT ?= 3000

# With the shared published files next to the repository, `make run` reads them and the example
# dumps (no network needed); otherwise it reads the round tables listed in the sources file online.
ifneq ($(wildcard $(SHARED)/data/mlperf/summary/v5.1/summary_results.json),)
RUN_ARGS ?= --mlperf $(SHARED)/data/mlperf/summary/v5.1/summary_results.json \
            --mlperf $(SHARED)/data/mlperf/summary/v4.1/summary_results.json \
            --dumps examples/dumps --allow-links-into $(SHARED)/data --profiles examples/run-profiles.yaml
DEV_INPUTS ?= BENCHBILL_MLPERF=$(abspath $(SHARED)/data/mlperf/summary/v5.1/summary_results.json),$(abspath $(SHARED)/data/mlperf/summary/v4.1/summary_results.json) \
              BENCHBILL_DUMPS=$(abspath examples/dumps) BENCHBILL_ALLOW_LINKS_INTO=$(abspath $(SHARED)/data) \
              BENCHBILL_PROFILES=$(abspath examples/run-profiles.yaml)
endif

# The report test renders the HTML report in Debian's chromium: installed here when missing and make runs as root
# (CI); otherwise `make test` says how to get one and the report test is skipped. CHROMIUM=/path names another.
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM

.PHONY: setup run test test-unit lint dev stop clean browser bench tools-venv

setup: $(STAMP)

# pip at -qq prints errors only: a machine's own pip settings (extra index folders it cannot read, say) would
# otherwise print a warning per package, though nothing of ours is wrong; the build itself warns of nothing.
$(STAMP):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --quiet -e '.[dev,bench]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

run: setup
	$(BIN)/benchbill run --warehouse $(WAREHOUSE) $(RUN_ARGS)

# The unit tier runs first and without the shared data (proving it needs none), then the real-data tiers; each
# tier ends with its slowest tests, so a run's log says where the time goes. Each runs in WORKERS pytest-xdist
# workers, a test module whole on one worker (--dist loadfile: its module fixtures are built once); the published
# warehouses the real-data tiers share are built once per run, by whichever worker asks first (tests/conftest.py).
WORKERS ?= 2
PYTEST_PARALLEL := -n $(WORKERS) --dist loadfile
test: lint browser tools-venv
	BENCHBILL_SHARED=$(abspath .)/.no-shared-data $(BIN)/pytest -q $(PYTEST_PARALLEL) --durations=10 tests/unit
	$(BIN)/pytest -q $(PYTEST_PARALLEL) --durations=25 tests/integration tests/e2e

test-unit: setup
	BENCHBILL_SHARED=$(abspath .)/.no-shared-data $(BIN)/pytest -q tests/unit

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/dg check defs

# The load-test tools, one virtualenv each (their pins fight .venv's and each other's), rebuilt when their pinned
# requirements change. GuideLLM runs on PYTHON (3.11: the CPU torch it needs is on disk for it), AIPerf and
# inference-perf (>= 3.12) on PYTHON312: the first python3.12 that runs, on PATH or among pyenv's versions.
TOOLS_VENV ?= .venv-tools
PYTHON312 ?= $(shell for p in python3.12 $(wildcard $(HOME)/.pyenv/versions/3.12*/bin/python3.12); do \
  "$$p" -c '' >/dev/null 2>&1 && command -v "$$p" && break; done)
TOOLS := aiperf guidellm inference-perf
tools-venv: $(foreach t,$(TOOLS),$(TOOLS_VENV)/$(t)/.installed)

$(TOOLS_VENV)/%/.installed: tests/tools-requirements/%.txt
	@test -n "$(if $(filter guidellm,$*),$(PYTHON),$(PYTHON312))" || \
	  { echo "$* needs Python 3.12: set PYTHON312=/path/to/python3.12"; exit 1; }
	rm -rf $(TOOLS_VENV)/$*
	$(if $(filter guidellm,$*),$(PYTHON),$(PYTHON312)) -m venv $(TOOLS_VENV)/$*
	$(TOOLS_VENV)/$*/bin/python -m pip install --quiet --quiet --upgrade pip
	$(TOOLS_VENV)/$*/bin/python -m pip install --quiet --quiet -r $<
	touch $@

browser:
	@if [ -x "$(CHROMIUM)" ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then echo "installing Debian's chromium for the report test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "no chromium at $(CHROMIUM) and not root: the report test will be skipped;" \
	  "to run it, install Debian's as root (apt-get install chromium) or set CHROMIUM=/path/to/chromium"; \
	fi

# BENCH_ARGS: e.g. --sizes 10k,1M --runs 1 (see python -m bench --help)
BENCH_ARGS ?= --sizes 1M,10M --runs 3
bench: setup
	$(BIN)/python -m bench $(BENCH_ARGS)

dev: setup
	mkdir -p $(DAGSTER_HOME)
	cp -n pipelines/dagster.yaml $(DAGSTER_HOME)/dagster.yaml || true
	DAGSTER_HOME=$(DAGSTER_HOME) BENCHBILL_WAREHOUSE=$(abspath $(WAREHOUSE)) $(DEV_INPUTS) \
	  $(BIN)/python -m pipelines.devserver start --port $(PORT)

stop:
	DAGSTER_HOME=$(DAGSTER_HOME) $(BIN)/python -m pipelines.devserver stop

clean:
	rm -rf $(VENV) $(TOOLS_VENV) $(WAREHOUSE) test-artifacts
