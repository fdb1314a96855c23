"""Benchmark: the sandbox pool vs a container per job vs bare host Python.

    python bench/sandbox.py [--jobs 60] [--cold-jobs 16]

Three ways to run the same program, measured in one run:
  (a) pool   DockerSandbox: warm containers, a supervisor starting each job as a fresh python3
  (b) cold   docker SDK, one container per job (create, attach, start, wait, remove) with
             exactly the pool's lockdown settings (network none, read-only root, caps, memory
             without swap, pids, CPU quota, tmpfs, log driver none)
  (c) host   subprocess.run(["/usr/bin/python3", "-c", program]) on the host, no isolation:
             the physical limit (same interpreter build as the image)
Workloads: a short correct program, and one test case of a typical stdin/stdout suite (read
a line of numbers, print their sum). Concurrency 1 and 2. Also: what recycling costs (a pool
that replaces its container after every job). Targets on 2 cores at concurrency 2:
(a) >= 20x (b) and (a) >= 0.5x (c); at concurrency 1, p50(a) - p50(c) < 30 ms. Then real
suites: MBPP rows with their references through `verify_many` at pool sizes 1 and 2, against
MBPP's own unsandboxed harness on the host (``--real-rows N``). And what the sandbox measures
for the same jobs beside busy loops (``--load-only``): the time limit and the memory limit must
not move with the machine's load.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import statistics
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifiers.sandbox import DockerSandbox, engine_client, image_tag  # noqa: E402
from verifiers.sandbox._host.container import Lockdown  # noqa: E402

SHORT = "print(sum(i * i for i in range(1000)))"
SUITE = "import sys\nnums = list(map(int, sys.stdin.read().split()))\nprint(sum(nums))"
SUITE_INPUT = " ".join(str(k) for k in range(500)) + "\n"
EXPECTED = {SHORT: str(sum(i * i for i in range(1000))), SUITE: str(sum(range(500)))}


def cold_run(client: Any, program: str, stdin: str) -> str:
    """One container per job, the pool's lockdown; output read through attach (log driver none)."""
    lock = Lockdown(memory_mb=512).create_kwargs(job_uid=100_001, tester_uid=100_002)
    lock.update(user="100001:100001", cap_add=[], stdin_open=bool(stdin), working_dir="/work")
    container = client.containers.create(image_tag(), ["python3", "-c", program], **lock)
    try:
        sock = client.api.attach_socket(container.id, params={"stdin": 1 if stdin else 0, "stdout": 1, "stream": 1})
        raw = sock._sock
        container.start()
        if stdin:
            raw.sendall(stdin.encode())
            raw.shutdown(1)  # EOF on the program's stdin
        out = bytearray()
        buf = bytearray()
        while True:
            chunk = raw.recv(65536)
            if not chunk:
                break
            buf += chunk
            while len(buf) >= 8:
                stream, size = struct.unpack(">BxxxL", buf[:8])
                if len(buf) < 8 + size:
                    break
                if stream == 1:
                    out += buf[8 : 8 + size]
                del buf[: 8 + size]
        container.wait()
        raw.close()
        return out.decode()
    finally:
        container.remove(force=True)


def host_run(program: str, stdin: str) -> str:
    return subprocess.run(["/usr/bin/python3", "-c", program], input=stdin, capture_output=True, text=True).stdout


def measure(run: Callable[[str, str], str], program: str, stdin: str, jobs: int, width: int) -> dict[str, float]:
    def one(_: int) -> float:
        start = time.perf_counter()
        out = run(program, stdin)
        elapsed = time.perf_counter() - start
        assert out.strip() == EXPECTED[program], out[:200]
        return elapsed

    one(0)  # warm-up
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(width) as threads:
        times = list(threads.map(one, range(jobs)))
    wall = time.perf_counter() - start
    return {
        "per_s": jobs / wall,
        "p50": statistics.median(times) * 1e3,
        "p99": statistics.quantiles(times, n=100)[98] * 1e3 if len(times) > 2 else max(times) * 1e3,
    }


REAL = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "code" / "mbpp_sanitized.jsonl"


