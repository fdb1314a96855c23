"""One call's items, cut into chunks and spread over actors: results in input order, a chunk
whose actor fails retried once on another actor, a straggler's chunk sent again to an idle
actor (first answer wins), nothing waited for past the deadline.

Ray-free: the executor hands in a `Backend` (submit, wait, fetch, cancel), so the rules are
tested with a fake one (tests/verifiers/test_executors.py) as well as on a real cluster.
"""

from __future__ import annotations

import math
import statistics
import time
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from verifiers.result import VerifyResult

__all__ = ["Backend", "ChunkLost", "Dispatched", "dispatch"]

HEDGE_MIN_S = 1.0
"""A chunk is never sent again sooner than this after it went out (see `dispatch`'s ``hedge``)."""


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
    copies: dict[Hashable, int] = field(default_factory=dict)  # refs in flight -> their actor
    sent_at: float = 0.0  # when its first copy in flight went out
    hedged: bool = False  # sent again to another actor once already
    done: bool = False


@dataclass
class Dispatched:
    """What `dispatch` returns: the verdicts in order, and what it left behind."""

    results: list[VerifyResult]
    dead: set[int]  # actors that died during the call
    abandoned: dict[int, list[Hashable]]  # per actor: refs still running (deadline, or a copy lost the race)
    chunks_done: dict[int, int]  # per actor
    hedged: int = 0  # chunks sent again to a second actor because the first was slow


def chunk_size(n: int, actors: int, most: int, depth: int) -> int:
    """Chunks small enough that every actor gets ``depth`` of them, at most ``most`` items."""
    return max(1, min(most, math.ceil(n / max(1, actors * depth))))


def error_result(cause: str) -> VerifyResult:
    return VerifyResult.judged("error", f"Not judged: the executor lost this item twice ({cause}).")


def timeout_result(timeout_s: float) -> VerifyResult:
    return VerifyResult.judged("timeout", f"No verdict within the executor's timeout of {timeout_s:g} s.")


