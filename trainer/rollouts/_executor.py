"""The trainer's verifier executor (``verifier_executor``): none for "local", else one per rank
that verifies on one cluster for the whole job.

Under torchrun every rank makes its own executor. With ``RAY_ADDRESS`` set they all connect
there; without it, rank 0 starts a local cluster and every other rank joins it, so the ranks
share one set of verifier actors (`RayExecutor` names them on the cluster) instead of each rank
starting a cluster of its own that asks for every CPU of the machine.
"""

from __future__ import annotations

import os

from trainer._distributed import Dist
from trainer.errors import TrainerError
from verifiers.executors import Executor, RayExecutor, executor_named

__all__ = ["open_executor"]


def open_executor(name: str, dist: Dist) -> Executor | None:
    """The executor ``name`` names for this rank (None: verify in this process).

    Examples:
        >>> open_executor("local", Dist()) is None
        True
    """
    if name == "local":
        return None
    if name != "ray" or not dist.enabled or os.environ.get("RAY_ADDRESS"):
        return executor_named(name)
    first: RayExecutor | None = None
    found = ""
    if dist.main:  # rank 0 starts the job's cluster; a failure is said on every rank, not only here
        first = RayExecutor()
        try:
            found = first.connect()
        except Exception as exc:
            found = f"error: {exc}"
    address = dist.gather(found)[0]
    if address.startswith("error: "):
        raise TrainerError(f"rank 0 could not start a Ray cluster for the verifiers: {address[7:]}")
    if first is not None:
        return first
    try:
        return _joined(address)
    except Exception as exc:
        raise TrainerError(
            f"rank {dist.rank} cannot reach rank 0's Ray cluster at {address} ({exc}); with ranks on several "
            "machines, start one Ray cluster over them (ray start) and set RAY_ADDRESS on every rank"
        ) from exc


def _joined(address: str) -> RayExecutor:
    ex = RayExecutor(address)
    ex.connect()
    return ex
