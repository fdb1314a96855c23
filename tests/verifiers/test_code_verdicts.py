"""Verdicts that do not depend on load, and nothing left behind (issue: verifiers.code, control
flow and the test's classes): hostile and handles programs in every test format, each judged
several times alone and beside busy loops, get the same verdict (and a reason naming the limit
they hit) every time; every container a run creates is gone when it ends, also after timeouts,
a killed worker or an exception in the tester."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from verifiers import code as vc
from verifiers.sandbox import DockerSandbox, engine_client
from verifiers.sandbox._host.container import LABEL, Container, ContainerGone

sys.path.insert(0, str(Path(__file__).parent))
from judging import fenced  # noqa: E402

pytestmark = pytest.mark.docker

LIST = "class ListNode:\n    def __init__(self, val=0, next=None):\n        self.val, self.next = val, next\n"
VALUES = "def values(head, n):\n    out = []\n    while head and len(out) < n:\n        out.append(head.val)\n        head = head.next\n    return out\n"
EATER = "def grow():\n    chunks = []\n    while True:\n        chunks.append(bytearray(1 << 20))\n\n"
ROW = {
    "prompt": "from typing import *\n",
    "test": "def check(candidate):\n    assert candidate(3) == 3\n",
    "entry_point": "Solution().f",
}
# Ten million nodes behind a right-looking prefix: past the program's memory, every time.
NODES = (
    "class Node:\n    def __init__(self, val, nxt):\n        self.val, self.nxt = val, nxt\n\n"
    "def chain(n):\n    head = None\n    for i in range(10_000_000, n, -1):\n        head = Node(i, head)\n"
    "    for i in reversed(range(n)):\n        head = Node(i, head)\n    return head\n"
)
BIG = (
    LIST
    + "def big():\n    head = None\n    for i in range(150_000):\n        head = ListNode(i, head)\n    return head\n"
)
QUEUE = (
    "class Q:\n    def __init__(self):\n        self.items = []\n    def push(self, x):\n        self.items.append(x)\n"
    "    def pop(self):\n        return self.items.pop(0)\n    def __len__(self):\n        return len(self.items)\n"
)
SIEVE = (
    "def count_primes(n):\n    sieve = bytearray([1]) * (n + 1)\n    sieve[0:2] = b'\\x00\\x00'\n"
    "    for i in range(2, int(n ** 0.5) + 1):\n        if sieve[i]:\n"
    "            sieve[i * i :: i] = bytes(len(range(i * i, n + 1, i)))\n"
    "    return sum(1 for _ in range(3) for x in sieve if x) // 3\n"
)
# (name, tests, program, "correct" or a part of the reason it must fail with)
CASES: list[tuple[str, Any, str, str]] = [
    # memory exhaustion, every format (and caught by the test: it fails all the same)
    ("memory, asserts", {"asserts": "assert f(3) == 3", "entry_point": "f"}, EATER + "def f(x):\n    grow()\n", "memory limit (the program ran out of memory (its limit is 256 MB))"),
    ("memory, fn_name", {"fn_name": "f", "inputs": [[3]], "outputs": [3]}, EATER + "def f(x):\n    grow()\n", "256 MB"),
    ("memory, pytest", "from solution import f\n\ndef test_f():\n    assert f(3) == 3\n", EATER + "def f(x):\n    grow()\n", "256 MB"),
    ("memory, leetcode row", vc.tests_from_row(ROW, style="leetcode"), EATER + "class Solution:\n    def f(self, x):\n        grow()\n", "256 MB"),
    ("memory, caught", {"asserts": "try:\n    f(3)\nexcept MemoryError:\n    pass\nassert True", "entry_point": "f"}, EATER + "def f(x):\n    grow()\n", "256 MB"),
    ("memory, ten million nodes", {"asserts": "h = chain(3)\nassert (h.val, h.nxt.val, h.nxt.nxt.val) == (0, 1, 2)"}, NODES, "256 MB"),
    ("memory, stdin", {"stdin_stdout": [{"input": "1\n", "output": "1\n"}]}, EATER + "grow()\n", "256 MB"),
    # answers over the caps on what crosses
    ("objects cap, asserts", {"asserts": LIST + VALUES + "assert values(big(), 1) == [149999]"}, BIG, "more than 100000 objects"),
    ("objects cap, pytest", "from solution import big\n" + LIST + VALUES + "def test_big():\n    assert values(big(), 1) == [149999]\n", BIG, "more than 100000 objects"),
    ("bytes cap, fn_name", {"fn_name": "f", "inputs": [[1]], "outputs": ["x"]}, "def f(n):\n    return 'x' * (9 << 20)\n", "larger than 8 MiB"),
    ("bytes cap, asserts", {"asserts": "assert len(f(1)) > 0", "entry_point": "f"}, "def f(n):\n    return 'x' * (9 << 20)\n", "larger than 8 MiB"),
    ("bytes cap, leetcode row", vc.tests_from_row(ROW, style="leetcode"), "class Solution:\n    def f(self, n):\n        return 'x' * (9 << 20)\n", "larger than 8 MiB"),
    # other hostile programs
    ("exits, asserts", {"asserts": "assert f(1) == 1", "entry_point": "f"}, "import os\n\ndef f(x):\n    os._exit(0)\n", "the program exited"),
    ("stops iterations, asserts", {"asserts": "assert all(map(f, [1, 2]))", "entry_point": "f"}, "def f(x):\n    raise StopIteration\n", "PEP 479"),
    # right programs: handles, linked structures, the test's classes, some work
    ("handles, pytest", "from solution import Q\n\ndef test_q():\n    q = Q()\n    for i in range(100):\n        q.push(i)\n    assert len(q) == 100 and [q.pop() for _ in range(3)] == [0, 1, 2]\n", QUEUE, "correct"),
    ("handles, generator", {"asserts": "g = gen(2)\nassert [next(g), next(g)] == [0, 1]\ntry:\n    next(g)\n    raise AssertionError('no end')\nexcept StopIteration:\n    pass"}, "def gen(n):\n    yield from range(n)\n", "correct"),
    ("the test's class, asserts", {"asserts": LIST + VALUES + "assert values(mk([1, 2]), 5) == [1, 2]"}, "def mk(xs: list) -> ListNode:\n    head = None\n    for x in reversed(xs):\n        head = ListNode(x, head)\n    return head\n", "correct"),
    ("work, fn_name", {"fn_name": "count_primes", "inputs": [[300_000]], "outputs": [25997]}, SIEVE, "correct"),
    ("work, asserts", {"asserts": "assert count_primes(300_000) == 25997"}, SIEVE, "correct"),
]  # fmt: skip
SPIN = "def f(x):\n    while True:\n        pass\n"
SPINS: list[tuple[str, Any, str, str]] = [
    ("spins, asserts", {"asserts": "assert f(1) == 1", "entry_point": "f"}, SPIN, "time limit"),
    ("spins, fn_name", {"fn_name": "f", "inputs": [[1]], "outputs": [1]}, SPIN, "time limit"),
    ("spins, stdin", {"stdin_stdout": [{"input": "", "output": "1\n"}]}, "while True:\n    pass\n", "time limit"),
]


def verdicts(box: DockerSandbox, cases: list[tuple[str, Any, str, str]], timeout_s: float) -> dict[str, str]:
    """Each case's verdict: "as expected" or what it got instead."""
    suites = [tests if isinstance(tests, dict) else {"pytest": tests} for _, tests, _, _ in cases]
    results = vc.verify_many(suites, [fenced(p) for _, _, p, _ in cases], sandbox=box, timeout_s=timeout_s)
    out = {}
    for (name, _, _, want), r in zip(cases, results, strict=True):
        right = r.correct if want == "correct" else (r.status == "incorrect" and want in r.reason)
        out[name] = "as expected" if right else f"{r.status}: {r.reason[:160]}"
    return out


