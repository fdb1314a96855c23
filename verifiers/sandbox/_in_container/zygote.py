"""The zygote: a warm interpreter that forks every job, and what a job does before it runs.

Part of the in-container program (see `_host.program`).
"""

from __future__ import annotations

import base64
import json
import os
import signal
import sys
from typing import Any

from verifiers.sandbox._in_container.procs import Limits, b64
from verifiers.sandbox._in_container.roles import serve, tester
from verifiers.sandbox._in_container.sessions import SHELL, drop_capabilities
from verifiers.sandbox._in_container.wire import HEADER

JOB_NICE = 19  # jobs' and commands' niceness in their container (the supervisor's is 0)

PRELOAD = (
    "collections",
    "itertools",
    "functools",
    "math",
    "heapq",
    "bisect",
    "re",
    "string",
    "random",
    "typing",
    "dataclasses",
    "io",
    "types",
    "traceback",
    "resource",
)


class Zygote:
    """A warm interpreter forked from the supervisor before any job data arrives.

    It forks every job (a few ms instead of a fresh ``python3``'s ~20 ms): the job drops to
    its uid, gets clean stdio, environment, ``__main__`` and the same random seed, and runs. The zygote
    never sees test code or expected values, so a job's copy of its memory holds none. Jobs
    are double-forked, so they are children of PID 1 (the supervisor), which reaps them.
    """

    def __init__(self) -> None:
        import socket

        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.pid = os.fork()
        if self.pid == 0:
            self.sock.close()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            zygote_loop(theirs)  # returns only in a job, by an exception
            os._exit(0)
        theirs.close()

    def spawn(
        self,
        uid: int,
        workdir: str,
        mode: str,
        arg: str,
        files: dict[str, bytes],
        limits: Limits,
        extra: list[int],
        env: dict[str, str],
    ) -> tuple[int, int, int, int]:
        """Start a job; ``extra`` fds become 3, 4, ...

        Returns (pid, stdin_w, stdout_r, stderr_r)."""
        import socket

        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        fds = [in_r, out_w, err_w, *extra]
        body = json.dumps(
            {
                "uid": uid,
                "workdir": workdir,
                "mode": mode,
                "arg": arg,
                "env": env,
                "files": {name: b64(data) for name, data in files.items()},
                "limits": [limits.nproc, limits.fsize, limits.nofile, limits.memory_mb if mode != "tester" else 0],
            }
        ).encode()
        try:
            socket.send_fds(self.sock, [HEADER.pack(len(body))], fds)
            self.sock.sendall(body)
            (size,) = HEADER.unpack(recv_exact(self.sock, HEADER.size))
            pid = int(json.loads(recv_exact(self.sock, size))["pid"])
        finally:
            for fd in fds:
                os.close(fd)
        return pid, in_w, out_r, err_r


