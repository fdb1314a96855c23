"""`SessionPool`: session containers started ahead, per image, so a session starts at once.

One more user of the long-lived workers' supervisor (`verifiers._supervisor`): each image's warm
containers are a `Spares` of ``size`` (started in the background, ``parallel_starts`` at a time
across images, trimmed when idle); this module says only how a session container starts and stops,
and hands them out as `Session` objects. A session is never reused, so nothing here restarts.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from verifiers._supervisor import Spares
from verifiers.errors import SandboxError
from verifiers.sandbox._host.client import engine_client
from verifiers.sandbox._host.container import Container
from verifiers.sandbox._host.image import image_exists, image_tag
from verifiers.sandbox._host.session import Session, SessionLockdown, start_container

__all__ = ["SessionPool"]


class SessionPool:
    """Hands out `Session` objects from containers started ahead of time, ``size`` per image.

    `session` takes a warm container of that image when one is idle (else starts one, as
    `Session` would) and starts its replacement in the background; a session is never reused:
    its `close` removes its container. An image whose warm containers went unused for
    ``idle_s`` seconds (since the last one
    was asked for or started) has them removed (its pool shrinks to nothing and refills on next use).

    Args:
        size: warm containers kept per image (a GRPO step's G sessions of one task start at once
            when ``size >= G``).
        idle_s: an image's idle containers are removed after this long without a `session` call.
        root: commands run as uid 0 without capabilities (see `Session`).
        memory_mb: each container's memory (see `Session`).
        cpus: each container's CPU quota.
        pids_limit: each container's process limit.
        work_mb: each container's ``/work`` size.
        tmp_mb: each container's ``/tmp`` size.
        parallel_starts: how many background refills may start containers at once (each costs the
            engine CPU time that the sessions at work then lack: one at a time by default).
        client: a ``docker.DockerClient`` (default: `engine_client`).
        lockdown: the containers' whole lockdown (writable folders, mount points: what
            `verifiers.agentic.task_session` gives); it replaces ``root`` and the limits above.
        prepare: run on each new session before it waits in the pool (fill a folder, ``cd``):
            what it leaves is there when the session is handed out; a container it fails on is
            removed (on a hand-out with no warm container, its error is raised).
        session_kwargs: passed to every `Session` (``timeout_s``, ``out_cap``, ``file_cap``).

    Examples:
        >>> with SessionPool(size=4) as pool:  # doctest: +SKIP
        ...     with pool.session() as s:
        ...         s.exec("echo hi").stdout
        'hi\\n'
    """

    def __init__(
        self,
        *,
        size: int = 4,
        idle_s: float = 300.0,
        root: bool = False,
        memory_mb: int = 512,
        cpus: float = 1.0,
        pids_limit: int = 128,
        work_mb: int = 256,
        tmp_mb: int = 64,
        parallel_starts: int = 1,
        client: Any = None,
        lockdown: SessionLockdown | None = None,
        prepare: Callable[[Session], None] | None = None,
        **session_kwargs: Any,
    ) -> None:
        if size < 1:
            raise SandboxError(f"size must be >= 1, got {size}")
        self.size = size
        self.idle_s = idle_s
        self.lockdown = lockdown or SessionLockdown(
            root=root, memory_mb=memory_mb, cpus=cpus, pids_limit=pids_limit, work_mb=work_mb, tmp_mb=tmp_mb
        )
        self.root = self.lockdown.root
        self.memory_mb = self.lockdown.memory_mb
        self.prepare = prepare
        self.session_kwargs = session_kwargs
        self.client = client or engine_client()
        self.pool_id = f"session-pool-{uuid.uuid4().hex[:12]}"
        self._lock = threading.Lock()
        self._spares: dict[str, Spares[Container]] = {}  # per image
        self._closed = False
        self._starts = threading.Semaphore(parallel_starts)
        self._wake = threading.Event()
        self._shrinker = threading.Thread(target=self._shrink_loop, name="session-pool-shrink", daemon=True)
        self._shrinker.start()

    def warm(self, image: str | None = None, timeout_s: float = 120.0) -> None:
        """Start the image's warm containers now and wait until ``size`` are idle (else the
        first `session` starts them); `SandboxError` if they are not there within ``timeout_s``."""
        image = image or image_tag()
        spares = self._spares_of(image)
        spares.refill()
        deadline = time.monotonic() + timeout_s
        while len(spares.waiting) < self.size:
            if time.monotonic() > deadline or self._closed:
                raise SandboxError(f"{self.size} warm sessions of {image} did not start within {timeout_s:g} s")
            spares.refill()  # a start that failed is tried again
            time.sleep(0.02)

    def session(self, image: str | None = None) -> Session:
        """A session on a warm container of ``image`` (default: the sandbox image)."""
        image = image or image_tag()
        spares = self._spares_of(image)
        container = spares.take(0.0)
        spares.refill()
        if container is None:
            container = self._start_prepared(image)
        return self._wrap(container)

    def prestart(self, image: str | None = None) -> None:
        """Start the image's missing warm containers in the background and return at once (as
        the first `session` would): call it when sessions of ``image`` are about to be asked for."""
        self._spares_of(image or image_tag()).refill()

    def _wrap(self, container: Container) -> Session:
        return Session(root=self.root, memory_mb=self.memory_mb, container=container, **self.session_kwargs)

    def _start_prepared(self, image: str) -> Container:
        """A started container, `prepare` run on it (removed, and the error raised, if it fails)."""
        container = start_container(self.client, image, self.lockdown, self.pool_id)
        if self.prepare is not None:
            try:
                self.prepare(self._wrap(container))
            except BaseException:
                container.destroy()
                raise
        return container

    def _spares_of(self, image: str) -> Spares[Container]:
        """The warm containers of ``image``, counted as used now; `SandboxError` if the pool is closed
        or the engine lacks the image (naming it, before any start is tried)."""
        with self._lock:
            self._check_open()
            spares = self._spares.get(image)
        if spares is None:
            if not image_exists(self.client, image):
                raise SandboxError(f"the image {image} is missing on the engine: build or load it first")
            start = lambda: self._start_prepared(image)  # noqa: E731
            with self._lock:  # under the lock `close` takes: a set made here is one it closes
                self._check_open()
                spares = self._spares.setdefault(
                    image, Spares(start, Container.destroy, size=self.size, starts=self._starts)
                )
        spares.touch()
        return spares

    def _check_open(self) -> None:
        if self._closed:
            raise SandboxError("the session pool is closed")

    def idle(self, image: str | None = None) -> int:
        """How many warm containers of ``image`` wait now."""
        with self._lock:
            spares = self._spares.get(image or image_tag())
        return 0 if spares is None else len(spares.waiting)

    def waiting(self, image: str | None = None) -> list[str]:
        """The ids of the warm containers of ``image`` waiting now (each goes to one session)."""
        with self._lock:
            spares = self._spares.get(image or image_tag())
        return [] if spares is None else [c.id for c in spares.waiting]

    def _shrink_loop(self) -> None:
        while not self._wake.wait(min(self.idle_s / 4, 5.0)):
            with self._lock:
                images = list(self._spares.values())
            for spares in images:  # late starts land, and are trimmed, next round
                if spares.idle_for() > self.idle_s:
                    spares.trim()

    def close(self) -> None:
        """Remove every warm container (sessions handed out are their owners' to close). Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            images = list(self._spares.values())
        self._wake.set()
        for spares in images:
            spares.close()
        self._shrinker.join(timeout=10)

    def __enter__(self) -> SessionPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
