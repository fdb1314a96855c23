"""Benchmark: `LLMJudge` throughput against an OpenAI-compatible server with a fixed latency.

    python bench/judges.py [--latency 0.1] [--concurrency 1,2,4,8,16,32,64,128] [--calls 8] [--json]
    python bench/judges.py --against DIR [--rounds 2] ...   # this checkout vs the one in DIR, alternated

The server is ours, on 127.0.0.1, in its own process (asyncio, HTTP/1.1 keep-alive): every
request waits ``--latency`` seconds, then answers "VERDICT: CORRECT". At each concurrency c the
judge judges ``max(64, calls x c)`` distinct answers; the baseline, from the same run, is the
ideal rate c / latency (a judge that adds nothing). Goal: at least 0.8 of it. ``cpu ms`` is
this process's CPU time (user + system) per judged answer: the client's cost, the server's apart.
Then the cache: the same batch twice with ``cache_dir`` (the second pass makes no request).
``--against DIR``: the same table for this checkout's code and for DIR's (e.g. ``git archive main
| tar -x -C /tmp/before``), each run in a process of its own, alternated ``--rounds`` times
(``--tree DIR`` measures DIR's code with this script).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TREE = sys.argv[sys.argv.index("--tree") + 1] if "--tree" in sys.argv[:-1] else str(Path(__file__).resolve().parents[1])
sys.path.insert(0, TREE)  # the code measured: this checkout, or --tree's

from verifiers.judges import LLMJudge  # noqa: E402

REPLY = json.dumps(
    {
        "choices": [{"message": {"role": "assistant", "content": "VERDICT: CORRECT"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 4},
    }
).encode()


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, latency: float) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            await reader.readexactly(length)
            await asyncio.sleep(latency)
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(REPLY) + REPLY
            )
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


def serve(port: int, latency: float) -> None:
    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: _handle(r, w, latency), "127.0.0.1", port, backlog=1024)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_up(port: int) -> None:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the bench server did not start")


def cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def rate(url: str, concurrency: int, n: int, tag: str, cache_dir: str | None = None) -> tuple[float, int, float]:
    """(answers judged per second, calls made, this process's CPU ms per answer)."""
    judge = LLMJudge(base_url=url, model="bench", concurrency=concurrency, cache_dir=cache_dir, retries=0)
    answers = [f"{tag}-{k}" for k in range(n)]
    start, cpu = time.perf_counter(), cpu_s()
    results = judge.verify_many(["x"] * n, answers, prompts=["q"] * n)
    elapsed, cpu = time.perf_counter() - start, cpu_s() - cpu
    assert all(r.status == "correct" for r in results), {r.status for r in results}
    return n / elapsed, judge.usage.calls, cpu / n * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", default="1,2,4,8,16,32,64,128")
    parser.add_argument("--calls", type=int, default=8, help="answers per unit of concurrency")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--tree", default=None, help="measure the code of this checkout instead of this one's")
    parser.add_argument("--against", default=None, help="a checkout of the code to compare with, alternated")
    parser.add_argument("--rounds", type=int, default=2, help="with --against: alternations")
    args = parser.parse_args()
    if args.against:
        compare(args)
        return
    port = free_port()
    server = multiprocessing.get_context("spawn").Process(target=serve, args=(port, args.latency), daemon=True)
    server.start()
    rows: list[dict[str, Any]] = []
    try:
        wait_up(port)
        url = f"http://127.0.0.1:{port}/v1"
        rate(url, 4, 64, "warm")
        code = Path(sys.modules[LLMJudge.__module__].__file__ or "?").parents[2]
        print(f"latency {args.latency * 1000:.0f} ms; ideal = concurrency / latency; code: {code}")
        print(f"{'concurrency':>11} {'answers':>8} {'judged/s':>9} {'ideal/s':>8} {'ratio':>6} {'cpu ms':>7}")
        for c in (int(x) for x in args.concurrency.split(",")):
            n = max(64, args.calls * c)
            got, _, cpu = rate(url, c, n, f"c{c}")
            ideal = c / args.latency
            rows.append({"concurrency": c, "answers": n, "rate": got, "ideal": ideal, "ratio": got / ideal, "cpu": cpu})
            print(f"{c:>11} {n:>8} {got:>9.1f} {ideal:>8.1f} {got / ideal:>6.2f} {cpu:>7.3f}")
        with tempfile.TemporaryDirectory() as cache:
            first, calls1, _ = rate(url, 64, 512, "cache", cache)
            second, calls2, _ = rate(url, 64, 512, "cache", cache)
        print(f"cache: first pass {first:.1f}/s ({calls1} calls), second pass {second:.1f}/s ({calls2} calls), "
              f"{second / first:.1f}x")  # fmt: skip
        rows.append({"cache_first": first, "cache_second": second, "calls_first": calls1, "calls_second": calls2})
    finally:
        server.terminate()
        server.join()
    if args.json:
        print(json.dumps(rows))


def compare(args: argparse.Namespace) -> None:
    """This checkout's table and ``args.against``'s, each in a process of its own, alternated."""
    trees = {"before": str(Path(args.against).resolve()), "after": TREE}
    flags = ["--latency", str(args.latency), "--concurrency", args.concurrency, "--calls", str(args.calls), "--json"]
    runs: dict[str, list[list[dict[str, Any]]]] = {"before": [], "after": []}
    for k in range(args.rounds):
        for side in ("before", "after") if k % 2 == 0 else ("after", "before"):
            command = [sys.executable, __file__, "--tree", trees[side], *flags]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{side} failed:\n{done.stderr[-2000:]}")
            runs[side].append(json.loads(done.stdout.strip().splitlines()[-1])[:-1])
            print(f"round {k + 1}: {side} done", flush=True)
    print(f"median of {args.rounds} alternated runs; ratio: judged/s over concurrency / latency")
    print(f"{'concurrency':>11} {'ratio before':>13} {'ratio after':>12} {'cpu ms before':>14} {'cpu ms after':>13}")
    for j, row in enumerate(runs["after"][0]):
        med = {side: [statistics.median(r[j][key] for r in runs[side]) for key in ("ratio", "cpu")] for side in runs}
        b, a = med["before"], med["after"]
        print(f"{row['concurrency']:>11} {b[0]:>13.2f} {a[0]:>12.2f} {b[1]:>14.3f} {a[1]:>13.3f}")


if __name__ == "__main__":
    main()
