"""The judges that live inside Ray actors: plain classes (``ray.remote`` wraps them at start),
so this module imports neither Ray nor Docker and the classes run without a cluster too.

`MathJudge` takes one CPU: the math fast path in the actor's own process, sympy in one local
worker process with the local pool's hard timeouts. `CodeJudge` holds its node's
`DockerSandbox` pool, on the engine that node reaches (its DOCKER_HOST or default socket).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping, Sequence
from typing import Any

from verifiers.executors._base import judge_here
from verifiers.result import VerifyResult

__all__ = ["CodeJudge", "MathJudge", "sweep_orphans"]


def _where() -> dict[str, Any]:
    """This actor's process id, host and Ray node (the node as Ray sees it, not as asked)."""
    node_id = ""
    try:
        import ray

        node_id = ray.get_runtime_context().get_node_id()
    except Exception:  # outside Ray (tests of the class alone): no node
        node_id = ""
    return {"pid": os.getpid(), "host": socket.gethostname(), "node_id": node_id}


class MathJudge:
    """Judges math chunks with a pool of ``workers`` sympy processes (one per CPU it holds).

    Examples:
        >>> judge = MathJudge(workers=1)
        >>> [r.status for r in judge.judge(["4"], ["\\\\boxed{4}"], {"timeout_s": 5.0})]
        ['correct']
    """

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers

    def ready(self) -> dict[str, Any]:
        return _where()

    def judge(
        self, references: Sequence[Any], completions: Sequence[Any], options: Mapping[str, Any]
    ) -> list[VerifyResult]:
        return judge_here("math", references, completions, {**options, "workers": self.workers})

    def close(self) -> None:
        """The local pool closes with the process."""


class CodeJudge:
    """Judges code chunks in a `DockerSandbox` pool of ``containers`` on this node's engine.

    Starting it starts the containers (and sweeps containers a dead owner left on the
    engine), so an actor that comes up is one that can judge.
    """

    def __init__(self, containers: int | None = None, engine: str | None = None) -> None:
        from verifiers.sandbox import DockerSandbox

        self.box = DockerSandbox(size=containers, engines=[engine] if engine else None)

    def ready(self) -> dict[str, Any]:
        return {**_where(), "containers": self.box.size}

    def judge(
        self, references: Sequence[Any], completions: Sequence[Any], options: Mapping[str, Any]
    ) -> list[VerifyResult]:
        return judge_here("code", references, completions, options, sandbox=self.box)

    def close(self) -> None:
        """Remove this pool's containers."""
        self.box.close()


def sweep_orphans() -> int:
    """Remove the sandbox containers on this node's engine whose owning process is gone."""
    from verifiers.sandbox import engine_client
    from verifiers.sandbox._engines import remove_orphans

    client = engine_client(timeout_s=10)
    try:
        return remove_orphans(client)
    finally:
        client.close()
