"""Judging in shared mode (``[verifier] environment_mode = "shared"``): the tests run in the agent's
own container, as Harbor's shared mode does, after the agent is stopped.

`verify_shared(session, task)`, through ``docker exec`` as root in the session's container (a
session made by `task_session`, so ``/tests`` and ``/logs`` are root-owned tmpfs mount points):

1. every process but the container's supervisor (PID 1) is killed, until none is left (a
   background rewriter, a verifier killer or a fork bomb included): nothing of the agent runs
   while the tests do;
2. ``/tests`` and ``/logs`` are emptied (whatever the agent put there, links included, is
   removed, never followed) and ``/logs/verifier`` made, owned by root; the agent's files in
   ``/work`` and ``/tmp`` are made readable and writable by others (the verifier is root without
   ``CAP_DAC_OVERRIDE``, so it reads them as any other user would);
3. the tests are copied into ``/tests`` and ``test.sh`` runs as root with ``env -i`` and a fixed
   ``PATH`` of the image's own folders: the root file system is read-only, so the agent could
   not change ``bash``, ``python3`` or anything on that ``PATH``; ``HOME`` is ``/root``, so the
   agent's ``~/.local`` (its ``/work``) is not on ``sys.path``;
4. the verdict is read from ``/logs/verifier`` (`verdict_from_files`).

What shared mode cannot protect against (use separate mode, our default, for these): the tests
see the agent's whole workspace, so whatever in it the tests import or run is the agent's (a
``conftest.py`` above the tests' files, a ``pytest.py`` in the folder ``python3 -m pytest`` runs
in, a module the tests import from ``/work``, files planted in ``/tmp``); the tests run with the
session container's capabilities (KILL, SETUID, SETGID; separate mode has none); a container
filled to its pids or memory limit may not let the judge in, which is then a masked error.
"""

from __future__ import annotations

import base64
import io
import json
import tarfile
import time
from typing import Any

from verifiers.agentic._log import EpisodeLog
from verifiers.agentic._task import AgenticTask
from verifiers.agentic._verdict import verdict_from_files
from verifiers.result import VerifyResult
from verifiers.sandbox import Session

__all__ = ["verify_shared"]

VERIFIER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PYTHON = ["/usr/bin/env", "-i", "/usr/bin/python3", "-I", "-S", "-c"]
_CHUNK = 96 * 1024  # base64 characters per argument (the kernel caps one at 128 KiB)

# Kill every process but PID 1 and this one until none is left.
_STOP = r"""
import os, shutil, signal, time
me = os.getpid()
def live():
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) not in (1, me):
            try:
                state = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state != "Z":
                out.append(int(p))
    return out
for _ in range(1000):
    pids = live()
    if not pids:
        break
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    time.sleep(0.005)
else:
    raise SystemExit("the agent's processes could not all be stopped")
"""

# Empty /tests and /logs (links removed, never followed), then make /logs/verifier.
_EMPTY = r"""
import os, shutil
def own(path):
    for root, dirs, files in os.walk(path):
        for d in dirs:
            p = os.path.join(root, d)
            if not os.path.islink(p):
                os.chmod(p, 0o700)
for top in ("/tests", "/logs"):
    os.chmod(top, 0o755)
    own(top)
    for name in os.listdir(top):
        p = os.path.join(top, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.unlink(p)
os.mkdir("/logs/verifier", 0o755)
print("stopped")
"""

# As the agent's uid (the verifier is root without CAP_DAC_OVERRIDE or CAP_FOWNER): hand the
# agent's files in /work and /tmp to the verifier, readable and writable by others; links untouched.
_HAND_OVER = r"""
import os, stat, sys
uid = int(sys.argv[1])
if uid and os.fork() == 0:
    os.setgroups([]); os.setgid(uid); os.setuid(uid)
    for top in ("/work", "/tmp"):
        for root, dirs, files in os.walk(top):
            for name in [".", *dirs, *files]:
                p = os.path.join(root, name)
                try:
                    st = os.lstat(p)
                    if st.st_uid == uid and not stat.S_ISLNK(st.st_mode):
                        extra = 0o777 if stat.S_ISDIR(st.st_mode) else 0o666
                        os.chmod(p, stat.S_IMODE(st.st_mode) | extra)
                except OSError:
                    pass
    os._exit(0)
elif uid:
    os.wait()
"""

_UNPACK = r"""
import base64, io, sys, tarfile
data = base64.b64decode(open("/logs/.tests.b64").read())
tarfile.open(fileobj=io.BytesIO(data)).extractall("/tests")
import os; os.unlink("/logs/.tests.b64")
"""

_READ_LOGS = r"""
import base64, json, os
out = {}
for name in os.listdir("/logs/verifier"):
    p = os.path.join("/logs/verifier", name)
    if os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) <= 2**20:
        out[name] = base64.b64encode(open(p, "rb").read()).decode()
print(json.dumps(out))
"""


