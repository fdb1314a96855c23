"""Where batches of verdicts are computed: this process (`LocalExecutor`) or the long-lived
workers of a Ray cluster (`RayExecutor`, ``pip install 'grpo-envs[ray]'``).

Owns placing and running workloads (workers, their state, retries, timeouts), never what a
verdict is: it imports no verifier.

An executor runs any `verifiers.Workload` (a kind of judging: what its workers need, how each
opens its state once, its batch function) and knows no verifier. ``verify_many(...,
executor=...)`` of `verifiers.math` and `verifiers.code`, and ``Group.score(..., executor=...)``,
take one. With Ray, math runs on one-CPU workers on every node and code on one worker per node
that offers the ``docker`` resource (that node's `DockerSandbox` pool on its own engine);
results come back in input order. A lost worker or node is a verdict, not a crash: its items
are retried once on another worker, then status "error"; an item not back within the
executor's ``timeout_s`` is status "timeout".

Importing this package never imports Ray: `RayExecutor` imports it on first use.

The pieces every long-lived worker of the SDK is kept with (this package's actors, the math
worker pool, the trainer's rollout workers) are here too: `Supervisor` (start, restart, stop),
`RestartLimit`, `WorkerProcess`, `kill_actor`, and `connect_ray`, the one way to connect to Ray.

Examples:
    >>> from verifiers import math
    >>> from verifiers.executors import LocalExecutor
    >>> [r.correct for r in math.verify_many(["2"], ["1 + 1 = 2"], executor=LocalExecutor())]
    [True]
"""

from __future__ import annotations

from verifiers._supervisor import RestartLimit, Supervisor, WorkerProcess, kill_actor
from verifiers._workload import Executor
from verifiers.executors._base import LocalExecutor
from verifiers.executors._cluster import ClusterInfo, NodeInfo, describe_cluster
from verifiers.executors._connect import connect_ray
from verifiers.executors._fleet import ActorInfo
from verifiers.executors._ray import RayExecutor, executor_named

__all__ = [
    "ActorInfo",
    "ClusterInfo",
    "Executor",
    "LocalExecutor",
    "NodeInfo",
    "RayExecutor",
    "RestartLimit",
    "Supervisor",
    "WorkerProcess",
    "connect_ray",
    "describe_cluster",
    "executor_named",
    "kill_actor",
]
