"""Verifying an agentic task after the agent's turn: `verify_task` picks the task's mode (the one place
it is read); separate mode (our default) is here, shared mode in `verifiers.agentic._shared`.

`verify_separate(session, task, image)`: the declared ``artifacts`` are copied out of the agent's
session (as data, a tar), the session's container may then go; a fresh verifier container is made
from the task's image, with ``/tests`` and ``/logs/verifier`` created empty and owned by root
before anything runs, the artifacts put at their paths and the tests copied in; ``test.sh`` runs
with a fixed ``PATH`` and environment, and the verdict is read from ``/logs/verifier`` by
`verdict_from_files`. Nothing of the agent's container but the artifacts' bytes reaches it: no
process, no shim on ``PATH``, no planted reward file. The verifier container has no network, no
capability but four (below), ``no-new-privileges``, and the task's memory and a pids cap; the tests
run the agent's artifacts (a module they import), so it is locked down as a session is.

The artifacts are owned by ``nobody`` (`ARTIFACT_UID`), and the tests' root holds
``DAC_OVERRIDE`` (it reads them whatever their modes), ``SETUID``/``SETGID`` and ``KILL``, so that
tests can run the agent's code as ``nobody`` (``setpriv --reuid=65534 --regid=65534
--clear-groups``: no capability left) and kill what it left running. Run as root, the agent's
code could rewrite ``test.sh`` while it runs, kill it after writing a reward of 1, or patch the
runner: as ``nobody`` it can do none of that. The shipped tasks run it so.
"""

from __future__ import annotations

import io
import tarfile
import time
import uuid
from typing import Any

from verifiers.agentic._log import EpisodeLog
from verifiers.agentic._shared import verify_shared
from verifiers.agentic._task import AgenticTask
from verifiers.agentic._verdict import verdict_from_files
from verifiers.result import VerifyResult
from verifiers.sandbox import Session, engine_client

__all__ = ["verify_separate", "verify_task"]

VERIFIER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ARTIFACT_UID = 65534  # nobody: who owns the artifacts in the verifier container, and who should run them
VERIFIER_CAPS = ["DAC_OVERRIDE", "SETUID", "SETGID", "KILL"]  # what the tests' root keeps (see above)
ARTIFACT_CAP = 3 * 2**20  # bytes of artifacts (as tar) carried over


def _artifacts(session: Session, paths: tuple[str, ...], log: EpisodeLog) -> bytes | str:
    """A tar of ``paths`` from the session, or why there is none. A missing artifact is left out
    (the tests then see it missing). ``/bin/tar`` runs through ``docker exec`` as the session's
    user with an empty environment: never through the session's shell, whose saved state (its
    functions, aliases, ``PATH``) the agent writes, so the agent cannot stand in for the copy."""
    if not paths:
        return b""
    names = [p.strip("/") for p in paths]
    uid = 0 if session.root else session.container.job_uid
    script = f'/bin/tar --ignore-failed-read -C / -cf - -- "$@" | /usr/bin/head -c {ARTIFACT_CAP + 1}'
    cmd = ["/usr/bin/env", "-i", "/bin/sh", "-c", script, "sh", *names]
    api, start, data, code = session.container.client.api, time.monotonic(), b"", None
    try:
        exec_id = api.exec_create(session.id, cmd, user=f"{uid}:{uid}", stdout=True, stderr=False)
        data = api.exec_start(exec_id)
        code = api.exec_inspect(exec_id).get("ExitCode")
    except Exception as exc:  # the engine refused (a container at its pids limit, or gone)
        return f"the artifacts could not be copied out of the session ({exc})"
    finally:
        took = time.monotonic() - start
        log.add(f"tar -cf - {' '.join(names)} (docker exec as the session user)", code, took, len(data), "judge")
    if len(data) > ARTIFACT_CAP:
        return f"the artifacts are over {ARTIFACT_CAP >> 20} MiB"
    try:
        return _plain(data, names)
    except tarfile.TarError as exc:
        return f"the artifacts could not be read ({exc})"


def _plain(data: bytes, names: list[str]) -> bytes:
    """The tar ``data`` with only regular files and folders at or under the artifacts' ``names``:
    a symlink (``answer.txt -> /tests/expected.txt``), hard link or device the agent left is
    dropped, so what it points at is never what the tests read; anything else (``..``, another
    path) is dropped; the rest is owned by nobody (`ARTIFACT_UID`), modes kept, so tests may run
    the agent's code as nobody."""
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(data)) as src, tarfile.open(fileobj=out, mode="w") as dst:
        for m in src.getmembers():
            name = m.name.rstrip("/")
            declared = any(name == n or name.startswith(n + "/") for n in names)
            if declared and (m.isfile() or m.isdir()) and ".." not in name.split("/"):
                m.uid = m.gid = ARTIFACT_UID
                m.uname = m.gname = "nobody"
                dst.addfile(m, src.extractfile(m) if m.isfile() else None)
    return out.getvalue()


