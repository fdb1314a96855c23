"""One supervisor for long-lived workers: worker processes on this machine and Ray actors.

The math worker pool (`verifiers._pool`), the executors' actors (`verifiers.executors._fleet`)
and the trainer's rollout workers (processes or actors) start, replace and stop their workers
here; each says only how one of its workers starts and stops. Small pieces, composed:

- `Supervisor`: the live workers by key; ``start``, ``restart`` (stop the old one, count the
  failure, start a fresh one), ``stop``, ``close`` (every worker it started, its spares too).
- `RestartLimit`: how many times in a row one key may fail before the owner gives up (a worker
  that dies again and again stops the run instead of spinning).
- `Backoff`: a start that failed is not tried again for a while (a node without an engine).
- `Spares`: warm workers started ahead, so a replacement costs no process start (the math
  pool's one spare; the sandbox's `SessionPool`, G warm session containers per image).
- `WorkerProcess`: ``python -m MODULE FD ...``, a plain child process with a pipe (never
  multiprocessing's spawn, which re-imports the caller's ``__main__``); `kill_actor` for Ray.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

from verifiers.errors import VerifiersError

__all__ = ["Backoff", "RestartLimit", "Spares", "Supervisor", "WorkerProcess", "kill_actor"]

log = logging.getLogger("verifiers.supervisor")

K = TypeVar("K", bound=Hashable)
W = TypeVar("W")


class WorkerProcess:
    """``python -m module FD *args``: a child process holding one end of a socket pair (its
    death is an EOF on ``conn``), with ``env`` added to this process's environment.

    Examples:
        >>> worker = WorkerProcess("verifiers._pool", env={"PYTHONHASHSEED": "0"})
        >>> worker.conn.recv()
        ('ready', None)
        >>> worker.kill()
        -9
    """

    def __init__(self, module: str, args: Sequence[str] = (), *, env: Mapping[str, str] | None = None) -> None:
        ours, theirs = socket.socketpair()
        fd = theirs.fileno()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, str(fd), *args],
            pass_fds=(fd,),
            stdin=subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
        )
        theirs.close()  # the worker holds the only other end
        self.conn = Connection(ours.detach())

    @property
    def pid(self) -> int:
        return self.proc.pid

    def kill(self) -> int:
        """Kill it now; its exit code."""
        self.proc.kill()
        code = self.proc.wait(timeout=5)
        self.conn.close()
        return code

    def reap(self, timeout_s: float = 30.0) -> int:
        """Wait for a worker that ended (its pipe closed); its exit code."""
        self.conn.close()
        return self.proc.wait(timeout=timeout_s)

    def ask_to_stop(self) -> None:
        """Send ``None``: the worker's loop ends on it."""
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass

    @staticmethod
    def stop_all(workers: Iterable[WorkerProcess], timeout_s: float = 10.0) -> None:
        """Ask every worker to stop, then wait for each (killing the ones that do not end)."""
        workers = list(workers)
        for worker in workers:
            worker.ask_to_stop()
        for worker in workers:
            worker.wait_or_kill(timeout_s)

    def wait_or_kill(self, timeout_s: float = 10.0) -> None:
        """Wait for it to end (after `ask_to_stop`), else kill it."""
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=timeout_s)
        self.conn.close()


def kill_actor(ray: Any, handle: Any) -> None:
    """Kill a Ray actor for good (no restart); one already gone is not an error."""
    try:
        ray.kill(handle, no_restart=True)
    except Exception as exc:  # gone already
        log.debug("ray.kill failed: %s", exc)


class RestartLimit:
    """Failures in a row per key; more than ``most`` raises what ``give_up(key, failures, how)``
    makes (the owner's own error). `succeeded` starts the count again."""

    def __init__(self, most: int, give_up: Callable[[Hashable, int, str], BaseException]) -> None:
        self.most, self.give_up = most, give_up
        self._failures: dict[Hashable, int] = {}

    def failed(self, key: Hashable, how: str) -> int:
        self._failures[key] = failures = self._failures.get(key, 0) + 1
        if failures > self.most:
            raise self.give_up(key, failures, how)
        return failures

    def succeeded(self, key: Hashable) -> None:
        self._failures[key] = 0


