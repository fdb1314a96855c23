"""The in-container side of the sandbox: a supervisor, a solution server and a tester (the test process).

The container runs ``python3 -s -c <bootstrap> supervise JOB_UID TESTER_UID``; the bootstrap
reads the program from stdin and runs it as ``__main__``. The program is this module with
`wire`, `objects`, `console`, `faults`, `handles`, `link`, `pyshim`, `roles`, `procs` and `zygote`
(see `verifiers.sandbox._host.program`): standard library only, on the image's Python.

Roles and privileges (uids are chosen per container by the host):

- ``supervise`` is PID 1: root with only CAP_SETUID, CAP_SETGID and CAP_KILL (everything
  else dropped, ``no-new-privileges``, read-only root file system). It talks to the host over
  the container's attached stdin/stdout (8-byte length + JSON frames), starts each job as a
  fresh ``python3`` under the job uid, enforces time limits (`procs.Clock`), caps output, kills every
  process of a uid when a job ends, wipes the writable directories and reaps orphans.
- ``serve`` runs model code as the job uid and answers function calls with values encoded as
  exact builtin types; in tester mode its other objects stay there as handles (`objects`).
- ``tester`` runs dataset test code as a second uid; the function under test is a proxy whose
  every call crosses to the solution server as encoded values (`link`). The job uid cannot read the
  tester's memory, files or pipes, so expected values never reach the model's code.
"""

from __future__ import annotations

import base64
import json
import os
import select
import signal
import sys
from typing import Any

from verifiers.sandbox._in_container.procs import (
    Clock,
    Limits,
    Run,
    b64,
    exit_code,
    exit_if_host_gone,
    job_env,
    kill_uid,
    oom_kills,
    reap,
    wipe,
)
from verifiers.sandbox._in_container.sessions import op_exec, op_read, op_write
from verifiers.sandbox._in_container.wire import MAX_ANSWER, read_frame, write_frame
from verifiers.sandbox._in_container.zygote import Zygote

POLL_S = 0.25  # a waiting supervisor reads its clocks, and checks that the host is still there, this often
SESSION_OPS = {"exec": op_exec, "write": op_write, "read": op_read}
Budget = tuple[Clock, float]  # a clock and its limit in seconds (see `procs.Clock`)


