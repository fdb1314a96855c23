"""`Session`: one locked-down container for one episode, whose state persists between commands.

The container is a job container (see `container`) whose supervisor also answers ``exec``,
``write`` and ``read`` (see `_in_container.sessions`) and never wipes or kills between them.
It is removed by `Session.close`, and, like every sandbox container, by the engine once its
supervisor's stdin closes: when the owning process exits or is killed, nothing is left.
"""

from __future__ import annotations

import base64
import logging
import threading
import uuid
from typing import Any

from verifiers.errors import SandboxError
from verifiers.sandbox._host.client import engine_client
from verifiers.sandbox._host.container import Container, ContainerGone, Lockdown
from verifiers.sandbox._host.image import image_exists, image_tag
from verifiers.sandbox._host.protocol import ExecResult
from verifiers.sandbox._in_container.procs import wall_bound

__all__ = ["Session", "SessionLockdown"]

log = logging.getLogger("verifiers.sandbox")

OUT_CAP = 4 * 2**20
FILE_CAP = 16 * 2**20
COMMAND_CAP = 100 * 2**10  # one argument of bash: the kernel caps it at 128 KiB


_NOT_WRITABLE = ("/proc", "/sys", "/dev", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/tester")


def _writable_dir(path: str) -> str:
    """``path`` normalised, or `SandboxError` when it cannot be a writable folder of a session."""
    norm = "/" + "/".join(p for p in path.split("/") if p)
    if not path.startswith("/") or ".." in path.split("/") or norm in ("/", "/work", "/tmp"):
        raise SandboxError(f"writable={path!r}: name an absolute folder other than /, /work and /tmp")
    if any(norm == d or norm.startswith(d + "/") for d in _NOT_WRITABLE):
        raise SandboxError(f"writable={path!r}: a system folder cannot be made writable")
    return norm


class SessionLockdown(Lockdown):
    """A job container's lockdown (see `Lockdown`) with the session user's ``/work`` (uid 0 when
    ``root``) as its home, and no tester directory. ``writable`` names more folders (a task's
    ``/app``) that are, as ``/work``, a tmpfs of ``work_mb`` owned by the session user and
    counted in the memory limit; the root file system stays read-only. Programs written to them
    may be run (they are mounted ``exec``; ``/tmp`` is not)."""

    def __init__(self, *, root: bool = False, writable: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.root = root
        self.writable = tuple(dict.fromkeys(_writable_dir(p) for p in writable))

    def create_kwargs(self, job_uid: int, tester_uid: int) -> dict[str, Any]:
        kwargs = super().create_kwargs(job_uid, tester_uid)
        uid = 0 if self.root else job_uid
        # exec: the agent runs what it writes there (``./script``, ``pip install --user`` entry points);
        # Docker mounts a tmpfs noexec unless told. nosuid and nodev stay.
        owned = f"size={self.work_mb}m,uid={uid},gid={uid},mode=0755,exec"
        kwargs["tmpfs"] = {
            "/work": owned,
            "/tmp": f"size={self.tmp_mb}m,mode=1777",
            **{path: owned for path in self.writable},
        }
        return kwargs


class Session:
    """A container for one episode: commands run in ``bash`` and what they leave persists.

    Files, installed packages (``pip install --user``: ``HOME`` is ``/work``), background
    processes, the working directory and exported variables carry over from one `exec` to the
    next. The lockdown is a job's (no network, every capability dropped, read-only root, size-capped
    tmpfs ``/work`` and ``/tmp`` counted in the memory limit, pids, memory and CPU limits); with
    ``root=True`` commands run as uid 0 inside the container, still without any capability (see
    the sandbox docs for what that allows). A command's time limit counts every process in the
    container; past it the command's processes are killed and the session stays usable.

    Args:
        image: the container image (default: the sandbox image); it needs ``python3`` and ``bash``.
        root: run commands as uid 0 (no capabilities) instead of an unprivileged uid.
        memory_mb: memory of the container's processes and tmpfs files together.
        timeout_s: default time limit of one command.
        cpus: the container's CPU quota.
        pids_limit: processes and threads the container may hold at once.
        work_mb: size of the writable ``/work`` (home and start directory), a tmpfs.
        writable: more folders made writable for the session user (such as a task's ``/app``),
            each an empty tmpfs of ``work_mb`` counted in the memory limit.
        tmp_mb: size of the writable ``/tmp``, a tmpfs.
        out_cap: bytes kept of each of a command's stdout and stderr (past it: ``truncated``).
        file_cap: the largest file `write_file` sends or `read_bytes` returns.
        client: a ``docker.DockerClient`` (default: `engine_client`).
        stuck_after_s: how long past a command's own wall-time bound a silent container is gone.
        container: a started container to use (what `SessionPool` hands over).

    Examples:
        >>> with Session() as s:  # doctest: +SKIP
        ...     s.exec("cd /tmp && export X=1")
        ...     s.exec("echo $X; pwd").stdout
        '1\\n/tmp\\n'
    """

    def __init__(
        self,
        *,
        image: str | None = None,
        root: bool = False,
        memory_mb: int = 512,
        cpus: float = 1.0,
        pids_limit: int = 128,
        timeout_s: float = 30.0,
        work_mb: int = 256,
        tmp_mb: int = 64,
        writable: tuple[str, ...] = (),
        out_cap: int = OUT_CAP,
        file_cap: int = FILE_CAP,
        client: Any = None,
        stuck_after_s: float = 10.0,
        container: Container | None = None,
    ) -> None:
        self.root = root
        self.timeout_s = timeout_s
        self.out_cap = out_cap
        self.file_cap = file_cap
        self.memory_mb = memory_mb
        self.stuck_after_s = stuck_after_s
        self._lock = threading.Lock()
        self._closed = False
        self._broken: str | None = None  # why the container stopped answering: every later request fails
        if container is None:
            container = start_container(
                client or engine_client(),
                image or image_tag(),
                SessionLockdown(
                    root=root,
                    memory_mb=memory_mb,
                    cpus=cpus,
                    pids_limit=pids_limit,
                    work_mb=work_mb,
                    tmp_mb=tmp_mb,
                    writable=writable,
                ),
                f"session-{uuid.uuid4().hex[:12]}",
            )
        self.container: Container = container

    @property
    def id(self) -> str:
        """The container's id."""
        return self.container.id

    def _request(self, msg: dict[str, Any], wait_s: float) -> dict[str, Any]:
        with self._lock:
            if self._closed:
                raise SandboxError("the session is closed")
            if self._broken:
                raise SandboxError(f"the session's container is gone ({self._broken})")
            try:
                return self.container.request({**msg, "root": self.root, "memory_mb": self.memory_mb}, timeout_s=wait_s)
            except ContainerGone as exc:  # a late reply would answer the next request: no next request
                self._broken = str(exc)
                self.container.destroy()
                raise SandboxError(f"the session's container is gone ({exc})") from exc

    def exec(self, command: str, *, timeout_s: float | None = None, stdin: str | bytes = "") -> ExecResult:
        """Run ``command`` in bash; never raises for the command's faults (see `ExecResult`).
        ``error`` is set when the session itself failed (closed, or its container is gone)."""
        if len(command.encode()) > COMMAND_CAP:
            return ExecResult(error=f"the command is over {COMMAND_CAP} bytes: write it to a file and run that")
        timeout = timeout_s or self.timeout_s
        lock = self.container.lockdown
        data = stdin.encode() if isinstance(stdin, str) else stdin
        msg = {
            "op": "exec",
            "command": command,
            "stdin": base64.b64encode(data).decode(),
            "timeout_s": timeout,
            "out_cap": self.out_cap,
            "fsize": max(lock.work_mb, lock.tmp_mb) << 20,  # a file may fill its tmpfs (a job's cap: 64 MiB)
            "nproc": lock.pids_limit,  # a build may run as many processes as the container holds (a job: 64)
        }
        try:
            reply = self._request(msg, wall_bound(timeout) + self.stuck_after_s)
        except SandboxError as exc:
            return ExecResult(error=str(exc))
        if "error" in reply:
            return ExecResult(error=f"the supervisor failed: {reply['error']}")
        return ExecResult(
            stdout=base64.b64decode(reply["stdout"]).decode("utf-8", "replace"),
            stderr=base64.b64decode(reply["stderr"]).decode("utf-8", "replace"),
            exit_code=reply["exit_code"],
            timed_out=reply["timed_out"],
            oom_killed=reply["oom_killed"],
            truncated=reply["truncated"],
            duration_s=reply["duration_s"],
        )

    def write_file(self, path: str, data: str | bytes, *, mode: int | None = None) -> None:
        """Write ``data`` (text as UTF-8) to ``path`` as the session user (relative: under
        ``/work``; parent directories are made). Raises `SandboxError` when it cannot."""
        raw = data.encode() if isinstance(data, str) else bytes(data)
        if len(raw) > self.file_cap:
            raise SandboxError(f"{path}: {len(raw)} bytes is over the session's file cap ({self.file_cap})")
        msg = {"op": "write", "path": path, "data": base64.b64encode(raw).decode(), "mode": mode}
        self._checked(self._request(msg, 60.0), path)

    def read_bytes(self, path: str) -> bytes:
        """The content of ``path`` as the session user sees it (relative: under ``/work``);
        `SandboxError` when it is missing, unreadable or over the file cap."""
        reply = self._checked(self._request({"op": "read", "path": path, "cap": self.file_cap}, 60.0), path)
        return base64.b64decode(reply["data"])

    def read_text(self, path: str, encoding: str = "utf-8") -> str:
        """`read_bytes` decoded (undecodable bytes replaced)."""
        return self.read_bytes(path).decode(encoding, "replace")

    @staticmethod
    def _checked(reply: dict[str, Any], path: str) -> dict[str, Any]:
        if "failed" in reply or "error" in reply:
            raise SandboxError(f"{path}: {reply.get('failed') or reply.get('error')}")
        return reply

    def close(self) -> None:
        """Kill everything the session left running and remove its container. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if not self.container.destroy():
            log.warning("session container %s: removal not confirmed (it goes once its stdin closes)", self.id[:12])

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_container(client: Any, image: str, lockdown: SessionLockdown, pool: str) -> Container:
    """One started session container (`EngineUnavailableError` naming the fix when it cannot)."""
    if not image_exists(client, image):
        raise SandboxError(f"the image {image} is missing: build it first (`grpo-envs sandbox build-image`)")
    try:
        return Container(client, image, lockdown, pool)
    except ContainerGone as exc:
        raise SandboxError(f"the session container did not start: {exc}") from exc
