"""HarborTerminal: the terminal env over a folder of Harbor tasks (registered as
``grpo_envs/Terminal-v0``).

Each task folder (`verifiers.agentic.read_task`) becomes a `TerminalTask`: the prompt is its
instruction, the session is its image (built once per process and cached by the digest of its
build context, `build_task_image`), and after the episode its tests judge what the agent left
(`verify_task`: separate mode, a fresh verifier container with only the declared artifacts; or
shared mode). The verdict is a `VerifyResult`: a missing or malformed reward, a build or session
that failed, is a masked error with its reason, never a silent 0. `reference_commands` turns a task's
``solution/`` into the commands a scripted agent replays.
"""

from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from grpo_envs.envs.terminal import Terminal, TerminalTask
from grpo_envs.errors import EnvConfigError
from verifiers import VerifyResult
from verifiers.agentic import (
    AgenticTask,
    build_task_image,
    load_tasks,
    prestart_task_sessions,
    split_tasks,
    task_session,
    verify_task,
)

__all__ = ["HarborTerminal", "reference_commands"]

log = logging.getLogger("grpo_envs")

SOLUTION_DIR = "/tmp/solution"  # where check_task puts the solution too (the root is read-only)
SPLITS = ("train", "eval", "all")
_DELIMITER = "GRPO_ENVS_EOF"
_images: dict[tuple[str, tuple[tuple[str, str], ...]], str | Exception] = {}  # one build per process
_lock = threading.Lock()

Opener = Callable[[AgenticTask, str], Any]
"""(task, image) -> a started session for the agent (default: `verifiers.agentic`'s task session)."""
Verify = Callable[[Any, AgenticTask, str], VerifyResult]
"""(session, task, image) -> the verdict on what the agent left (default: by the task's mode)."""


def reference_commands(task: AgenticTask, directory: str = SOLUTION_DIR) -> tuple[str, ...]:
    """The commands that replay ``task``'s reference solution as an agent would: each file of
    ``solution/`` written under ``directory`` (a quoted heredoc for text, base64 otherwise), then
    ``solve.sh`` run there, as `check_task` runs it. Empty without a ``solve.sh``.

    Examples:
        >>> from verifiers.agentic import Environment, Verifier
        >>> t = AgenticTask("t", "Say hi.", Environment(docker_image="img"),
        ...                 Verifier(tests={"test.sh": b"true"}), solution={"solve.sh": b"echo hi > /work/a\\n"})
        >>> print("\\n---\\n".join(reference_commands(t)))
        mkdir -p /tmp/solution && cat > /tmp/solution/solve.sh <<'GRPO_ENVS_EOF'
        echo hi > /work/a
        GRPO_ENVS_EOF
        ---
        cd /tmp/solution && bash solve.sh
    """
    if "solve.sh" not in task.solution:
        return ()
    commands = []
    for path, data in task.solution.items():
        target = f"{directory}/{path}"
        folder = target.rsplit("/", 1)[0]
        text = _text(data)
        if text is not None:
            commands.append(f"mkdir -p {folder} && cat > {target} <<'{_DELIMITER}'\n{text}{_DELIMITER}")
        else:
            encoded = base64.b64encode(data).decode()
            commands.append(f"mkdir -p {folder} && echo {encoded} | base64 -d > {target}")
    return (*commands, f"cd {directory} && bash solve.sh")


def _text(data: bytes) -> str | None:
    """``data`` as heredoc text (it ends with a newline, holds no delimiter line), or None."""
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return None
    if not text.endswith("\n") or _DELIMITER in text or "\r" in text:
        return None
    return text


def task_image(task: AgenticTask, base_images: Mapping[str, str] | None = None) -> str:
    """``task``'s image tag, built at the first call in this process (`build_task_image`);
    a build that failed raises its `ImageBuildError` again, without building again."""
    key = (task.environment.digest(), tuple(sorted((base_images or {}).items())))
    with _lock:
        known = _images.get(key)
        if known is None:
            try:
                known = build_task_image(task, base_images=base_images)
            except Exception as exc:
                known = exc
            _images[key] = known
    if isinstance(known, Exception):
        raise known
    return known


def _open_session(task: AgenticTask, image: str, warm: int = 0) -> Any:
    """The task's session: its image's working folder writable and filled, its user (`task_session`),
    from the warm pool of its image when ``warm`` > 0."""
    return task_session(task, image, warm=warm)


def _verify(session: Any, task: AgenticTask, image: str) -> VerifyResult:
    """The task's tests in its ``[verifier] environment_mode`` (`verify_task`: separate or shared)."""
    return verify_task(session, task, image)