def _tests_tar(task: AgenticTask) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, mode in (("tests", 0o755), ("logs", 0o755), ("logs/verifier", 0o777)):
            info = tarfile.TarInfo(name)
            info.type, info.mode = tarfile.DIRTYPE, mode
            tar.addfile(info)
        for path, data in task.verifier.tests.items():
            info = tarfile.TarInfo(f"tests/{path}")
            info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _read_logs(container: Any) -> dict[str, bytes]:
    """The files directly in the container's /logs/verifier (missing dir: none)."""
    import docker.errors

    try:
        stream, _ = container.get_archive("/logs/verifier")
    except docker.errors.NotFound:
        return {}
    with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
        out = {}
        for m in tar.getmembers():
            f = tar.extractfile(m) if m.isfile() and m.size <= 2**20 else None
            if f is not None:
                out[m.name.split("/", 1)[-1]] = f.read()
        return out


def _run_tests(
    client: Any, task: AgenticTask, image: str, artifacts: bytes, log: EpisodeLog
) -> tuple[int | None, dict[str, bytes]]:
    env = {"PATH": VERIFIER_PATH, "HOME": "/root", "LANG": "C.UTF-8", **task.verifier.env}
    container = client.containers.create(
        image,
        ["/bin/bash", "-c", "cd /tests && /bin/bash /tests/test.sh > /logs/verifier/test-output.txt 2>&1"],
        name=f"grpo-envs-verifier-{uuid.uuid4().hex[:12]}",
        user="0:0",
        environment=env,
        entrypoint=[],
        network_mode="none",
        cap_drop=["ALL"],
        cap_add=VERIFIER_CAPS,
        security_opt=["no-new-privileges"],
        mem_limit=f"{task.limits.memory_mb}m",
        memswap_limit=f"{task.limits.memory_mb}m",
        pids_limit=256,
        nano_cpus=int(task.limits.cpus * 1e9),
        labels={"org.grpo-envs.verifier": task.name},
    )
    try:
        if artifacts:
            container.put_archive("/", artifacts)
        container.put_archive("/", _tests_tar(task))
        start = time.monotonic()
        container.start()
        try:
            code: int | None = container.wait(timeout=task.limits.verifier_timeout_s)["StatusCode"]
        except Exception:  # the wait timed out (requests' ReadTimeout / ConnectionError)
            container.kill()
            code = None
        logs = _read_logs(container)
        output = len(logs.get("test-output.txt", b""))
        log.add("bash /tests/test.sh", code, time.monotonic() - start, output, "judge")
        return code, logs
    finally:
        container.remove(force=True)


def verify_task(
    session: Session, task: AgenticTask, image: str, *, client: Any = None, log: EpisodeLog | None = None
) -> VerifyResult:
    """The verdict of ``task`` on what the agent left in ``session`` (a `task_session`), in the
    task's ``[verifier] environment_mode``: `verify_separate` or `verify_shared`. The judging steps
    are added to ``log`` (phase ``"judge"``)."""
    if task.verifier.mode == "shared":
        return verify_shared(session, task, log=log)
    return verify_separate(session, task, image, client=client, log=log)


def verify_separate(
    session: Session, task: AgenticTask, image: str, *, client: Any = None, log: EpisodeLog | None = None
) -> VerifyResult:
    """The verdict of ``task`` on the state the agent left in ``session``: its artifacts judged
    in a fresh verifier container of ``image`` (see the module's docstring). Never raises for
    the agent's doing; what could not be judged is a masked error with its reason.

    Examples:
        >>> verify_separate(session, task, build_task_image(task))  # doctest: +SKIP
        VerifyResult(reward=1.0, correct=True, status='correct', ...)
    """
    log = log if log is not None else EpisodeLog(task.name)
    artifacts = _artifacts(session, task.verifier.artifacts, log)
    if isinstance(artifacts, str):
        return VerifyResult.judged("error", artifacts)
    code, logs = _run_tests(client or engine_client(), task, image, artifacts, log)
    if code is None:
        return VerifyResult.judged("timeout", f"the tests ran past {task.limits.verifier_timeout_s:g} s")
    return verdict_from_files(
        logs.get("reward.txt"),
        logs.get("reward.json"),
        junit_xml=logs.get("junit.xml"),
        required_tests=task.verifier.required_tests,
        tests_exit=code,
    )