def real_suites(rows: int) -> None:
    """Real suites (MBPP rows with their reference solutions) through `verify_many`, at pool
    sizes 1 and 2, against MBPP's own harness on the host (one unsandboxed ``python3`` per row
    running the solution and its asserts in one namespace), measured in the same run."""
    import json

    from verifiers import code as vc

    if not REAL.exists():
        print(f"\nreal suites: {REAL} is not here; skipped")
        return
    data = [json.loads(line) for line in REAL.read_text().splitlines() if line.strip()][:rows]
    suites = [vc.tests_from_row(r, style="mbpp") for r in data]
    programs = [f"```python\n{r['code']}\n```" for r in data]
    n_tests = sum(len(r["test_list"]) for r in data)
    print(f"\nreal suites: {len(data)} MBPP rows ({n_tests} asserts), reference solutions")
    print(f"{'runner':<24}{'conc':>5}{'suites/s':>10}{'tests/s':>9}{'correct':>9}")
    print("-" * 57)
    rates = {}
    for width in (1, 2):
        with DockerSandbox(size=width) as pool:
            vc.verify_many(suites[:width], programs[:width], sandbox=pool)  # warm
            start = time.perf_counter()
            results = vc.verify_many(suites, programs, sandbox=pool, timeout_s=30)
            took = time.perf_counter() - start
        rates[("pool", width)] = len(data) / took
        correct = sum(bool(r.correct) for r in results)
        print(f"{'verify_many (sandbox)':<24}{width:>5}{len(data) / took:>10.1f}{n_tests / took:>9.1f}{correct:>9}")
        scripts = ["\n".join([*r["test_imports"], r["code"], *r["test_list"]]) for r in data]
        start = time.perf_counter()

        def host(text: str) -> int:
            return subprocess.run(["/usr/bin/python3", "-c", text], capture_output=True).returncode

        with concurrent.futures.ThreadPoolExecutor(width) as threads:
            codes = list(threads.map(host, scripts))
        took = time.perf_counter() - start
        rates[("host", width)] = len(data) / took
        print(
            f"{'host, no isolation':<24}{width:>5}{len(data) / took:>10.1f}{n_tests / took:>9.1f}"
            f"{sum(c == 0 for c in codes):>9}"
        )
    print(
        "sandboxed verify_many vs the unsandboxed host harness: "
        + ", ".join(f"concurrency {w}: {rates[('pool', w)] / rates[('host', w)]:.2f}x" for w in (1, 2))
    )


HANDLE_PROGRAM = """class Counter:
    def __init__(self):
        self.size = 0
    def push(self, x):
        self.size += 1
        return x
    def __len__(self):
        return self.size

def f(x):
    return x

def echo(node):
    return node
"""
# The test measures inside the tester (what a test sees per crossing) and reports through its
# assertion message, the one channel from test code to the verdict.
HANDLE_TESTS = """import time

class ListNode:
    def __init__(self, val=0, next=None):
        self.val, self.next = val, next

def p50(fn, n=300):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return sorted(times)[n // 2] * 1e6

def local(x):
    return x

def test_costs():
    q = Counter()
    head = None
    for i in range(100):
        head = ListNode(i, head)
    costs = {"no crossing (a tester function)": p50(lambda: local(1)),
             "plain call f(1)": p50(lambda: f(1)),
             "handle method q.push(1)": p50(lambda: q.push(1)),
             "handle attribute q.size": p50(lambda: q.size),
             "len(handle)": p50(lambda: len(q)),
             "100-node ListNode there and back": p50(lambda: echo(head), 100)}
    assert False, "COSTS" + repr(costs)
"""


def handle_costs() -> None:
    """What a crossing costs inside the tester: p50 in microseconds, next to a plain call."""
    import ast

    from verifiers import code as vc

    with DockerSandbox(size=1) as pool:
        r = vc.verify(
            {"pytest": "from solution import Counter, f, echo\n" + HANDLE_TESTS},
            f"```python\n{HANDLE_PROGRAM}\n```",
            sandbox=pool,
            timeout_s=60,
        )
    if "COSTS" not in r.reason:
        print(f"\nhandle costs: the measurement did not run ({r.reason})")
        return
    costs = ast.literal_eval(r.reason.split("COSTS", 1)[1].rsplit(")", 1)[0])
    plain = costs["plain call f(1)"]
    print(f"\n{'crossing (inside the tester)':<36}{'p50 us':>9}{'vs plain':>10}")
    print("-" * 55)
    for name, us in costs.items():
        print(f"{name:<36}{us:>9.1f}{us / plain:>9.2f}x")


SPIN_CPU = "import time\nt = time.process_time()\nwhile time.process_time() - t < 2.0:\n    pass\n"
FILL = (
    "class Node:\n    def __init__(self, nxt):\n        self.nxt = nxt\n\nhead, n = None, 0\ntry:\n"
    "    while True:\n        head, n = Node(head), n + 1\nexcept MemoryError:\n    head = None\nprint(n)\n"
)