class HarborTerminal(Terminal):
    """The terminal env over a folder of Harbor tasks: the model works in each task's own
    container over many turns; the task's tests judge what it leaves.

    ## Task
    One task folder of ``tasks_dir`` (``instruction.md``, ``task.toml``, ``environment/``,
    ``tests/``, ``solution/``), chosen by the reset seed among the ``split``'s tasks: "train",
    "eval" (`split_tasks`: a stable hash of each task's name and ``split_seed`` against
    ``eval_fraction``; adding a task never moves another) or "all". Tasks that need the network
    (Harbor's default ``network_mode`` is public; containers here have none) are left out, with
    one warning naming them.

    ## Reward
    The task's tests, run after the episode in a fresh verifier container (separate mode; shared
    mode runs them in the agent's container once its processes are stopped): 1.0
    when they give reward 1. What could not be judged (no reward file, a malformed one, an image
    that did not build, a session that did not start) is a masked error with its reason in
    ``info["judgement"]``: trainers leave it out of the loss.

    ## Episode end
    As `Terminal`: a turn without a tool call, ``max_turns``, the context budget, or the task's
    agent time (``[agent] timeout_sec``, summed over its commands). ``info["commands"]`` logs
    each command, its output, exit code and seconds.

    ## Arguments
    ``tasks_dir`` (a folder of task folders), ``split``, ``eval_fraction`` (default 0.2),
    ``split_seed`` (default 0), ``base_images`` (``FROM`` name -> local image: nothing is pulled),
    ``warm_sessions`` (default 8: sessions of a task kept started ahead, per task image, in this
    process; a reset starts its task's, so the first command finds one ready; set it to the group
    size G; 0: a container started per episode), ``session`` ((task, image) -> a session; no
    warm sessions then), ``verify`` ((session, task, image) -> `VerifyResult`),
    and `Terminal`'s ``tool_format``, ``max_turns``, ``output_chars``, ``context_chars`` and
    ``timeout_s`` (per command).

    Examples:
        >>> env = gymnasium.make("grpo_envs/Terminal-v0", tasks_dir="tasks", split="all")  # doctest: +SKIP
        >>> prompt, info = env.reset(seed=0)  # doctest: +SKIP
    """

    def __init__(
        self,
        tasks_dir: str | Path | None = None,
        *,
        split: str = "train",
        eval_fraction: float = 0.2,
        split_seed: int = 0,
        base_images: Mapping[str, str] | None = None,
        warm_sessions: int = 8,
        session: Opener | None = None,
        verify: Verify | None = None,
        **terminal: Any,
    ) -> None:
        if tasks_dir is None:
            raise EnvConfigError("Terminal", "tasks_dir", "a folder of Harbor task folders", tasks_dir)
        if split not in SPLITS:
            raise EnvConfigError("Terminal", "split", SPLITS, split)
        tasks = self._offline(load_tasks(tasks_dir), tasks_dir)
        train, held = split_tasks(tasks, eval_fraction, seed=split_seed)
        chosen = {"train": train, "eval": held, "all": tasks}[split]
        if not chosen:
            why = f"a split holding tasks ({len(train)} train, {len(held)} eval in {tasks_dir}; try split='all')"
            raise EnvConfigError("Terminal", "split", why, split)
        self.agentic_tasks = chosen
        if warm_sessions < 0:
            raise EnvConfigError("Terminal", "warm_sessions", "an integer >= 0", warm_sessions)
        self.base_images = dict(base_images or {})
        self.needs_engine = session is None or verify is None  # default sessions and verifiers are containers
        self.warm_sessions = warm_sessions if session is None else 0
        opener, verifying = session or partial(_open_session, warm=self.warm_sessions), verify or _verify
        self._by_name = {t.name: t for t in chosen}
        super().__init__([self._terminal_task(t, opener, verifying) for t in chosen], **terminal)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """As `Terminal.reset`; with warm sessions, the task's start in the background (its image
        built first if this process has not yet), ready by the first command."""
        prompt, info = super().reset(seed=seed, options=options)
        if self.warm_sessions and self.task is not None:
            task = self._by_name[self.task.task_id]
            threading.Thread(target=self._prestart, args=(task,), name="harbor-prestart", daemon=True).start()
        return prompt, info

    def _prestart(self, task: AgenticTask) -> None:
        try:
            prestart_task_sessions(task, task_image(task, self.base_images), warm=self.warm_sessions)
        except Exception as exc:  # the first command opens the session and reports why
            log.debug("warm sessions of task %s did not start: %s", task.name, exc)

    @staticmethod
    def _offline(tasks: list[AgenticTask], tasks_dir: str | Path) -> list[AgenticTask]:
        offline = [t for t in tasks if not t.needs_network]
        if len(offline) < len(tasks):
            names = ", ".join(t.name for t in tasks if t.needs_network)
            log.warning("left out of %s: tasks that need network (network_mode public): %s", tasks_dir, names)
        if not offline:
            raise EnvConfigError("Terminal", "tasks_dir", "a folder with tasks that run offline", str(tasks_dir))
        return offline

    def _terminal_task(self, task: AgenticTask, opener: Opener, verifying: Verify) -> TerminalTask:
        image = partial(task_image, task, self.base_images)
        return TerminalTask(
            instruction=task.instruction,
            verify=lambda session: verifying(session, task, image()),
            reference=reference_commands(task),
            session=lambda: opener(task, image()),
            task_id=task.name,
            metadata={k: v for k, v in task.metadata.items() if isinstance(v, str | int | float | bool)},
            time_budget_s=task.limits.agent_timeout_s,
        )
