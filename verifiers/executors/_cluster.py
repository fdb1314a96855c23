"""`describe_cluster`: the nodes of a Ray cluster, their CPUs and which offer Docker.

It connects from a child process (``python -m verifiers.executors._cluster ADDRESS``), so the
caller (``grpo-envs doctor``) never joins the cluster and a head that does not answer costs at
most ``timeout_s``.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

from verifiers.errors import ExecutorError

__all__ = ["ClusterInfo", "NodeInfo", "describe_cluster"]


@dataclass(frozen=True)
class NodeInfo:
    """One alive node of a Ray cluster."""

    node_id: str
    address: str
    cpus: float
    docker: bool


@dataclass(frozen=True)
class ClusterInfo:
    """What `describe_cluster` found.

    Examples:
        >>> info = ClusterInfo("auto", (NodeInfo("a1", "10.0.0.1", 8.0, True), NodeInfo("b2", "10.0.0.2", 8.0, False)))
        >>> info.summary()
        '2 nodes, 16 CPUs; Docker on 1: 10.0.0.1'
    """

    address: str
    nodes: tuple[NodeInfo, ...]

    def summary(self) -> str:
        cpus = sum(n.cpus for n in self.nodes)
        docker = [n.address for n in self.nodes if n.docker]
        where = (
            f"Docker on {len(docker)}: {', '.join(docker)}"
            if docker
            else "no node offers Docker (code judging cannot run)"
        )
        return f"{len(self.nodes)} node{'s' * (len(self.nodes) != 1)}, {cpus:g} CPUs; {where}"


def describe_cluster(address: str, *, docker_resource: str = "docker", timeout_s: float = 30.0) -> ClusterInfo:
    """The alive nodes of the Ray cluster at ``address`` (``"auto"``, ``"127.0.0.1:6379"``,
    ``"ray://head:10001"``); a node "offers Docker" when it has the ``docker_resource``.

    Raises:
        ExecutorError: Ray is not installed, or the cluster did not answer in ``timeout_s``.
    """
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "verifiers.executors._cluster", address, docker_resource],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        raise ExecutorError(f"the Ray cluster at {address!r} did not answer within {timeout_s:g} s") from None
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        cause = (proc.stderr.strip().splitlines() or ["no output"])[-1][:300]
        raise ExecutorError(f"cannot reach the Ray cluster at {address!r}: {cause}")
    nodes = tuple(NodeInfo(**node) for node in json.loads(lines[-1]))
    return ClusterInfo(address, nodes)


def _main(address: str, docker_resource: str) -> None:
    try:
        import ray as ray_module
    except ImportError:
        sys.exit("ray is not installed: pip install 'grpo-envs[ray]'")
    ray: Any = ray_module  # partly untyped
    ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
    try:
        nodes = [
            {
                "node_id": n["NodeID"],
                "address": n.get("NodeManagerAddress", "?"),
                "cpus": float(n.get("Resources", {}).get("CPU", 0.0)),
                "docker": n.get("Resources", {}).get(docker_resource, 0.0) >= 1,
            }
            for n in ray.nodes()
            if n.get("Alive")
        ]
    finally:
        ray.shutdown()
    print(json.dumps(nodes))


if __name__ == "__main__":
    _main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "docker")
