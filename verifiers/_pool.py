"""Worker processes with hard timeouts: a call that runs too long kills its worker.

Timeouts are enforced from outside (never ``signal.alarm``), so calls may come from any
thread or from asyncio via ``to_thread``. A call's timeout counts the call alone: a worker
that is still starting (importing sympy, seconds on a busy machine) is waited for first, so the
same comparison gets the same verdict in a fresh process as in a warm one. A killed worker is
replaced by a warm spare, so the next call does not pay for a process start; a new spare is
started in the background.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import logging
import os
import pickle
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from verifiers._supervisor import Spares, Supervisor, WorkerProcess
from verifiers.errors import VerifiersError, VerifyTimeout, WorkerCrashed

__all__ = ["WorkerPool"]

log = logging.getLogger("verifiers.pool")

_MEMORY_LIMIT = 4 * 2**30  # a worker that grows past this gets MemoryError, not the host OOM
STARTUP_S = 120.0  # a worker's start-up (python, sympy) is bounded apart from a call's timeout


def _serve(conn: Connection, preload: Sequence[str]) -> None:
    """The worker's loop: receive (function, args), send ("ok"|"err", value)."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_LIMIT, _MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):
        pass
    for name in preload:
        importlib.import_module(name)
    conn.send(("ready", None))  # the caller's timeout starts after this: start-up is not the call's time
    while True:
        try:
            message = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            fn, args = pickle.loads(message)  # the function by reference: its module is imported here
            result: tuple[str, Any] = ("ok", fn(*args))
        except BaseException as exc:  # report everything; the worker lives on
            result = ("err", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(result)
        except (EOFError, OSError):
            return


class _Worker:
    """``python -m verifiers._pool FD``: a `WorkerProcess` (never multiprocessing's spawn, which
    re-imports the caller's ``__main__``), known to the pool's supervisor by ``key``."""

    def __init__(self, key: int, preload: Sequence[str]) -> None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
        # PYTHONHASHSEED: sympy's paths (and run time) depend on set order
        self.process = WorkerProcess("verifiers._pool", preload, env={"PYTHONPATH": path, "PYTHONHASHSEED": "0"})
        self.conn = self.process.conn
        self.key = key
        self.ready = False

    def wait_ready(self) -> None:
        """Wait (up to `STARTUP_S`) for the worker to have imported its preload modules."""
        if self.ready:
            return
        if not self.conn.poll(STARTUP_S):
            raise WorkerCrashed(f"a verifier worker did not start within {STARTUP_S:g} s")
        status, _ = self.conn.recv()
        if status != "ready":
            raise WorkerCrashed(f"a verifier worker sent {status!r} before it was ready")
        self.ready = True

    def kill(self) -> None:
        self.process.kill()

    def rekeyed(self, key: int) -> _Worker:
        self.key = key
        return self


class WorkerPool:
    """A pool of worker processes that run ``fn(*args)`` under a hard timeout (``fn`` a
    module-level function: it travels by reference, pickled as its qualified name).

    Its workers are kept by a `Supervisor` (slot ``k`` -> worker) with one warm spare.

    Examples:
        >>> import math
        >>> pool = WorkerPool(size=1)
        >>> pool.call(math.factorial, (5,), timeout_s=10)
        120
        >>> pool.close()
    """

    def __init__(self, size: int = 1, preload: Sequence[str] = ()) -> None:
        if size < 1:
            raise ValueError(f"WorkerPool size must be >= 1, got {size}")
        self._preload = tuple(preload)
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._lock = threading.Lock()
        self._supervisor: Supervisor[int, _Worker] = Supervisor(
            self._launch,
            _Worker.kill,
            spares=Spares(functools.partial(_Worker, -1, self._preload), _Worker.kill),
            spare_wait_s=60,
        )
        self._size = 0
        self.resize(size)
        self._supervisor.spares.refill()  # type: ignore[union-attr]

    def _launch(self, key: int, generation: int) -> _Worker:
        return _Worker(key, self._preload)

    @property
    def _closed(self) -> bool:
        return self._supervisor.closed

    @property
    def size(self) -> int:
        return self._size

    def resize(self, size: int) -> None:
        """Grow the pool to ``size`` workers (it never shrinks)."""
        with self._lock:
            while self._size < size:
                self._idle.put(self._supervisor.start(self._size))
                self._size += 1

    def _replace(self, dead: _Worker) -> None:
        """Kill ``dead`` and hand its slot to the warm spare, without making the caller wait."""
        self._supervisor.stop(dead.key, dead)

        def handover() -> None:
            try:
                fresh = self._supervisor.restart(dead.key).rekeyed(dead.key)
            except VerifiersError:  # the pool closed meanwhile
                return
            if not self._closed:
                self._idle.put(fresh)

        threading.Thread(target=handover, name="verifiers-worker-handover", daemon=True).start()

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], *, timeout_s: float) -> Any:
        """Run ``fn(*args)`` in a worker; raise `VerifyTimeout` after ``timeout_s``."""
        if self._closed:
            raise VerifiersError("the worker pool is closed")
        worker: _Worker | None = self._idle.get()
        assert worker is not None
        timed_out = False
        try:
            worker.wait_ready()  # a cold worker's imports are not the call's time
            worker.conn.send((fn, args))
            if worker.conn.poll(timeout_s):
                status, value = worker.conn.recv()
            else:
                timed_out = True
        except (EOFError, OSError, WorkerCrashed) as exc:
            self._replace(worker)
            worker = None
            if isinstance(exc, WorkerCrashed):
                raise
            raise WorkerCrashed(f"a verifier worker died: {exc or type(exc).__name__}") from exc
        finally:
            if worker is not None and not timed_out:
                self._idle.put(worker)
        if timed_out:
            log.info("%s.%s timed out after %.1f s; replacing its worker", fn.__module__, fn.__qualname__, timeout_s)
            self._replace(worker)
            raise VerifyTimeout(f"the comparison did not finish within {timeout_s:g} s")
        if status == "err":
            raise WorkerCrashed(value)
        return value

    def close(self) -> None:
        """Stop every worker. Idempotent."""
        self._supervisor.close()


_default: WorkerPool | None = None
_default_lock = threading.Lock()


def default_pool(size: int | None = None) -> WorkerPool:
    """The process-wide pool (created on first use, grown on demand, closed at exit)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = WorkerPool(size or 1, preload=("verifiers.math._symbolic",))
            atexit.register(_default.close)
        elif size:
            _default.resize(size)
        return _default


def _forget_in_child() -> None:
    """A forked child (the laws' worker, a user's) starts its own pool: the parent's workers,
    threads and lock are not its to use."""
    global _default, _default_lock
    _default = None
    _default_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])), sys.argv[2:])
