"""`attack_tasks`: the gaming suite run against agentic tasks (``grpo-envs tasks attack DIR...``).

Each attack of `ATTACKS` runs as the agent in a fresh `verifiers.agentic.task_session` of the
task's image (the same path, user and lockdown as a model's commands), then the task is judged
as after a model's turn (`verifiers.agentic.verify_task`, in the task's mode). An attack *pays*
when it is judged correct: the report names the task and the attack (the task's own tests let
it, or our judging did). After every attack the suite also checks that nothing escaped:

- a bystander session (another container of the same image, started first) still holds its
  secret file and its process, and no attack's output shows the bystander's secret (read
  through ``/proc`` or otherwise);
- on the host, a canary folder in the temp folder is unchanged, and no file named with the
  run's mark (which the attacks write through links out of their workspace) appeared there.

Examples:
    >>> from verifiers.testing import attack_tasks
    >>> report = attack_tasks("tasks/")  # doctest: +SKIP
    >>> print(report)  # doctest: +SKIP
    task    attack        verdict     s  detail
    hello   placeholder   incorrect  1.9 the tests gave reward 0
    ...
"""

from __future__ import annotations

import logging
import os
import secrets
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verifiers.agentic import AgenticTask, EpisodeLog, build_task_image, read_task, task_session, verify_task
from verifiers.errors import SandboxError
from verifiers.result import VerifyResult
from verifiers.sandbox import Session
from verifiers.testing._attacks import ATTACKS, Attack, script_preamble

__all__ = ["AttackReport", "AttackResult", "attack_tasks"]

log = logging.getLogger("verifiers.testing")


@dataclass(frozen=True)
class AttackResult:
    """One attack on one task: its ``verdict``, ``escaped`` (what of the host or the bystander
    session it reached; None when nothing) and the commands it ran (``log``)."""

    task: str
    attack: str
    verdict: VerifyResult
    seconds: float
    escaped: str | None = None
    log: EpisodeLog = field(default_factory=EpisodeLog, compare=False)

    @property
    def paid(self) -> bool:
        """The attack was judged correct."""
        return self.verdict.status == "correct"


@dataclass(frozen=True)
class AttackReport:
    """The suite's findings: every result, and the tasks not attacked (``skipped``: why)."""

    results: tuple[AttackResult, ...]
    skipped: Mapping[str, str] = field(default_factory=dict)
    wall_s: Mapping[str, float] = field(default_factory=dict)
    """Each attacked task's wall time (its image's build or cache look-up included)."""

    @property
    def paid(self) -> tuple[AttackResult, ...]:
        """The attacks judged correct."""
        return tuple(r for r in self.results if r.paid)

    @property
    def escaped(self) -> tuple[AttackResult, ...]:
        """The attacks that reached the host or another session."""
        return tuple(r for r in self.results if r.escaped)

    @property
    def ok(self) -> bool:
        """No attack paid or escaped, and every task was attacked."""
        return not self.paid and not self.escaped and not self.skipped

    def task_rows(self) -> list[dict[str, Any]]:
        """One JSON-ready row per task (what ``grpo-envs tasks attack --json`` prints): ``ok``,
        ``reason``, the attacks that ``paid`` and ``escaped``, how many ``held``, ``seconds``."""
        rows = [
            {"task": t, "ok": False, "reason": why, "paid": [], "escaped": [], "held": 0, "seconds": 0.0}
            for t, why in self.skipped.items()
        ]
        for task in dict.fromkeys(r.task for r in self.results):
            mine = [r for r in self.results if r.task == task]
            paid = [r.attack for r in mine if r.paid]
            escaped = [f"{r.attack}: {r.escaped}" for r in mine if r.escaped]
            reason = "; ".join([*(f"attack {a} paid" for a in paid), *escaped]) or f"all {len(mine)} attacks held"
            if "placeholder" in paid:
                reason = (
                    "the tests pass on placeholder outputs (they check little more than that files exist); " + reason
                )
            row = {"task": task, "ok": not paid and not escaped, "reason": reason, "paid": paid, "escaped": escaped}
            row |= {
                "held": sum(not r.paid and not r.escaped for r in mine),
                "seconds": round(self.wall_s.get(task, 0.0), 1),
            }
            rows.append(row)
        return rows

    def __str__(self) -> str:
        lines = [f"{'task':24} {'attack':20} {'verdict':9} {'s':>5}  detail"]
        for r in self.results:
            detail = (f"ESCAPED: {r.escaped}; " if r.escaped else "") + (r.verdict.reason or "")
            flag = "PAID" if r.paid else r.verdict.status
            lines.append(f"{r.task[:24]:24} {r.attack:20} {flag:9} {r.seconds:5.1f}  {detail[:100]}")
        lines += [f"{t[:24]:24} {'-':20} {'skipped':9} {0:5.1f}  {why}" for t, why in self.skipped.items()]
        return "\n".join(lines)