def _exec(container: Any, cmd: list[str], log: EpisodeLog, label: str) -> tuple[int | None, bytes]:
    """Run ``cmd`` as root in ``container`` (a docker exec); (exit code, output), logged as ``label``."""
    start = time.monotonic()
    try:
        code, out = container.exec_run(cmd, user="0:0", workdir="/", environment={"PATH": VERIFIER_PATH})
    except Exception as exc:  # the engine refused (a container at its pids limit, or gone)
        code, out = None, f"docker exec failed: {exc}".encode()
    log.add(label, code, time.monotonic() - start, len(out or b""), "judge")
    return code, out or b""


def _tests_b64(task: AgenticTask) -> str:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for path, data in task.verifier.tests.items():
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))
    return base64.b64encode(buf.getvalue()).decode()


def _upload(container: Any, task: AgenticTask, log: EpisodeLog) -> str | None:
    """Copy the tests into /tests (through a file in /logs, in chunks); why not, or None."""
    data = _tests_b64(task)
    for i in range(0, len(data), _CHUNK):
        cmd = ["/bin/sh", "-c", 'printf %s "$1" >> /logs/.tests.b64', "sh", data[i : i + _CHUNK]]
        code, out = _exec(container, cmd, log, "upload tests")
        if code != 0:
            return f"the tests could not be copied in: {out.decode(errors='replace')[-200:]}"
    code, out = _exec(container, [*PYTHON, _UNPACK], log, "unpack tests")
    return None if code == 0 else f"the tests could not be unpacked: {out.decode(errors='replace')[-200:]}"


def _run_tests(container: Any, task: AgenticTask, log: EpisodeLog) -> tuple[int | None, float]:
    """Run test.sh (detached, polled: a request does not wait past the client's timeout); its exit
    code (None past the verifier's time limit: its processes are then killed) and seconds."""
    env = {"PATH": VERIFIER_PATH, "HOME": "/root", "LANG": "C.UTF-8", **task.verifier.env}
    script = "cd /tests && exec /bin/bash /tests/test.sh > /logs/verifier/test-output.txt 2>&1"
    api = container.client.api
    start = time.monotonic()
    exec_id = api.exec_create(container.id, ["/bin/bash", "-c", script], user="0:0", environment=env, workdir="/tests")
    api.exec_start(exec_id, detach=True)
    deadline = start + task.limits.verifier_timeout_s
    code: int | None = None
    while time.monotonic() < deadline:
        state = api.exec_inspect(exec_id)
        if not state["Running"] and state.get("ExitCode") is not None:
            code = int(state["ExitCode"])
            break
        time.sleep(0.1)
    if code is None:
        log.add("bash /tests/test.sh", None, time.monotonic() - start, 0, "judge")
        _exec(container, [*PYTHON, _STOP], log, "stop the tests")
    return code, time.monotonic() - start


def verify_shared(session: Session, task: AgenticTask, *, log: EpisodeLog | None = None) -> VerifyResult:
    """The verdict of ``task`` judged in ``session``'s own container (see the module's docstring).
    Never raises for the agent's doing; what could not be judged is a masked error with its reason.

    Examples:
        >>> with task_session(task, image) as s:  # doctest: +SKIP
        ...     s.exec("echo hello > /work/hello.txt")
        ...     verify_shared(s, task).status
        'correct'
    """
    log = log if log is not None else EpisodeLog(task.name)
    container = session.container.container
    uid = "0" if session.root else str(session.container.job_uid)
    script = [*PYTHON, _STOP + _EMPTY + _HAND_OVER, uid]
    code, out = _exec(container, script, log, "stop the agent; empty /tests and /logs; hand over /work and /tmp")
    if code != 0:
        why = out.decode(errors="replace").strip().splitlines()[-1:] or ["?"]
        return VerifyResult.judged("error", f"shared mode: the agent could not be stopped: {why[0][:200]}")
    why_not = _upload(container, task, log)
    if why_not is not None:
        return VerifyResult.judged("error", f"shared mode: {why_not}")
    try:
        tests_exit, seconds = _run_tests(container, task, log)
    except Exception as exc:  # docker refused the exec (the container is gone)
        return VerifyResult.judged("error", f"shared mode: test.sh could not be started: {exc}")
    if tests_exit is None:
        return VerifyResult.judged("timeout", f"the tests ran past {task.limits.verifier_timeout_s:g} s")
    code, out = _exec(container, [*PYTHON, _READ_LOGS], log, "read /logs/verifier")
    if code != 0:
        return VerifyResult.judged("error", "shared mode: /logs/verifier could not be read")
    files = {k: base64.b64decode(v) for k, v in json.loads(out).items()}
    log.add("bash /tests/test.sh", tests_exit, seconds, len(files.get("test-output.txt", b"")), "judge")
    log.records[-2:] = log.records[-1:-3:-1]  # in the order they ran: the tests, then the read
    return verdict_from_files(
        files.get("reward.txt"),
        files.get("reward.json"),
        junit_xml=files.get("junit.xml"),
        required_tests=task.verifier.required_tests,
        tests_exit=tests_exit,
    )
