"""Process plumbing inside the container: limits, stdio pumping, kill-by-uid, wiping, reaping.

Part of the in-container program (see `_host.program`).
"""

from __future__ import annotations

import base64
import os
import select
import signal
import time
from typing import Any


def procs_of(uid: int) -> list[int]:
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as f:
                status = f.read()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("State", "").strip().startswith("Z"):
            continue
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            pids.append(int(name))
    return pids


def session_procs(sid: int) -> list[int]:
    """The live processes of process session ``sid`` (a command's bash and what it started)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == 1:
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[3]) == sid:  # state, ppid, pgrp, session
            pids.append(int(name))
    return pids


def reap() -> dict[int, int]:
    """Reap every exited child (we are PID 1: orphans land here); pid -> wait status."""
    done: dict[int, int] = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return done
        if pid == 0:
            return done
        done[pid] = status


def kill_group(pgid: int) -> None:
    """SIGKILL process group ``pgid`` in one call (a job's or a command's: it is a session
    leader): the kernel reaches every member at once, children forked meanwhile included, so a
    fork bomb is gone before a scan of ``/proc`` starts; what left the group is the scan's."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def kill_uid(uid: int, group: int = 0) -> None:
    """SIGKILL every process of ``uid`` (daemons and new sessions included) until none is left,
    process group ``group`` first (see `kill_group`)."""
    if group:
        kill_group(group)
    for _ in range(200):
        pids = procs_of(uid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        reap()
        time.sleep(0.001)


def exit_if_host_gone() -> None:
    """Exit (PID 1: the container stops, and the engine removes it) once the host's end of our
    stdin hung up: its process ended or was killed, mid-job or not."""
    poll = select.poll()
    poll.register(0, 0)  # hang-ups and errors only: a request in flight is never consumed here
    if poll.poll(0):
        os._exit(0)


def oom_kills() -> int:
    for path, key in (
        ("/sys/fs/cgroup/memory.events", "oom_kill"),
        ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill"),
    ):
        try:
            with open(path) as f:
                for line in f:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
        except OSError:
            continue
    return 0


WALL = (2.0, 2.0)  # whatever the waits, a limit is reached at 2x its seconds + 2 s of wall time (`Clock`)


SCAN_S = 0.25  # how often a command's clock looks for new processes of its session


def wall_bound(limit: float) -> float:
    """The wall time at which ``limit`` is reached whatever the waits (see `WALL`): a verdict
    comes within it plus the kill and the reply."""
    return limit * WALL[0] + WALL[1]


def run_delay(pid: int, default: int = 0) -> int:
    """Nanoseconds ``pid`` has waited for a CPU while runnable (its run-queue delay)."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return default  # gone: its last reading


def container_cpu_s() -> float:
    """CPU seconds used so far by every process in this container (its cgroup), this one's own
    excepted: a job's whole process tree, the processes it forked, orphaned or reaped included."""
    for path, scale in (("/sys/fs/cgroup/cpuacct/cpuacct.usage", 1e-9), ("/sys/fs/cgroup/cpu.stat", 1e-6)):
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            continue
        if path.endswith("cpu.stat"):  # cgroup v2: "usage_usec N"
            text = dict(line.split() for line in text.splitlines() if " " in line).get("usage_usec", "0")
        return int(text.split()[0]) * scale - time.process_time()
    return 0.0


def container_cpus() -> float:
    """The CPUs this container may use at once (its CPU quota; else the machine's)."""
    for path in ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "/sys/fs/cgroup/cpu.max"):
        try:
            with open(path) as f:
                quota = f.read().split()
            if path.endswith("cpu.max"):
                if quota[0] != "max":
                    return int(quota[0]) / int(quota[1])
            elif int(quota[0]) > 0:
                with open("/sys/fs/cgroup/cpu/cpu.cfs_period_us") as f:
                    return int(quota[0]) / int(f.read())
        except (OSError, ValueError, IndexError):
            continue
    return float(os.cpu_count() or 1)


class Clock:
    """The time a job has taken, as a quiet machine would show it: the larger of (1) wall time
    minus the time its processes waited for a CPU behind others' work (computing, sleeping and
    blocking count; a busy machine does not shorten the limit) and (2) the CPU time of every
    process in the container over the CPUs its quota allows. (2) is what counts the whole
    process tree: a fork bomb's first process waits behind its own children, and its own clock
    barely moves, but the tree uses the container's whole quota, so (2) runs with the wall
    clock. Neither sees a container starved by other containers' work (a fork bomb's tree then
    gets a fraction of its quota, and its first process waits behind it): so past `wall_bound`,
    twice the limit plus 2 s of wall time, the limit is reached whatever the waits. A verdict
    never takes longer than that plus the kill (its process group at once, `kill_group`) and
    the reply: a program starved that long on a busy machine times out. A shell command's
    clock (``session``: its process session) tracks the processes it starts as they appear
    (every `SCAN_S`): its ``bash`` waits idle while they wait behind other containers."""

    def __init__(self, *pids: int, wall: tuple[float, float] = WALL, session: int = 0) -> None:
        self.wall = wall  # (factor, seconds): the limit is reached at factor * limit + seconds of wall time
        self.session = session  # its processes are tracked as they appear (a shell's command: bash waits idle)
        self.scanned = 0.0
        self.start = time.monotonic()
        self.cpu_start = container_cpu_s()
        self.cpus = container_cpus()
        self.base: dict[int, int] = {}
        self.seen: dict[int, int] = {}
        for pid in pids:
            self.track(pid)

    def track(self, pid: int) -> None:
        self.base[pid] = self.seen[pid] = run_delay(pid)

    def elapsed(self) -> float:
        if self.session and time.monotonic() - self.scanned > SCAN_S:
            self.scanned = time.monotonic()
            for pid in session_procs(self.session):
                if pid not in self.seen:
                    self.track(pid)
        for pid in self.seen:
            self.seen[pid] = run_delay(pid, self.seen[pid])
        waited = sum(self.seen[pid] - self.base[pid] for pid in self.seen) / 1e9
        tree = (container_cpu_s() - self.cpu_start) / self.cpus
        return max(time.monotonic() - self.start - waited, tree)

    def left(self, limit: float) -> float:
        """Seconds until ``limit`` is reached (<= 0: reached)."""
        factor, extra = self.wall
        return min(limit - self.elapsed(), limit * factor + extra - (time.monotonic() - self.start))


