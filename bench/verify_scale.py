"""Benchmark: verdicts through the local executor vs `RayExecutor`, batch sizes 64 to 4,096.

    python bench/verify_scale.py [--sizes 64,256,1024,4096] [--code-sizes 64,256,1024,4096]
                                 [--repeats 3] [--no-code] [--json]

Real inputs: GSM8K model outputs (``../shared/realdata/math/gsm8k_completions.jsonl``) and
MBPP's reference solutions with their asserts (``code/mbpp_sanitized.jsonl``), cycled to each
batch size. Both executors run in the same process on the same machine: local (the default
path: math in the caller plus its worker pool, code in a `DockerSandbox` of 2 containers) and
Ray (``ray.init(num_cpus=2, resources={"docker": 1})``: two one-CPU math actors, one code
actor holding 2 containers). On 2 cores the point is Ray's overhead per verdict and whether
it grows with the batch; then the per-core rates the sizing model in bench/RESULTS.md uses.

Ray runs inside a loopback-only network namespace (the script re-executes itself under
``unshare --net``, as root), so none of its traffic leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
REAL = ROOT.parent / "shared" / "realdata"
INSIDE = "GE_BENCH_NETNS"


def reexec_in_loopback_namespace() -> None:
    if os.environ.get(INSIDE) == "1":
        return
    if os.geteuid() != 0:
        sys.exit("verify_scale.py runs Ray inside `unshare --net`, which needs root")
    env = {**os.environ, INSIDE: "1", "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("RAY_ADDRESS", None)
    cmd = ["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', sys.executable, *sys.argv]
    sys.exit(subprocess.run(cmd, env=env).returncode)


def load_math(n: int) -> tuple[list[str], list[str]]:
    rows = [json.loads(line) for line in (REAL / "math" / "gsm8k_completions.jsonl").read_text().splitlines() if line]
    picked = [rows[k % len(rows)] for k in range(n)]
    return [r["gold"] for r in picked], [r["completion"] for r in picked]


def load_code(n: int) -> tuple[list[Any], list[str]]:
    from verifiers import code as vc

    rows = [json.loads(line) for line in (REAL / "code" / "mbpp_sanitized.jsonl").read_text().splitlines() if line]
    picked = [rows[k % len(rows)] for k in range(n)]
    return [vc.tests_from_row(r, style="mbpp") for r in picked], [f"```python\n{r['code']}\n```" for r in picked]


def p99(times: list[float]) -> float:
    """Nearest rank: with fewer than 100 batches, the slowest one."""
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]


def measure(kind: str, n: int, executor: Any, repeats: int, box: Any) -> dict[str, Any]:
    from verifiers import code
    from verifiers import math as vmath

    refs, comps = load_math(n) if kind == "math" else load_code(n)
    times, judged = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        if kind == "math":
            results = vmath.verify_many(refs, comps, executor=executor)
        else:
            results = code.verify_many(refs, comps, sandbox=None if executor else box, executor=executor, timeout_s=30)
        times.append(time.perf_counter() - start)
        judged = sum(r.status not in ("error", "timeout") for r in results)
    median = sorted(times)[len(times) // 2]
    return {"kind": kind, "n": n, "per_s": n / median, "p50_s": median, "p99_s": p99(times), "judged": judged}


def per_core_rates(box_factory: Any) -> dict[str, float]:
    """Math on one core (``workers=1``), code in one one-CPU container: what one core judges."""
    from verifiers import code
    from verifiers import math as vmath

    golds, comps = load_math(1024)
    vmath.verify_many(golds[:8], comps[:8], workers=1)
    start = time.perf_counter()
    vmath.verify_many(golds, comps, workers=1)
    math_rate = len(golds) / (time.perf_counter() - start)
    suites, programs = load_code(64)
    with box_factory(1) as one:
        code.verify_many(suites[:2], programs[:2], sandbox=one)
        start = time.perf_counter()
        code.verify_many(suites, programs, sandbox=one, timeout_s=30)
        code_rate = len(suites) / (time.perf_counter() - start)
    return {"math_per_core_s": math_rate, "code_per_core_s": code_rate}


def sizing(rates: dict[str, float], verdicts: int = 8192, budget_s: float = 10.0) -> list[dict[str, Any]]:
    """Nodes of C cores to judge ``verdicts`` (a fraction ``code`` of them code suites) within
    ``budget_s``, with every core judging at the measured one-core rate (Ray's overhead aside)."""
    rows = []
    for code_share in (0.0, 0.5, 1.0):
        core_s = verdicts * ((1 - code_share) / rates["math_per_core_s"] + code_share / rates["code_per_core_s"])
        cores = core_s / budget_s
        rows.append(
            {
                "code_share": code_share,
                "core_s": core_s,
                "cores": cores,
                **{f"nodes_{c}": math.ceil(cores / c) for c in (16, 32, 64)},
            }
        )
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    head = f"{'kind':<6}{'batch':>7}{'executor':>10}{'verdicts/s':>12}{'p50 s':>9}{'p99 s':>9}"
    print(f"{head}{'ray/local':>11}{'ms/verdict':>12}")
    print("-" * 76)
    for row in rows:
        ratio = f"{row['ratio']:.2f}x" if "ratio" in row else ""
        extra = f"{row['overhead_ms']:+.3f}" if "overhead_ms" in row else ""
        print(
            f"{row['kind']:<6}{row['n']:>7}{row['executor']:>10}{row['per_s']:>12.1f}{row['p50_s']:>9.3f}"
            f"{row['p99_s']:>9.3f}{ratio:>11}{extra:>12}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="64,256,1024,4096", help="math batch sizes")
    parser.add_argument("--code-sizes", default="64,256,1024,4096", help="code batch sizes")
    parser.add_argument("--repeats", type=int, default=3, help="batches per size (fewer for big code batches)")
    parser.add_argument("--no-code", action="store_true", help="math only (no Docker engine needed)")
    parser.add_argument("--json", action="store_true", help="also print the rows as one JSON line")
    args = parser.parse_args()
    reexec_in_loopback_namespace()

    import ray

    from verifiers.executors import RayExecutor
    from verifiers.sandbox import DockerSandbox

    temp = tempfile.mkdtemp(prefix="ge-bench-", dir="/tmp")  # Ray's session files: removed at the end
    resources = {} if args.no_code else {"docker": 1}
    ray.init(num_cpus=2, resources=resources, include_dashboard=False, log_to_driver=False, _temp_dir=temp)
    work = [("math", int(n)) for n in args.sizes.split(",") if n]
    if not args.no_code:
        work += [("code", int(n)) for n in args.code_sizes.split(",") if n]
    rows: list[dict[str, Any]] = []
    box = None if args.no_code else DockerSandbox(size=2)
    with RayExecutor(timeout_s=900, worker_settings={"code": {"containers": 2}}) as ray_judges:
        for kind in dict.fromkeys(k for k, _ in work):  # warm: actors up, pools started
            measure(kind, 8, ray_judges, 1, box)
            measure(kind, 8, None, 1, box)
        for kind, n in work:
            repeats = args.repeats if kind == "math" or n <= 256 else 1
            local = {**measure(kind, n, None, repeats, box), "executor": "local"}
            remote = {**measure(kind, n, ray_judges, repeats, box), "executor": "ray"}
            remote["ratio"] = remote["per_s"] / local["per_s"]
            remote["overhead_ms"] = (remote["p50_s"] - local["p50_s"]) / n * 1e3
            rows += [local, remote]
    rates = per_core_rates(lambda size: DockerSandbox(size=size)) if box else {}
    if box is not None:
        box.close()
    ray.shutdown()
    shutil.rmtree(temp, ignore_errors=True)
    print_table(rows)
    if rates:
        print(
            f"\nper core: math {rates['math_per_core_s']:.0f} verdicts/s, code {rates['code_per_core_s']:.1f} suites/s"
        )
        print("8,192 verdicts in 10 s needs (Ray's overhead aside):")
        for s in sizing(rates):
            print(
                f"  code share {s['code_share']:.0%}: {s['core_s']:.0f} core-s = {s['cores']:.1f} cores; "
                f"nodes of 16/32/64 cores: {s['nodes_16']}/{s['nodes_32']}/{s['nodes_64']}"
            )
    if args.json:
        print(json.dumps({"rows": rows, "rates": rates}))


if __name__ == "__main__":
    main()
