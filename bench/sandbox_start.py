"""Benchmark: what starting a sandbox container costs, with the supervisor program on its command
line (``python3 -c PROGRAM``, before issue 40) or sent over its attached stdin (a short bootstrap
reads it; now), measured in one run, alternated.

    python bench/sandbox_start.py [--rounds 20] [--recycled-jobs 24]

(a) start: create, attach, start, the program, the supervisor's first answer (a ping); then one
    short job in that container. Each round starts one container each way, in alternating order.
(b) a pool that replaces its container after every job (``recycle_after=1``, size 2): the pool's
    rate when every job pays for a container start, each way, alternated.
Also the program's size and what joining its parts costs on the host (once per process).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifiers.sandbox import DockerSandbox, Job, engine_client, image_tag  # noqa: E402
from verifiers.sandbox._host import pool as pool_module  # noqa: E402
from verifiers.sandbox._host import program  # noqa: E402
from verifiers.sandbox._host.container import Container, Lockdown  # noqa: E402

SHORT = "print(sum(i * i for i in range(1000)))"
RUN = {"op": "run", "source": SHORT, "stdin": "", "files": {}, "timeout_s": 10, "out_cap": 1 << 20, "memory_mb": 512}


class ArgvContainer(Container):
    """The delivery before issue 40: the whole program as one ``python3 -c`` argument."""

    def command(self) -> list[str]:
        return ["python3", "-s", "-c", self.program, "supervise", str(self.job_uid), str(self.tester_uid)]

    def send_program(self) -> None:
        pass


WAYS: dict[str, type[Container]] = {"command line": ArgvContainer, "stdin": Container}


def start_once(client: Any, kind: type[Container]) -> tuple[float, float]:
    begin = time.perf_counter()
    box = kind(client, image_tag(), Lockdown(memory_mb=512), "bench-start")
    started = time.perf_counter() - begin
    try:
        begin = time.perf_counter()
        reply = box.request(RUN, timeout_s=30)
        first_job = time.perf_counter() - begin
        assert reply["stdout"] and reply["exit_code"] == 0, reply
    finally:
        box.destroy()
    return started * 1e3, first_job * 1e3


def recycled_rate(kind: type[Container], jobs: int) -> float:
    original = Container
    pool_module.Container = kind  # type: ignore[attr-defined]  # the pool starts its containers as `kind`
    try:
        with DockerSandbox(size=2, recycle_after=1) as pool:
            pool.run(SHORT)
            begin = time.perf_counter()
            results = pool.run_many([Job(SHORT)] * jobs)
            took = time.perf_counter() - begin
        assert all(r.ok for r in results)
    finally:
        pool_module.Container = original  # type: ignore[attr-defined]
    return jobs / took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="containers started each way")
    parser.add_argument("--recycled-jobs", type=int, default=24, help="jobs per recycled-pool measurement (3 each way)")
    args = parser.parse_args()
    begin = time.perf_counter()
    joined = program._join()
    join_ms = (time.perf_counter() - begin) * 1e3
    size = len(joined.encode()) / 1024
    print(f"program: {size:.1f} KiB, joined in {join_ms:.1f} ms; the bootstrap: {len(program.BOOTSTRAP)} B")
    client = engine_client()
    start_once(client, Container)  # warm-up: the image's pages in the cache
    times: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
    for k in range(args.rounds):
        order = list(WAYS) if k % 2 == 0 else list(WAYS)[::-1]
        for way in order:
            times[way].append(start_once(client, WAYS[way]))
    rates: dict[str, list[float]] = {way: [] for way in WAYS}
    for k in range(6):
        way = list(WAYS)[k % 2]
        rates[way].append(recycled_rate(WAYS[way], args.recycled_jobs))
    print(f"\n{'program delivered on':<22}{'start p50':>11}{'mean':>9}{'p90':>9}{'1st job p50':>13}  recycled jobs/s")
    print("-" * 82)
    for way in WAYS:
        start = [s for s, _ in times[way]]
        job = [j for _, j in times[way]]
        p90 = statistics.quantiles(start, n=10)[8]
        print(
            f"{way:<22}{statistics.median(start):>9.0f}ms{statistics.mean(start):>7.0f}ms{p90:>7.0f}ms"
            f"{statistics.median(job):>11.1f}ms  {statistics.median(rates[way]):.2f} "
            f"({', '.join(f'{r:.2f}' for r in rates[way])})"
        )
    before, after = (statistics.median([s for s, _ in times[w]]) for w in WAYS)
    print(f"\nstart over stdin vs on the command line: {after - before:+.1f} ms at p50 ({after / before:.3f}x)")


if __name__ == "__main__":
    main()
