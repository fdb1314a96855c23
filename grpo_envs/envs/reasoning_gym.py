"""ReasoningGym: any dataset of the `reasoning-gym` package, with anchored answer extraction."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any

from grpo_envs._env import ReasoningEnv
from grpo_envs._task import Task, stable_seed
from grpo_envs._verifier import Verifier
from grpo_envs.errors import GrpoEnvsError
from verifiers import VerifyResult

__all__ = ["ReasoningGym"]


class ReasoningGym(ReasoningEnv):
    """A `reasoning-gym` dataset by name (needs the extra: ``pip install 'grpo-envs[reasoning-gym]'``).

    ## Task
    Item ``k`` of ``reasoning_gym.create_dataset(dataset, size=size, seed=...)``; the dataset
    seed is derived from the split, so train and eval streams differ.

    ## Prompt format
    The item's question, plus the answer format's instruction.

    ## Answer format
    ``\\boxed{}`` by default. The answer is extracted with our anchored extraction
    (`verifiers.math.extract_answer`), never the raw completion: reasoning-gym's default
    scorer pays partial credit when the gold is a substring of the answer ("10" for "1" earns
    0.5), which a spray of numbers would exploit. Several different committed answers score 0.
    With ``answer_format=ANSWER_TAGS`` the last tag's content (in the final section) is the
    answer, whole: grids and multi-line lists too.

    ## Reward
    ``correct`` when the dataset's scorer gives a full score to the extracted answer; the reward
    is 1.0 for correct, else 0.0 (``partial_credit=True`` passes the scorer's value through).

    ## Episode end
    One step (terminated).

    ## Arguments
    ``dataset`` (default "leg_counting"), ``size`` (default 1000), ``config`` (dataset options),
    ``partial_credit`` (default False).

    ## Version history
    v0: initial version.

    Examples:
        >>> env = ReasoningGym(dataset="leg_counting", size=10)  # doctest: +SKIP
        >>> env.reset(seed=0)[0][:20]  # doctest: +SKIP
        'Your task is to coun'
    """

    def __init__(
        self,
        *,
        dataset: str = "leg_counting",
        size: int = 1000,
        config: Mapping[str, Any] | None = None,
        partial_credit: bool = False,
        **kwargs: Any,
    ):
        try:
            import reasoning_gym  # noqa: F401
        except ImportError:
            raise GrpoEnvsError(
                "ReasoningGym needs the reasoning-gym package: pip install 'grpo-envs[reasoning-gym]'"
            ) from None
        self.dataset_name, self.size, self.partial_credit = dataset, size, partial_credit
        self.rg_config, self.level = dict(config or {}), None
        split = kwargs.get("split", "train")
        self.data_seed = stable_seed("reasoning-gym", dataset, split) % (2**31)
        self.data = self._dataset(self.rg_config)
        self.levels = tuple({"level": k} for k in range(_curriculum_levels(dataset)))
        spans = Verifier.from_fn("reasoning-gym", self._score, config=(dataset, partial_credit, "span"))
        kwargs.setdefault(
            "verifier", Verifier.from_fn("reasoning-gym", self._verify, config=(dataset, partial_credit), spans=spans)
        )
        super().__init__(**kwargs)

    def _dataset(self, config: Mapping[str, Any]) -> Any:
        import reasoning_gym

        try:
            return reasoning_gym.create_dataset(
                self.dataset_name, **{"size": self.size, **config, "seed": self.data_seed}
            )
        except Exception as exc:
            raise GrpoEnvsError(f"reasoning-gym cannot create dataset {self.dataset_name!r}: {exc}") from exc

    def set_level(self, level: int) -> None:
        """The dataset rebuilt at reasoning-gym's curriculum level ``level`` (its global level: every
        attribute of the dataset's curriculum at that level, or its hardest), over ``config``'s
        other settings; the task ids carry the level."""
        super().set_level(level)
        from reasoning_gym.factory import create_curriculum

        curriculum = create_curriculum(self.dataset_name)
        curriculum.set_global_level(level)
        generated = dataclasses.asdict(curriculum.generate_configuration({"seed": self.data_seed, "size": self.size}))
        self.data = self._dataset({**self.rg_config, **generated})

    def make_task(self, rng: random.Random) -> Task:
        index = rng.randrange(self.size)
        entry = self.data[index]
        level = "" if self.level is None else f"L{self.level}-"
        return Task(
            task_id=f"rg-{self.dataset_name}-{self.split}-{level}{index}",
            prompt=str(entry["question"]),
            answer=index,
            metadata={"dataset": self.dataset_name, "gold": str(entry["answer"])},
        )

    def reference_answer(self, task: Task) -> str:
        return str(task.metadata["gold"])

    def _verify(self, index: Any, completion: str) -> VerifyResult:
        from verifiers.math import extract_answer, final_answers

        found = final_answers(completion)
        if found is None or len(set(found)) >= 2:
            return VerifyResult.judged("incorrect", "Several different answers were given as the final one.")
        answer = extract_answer(completion)
        if answer is None:
            return VerifyResult.judged("no_answer", "No answer was found.")
        return self._score(index, answer.strip().strip("$").strip())

    def _score(self, index: Any, answer: str) -> VerifyResult:
        """The dataset's scorer on an answer (a span an answer format found is judged as it is)."""
        answer = answer.strip()
        if not answer:
            return VerifyResult.judged("no_answer", "The answer is empty.")
        entry = self.data[int(index)]
        score = float(self.data.score_answer(answer=answer, entry=entry))
        correct = score >= 1.0
        reward = score if self.partial_credit else float(correct)
        reason = "The dataset's scorer gave a full score." if correct else f"The dataset's scorer gave {score:g}."
        return VerifyResult.judged("correct" if correct else "incorrect", reason, extracted=answer, reward=reward)


def _curriculum_levels(dataset: str) -> int:
    """How many global levels reasoning-gym's curriculum of ``dataset`` has (0: none)."""
    try:
        from reasoning_gym.factory import create_curriculum, has_curriculum

        if not has_curriculum(dataset):
            return 0
        return max(len(a.levels) for a in create_curriculum(dataset).attributes.values())
    except Exception:  # an older reasoning-gym, or a curriculum that does not build: no levels
        return 0