def recv_exact(sock: Any, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def zygote_loop(sock: Any) -> None:
    import socket

    for name in PRELOAD:
        __import__(name)
    while True:
        try:
            head, fds, _, _ = socket.recv_fds(sock, HEADER.size, 16)
            if len(head) < HEADER.size:
                head += recv_exact(sock, HEADER.size - len(head))
            (size,) = HEADER.unpack(head)
            msg = json.loads(recv_exact(sock, size))
        except (EOFError, OSError, ValueError):
            os._exit(0)  # the supervisor is gone
        r, w = os.pipe()
        middle = os.fork()
        if middle == 0:
            os.close(r)
            job = os.fork()
            if job == 0:
                os.close(w)
                sock.close()
                become_job(msg, fds)  # raises SystemExit (or the program's exception)
            os.write(w, str(job).encode())
            os._exit(0)
        os.close(w)
        job_pid = int(os.read(r, 32) or b"0")
        os.close(r)
        os.waitpid(middle, 0)  # the job is now an orphan: PID 1 adopts and reaps it
        for fd in fds:
            os.close(fd)
        body = json.dumps({"pid": job_pid}).encode()
        sock.sendall(HEADER.pack(len(body)) + body)


def become_job(msg: dict[str, Any], fds: list[int]) -> None:
    """In the forked job: isolate, drop privileges, then run the job's role. Never returns."""
    import types

    try:
        workdir = isolate(msg, fds)
    except BaseException:
        os._exit(126)
    status = 0
    try:
        mode = msg["mode"]
        if mode == "run":
            main = types.ModuleType("__main__")
            main.__file__ = os.path.join(workdir, "main.py")
            sys.modules["__main__"] = main
            with open("main.py", encoding="utf-8") as f:
                code = compile(f.read(), main.__file__, "exec", dont_inherit=True)
            del f
            exec(code, main.__dict__)  # the job itself
        elif mode == "serve":
            serve(msg["arg"])
        elif mode == "tester":
            tester()
        elif mode == "shell":  # a session's command (see `sessions`): this process becomes bash
            sys.stdout.flush()
            os.execve("/bin/bash", ["bash", "-c", SHELL, "bash", msg["arg"]], dict(os.environ))
    except SystemExit as exc:
        status = exit_status(exc)
    except BaseException:
        sys.excepthook(*sys.exc_info())
        status = 1
    shutdown(status)


def isolate(msg: dict[str, Any], fds: list[int]) -> str:
    """Make this fork the job's own process: its session and fds, its uid and limits, its files,
    a fresh process's state. Returns its work dir (the current directory)."""
    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, 100 + target)
    for target in range(len(fds)):
        os.dup2(100 + target, target)
    os.closerange(len(fds), 1 << 16)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with open("/proc/self/oom_score_adj", "w") as f:
        f.write("1000")  # under memory pressure, the job dies first
    # Below the supervisor in its own container (the CPU quota is the container's; others'
    # containers are not affected): 128 spinning processes leave it a share to time and kill them.
    os.setpriority(os.PRIO_PROCESS, 0, JOB_NICE)
    drop_privileges(int(msg["uid"]), msg["limits"])
    workdir = str(msg["workdir"])
    os.chdir(workdir)
    for name, data in msg["files"].items():
        path = os.path.join(workdir, name)
        os.makedirs(os.path.dirname(path) or workdir, exist_ok=True)
        with open(path, "wb") as out:
            out.write(base64.b64decode(data))
    fresh_process(msg["env"], workdir)
    return workdir


def drop_privileges(uid: int, limits: list[int]) -> None:
    """Become ``uid`` (no groups, no way back, no capabilities) under the job's resource limits."""
    import resource

    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if uid == 0:  # a session that asked for root: uid 0 without a single capability
        drop_capabilities()
    nproc, fsize, nofile, memory_mb = limits
    if memory_mb:  # the program's own memory: past it, MemoryError at the same point every run
        resource.setrlimit(resource.RLIMIT_DATA, (memory_mb << 20, memory_mb << 20))
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.umask(0o077)


def fresh_process(env: dict[str, str], workdir: str) -> None:
    """What a fresh ``python3 main.py`` would have: its environment, stdio on fds 0-2, the
    same random seed (no verdict depends on chance), its argv and path."""
    import io
    import random

    os.environ.clear()
    os.environ.update(env)
    streams = {
        "stdin": io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "rb", closefd=False)), encoding="utf-8"),
        "stdout": io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "wb", closefd=False)), encoding="utf-8"),
        "stderr": io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(2, "wb", closefd=False)),
            encoding="utf-8",
            errors="backslashreplace",
            line_buffering=True,
        ),
    }
    for name, stream in streams.items():  # a fresh process's sys.stdin, __stdin__, ...
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    random.seed(0)
    sys.argv = ["main.py"]
    sys.path[0] = workdir


def exit_status(exc: SystemExit) -> int:
    """What the interpreter would exit with for ``SystemExit(code)``."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    print(exc.code, file=sys.stderr)
    return 1


def shutdown(status: int) -> None:
    """Exit like the interpreter does (join threads, atexit, flush) without finalizing every
    module inherited from the zygote, which costs ~20 ms per job."""
    import atexit

    try:
        threading = sys.modules.get("threading")
        if threading is not None:
            threading._shutdown()
        atexit._run_exitfuncs()
    except SystemExit as exc:
        status = exit_status(exc)
    except BaseException:
        sys.excepthook(*sys.exc_info())
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            status = status or 120  # as the interpreter does when flushing stdout fails
    os._exit(status)