class _Call:
    """The state of one `dispatch`: queued chunks, chunks in flight, the verdicts so far."""

    def __init__(
        self, backend: Backend, actors: Sequence[int], n: int, size: int, depth: int, clock: Callable[[], float]
    ) -> None:
        self.backend = backend
        self.depth = depth
        self.clock = clock
        self.alive = list(actors)
        self.load = {a: 0 for a in actors}  # refs in flight, and copies that lost a race (still busy)
        self.queue = deque(_Chunk(a, min(a + size, n)) for a in range(0, n, size))
        self.inflight: dict[Hashable, tuple[_Chunk, int, float]] = {}  # ref -> chunk, actor, sent at
        self.results: list[VerifyResult | None] = [None] * n
        self.dead: set[int] = set()
        self.done = {a: 0 for a in actors}
        self.durations: list[float] = []  # of the chunks answered so far
        self.superseded: dict[int, list[Hashable]] = {}
        self.hedged = 0

    def fail(self, chunk: _Chunk, result: VerifyResult) -> None:
        self.results[chunk.start : chunk.stop] = [result] * (chunk.stop - chunk.start)
        chunk.done = True

    def _send(self, chunk: _Chunk, actor: int) -> bool:
        """Submit ``chunk`` to ``actor``; False (and the loss recorded) when that fails at once."""
        try:
            ref = self.backend.submit(actor, chunk.start, chunk.stop)
        except ChunkLost as lost:
            self.lost(chunk, actor, lost)
            return False
        now = self.clock()
        if not chunk.copies:
            chunk.sent_at = now
        chunk.copies[ref] = actor
        self.inflight[ref] = (chunk, actor, now)
        self.load[actor] += 1
        return True

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
            self._send(chunk, actor)
        self.queue = waiting

    def lost(self, chunk: _Chunk, actor: int, lost: ChunkLost) -> None:
        if lost.actor_died and actor in self.alive:
            self.alive.remove(actor)
            self.dead.add(actor)
        if chunk.copies:  # another copy is still out: it decides
            chunk.failed_on.append(actor)
        elif chunk.failed_on:
            self.fail(chunk, error_result(str(lost)))
        else:
            chunk.failed_on.append(actor)
            self.queue.appendleft(chunk)

    def collect(self, ref: Hashable) -> None:
        chunk, actor, sent = self.inflight.pop(ref)
        del chunk.copies[ref]
        self.load[actor] -= 1
        try:
            out = self.backend.fetch(ref)
            if len(out) != chunk.stop - chunk.start:
                raise ChunkLost(f"{len(out)} verdicts for {chunk.stop - chunk.start} items", actor_died=False)
        except ChunkLost as lost:
            self.lost(chunk, actor, lost)
            return
        self.results[chunk.start : chunk.stop] = out
        chunk.done = True
        self.done[actor] += 1
        self.durations.append(self.clock() - sent)
        for other in list(chunk.copies):  # the slower copy: cancelled, its actor counted busy
            _, slow, _ = self.inflight.pop(other)
            self.backend.cancel(other)
            self.superseded.setdefault(slow, []).append(other)
        chunk.copies.clear()

    # -- stragglers ----------------------------------------------------------------------------
    def _hedge_target(self, chunk: _Chunk) -> int | None:
        free = [
            a
            for a in self.alive
            if self.load[a] < self.depth and a not in chunk.failed_on and a not in chunk.copies.values()
        ]
        return min(free, key=lambda a: self.load[a]) if free else None

    def hedge(self, factor: float) -> float | None:
        """Send the chunks out for longer than ``factor`` times the call's median chunk time (at
        least `HEDGE_MIN_S`) again, each once, to an idle actor, while nothing else waits to go
        out. Returns when the next chunk becomes due (None: none can be)."""
        if factor <= 0 or self.queue:
            return None
        median = statistics.median(self.durations) if self.durations else HEDGE_MIN_S
        after = max(HEDGE_MIN_S, factor * median)
        now, due = self.clock(), None
        chunks = {id(c): c for c, _, _ in self.inflight.values()}.values()
        for chunk in sorted(chunks, key=lambda c: c.sent_at):
            target = None if chunk.hedged else self._hedge_target(chunk)
            if target is None:
                continue
            if now - chunk.sent_at < after:
                due = chunk.sent_at + after if due is None else min(due, chunk.sent_at + after)
                continue
            chunk.hedged = True
            if self._send(chunk, target):
                self.hedged += 1
        return due


def dispatch(
    backend: Backend,
    actors: Sequence[int],
    n: int,
    *,
    most_per_chunk: int,
    depth: int,
    timeout_s: float,
    hedge: float = 0.0,
    clock: Callable[[], float] = time.monotonic,
) -> Dispatched:
    """Judge items ``0..n-1`` on ``actors`` (at most ``depth`` chunks in flight on each).

    A chunk whose actor dies or fails is retried once on another actor, then its items are
    status "error"; items without a verdict ``timeout_s`` after the start are status
    "timeout" (their refs are cancelled and reported in ``abandoned``). With ``hedge > 0``,
    once every chunk is out, a chunk out for ``hedge`` times the call's median chunk time (at
    least `HEDGE_MIN_S`; ``hedge`` times that before any chunk is back) goes to an idle actor
    too, once: the first answer wins, the other copy is cancelled and its actor gets no more
    of this call's work.
    """
    deadline = clock() + timeout_s
    call = _Call(backend, actors, n, chunk_size(n, len(actors), most_per_chunk, depth), depth, clock)
    while True:
        call.assign()
        due = call.hedge(hedge)
        if not call.inflight or clock() >= deadline:
            break
        until = deadline if due is None else min(deadline, due)
        for ref in backend.wait(list(call.inflight), max(0.0, until - clock())):
            call.collect(ref)
    abandoned = {a: list(refs) for a, refs in call.superseded.items()}
    for ref, (chunk, actor, _) in call.inflight.items():
        backend.cancel(ref)
        abandoned.setdefault(actor, []).append(ref)
        if not chunk.done:
            call.fail(chunk, timeout_result(timeout_s))
    for chunk in call.queue:
        call.fail(chunk, timeout_result(timeout_s))
    results = [r if r is not None else timeout_result(timeout_s) for r in call.results]
    return Dispatched(results, call.dead, abandoned, call.done, call.hedged)
