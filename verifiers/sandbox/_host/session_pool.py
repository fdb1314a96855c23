"""`SessionPool`: session containers started ahead, per image, so a session starts at once.

Kept small and separate on purpose: a set of pre-started containers per image, refilled in the
background, shrunk when idle. (Later it is one more user of a single supervisor of long-lived
workers, not a pool with restart logic of its own.)
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from verifiers.errors import SandboxError
from verifiers.sandbox._host.client import engine_client
from verifiers.sandbox._host.container import Container
from verifiers.sandbox._host.image import image_exists, image_tag
from verifiers.sandbox._host.session import Session, SessionLockdown, start_container

__all__ = ["SessionPool"]

log = logging.getLogger("verifiers.sandbox")


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
        self._idle: dict[str, list[Container]] = {}
        self._starting: dict[str, int] = {}
        self._used: dict[str, float] = {}
        self._closed = False
        self._starts = threading.Semaphore(parallel_starts)
        self._wake = threading.Event()
        self._shrinker = threading.Thread(target=self._shrink_loop, name="session-pool-shrink", daemon=True)
        self._shrinker.start()

    def warm(self, image: str | None = None, timeout_s: float = 120.0) -> None:
        """Start the image's warm containers now and wait until ``size`` are idle (else the
        first `session` starts them); `SandboxError` if they are not there within ``timeout_s``."""
        image = self._known(image or image_tag())
        with self._lock:
            self._used[image] = time.monotonic()
        self._refill(image)
        deadline = time.monotonic() + timeout_s
        while self.idle(image) < self.size:
            if time.monotonic() > deadline or self._closed:
                raise SandboxError(f"{self.size} warm sessions of {image} did not start within {timeout_s:g} s")
            self._refill(image)  # a start that failed is tried again
            time.sleep(0.02)

    def session(self, image: str | None = None) -> Session:
        """A session on a warm container of ``image`` (default: the sandbox image)."""
        image = self._known(image or image_tag())
        with self._lock:
            if self._closed:
                raise SandboxError("the session pool is closed")
            self._used[image] = time.monotonic()
            idle = self._idle.get(image)
            container = idle.pop() if idle else None
        self._refill(image)
        if container is None:
            container = self._start_prepared(image)
        return self._wrap(container)

    def prestart(self, image: str | None = None) -> None:
        """Start the image's missing warm containers in the background and return at once (as
        the first `session` would): call it when sessions of ``image`` are about to be asked for."""
        image = self._known(image or image_tag())
        with self._lock:
            self._used[image] = time.monotonic()
        self._refill(image)

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

    def _known(self, image: str) -> str:
        """``image``, once the engine has it (`SandboxError` naming it, before any start is tried)."""
        if image not in self._used and not image_exists(self.client, image):
            raise SandboxError(f"the image {image} is missing on the engine: build or load it first")
        return image

    def idle(self, image: str | None = None) -> int:
        """How many warm containers of ``image`` wait now."""
        with self._lock:
            return len(self._idle.get(image or image_tag(), []))

    def _refill(self, image: str) -> list[threading.Thread]:
        with self._lock:
            missing = self.size - len(self._idle.get(image, [])) - self._starting.get(image, 0)
            if self._closed or missing <= 0:
                return []
            self._starting[image] = self._starting.get(image, 0) + missing
        threads = [threading.Thread(target=self._start_one, args=(image,), daemon=True) for _ in range(missing)]
        for thread in threads:
            thread.start()
        return threads

    def _start_one(self, image: str) -> None:
        container = None
        try:
            with (
                self._starts
            ):  # refills one (or parallel_starts) at a time: they compete for the CPU with sessions at work
                if not self._closed:
                    container = self._start_prepared(image)
        except Exception as exc:
            log.warning("a warm session container of %s did not start: %s", image, exc)
        with self._lock:
            self._starting[image] -= 1
            if container is not None and not self._closed:
                self._idle.setdefault(image, []).append(container)
                self._used[image] = time.monotonic()  # idle from now on, not from the request that asked for it
                return
        if container is not None:
            container.destroy()

    def _shrink_loop(self) -> None:
        while not self._wake.wait(min(self.idle_s / 4, 5.0)):
            now = time.monotonic()
            with self._lock:
                stale = [image for image, used in self._used.items() if now - used > self.idle_s]
                doomed = [c for image in stale for c in self._idle.pop(image, [])]  # late starts land next round
            for container in doomed:
                container.destroy()

    def close(self) -> None:
        """Remove every warm container (sessions handed out are their owners' to close). Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            doomed = [c for containers in self._idle.values() for c in containers]
            self._idle.clear()
        self._wake.set()
        for container in doomed:
            container.destroy()
        self._shrinker.join(timeout=10)

    def __enter__(self) -> SessionPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
