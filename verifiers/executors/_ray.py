"""`RayExecutor`: judge batches on long-lived actors of a Ray cluster (Ray imported on first use)."""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from verifiers._workload import Executor, Workload, docker_here
from verifiers.errors import ExecutorError, VerifierInputError
from verifiers.executors._base import LocalExecutor, checked, with_settings
from verifiers.executors._connect import connect_ray, first_line
from verifiers.executors._dispatch import ChunkLost, dispatch
from verifiers.executors._fleet import ActorInfo, Fleet, Slot
from verifiers.result import VerifyResult

__all__ = ["RayExecutor", "executor_named"]

log = logging.getLogger("verifiers.executors")


class _Backend:
    """`dispatch`'s view of one call: chunk ``start:stop`` of the call's items to actor ``k``."""

    def __init__(
        self, ray: Any, slots: Sequence[Slot], refs: Sequence[Any], comps: Sequence[Any], options: Mapping[str, Any]
    ) -> None:
        self.ray, self.slots, self.refs, self.comps, self.options = ray, slots, refs, comps, dict(options)

    def submit(self, actor: int, start: int, stop: int) -> Hashable:
        run_batch = self.slots[actor].handle.run_batch
        ref: Hashable = run_batch.remote(list(self.refs[start:stop]), list(self.comps[start:stop]), self.options)
        return ref

    def wait(self, pending: Sequence[Hashable], timeout_s: float) -> Sequence[Hashable]:
        ready, _ = self.ray.wait(list(pending), num_returns=1, timeout=timeout_s)
        return list(ready)

    def fetch(self, ref: Hashable) -> list[VerifyResult]:
        from ray.exceptions import RayActorError, RayError

        try:
            out = self.ray.get(ref)
        except RayActorError as exc:
            raise ChunkLost(f"its Ray actor died: {first_line(exc)}", actor_died=True) from None
        except RayError as exc:
            raise ChunkLost(f"the Ray task failed: {first_line(exc)}", actor_died=False) from None
        if not isinstance(out, list) or not all(isinstance(r, VerifyResult) for r in out):
            raise ChunkLost(f"the actor sent {type(out).__name__}, not verdicts", actor_died=False)
        return out

    def cancel(self, ref: Hashable) -> None:
        try:
            self.ray.cancel(ref)
        except Exception as exc:  # cancelling is best effort: the call no longer waits for it
            log.debug("ray.cancel failed: %s", exc)