class Limits:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.timeout_s = float(spec.get("timeout_s", 10.0))
        self.out_cap = int(spec.get("out_cap", 4 * 2**20))
        self.fsize = int(spec.get("fsize", 64 * 2**20))
        self.nproc = int(spec.get("nproc", 64))
        self.nofile = int(spec.get("nofile", 256))
        self.memory_mb = int(spec.get("memory_mb", 0))  # the program's data limit (0: the container's only)


def job_env(home: str) -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": home,
        "TMPDIR": "/tmp",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        "PYTHONIOENCODING": "utf-8",
    }


def wipe(uid: int, paths: list[str]) -> None:
    """Delete everything ``uid`` owns in ``paths`` (as that uid: root here has no DAC bypass)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            for top in paths:
                clear_dir(top)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def clear_dir(top: str) -> None:
    try:
        names = os.listdir(top)
    except OSError:
        return
    for name in names:
        path = os.path.join(top, name)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if st.st_uid != os.getuid():
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            try:
                os.chmod(path, 0o700)
            except OSError:
                pass
            clear_dir(path)
            try:
                os.rmdir(path)
            except OSError:
                pass
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


class Run:
    """One process with piped stdio, pumped by `pump` until it ends or its limits hit."""

    def __init__(self, pid: int, stdin_w: int, out_r: int, err_r: int, stdin: bytes) -> None:
        self.pid = pid
        self.stdin = memoryview(stdin)
        self.fds = {"in": stdin_w, "out": out_r, "err": err_r}
        self.buf: dict[str, list[bytes]] = {"out": [], "err": []}
        self.size = {"out": 0, "err": 0}
        self.status: int | None = None
        self.truncated = False
        try:  # readable when the process exits: no polling
            self.pidfd: int | None = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.pidfd = None
        for fd in self.fds.values():
            os.set_blocking(fd, False)
        if not self.stdin:
            self.close("in")

    def close(self, name: str) -> None:
        fd = self.fds.pop(name, None)
        if fd is not None:
            os.close(fd)

    def pump(self, clock: Clock, limit: float, cap: int) -> bool:
        """Move data until the process exits and its pipes close; False past ``limit``."""
        exited_at: float | None = None
        while True:
            self.collect()
            now = time.monotonic()
            if self.status is not None:
                exited_at = exited_at or now
                if not ({"out", "err"} & set(self.fds)) or now - exited_at > 0.2:
                    return True  # done (a daemon holding the pipes is cut off)
            left = clock.left(limit)
            if left <= 0:
                return False
            exit_if_host_gone()
            readers = [self.fds[n] for n in ("out", "err") if n in self.fds]
            if self.pidfd is not None and self.status is None:
                readers.append(self.pidfd)
            writers = [self.fds["in"]] if "in" in self.fds else []
            wait = min(0.05 if self.pidfd is not None else 0.002, left)
            if self.status is not None:
                wait = min(wait, max(0.0, 0.2 - (now - exited_at)) if exited_at else wait)
            try:
                r, w, _ = select.select(readers, writers, [], max(0.0, wait))
            except InterruptedError:
                continue
            if self.read_ready(r, cap):
                return True
            self.write_stdin(w)

    def read_ready(self, ready: list[int], cap: int) -> bool:
        """Read what the process printed on the pipes in ``ready``; True once a stream passed ``cap``."""
        for name in ("out", "err"):
            fd = self.fds.get(name)
            if fd is None or fd not in ready:
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                self.close(name)
                continue
            self.buf[name].append(chunk)
            self.size[name] += len(chunk)
            if self.size[name] > cap:
                self.truncated = True
                return True
        return False

    def write_stdin(self, ready: list[int]) -> None:
        """Write the next piece of the process's stdin if its pipe is in ``ready``; close it once all is written."""
        if "in" in self.fds and self.fds["in"] in ready:
            try:
                sent = os.write(self.fds["in"], self.stdin[: 1 << 16])
                self.stdin = self.stdin[sent:]
            except (BrokenPipeError, BlockingIOError):
                self.stdin = self.stdin[:0]
            if not self.stdin:
                self.close("in")

    def collect(self) -> None:
        if self.status is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status = self.pid, 0
            if pid:
                self.status = status

    def output(self, name: str, cap: int) -> bytes:
        return b"".join(self.buf[name])[: cap + 1]

    def finish(self) -> None:
        for name in list(self.fds):
            self.close(name)
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


def exit_code(status: int | None) -> int | None:
    if status is None:
        return None
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return None


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