@contextmanager
def busy_loops(n: int) -> Iterator[None]:
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def pool_containers(box: DockerSandbox) -> list[Any]:
    client = engine_client()
    try:
        return list(client.containers.list(all=True, sparse=True, filters={"label": f"{LABEL}={box.pool_id}"}))
    finally:
        client.close()


@pytest.mark.slow
def test_the_same_verdict_alone_and_beside_busy_loops() -> None:
    with DockerSandbox(size=2, memory_mb=256) as box:
        for loops in (0, 0, 1, 1):
            with busy_loops(loops):
                got = verdicts(box, CASES, timeout_s=20)
                got.update(verdicts(box, SPINS, timeout_s=0.5))
            assert {n: v for n, v in got.items() if v != "as expected"} == {}, f"beside {loops} busy loop(s)"


@pytest.mark.serial  # the replacements' start has a 60 s bound: beside busy test processes it once took longer
def test_hostile_runs_leave_only_the_pools_containers_and_none_after_close() -> None:
    with DockerSandbox(size=2, memory_mb=256) as box:
        assert len(pool_containers(box)) == 2
        hostile = [c for c in CASES if c[0] in ("memory, asserts", "bytes cap, fn_name", "exits, asserts")] + SPINS
        suites = [tests if isinstance(tests, dict) else {"pytest": tests} for _, tests, _, _ in hostile]
        results = vc.verify_many(suites, [fenced(p) for _, _, p, _ in hostile], sandbox=box, timeout_s=1)
        assert [r.status for r in results] == ["incorrect"] * len(hostile)
        deadline = time.monotonic() + 60  # the recycled ones' replacements start in the background
        while len(pool_containers(box)) != 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(pool_containers(box)) == 2
    assert pool_containers(box) == []


