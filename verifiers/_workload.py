"""The executor seam as values: a `Workload` (a kind of judging) and the `Executor` protocol that
runs one. Verifiers define workloads and take an executor; executors run any workload and know
no verifier. Neither side imports the other: both import this module.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from verifiers.errors import VerifierInputError
from verifiers.result import VerifyResult

__all__ = ["Executor", "Needs", "Workload", "docker_here", "release"]

log = logging.getLogger("verifiers.executors")

BatchFn = Callable[[Any, list[Any], list[Any], dict[str, Any]], list[VerifyResult]]
"""``batch(state, references, completions, options)``: one verdict per completion, in order."""
OpenFn = Callable[..., Any]
"""``open(cpus=N, **settings)``: a worker's long-lived state, opened once per worker."""


@functools.cache
def release() -> str:
    """This release of grpo-envs ("dev" in a checkout that is not installed); read on first use,
    since looking it up costs ~0.1 s."""
    import importlib.metadata

    try:
        return importlib.metadata.version("grpo-envs")
    except importlib.metadata.PackageNotFoundError:
        return "dev"


@dataclass(frozen=True)
class Needs:
    """What one worker of a workload needs where it runs.

    ``cpu`` and ``gpu`` are what each worker holds (a Ray executor starts as many workers on a
    node as its CPUs, or GPUs, hold; a worker that holds neither runs once per node).
    ``docker``: a Docker engine with the sandbox image (only nodes that offer it). ``network``:
    the worker reaches the network (a `RayExecutor` given a ``network_resource`` places it only
    on nodes that offer that resource; otherwise anywhere).

    Examples:
        >>> Needs(cpu=0, docker=True)
        Needs(cpu=0, gpu=0, docker=True, network=False)
    """

    cpu: float = 1
    gpu: float = 0
    docker: bool = False
    network: bool = False

    def __post_init__(self) -> None:
        for name in ("cpu", "gpu"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0 or math.isinf(value):
                raise VerifierInputError(f"Needs.{name} must be a finite number >= 0, got {value!r}")


def docker_here() -> bool:
    """Whether this machine has what ``Needs.docker`` asks for: a Docker engine that answers
    (within 2 s) and holds the sandbox image. An executor that starts a local Ray cluster asks it
    (the cluster then offers the ``docker`` resource, so code is judged on it too). The need says
    how it is checked, here beside `Needs`, so executors know no sandbox; the sandbox is imported
    only when this runs."""
    try:
        from verifiers.sandbox import engine_client, image_exists

        client = engine_client(timeout_s=2.0)
        try:
            return bool(image_exists(client))
        finally:
            client.close()
    except Exception as exc:  # no engine, no SDK: a cluster for math only
        log.debug("no sandbox on this machine for a local Ray cluster: %s", exc)
        return False


def _qualified(fn: Callable[..., Any] | None) -> str:
    if fn is None:
        return "-"
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


@dataclass(frozen=True)
class Workload:
    """A kind of judging as a small picklable value: what each worker needs, how a worker opens
    its long-lived state once (a sympy pool, a sandbox pool, a loaded model, an HTTP client),
    and the batch function it runs on that state. Executors (`verifiers.executors`) run any
    workload on long-lived workers, one set per `digest`.

    ``batch(state, references, completions, options)`` returns one `VerifyResult` per
    completion, in order, and never raises on model output. It gets ``state=None`` for items
    that are not text (a `RayExecutor` judges those in the caller, never ships them), so it
    must judge non-text without its state. ``open(cpus=N, **settings)`` returns the state
    (``cpus``: how many CPUs the worker may use); ``close(state)`` releases it; ``sweep()``, run
    on each node after its workers are closed, removes what killed workers left there.
    ``concurrent``: one worker may run several batches at once (its work runs elsewhere:
    containers, a server). ``settings`` decide how the state is opened (not the verdicts'
    options, which come with each call); their ``repr`` must be stable across processes.

    The functions must be importable by qualified name, or defined in a module an executor can
    pickle by value (a test file, your own module): no lambdas.

    Examples:
        >>> from verifiers import VerifyResult
        >>> def exact(state, refs, comps, options):
        ...     return [VerifyResult.judged("correct" if c == r else "incorrect", "same?") for r, c in zip(refs, comps)]
        >>> kind = Workload("exact", exact, needs=Needs(cpu=0))
        >>> [r.status for r in kind.batch(None, ["1", "2"], ["1", "3"], {})]
        ['correct', 'incorrect']
        >>> len(kind.digest) == 16 and kind.digest == Workload("exact", exact, needs=Needs(cpu=0)).digest
        True
    """

    name: str
    batch: BatchFn
    open: OpenFn | None = None
    close: Callable[[Any], object] | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    needs: Needs = field(default_factory=Needs)
    concurrent: bool = False
    sweep: Callable[[], object] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise VerifierInputError(f"a workload's name must be an identifier such as 'math', got {self.name!r}")
        for name in ("batch", "open", "close", "sweep"):
            fn = getattr(self, name)
            if (fn is not None or name == "batch") and not callable(fn):
                raise VerifierInputError(f"Workload.{name} must be a function, got {fn!r}")
        if not isinstance(self.settings, Mapping) or not all(isinstance(k, str) for k in self.settings):
            raise VerifierInputError(f"Workload.settings must map names to values, got {self.settings!r}")
        if not isinstance(self.needs, Needs):
            raise VerifierInputError(f"Workload.needs must be a Needs, got {self.needs!r}")
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))

    def __reduce__(self) -> tuple[type[Workload], tuple[object, ...]]:
        """Pickle as the fields (a mapping proxy does not pickle): workloads travel to workers."""
        fields = (self.name, self.batch, self.open, self.close, dict(self.settings), self.needs)
        return (type(self), (*fields, self.concurrent, self.sweep))

    @functools.cached_property
    def digest(self) -> str:
        """What names this workload's workers, stable across processes and machines: the
        qualified names of its functions, its settings, needs and the release (computed once)."""
        fns = "|".join(_qualified(fn) for fn in (self.batch, self.open, self.close, self.sweep))
        settings = repr(sorted(self.settings.items()))
        text = f"{release()}|{self.name}|{fns}|{settings}|{self.needs!r}|{self.concurrent}"
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def with_settings(self, **settings: Any) -> Workload:
        """This workload with some settings changed (another digest: other workers).

        Examples:
            >>> Workload("k", print, settings={"size": 1}).with_settings(size=2).settings["size"]
            2
        """
        return replace(self, settings={**self.settings, **settings})

    def open_state(self, cpus: int) -> Any:
        """A worker's state (None without ``open``), for a worker that may use ``cpus`` CPUs."""
        return None if self.open is None else self.open(cpus=cpus, **self.settings)


@runtime_checkable
class Executor(Protocol):
    """Where a batch of a `Workload` is judged: `LocalExecutor` (this process) or `RayExecutor`
    (long-lived workers on a Ray cluster), both in `verifiers.executors`.

    ``map(workload, references, completions, options)`` returns one `VerifyResult` per
    completion, in input order, and never raises on model output or on a lost worker (those
    are verdicts with status "error" or "timeout"). ``references`` are checked by the caller
    (e.g. ``verify_many``) before anything is sent; ``options`` are the batch function's.
    """

    def map(
        self,
        workload: Workload,
        references: Sequence[Any],
        completions: Sequence[Any],
        options: Mapping[str, Any],
    ) -> list[VerifyResult]: ...

    def close(self) -> None: ...
