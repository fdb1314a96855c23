"""`ReasoningEnv`: a reasoning task as a Gymnasium environment (text in, verified reward out)."""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, SupportsFloat

import gymnasium

from grpo_envs._formats import ANSWER_TAGS, BOXED, THINK_ANSWER, AnswerFormat
from grpo_envs._judgement import Judgement
from grpo_envs._logonce import log_error_once
from grpo_envs._rubric import Rubric
from grpo_envs._spaces import TextSpace
from grpo_envs._task import Task, stable_seed
from grpo_envs._verifier import Verifier, math_verifier
from grpo_envs.errors import EnvConfigError, GrpoEnvsError
from verifiers import VerifyResult
from verifiers.executors import Executor
from verifiers.structure import THINKING_FORMATS, read_completion

__all__ = ["ReasoningEnv", "TaskCompletions", "score_tasks", "verify_tasks"]

log = logging.getLogger("grpo_envs")
Messages = list[dict[str, str]]


class ReasoningEnv(gymnasium.Env[str, str]):
    """Base class of every reasoning environment; a task subclasses it and writes `make_task`.

    ``reset(seed=s)`` gives the same task for the same ``s`` in every process (the task's RNG
    is derived from a digest of env id, version, split and seed; no global RNG is touched);
    ``reset()`` without a seed draws the next task seed from ``self.np_random``.
    ``step(completion)`` judges the completion with the env's `Verifier` and `Rubric`.
    Single-turn envs terminate after one step; a multi-turn env (``max_turns > 1``) returns
    `feedback` as the next observation until the answer is correct, `feedback` returns None
    (terminated) or ``max_turns`` is reached (truncated).

    Observations are the plain text of the new user message; ``info["messages"]`` holds the
    whole conversation as ``[{"role", "content"}]`` for chat models (applying a chat template
    is the trainer's job). After `reset`, ``env.unwrapped.task`` is the current `Task`. After a
    step, ``info["judgement"]`` is the verdict as one `Judgement` (what trainers and adapters
    read), and its flat keys (``correct``, ``status``, ``reason``, ...) are beside it.

    Subclass hooks: `make_task(rng)` (required), `feedback`, `reference_completion`.
    Values passed in: ``verifier`` (default: `verifiers.math`), ``answer_format``, ``rubric``.

    Examples:
        >>> class Double(ReasoningEnv):
        ...     def make_task(self, rng):
        ...         n = rng.randint(1, 99)
        ...         return Task(f"double-{n}", f"What is 2 * {n}?", str(2 * n))
        >>> env = Double()
        >>> prompt, info = env.reset(seed=3)
        >>> _, reward, terminated, _, info = env.step(f"\\\\boxed{{{env.task.answer}}}")
        >>> reward, terminated, info["correct"]
        (1.0, True, True)
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012
    version: ClassVar[int] = 0
    reward_bounds: ClassVar[tuple[float, float]] = (0.0, 1.0)
    default_format: ClassVar[AnswerFormat] = BOXED
    levels: tuple[Mapping[str, Any], ...] = ()
    """Difficulty levels, easiest first, for a curriculum: each the settings (attributes that
    `make_task` reads) of one level; `set_level` applies one. () : the env has none. A class
    attribute, or an instance's own (the reasoning-gym wrapper's come from its dataset)."""
    thought_opened: str | None = None
    """The thinking format (``"think"``) whose section the policy's chat template opens in the
    prompt (R1 and its distills, QwQ, Qwen3-Thinking; `verifiers.structure.opened_thought(tokenizer)`
    finds it): each completion is judged as if it began with that opening delimiter, so one cut
    off before ``</think>`` is a cut-off thought (no answer), never a plain answer. None: as written."""

    def __init__(
        self,
        *,
        split: str = "train",
        verifier: Verifier | None = None,
        answer_format: AnswerFormat | None = None,
        rubric: Rubric | None = None,
        max_turns: int = 1,
        system_prompt: str | None = None,
        max_chars: int = 65_536,
        render_mode: str | None = None,
    ) -> None:
        if split not in ("train", "eval"):
            raise GrpoEnvsError(f"split must be 'train' or 'eval', got {split!r}")
        if not isinstance(max_turns, int) or max_turns < 1:
            raise GrpoEnvsError(f"max_turns must be an int >= 1, got {max_turns!r}")
        if render_mode not in (None, "ansi"):
            raise GrpoEnvsError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.split = split
        self.verifier = verifier or self.default_verifier()
        self.answer_format = answer_format or self.default_format
        self.rubric = rubric or Rubric()
        self.max_turns = max_turns
        self.system_prompt = system_prompt
        self.render_mode = render_mode
        self.observation_space = TextSpace(max_chars)
        self.action_space = TextSpace(max_chars)
        self.task: Task | None = None
        self.task_seed: int | None = None
        self.messages: Messages = []
        self.turn = 0
        self._done = True
        self._group_id: str | None = None
        self._closed = False

    # -- hooks ---------------------------------------------------------------------------------
    def set_level(self, level: int) -> None:
        """Make the next tasks at difficulty ``level`` (an index into `levels`)."""
        if not 0 <= level < len(self.levels):
            raise EnvConfigError(type(self).__name__, "level", f"an index into its {len(self.levels)} levels", level)
        for name, value in self.levels[level].items():
            setattr(self, name, value)

    def make_task(self, rng: random.Random) -> Task:
        """Build the task for this reset from ``rng`` (a `random.Random` seeded for it)."""
        raise NotImplementedError(f"{type(self).__name__} must implement make_task(rng)")

    def default_verifier(self) -> Verifier:
        """The verifier used when none is passed (math answers)."""
        return math_verifier()

    def feedback(self, task: Task, completion: str, result: VerifyResult) -> str | None:
        """The next user message of a multi-turn episode after a wrong answer; None ends it."""
        return None

    def reference_completion(self, task: Task) -> str:
        """A completion that must be judged correct (used by `check_env` and examples): the
        task's solution when it follows the env's answer format, else `reference_answer`
        written in that format."""
        if task.solution is not None and self.answer_format.well_formed(task.solution):
            return task.solution
        answer = self.reference_answer(task)
        if self.answer_format is ANSWER_TAGS:
            return f"The answer follows.\n<answer>{answer}</answer>"
        if self.answer_format is THINK_ANSWER:
            return f"<think>I worked it out.</think>{answer}"
        return f"The final answer is $\\boxed{{{answer}}}$."

    def reference_answer(self, task: Task) -> str:
        """The task's answer as a model would write it (default: ``str(task.answer)``)."""
        return str(task.answer)

    # -- identity ------------------------------------------------------------------------------
    @property
    def env_id(self) -> str:
        if self.spec is not None:
            return str(self.spec.id)
        return f"{type(self).__module__}:{type(self).__name__}-v{self.version}"

    def prompt_text(self, task: Task) -> str:
        """What the model is asked: the task's prompt and the answer format's instruction."""
        instruction = self.answer_format.instruction
        return f"{task.prompt}\n\n{instruction}" if instruction else task.prompt

    # -- Gymnasium API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        options = options or {}
        if seed is not None:
            task_seed = int(seed)
        elif "task_seed" in options:
            task_seed = int(options["task_seed"])
        else:
            task_seed = int(self.np_random.integers(0, 2**63 - 1))
        rng = random.Random(stable_seed(self.env_id, self.version, self.split, task_seed))
        task = self.make_task(rng)
        if not isinstance(task, Task):
            raise GrpoEnvsError(f"{type(self).__name__}.make_task must return a Task, got {task!r}")
        self.task, self.task_seed = task, task_seed
        self._group_id = options.get("group_id")
        self.messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        self.messages.append({"role": "user", "content": self.prompt_text(task)})
        self.turn = 0
        self._done = False
        observation = "\n\n".join(m["content"] for m in self.messages)
        return observation, self._info()

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, dict[str, Any]]:
        if self.task is None or self._done:
            raise GrpoEnvsError("step() called before reset() or after the episode ended: call reset()")
        task = self.task
        completion = action if isinstance(action, str) else ""
        judgement = self.judgements(task, [action], group_id=self._group_id)[0]
        result = judgement.result
        self.messages.append({"role": "assistant", "content": completion})
        self.turn += 1
        observation = ""
        terminated = result.correct is True or self.max_turns == 1
        if not terminated:
            message = self.feedback(task, completion, result)
            if message is None:
                terminated = True
            else:
                self.messages.append({"role": "user", "content": message})
                observation = message
        truncated = not terminated and self.turn >= self.max_turns
        self._done = terminated or truncated
        return observation, judgement.reward, terminated, truncated, self._info(judgement)

    def judgements(
        self,
        task: Task,
        completions: Sequence[object],
        *,
        group_id: str | None = None,
        executor: Executor | None = None,
    ) -> list[Judgement]:
        """The verdicts (reward, verifier result, rubric parts, provenance) on completions of
        ``task``, verified together (on ``executor`` when given); never raises on a completion.
        Many tasks' completions at once: `score_tasks`."""
        items = [TaskCompletions(self, task, completions, group_id)]  # not through score_tasks, which
        return _scored(items, verify_tasks(items, executor=executor))[0]  # asks an env that overrides this

    def verify(
        self, task: Task, completions: Sequence[object], *, executor: Executor | None = None
    ) -> list[VerifyResult]:
        """The verifier's results on completions of one task, without the rubric (on ``executor``,
        e.g. a `RayExecutor`, when given); never raises."""
        return verify_tasks([TaskCompletions(self, task, completions)], executor=executor)[0]

    def _answers(self, task: Task, completions: Sequence[object]) -> _Answers:
        """What the verifier is to judge in ``completions``: each one's answer span, or the
        verdict it gets without the verifier (no answer, not text, the extractor failed)."""
        if self.thought_opened is not None:  # the template opened the thought: the completion is inside it
            opener = _opener(self.thought_opened)
            completions = [opener + c if isinstance(c, str) else c for c in completions]
        results: list[VerifyResult] = []
        todo: list[int] = []
        answers: list[str] = []
        for k, completion in enumerate(completions):
            if not isinstance(completion, str):
                kind = type(completion).__name__
                results.append(VerifyResult.judged("no_answer", f"The completion is a {kind}, not text."))
                continue
            try:
                span = self.answer_format.extract(completion)
            except Exception as exc:  # the extractor's bug, not the completion's: an error, not a verdict
                name = self.answer_format.name
                log_error_once(exc, "answer format %s failed on a completion of %s", name, task.task_id)
                results.append(
                    VerifyResult.judged("error", f"The answer extractor failed: {type(exc).__name__}: {exc}.")
                )
                continue
            if span is None:
                note = read_completion(completion).note  # the thinking never closed: say so
                why = (
                    f"No answer: {note}."
                    if note
                    else f"The completion does not follow the {self.answer_format.name} format."
                )
                results.append(VerifyResult.judged("no_answer", why))
                continue
            results.append(_PENDING)
            todo.append(k)
            answers.append(str(span))
        verifier = self.verifier
        if self.answer_format.span and verifier.spans is not None:
            verifier = verifier.spans  # the format found the answer: it is judged as it is
        return _Answers(verifier, results, todo, answers, self.prompt_text(task) if todo else None)

    def _info(self, judgement: Judgement | None = None) -> dict[str, Any]:
        assert self.task is not None
        info: dict[str, Any] = {
            "task_id": self.task.task_id,
            "env_id": self.env_id,
            "env_version": self.version,
            "split": self.split,
            "turn": self.turn,
            "messages": [dict(m) for m in self.messages],
        }
        if self._group_id is not None:
            info["group_id"] = self._group_id
        if judgement is not None:
            info.update(judgement.info())
            info["judgement"] = judgement  # frozen: equal across identical steps, shared with nothing
        return info

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in self.messages)

    def close(self) -> None:
        self._closed = True


