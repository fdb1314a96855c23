"""`check_task`: a task's reference solution must score 1 and doing nothing must score 0.

Like Harbor's oracle and nop agents, through the same path as a model's commands: the task's
image (built once, `build_task_image`), a `task_session` with its user and lockdown (the image's
working folder writable and filled), and `verify_task` in the task's mode. Each episode's commands
are kept (`TaskCheck.logs`). The solution's files are written to ``/tmp/solution`` (the session's
root file system is read-only) and ``solve.sh`` runs there as the agent would run a command.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from verifiers.agentic._image import build_task_image
from verifiers.agentic._log import EpisodeLog
from verifiers.agentic._session import task_session
from verifiers.agentic._task import AgenticTask
from verifiers.agentic._verify import verify_task
from verifiers.errors import SandboxError
from verifiers.result import VerifyResult

__all__ = ["TaskCheck", "check_task"]

SOLUTION_DIR = "/tmp/solution"


@dataclass(frozen=True)
class TaskCheck:
    """What `check_task` found: ``ok`` when the oracle scored 1 and the nop 0; ``reason`` says
    why not (or that the task needs the network); ``build_s`` is the image's build (or cache) time;
    ``logs`` the commands of the oracle and nop episodes (`EpisodeLog`)."""

    name: str
    ok: bool
    reason: str
    build_s: float
    oracle: VerifyResult | None = None
    nop: VerifyResult | None = None
    logs: tuple[EpisodeLog, ...] = field(default=(), compare=False)

    def as_json(self) -> dict[str, Any]:
        """One JSON-ready row (what ``grpo-envs tasks check --json`` prints)."""

        def verdict(v: VerifyResult | None) -> dict[str, Any] | None:
            return None if v is None else {"status": v.status, "reward": v.reward, "reason": v.reason}

        return {
            "task": self.name,
            "ok": self.ok,
            "reason": self.reason,
            "build_s": round(self.build_s, 2),
            "oracle": verdict(self.oracle),
            "nop": verdict(self.nop),
        }


def _episode(task: AgenticTask, image: str, log: EpisodeLog, client: Any = None) -> VerifyResult:
    try:
        session = task_session(task, image, client=client)
    except SandboxError as exc:
        return VerifyResult.judged("error", f"the session did not start: {exc}")
    with session as s:
        if log.episode == "oracle":
            for path, data in task.solution.items():
                s.write_file(f"{SOLUTION_DIR}/{path}", data)
            r = log.run(s, f"cd {SOLUTION_DIR} && bash solve.sh")
            if r.error:
                return VerifyResult.judged("error", f"solve.sh could not run: {r.error}")
        return verify_task(s, task, image, log=log, client=client)


def check_task(task: AgenticTask, *, base_images: Mapping[str, str] | None = None, client: Any = None) -> TaskCheck:
    """Build ``task``'s image and judge its reference solution (must be correct) and no action
    (must not be). Never raises for the task's faults: they are the ``reason``."""
    if task.needs_network:
        return TaskCheck(task.name, False, "needs network (network_mode public); containers here have none", 0.0)
    if "solve.sh" not in task.solution:
        return TaskCheck(task.name, False, "no solution/solve.sh to check against", 0.0)
    start = time.monotonic()
    try:
        image = build_task_image(task, base_images=base_images, client=client)
    except SandboxError as exc:
        return TaskCheck(task.name, False, str(exc), time.monotonic() - start)
    build_s = time.monotonic() - start
    logs = (EpisodeLog(task.name, "oracle"), EpisodeLog(task.name, "nop"))
    oracle, nop = (_episode(task, image, log, client) for log in logs)
    problems = []
    if oracle.status != "correct":
        problems.append(f"the reference solution scored {oracle.reward:g} ({oracle.status}: {oracle.reason})")
    if nop.status != "incorrect":
        problems.append(f"doing nothing scored {nop.reward:g} ({nop.status}: {nop.reason})")
    return TaskCheck(task.name, not problems, "; ".join(problems) or "oracle 1, nop 0", build_s, oracle, nop, logs)