class RayExecutor:
    """Run `Workload` batches on long-lived workers of a Ray cluster: per node, as many
    one-worker actors as its CPUs (or GPUs) hold for what the workload needs
    (``workers_per_node`` overrides that), or one for a workload that holds neither (code: one
    per node, holding that node's `DockerSandbox` pool); a workload that needs Docker runs only
    on nodes that offer the ``docker`` resource.

    A call's items go out in chunks (at most ``chunk_size`` items, ``depth`` chunks in flight
    per worker) and come back in input order. A chunk whose worker dies or fails is retried once
    on another worker, then its items are status "error"; items not back ``timeout_s`` after
    the call's workers are up are status "timeout" (both have ``correct=None``: trainers mask
    them). Once every chunk is out, a straggler (a chunk out ``hedge`` times longer than the
    call's median chunk, and at least a second) is sent once more to an idle worker: the first
    answer wins. Items that are not text are judged in this process and never shipped. Workers
    start on first use of their workload (waiting at most ``start_timeout_s``) and live as long
    as the executor; dead ones are replaced at the next call. Workers are named on the cluster
    by their workload's digest, so executors in other processes (the ranks of a torchrun job)
    share them rather than each asking for every CPU; each executor stops only the workers it
    started. A workload defined outside an installed package (a test file, your own module) is
    pickled by value, so the workers need not import it.

    Args:
        address: None (``RAY_ADDRESS``, else a new local cluster, which offers the ``docker``
            resource when this machine's engine has the sandbox image), ``"auto"`` (the running
            local cluster), ``"host:port"`` (a GCS address, as `connect` returns) or
            ``"ray://head:10001"``; ignored when Ray is already initialised in this process
            (inside a trainer's Ray job).
        timeout_s: the longest one call waits for its verdicts once its workers are up.
        start_timeout_s: the longest a call waits for the first workers of its workload to start.
        workers_per_node: workers per node of a workload that holds CPUs or GPUs (None: as many
            as the node holds; lower it where a trainer holds the CPUs, or workers wait for CPUs
            that never free up).
        worker_settings: settings of the workloads' workers by workload name, e.g. ``{"code":
            {"containers": 2}}`` (each node's sandbox pool: 2 containers; default its CPU count).
        docker_resource: the custom resource that marks nodes with a Docker engine and the
            sandbox image (``ray start --resources='{"docker": 1}'``).
        network_resource: the custom resource that marks nodes whose workers may reach the
            network (None: a workload that needs the network runs anywhere).
        hedge: how many median chunk times a chunk may take before a copy goes to an idle
            worker (0: never).
        init_kwargs: more keyword arguments for ``ray.init`` (e.g. ``num_cpus`` of a local one).

    Examples:
        >>> from verifiers import math
        >>> with RayExecutor("auto", timeout_s=60) as ray_judges:  # doctest: +SKIP
        ...     results = math.verify_many(golds, completions, executor=ray_judges)
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        timeout_s: float = 300.0,
        start_timeout_s: float = 120.0,
        chunk_size: int = 64,
        depth: int = 2,
        workers_per_node: int | None = None,
        worker_settings: Mapping[str, Mapping[str, Any]] | None = None,
        docker_resource: str = "docker",
        network_resource: str | None = None,
        hedge: float = 3.0,
        init_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        for name, value in (("timeout_s", timeout_s), ("start_timeout_s", start_timeout_s)):
            if not isinstance(value, (int, float)) or not value > 0:
                raise VerifierInputError(f"{name} must be a positive number of seconds, got {value!r}")
        for name, count in (("chunk_size", chunk_size), ("depth", depth)):
            if not isinstance(count, int) or count < 1:
                raise VerifierInputError(f"{name} must be an int >= 1, got {count!r}")
        if workers_per_node is not None and (not isinstance(workers_per_node, int) or workers_per_node < 0):
            raise VerifierInputError(f"workers_per_node must be None or an int >= 0, got {workers_per_node!r}")
        if not isinstance(hedge, (int, float)) or not hedge >= 0:
            raise VerifierInputError(f"hedge must be a number >= 0 (0: never send a chunk twice), got {hedge!r}")
        if address is not None and not isinstance(address, str):
            raise VerifierInputError(f"address must be None, 'auto' or 'ray://host:port', got {address!r}")
        self.address = address
        self.timeout_s = float(timeout_s)
        self.start_timeout_s = float(start_timeout_s)
        self.chunk_size = chunk_size
        self.depth = depth
        self.workers_per_node = workers_per_node
        self.worker_settings = {name: dict(s) for name, s in (worker_settings or {}).items()}
        self.docker_resource = docker_resource
        self.network_resource = network_resource
        self.hedge = float(hedge)
        self.init_kwargs = dict(init_kwargs or {})
        self._lock = threading.Lock()
        self._ray: Any = None
        self._fleet: Fleet | None = None
        self._owns_ray = False
        self._closed = False

    def __repr__(self) -> str:
        return f"RayExecutor(address={self.address!r}, timeout_s={self.timeout_s:g})"

    def connect(self) -> str:
        """Connect now (else the first call does) and return the cluster's address, which
        another process passes as ``address`` to judge on the same cluster and share the actors.

        Examples:
            >>> ex = RayExecutor(init_kwargs={"num_cpus": 2})  # doctest: +SKIP
            >>> RayExecutor(ex.connect())  # doctest: +SKIP
            RayExecutor(address='127.0.0.1:6379', timeout_s=300)
        """
        with self._lock:
            self._connect()
            return str(self._ray.get_runtime_context().gcs_address)

    def _connect(self) -> Fleet:
        if self._closed:
            raise ExecutorError("this RayExecutor is closed")
        if self._fleet is not None:
            return self._fleet
        self._ray, self._owns_ray = connect_ray(self.address, init_kwargs=self.init_kwargs, local=self._local)
        atexit.register(self.close)  # before Ray's own shutdown: containers go with their pools
        self._fleet = Fleet(
            self._ray,
            workers_per_node=self.workers_per_node,
            docker_resource=self.docker_resource,
            network_resource=self.network_resource,
            start_timeout_s=self.start_timeout_s,
            concurrency=self.depth,
        )
        return self._fleet

    def _local(self) -> dict[str, Any]:
        """A new local cluster offers the ``docker`` resource when this machine has the sandbox."""
        if "resources" in self.init_kwargs or not docker_here():
            return {}
        return {"resources": {self.docker_resource: 1}}

    def map(
        self, workload: Workload, references: Sequence[Any], completions: Sequence[Any], options: Mapping[str, Any]
    ) -> list[VerifyResult]:
        """Judge ``completions`` against ``references`` on the cluster; see `Executor`."""
        workload = with_settings(checked(workload, references, completions), self.worker_settings)
        options = dict(options)
        remote = [k for k, c in enumerate(completions) if isinstance(c, str)]
        results: list[VerifyResult | None] = [None] * len(completions)
        here = [k for k, c in enumerate(completions) if not isinstance(c, str)]
        if here:  # not text: judged here at once, without the workers' state, never shipped
            got = workload.batch(None, [references[k] for k in here], [completions[k] for k in here], options)
            for k, r in zip(here, got, strict=True):
                results[k] = r
        if remote:
            for k, r in zip(remote, self._remote(workload, references, completions, remote, options), strict=True):
                results[k] = r
        return [r for r in results if r is not None]

    def _remote(
        self,
        workload: Workload,
        references: Sequence[Any],
        completions: Sequence[Any],
        ks: list[int],
        options: dict[str, Any],
    ) -> list[VerifyResult]:
        with self._lock:  # calls from several threads share the workers; each dispatches on its own
            fleet = self._connect()
            slots = fleet.for_call(workload)
        backend = _Backend(self._ray, slots, [references[k] for k in ks], [completions[k] for k in ks], options)
        out = dispatch(
            backend,
            range(len(slots)),
            len(ks),
            most_per_chunk=self.chunk_size,
            depth=self.depth,
            timeout_s=self.timeout_s,
            hedge=self.hedge,
        )
        with self._lock:
            for k, slot in enumerate(slots):
                slot.chunks += out.chunks_done.get(k, 0)
                slot.stale += out.abandoned.get(k, [])
                if k in out.dead:
                    fleet.drop(slot, "it died during a call")
            return out.results

    def actors(self) -> tuple[ActorInfo, ...]:
        """The workers that are up (none before the first call)."""
        with self._lock:
            if self._fleet is None:
                return ()
            return tuple(s.info() for s in self._fleet.slots if s.where is not None)

    def close(self) -> None:
        """Stop the workers it started (and their state: containers); shut Ray down if this
        executor started it."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._fleet is not None and self._ray.is_initialized():  # else its actors went with Ray
                try:
                    self._fleet.close()
                except Exception as exc:  # a cluster that went away: nothing left to stop
                    log.warning("closing the Ray workers failed: %s", exc)
            if self._owns_ray and self._ray is not None:
                self._ray.shutdown()

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def executor_named(name: str, *, address: str | None = None, timeout_s: float = 300.0) -> Executor:
    """The executor a config names: ``"local"`` or ``"ray"`` (at ``address``, default
    ``RAY_ADDRESS`` or a new local cluster).

    Examples:
        >>> executor_named("local")
        LocalExecutor()
    """
    if name == "local":
        return LocalExecutor()
    if name == "ray":
        return RayExecutor(address, timeout_s=timeout_s)
    raise VerifierInputError(f"executor must be 'local' or 'ray', got {name!r}")
