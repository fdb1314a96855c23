"""One call's items, cut into chunks and spread over actors: results in input order, a chunk
whose actor fails retried once on another actor, nothing waited for past the deadline.

Ray-free: the executor hands in a `Backend` (submit, wait, fetch, cancel), so the rules are
tested with a fake one (tests/verifiers/test_executors.py) as well as on a real cluster.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from verifiers.result import VerifyResult

__all__ = ["Backend", "ChunkLost", "Dispatched", "dispatch"]


class ChunkLost(Exception):
    """A chunk came back without verdicts (``actor_died``: its actor is gone for good)."""

    def __init__(self, message: str, *, actor_died: bool) -> None:
        super().__init__(message)
        self.actor_died = actor_died


class Backend(Protocol):
    """What `dispatch` needs from an executor; actors are ids, refs are opaque and hashable."""

    def submit(self, actor: int, start: int, stop: int) -> Hashable: ...

    def wait(self, pending: Sequence[Hashable], timeout_s: float) -> Sequence[Hashable]: ...

    def fetch(self, ref: Hashable) -> list[VerifyResult]: ...

    def cancel(self, ref: Hashable) -> None: ...


@dataclass
class _Chunk:
    start: int
    stop: int
    failed_on: list[int] = field(default_factory=list)


@dataclass
class Dispatched:
    """What `dispatch` returns: the verdicts in order, and what it left behind."""

    results: list[VerifyResult]
    dead: set[int]  # actors that died during the call
    abandoned: dict[int, list[Hashable]]  # per actor: refs still running at the deadline
    chunks_done: dict[int, int]  # per actor


def chunk_size(n: int, actors: int, most: int, depth: int) -> int:
    """Chunks small enough that every actor gets ``depth`` of them, at most ``most`` items."""
    return max(1, min(most, math.ceil(n / max(1, actors * depth))))


def error_result(cause: str) -> VerifyResult:
    return VerifyResult.judged("error", f"Not judged: the executor lost this item twice ({cause}).")


def timeout_result(timeout_s: float) -> VerifyResult:
    return VerifyResult.judged("timeout", f"No verdict within the executor's timeout of {timeout_s:g} s.")


class _Call:
    """The state of one `dispatch`: queued chunks, chunks in flight, the verdicts so far."""

    def __init__(self, backend: Backend, actors: Sequence[int], n: int, size: int, depth: int) -> None:
        self.backend = backend
        self.depth = depth
        self.alive = list(actors)
        self.load = {a: 0 for a in actors}
        self.queue = deque(_Chunk(a, min(a + size, n)) for a in range(0, n, size))
        self.inflight: dict[Hashable, tuple[_Chunk, int]] = {}
        self.results: list[VerifyResult | None] = [None] * n
        self.dead: set[int] = set()
        self.done = {a: 0 for a in actors}

    def fail(self, chunk: _Chunk, result: VerifyResult) -> None:
        self.results[chunk.start : chunk.stop] = [result] * (chunk.stop - chunk.start)

    def assign(self) -> None:
        """Give queued chunks to the least-loaded eligible actors; fail those with none left."""
        waiting: deque[_Chunk] = deque()
        while self.queue:
            chunk = self.queue.popleft()
            eligible = [a for a in self.alive if a not in chunk.failed_on]
            if not eligible:
                self.fail(chunk, error_result("its actor failed and no other actor of this kind is left"))
                continue
            actor = min(eligible, key=lambda a: self.load[a])
            if self.load[actor] >= self.depth:
                waiting.append(chunk)
                continue
            try:
                ref = self.backend.submit(actor, chunk.start, chunk.stop)
            except ChunkLost as lost:
                self.lost(chunk, actor, lost)
                continue
            self.inflight[ref] = (chunk, actor)
            self.load[actor] += 1
        self.queue = waiting

    def lost(self, chunk: _Chunk, actor: int, lost: ChunkLost) -> None:
        if lost.actor_died and actor in self.alive:
            self.alive.remove(actor)
            self.dead.add(actor)
        if chunk.failed_on:
            self.fail(chunk, error_result(str(lost)))
        else:
            chunk.failed_on.append(actor)
            self.queue.appendleft(chunk)

    def collect(self, ref: Hashable) -> None:
        chunk, actor = self.inflight.pop(ref)
        self.load[actor] -= 1
        try:
            out = self.backend.fetch(ref)
            if len(out) != chunk.stop - chunk.start:
                raise ChunkLost(f"{len(out)} verdicts for {chunk.stop - chunk.start} items", actor_died=False)
        except ChunkLost as lost:
            self.lost(chunk, actor, lost)
            return
        self.results[chunk.start : chunk.stop] = out
        self.done[actor] += 1


def dispatch(
    backend: Backend,
    actors: Sequence[int],
    n: int,
    *,
    most_per_chunk: int,
    depth: int,
    timeout_s: float,
    clock: Callable[[], float] = time.monotonic,
) -> Dispatched:
    """Judge items ``0..n-1`` on ``actors`` (at most ``depth`` chunks in flight on each).

    A chunk whose actor dies or fails is retried once on another actor, then its items are
    status "error"; items without a verdict ``timeout_s`` after the start are status
    "timeout" (their refs are cancelled and reported in ``abandoned``).
    """
    deadline = clock() + timeout_s
    call = _Call(backend, actors, n, chunk_size(n, len(actors), most_per_chunk, depth), depth)
    while True:
        call.assign()
        if not call.inflight or clock() >= deadline:
            break
        for ref in backend.wait(list(call.inflight), max(0.0, deadline - clock())):
            call.collect(ref)
    abandoned: dict[int, list[Hashable]] = {}
    for ref, (chunk, actor) in call.inflight.items():
        backend.cancel(ref)
        abandoned.setdefault(actor, []).append(ref)
        call.fail(chunk, timeout_result(timeout_s))
    for chunk in call.queue:
        call.fail(chunk, timeout_result(timeout_s))
    results = [r if r is not None else timeout_result(timeout_s) for r in call.results]
    return Dispatched(results, call.dead, abandoned, call.done)