class Supervisor:
    def __init__(self, zygote: Zygote, job_uid: int, tester_uid: int) -> None:
        self.zygote = zygote
        self.job_uid = job_uid
        self.tester_uid = tester_uid

    def cleanup(self, tested: bool) -> None:
        kill_uid(self.job_uid)
        wipe(self.job_uid, ["/work", "/tmp", "/dev/shm"])
        if tested:  # the tester uid runs only for "run_tests" requests
            kill_uid(self.tester_uid)
            wipe(self.tester_uid, ["/tester", "/tmp", "/dev/shm"])
        reap()

    # -- op: run a program as __main__ ----------------------------------------------------
    def op_run(self, msg: dict[str, Any]) -> dict[str, Any]:
        limits = Limits(msg)
        files = {name: base64.b64decode(data) for name, data in msg.get("files", {}).items()}
        files["main.py"] = msg["source"].encode()
        ooms = oom_kills()
        pid, in_w, out_r, err_r = self.zygote.spawn(
            self.job_uid, "/work", "run", "", files, limits, [], job_env("/work")
        )
        run = Run(pid, in_w, out_r, err_r, base64.b64decode(msg.get("stdin", "")))
        clock = Clock(pid)
        finished = run.pump(clock, limits.timeout_s, limits.out_cap)
        duration = clock.elapsed()
        kill_uid(self.job_uid, group=pid)
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

    # -- solution server and tester ----------------------------------------------------------
    def start_server(self, msg: dict[str, Any], limits: Limits) -> Server:
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        files = {"solution.py": msg["source"].encode()}
        if msg.get("classes"):  # the test's class definitions the program may use (see `objects.test_classes`)
            files[".classes.json"] = json.dumps(msg["classes"]).encode()
        pid, in_w, out_r, err_r = self.zygote.spawn(
            self.job_uid,
            "/work",
            "serve",
            msg.get("fn_name", ""),
            files,
            limits,
            [req_r, resp_w],
            job_env("/work"),
        )
        os.close(in_w)
        return Server(pid, req_w, resp_r, out_r, err_r, cap=limits.out_cap)

    def op_call(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Call ``fn_name`` once per argument list; each call bounded by ``timeout_s``."""
        limits = Limits(msg)
        suite = (Clock(), float(msg.get("suite_timeout_s", 60.0)))
        results: list[Any] = []
        server: Server | None = None
        dirty = False
        for args in msg["calls"]:
            if suite[0].left(suite[1]) <= 0:
                results.append({"status": "timeout", "detail": "the suite ran out of time"})
                continue
            if server is None or server.broken or not server.alive():
                if server is not None:
                    server.close()
                    kill_uid(self.job_uid)
                server = self.start_server(msg, limits)
                suite[0].track(server.pid)
                ready = server.response([(Clock(server.pid), limits.timeout_s), suite])
                if ready is None or ready.get("status") != "ready":
                    detail = (ready or {}).get("detail") or "the program did not load in time"
                    status = "timeout" if ready is None else "crashed"
                    results += [{"status": status, "detail": detail}] * (len(msg["calls"]) - len(results))
                    dirty = dirty or ready is None
                    break
            server.printed = 0  # the output cap holds per call, as per run in stdin mode
            server.request({"args": args})
            ooms = oom_kills()
            answer = server.response([(Clock(server.pid), limits.timeout_s), suite])
            if answer is not None:
                answer = self.memory(answer, ooms, limits)
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

    def op_run_tests(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Run each test statement in a tester process (tester uid) against a solution server."""
        limits = Limits(msg)
        tests: list[str] = msg["tests"]
        suite = (Clock(), float(msg.get("suite_timeout_s", 60.0)))
        records: list[dict[str, Any] | None] = [None] * len(tests)
        dirty = False
        k = 0
        while k < len(tests):
            if suite[0].left(suite[1]) <= 0:
                for j in range(k, len(tests)):
                    records[j] = {"status": "timeout", "detail": "the suite ran out of time"}
                break
            server = self.start_server({**msg, "fn_name": msg.get("entry_point", "")}, limits)
            # The tester gets the server's pipe ends (spawn closes our copies): its calls to the
            # program do not pass through here, and the program cannot reach the tester.
            tester_in_r, tester_in_w = os.pipe()
            rec_r, rec_w = os.pipe()
            jpid, jin, jout, jerr = self.zygote.spawn(
                self.tester_uid,
                "/tester",
                "tester",
                "",
                {},
                limits,
                [tester_in_r, rec_w, server.req_w, server.resp_r],
                job_env("/tester"),
            )
            server.req_w = server.resp_r = -1
            suite[0].track(server.pid)
            suite[0].track(jpid)
            server.drains += [jout, jerr]
            for fd in (jout, jerr):
                os.set_blocking(fd, False)
            os.close(jin)
            write_frame(
                tester_in_w,
                {
                    "setup": msg.get("setup", ""),
                    "entry_point": msg.get("entry_point", ""),
                    "tests": tests,
                    "first": k,
                    "timeout_s": limits.timeout_s,
                },
            )
            os.close(tester_in_w)
            k, stopped = self.follow_tests(rec_r, server, jpid, records, k, limits, suite)
            os.close(rec_r)
            server.close()
            kill_uid(self.job_uid)
            kill_uid(self.tester_uid)
            reap()
            dirty = dirty or stopped
        return {"records": records, "dirty": dirty}

    def follow_tests(
        self,
        rec_r: int,
        server: Server,
        jpid: int,
        records: list[dict[str, Any] | None],
        k: int,
        limits: Limits,
        suite: Budget,
    ) -> tuple[int, bool]:
        """Read the tester's records; returns (next test to run, whether a test was stopped).
        A test's time runs from its "start" (before it, the tester's set-up has 5 s more)."""
        test = (Clock(server.pid, jpid), limits.timeout_s + 5)
        ooms = oom_kills()
        while k < len(records):
            remaining = min(test[0].left(test[1]), suite[0].left(suite[1]))
            exit_if_host_gone()
            ready, _, _ = select.select([rec_r, *server.drains], [], [], max(0.0, min(remaining, POLL_S)))
            server.drain(ready)
            if server.over_cap:  # the program printed past the cap during this test: it fails
                records[k] = {"status": "output_limit", "detail": server.over_cap_detail()}
                return k + 1, True
            if ready and rec_r not in ready or not ready and remaining > 0:
                continue
            if not ready:
                records[k] = {"status": "timeout", "detail": f"over {limits.timeout_s:g} s"}
                return k + 1, True
            try:
                record = read_frame(rec_r)
            except (EOFError, ValueError):
                failed = {"status": "tester_error", "detail": "the test code failed to run"}
                records[k] = self.memory(failed, ooms, limits)
                return k + 1, False
            if "start" in record:
                test = (Clock(server.pid, jpid), limits.timeout_s)
                server.printed = 0
                ooms = oom_kills()
                continue
            record = self.memory(record, ooms, limits)
            records[k] = {"status": record["status"], "detail": record.get("detail", "")}
            k += 1
            if record.get("restart"):
                return k, False
            test = (Clock(server.pid, jpid), limits.timeout_s + 5)
        return k, False

    def memory(self, answer: dict[str, Any], ooms: int, limits: Limits) -> dict[str, Any]:
        """``answer``, or the memory limit's failure when the program ran out of memory: its
        MemoryError (past its data limit), or the container's OOM killer since ``ooms``."""
        status = answer.get("status")
        died = status in ("crashed", "tester_error") and oom_kills() > ooms
        if status == "memory" or answer.get("type") == "MemoryError" or died:
            detail = f"the program ran out of memory (its limit is {limits.memory_mb} MB)"
            return {"status": "memory", "detail": detail, "restart": answer.get("restart")}
        return answer

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
                elif op == "run_tests":
                    reply = self.op_run_tests(msg)
                elif op in SESSION_OPS:
                    reply = SESSION_OPS[op](self, msg)
                else:
                    reply = {"error": f"unknown op {op!r}"}
            except Exception as exc:  # report, never die: the host recycles us if needed
                reply = {"error": f"{type(exc).__name__}: {exc}", "dirty": True}
            reply["id"] = msg.get("id")
            # A job that ran has its processes gone already (one whose op raised is "dirty": the host
            # recycles the container); the next request waits for the cleanup below.
            write_frame(1, reply)
            if op not in SESSION_OPS:  # a session's container: nothing is wiped or killed between requests
                self.cleanup(tested=op == "run_tests")


class Server:
    """The host-side handle (inside the supervisor) of a solution server process."""

    def __init__(self, pid: int, req_w: int, resp_r: int, out_r: int, err_r: int, cap: int = 4 * 2**20) -> None:
        self.pid, self.req_w, self.resp_r = pid, req_w, resp_r
        self.drains = [out_r, err_r]  # the program's own prints: read, counted and dropped
        self.broken = False
        self.cap, self.printed = cap, 0
        for fd in self.drains:
            os.set_blocking(fd, False)

    @property
    def over_cap(self) -> bool:
        return self.printed > self.cap

    def over_cap_detail(self) -> str:
        return f"the program printed more than the output cap ({self.cap} bytes)"

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

    def response(self, budgets: list[Budget]) -> dict[str, Any] | None:
        """The server's next answer, or None once a budget (a clock and its limit) is spent."""
        while True:
            remaining = min(clock.left(limit) for clock, limit in budgets)
            if remaining <= 0:
                return None
            exit_if_host_gone()
            r, _, _ = select.select([self.resp_r, *self.drains], [], [], min(remaining, POLL_S))
            self.drain(r)
            if self.over_cap:
                self.broken = True  # stop reading its flood: the next call gets a fresh server
                return {"status": "output_limit", "detail": self.over_cap_detail()}
            if self.resp_r in r:
                try:
                    answer = read_frame(self.resp_r, MAX_ANSWER)
                except EOFError:
                    self.broken = True
                    return {"status": "crashed", "detail": "the program exited"}
                except (ValueError, OSError):
                    self.broken = True  # the rest of that frame is still in the pipe
                    return {"status": "crashed", "detail": "the result was too large or malformed"}
                return answer if isinstance(answer, dict) else {"status": "crashed"}

    def drain(self, ready: list[int]) -> None:
        """Read and drop what the program printed (its prints are not its answers)."""
        for fd in list(self.drains):
            if fd in ready:
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    self.drains.remove(fd)
                    os.close(fd)
                self.printed += len(chunk)

    def close(self) -> None:
        for fd in (self.req_w, self.resp_r, *self.drains):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.drains = []


def main() -> None:
    """``supervise JOB_UID TESTER_UID``: the container's command, once the program arrived (see `_host.program`)."""
    zygote = Zygote()  # first: before any job data exists in this process
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))  # `docker stop` is instant
    Supervisor(zygote, int(sys.argv[2]), int(sys.argv[3])).serve_forever()


if __name__ == "__main__":
    main()
