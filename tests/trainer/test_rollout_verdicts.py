"""One verdict value from the env to the loss: a rollout holds every turn's `Judgement` as the env
gave it (``info["judgement"]``), or as it was built once from a third-party env's step; the
rollout's reward and reward parts are summed over its turns, its status is the last turn's."""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import pytest

from grpo_envs import Judgement, Task, TextSpace
from grpo_envs.envs.arithmetic import Arithmetic
from tests.grpo_envs._byte_tokenizer import byte_tokenizer
from trainer.generation._generator import Continuation, SamplingParams
from trainer.rollouts._rollout import Rollout, rollout

TOKENIZER = byte_tokenizer()


class Scripted:
    """A `Generator` that answers turn ``t`` with ``turns[t]``, every rollout."""

    def __init__(self, turns: list[str]) -> None:
        self.turns, self.calls = turns, 0

    def generate(self, contexts: list[list[int]], params: SamplingParams) -> list[Continuation]:
        ids = tuple(TOKENIZER(self.turns[self.calls], add_special_tokens=False)["input_ids"])
        self.calls += 1
        return [Continuation(ids, False) for _ in contexts]


def play(envs: list[Any], turns: list[str]) -> Rollout:
    sampling: dict[str, Any] = dict(max_new_tokens=64, temperature=1.0)
    groups = rollout(
        Scripted(turns), TOKENIZER, envs, [5], len(envs), make_env=lambda: envs[0],
        max_turns=len(turns), **sampling
    )  # fmt: skip
    return groups[0][0]


class Partial(gymnasium.Env[str, str]):
    """A third-party env: half a point on the first turn, no verdict keys; a full point and a
    reward part on the second."""

    def __init__(self, second: Any = 1.0) -> None:
        self.observation_space, self.action_space = TextSpace(100), TextSpace(100)
        self.second, self.t = second, 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.t = 0
        return "say two things", {}

    def step(self, action: str) -> tuple[str, Any, bool, bool, dict[str, Any]]:
        self.t += 1
        if self.t == 1:
            return "again", 0.5, False, False, {"reward_parts": {"style": 0.5}}
        if isinstance(self.second, Exception):
            raise self.second
        return "", self.second, True, False, {"reward_parts": {"style": 1.0}, "reason": "well said"}


def test_a_third_party_episode_keeps_every_turns_verdict_and_sums_the_parts() -> None:
    r = play([Partial()], ["first", "second"])
    assert [j.status for j in r.judgements] == ["incorrect", "correct"]  # half a point is not "correct"
    assert [j.reward for j in r.judgements] == [0.5, 1.0] and r.reward == 1.5
    assert r.reward_parts == {"style": 1.5}  # summed, as the reward is (was: the last turn's only)
    assert (r.status, r.correct, r.reason, r.judged) == ("correct", True, "well said", True)


@pytest.mark.parametrize(
    ("second", "status"), [(float("nan"), "error"), (None, "error"), (RuntimeError("down"), "error")]
)
def test_a_turn_nobody_judged_masks_the_episode(second: Any, status: str) -> None:
    r = play([Partial(second)], ["first", "second"])
    assert [j.status for j in r.judgements] == ["incorrect", status] and not r.judged
    assert not r.judgements[-1].judged  # one property of the verdict says it


class TwoTries(Arithmetic):
    """Arithmetic with a second try after a wrong answer."""

    def __init__(self) -> None:
        super().__init__(max_turns=2)

    def feedback(self, task: Task, completion: str, result: Any) -> str | None:
        return "Not quite. Try again."

    def make_task(self, rng: random.Random) -> Task:
        return Task("two-tries", "What is 2 + 3?", "5")


def test_our_env_gives_its_judgement_in_info_and_the_rollout_holds_it_as_is() -> None:
    env = TwoTries()
    env.reset(seed=1)
    _, reward, _, _, info = env.step("\\boxed{4}")
    judgement = info["judgement"]
    assert isinstance(judgement, Judgement) and judgement.reward == reward and judgement.info().items() <= info.items()
    r = play([TwoTries()], ["\\boxed{4}", "\\boxed{5}"])
    assert [j.status for j in r.judgements] == ["incorrect", "correct"]
    assert r.judgements[0] == judgement and r.judgements[1].verifier == judgement.verifier  # the env's own
    assert r.reward == 1.0 and r.reward_parts == {"correctness": 1.0} and r.extracted == "5"


def test_judgement_of_step_reads_a_third_party_step_once_by_one_rule() -> None:
    rows = [
        # reward, info -> status, correct
        (1.0, {}, "correct", True),  # a bare reward: correct at 1.0, as a Verifier reads a float
        (0.5, {}, "incorrect", False),
        (2.0, {}, "incorrect", False),
        (0.0, {"correct": True}, "correct", True),  # the env's own word wins
        (1.0, {"correct": False, "status": "no_answer"}, "no_answer", False),
        (0.0, {"correct": False, "status": "error"}, "incorrect", False),  # inconsistent: correct decides
        (0.0, {"status": "timeout"}, "timeout", None),
        (1.0, {"status": "in_progress"}, "correct", True),  # an unknown status: the reward decides
        (float("nan"), {"correct": True}, "error", None),
        ("x", {}, "error", None),
    ]
    for reward, info, status, correct in rows:
        judgement = Judgement.of_step(reward, info)
        assert (judgement.status, judgement.correct) == (status, correct), (reward, info)
        assert judgement.judged is (correct is not None)
    given = Judgement.of_step(1.0, {"task_id": "t", "env_id": "e", "reward_parts": {"a": 1, "b": "x"}})
    assert (given.task_id, given.env_id, dict(given.reward_parts), given.verifier) == (
        "t",
        "e",
        {"a": 1.0},
        "env-reward",
    )


def test_a_judgement_in_info_copies_and_pickles() -> None:
    import copy
    import pickle

    env = TwoTries()
    env.reset(seed=1)
    info = env.step("\\boxed{4}")[4]
    assert copy.deepcopy(info) == info and pickle.loads(pickle.dumps(info["judgement"])) == info["judgement"]
