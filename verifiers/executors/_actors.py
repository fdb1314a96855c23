"""The worker that lives inside a Ray actor: a plain class (``ray.remote`` wraps it at start),
so this module imports neither Ray nor any verifier and the class runs without a cluster too.

A `WorkloadWorker` opens its workload's state once, when it starts (so a worker that comes up
is one that can run), and runs the workload's batch function on it for every chunk.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from typing import Any

from verifiers._workload import Workload
from verifiers.result import VerifyResult

__all__ = ["WorkloadWorker"]


def _where() -> dict[str, Any]:
    """This actor's process id, host and Ray node (the node as Ray sees it, not as asked)."""
    node_id = ""
    try:
        import ray

        node_id = ray.get_runtime_context().get_node_id()
    except Exception:  # outside Ray (tests of the class alone): no node
        node_id = ""
    return {"pid": os.getpid(), "host": socket.gethostname(), "node_id": node_id}


class WorkloadWorker:
    """Runs one `Workload` on the state it opened once, with ``cpus`` CPUs to use.

    Examples:
        >>> from verifiers import Needs, VerifyResult, Workload
        >>> def same(state, refs, comps, options):
        ...     return [VerifyResult.judged("correct" if r == c else "incorrect", state) for r, c in zip(refs, comps)]
        >>> def opened(cpus):
        ...     return f"opened with {cpus} CPUs"
        >>> worker = WorkloadWorker(Workload("same", same, open=opened), cpus=1)
        >>> [(r.status, r.reason) for r in worker.run_batch(["4"], ["4"], {})]
        [('correct', 'opened with 1 CPUs')]
    """

    def __init__(self, workload: Workload, cpus: int = 1) -> None:
        self.workload = workload
        self.state = workload.open_state(cpus)

    def ready(self) -> dict[str, Any]:
        return _where()

    def run_batch(
        self, references: Sequence[Any], completions: Sequence[Any], options: dict[str, Any]
    ) -> list[VerifyResult]:
        """The workload's batch function on this worker's state: one verdict per completion."""
        return self.workload.batch(self.state, list(references), list(completions), dict(options))

    def close(self) -> None:
        """Release the state (the workload's ``close``); the rest goes with the process."""
        if self.workload.close is not None:
            self.workload.close(self.state)
