"""The in-container side of the sandbox: a supervisor, a solution server and a test judge.

This file is not imported by the host. Its text is the container's command
(``python3 -E -s -c <this file> supervise``) and is re-executed for the other two roles, so
it uses only the standard library and must run on the image's Python.

Roles and privileges (uids are chosen per container by the host):

- ``supervise`` is PID 1: root with only CAP_SETUID, CAP_SETGID and CAP_KILL (everything
  else dropped, ``no-new-privileges``, read-only root file system). It talks to the host over
  the container's attached stdin/stdout (8-byte length + JSON frames), starts each job as a
  fresh ``python3`` under the job uid, enforces wall-clock limits, caps output, kills every
  process of a uid when a job ends, wipes the writable directories and reaps orphans.
- ``serve`` runs model code as the job uid and answers function calls with values encoded as
  exact builtin types (a subclass or custom object is reported as "not a value").
- ``judge`` runs dataset test code as a second uid; the function under test is a proxy whose
  every call crosses to the solution server as encoded values. The job uid cannot read the
  judge's memory, files or pipes, so expected values never reach the model's code.
"""

from __future__ import annotations

import base64
import json
import os
import select
import signal
import struct
import sys
import time
from typing import Any

# -- framing -------------------------------------------------------------------------------
HEADER = struct.Struct(">Q")
MAX_FRAME = 256 * 2**20


def read_exact(fd: int, n: int) -> bytes:
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> Any:
    (size,) = HEADER.unpack(read_exact(fd, HEADER.size))
    if size > MAX_FRAME:
        raise ValueError("frame too large")
    return json.loads(read_exact(fd, size))