def test_an_exception_or_a_lost_container_mid_job_retires_it(monkeypatch: pytest.MonkeyPatch) -> None:
    with DockerSandbox(size=1) as box:
        (first,) = pool_containers(box)
        real = Container.request

        def interrupted(self: Container, msg: dict[str, Any], *, timeout_s: float) -> dict[str, Any]:
            if msg.get("op") == "run":
                real(self, {"op": "ping"}, timeout_s=5)
                raise KeyboardInterrupt  # as if the caller were interrupted while the job ran
            return real(self, msg, timeout_s=timeout_s)

        monkeypatch.setattr(Container, "request", interrupted)
        with pytest.raises(KeyboardInterrupt):
            box.run("print(1)")
        monkeypatch.setattr(Container, "request", real)
        assert box.run("print(2)").stdout == "2\n"  # the pool is whole: a fresh container
        ids = {c.id for c in pool_containers(box)}
        assert first.id not in ids and len(ids) == 1

        def lost(self: Container, msg: dict[str, Any], *, timeout_s: float) -> dict[str, Any]:
            if msg.get("op") == "ping":  # a new container starts as usual
                return real(self, msg, timeout_s=timeout_s)
            raise ContainerGone("the supervisor did not answer in time")

        monkeypatch.setattr(Container, "request", lost)
        assert box.run("print(3)").error is not None  # twice: an error verdict, never a crash
        monkeypatch.setattr(Container, "request", real)
        assert box.run("print(4)").stdout == "4\n"
        deadline = time.monotonic() + 60
        while len(pool_containers(box)) != 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(pool_containers(box)) == 1
    assert pool_containers(box) == []


KILLED = """import sys
from verifiers import code as vc
from verifiers.sandbox import DockerSandbox

box = DockerSandbox(size=2)
print(box.pool_id, flush=True)
vc.verify({"asserts": "assert f(1) == 1", "entry_point": "f"}, "def f(x):\\n    while True:\\n        pass\\n",
          sandbox=box, timeout_s=60)
"""


def test_a_killed_worker_leaves_no_container() -> None:
    """The pool's process is killed mid-job (no close, no atexit): its containers go by themselves."""
    worker = subprocess.Popen([sys.executable, "-c", KILLED], stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout is not None
        pool = worker.stdout.readline().strip()
        client = engine_client()
        mine = {"label": f"{LABEL}={pool}"}
        assert len(client.containers.list(all=True, sparse=True, filters=mine)) == 2
        time.sleep(1)  # the spin is running
    finally:
        worker.kill()
        worker.wait()
        if worker.stdout is not None:
            worker.stdout.close()
    killed = time.monotonic()
    while client.containers.list(all=True, sparse=True, filters=mine) and time.monotonic() - killed < 30:
        time.sleep(0.2)
    took = time.monotonic() - killed
    assert client.containers.list(all=True, sparse=True, filters=mine) == []
    client.close()
    assert took < 15, f"the containers outlived their process by {took:.1f} s"


def test_no_verdict_depends_on_hash_order_or_chance() -> None:
    """Every container and job has the same hash seed and random seed."""
    program = "import random\nprint(list({'apple', 'kiwi', 'plum', 'fig', 'pear'}), random.random(), hash('abc'))"
    outputs = set()
    for _ in range(2):
        with DockerSandbox(size=1) as box:
            outputs.add(box.run(program).stdout)
            outputs.add(box.run(program).stdout)
    assert len(outputs) == 1, outputs
