"""The long-lived judge actors of a `RayExecutor`, kept in step with the cluster's nodes.

Per alive node: ``math_actors`` `MathJudge` actors of one CPU each (default: the node's
CPUs), and one `CodeJudge` on each node that offers the ``docker`` resource (so a node without
an engine never receives code). A kind's actors start at its first call, in the background
after that; a call waits for them only when none of its kind is up yet. A dead actor (or one
on a dead node) is replaced at the next call of its kind; a start that fails or does not
finish in ``start_timeout_s`` is tried again a minute later.

The actors are named (namespace `NAMESPACE`, one name per node, kind, index and settings), so
every executor on the cluster shares them: the ranks of a torchrun job, or several reward
workers, find the actors the first one started instead of asking for the node's CPUs again.
An executor stops only the actors it started itself.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from verifiers.errors import EngineUnavailableError, ExecutorError
from verifiers.executors._actors import CodeJudge, MathJudge, sweep_orphans
from verifiers.executors._base import Kind

__all__ = ["ActorInfo", "Fleet", "Slot"]

log = logging.getLogger("verifiers.executors")

RETRY_START_AFTER_S = 60.0
CLOSING = "the executor is closing"
NAMESPACE = "grpo-envs-judges"


@functools.cache
def _release() -> str:
    """This release (in the actors' names: executors of another release never share actors);
    read on first use, since looking it up costs ~0.1 s."""
    import importlib.metadata

    try:
        return importlib.metadata.version("grpo-envs")
    except importlib.metadata.PackageNotFoundError:  # a checkout on PYTHONPATH
        return "dev"


"""The Ray namespace of the judge actors (shared by every executor on a cluster)."""


@dataclass(frozen=True)
class ActorInfo:
    """One judge actor of a `RayExecutor`: what it judges, where it runs, how much it did.

    ``node_id`` and ``pid`` are the actor's own (as it reported them once started); ``chunks``
    counts the chunks it has judged.
    """

    kind: Kind
    node_id: str
    pid: int
    host: str
    chunks: int


@dataclass
class Slot:
    """An actor of the fleet, starting (``where`` is None) or up."""

    kind: Kind
    node_id: str
    handle: Any
    ready_ref: Any
    started_at: float
    name: str = ""
    owned: bool = True  # started by this executor (else found on the cluster: never stopped by it)
    where: dict[str, Any] | None = None
    chunks: int = 0
    stale: list[Hashable] = field(default_factory=list)  # chunks still running after a timed-out call

    def info(self) -> ActorInfo:
        where = self.where or {}
        return ActorInfo(
            self.kind, str(where.get("node_id", "")), int(where.get("pid", 0)), str(where.get("host", "")), self.chunks
        )


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return (lines[-1] if lines else type(exc).__name__)[:300]


class Fleet:
    """The judge actors on a connected Ray cluster (``ray`` is the imported module)."""

    def __init__(
        self,
        ray: Any,
        *,
        math_actors: int | None,
        code_containers: int | None,
        docker_resource: str,
        start_timeout_s: float,
        code_concurrency: int,
    ) -> None:
        self.ray = ray
        self.math_actors = math_actors
        self.code_containers = code_containers
        self.docker_resource = docker_resource
        self.start_timeout_s = start_timeout_s
        self.code_concurrency = code_concurrency
        self.slots: list[Slot] = []
        self.cooldown: dict[tuple[str, Kind], float] = {}
        self.last_error: dict[Kind, str] = {}
        self._classes: dict[Kind, Any] = {}
        self.code_nodes: set[str] = set()  # nodes that had a code judge: swept at close

    # -- starting ----------------------------------------------------------------------------
    def _wanted(self, node: dict[str, Any], kind: Kind) -> int:
        resources = node.get("Resources", {})
        if kind == "code":
            return 1 if resources.get(self.docker_resource, 0) >= 1 else 0
        return int(resources.get("CPU", 0)) if self.math_actors is None else self.math_actors

    def _name(self, node_id: str, kind: Kind, index: int) -> str:
        """The actor's name on the cluster: executors with the same settings share it."""
        if kind == "math":
            settings = "workers=1"
        else:
            settings = f"containers={self.code_containers},concurrency={self.code_concurrency},{self.docker_resource}"
        digest = hashlib.sha256(f"{_release()}|{node_id}|{settings}".encode()).hexdigest()[:16]
        return f"{kind}-judge-{digest}-{index}"

    def _start(self, node_id: str, kind: Kind, index: int) -> Slot:
        """The ``index``-th ``kind`` actor of ``node_id``: found on the cluster, else started."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        name = self._name(node_id, kind, index)
        found = self._find(name)
        if found is not None:
            return Slot(kind, node_id, found, found.ready.remote(), time.monotonic(), name=name, owned=False)
        if kind not in self._classes:
            self._classes[kind] = self.ray.remote(MathJudge if kind == "math" else CodeJudge)
        where = NodeAffinitySchedulingStrategy(node_id, soft=False)
        if kind == "math":
            opts: dict[str, Any] = {"num_cpus": 1}
            args: dict[str, Any] = {"workers": 1}
        else:
            opts = {"num_cpus": 0, "resources": {self.docker_resource: 1}, "max_concurrency": self.code_concurrency}
            args = {"containers": self.code_containers}
        opts.update(name=name, namespace=NAMESPACE, scheduling_strategy=where, max_restarts=0)
        try:
            handle = self._classes[kind].options(**opts).remote(**args)
        except ValueError:  # another executor took the name just now: share its actor
            found = self._find(name)
            if found is None:
                raise
            return Slot(kind, node_id, found, found.ready.remote(), time.monotonic(), name=name, owned=False)
        return Slot(kind, node_id, handle, handle.ready.remote(), time.monotonic(), name=name)

    def _find(self, name: str) -> Any:
        try:
            return self.ray.get_actor(name, namespace=NAMESPACE)
        except ValueError:  # no live actor has that name
            return None

    def refresh(self, kind: Kind) -> None:
        """Take in actors that came up, drop stuck ones and those of gone nodes, and start the
        ``kind`` actors the nodes lack (code judges, and their containers, only once code comes)."""
        nodes = {n["NodeID"]: n for n in self.ray.nodes() if n.get("Alive")}
        now = time.monotonic()
        for slot in list(self.slots):
            if slot.node_id not in nodes:
                self.drop(slot, "its node left the cluster")
            elif slot.where is None:
                self._check_start(slot, now)
        for node_id, node in nodes.items():
            have = {s.name for s in self.slots if s.node_id == node_id and s.kind == kind}
            names = {self._name(node_id, kind, k): k for k in range(self._wanted(node, kind))}
            missing = [k for name, k in names.items() if name not in have]
            if missing and self.cooldown.get((node_id, kind), 0.0) <= now:
                self.slots += [self._start(node_id, kind, k) for k in missing]
                if kind == "code" and any(s.owned for s in self.slots if s.node_id == node_id and s.kind == kind):
                    self.code_nodes.add(node_id)

    def _check_start(self, slot: Slot, now: float) -> None:
        ready, _ = self.ray.wait([slot.ready_ref], num_returns=1, timeout=0)
        if ready:
            try:
                slot.where = self.ray.get(slot.ready_ref)
            except Exception as exc:  # its constructor failed (no engine, no image): say so, try later
                if not slot.owned or self._lost_name_race(slot):  # find or start another at once
                    self.drop(slot, f"the shared actor is gone: {_first_line(exc)}")
                    return
                self._failed(
                    slot, f"a {slot.kind} actor could not start on node {slot.node_id[:12]}: {_first_line(exc)}"
                )
        elif now - slot.started_at > self.start_timeout_s:
            self._failed(
                slot,
                f"a {slot.kind} actor did not start on node {slot.node_id[:12]} within {self.start_timeout_s:g} s "
                "(no CPU free there? set RayExecutor(math_actors_per_node=...))",
            )

    def _lost_name_race(self, slot: Slot) -> bool:
        """Two executors asked for the same name at once and the cluster kept the other's actor."""
        other = self._find(slot.name)
        mine = getattr(slot.handle, "_actor_id", None)
        return other is not None and mine is not None and getattr(other, "_actor_id", None) != mine

    def _failed(self, slot: Slot, message: str) -> None:
        log.warning("%s; retrying in %g s", message, RETRY_START_AFTER_S)
        self.last_error[slot.kind] = message
        self.cooldown[(slot.node_id, slot.kind)] = time.monotonic() + RETRY_START_AFTER_S
        self.drop(slot, message)

    def drop(self, slot: Slot, why: str) -> None:
        """Stop using ``slot``'s actor; stop the actor too if this executor started it."""
        if slot in self.slots:
            self.slots.remove(slot)
        closing = why == CLOSING  # not news: at debug level
        log.log(
            logging.DEBUG if closing else logging.INFO,
            "dropping a %s actor on node %s: %s",
            slot.kind,
            slot.node_id[:12],
            why,
        )
        if not slot.owned:  # another executor's: it may still be using it
            return
        try:
            self.ray.kill(slot.handle, no_restart=True)
        except Exception as exc:  # already gone
            log.debug("ray.kill failed: %s", exc)

    # -- for a call --------------------------------------------------------------------------
    def up(self, kind: Kind) -> list[Slot]:
        return [s for s in self.slots if s.kind == kind and s.where is not None]

    def for_call(self, kind: Kind) -> list[Slot]:
        """The actors a call of ``kind`` uses (waiting for the first ones to start); raises
        when the cluster can run none."""
        self.refresh(kind)
        deadline = time.monotonic() + self.start_timeout_s
        while not self.up(kind):
            starting = [s for s in self.slots if s.kind == kind and s.where is None]
            if not starting:
                break
            self.ray.wait(
                [s.ready_ref for s in starting],
                num_returns=len(starting),
                timeout=max(0.0, deadline - time.monotonic()),
            )
            self.refresh(kind)
        slots = self.up(kind)
        if not slots:
            raise self._none_error(kind)
        for slot in slots:
            if slot.stale:
                slot.stale = list(self.ray.wait(slot.stale, num_returns=len(slot.stale), timeout=0)[1])
        free = [s for s in slots if not s.stale]
        return free or slots

    def _none_error(self, kind: Kind) -> ExecutorError | EngineUnavailableError:
        cause = self.last_error.get(kind, "")
        if kind == "code":
            if not cause:
                cause = f"no node of the Ray cluster offers the {self.docker_resource!r} resource"
            return EngineUnavailableError(
                f"no code judge runs on the Ray cluster: {cause}. Start the nodes that have a Docker engine "
                f"(and the sandbox image) with `ray start ... --resources='{{\"{self.docker_resource}\": 1}}'`"
            )
        return ExecutorError(f"no math judge runs on the Ray cluster: {cause or 'no node has a CPU'}")

    def close(self, timeout_s: float = 30.0) -> None:
        """Close the sandboxes (their containers) of the code judges this executor started, kill
        the actors it started, then remove the containers that judges killed on the way (SIGKILL,
        a lost node) left behind. Actors it found on the cluster are left to their owner."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        closing = [s.handle.close.remote() for s in self.slots if s.kind == "code" and s.where is not None and s.owned]
        if closing:
            self.ray.wait(closing, num_returns=len(closing), timeout=timeout_s)
        for slot in list(self.slots):
            self.drop(slot, CLOSING)
        alive = {n["NodeID"] for n in self.ray.nodes() if n.get("Alive")}
        sweep = self.ray.remote(sweep_orphans)
        sweeps = [
            sweep.options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False)).remote()
            for node_id in sorted(self.code_nodes & alive)
        ]
        if sweeps:
            self.ray.wait(sweeps, num_returns=len(sweeps), timeout=timeout_s)
