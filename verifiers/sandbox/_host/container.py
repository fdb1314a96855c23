"""One warm, locked-down container running the supervisor, and the wire to it.

The host speaks to the supervisor over the container's attached stdin/stdout (Docker's
multiplexed attach stream), in frames of an 8-byte length and JSON; the first thing it writes
there is the supervisor program itself (see `program`). The log driver is ``none``: nothing a
job prints is written to the host's disk.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import struct
import time
from typing import Any

from verifiers.errors import SandboxError
from verifiers.sandbox._host.program import BOOTSTRAP, PROGRAM, frame

log = logging.getLogger("verifiers.sandbox")

__all__ = ["LABEL", "Container", "ContainerGone", "Lockdown", "remove"]

LABEL = "org.grpo-envs.sandbox"
OWNER_LABEL = "org.grpo-envs.owner"
_HEADER = struct.Struct(">Q")
_STREAM = struct.Struct(">BxxxL")
OVERHEAD_MB = 128  # supervisor, tester and interpreter start-up, on top of the job's memory_mb


class ContainerGone(SandboxError):
    """The container (or its engine) stopped answering; the caller retries on a fresh one."""


class Lockdown:
    """Container settings shared by every sandbox container (see README, threat model)."""

    def __init__(
        self,
        *,
        memory_mb: int,
        cpus: float = 1.0,
        pids_limit: int = 128,
        work_mb: int = 64,
        tmp_mb: int = 64,
        nofile: int = 256,
    ) -> None:
        self.memory_mb = memory_mb
        self.cpus = cpus
        self.pids_limit = pids_limit
        self.work_mb = work_mb
        self.tmp_mb = tmp_mb
        self.nofile = nofile

    def create_kwargs(self, job_uid: int, tester_uid: int) -> dict[str, Any]:
        import docker.types

        memory = f"{self.memory_mb + OVERHEAD_MB}m"
        return {
            "user": "0:0",  # the supervisor; jobs run as job_uid with no capabilities
            "cap_drop": ["ALL"],
            "cap_add": ["SETUID", "SETGID", "KILL"],
            "security_opt": ["no-new-privileges"],
            "read_only": True,
            "network_mode": "none",
            "mem_limit": memory,
            "memswap_limit": memory,  # equal: no swap
            "pids_limit": self.pids_limit,
            "nano_cpus": int(self.cpus * 1e9),
            "shm_size": "16m",
            "tmpfs": {
                "/work": f"size={self.work_mb}m,uid={job_uid},gid={job_uid},mode=0700",
                "/tester": f"size=16m,uid={tester_uid},gid={tester_uid},mode=0700",
                "/tmp": f"size={self.tmp_mb}m,mode=1777",
            },
            "ulimits": [docker.types.Ulimit(name="nofile", soft=self.nofile, hard=self.nofile)],
            "log_config": docker.types.LogConfig(type="none"),
            # One hash seed for the supervisor and every job it forks: no verdict depends on the
            # order of a set of strings (a random seed per container would make it flip).
            "environment": {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"},
            "stdin_open": True,
            "tty": False,
            "working_dir": "/",
        }


class Container:
    """A running sandbox container and the socket attached to its supervisor."""

    def __init__(self, client: Any, image: str, lockdown: Lockdown, pool: str) -> None:
        self.client = client
        self.lockdown = lockdown
        self.jobs = 0
        # Each container gets its own pair of uids, so per-uid limits (RLIMIT_NPROC) and
        # kill-by-uid never reach another container's jobs.
        self.job_uid = 100_000 + 2 * secrets.randbelow(10_000_000)  # not the global RNG
        self.tester_uid = self.job_uid + 1
        owner = f"{socket.gethostname()}:{os.getpid()}"
        self.container = client.containers.create(
            image,
            command=self.command(),
            labels={LABEL: pool, OWNER_LABEL: owner},
            # The engine removes it once the supervisor exits, which it does when our attached
            # stdin closes (``StdinOnce``): also when this process is killed and never removes it.
            auto_remove=True,
            **lockdown.create_kwargs(self.job_uid, self.tester_uid),
        )
        try:
            self.sock = client.api.attach_socket(
                self.container.id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
            )
            self.raw: socket.socket = self.sock._sock
            self.container.start()
            self.buf = bytearray()
            self.send_program()
            self.request({"op": "ping"}, timeout_s=30)
        except Exception:
            self.destroy()
            raise

    program = PROGRAM
    """The supervisor program this container runs (see `program`)."""

    def command(self) -> list[str]:
        """The container's command: the bootstrap that reads the program from stdin."""
        return [
            "python3",  # no -E: PYTHONHASHSEED must count (the environment is ours, see Lockdown)
            "-s",
            "-c",
            BOOTSTRAP,
            "supervise",
            str(self.job_uid),
            str(self.tester_uid),
        ]

    def send_program(self) -> None:
        """Write the program to the bootstrap waiting on the container's stdin."""
        try:
            self.raw.settimeout(30)
            self.raw.sendall(frame(self.program))
        except OSError as exc:
            raise ContainerGone(f"cannot send the supervisor program to the container: {exc}") from exc

    @property
    def id(self) -> str:
        return str(self.container.id)

    def _fill(self, deadline: float) -> None:
        """Read one multiplexed frame from the attach stream into the stdout buffer."""
        header = self._recv(_STREAM.size, deadline)
        stream, size = _STREAM.unpack(header)
        payload = self._recv(size, deadline)
        if stream == 1:
            self.buf += payload

    def _recv(self, n: int, deadline: float) -> bytes:
        out = bytearray()
        while len(out) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ContainerGone("the supervisor did not answer in time")
            self.raw.settimeout(remaining)
            try:
                chunk = self.raw.recv(min(n - len(out), 1 << 20))
            except TimeoutError:
                raise ContainerGone("the supervisor did not answer in time") from None
            except OSError as exc:
                raise ContainerGone(f"the container's socket failed: {exc}") from exc
            if not chunk:
                raise ContainerGone("the container exited")
            out += chunk
        return bytes(out)

    def request(self, msg: dict[str, Any], *, timeout_s: float) -> dict[str, Any]:
        """Send one request and wait for its reply (raises ContainerGone)."""
        data = json.dumps(msg, separators=(",", ":")).encode()
        try:
            self.raw.settimeout(timeout_s)
            self.raw.sendall(_HEADER.pack(len(data)) + data)
        except OSError as exc:
            raise ContainerGone(f"cannot write to the container: {exc}") from exc
        deadline = time.monotonic() + timeout_s
        while len(self.buf) < _HEADER.size:
            self._fill(deadline)
        (size,) = _HEADER.unpack(self.buf[: _HEADER.size])
        while len(self.buf) < _HEADER.size + size:
            self._fill(deadline)
        body = bytes(self.buf[_HEADER.size : _HEADER.size + size])
        del self.buf[: _HEADER.size + size]
        reply = json.loads(body)
        if not isinstance(reply, dict):
            raise ContainerGone("the supervisor sent a malformed reply")
        return reply

    def destroy(self) -> bool:
        """Remove the container; False when the engine did not confirm it (the pool retries at
        close, and the closed stdin makes the supervisor exit, which removes it too)."""
        for closable in (getattr(self, "sock", None), getattr(self, "raw", None)):
            try:
                if closable is not None:
                    closable.close()
            except Exception as exc:
                log.debug("closing a socket of container %s failed: %s", self.container.short_id, exc)
        return remove(self.container)


def remove(container: Any) -> bool:
    """``docker rm -f``: True once the container is gone (removed now, or already)."""
    import docker.errors

    try:
        container.remove(force=True)
    except docker.errors.NotFound:
        return True
    except docker.errors.APIError as exc:
        if exc.status_code == 409 and "already in progress" in str(exc):  # auto-removal got there first
            return True
        log.debug("removing container %s failed: %s", container.short_id, exc)
        return False
    except Exception as exc:  # the engine is slow or down
        log.debug("removing container %s failed: %s", container.short_id, exc)
        return False
    return True