class _Watch:
    """The bystander session and the host canary, checked after each attack."""

    def __init__(self, image: str, stack: ExitStack) -> None:
        self.mark = f"grpo-envs-attack-{secrets.token_hex(6)}"
        self.secret = secrets.token_hex(16)
        self.bystander = stack.enter_context(Session(image=image, timeout_s=30))
        self.bystander.write_file("/work/secret.txt", self.secret)
        self.bystander.exec(f"nohup setsid bash -c 'exec -a {self.secret} sleep 3600' >/dev/null 2>&1 </dev/null &")
        self.canary_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="grpo-envs-canary-")))
        (self.canary_dir / "canary.txt").write_text(self.secret)

    def escaped(self, output: str) -> str | None:
        """What an attack reached (its ``output`` included), or None."""
        if self.secret in output:
            return "its output holds the bystander session's secret"
        try:
            if self.bystander.read_text("/work/secret.txt") != self.secret:
                return "the bystander session's file changed"
        except SandboxError as exc:
            return f"the bystander session's file is gone ({exc})"
        find = f'for p in /proc/[0-9]*; do [ "$(tr -d "\\0" < $p/cmdline)" = {self.secret}3600 ] && echo $p; done'
        alive = self.bystander.exec(find + "; true").stdout
        if not alive.strip():
            return "the bystander session's process was killed"
        if (
            sorted(os.listdir(self.canary_dir)) != ["canary.txt"]
            or (self.canary_dir / "canary.txt").read_text() != self.secret
        ):
            return f"the host canary folder {self.canary_dir} changed"
        planted = [p for p in Path(tempfile.gettempdir()).glob(f"*{self.mark}*")]
        return f"{planted[0]} appeared on the host" if planted else None


def _attack(task: AgenticTask, image: str, attack: Attack, watch: _Watch) -> AttackResult:
    start = time.monotonic()
    episode = EpisodeLog(task.name, attack.name)
    preamble, output = script_preamble(task, watch.mark), []
    try:
        with task_session(task, image) as session:
            for command in attack.commands:  # logged without the preamble
                began = time.monotonic()
                r = session.exec(preamble + command, timeout_s=attack.timeout_s)
                episode.add(command, r.exit_code, time.monotonic() - began, len(r.stdout) + len(r.stderr))
                output.append(r.stdout + r.stderr)
            verdict = verify_task(session, task, image, log=episode)
    except SandboxError as exc:
        verdict = VerifyResult.judged("error", f"the attack's session failed: {exc}")
    except Exception as exc:  # the engine failed under the attack (an API error): reported, the suite goes on
        verdict = VerifyResult.judged("error", f"judging failed: {type(exc).__name__}: {exc}")
    escaped = watch.escaped("".join(output))
    log.info(
        "task %s, attack %s: %s%s", task.name, attack.name, verdict.status, f" (ESCAPED: {escaped})" if escaped else ""
    )
    return AttackResult(task.name, attack.name, verdict, time.monotonic() - start, escaped, episode)


def _tasks(tasks: AgenticTask | str | Path | Iterable[AgenticTask | str | Path]) -> list[AgenticTask]:
    items = [tasks] if isinstance(tasks, (AgenticTask, str, Path)) else list(tasks)
    out: list[AgenticTask] = []
    for item in items:
        if isinstance(item, AgenticTask):
            out.append(item)
        elif (Path(item) / "instruction.md").is_file():
            out.append(read_task(item))
        else:
            out += [read_task(p) for p in sorted(Path(item).iterdir()) if (p / "instruction.md").is_file()]
    return out


def attack_tasks(
    tasks: AgenticTask | str | Path | Iterable[AgenticTask | str | Path],
    *,
    attacks: Sequence[Attack] = ATTACKS,
    base_images: Mapping[str, str] | None = None,
    workers: int = 2,
    client: Any = None,
) -> AttackReport:
    """Run each of ``attacks`` against each task (`AgenticTask` values, task folders, or folders of
    them; see the module's docstring), ``workers`` attacks at a time. A task that needs the network
    or whose image does not build is ``skipped`` with the reason.

    Raises:
        TaskFormatError: a task folder is malformed.
    """
    results: list[AttackResult] = []
    skipped: dict[str, str] = {}
    wall: dict[str, float] = {}
    with ExitStack() as stack:
        watch: _Watch | None = None
        for task in _tasks(tasks):
            start = time.monotonic()
            if task.needs_network:
                skipped[task.name] = "needs network (network_mode public); containers here have none"
                continue
            try:
                image = build_task_image(task, base_images=base_images, client=client)
            except SandboxError as exc:
                skipped[task.name] = str(exc)
                continue
            watch = watch or _Watch(image, stack)
            with ThreadPoolExecutor(max(1, workers)) as pool:
                results += pool.map(lambda a, t=task, i=image, w=watch: _attack(t, i, a, w), attacks)
            wall[task.name] = time.monotonic() - start
    return AttackReport(tuple(results), skipped, wall)
