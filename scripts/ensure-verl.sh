#!/usr/bin/env bash
# The verl virtualenv for the verl adapter's peer test: verl 0.9.1 pins transformers < 5.11 and
# needs ray, so it cannot share .venv. Built once per machine, outside the checkout (a fresh clone
# reuses it), idempotently; prints the venv's python. Facts: ../shared/MACHINE-NOTES.md.
#
#   bash scripts/ensure-verl.sh            # builds (first time, a few minutes) or reuses; prints .../bin/python
#   GRPO_ENVS_VERL_VENV=DIR bash scripts/ensure-verl.sh
#
# Our packages are not installed there: callers put the checkout on PYTHONPATH, so the venv
# always runs the tree in front of it. Only our runtime dependencies are installed beside verl.
# The stamp, top-up and build: scripts/_ensure-venv.sh.
set -euo pipefail
version=${VERL_VERSION:-0.9.1}
venv=${GRPO_ENVS_VERL_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/grpo-envs/verl-$version}
# Our runtime dependencies beside verl (pyarrow: the adapter's parquet writer). The stamp holds this
# list: a venv built with an older list gets the difference installed instead of being rebuilt.
deps=("gymnasium>=1.0" "sympy>=1.13" "docker>=7.1" "hypothesis>=6.100" "pyarrow>=14")
exec bash "$(dirname "${BASH_SOURCE[0]}")/_ensure-venv.sh" verl verl "$venv" "verl==$version" -- "${deps[@]}"
