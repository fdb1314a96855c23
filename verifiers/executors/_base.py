"""`LocalExecutor`: run any `Workload` in this process, on state opened once per workload."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from verifiers._pool import cpu_count
from verifiers._workload import Executor, Workload
from verifiers.errors import ExecutorError, VerifierInputError
from verifiers.result import VerifyResult

__all__ = ["Executor", "LocalExecutor", "checked", "with_settings"]


def checked(workload: object, references: Sequence[Any], completions: Sequence[Any]) -> Workload:
    """``workload`` if it is one and there is a reference per completion, else a clear error."""
    if not isinstance(workload, Workload):
        raise VerifierInputError(f"an executor runs a verifiers.Workload, got {type(workload).__name__}")
    if len(references) != len(completions):
        raise VerifierInputError(f"{len(references)} references for {len(completions)} completions")
    return workload


def with_settings(workload: Workload, settings: Mapping[str, Mapping[str, Any]]) -> Workload:
    """``workload`` with the settings an executor was given for its name (``{"code": {...}}``)."""
    mine = settings.get(workload.name)
    return workload.with_settings(**mine) if mine else workload


class LocalExecutor:
    """Judge in this process: each workload's state (its sympy pool, its sandbox pool) is opened
    once, at its first call, with every CPU of the machine, and kept until `close`.

    ``worker_settings`` change a workload's settings by its name, e.g. ``{"code": {"containers":
    2}}`` (a sandbox pool of 2 containers). Without an executor, ``verify_many`` judges here too.

    Examples:
        >>> from verifiers.math import verify_many
        >>> [r.status for r in verify_many(["4"], ["2 + 2 = 4"], executor=LocalExecutor())]
        ['correct']
    """

    def __init__(self, *, worker_settings: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.worker_settings = {name: dict(s) for name, s in (worker_settings or {}).items()}
        self._states: dict[str, tuple[Workload, Any]] = {}
        self._lock = threading.Lock()
        self._closed = False

    def map(
        self, workload: Workload, references: Sequence[Any], completions: Sequence[Any], options: Mapping[str, Any]
    ) -> list[VerifyResult]:
        """Judge ``completions`` against ``references`` here; see `Executor`."""
        workload = with_settings(checked(workload, references, completions), self.worker_settings)
        return workload.batch(self._state(workload), list(references), list(completions), dict(options))

    def _state(self, workload: Workload) -> Any:
        with self._lock:  # opened once, even when calls come from several threads
            if self._closed:
                raise ExecutorError("this LocalExecutor is closed")
            if workload.digest not in self._states:
                self._states[workload.digest] = (workload, workload.open_state(cpu_count()))
            return self._states[workload.digest][1]

    def close(self) -> None:
        """Release every workload's state (its ``close``)."""
        with self._lock:
            self._closed = True
            states, self._states = list(self._states.values()), {}
        for workload, state in states:
            if workload.close is not None:
                workload.close(state)

    def __repr__(self) -> str:
        return (
            "LocalExecutor()" if not self.worker_settings else f"LocalExecutor(worker_settings={self.worker_settings})"
        )
