#!/usr/bin/env bash
# Fill wheels/ (git-ignored) with what bench/gpu_check.sh needs on the GPU machine and does not
# find there: the device has Python 3.12, torch, transformers, accelerate, pandas, pyarrow,
# xxhash, fsspec, cloudpickle, huggingface-hub, psutil, jinja2, pyyaml, sympy, hypothesis and
# tqdm (see the device's package list), but no trl, datasets, dill, multiprocess, gymnasium,
# farama-notifications or us, and no PyPI. The device tool carries at most 64 MiB per call,
# the working tree included, so only the missing ones travel (~2.5 MiB). `import trl` needs
# every one of pandas, pyarrow, xxhash, fsspec, dill and multiprocess (checked by blocking each
# in turn), but the device has the first four, and they would not fit: for Python 3.12
# pyarrow 26.0.1 is 52.5 MiB and pandas 3.1.1 11.5 MiB. WHEELS_EXTRA adds more should the
# device ever lack one (WHEELS_EXTRA="xxhash==4.1.0"); datasets 5.2 also ran with pyarrow 21.
#
#   bash bench/gpu_wheels.sh        # then: run(command="bash bench/gpu_check.sh", carry=["wheels"])
#
# Versions are the ones installed here (the ones our tests ran against); wheels are cp312 /
# manylinux x86-64 / pure Python (WHEELS_PYTHON_VERSION changes the Python, e.g. for a dry run
# of the install path on this machine's 3.11).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
py=${PYTHON:-.venv/bin/python}
dest=${WHEELS_DIR:-wheels}
pyver=${WHEELS_PYTHON_VERSION:-3.12}
limit_mib=${WHEELS_LIMIT_MIB:-48} # of the 64 MiB a call carries, with room for the working tree

# The packages the device lacks (import names differ: farama-notifications is farama_notifications).
packages=(trl datasets dill multiprocess gymnasium farama-notifications)

version() { "$py" -c "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))" "$1"; }

specs=()
for name in "${packages[@]}"; do
    specs+=("$name==$(version "$name")")
done
read -r -a extra <<<"${WHEELS_EXTRA:-}"
specs+=("${extra[@]}")

rm -rf "$dest"
mkdir -p "$dest"
echo "downloading for Python $pyver: ${specs[*]}"
platforms=()
for tag in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64; do
    platforms+=(--platform "$tag")
done
"$py" -m pip download -q --no-deps --only-binary=:all: --python-version "$pyver" --implementation cp \
    "${platforms[@]}" -d "$dest" "${specs[@]}"

echo "building our wheel (grpo-envs, the working tree)"
had_build=0
[[ -d build ]] && had_build=1
"$py" -m pip wheel -q --no-deps --no-build-isolation -w "$dest" "$root"
((had_build)) || rm -rf build # setuptools' scratch folder, left in the tree

ls -l "$dest"
size_kib=$(du -sk "$dest" | cut -f1)
echo "wheels: $(find "$dest" -name '*.whl' | wc -l) files, $((size_kib / 1024)) MiB ($size_kib KiB) in $dest"
if ((size_kib > limit_mib * 1024)); then
    echo "too large for one device call: over ${limit_mib} MiB (WHEELS_LIMIT_MIB)" >&2
    exit 1
fi
