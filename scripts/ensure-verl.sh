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
set -euo pipefail
version=${VERL_VERSION:-0.9.1}
venv=${GRPO_ENVS_VERL_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/grpo-envs/verl-$version}
python=${PYTHON:-python3}
stamp=$venv/.grpo-envs-ready
# Our runtime dependencies beside verl (pyarrow: the adapter's parquet writer). The stamp holds this
# list: a venv built with an older list gets the difference installed instead of being rebuilt.
deps=("gymnasium>=1.0" "sympy>=1.13" "docker>=7.1" "hypothesis>=6.100" "pyarrow>=14")
# (importing verl pulls in torch and ray: finding it is enough to reuse the venv)
if [ -f "$stamp" ] && "$venv/bin/python" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("verl") is None)' 2>/dev/null; then
    if [ "$(cat "$stamp")" != "${deps[*]}" ]; then
        echo "updating the verl virtualenv's packages: ${deps[*]}" >&2
        "$venv/bin/python" -m pip install --quiet "${deps[@]}" >>"$venv.log" 2>&1
        echo "${deps[*]}" >"$stamp"
    fi
    echo "$venv/bin/python"
    exit 0
fi
log=$venv.log
echo "building the verl virtualenv in $venv (one time, a few minutes; pip's output: $log)" >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
: >"$log"
trap 'echo "building the verl virtualenv failed; the end of $log:" >&2; tail -20 "$log" >&2' ERR
"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip install --quiet)
"${pip[@]}" --upgrade pip >>"$log" 2>&1
"${pip[@]}" "torch==2.13.0" >>"$log" 2>&1 # the CPU build, before verl, so pip keeps it
"${pip[@]}" "verl==$version" >>"$log" 2>&1
"${pip[@]}" "${deps[@]}" >>"$log" 2>&1
"$venv/bin/python" -c 'import verl, transformers, gymnasium; print("verl", verl.__version__, "transformers", transformers.__version__)' >&2
echo "${deps[*]}" >"$stamp"
echo "$venv/bin/python"