def _opener(name: str) -> str:
    """The opening delimiter of the thinking format ``name`` (`ReasoningEnv.thought_opened`)."""
    for fmt in THINKING_FORMATS:
        if fmt.name == name and fmt.start:
            return fmt.start[0]
    names = [f.name for f in THINKING_FORMATS if f.start]
    raise EnvConfigError("ReasoningEnv", "thought_opened", [None, *names], name)


class TaskCompletions(NamedTuple):
    """Completions of one task, with the env that judges them (``group_id``: their group's)."""

    env: ReasoningEnv
    task: Task
    completions: Sequence[object]
    group_id: str | None = None


@dataclass(frozen=True)
class _Answers:
    """One task's completions made ready for its verifier (`ReasoningEnv._answers`): the
    verdicts known without it, and the answers at ``todo`` that go to it (with the prompt)."""

    verifier: Verifier
    results: list[VerifyResult]
    todo: list[int]
    answers: list[str]
    prompt: str | None


_PENDING = VerifyResult.judged("error", "Not verified.")
"""A placeholder for an answer that goes to the verifier (replaced by its verdict)."""


def score_tasks(items: Sequence[TaskCompletions], *, executor: Executor | None = None) -> list[list[Judgement]]:
    """The verdicts (`Judgement`) on the completions of many tasks, of one env or several, in
    order: every answer goes to its env's verifier in one batch per verifier (on ``executor``,
    e.g. a `RayExecutor`, when given), then each env's rubric scores it; never raises on a completion.
    An env whose own `judgements` replaces ReasoningEnv's (its verdicts come from elsewhere: the
    server of an `OpenEnvEnv`) is asked for them."""
    own = [type(item.env).judgements is not ReasoningEnv.judgements for item in items]
    here = [item for item, elsewhere in zip(items, own, strict=True) if not elsewhere]
    scored = iter(_scored(here, verify_tasks(here, executor=executor)))
    return [
        item.env.judgements(item.task, item.completions, group_id=item.group_id, executor=executor)
        if elsewhere
        else next(scored)
        for item, elsewhere in zip(items, own, strict=True)
    ]