class Backoff:
    """After a failed start, a key waits ``after_s`` before it is started again."""

    def __init__(self, after_s: float) -> None:
        self.after_s = after_s
        self._until: dict[Hashable, float] = {}

    def hold(self, key: Hashable) -> None:
        self._until[key] = time.monotonic() + self.after_s

    def ready(self, key: Hashable, now: float | None = None) -> bool:
        return self._until.get(key, 0.0) <= (time.monotonic() if now is None else now)


class Spares(Generic[W]):
    """Up to ``size`` warm workers started ahead in the background (`refill`), handed out by `take`.

    ``starts`` (a semaphore, shared by several `Spares` if they should queue together) bounds
    how many starts run at once; `trim` stops the idle ones (an owner shrinking what went unused,
    see `idle_for`). A start that fails is logged; the next `take` then finds none.

    Examples:
        >>> spares = Spares(iter(range(100)).__next__, lambda w: None, size=2)
        >>> spares.refill(); spares.take(5.0) is not None
        True
        >>> spares.close(); spares.take(0.0) is None
        True
    """

    def __init__(
        self,
        start: Callable[[], W],
        stop: Callable[[W], Any],
        *,
        size: int = 1,
        starts: threading.Semaphore | None = None,
    ) -> None:
        self._start, self._stop, self.size = start, stop, size
        self._starts = starts
        self._cond = threading.Condition()
        self._waiting: list[W] = []
        self._starting = 0
        self._closed = False
        self._used = time.monotonic()

    @property
    def waiting(self) -> list[W]:
        """The warm workers waiting now (a copy)."""
        with self._cond:
            return list(self._waiting)

    def idle_for(self, now: float | None = None) -> float:
        """Seconds since a worker was last taken, or last landed."""
        return (time.monotonic() if now is None else now) - self._used

    def touch(self) -> None:
        """Count now as a use (an owner about to `take`: `trim` waits for ``idle_for`` again)."""
        with self._cond:
            self._used = time.monotonic()

    def refill(self) -> None:
        """Start the missing workers in the background, up to ``size`` waiting or starting (none after `close`)."""
        with self._cond:
            missing = self.size - len(self._waiting) - self._starting
            if self._closed or missing <= 0:
                return
            self._starting += missing
        for _ in range(missing):
            threading.Thread(target=self._start_one, name="verifiers-spare-worker", daemon=True).start()

    def _start_one(self) -> None:
        spare: W | None = None
        try:
            if self._starts is None:
                spare = self._start_unless_closed()
            else:
                with self._starts:  # starts queue: each costs CPU that the workers at work then lack
                    spare = self._start_unless_closed()
        except Exception as exc:  # the next take finds none and the owner starts one itself
            log.warning("a spare worker did not start: %s", exc)
        with self._cond:
            self._starting -= 1
            kept = spare is not None and not self._closed
            if kept:
                self._waiting.append(spare)  # type: ignore[arg-type]
                self._used = time.monotonic()  # idle from now on, not from the take that asked for it
            self._cond.notify_all()
        if spare is not None and not kept:
            self._stop(spare)

    def _start_unless_closed(self) -> W | None:
        return None if self._closed else self._start()

    def take(self, wait_s: float) -> W | None:
        """A waiting worker (waiting up to ``wait_s`` for one starting, if none waits), or None."""
        deadline = time.monotonic() + wait_s
        with self._cond:
            self._used = time.monotonic()
            while not self._waiting and self._starting and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return self._waiting.pop() if self._waiting else None

    def trim(self) -> int:
        """Stop the waiting workers (those starting land later); how many were stopped."""
        with self._cond:
            doomed, self._waiting = self._waiting, []
        for worker in doomed:
            self._stop(worker)
        return len(doomed)

    def close(self) -> None:
        """Stop the waiting workers; those still starting are stopped as they land. Idempotent."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self.trim()


class Supervisor(Generic[K, W]):
    """The long-lived workers of one owner, by key.

    ``start(key, generation)`` makes a worker (``generation``: how many times the key was started
    before), ``stop(worker)`` ends one and may say how it ended. ``limit`` bounds the failures
    in a row of a key; ``spares`` keeps a warm worker that `restart` hands out first. Safe to
    call from several threads (a start itself runs outside the lock).

    Examples:
        >>> sup = Supervisor(lambda key, gen: f"{key}#{gen}", lambda w: f"{w} stopped")
        >>> sup.start("a"), sup.restart("a"), sup.workers
        ('a#0', 'a#1', {'a': 'a#1'})
        >>> sup.close(); sup.workers
        {}
    """

    def __init__(
        self,
        start: Callable[[K, int], W],
        stop: Callable[[W], Any],
        *,
        limit: RestartLimit | None = None,
        spares: Spares[W] | None = None,
        spare_wait_s: float = 60.0,
        stop_all: Callable[[list[W]], None] | None = None,
    ) -> None:
        self._start, self._stop, self._stop_all = start, stop, stop_all
        self.limit, self.spares, self.spare_wait_s = limit, spares, spare_wait_s
        self.workers: dict[K, W] = {}
        self.generations: dict[K, int] = {}
        self.ended: dict[K, Any] = {}  # how the last stopped worker of a key ended (its ``stop``'s answer)
        self.restarts = 0
        self.closed = False
        self._lock = threading.RLock()

    def start(self, key: K, launch: Callable[[], W] | None = None) -> W:
        """Start the worker of ``key`` (``launch``: this start's own way, else the supervisor's)."""
        with self._lock:
            generation = self.generations.get(key, -1) + 1
        worker = launch() if launch is not None else self._start(key, generation)
        return self._keep(key, generation, worker)

    def _keep(self, key: K, generation: int, worker: W) -> W:
        with self._lock:
            closed = self.closed
            if not closed:
                self.generations[key] = generation
                self.workers[key] = worker
        if closed:  # started while the owner closed: not kept
            self._stop(worker)
        return worker

    def restart(self, key: K) -> W:
        """Stop the worker of ``key`` (it died or hung; stopped already is fine), count the
        failure (`RestartLimit` may give up here) and start another: the warm spare if one
        is there (a new spare then starts in the background). Closed: `VerifiersError`, nothing started."""
        how = self.ended[key] = self.stop(key)
        if self.closed:
            raise VerifiersError("the workers are closed: nothing was restarted")
        if self.limit is not None:
            self.limit.failed(key, str(how))
        with self._lock:
            self.restarts += 1
            generation = self.generations.get(key, -1) + 1
        worker = self.spares.take(self.spare_wait_s) if self.spares is not None else None
        if worker is None:
            worker = self._start(key, generation)
        if self.spares is not None and not self.closed:
            self.spares.refill()
        return self._keep(key, generation, worker)

    def succeeded(self, key: K) -> None:
        """The worker of ``key`` did its work: its failures in a row start again from 0."""
        if self.limit is not None:
            self.limit.succeeded(key)

    def stop(self, key: K, worker: W | None = None) -> Any:
        """Stop the worker of ``key`` (or ``worker``, which may already have been replaced
        under that key: then only it stops) and forget it; what its ``stop`` said (how it ended)."""
        with self._lock:
            if worker is None or self.workers.get(key) is worker:
                worker = self.workers.pop(key, worker)
        return None if worker is None else self._stop(worker)

    def close(self) -> None:
        """Stop every worker and the spare. Idempotent."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            workers, self.workers = list(self.workers.values()), {}
        if self.spares is not None:
            self.spares.close()
        if self._stop_all is not None:
            self._stop_all(workers)
            return
        for worker in workers:
            self._stop(worker)
