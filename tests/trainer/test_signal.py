"""Messages that say what happened: a step without signal is told apart by why (every group solved,
none solved, each task always or never solved, nothing judged, equal rewards with no verdicts), said
once per run; a run whose completions were mostly unjudged ends with one line naming the share and
the first reason, and the console script exits non-zero when nothing was judged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grpo_envs import Judgement
from trainer.rollouts._rollout import Rollout
from trainer.run._signal import FLAT_STEPS, SignalWatch, describe, flat_kind


def r(reward: float | None, status: str, correct: bool | None, reason: str = "") -> Rollout:
    """A rollout whose env said ``status``, ``correct`` (when a bool) and ``reason``."""
    judgement = Judgement.of_step(reward, {"status": status, "correct": correct, "reason": reason})
    return Rollout([1], ids=[2], mask=[1], reward=reward, judgements=[judgement])


RIGHT, WRONG, LATE = r(1.0, "correct", True), r(0.0, "no_answer", False), r(0.0, "timeout", None, "timed out")


@pytest.mark.parametrize(
    ("groups", "kind", "detail"),
    [
        ([[RIGHT, WRONG], [WRONG, WRONG]], None, None),  # one group differs: there is signal
        ([[RIGHT, RIGHT], [RIGHT, LATE]], "solved", "statuses {'correct': 3}"),
        ([[WRONG, WRONG], [WRONG, LATE]], "unsolved", "statuses {'no_answer': 3}"),
        ([[RIGHT, RIGHT], [WRONG, WRONG], [WRONG, WRONG]], "split", "1 of 3 groups all solved"),
        ([[LATE, LATE], [LATE, LATE]], "unjudged", "timed out"),
        ([[r(0.5, "incorrect", None)] * 2], "unsolved", "statuses {'incorrect': 2}"),  # partial reward: a verdict
        ([[Rollout([1], ids=[2], mask=[1], reward=0.5)] * 2], "flat", "statuses {'no_answer': 2}"),  # no verdict
    ],
)
def test_a_step_without_signal_is_told_apart_by_why(groups: list[list[Rollout]], kind: str, detail: str) -> None:
    found = flat_kind(groups)
    assert found == kind
    assert found is None or detail in describe(found, groups)


def test_each_kind_is_said_once_after_flat_steps_in_a_row() -> None:
    watch = SignalWatch()
    solved, unsolved, mixed = [[RIGHT, RIGHT]], [[WRONG, WRONG]], [[RIGHT, WRONG]]
    said = [watch.step(g) for g in [solved] * (FLAT_STEPS - 1) + [mixed] + [solved] * FLAT_STEPS]
    assert said == [None] * (2 * FLAT_STEPS - 1) + ["solved"]  # the streak restarts after a step with signal
    said = [watch.step(g) for g in [solved] * FLAT_STEPS + [unsolved] * FLAT_STEPS]
    # solved is not said again; the streak's last 5 steps mix solved and unsolved ("split") until all are unsolved
    assert said == [None] * FLAT_STEPS + ["split"] + [None] * (FLAT_STEPS - 2) + ["unsolved"]
    assert watch.summary() is None and watch.unjudged_frac == 0.0
    fresh = SignalWatch()
    said = [fresh.step(g) for g in [unsolved, solved, [[RIGHT, RIGHT], [WRONG, WRONG]], solved, unsolved]]
    assert said == [None] * 4 + ["split"]
    late = SignalWatch()
    said = [late.step(g) for g in [[[LATE, LATE]]] * (FLAT_STEPS - 1) + [unsolved]]
    assert said == [None] * (FLAT_STEPS - 1) + ["flat"]  # any other mix: equal rewards, no single reason


def test_a_mostly_unjudged_run_gets_one_line_with_the_share_and_the_first_reason() -> None:
    watch = SignalWatch()
    watch.step([[RIGHT, WRONG]])
    watch.step([[LATE, r(0.0, "error", None, "the verifier failed: ValueError")]])
    assert watch.summary() is None  # half judged... and half not: 2 of 4 is not "mostly"
    watch.step([[LATE, LATE]])
    line = watch.summary()
    assert line == "4 of 6 completions (67%) in 3 steps were not judged (masked out of the loss); the first: timed out"


BROKEN_ENV = """
import gymnasium
from grpo_envs import Verifier
from grpo_envs.envs.digits import Digits

def verify(reference, answer):
    raise ValueError("the judge is down")

class Broken(Digits):
    def __init__(self, **kwargs):
        super().__init__(verifier=Verifier.from_fn("down", verify), **kwargs)

gymnasium.register("broken/Digits-v0", entry_point=Broken)
"""


@pytest.mark.slow
def test_a_run_where_nothing_was_judged_says_so_once_and_exits_1(tmp_path: Path) -> None:
    (tmp_path / "broken_w37.py").write_text(BROKEN_ENV)
    script = os.path.join(os.path.dirname(sys.executable), "grpo-envs")
    flags = ["--steps", "6", "--prompts-per-step", "2", "--num-generations", "2", "--max-new-tokens", "1"]
    flags += ["--eval-prompts", "2", "--save-every", "0", "--device", "cpu", "--no-progress"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [script, "train", "--env", "broken_w37:broken/Digits-v0", *flags, "--output-dir", "run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr[-3000:]
    assert done.stderr.count("Traceback") == 1  # 24 + 4 failed calls, one traceback
    lines = done.stderr.strip().splitlines()
    assert "no completion was judged for 5 steps in a row (first reason: The verifier down failed" in done.stderr
    assert "24 of 24 completions (100%) in 6 steps were not judged (masked out of the loss); the first: " in lines[-2]
    assert "ValueError: the judge is down" in lines[-2]
    assert lines[-1].startswith("grpo-envs train: error: no completion was judged, so nothing was learned: The ")
    assert "ValueError: the judge is down" in lines[-1]  # the cause, on the error line too
