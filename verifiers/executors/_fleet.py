"""The long-lived workers of a `RayExecutor`, kept in step with the cluster's nodes.

Per alive node and `Workload`: as many one-worker actors as the node's CPUs (or GPUs) hold for
what each worker needs (``workers_per_node`` overrides that), or one per node for a workload
that holds neither; a workload that needs Docker only on nodes that offer the ``docker``
resource (so a node without an engine never receives that work). A workload's workers start
at its first call, in the background after that; a call waits for them only when none of its
workload is up yet. A dead worker (or one on a dead node) is replaced at the next call of its
workload; a start that fails or does not finish in ``start_timeout_s`` is tried again a minute
later.

The actors are named (namespace `NAMESPACE`; one name per node, workload digest, index and the
executor's settings that shape a worker), so every executor on the cluster shares them: the
ranks of a torchrun job, or several reward workers, find the workers the first one started
instead of asking for the node's CPUs again. An executor stops only the workers it started.
The workers are kept by the SDK's one `verifiers._supervisor.Supervisor` (by name), a failed
start's wait by its `Backoff`.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import logging
import sys
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from verifiers._supervisor import Backoff, Supervisor, kill_actor
from verifiers._workload import Workload, release
from verifiers.errors import EngineUnavailableError, ExecutorError
from verifiers.executors._actors import WorkloadWorker

__all__ = ["ActorInfo", "Fleet", "Slot", "pickle_by_value"]

log = logging.getLogger("verifiers.executors")

RETRY_START_AFTER_S = 60.0
CLOSING = "the executor is closing"
NAMESPACE = "grpo-envs-judges"
"""The Ray namespace of the workers (shared by every executor on a cluster)."""
SHARE = 0.01
"""How much of a node's ``docker`` (or network) resource one worker asks for: the resource says
where a worker may run; several workloads' workers share a node."""


@dataclass(frozen=True)
class ActorInfo:
    """One worker of a `RayExecutor`: its workload's name, where it runs, how much it did.

    ``node_id`` and ``pid`` are the actor's own (as it reported them once started); ``chunks``
    counts the chunks it has judged.
    """

    workload: str
    node_id: str
    pid: int
    host: str
    chunks: int


@dataclass
class Slot:
    """A worker of the fleet, starting (``where`` is None) or up."""

    workload: Workload
    node_id: str
    handle: Any
    ready_ref: Any
    started_at: float
    name: str = ""
    owned: bool = True  # started by this executor (else found on the cluster: never stopped by it)
    where: dict[str, Any] | None = None
    chunks: int = 0
    stale: list[Hashable] = field(default_factory=list)  # chunks still running after a timed-out call

    @property
    def key(self) -> str:
        return self.workload.digest

    def info(self) -> ActorInfo:
        where = self.where or {}
        return ActorInfo(
            self.workload.name,
            str(where.get("node_id", "")),
            int(where.get("pid", 0)),
            str(where.get("host", "")),
            self.chunks,
        )


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return (lines[-1] if lines else type(exc).__name__)[:300]


@functools.cache
def _installed() -> frozenset[str]:
    """Top-level packages that come from an installed distribution (importable on every node
    that has the same environment); read once, since it costs ~0.5 s."""
    return frozenset(importlib.metadata.packages_distributions())


def pickle_by_value(workload: Workload) -> list[str]:
    """Have Ray pickle by value the modules of ``workload``'s functions that workers may not be
    able to import: anything but the standard library, this package and installed packages (a
    test file, a module of your own beside your script). Returns those modules' names."""
    from ray import cloudpickle as ray_cloudpickle

    cloudpickle: Any = ray_cloudpickle  # untyped
    ours = __name__.split(".")[0]
    found = []
    for fn in (workload.batch, workload.open, workload.close, workload.sweep):
        name = getattr(fn, "__module__", None) if fn is not None else None
        if not name or name == "__main__" or name not in sys.modules:  # __main__: by value already
            continue
        top = name.split(".")[0]
        if top == ours or top in sys.stdlib_module_names or top in _installed():
            continue
        cloudpickle.register_pickle_by_value(sys.modules[name])
        found.append(name)
    return found


