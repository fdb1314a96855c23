"""Sessions inside the container: shell commands whose state persists, and the session's files.

A session container runs the same supervisor as a job container, with one more kind of request:
``exec`` runs a command in ``bash`` as the session's user (its own uid, or uid 0 with every
capability dropped), ``write`` and ``read`` move one file. Between commands nothing is wiped
and nothing is killed: files, installed packages, background processes, the working directory
and exported variables persist (the last two through a state file each command's shell
restores first and saves last, see `SHELL`). A command past its time limit has its process
session killed; what earlier commands left running is killed when the host removes the
container.

Part of the in-container program (see `_host.program`).
"""

from __future__ import annotations

import base64
import os
import signal
from typing import Any

from verifiers.sandbox._in_container.procs import (
    Clock,
    Limits,
    Run,
    b64,
    exit_code,
    job_env,
    kill_group,
    oom_kills,
    reap,
    session_procs,
)
from verifiers.sandbox._in_container.wire import read_frame, write_frame

STATE = "/tmp/.session"  # the shell's saved working directory and exports (the session user's own)

# bash -c SHELL bash COMMAND: restore the exports and directory the last command left, run the
# command in this shell (so `cd` and `export` count), save them again however it ends. Builtins
# only: an external command here would cost a fork and exec on every command.
SHELL = r"""__s=/tmp/.session __base="PATH LANG HOME TMPDIR PYTHONDONTWRITEBYTECODE PYTHONIOENCODING"
[[ -f $__s/env ]] && . "$__s/env" 2>/dev/null
__d=$HOME; [[ -f $__s/cwd ]] && read -r __d < "$__s/cwd"
cd "$__d" 2>/dev/null || cd "$HOME"
__save() {
  [[ -d $__s ]] || mkdir "$__s"
  echo "$PWD" > "$__s/cwd"
  { export -p; for __v in $__base; do [[ -v $__v ]] || echo "unset $__v"; done; } > "$__s/env"
}
trap '__rc=$?; __save 2>/dev/null; exit $__rc' EXIT
__c=$1; shift
eval "$__c"
"""

HOME = "/work"
FILE_OP_S = 20  # a file read or write that takes longer is ended


def session_env() -> dict[str, str]:
    """A job's environment, with the user's site-packages on (``pip install --user`` lands in /work)."""
    env = job_env(HOME)
    del env["PYTHONNOUSERSITE"]
    return env


def kill_session(sid: int) -> None:
    """SIGKILL every process of session ``sid`` until none is left (a fork bomb included): its
    process group at once first (`kill_group`), then what a scan of ``/proc`` still finds."""
    kill_group(sid)
    for _ in range(500):
        pids = session_procs(sid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        reap()


def op_exec(sup: Any, msg: dict[str, Any]) -> dict[str, Any]:
    """Run ``msg["command"]`` in bash as the session user; the result of a job (see `op_run`)."""
    limits = Limits(msg)
    uid = 0 if msg.get("root") else sup.job_uid
    ooms = oom_kills()
    pid, in_w, out_r, err_r = sup.zygote.spawn(uid, HOME, "shell", msg["command"], {}, limits, [], session_env())
    run = Run(pid, in_w, out_r, err_r, base64.b64decode(msg.get("stdin", "")))
    clock = Clock(pid, session=pid)  # the command's processes' waits behind others do not count
    finished = run.pump(clock, limits.timeout_s, limits.out_cap)
    duration = clock.elapsed()
    if not finished:
        kill_session(pid)  # the job's session: setsid in `zygote.isolate`
    run.collect()
    if run.status is None and not finished:
        try:
            _, run.status = os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    run.finish()
    reap()
    return {
        "stdout": b64(run.output("out", limits.out_cap)),
        "stderr": b64(run.output("err", limits.out_cap)),
        "exit_code": exit_code(run.status) if finished and not run.truncated else None,
        "timed_out": not finished,
        "oom_killed": oom_kills() > ooms,
        "truncated": run.truncated,
        "duration_s": duration,
    }


def as_user(uid: int, root: bool, work: Any) -> dict[str, Any]:
    """Run ``work()`` (returns a JSON-able dict) in a fork that is the session user."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        reply: dict[str, Any]
        try:
            signal.alarm(FILE_OP_S)  # whatever the path is, the supervisor waits no longer
            null = os.open("/dev/null", os.O_RDWR)
            os.dup2(null, 0)  # not the host's stream: /dev/stdin must not read the next request
            os.dup2(null, 1)
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            if root:
                drop_capabilities()
            os.chdir(HOME)
            reply = work()
        except OSError as exc:
            reply = {"failed": f"{type(exc).__name__}: {exc.strerror or exc}"}
        except BaseException as exc:
            reply = {"failed": f"{type(exc).__name__}: {exc}"}
        write_frame(w, reply)
        os._exit(0)
    os.close(w)
    try:
        reply = read_frame(r)
    except (EOFError, ValueError):
        reply = {"failed": f"the file operation failed or took over {FILE_OP_S} s"}
    os.close(r)
    os.waitpid(pid, 0)
    return dict(reply)


def regular(fd: int, path: str) -> int:
    """``fd`` if it is a regular file (not a FIFO, device or socket, which could block or never
    end); else it is closed and `OSError` names the path."""
    import stat

    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path} is not a regular file")
    return fd


def op_write(sup: Any, msg: dict[str, Any]) -> dict[str, Any]:
    """Write one file (parents made) as the session user; relative paths are under /work."""
    data = base64.b64decode(msg["data"])
    path = str(msg["path"])

    def work() -> dict[str, Any]:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        # O_NONBLOCK: a FIFO without a reader fails at once instead of blocking
        with open(regular(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK, 0o644), path), "wb") as f:
            f.truncate()
            f.write(data)
        if msg.get("mode") is not None:
            os.chmod(path, int(msg["mode"]))
        return {"written": len(data)}

    return as_user(0 if msg.get("root") else sup.job_uid, bool(msg.get("root")), work)


def op_read(sup: Any, msg: dict[str, Any]) -> dict[str, Any]:
    """Read one file as the session user; more than ``cap`` bytes is refused, not read."""
    path, cap = str(msg["path"]), int(msg["cap"])

    def work() -> dict[str, Any]:
        with open(regular(os.open(path, os.O_RDONLY | os.O_NONBLOCK), path), "rb") as f:
            size = os.fstat(f.fileno()).st_size
            data = f.read(cap + 1)
        if len(data) > cap:
            return {"failed": f"{path} is larger than the read cap ({max(size, len(data))} > {cap} bytes)"}
        return {"data": b64(data)}

    return as_user(0 if msg.get("root") else sup.job_uid, bool(msg.get("root")), work)


def drop_capabilities() -> None:
    """Clear this process's capability sets (it stays uid 0). With ``no-new-privileges`` a later
    ``execve`` cannot regain any: the kernel caps the new sets at the old permitted set."""
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    libc = ctypes.CDLL(None, use_errno=True)
    header, data = Header(0x20080522, 0), (Data * 2)()  # _LINUX_CAPABILITY_VERSION_3: two 32-bit words
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