def load_independence() -> None:
    """What the sandbox measures for the same jobs beside 0, 1 and 2 busy loops on the host: a
    loop of 2 s of CPU (its measured time, the job's own, vs its wall time) and a program that
    fills its memory (where MemoryError comes, in objects)."""
    print(f"\n{'busy loops':<11}{'2 s CPU: measured':>18}{'wall':>8}{'fill: measured':>16}{'wall':>8}{'objects':>10}")
    print("-" * 71)
    with DockerSandbox(size=1, memory_mb=256) as pool:
        for busy in (0, 1, 2):
            loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
            try:
                row = []
                for program in (SPIN_CPU, FILL):
                    start = time.perf_counter()
                    r = pool.run(program, timeout_s=60)
                    row.append((r.duration_s, time.perf_counter() - start, r.stdout.strip()))
            finally:
                for loop in loops:
                    loop.kill()
                    loop.wait()
            (spin, spin_wall, _), (fill, fill_wall, objects) = row
            print(f"{busy:<11}{spin:>16.2f} s{spin_wall:>6.2f} s{fill:>14.2f} s{fill_wall:>6.2f} s{objects:>10}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=60, help="jobs per pool/host measurement")
    parser.add_argument("--cold-jobs", type=int, default=16, help="jobs per cold-container measurement")
    parser.add_argument("--real-rows", type=int, default=120, help="MBPP rows for the real-suite workload (0: none)")
    parser.add_argument("--handles-only", action="store_true", help="only what a handle call costs")
    parser.add_argument("--load-only", action="store_true", help="only what is measured beside busy loops")
    args = parser.parse_args()
    if args.handles_only:
        handle_costs()
        return
    if args.load_only:
        load_independence()
        return
    client = engine_client()
    rows: list[tuple[str, str, int, dict[str, float]]] = []
    for width in (1, 2):
        with DockerSandbox(size=width) as pool:

            def pooled(program: str, stdin: str, pool: DockerSandbox = pool) -> str:
                return pool.run(program, stdin=stdin).stdout

            for name, program, stdin in (("short", SHORT, ""), ("suite case", SUITE, SUITE_INPUT)):
                rows.append(("a pool", name, width, measure(pooled, program, stdin, args.jobs, width)))
                rows.append(
                    (
                        "b cold",
                        name,
                        width,
                        measure(
                            lambda p, s: cold_run(client, p, s),
                            program,
                            stdin,
                            args.cold_jobs,
                            width,
                        ),
                    )
                )
                rows.append(("c host", name, width, measure(host_run, program, stdin, args.jobs, width)))
    with DockerSandbox(size=2) as sized:
        start = time.perf_counter()
        assert sized.run(SHORT, memory_mb=1024).ok  # a new memory size warms its own pool
        new_size_s = time.perf_counter() - start
        start = time.perf_counter()
        assert sized.run(SHORT, memory_mb=1024).ok
        same_size_s = time.perf_counter() - start
    with DockerSandbox(size=2, recycle_after=1) as recycling:
        recycled = measure(lambda p, s: recycling.run(p, stdin=s).stdout, SHORT, "", args.cold_jobs * 2, 2)
    print(f"{'mode':<8}{'workload':<12}{'conc':>5}{'exec/s':>9}{'p50 ms':>9}{'p99 ms':>9}")
    print("-" * 52)
    for mode, name, width, r in rows:
        print(f"{mode:<8}{name:<12}{width:>5}{r['per_s']:>9.1f}{r['p50']:>9.1f}{r['p99']:>9.1f}")
    r = recycled
    print(f"{'a pool, recycled':<25}{2:>5}{r['per_s']:>9.1f}{r['p50']:>9.1f}{r['p99']:>9.1f}")
    get = {(m[0], n, w): r for m, n, w, r in rows}
    print()
    for name in ("short", "suite case"):
        a2, b2, c2 = get[("a", name, 2)], get[("b", name, 2)], get[("c", name, 2)]
        a1, c1 = get[("a", name, 1)], get[("c", name, 1)]
        print(
            f"{name}: concurrency 2: a/b = {a2['per_s'] / b2['per_s']:.1f}x (target >= 20), "
            f"a/c = {a2['per_s'] / c2['per_s']:.2f}x (target >= 0.5); "
            f"concurrency 1: p50(a) - p50(c) = {a1['p50'] - c1['p50']:.1f} ms (target < 30)"
        )
    a2 = get[("a", "short", 2)]
    print(
        f"recycling every job: {recycled['per_s']:.1f} exec/s vs {a2['per_s']:.1f} warm "
        f"({recycled['per_s'] / a2['per_s']:.2f}x)"
    )
    print(
        f"memory_mb selects a pool per size: the first job at a new size took "
        f"{new_size_s * 1e3:.0f} ms (it starts that pool), the next {same_size_s * 1e3:.0f} ms"
    )
    handle_costs()
    load_independence()
    if args.real_rows:
        real_suites(args.real_rows)


if __name__ == "__main__":
    main()