def write_frame(fd: int, obj: Any) -> None:
    data = json.dumps(obj, separators=(",", ":")).encode()
    view = memoryview(HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


# -- values: exact builtin types only -----------------------------------------------------
MAX_DEPTH = 64


def encode(value: Any, depth: int = 0) -> Any:
    """Tag a value so that only exact builtin types survive; anything else is "x"."""
    if depth > MAX_DEPTH:
        return ["x", "nested too deeply"]
    t = type(value)
    if value is None:
        return ["n"]
    if t is bool:
        return ["b", value]
    if t is int:
        return ["i", str(value)]
    if t is float:
        return ["f", repr(value)]
    if t is complex:
        return ["c", [repr(value.real), repr(value.imag)]]
    if t is str:
        return ["s", value]
    if t is bytes:
        return ["y", base64.b64encode(value).decode()]
    if t in (list, tuple, set, frozenset):
        tag = {list: "l", tuple: "t", set: "S", frozenset: "F"}[t]  # type: ignore[index]
        return [tag, [encode(v, depth + 1) for v in value]]
    if t is dict:
        return ["d", [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]]
    return ["x", f"{t.__module__}.{t.__qualname__}"]


class NotAValue(Exception):
    """An encoded value that is not made of exact builtin types."""


def decode(tagged: Any, depth: int = 0) -> Any:
    """Rebuild a value from its tags; raises NotAValue for "x" or malformed data."""
    if depth > MAX_DEPTH or not isinstance(tagged, list) or not tagged:
        raise NotAValue("malformed value")
    tag = tagged[0]
    arg = tagged[1] if len(tagged) > 1 else None
    if tag == "n":
        return None
    if tag == "b" and isinstance(arg, bool):
        return arg
    if tag == "i" and isinstance(arg, str) and len(arg) <= 5000:
        return int(arg)
    if tag == "f" and isinstance(arg, str):
        return float(arg)
    if tag == "c" and isinstance(arg, list) and len(arg) == 2:
        return complex(float(arg[0]), float(arg[1]))
    if tag == "s" and isinstance(arg, str):
        return arg
    if tag == "y" and isinstance(arg, str):
        return base64.b64decode(arg)
    if tag in ("l", "t", "S", "F") and isinstance(arg, list):
        items = [decode(v, depth + 1) for v in arg]
        try:
            return {"l": list, "t": tuple, "S": set, "F": frozenset}[tag](items)
        except TypeError as exc:
            raise NotAValue(str(exc)) from None
    if tag == "d" and isinstance(arg, list):
        try:
            return {decode(k, depth + 1): decode(v, depth + 1) for k, v in arg}
        except (TypeError, ValueError) as exc:
            raise NotAValue(str(exc)) from None
    if tag == "x":
        raise NotAValue(f"a {arg} is not a plain value")
    raise NotAValue("malformed value")


# -- processes -----------------------------------------------------------------------------
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


def kill_uid(uid: int) -> None:
    """SIGKILL every process of ``uid`` (daemons and new sessions included) until none is left."""
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


class Limits:
    def __init__(self, spec: dict[str, Any]) -> None:
        self.timeout_s = float(spec.get("timeout_s", 10.0))
        self.out_cap = int(spec.get("out_cap", 4 * 2**20))
        self.fsize = int(spec.get("fsize", 64 * 2**20))
        self.nproc = int(spec.get("nproc", 64))
        self.nofile = int(spec.get("nofile", 256))


PRELOAD = ("collections", "itertools", "functools", "math", "heapq", "bisect", "re", "string",
           "random", "typing", "dataclasses", "io", "types", "traceback", "resource")  # fmt: skip


class Zygote:
    """A warm interpreter forked from the supervisor before any job data arrives.

    It forks every job (a few ms instead of a fresh ``python3``'s ~20 ms): the job drops to
    its uid, gets clean stdio, environment, ``__main__`` and random seed, and runs. The zygote
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
        self, uid: int, workdir: str, mode: str, arg: str, files: dict[str, bytes],
        limits: Limits, extra: list[int], env: dict[str, str],
    ) -> tuple[int, int, int, int]:  # fmt: skip
        """Start a job; ``extra`` fds become 3, 4, ...

        Returns (pid, stdin_w, stdout_r, stderr_r)."""
        import socket

        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        fds = [in_r, out_w, err_w, *extra]
        body = json.dumps({
            "uid": uid, "workdir": workdir, "mode": mode, "arg": arg, "env": env,
            "files": {name: b64(data) for name, data in files.items()},
            "limits": [limits.nproc, limits.fsize, limits.nofile],
        }).encode()  # fmt: skip
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
    import io
    import random
    import resource
    import types

    try:
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, 100 + target)
        for target in range(len(fds)):
            os.dup2(100 + target, target)
        os.closerange(len(fds), 1 << 16)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")  # under memory pressure, the job dies first
        uid = int(msg["uid"])
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        nproc, fsize, nofile = msg["limits"]
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.umask(0o077)
        workdir = msg["workdir"]
        os.chdir(workdir)
        for name, data in msg["files"].items():
            path = os.path.join(workdir, name)
            os.makedirs(os.path.dirname(path) or workdir, exist_ok=True)
            with open(path, "wb") as out:
                out.write(base64.b64decode(data))
        os.environ.clear()
        os.environ.update(msg["env"])
        streams = {
            "stdin": io.TextIOWrapper(
                io.BufferedReader(io.FileIO(0, "rb", closefd=False)), encoding="utf-8"
            ),
            "stdout": io.TextIOWrapper(
                io.BufferedWriter(io.FileIO(1, "wb", closefd=False)), encoding="utf-8"
            ),
            "stderr": io.TextIOWrapper(
                io.BufferedWriter(io.FileIO(2, "wb", closefd=False)), encoding="utf-8",
                errors="backslashreplace", line_buffering=True,
            ),
        }  # fmt: skip
        for name, stream in streams.items():  # a fresh process's sys.stdin, __stdin__, ...
            setattr(sys, name, stream)
            setattr(sys, f"__{name}__", stream)
        random.seed()
        sys.argv = ["main.py"]
        sys.path[0] = workdir
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
                code = compile(f.read(), main.__file__, "exec")
            del f
            exec(code, main.__dict__)  # the job itself
        elif mode == "serve":
            serve(msg["arg"])
        elif mode == "judge":
            judge()
    except SystemExit as exc:
        status = exit_status(exc)
    except BaseException:
        sys.excepthook(*sys.exc_info())
        status = 1
    shutdown(status)


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

    def pump(self, deadline: float, cap: int) -> bool:
        """Move data until the process exits and its pipes close; False on timeout."""
        exited_at: float | None = None
        while True:
            self.collect()
            now = time.monotonic()
            if self.status is not None:
                exited_at = exited_at or now
                if not ({"out", "err"} & set(self.fds)) or now - exited_at > 0.2:
                    return True  # done (a daemon holding the pipes is cut off)
            if now >= deadline:
                return False
            readers = [self.fds[n] for n in ("out", "err") if n in self.fds]
            if self.pidfd is not None and self.status is None:
                readers.append(self.pidfd)
            writers = [self.fds["in"]] if "in" in self.fds else []
            wait = min(0.05 if self.pidfd is not None else 0.002, deadline - now)
            if self.status is not None:
                wait = min(wait, max(0.0, 0.2 - (now - exited_at)) if exited_at else wait)
            try:
                r, w, _ = select.select(readers, writers, [], max(0.0, wait))
            except InterruptedError:
                continue
            for name in ("out", "err"):
                fd = self.fds.get(name)
                if fd is not None and fd in r:
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
            if "in" in self.fds and self.fds["in"] in w:
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


class Supervisor:
    def __init__(self, zygote: Zygote, job_uid: int, judge_uid: int) -> None:
        self.zygote = zygote
        self.job_uid = job_uid
        self.judge_uid = judge_uid

    def cleanup(self, judged: bool) -> None:
        kill_uid(self.job_uid)
        wipe(self.job_uid, ["/work", "/tmp", "/dev/shm"])
        if judged:  # the judge uid runs only for "judge" requests
            kill_uid(self.judge_uid)
            wipe(self.judge_uid, ["/judge", "/tmp", "/dev/shm"])
        reap()

    # -- op: run a program as __main__ ----------------------------------------------------
    def op_run(self, msg: dict[str, Any]) -> dict[str, Any]:
        limits = Limits(msg)
        files = {name: base64.b64decode(data) for name, data in msg.get("files", {}).items()}
        files["main.py"] = msg["source"].encode()
        ooms = oom_kills()
        start = time.monotonic()
        pid, in_w, out_r, err_r = self.zygote.spawn(
            self.job_uid, "/work", "run", "", files, limits, [], job_env("/work")
        )
        run = Run(pid, in_w, out_r, err_r, base64.b64decode(msg.get("stdin", "")))
        finished = run.pump(start + limits.timeout_s, limits.out_cap)
        duration = time.monotonic() - start
        kill_uid(self.job_uid)
        run.collect()
        if run.status is None:
            try:
                _, run.status = os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        run.finish()
        oom = oom_kills() > ooms
        return {
            "stdout": b64(run.output("out", limits.out_cap)),
            "stderr": b64(run.output("err", limits.out_cap)),
            "exit_code": exit_code(run.status) if finished and not run.truncated else None,
            "timed_out": not finished,
            "oom_killed": oom,
            "truncated": run.truncated,
            "duration_s": duration,
            "dirty": (not finished) or oom or run.truncated,
        }

    # -- solution server and judge ----------------------------------------------------------
    def start_server(self, msg: dict[str, Any], limits: Limits) -> Server:
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        files = {"solution.py": msg["source"].encode()}
        pid, in_w, out_r, err_r = self.zygote.spawn(
            self.job_uid, "/work", "serve", msg.get("fn_name", ""), files, limits,
            [req_r, resp_w], job_env("/work"),
        )  # fmt: skip
        os.close(in_w)
        return Server(pid, req_w, resp_r, out_r, err_r)

    def op_call(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Call ``fn_name`` once per argument list; each call bounded by ``timeout_s``."""
        limits = Limits(msg)
        suite_deadline = time.monotonic() + float(msg.get("suite_timeout_s", 60.0))
        results: list[Any] = []
        server: Server | None = None
        dirty = False
        for args in msg["calls"]:
            if time.monotonic() >= suite_deadline:
                results.append({"status": "timeout", "detail": "the suite ran out of time"})
                continue
            if server is None or not server.alive():
                if server is not None:
                    server.close()
                    kill_uid(self.job_uid)
                server = self.start_server(msg, limits)
                ready = server.response(min(suite_deadline, time.monotonic() + limits.timeout_s))
                if ready is None or ready.get("status") != "ready":
                    detail = (ready or {}).get("detail") or "the program did not load in time"
                    status = "timeout" if ready is None else "crashed"
                    results += [{"status": status, "detail": detail}] * (
                        len(msg["calls"]) - len(results)
                    )
                    dirty = dirty or ready is None
                    break
            deadline = min(suite_deadline, time.monotonic() + limits.timeout_s)
            server.request({"args": args})
            answer = server.response(deadline)
            if answer is None:
                results.append({"status": "timeout", "detail": f"over {limits.timeout_s:g} s"})
                server.close()
                kill_uid(self.job_uid)
                server = None
                dirty = True
                continue
            results.append(answer)
        if server is not None:
            server.close()
        kill_uid(self.job_uid)
        return {"results": results, "dirty": dirty}

    def op_judge(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Run each test statement in a judge process (judge uid) against a solution server."""
        limits = Limits(msg)
        tests: list[str] = msg["tests"]
        suite_deadline = time.monotonic() + float(msg.get("suite_timeout_s", 60.0))
        records: list[dict[str, Any] | None] = [None] * len(tests)
        dirty = False
        k = 0
        while k < len(tests):
            if time.monotonic() >= suite_deadline:
                for j in range(k, len(tests)):
                    records[j] = {"status": "timeout", "detail": "the suite ran out of time"}
                break
            server = self.start_server({**msg, "fn_name": msg.get("entry_point", "")}, limits)
            # The judge gets the server's pipe ends (spawn closes our copies): its calls to the
            # program do not pass through here, and the program cannot reach the judge.
            judge_in_r, judge_in_w = os.pipe()
            rec_r, rec_w = os.pipe()
            jpid, jin, jout, jerr = self.zygote.spawn(
                self.judge_uid, "/judge", "judge", "", {}, limits,
                [judge_in_r, rec_w, server.req_w, server.resp_r], job_env("/judge"),
            )  # fmt: skip
            server.req_w = server.resp_r = -1
            server.drains += [jout, jerr]
            for fd in (jout, jerr):
                os.set_blocking(fd, False)
            os.close(jin)
            write_frame(
                judge_in_w,
                {"setup": msg.get("setup", ""), "entry_point": msg.get("entry_point", ""),
                 "tests": tests, "first": k, "timeout_s": limits.timeout_s},
            )  # fmt: skip
            os.close(judge_in_w)
            k, stopped = self.follow_judge(rec_r, server, records, k, limits, suite_deadline)
            os.close(rec_r)
            server.close()
            kill_uid(self.job_uid)
            kill_uid(self.judge_uid)
            reap()
            dirty = dirty or stopped
        return {"records": records, "dirty": dirty}

    def follow_judge(
        self, rec_r: int, server: Server, records: list[dict[str, Any] | None], k: int,
        limits: Limits, suite_deadline: float,
    ) -> tuple[int, bool]:  # fmt: skip
        """Read the judge's records; returns (next test to run, whether a test was stopped)."""
        deadline = min(suite_deadline, time.monotonic() + limits.timeout_s + 5)
        while k < len(records):
            remaining = max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([rec_r, *server.drains], [], [], remaining)
            server.drain(ready)
            if ready and rec_r not in ready:
                continue
            if not ready:
                records[k] = {"status": "timeout", "detail": f"over {limits.timeout_s:g} s"}
                return k + 1, True
            try:
                record = read_frame(rec_r)
            except (EOFError, ValueError):
                records[k] = {"status": "judge_error", "detail": "the test code failed to run"}
                return k + 1, False
            if "start" in record:
                deadline = min(suite_deadline, time.monotonic() + limits.timeout_s)
                continue
            records[k] = {"status": record["status"], "detail": record.get("detail", "")}
            k += 1
            if record.get("restart"):
                return k, False
            deadline = min(suite_deadline, time.monotonic() + limits.timeout_s + 5)
        return k, False

    def serve_forever(self) -> None:
        while True:
            try:
                msg = read_frame(0)
            except EOFError:
                return
            op = msg.get("op")
            try:
                if op == "ping":
                    reply: dict[str, Any] = {"pong": True}
                elif op == "run":
                    reply = self.op_run(msg)
                elif op == "call":
                    reply = self.op_call(msg)
                elif op == "judge":
                    reply = self.op_judge(msg)
                else:
                    reply = {"error": f"unknown op {op!r}"}
            except Exception as exc:  # report, never die: the host recycles us if needed
                reply = {"error": f"{type(exc).__name__}: {exc}", "dirty": True}
            self.cleanup(judged=op == "judge")
            reply["id"] = msg.get("id")
            write_frame(1, reply)


class Server:
    """The host-side handle (inside the supervisor) of a solution server process."""

    def __init__(self, pid: int, req_w: int, resp_r: int, out_r: int, err_r: int) -> None:
        self.pid, self.req_w, self.resp_r = pid, req_w, resp_r
        self.drains = [out_r, err_r]  # the program's own prints: read and dropped
        for fd in self.drains:
            os.set_blocking(fd, False)

    def alive(self) -> bool:
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return False
        return pid == 0

    def request(self, obj: Any) -> None:
        try:
            write_frame(self.req_w, obj)
        except OSError:
            pass

    def response(self, deadline: float) -> dict[str, Any] | None:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            r, _, _ = select.select([self.resp_r, *self.drains], [], [], remaining)
            self.drain(r)
            if self.resp_r in r:
                try:
                    answer = read_frame(self.resp_r)
                except (EOFError, ValueError, OSError):
                    return {"status": "crashed", "detail": "the program exited"}
                return answer if isinstance(answer, dict) else {"status": "crashed"}

    def drain(self, ready: list[int]) -> None:
        """Read and drop what the program printed (its prints are not its answers)."""
        for fd in list(self.drains):
            if fd in ready:
                try:
                    if not os.read(fd, 1 << 16):
                        self.drains.remove(fd)
                        os.close(fd)
                except BlockingIOError:
                    pass

    def close(self) -> None:
        for fd in (self.req_w, self.resp_r, *self.drains):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.drains = []


# -- the solution server (job uid) -----------------------------------------------------------
def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]


def serve(fn_name: str) -> None:
    req, resp = 3, 4
    namespace: dict[str, Any] = {"__name__": "solution", "__builtins__": __builtins__}
    try:
        with open("solution.py", encoding="utf-8") as f:
            code = compile(f.read(), "solution.py", "exec")
        del f
        sys.argv = ["solution.py"]
        exec(code, namespace)
        fn = namespace.get(fn_name) if fn_name else None
        if fn_name and not callable(fn) and isinstance(namespace.get("Solution"), type):
            fn = getattr(namespace["Solution"](), fn_name, None)
        if fn_name and not callable(fn):
            raise NameError(f"the program defines no function {fn_name!r}")
    except BaseException as exc:
        write_frame(resp, {"status": "crashed", "detail": describe(exc)})
        return
    write_frame(resp, {"status": "ready"})
    while True:
        try:
            msg = read_frame(req)
        except (EOFError, ValueError):
            return
        try:
            target = namespace.get(msg["name"]) if msg.get("name") else fn
            args = [decode(a) for a in msg["args"]]
            value = target(*args)  # type: ignore[misc]
            answer = {"status": "ok", "value": encode(value)}
        except BaseException as exc:
            answer = {"status": "crashed", "detail": describe(exc), "type": type(exc).__name__}
        write_frame(resp, answer)


# -- the judge (judge uid) ------------------------------------------------------------------
class SolutionDied(Exception):
    """The solution process exited or stopped answering."""


def judge() -> None:
    spec = read_frame(3)
    rec, req, resp = 4, 5, 6
    try:
        ready = read_frame(resp)
    except (EOFError, OSError, ValueError):
        ready = {"status": "crashed", "detail": "the program exited while loading"}
    tests: list[str] = spec["tests"]
    first: int = spec["first"]
    if ready.get("status") != "ready":
        for _ in tests[first:]:
            write_frame(rec, {"start": True})
            write_frame(rec, {"status": "crashed", "detail": ready.get("detail", "did not load")})
        return

    def call(*args: Any) -> Any:
        try:
            write_frame(req, {"args": [encode(a) for a in args]})
            answer = read_frame(resp)
        except (EOFError, OSError, ValueError):
            raise SolutionDied("the program exited") from None
        if answer.get("status") == "ok":
            return decode(answer["value"])
        raise SolutionError(answer.get("type", "Exception"), answer.get("detail", ""))

    namespace: dict[str, Any] = {"__name__": "__judge__", "__builtins__": __builtins__}
    exec(compile(spec.get("setup") or "", "setup", "exec"), namespace)
    if spec.get("entry_point"):
        namespace[spec["entry_point"]] = call
    namespace["candidate"] = call
    for test in tests[first:]:
        write_frame(rec, {"start": True})
        try:
            exec(compile(test, "test", "exec"), namespace)
            record: dict[str, Any] = {"status": "passed"}
        except SolutionDied as exc:
            write_frame(rec, {"status": "crashed", "detail": str(exc), "restart": True})
            return
        except SolutionError as exc:
            record = {"status": "crashed", "detail": exc.detail}
        except NotAValue as exc:
            record = {"status": "failed", "detail": f"the result is not a plain value ({exc})"}
        except AssertionError as exc:
            record = {"status": "failed", "detail": f"assertion failed {exc}".strip()}
        except BaseException as exc:
            record = {"status": "failed", "detail": describe(exc)}
        write_frame(rec, record)


class SolutionError(Exception):
    """The solution raised; ``kind`` is its exception type's name."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind, self.detail = kind, detail


def main() -> None:
    """``python3 -c <this file> supervise JOB_UID JUDGE_UID`` (the container's command)."""
    zygote = Zygote()  # first: before any job data exists in this process
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))  # `docker stop` is instant
    Supervisor(zygote, int(sys.argv[2]), int(sys.argv[3])).serve_forever()


if __name__ == "__main__":
    main()
