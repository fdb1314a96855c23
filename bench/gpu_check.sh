#!/usr/bin/env bash
# The prepared GPU check: a ~0.5B Qwen2-shaped model from a config in bf16, G=8; generation
# tokens/s, train step time, peak memory and MFU, ours vs TRL; then bench/memory.py on CUDA,
# eval's transformers backend (bench/gpu_eval.py) and async rollouts k = 1 vs 0 (bench/gpu_async.py).
#
#   bash bench/gpu_check.sh [--cpu] [--tiny]
#
# On the GPU machine (device tool), after `bash bench/gpu_wheels.sh` here:
#   run(command="bash bench/gpu_check.sh", carry=["wheels"], timeout_s=300)
# Its numbers come back in $OUT/results.txt (one JSON line per phase, appended as each phase
# ends, so a timeout still leaves the phases before it) and $OUT/log.txt (everything printed).
# `--cpu --tiny` is the dry run of the same script (a `slow` test: tests/bench/test_gpu_check.py).
#
# The device's Python 3.12 has torch, transformers, accelerate, pandas, pyarrow and the rest
# but not trl, datasets, dill, multiprocess, gymnasium or us, and it has no PyPI: when those
# do not import, the wheels in wheels/ are installed with pip --no-index --no-deps into a
# scratch folder put on PYTHONPATH. The repository root comes first on PYTHONPATH, so our
# packages are always the checked-out tree.
#
# Time: the device lends 15 minutes in all, start-up included, so this stays under 5 minutes:
# each phase runs under its own `timeout`, capped by what is left of GPU_CHECK_BUDGET_S (300 s).
# A phase that fails or times out appends {"phase": ..., "error": ...} instead of its numbers
# (and the script then exits 1 after running the rest).
# GPU_CHECK_SKIP="memory ..." skips phases by name (the CI dry run skips memory: tests/bench/
# test_memory_smoke.py runs bench/memory.py itself).
# With --cpu the timeouts and the budget are multiplied by GPU_CHECK_TIMEOUT_SCALE (default 4):
# the dry run checks that every phase works, not how fast a shared CPU is.
set -uo pipefail

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }

cpu=0
tiny=0
for arg in "$@"; do
    case $arg in
        --cpu) cpu=1 ;;
        --tiny) tiny=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "unknown argument: $arg (expected --cpu, --tiny)" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
out=${OUT:-$root/runs/gpu-check}
mkdir -p "$out"
results=$out/results.txt
log=$out/log.txt
: >"$results"
: >"$log"
py=${PYTHON:-python3}
scale=1
((cpu)) && scale=${GPU_CHECK_TIMEOUT_SCALE:-4}
budget=$((${GPU_CHECK_BUDGET_S:-300} * scale))
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false TRANSFORMERS_VERBOSITY=error
start=$SECONDS

flags=()
((cpu)) && flags+=(--cpu)
((tiny)) && flags+=(--tiny)
device=cuda
((cpu)) && device=cpu
size=0.5b
((tiny)) && size=tiny

say() { echo "$*" | tee -a "$log"; }
failed=()

# phase NAME TIMEOUT_S COMMAND...: the command appends its own JSON line when it succeeds.
phase() {
    local name=$1 limit=$(($2 * scale))
    shift 2
    if [[ " ${GPU_CHECK_SKIP:-} " == *" $name "* ]]; then  # e.g. the CI dry run's memory phase (tested apart)
        say "== $name: skipped (GPU_CHECK_SKIP)"
        echo "{\"phase\": \"$name\", \"skipped\": \"GPU_CHECK_SKIP\"}" >>"$results"
        return
    fi
    local left=$((budget - (SECONDS - start)))
    ((left < limit)) && limit=$left
    if ((limit < 5)); then
        say "== $name: skipped, the time budget (${budget} s) is spent"
        echo "{\"phase\": \"$name\", \"error\": \"skipped: the ${budget} s budget is spent\"}" >>"$results"
        failed+=("$name")
        return
    fi
    say "== $name (timeout ${limit} s)"
    local t0=$SECONDS rc=0
    timeout -k 5 "$limit" "$@" >>"$log" 2>&1 || rc=$?
    if ((rc != 0)); then
        local why="exit $rc"
        ((rc == 124 || rc == 137)) && why="timed out after ${limit} s"
        echo "{\"phase\": \"$name\", \"error\": \"$why\", \"phase_s\": $((SECONDS - t0))}" >>"$results"
        failed+=("$name")
        tail -n 5 "$log" | sed 's/^/   | /'
    fi
    say "   $name: exit $rc after $((SECONDS - t0)) s"
}

say "gpu_check: device=$device size=$size python=$py out=$out budget=${budget} s ($(date -u +%FT%TZ))"

# -- packages: install the carried wheels only when something is missing -----------------------
site=""
if "$py" -c 'import trl, datasets, gymnasium' >/dev/null 2>&1; then
    echo '{"phase": "install", "skipped": "trl, datasets and gymnasium already import"}' >>"$results"
else
    shopt -s nullglob
    wheels=("${GPU_CHECK_WHEELS:-wheels}"/*.whl)
    shopt -u nullglob
    if ((${#wheels[@]} == 0)); then
        say "trl/datasets/gymnasium do not import and wheels/ is empty: run bash bench/gpu_wheels.sh, carry wheels"
        echo '{"phase": "install", "error": "packages missing and no wheels/"}' >>"$results"
        exit 2
    fi
    site=${GPU_CHECK_SITE:-/tmp/gpu-check-site}
    t0=$SECONDS
    rc=0
    timeout -k 5 $((60 * scale)) "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$site" "${wheels[@]}" >>"$log" 2>&1 || rc=$?
    echo "{\"phase\": \"install\", \"wheels\": ${#wheels[@]}, \"exit\": $rc, \"phase_s\": $((SECONDS - t0))}" >>"$results"
    say "installed ${#wheels[@]} wheels into $site: exit $rc"
    ((rc == 0)) || exit 2
fi
export PYTHONPATH="$root${site:+:$site}${PYTHONPATH:+:$PYTHONPATH}"

# -- the phases (timeouts add up to the budget; each also stops at what is left of it) ---------
phase env 20 "$py" bench/gpu_check.py env "${flags[@]}" --results "$results"
phase generate 35 "$py" bench/gpu_check.py generate "${flags[@]}" --results "$results"
phase ours 50 "$py" bench/gpu_check.py ours "${flags[@]}" --results "$results"
phase trl 70 "$py" bench/gpu_check.py trl "${flags[@]}" --results "$results"
phase memory 50 "$py" bench/memory.py --device "$device" --size "$size" --in-process --json --append "$results"
phase eval 30 "$py" bench/gpu_eval.py "${flags[@]}" --results "$results"
phase async 45 "$py" bench/gpu_async.py "${flags[@]}" --results "$results"

say "gpu_check: done in $((SECONDS - start)) s; results in $results"
cat "$results"
"$py" bench/gpu_check.py summary --results "$results" 2>&1 | tee -a "$log"
if ((${#failed[@]})); then
    say "gpu_check: phases without numbers: ${failed[*]}"
    exit 1
fi
