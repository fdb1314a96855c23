"""`Guard`: every call `check_verifier` makes to a verifier, bounded in time, and a budget for
a verifier that is slow.

Isolation: ``"process"`` (the default where ``fork`` exists) runs the calls in a forked worker
process, killed at ``latency_s`` and forked again, so a verifier stuck on the CPU (a busy loop,
a regular expression that backtracks while holding the GIL) is stopped too; the verifier needs
no pickling (the fork inherits it). ``"thread"`` runs them in a watchdog thread that abandons
a call at the bound (it cannot stop it): use it for a verifier that holds connections a fork
cannot share (a Docker sandbox's attached containers).

Budget: after ``SKIP_AFTER`` abandoned calls, inputs at or above the shortest one that timed out
are no longer sent (the call is *skipped*); after ``STOP_AFTER``, no call is made at all. So a
slow verifier costs at most about ``STOP_AFTER x latency_s`` beyond what a fast one needs.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import threading
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

__all__ = ["GIVE_UP_AFTER", "SKIP_AFTER", "STOP_AFTER", "Abandon", "Guard"]

SKIP_AFTER = 2
STOP_AFTER = 4
GIVE_UP_AFTER = 50  # skipped calls in one law: that law stops (it is "not checked")


class Abandon(BaseException):
    """Raised through Hypothesis (a ``BaseException``, so it is not a failing example) to end a
    law at once when the budget says no more calls are worth making."""


def _serve(conn: Any, verify: Callable[[Any, str], Any], top: float) -> None:
    from verifiers.testing._observation import Observation, _normalize

    while True:
        try:
            reference, completion = conn.recv()
        except (EOFError, OSError):
            os._exit(0)
        try:
            out = _normalize(verify(reference, completion), top)
        except BaseException as exc:  # the totality law reports it
            out = Observation(None, math.nan, None, "", error=f"{type(exc).__name__}: {exc}")
        try:
            conn.send(out)
        except Exception:  # an unpicklable verdict: report it rather than hang
            conn.send(Observation(None, math.nan, None, "", error="the verdict could not be sent back (not picklable)"))


def in_thread(verify: Callable[[Any, str], Any], reference: Any, completion: str, latency_s: float, top: float) -> Any:
    """One call in a watchdog (daemon) thread: its `Observation`, or None when it was still
    running at ``latency_s`` (abandoned: a thread cannot be stopped)."""
    from verifiers.testing._observation import Observation, _normalize

    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = _normalize(verify(reference, completion), top)
        except BaseException as exc:  # the totality law reports it
            box["value"] = Observation(None, math.nan, None, "", error=f"{type(exc).__name__}: {exc}")

    thread = threading.Thread(target=run, daemon=True, name="verifier-law-watchdog")
    thread.start()
    thread.join(latency_s)
    return None if thread.is_alive() else box["value"]


class Guard:
    """Calls ``verify`` for one `check_verifier` run (see the module docstring)."""

    def __init__(self, verify: Callable[[Any, str], Any], *, top: float, isolation: str = "process") -> None:
        if isolation == "process" and "fork" not in multiprocessing.get_all_start_methods():
            isolation = "thread"
        self.verify, self.top, self.isolation = verify, top, isolation
        self.law = ""
        self.abandoned: Counter[str] = Counter()  # per law: calls abandoned at the bound
        self.skipped: Counter[str] = Counter()  # per law: calls not made (the budget)
        self.shortest: int | None = None  # the shortest input that timed out
        self.slow_case: tuple[str, str] | None = None  # ... and its (reference, completion)
        self._proc: Any = None
        self._conn: Any = None

    def __call__(self, reference: Any, completion: str) -> Any:
        """The verifier itself, unguarded (the laws call `observe` instead)."""
        return self.verify(reference, completion)

    @property
    def total_abandoned(self) -> int:
        return sum(self.abandoned.values())

    @property
    def stopped(self) -> bool:
        return self.total_abandoned >= STOP_AFTER

    def skips(self, completion: str) -> bool:
        if self.stopped:
            return True
        return self.total_abandoned >= SKIP_AFTER and self.shortest is not None and len(completion) >= self.shortest

    def observe(self, reference: Any, completion: str, latency_s: float) -> Any:
        from verifiers.testing._observation import Observation

        if self.skips(completion):
            self.skipped[self.law] += 1
            if self.stopped or self.skipped[self.law] > GIVE_UP_AFTER:
                raise Abandon(self.law)
            return Observation(None, math.nan, None, "", skipped=True)
        out = self._process(reference, completion, latency_s) if self.isolation == "process" else None
        if out is None and self.isolation != "process":
            out = self._thread(reference, completion, latency_s)
        if out is None:  # timed out
            self.abandoned[self.law] += 1
            if self.shortest is None or len(completion) < self.shortest:
                self.shortest, self.slow_case = len(completion), (str(reference), completion)
            return Observation(None, math.nan, None, "", timed_out=True)
        return out

    def _thread(self, reference: Any, completion: str, latency_s: float) -> Any:
        return in_thread(self.verify, reference, completion, latency_s, self.top)

    def _process(self, reference: Any, completion: str, latency_s: float) -> Any:
        if self._proc is None or not self._proc.is_alive():
            self._start()
        self._conn.send((reference, completion))
        if self._conn.poll(latency_s):
            try:
                return self._conn.recv()
            except (EOFError, OSError):
                pass  # the worker died (out of memory, killed): report it as an error
            from verifiers.testing._observation import Observation

            self._kill()
            return Observation(None, math.nan, None, "", error="the verifier's process died during the call")
        self._kill()
        return None

    def _start(self) -> None:
        ctx = multiprocessing.get_context("fork")
        ours, theirs = ctx.Pipe()
        with warnings.catch_warnings():  # Python >= 3.12 warns about fork with threads; the child only verifies
            warnings.simplefilter("ignore", DeprecationWarning)
            self._proc = ctx.Process(target=_serve, args=(theirs, self.verify, self.top), name="verifier-laws")
            self._proc.start()
        theirs.close()
        self._conn = ours

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join(5)
            self._conn.close()
        self._proc = self._conn = None

    def close(self) -> None:
        self._kill()
