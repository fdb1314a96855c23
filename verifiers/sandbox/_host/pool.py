"""`DockerSandbox`: a pool of warm, locked-down containers on one or more Docker engines."""

from __future__ import annotations

import atexit
import base64
import concurrent.futures
import logging
import os
import queue
import threading
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from verifiers.errors import EngineUnavailableError, SandboxError
from verifiers.sandbox._host.classes import shared_classes
from verifiers.sandbox._host.client import how_to_start_engine
from verifiers.sandbox._host.container import Container, ContainerGone, Lockdown
from verifiers.sandbox._host.engines import Engine, remove_orphans, remove_pool
from verifiers.sandbox._host.image import image_exists, image_tag
from verifiers.sandbox._host.protocol import ExecResult, Job
from verifiers.sandbox._in_container.procs import wall_bound

__all__ = ["DockerSandbox", "default_sandbox"]

log = logging.getLogger("verifiers.sandbox")

OUT_CAP = 4 * 2**20


class DockerSandbox:
    """Runs untrusted Python in a pool of warm, locked-down Docker containers.

    Each container runs a supervisor as PID 1 (root with only SETUID, SETGID and KILL) that
    starts every job as a fresh ``python3`` under an unprivileged uid, in an emptied work dir,
    with a time limit (see ``timeout_s``) that kills the job's whole process tree. Containers have no
    network, a read-only root, capped tmpfs dirs, memory without swap, a pids limit, a CPU
    quota and no host mounts or host environment. A container is recycled after
    ``recycle_after`` jobs and at once after a timeout, OOM or output-cap hit.

    Args:
        size: containers per memory size (default: CPU count).
        engines: Docker engine URLs (``unix:///...``, ``tcp://...``); default: DOCKER_HOST.
            Containers are spread across them; an engine that stops answering is skipped.
        memory_mb: default memory per job (a job asking for another size gets its own pool).
        timeout_s: default time limit per program or test case: its own time, the wall clock
            minus its waits for a CPU behind other work, so a busy machine does not change a
            verdict, or the CPU time of its whole process tree over the CPU quota if that is
            larger (a fork bomb cannot stretch it); at most ``8 * timeout_s`` of wall time.
        engine_timeout_s: timeout of calls to an engine's API (a stopped engine is detected).
        stuck_after_s: how long past a job's own limit a silent container is declared stuck
            (it is then replaced and the job retried once).

    Examples:
        >>> with DockerSandbox(size=2) as box:  # doctest: +SKIP
        ...     box.run("print(input()[::-1])", stdin="abc").stdout
        'cba\\n'
    """

    def __init__(
        self,
        *,
        size: int | None = None,
        engines: Sequence[str] | None = None,
        image: str | None = None,
        memory_mb: int = 512,
        timeout_s: float = 10.0,
        recycle_after: int = 500,
        out_cap: int = OUT_CAP,
        cpus: float = 1.0,
        pids_limit: int = 128,
        engine_timeout_s: float = 10.0,
        stuck_after_s: float = 10.0,
    ) -> None:
        if size is not None and size < 1:
            raise SandboxError(f"size must be >= 1, got {size}")
        self.size = size or max(1, os.cpu_count() or 1)
        self.image = image or image_tag()
        self.memory_mb = memory_mb
        self.timeout_s = timeout_s
        self.recycle_after = recycle_after
        self.out_cap = out_cap
        self.cpus = cpus
        self.pids_limit = pids_limit
        self.stuck_after_s = stuck_after_s
        self.pool_id = uuid.uuid4().hex[:12]
        self._engines = [Engine(url, engine_timeout_s) for url in (list(engines) if engines else [None])]
        self.jobs_by_engine: dict[str, int] = {e.url: 0 for e in self._engines}
        for engine in self._engines:
            if not image_exists(engine.client, self.image):
                raise EngineUnavailableError(
                    f"the sandbox image {self.image} is missing on {engine.url}: run "
                    f"`DOCKER_HOST={engine.url} grpo-envs sandbox build-image` "
                    "(add --offline where no registry is reachable)"
                )
            remove_orphans(engine.client)
        self._lock = threading.Lock()
        self._idle: dict[int, queue.Queue[Container]] = {}
        self._count: dict[int, int] = {}
        self._next_engine = 0
        self._closed = False
        self._all: set[Container] = set()
        self._unremoved: list[Container] = []  # removal not confirmed: retried at close
        self._replacing: set[threading.Thread] = set()
        atexit.register(self.close)
        self._warm(memory_mb)

    # -- pool --------------------------------------------------------------------------------
    def _warm(self, memory_mb: int) -> None:
        with self._lock:
            if memory_mb in self._idle:
                return
            self._idle[memory_mb] = queue.Queue()
            self._count[memory_mb] = self.size
        with concurrent.futures.ThreadPoolExecutor(self.size) as threads:
            started = list(threads.map(lambda _: self._try_new(memory_mb), range(self.size)))
        for container in started:
            if container is None:
                with self._lock:
                    self._count[memory_mb] -= 1
            else:
                self._idle[memory_mb].put(container)
        if not any(started):
            raise EngineUnavailableError(f"no sandbox container could be started.\n{how_to_start_engine()}")

    def _engine(self) -> Any:
        with self._lock:
            for _ in range(len(self._engines)):
                engine = self._engines[self._next_engine % len(self._engines)]
                self._next_engine += 1
                if engine.healthy:
                    return engine
        return None

    def _new(self, memory_mb: int) -> Container:
        for _ in range(len(self._engines)):
            engine = self._engine()
            if engine is None:
                break
            try:
                container = Container(
                    engine.client,
                    self.image,
                    Lockdown(memory_mb=memory_mb, cpus=self.cpus, pids_limit=self.pids_limit),
                    self.pool_id,
                )
            except Exception as exc:
                log.warning("cannot start a sandbox container on %s: %s", engine.url, exc)
                engine.check()
                continue
            container.engine = engine  # type: ignore[attr-defined]
            with self._lock:
                self._all.add(container)
            return container
        raise EngineUnavailableError(f"no Docker engine can start a sandbox container.\n{how_to_start_engine()}")

    def _try_new(self, memory_mb: int) -> Container | None:
        try:
            return self._new(memory_mb)
        except Exception as exc:
            log.warning("sandbox container start failed: %s", exc)
            return None

    def _retire(self, container: Container) -> None:
        with self._lock:
            self._all.discard(container)
        if not container.destroy():
            with self._lock:
                self._unremoved.append(container)

    def _replace_later(self, container: Container, memory_mb: int) -> None:
        """Retire ``container`` and start its replacement, both in the background."""
        with self._lock:
            self._all.discard(container)

        def replace() -> None:
            try:
                self._retire(container)
                fresh = None if self._closed else self._try_new(memory_mb)
                if fresh is None or self._closed:
                    with self._lock:
                        self._count[memory_mb] -= 1
                    if fresh is not None:
                        self._retire(fresh)
                    return
                self._idle[memory_mb].put(fresh)
            finally:
                with self._lock:
                    self._replacing.discard(thread)

        thread = threading.Thread(target=replace, name="sandbox-replace", daemon=True)
        with self._lock:
            self._replacing.add(thread)
        thread.start()

    def _acquire(self, memory_mb: int) -> Container:
        self._warm(memory_mb)
        while True:
            with self._lock:
                if self._count[memory_mb] == 0:
                    self._count[memory_mb] += 1
                    grow = True
                else:
                    grow = False
            if grow:
                return self._new(memory_mb)
            try:
                return self._idle[memory_mb].get(timeout=5.0)
            except queue.Empty:
                if self._closed:
                    raise SandboxError("the sandbox is closed") from None

    def _submit(self, msg: dict[str, Any], memory_mb: int, wait_s: float) -> dict[str, Any]:
        """Run one supervisor request; one retry on a fresh container if ours fails."""
        if self._closed:
            raise SandboxError("the sandbox is closed")
        msg = {**msg, "memory_mb": memory_mb}  # the program's own limit inside (see `_in_container.zygote.become_job`)
        last: Exception | None = None
        for _attempt in range(2):
            container = self._acquire(memory_mb)
            try:
                reply = container.request(msg, timeout_s=wait_s)
            except ContainerGone as exc:
                last = exc
                engine = getattr(container, "engine", None)
                if engine is not None:
                    engine.check()
                self._replace_later(container, memory_mb)
                continue
            except BaseException:  # interrupted mid-job (KeyboardInterrupt, a malformed reply): its state is unknown
                self._replace_later(container, memory_mb)
                raise
            container.jobs += 1
            engine = getattr(container, "engine", None)
            if engine is not None:
                with self._lock:
                    self.jobs_by_engine[engine.url] += 1
            if reply.get("dirty") or container.jobs >= self.recycle_after or "error" in reply:
                self._replace_later(container, memory_mb)
            else:
                self._idle[memory_mb].put(container)
            if "error" in reply:
                raise ContainerGone(f"the supervisor failed: {reply['error']}")
            return reply
        raise ContainerGone(f"the sandbox failed twice: {last}")

    # -- the Sandbox protocol ----------------------------------------------------------------
    def run(
        self,
        code: str,
        *,
        stdin: str = "",
        files: Mapping[str, str | bytes] | None = None,
        timeout_s: float | None = None,
        memory_mb: int | None = None,
    ) -> ExecResult:
        """Run ``code`` as ``__main__`` with ``stdin``; never raises for the program's faults."""
        timeout = timeout_s or self.timeout_s
        msg = {
            "op": "run",
            "source": code,
            "stdin": base64.b64encode(stdin.encode()).decode(),
            "files": {
                name: base64.b64encode(data.encode() if isinstance(data, str) else data).decode()
                for name, data in (files or {}).items()
            },
            "timeout_s": timeout,
            "out_cap": self.out_cap,
        }
        try:
            reply = self._submit(msg, memory_mb or self.memory_mb, wall_bound(timeout) + self.stuck_after_s)
        except SandboxError as exc:
            return ExecResult(error=str(exc))
        return ExecResult(
            stdout=base64.b64decode(reply["stdout"]).decode("utf-8", "replace"),
            stderr=base64.b64decode(reply["stderr"]).decode("utf-8", "replace"),
            exit_code=reply["exit_code"],
            timed_out=reply["timed_out"],
            oom_killed=reply["oom_killed"],
            truncated=reply["truncated"],
            duration_s=reply["duration_s"],
        )

    def run_many(self, jobs: Sequence[Job]) -> list[ExecResult]:
        """Run jobs concurrently over the pool; results in the same order."""

        def one(job: Job) -> ExecResult:
            return self.run(
                job.code,
                stdin=job.stdin,
                files=job.files,
                timeout_s=job.timeout_s,
                memory_mb=job.memory_mb,
            )

        with concurrent.futures.ThreadPoolExecutor(self.size * len(self._engines)) as threads:
            return list(threads.map(one, jobs))

    def call(
        self,
        code: str,
        fn_name: str,
        calls: Sequence[Sequence[Any]],
        *,
        timeout_s: float | None = None,
        suite_timeout_s: float | None = None,
        memory_mb: int | None = None,
    ) -> list[dict[str, Any]]:
        """Load ``code`` and call ``fn_name(*args)`` for each ``args`` (encoded values back)."""
        from verifiers.sandbox._in_container.wire import encode

        timeout = timeout_s or self.timeout_s
        suite = suite_timeout_s or timeout * max(1, len(calls)) + 5
        msg = {
            "op": "call",
            "source": code,
            "fn_name": fn_name,
            "timeout_s": timeout,
            "suite_timeout_s": suite,
            "calls": [[encode(a) for a in args] for args in calls],
        }
        reply = self._submit(msg, memory_mb or self.memory_mb, wall_bound(suite) + self.stuck_after_s)
        return list(reply["results"])

    def run_tests(
        self,
        code: str,
        tests: Sequence[str],
        *,
        entry_point: str = "",
        setup: str = "",
        timeout_s: float | None = None,
        suite_timeout_s: float | None = None,
        memory_mb: int | None = None,
    ) -> list[dict[str, Any]]:
        """Run each test statement in a tester process against ``code`` (see `verifiers.code`);
        the test code's classes that ``code`` lacks are defined for it first (see `_host.classes`)."""
        timeout = timeout_s or self.timeout_s
        suite = suite_timeout_s or (timeout + 5) * max(1, len(tests)) + 5
        msg = {
            "op": "run_tests",
            "source": code,
            "tests": list(tests),
            "entry_point": entry_point,
            "setup": setup,
            "classes": shared_classes(setup, code),
            "timeout_s": timeout,
            "suite_timeout_s": suite,
        }
        reply = self._submit(msg, memory_mb or self.memory_mb, wall_bound(suite) + self.stuck_after_s)
        return list(reply["records"])

    def close(self) -> None:
        """Remove every container of this pool, and wait until the engines confirm it. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            containers = [*self._all, *self._unremoved]
            self._all.clear()
            self._unremoved.clear()
            replacing = list(self._replacing)
        for container in containers:
            container.destroy()
        for thread in replacing:  # a replacement being started retires itself once it sees the pool closed
            thread.join(timeout=60)
        for engine in self._engines:
            remove_pool(engine.client, self.pool_id)
        for engine in self._engines:
            try:
                engine.client.close()
            except Exception as exc:  # closing is best effort: the pool is going away
                log.debug("closing the client of %s failed: %s", engine.url, exc)

    def __enter__(self) -> DockerSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_default: DockerSandbox | None = None
_default_lock = threading.Lock()


def default_sandbox() -> DockerSandbox:
    """The process-wide pool used when ``sandbox=None`` (created on first use, closed at exit)."""
    global _default
    with _default_lock:
        if _default is None or _default._closed:
            _default = DockerSandbox()
        return _default