def _scored(items: Sequence[TaskCompletions], verified: list[list[VerifyResult]]) -> list[list[Judgement]]:
    """Each item's verifier results with its env's rubric, as `Judgement`s."""
    out = []
    for item, results in zip(items, verified, strict=True):
        env, verifier = item.env, f"{item.env.verifier.name}:{item.env.verifier.digest}"
        judged = []
        for completion, result in zip(item.completions, results, strict=True):
            text = completion if isinstance(completion, str) else ""
            reward, parts = env.rubric.score(item.task, text, result)
            judgement = Judgement(
                float(reward), result, parts, item.task.task_id, env.env_id, env.version, verifier, item.group_id
            )
            judged.append(judgement)
        out.append(judged)
    return out


def verify_tasks(items: Sequence[TaskCompletions], *, executor: Executor | None = None) -> list[list[VerifyResult]]:
    """The verifiers' results (no rubric) on the completions of many tasks, in order: the
    answers of all of them go to each verifier as one batch of (reference, answer, prompt)."""
    ready = [item.env._answers(item.task, item.completions) for item in items]
    batches: dict[int, list[int]] = {}  # by verifier: the items whose answers it judges
    for k, asked in enumerate(ready):
        if asked.todo:
            batches.setdefault(id(asked.verifier), []).append(k)
    for ks in batches.values():
        references = [items[k].task.answer for k in ks for _ in ready[k].todo]
        answers = [a for k in ks for a in ready[k].answers]
        prompts = [ready[k].prompt for k in ks for _ in ready[k].todo]
        judged = iter(_verified(ready[ks[0]].verifier, references, answers, prompts, executor, [items[k] for k in ks]))
        for k in ks:
            for i in ready[k].todo:
                ready[k].results[i] = next(judged)
    return [asked.results for asked in ready]


def _verified(
    verifier: Verifier,
    references: list[Any],
    answers: list[str],
    prompts: list[str | None],
    executor: Executor | None,
    items: list[TaskCompletions],
) -> list[VerifyResult]:
    """``verifier``'s batch; an executor's failure is every answer's error (a verifier's own is
    a verdict of `Verifier.verify_many`)."""
    try:
        return verifier.verify_many(references, answers, prompts, executor=executor)
    except Exception as exc:
        where = ", ".join(sorted({item.task.task_id for item in items}))
        log_error_once(exc, "verifier %s failed on %s", items[0].env.verifier.name, where)
        return [VerifyResult.judged("error", f"The verifier failed: {exc}.")] * len(answers)
