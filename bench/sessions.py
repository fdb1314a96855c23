"""Benchmark: sessions (one container per episode) from a warm pool vs `docker run` per episode,
and one command's round trip vs today's job pool, measured in one run.

    python bench/sessions.py [--rounds 30] [--pool 8] [--rates 1,2,4,max] [--per-rate 24] [--parallel-starts 1,2]

(a) start to first command: the time from asking for a session to the first command's result
    (``exec("true")``), three ways:
      docker run    the docker SDK, a container per episode running ``bash -c true`` with the
                    session's lockdown (create, start, wait, remove): the baseline
      cold Session  ``Session()`` then its first command (create, attach, start, the supervisor
                    program, a ping, the command)
      warm pool     ``SessionPool.session()`` then its first command, requests paced at each
                    rate in ``--rates`` (sessions/s; ``max``: back to back) for ``--per-rate``
                    sessions, each closed after its first command; "cold" counts the hand-outs
                    that found no warm container; once per ``--parallel-starts`` (how many
                    background refills start containers at once)
    and a group: G = ``--pool`` sessions asked for at once from a warm pool (one GRPO group).
(b) one command's round trip: ``Session.exec("true")``, a job of today's pool
    (``DockerSandbox.run("pass")``) and the SDK's ``exec_run(["true"])`` (``docker exec``).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifiers.sandbox import DockerSandbox, Session, SessionPool, engine_client, image_tag  # noqa: E402
from verifiers.sandbox._host.session import SessionLockdown  # noqa: E402


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def row(name: str, xs: list[float], extra: str = "") -> str:
    ms = [x * 1000 for x in xs]
    return f"{name:<34}{statistics.median(ms):>9.1f}{pct(ms, 0.99):>9.1f}{len(ms):>6}  {extra}"


def docker_run(client: Any) -> float:
    kwargs = SessionLockdown(memory_mb=512).create_kwargs(job_uid=100_001, tester_uid=100_002)
    kwargs.update(user="100001:100001", cap_add=[], stdin_open=False, working_dir="/work")
    start = time.perf_counter()
    container = client.containers.create(image_tag(), ["bash", "-c", "true"], **kwargs)
    try:
        container.start()
        assert container.wait()["StatusCode"] == 0
    finally:
        container.remove(force=True)
    return time.perf_counter() - start


def first_command(make: Any) -> tuple[float, Session]:
    start = time.perf_counter()
    s = make()
    r = s.exec("true")
    took = time.perf_counter() - start
    assert r.ok, r
    return took, s


def paced(pool: SessionPool, rate: float, n: int) -> tuple[list[float], int, float]:
    """Ask for a session every 1/rate s; each runs one command and is closed (in the background)."""
    times: list[float] = []
    cold = 0
    closing = concurrent.futures.ThreadPoolExecutor(4)
    begin = time.perf_counter()
    for k in range(n):
        wait = begin + k / rate - time.perf_counter() if rate else 0.0
        if wait > 0:
            time.sleep(wait)
        cold += pool.idle() == 0
        took, s = first_command(pool.session)
        times.append(took)
        closing.submit(s.close)
    elapsed = time.perf_counter() - begin
    closing.shutdown(wait=True)
    return times, cold, n / elapsed


def group(pool: SessionPool, g: int) -> float:
    pool.warm()
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(g) as threads:
        sessions = list(threads.map(lambda _: first_command(pool.session)[1], range(g)))
    took = time.perf_counter() - start
    for s in sessions:
        s.close()
    return took


def round_trips(rounds: int) -> list[str]:
    out = []
    with Session() as s:
        s.exec("true")
        out.append(row("Session.exec('true')", [first_command(lambda: s)[0] for _ in range(rounds * 3)]))
        container = s.container.client.containers.get(s.id)
        times = []
        for _ in range(rounds * 3):
            start = time.perf_counter()
            container.exec_run(["true"], user=str(s.container.job_uid))
            times.append(time.perf_counter() - start)
        out.append(row("docker exec (SDK exec_run)", times))
    with DockerSandbox(size=1) as box:
        box.run("pass")
        times = []
        for _ in range(rounds * 3):
            start = time.perf_counter()
            assert box.run("pass").ok
            times.append(time.perf_counter() - start)
        out.append(row("job pool DockerSandbox.run('pass')", times))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--pool", type=int, default=8)
    parser.add_argument("--rates", default="1,2,4,max")
    parser.add_argument("--parallel-starts", default="1,2")
    parser.add_argument("--per-rate", type=int, default=24)
    args = parser.parse_args()
    client = engine_client()
    header = f"{'':<34}{'p50 ms':>9}{'p99 ms':>9}{'n':>6}"
    print("(a) start to first command\n" + header + "\n" + "-" * 60)
    runs = [docker_run(client) for _ in range(args.rounds)]
    print(row("docker run per episode", runs))
    colds = []
    for _ in range(args.rounds):
        took, s = first_command(Session)
        colds.append(took)
        s.close()
    print(row("cold Session() + first command", colds))
    warm = []
    for parallel in [int(p) for p in args.parallel_starts.split(",")]:
        with SessionPool(size=args.pool, idle_s=600, parallel_starts=parallel) as pool:
            for rate in [0.0 if r == "max" else float(r) for r in args.rates.split(",")]:
                pool.warm()
                times, cold, achieved = paced(pool, rate, args.per_rate)
                warm.append((rate, times))
                name = f"warm, {'max' if not rate else f'{rate:g}/s'}, {parallel} refill"
                print(row(name, times, f"cold {cold}, got {achieved:.2f}/s"))
            g = group(pool, args.pool)
            print(f"  a group of {args.pool} at once from the warm pool: {g * 1000:.0f} ms until all ran a command")
    print("\n(b) one command's round trip\n" + header + "\n" + "-" * 60)
    for line in round_trips(args.rounds):
        print(line)
    base = statistics.median(runs)
    best = statistics.median(warm[0][1])
    print(f"\nwarm pool at {warm[0][0]:g}/s (1 refill) vs docker run per episode, p50: {base / best:.1f}x faster")


if __name__ == "__main__":
    main()
