"""Benchmark: `LLMJudge` throughput against an OpenAI-compatible server with a fixed latency.

    python bench/judges.py [--latency 0.1] [--concurrency 1,2,4,8,16,32,64,128] [--calls 8] [--json]

The server is ours, on 127.0.0.1, in its own process (asyncio, HTTP/1.1 keep-alive): every
request waits ``--latency`` seconds, then answers "VERDICT: CORRECT". At each concurrency c the
judge judges ``max(64, calls x c)`` distinct answers; the baseline, from the same run, is the
ideal rate c / latency (a judge that adds nothing). Goal: at least 0.8 of it. Then the cache:
the same batch twice with ``cache_dir`` (the second pass makes no request).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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


def rate(url: str, concurrency: int, n: int, tag: str, cache_dir: str | None = None) -> tuple[float, int]:
    judge = LLMJudge(base_url=url, model="bench", concurrency=concurrency, cache_dir=cache_dir, retries=0)
    answers = [f"{tag}-{k}" for k in range(n)]
    start = time.perf_counter()
    results = judge.verify_many(["x"] * n, answers, prompts=["q"] * n)
    elapsed = time.perf_counter() - start
    assert all(r.status == "correct" for r in results), {r.status for r in results}
    return n / elapsed, judge.usage.calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", default="1,2,4,8,16,32,64,128")
    parser.add_argument("--calls", type=int, default=8, help="answers per unit of concurrency")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    port = free_port()
    server = multiprocessing.get_context("spawn").Process(target=serve, args=(port, args.latency), daemon=True)
    server.start()
    rows: list[dict[str, Any]] = []
    try:
        wait_up(port)
        url = f"http://127.0.0.1:{port}/v1"
        rate(url, 4, 16, "warm")
        print(f"latency {args.latency * 1000:.0f} ms; ideal = concurrency / latency")
        print(f"{'concurrency':>11} {'answers':>8} {'judged/s':>9} {'ideal/s':>8} {'ratio':>6}")
        for c in (int(x) for x in args.concurrency.split(",")):
            n = max(64, args.calls * c)
            got, _ = rate(url, c, n, f"c{c}")
            ideal = c / args.latency
            rows.append({"concurrency": c, "answers": n, "rate": got, "ideal": ideal, "ratio": got / ideal})
            print(f"{c:>11} {n:>8} {got:>9.1f} {ideal:>8.1f} {got / ideal:>6.2f}")
        with tempfile.TemporaryDirectory() as cache:
            first, calls1 = rate(url, 64, 512, "cache", cache)
            second, calls2 = rate(url, 64, 512, "cache", cache)
        print(f"cache: first pass {first:.1f}/s ({calls1} calls), second pass {second:.1f}/s ({calls2} calls), "
              f"{second / first:.1f}x")  # fmt: skip
        rows.append({"cache_first": first, "cache_second": second, "calls_first": calls1, "calls_second": calls2})
    finally:
        server.terminate()
        server.join()
    if args.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