class Fleet:
    """The workers on a connected Ray cluster (``ray`` is the imported module)."""

    def __init__(
        self,
        ray: Any,
        *,
        workers_per_node: int | None,
        docker_resource: str,
        network_resource: str | None,
        start_timeout_s: float,
        concurrency: int,
    ) -> None:
        self.ray = ray
        self.workers_per_node = workers_per_node
        self.docker_resource = docker_resource
        self.network_resource = network_resource
        self.start_timeout_s = start_timeout_s
        self.concurrency = concurrency
        self.supervisor: Supervisor[str, Slot] = Supervisor(self._unplanned, self._stop)  # by name
        self.backoff = Backoff(RETRY_START_AFTER_S)  # by (node, workload digest): after a failed start
        self.last_error: dict[str, str] = {}  # workload digest -> why none started
        self.swept: dict[str, tuple[Workload, set[str]]] = {}  # digest -> workload, nodes to sweep at close
        self._class: Any = None

    @property
    def slots(self) -> list[Slot]:
        """The workers, starting or up (those this executor started and those it found)."""
        return list(self.supervisor.workers.values())

    # -- starting ----------------------------------------------------------------------------
    def _unplanned(self, name: str, generation: int) -> Slot:
        raise ExecutorError(f"the worker {name} is started by `refresh` only")  # a restart is a new start there

    def _stop(self, slot: Slot) -> None:
        if slot.owned:  # else another executor's: it may still be using it
            kill_actor(self.ray, slot.handle)

    def _wanted(self, node: dict[str, Any], workload: Workload) -> int:
        resources, needs = node.get("Resources", {}), workload.needs
        if needs.docker and resources.get(self.docker_resource, 0) < 1:
            return 0
        if needs.network and self.network_resource and resources.get(self.network_resource, 0) < 1:
            return 0
        fits = [int(resources.get(name, 0) // held) for name, held in (("CPU", needs.cpu), ("GPU", needs.gpu)) if held]
        if not fits:
            return 1  # holds nothing of its own (its work runs in containers, on a server): one per node
        return min(fits) if self.workers_per_node is None else self.workers_per_node

    def _shape(self, workload: Workload) -> str:
        """The executor's settings that shape ``workload``'s workers (in their names)."""
        shape = [f"concurrency={self.concurrency}"] if workload.concurrent else []
        if workload.needs.docker:
            shape.append(f"docker={self.docker_resource}")
        if workload.needs.network and self.network_resource:
            shape.append(f"network={self.network_resource}")
        return ",".join(shape)

    def _name(self, node_id: str, workload: Workload, index: int) -> str:
        """The worker's name on the cluster: executors with the same settings share it."""
        text = f"{release()}|{node_id}|{workload.digest}|{self._shape(workload)}"
        return f"{workload.name}-{hashlib.sha256(text.encode()).hexdigest()[:16]}-{index}"

    def _options(self, workload: Workload, node_id: str, name: str) -> dict[str, Any]:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        needs = workload.needs
        opts: dict[str, Any] = {"num_cpus": needs.cpu, "name": name, "namespace": NAMESPACE, "max_restarts": 0}
        opts["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node_id, soft=False)
        if needs.gpu:
            opts["num_gpus"] = needs.gpu
        resources = {self.docker_resource: SHARE} if needs.docker else {}
        if needs.network and self.network_resource:
            resources[self.network_resource] = SHARE
        if resources:
            opts["resources"] = resources
        if workload.concurrent:
            opts["max_concurrency"] = self.concurrency
        return opts

    def _start(self, node_id: str, workload: Workload, index: int) -> Slot:
        """The ``index``-th worker of ``workload`` on ``node_id``: found on the cluster, else started."""
        name = self._name(node_id, workload, index)
        found = self._find(name)
        if found is not None:
            return Slot(workload, node_id, found, found.ready.remote(), time.monotonic(), name=name, owned=False)
        if self._class is None:
            self._class = self.ray.remote(WorkloadWorker)
        pickle_by_value(workload)
        cpus = max(1, int(workload.needs.cpu))
        try:
            handle = self._class.options(**self._options(workload, node_id, name)).remote(workload, cpus)
        except ValueError:  # another executor took the name just now: share its worker
            found = self._find(name)
            if found is None:
                raise
            return Slot(workload, node_id, found, found.ready.remote(), time.monotonic(), name=name, owned=False)
        if workload.sweep is not None:
            self.swept.setdefault(workload.digest, (workload, set()))[1].add(node_id)
        return Slot(workload, node_id, handle, handle.ready.remote(), time.monotonic(), name=name)

    def _find(self, name: str) -> Any:
        try:
            return self.ray.get_actor(name, namespace=NAMESPACE)
        except ValueError:  # no live actor has that name
            return None

    def refresh(self, workload: Workload) -> None:
        """Take in workers that came up, drop stuck ones and those of gone nodes, and start the
        ``workload`` workers the nodes lack (a workload's workers only once it is called)."""
        nodes = {n["NodeID"]: n for n in self.ray.nodes() if n.get("Alive")}
        now, key = time.monotonic(), workload.digest
        for slot in list(self.slots):
            if slot.node_id not in nodes:
                self.drop(slot, "its node left the cluster")
            elif slot.where is None:
                self._check_start(slot, now)
        for node_id, node in nodes.items():
            have = {s.name for s in self.slots if s.node_id == node_id and s.key == key}
            names = {self._name(node_id, workload, k): k for k in range(self._wanted(node, workload))}
            missing = [k for name, k in names.items() if name not in have]
            if missing and self.backoff.ready((node_id, key), now):
                for k in missing:
                    self.supervisor.start(self._name(node_id, workload, k), partial(self._start, node_id, workload, k))

    def _check_start(self, slot: Slot, now: float) -> None:
        ready, _ = self.ray.wait([slot.ready_ref], num_returns=1, timeout=0)
        name = slot.workload.name
        if ready:
            try:
                slot.where = self.ray.get(slot.ready_ref)
            except Exception as exc:  # its state did not open (no engine, no image): say so, try later
                if not slot.owned or self._lost_name_race(slot):  # find or start another at once
                    self.drop(slot, f"the shared worker is gone: {_first_line(exc)}")
                    return
                self._failed(slot, f"a {name} worker could not start on node {slot.node_id[:12]}: {_first_line(exc)}")
        elif now - slot.started_at > self.start_timeout_s:
            self._failed(
                slot,
                f"a {name} worker did not start on node {slot.node_id[:12]} within {self.start_timeout_s:g} s "
                "(no CPU free there? set RayExecutor(workers_per_node=...))",
            )

    def _lost_name_race(self, slot: Slot) -> bool:
        """Two executors asked for the same name at once and the cluster kept the other's actor."""
        other = self._find(slot.name)
        mine = getattr(slot.handle, "_actor_id", None)
        return other is not None and mine is not None and getattr(other, "_actor_id", None) != mine

    def _failed(self, slot: Slot, message: str) -> None:
        log.warning("%s; retrying in %g s", message, RETRY_START_AFTER_S)
        self.last_error[slot.key] = message
        self.backoff.hold((slot.node_id, slot.key))
        self.drop(slot, message)

    def drop(self, slot: Slot, why: str) -> None:
        """Stop using ``slot``'s worker; stop the actor too if this executor started it."""
        level = logging.DEBUG if why == CLOSING else logging.INFO  # closing is not news
        log.log(level, "dropping a %s worker on node %s: %s", slot.workload.name, slot.node_id[:12], why)
        self.supervisor.stop(slot.name, slot)

    # -- for a call --------------------------------------------------------------------------
    def up(self, workload: Workload) -> list[Slot]:
        return [s for s in self.slots if s.key == workload.digest and s.where is not None]

    def for_call(self, workload: Workload) -> list[Slot]:
        """The workers a call of ``workload`` uses (waiting for the first ones to start); raises
        when the cluster can run none."""
        self.refresh(workload)
        deadline = time.monotonic() + self.start_timeout_s
        while not self.up(workload):
            starting = [s for s in self.slots if s.key == workload.digest and s.where is None]
            if not starting:
                break
            self.ray.wait(
                [s.ready_ref for s in starting],
                num_returns=len(starting),
                timeout=max(0.0, deadline - time.monotonic()),
            )
            self.refresh(workload)
        slots = self.up(workload)
        if not slots:
            raise self._none_error(workload)
        for slot in slots:
            if slot.stale:
                slot.stale = list(self.ray.wait(slot.stale, num_returns=len(slot.stale), timeout=0)[1])
        free = [s for s in slots if not s.stale]
        return free or slots

    def _none_error(self, workload: Workload) -> ExecutorError | EngineUnavailableError:
        cause, name = self.last_error.get(workload.digest, ""), workload.name
        if workload.needs.docker:
            if not cause:
                cause = f"no node of the Ray cluster offers the {self.docker_resource!r} resource"
            return EngineUnavailableError(
                f"no {name} worker runs on the Ray cluster: {cause}. Start the nodes that have a Docker engine "
                f"(and the sandbox image) with `ray start ... --resources='{{\"{self.docker_resource}\": 1}}'`"
            )
        return ExecutorError(f"no {name} worker runs on the Ray cluster: {cause or 'no node has what it needs'}")

    def close(self, timeout_s: float = 30.0) -> None:
        """Close the state (containers, models) of the workers this executor started, kill them,
        then run each workload's ``sweep`` on the nodes where it ran, for what workers killed on
        the way (SIGKILL, a lost node) left behind. Workers found on the cluster are left to
        their owner."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        closing = [s.handle.close.remote() for s in self.slots if s.where is not None and s.owned and s.workload.close]
        if closing:
            self.ray.wait(closing, num_returns=len(closing), timeout=timeout_s)
        for slot in self.slots:
            log.debug("dropping a %s worker on node %s: %s", slot.workload.name, slot.node_id[:12], CLOSING)
        self.supervisor.close()
        alive = {n["NodeID"] for n in self.ray.nodes() if n.get("Alive")}
        sweeps = []
        for workload, nodes in self.swept.values():
            sweep = self.ray.remote(workload.sweep)
            for node_id in sorted(nodes & alive):
                where = NodeAffinitySchedulingStrategy(node_id, soft=False)
                sweeps.append(sweep.options(num_cpus=0, scheduling_strategy=where).remote())
        if sweeps:
            self.ray.wait(sweeps, num_returns=len(sweeps), timeout=timeout_s)
