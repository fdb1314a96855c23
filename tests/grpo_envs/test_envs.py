"""Every registered environment keeps the laws; the built-ins behave as documented."""

from __future__ import annotations

import importlib.util
import json
import pickle
import random
import re
import subprocess
import sys
import time
from typing import Any

import gymnasium
import pytest

import grpo_envs
from grpo_envs import (
    ANSWER_TAGS,
    THINK_ANSWER,
    GrpoEnvsError,
    ReasoningEnv,
    Rubric,
    Task,
    TextSpace,
    Verifier,
    format_reward,
    make_group,
)
from verifiers import VerifyResult

DOCKER_ENVS = {"grpo_envs/CodeTests-v0", "grpo_envs/CodeRepair-v0"}
PROCEDURAL = [
    "grpo_envs/Arithmetic-v0",
    "grpo_envs/LinearEquations-v0",
    "grpo_envs/Countdown-v0",
    "grpo_envs/Sorting-v0",
    "grpo_envs/ModularArithmetic-v0",
    "grpo_envs/PythonTool-v0",
]


def _marks(env_id: str) -> list[Any]:
    marks: list[Any] = []
    if env_id in DOCKER_ENVS:
        marks.append(pytest.mark.docker)
    return marks


TASK_FOLDERS = {"grpo_envs/Terminal-v0"}  # made from a folder of tasks: tests/grpo_envs/test_harbor_env*.py
ALL_IDS = [pytest.param(i, marks=_marks(i), id=i.split("/")[1]) for i in grpo_envs.env_ids() if i not in TASK_FOLDERS]


def test_every_builtin_is_registered() -> None:
    ids = set(grpo_envs.env_ids())
    assert {
        f"grpo_envs/{n}"
        for n in (
            "Arithmetic-v0",
            "LinearEquations-v0",
            "Countdown-v0",
            "Sorting-v0",
            "ModularArithmetic-v0",
            "MathDataset-v0",
            "CodeTests-v0",
            "CodeRepair-v0",
            "PythonTool-v0",
        )
    } <= ids
    if importlib.util.find_spec("reasoning_gym") is not None:
        assert "grpo_envs/ReasoningGym-v0" in ids


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_check_env(env_id: str) -> None:
    env = gymnasium.make(env_id)
    report = grpo_envs.check_env(env, seeds=range(3))
    assert report.env_id == env_id and report.seeds == (0, 1, 2) and report.fresh_instance
    assert report.distinct_prompts >= 2 and report.episodes == 3 * 7
    assert str(report).startswith(f"{env_id} keeps every law") and "(3 seeds)" in str(report)
    env.close()
    env.close()  # idempotent


class _Lawful(ReasoningEnv):
    def make_task(self, rng: Any) -> Task:
        n = rng.randint(0, 10**6)
        return Task(f"n-{n}", f"What is {n} + 1?", n + 1)


class _GlobalRandom(_Lawful):  # the global RNG: another prompt at each reset, and global state changed
    def make_task(self, rng: Any) -> Task:
        return super().make_task(random.Random(random.random()))


class _OnePrompt(_Lawful):
    def make_task(self, rng: Any) -> Task:
        return Task("one", "What is 1 + 1?", 2)


class _WrongReference(_Lawful):
    def reference_completion(self, task: Task) -> str:
        return "The final answer is $\\boxed{-1}$."


class _RaisesOnEmpty(_Lawful):
    def step(self, action: str) -> Any:
        if not action.strip():
            raise ValueError("empty")
        return super().step(action)


class _NarrowBounds(_Lawful):
    reward_bounds = (0.5, 1.0)  # garbage earns 0.0


class _NeverEnds(_Lawful):
    def step(self, action: str) -> Any:
        observation, reward, _, _, info = super().step(action)
        self._done = False
        return observation, reward, False, False, info


@pytest.mark.parametrize(
    ("env", "law"),
    [
        (_GlobalRandom(), "seed 0: two resets gave different prompts"),
        (_GlobalRandom(), "the global random or numpy RNG state changed"),
        (_OnePrompt(), "seeds \\[0, 1, 2\\] all gave the same prompt"),
        (_WrongReference(), "seed 1: the reference completion was judged incorrect"),
        (_RaisesOnEmpty(), "seed 2: step\\(''...\\) raised ValueError: empty"),
        (_NarrowBounds(), "seed 0: reward 0.0 outside \\(0.5, 1.0\\)"),
        (_NeverEnds(max_turns=2), "seed 0: the episode ran past max_turns=2"),
    ],
    ids=["reset", "global-state", "same-prompt", "reference", "raises", "bounds", "max-turns"],
)
def test_check_env_names_each_broken_law(env: ReasoningEnv, law: str) -> None:
    with pytest.raises(grpo_envs.EnvCheckError, match=law):
        grpo_envs.check_env(env, seeds=range(3))
    report = grpo_envs.check_env(_Lawful(), seeds=range(3))  # the same env without the flaw keeps every law
    assert not report.fresh_instance and "fresh instance" not in str(report)  # not registered: no spec


def test_same_seed_same_task_in_another_process() -> None:
    code = (
        "import json, gymnasium, grpo_envs\n"
        f"ids = {PROCEDURAL + ['grpo_envs/MathDataset-v0']!r}\n"
        "out = {}\n"
        "for i in ids:\n"
        "    env = gymnasium.make(i)\n"
        "    out[i] = [env.reset(seed=s)[0] for s in (0, 1, 12345)]\n"
        "print(json.dumps(out))\n"
    )
    other = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    for env_id, prompts in other.items():
        env = gymnasium.make(env_id)
        assert [env.reset(seed=s)[0] for s in (0, 1, 12345)] == prompts, env_id


def test_unseeded_resets_draw_from_np_random() -> None:
    env = gymnasium.make("grpo_envs/Arithmetic-v0")
    env.reset(seed=5)
    first = [env.reset()[0] for _ in range(3)]
    env.reset(seed=5)
    second = [env.reset()[0] for _ in range(3)]
    assert first == second and len(set(first)) == 3


def test_train_and_eval_streams_differ() -> None:
    train = gymnasium.make("grpo_envs/Arithmetic-v0", split="train")
    evals = gymnasium.make("grpo_envs/Arithmetic-v0", split="eval")
    assert train.reset(seed=1)[0] != evals.reset(seed=1)[0]
    assert grpo_envs.check_disjoint("grpo_envs/Arithmetic-v0", range(100), range(100)) == []
    tiny = grpo_envs.check_disjoint("grpo_envs/Sorting-v0", range(200), range(200), length=2, max_value=1)
    assert tiny  # a task space of 9 repeats whatever the seeds, and it is reported


def test_info_carries_provenance() -> None:
    env = gymnasium.make("grpo_envs/Arithmetic-v0")
    _, info = env.reset(seed=3)
    assert "group_id" not in info and info["messages"][0]["role"] == "user"
    task = env.unwrapped.task
    _, reward, terminated, truncated, info = env.step(f"\\boxed{{{task.answer}}}")
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["task_id"] == task.task_id and info["env_id"] == "grpo_envs/Arithmetic-v0"
    assert info["env_version"] == 0 and info["verifier"].startswith("math:")
    assert info["correct"] is True and info["status"] == "correct" and info["reason"]
    assert [m["role"] for m in info["messages"]] == ["user", "assistant"]
    with pytest.raises(GrpoEnvsError, match="call reset"):
        env.unwrapped.step("again")


def test_a_faulty_completion_is_zero_reward_not_a_crash() -> None:
    env = gymnasium.make("grpo_envs/Arithmetic-v0").unwrapped
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(None)  # type: ignore[arg-type]
    assert reward == 0.0 and terminated and info["status"] == "no_answer"

    def broken(reference: Any, answer: str) -> VerifyResult:
        raise RuntimeError("verifier bug")

    env = gymnasium.make("grpo_envs/Arithmetic-v0", verifier=Verifier.from_fn("broken", broken))
    env.reset(seed=0)
    _, reward, _, _, info = env.step("\\boxed{1}")
    assert reward == 0.0 and info["status"] == "error" and "verifier bug" in info["reason"]


def test_text_space() -> None:
    space = TextSpace(max_chars=50, seed=1)
    assert space == TextSpace(max_chars=50) != TextSpace(max_chars=51)
    assert pickle.loads(pickle.dumps(space)) == space
    samples = [space.sample() for _ in range(20)]
    assert all(space.contains(s) and s.isprintable() for s in samples)
    assert not space.contains("x" * 51) and not space.contains(b"x")


# -- groups ----------------------------------------------------------------------------------
def test_make_group_checks_its_arguments() -> None:
    with pytest.raises(GrpoEnvsError, match="num_generations must be an int >= 1, got 2.5"):
        make_group("grpo_envs/Arithmetic-v0", seed=1, num_generations=2.5)  # type: ignore[arg-type]
    with pytest.raises(GrpoEnvsError, match="seed must be an int"):
        make_group("grpo_envs/Arithmetic-v0", seed="1", num_generations=2)  # type: ignore[arg-type]
    with pytest.raises(GrpoEnvsError, match="needs num_generations"):
        make_group("grpo_envs/Arithmetic-v0", seed=1)
    group = make_group("grpo_envs/Arithmetic-v0", seed=1, num_generations=4)
    with pytest.raises(GrpoEnvsError, match="a list of strings, got one string"):
        group.score("one completion")  # type: ignore[arg-type]


def test_make_group_scores_a_group() -> None:
    group = make_group("grpo_envs/Arithmetic-v0", seed=42, num_generations=8)
    again = make_group("grpo_envs/Arithmetic-v0", seed=42, num_generations=8)
    assert group.group_id == again.group_id and group.task == again.task
    assert group.group_id != make_group("grpo_envs/Arithmetic-v0", seed=43, num_generations=8).group_id
    good = group.env.reference_completion(group.task)
    score = group.score([good, "I give up", good, "\\boxed{0.123}", good, "", good, "\\boxed{x}"])
    assert score.rewards == (1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0)
    assert score.accuracy == 0.5
    assert all(info["group_id"] == group.group_id for info in score.infos)
    with pytest.raises(GrpoEnvsError, match="size 8"):
        group.score([good])


def test_a_group_of_a_multi_turn_env_gets_one_env_per_rollout() -> None:
    group = make_group("grpo_envs/PythonTool-v0", seed=1, num_generations=3)
    envs = group.make_envs()
    assert len({id(e) for e in envs}) == 3
    assert all(e.task == group.task and e._group_id == group.group_id for e in envs)


# -- formats and rubrics ---------------------------------------------------------------------
def test_answer_formats() -> None:
    env = gymnasium.make("grpo_envs/Arithmetic-v0", answer_format=ANSWER_TAGS).unwrapped
    prompt, _ = env.reset(seed=0)
    assert "<answer></answer>" in prompt
    assert env.step(f"work... <answer>{env.task.answer}</answer>")[1] == 1.0
    env.reset(seed=0)
    assert env.step(f"\\boxed{{{env.task.answer}}}")[4]["status"] == "no_answer"  # wrong format
    env = gymnasium.make("grpo_envs/Arithmetic-v0", answer_format=THINK_ANSWER).unwrapped
    env.reset(seed=0)
    assert env.step(f"<think>hmm</think> {env.task.answer}")[1] == 1.0
    env.reset(seed=0)
    assert env.step(f"{env.task.answer}")[4]["status"] == "no_answer"


def test_rubric_weights_and_not_applicable_terms() -> None:
    def only_long(task: Any, completion: str, result: Any) -> float | None:
        return None if len(completion) < 50 else 0.0

    rubric = Rubric(terms=(format_reward(grpo_envs.BOXED, weight=0.5), grpo_envs.RewardTerm("long", only_long, 1.0)))
    env = gymnasium.make("grpo_envs/Arithmetic-v0", rubric=rubric).unwrapped
    env.reset(seed=0)
    _, reward, _, _, info = env.step("\\boxed{999999}")  # wrong but well formed, short
    assert info["reward_parts"] == {"correctness": 0.0, "format": 1.0}
    assert reward == pytest.approx(0.5 / 1.5)
    assert info["correct"] is False  # correctness comes from the verifier only
    with pytest.raises(GrpoEnvsError, match="unique"):
        Rubric(terms=(grpo_envs.RewardTerm("correctness", only_long),))


# -- Countdown ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ("<answer>(3 + 7) * 5</answer>", "correct"),
        ("<answer>5 * (7 + 3) = 50</answer>", "correct"),
        ("<answer>3 * 7 + 5</answer>", "incorrect"),
        ("<answer>(3 + 7) * 5 + 0</answer>", "incorrect"),  # a number not given
        ("<answer>(3 + 3) * 5</answer>", "incorrect"),  # 3 twice, 7 never
        ("<answer>__import__('os').system('true')</answer>", "unparseable"),
        ("<answer>(3 + 7 * 5</answer>", "unparseable"),
        ("no tags", "no_answer"),
    ],
)
def test_countdown_verifier(answer: str, status: str) -> None:
    from grpo_envs.envs.countdown import Countdown

    cd = Countdown(count=3)
    cd.reset(seed=0)
    cd.task = Task("t", "p", {"numbers": [3, 7, 5], "target": 50})
    assert cd.step(answer)[4]["status"] == status


@pytest.mark.parametrize(
    ("expression", "status", "reason"),
    [
        # precedence and exact fractions
        ("2 + 3 * 4", "incorrect", "equals 14, not 20"),
        ("(2 + 3) * 4", "correct", ""),
        ("4 / (2 / 3)", "incorrect", "equals 6, not 20"),  # division: a fraction inside
        ("2 × (4 ÷ 4 + 3)", "incorrect", "uses \\[2, 3, 4, 4\\]"),
        # what the parser refuses, and why
        ("(2 + 3) / (4 - 4)", "unparseable", "division by zero"),
        ("(" * 60 + "2" + ")" * 60, "unparseable", "nested too deeply"),
        ("(2 + 3) * 4)", "unparseable", "unexpected '\\)'"),
        ("(2 + 3) * ", "unparseable", "expected a number, got None"),
        ("2 ** 3", "unparseable", "expected a number, got '\\*'"),
        ("2 + x", "unparseable", "unexpected ' x'"),
    ],
)
def test_countdown_arithmetic(expression: str, status: str, reason: str) -> None:
    from grpo_envs.envs.countdown import check_countdown

    result = check_countdown({"numbers": [2, 3, 4], "target": 20}, expression)
    assert result.status == status and re.search(reason, result.reason), result.reason


# -- a user-defined env in a few lines -----------------------------------------------------------
def test_subclassing_takes_one_small_class() -> None:
    class Parity(ReasoningEnv):
        def make_task(self, rng: Any) -> Task:
            n = rng.randint(0, 1000)
            return Task(f"parity-{n}", f"Is {n} even? Answer yes or no.", "yes" if n % 2 == 0 else "no")

    gymnasium.register("test_envs/Parity-v0", entry_point=Parity)
    env = gymnasium.make("test_envs/Parity-v0")
    grpo_envs.check_env(env)
    prompt, _ = env.reset(seed=7)
    answer = env.unwrapped.task.answer
    assert env.step(f"The answer is {answer.upper()}.")[1] == 1.0


# -- datasets ----------------------------------------------------------------------------------
def test_math_dataset_from_rows_and_columns(tmp_path: Any) -> None:
    rows = [{"q": f"What is {k} + {k}?", "a": f"{k} + {k} = {2 * k}\n#### {2 * k}"} for k in range(30)]
    env = gymnasium.make(
        "grpo_envs/MathDataset-v0", rows=rows, question_key="q", answer_key="a", eval_fraction=0
    ).unwrapped
    prompt, _ = env.reset(seed=3)
    k = int(env.task.prompt.split()[2])
    assert env.step(f"\\boxed{{{2 * k}}}")[1] == 1.0
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(json.dumps({"question": r["q"], "answer": r["a"]}) for r in rows))
    train = gymnasium.make("grpo_envs/MathDataset-v0", path=str(path)).unwrapped
    evals = gymnasium.make("grpo_envs/MathDataset-v0", path=str(path), split="eval").unwrapped
    assert not {r["question"] for r in train.rows} & {r["question"] for r in evals.rows}
    with pytest.raises(GrpoEnvsError, match="column"):
        gymnasium.make("grpo_envs/MathDataset-v0", rows=rows)


def test_reasoning_gym_extracts_and_refuses_partial_credit_sprays() -> None:
    pytest.importorskip("reasoning_gym")
    env = gymnasium.make("grpo_envs/ReasoningGym-v0", dataset="leg_counting", size=20).unwrapped
    env.reset(seed=1)
    gold = env.task.metadata["gold"]
    assert env.step(f"Counting legs... \\boxed{{{gold}}}")[1] == 1.0
    env.reset(seed=1)
    reward = env.step(f"\\boxed{{1{gold}}}")[1]  # their scorer gives 0.75 for this
    assert reward == 0.0
    env.reset(seed=1)
    spray = " ".join(f"\\boxed{{{k}}}" for k in range(100)) + f" \\boxed{{{gold}}}"
    assert env.step(spray)[1] == 0.0


# -- code envs in the sandbox -------------------------------------------------------------------
@pytest.mark.serial
@pytest.mark.docker
def test_a_code_group_is_verified_concurrently_over_the_pool() -> None:
    from verifiers.sandbox import DockerSandbox

    with DockerSandbox(size=4) as box:
        rows = [
            {
                "prompt": "Print the sum of two integers on one line.",
                "tests": {"stdin_stdout": [{"input": "2 3\n", "output": "5\n"}]},
            }
        ]
        group = make_group("grpo_envs/CodeTests-v0", seed=0, num_generations=8, rows=rows, sandbox=box, eval_fraction=0)
        slow_ok = "```python\nimport time\ntime.sleep(0.5)\na, b = map(int, input().split())\nprint(a + b)\n```"
        start = time.monotonic()
        score = group.score([slow_ok] * 6 + ["```python\nprint(0)\n```", "no code"])
        elapsed = time.monotonic() - start
        assert score.rewards == (1.0,) * 6 + (0.0, 0.0)
        assert elapsed < 2.5, f"{elapsed:.1f} s: 6 x 0.5 s of sleep did not overlap"


@pytest.mark.docker
def test_code_repair_feeds_back_public_failures_and_never_reveals_private_tests() -> None:
    public = {"stdin_stdout": [{"input": "3\n", "output": "6\n"}]}
    private = {"stdin_stdout": [{"input": "5\n", "output": "10\n"}, {"input": "0\n", "output": "0\n"}]}
    rows = [
        {
            "prompt": "Read n and print 2n.",
            "buggy_code": "print(int(input()) + 2)",
            "public_tests": public,
            "private_tests": private,
        }
    ]
    env = gymnasium.make("grpo_envs/CodeRepair-v0", rows=rows, eval_fraction=0, max_turns=3).unwrapped
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("```python\nprint(int(input()) + 1)\n```")
    assert reward == 0.0 and not terminated and not truncated
    assert "Visible test 1 failed" in obs and "Expected output:\n6" in obs and "Your output:\n6" not in obs
    # Printing the leaked expected output passes the visible test and earns nothing.
    leak = "```python\nn = input()\nprint(6 if n.strip() == '3' else 0)\n```"
    obs, reward, terminated, truncated, info = env.step(leak)
    assert reward == pytest.approx(0.5) and info["correct"] is False  # only private n=0 passes
    assert "hidden tests" in obs
    transcript = json.dumps(info["messages"])
    assert "10" not in transcript.replace("2n", "")  # the private expected output never shown
    obs, reward, terminated, truncated, info = env.step("```python\nprint(2 * int(input()))\n```")
    assert reward == 1.0 and terminated and info["correct"] is True


@pytest.mark.docker
def test_python_tool_runs_a_tool_call_then_judges_the_answer() -> None:
    env = gymnasium.make("grpo_envs/PythonTool-v0").unwrapped
    env.reset(seed=3)
    answer = env.task.answer
    obs, reward, terminated, _, info = env.step(f"Let me compute.\n```python\nprint({answer})\n```")
    assert obs == f"Output:\n{answer}\n" and reward == 0.0 and not terminated
    obs, reward, terminated, truncated, info = env.step(f"So the answer is \\boxed{{{answer}}}.")
    assert reward == 1.0 and terminated and not truncated and info["turn"] == 2
    env.reset(seed=3)
    turns = 0
    while True:
        obs, reward, terminated, truncated, _ = env.step("```python\nprint('thinking')\n```")
        turns += 1
        if terminated or truncated:
            break
    assert truncated and turns == env.max_turns


def test_the_readme_custom_env_runs_and_is_short() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = readme.split("<!-- custom-env -->")[1].split("<!-- /custom-env -->")[0]
    code = block.split("```python\n")[1].split("```")[0]
    assert len(code.strip().splitlines()) < 40
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "keeps every law of check_env" in proc.stdout.splitlines()[0]  # check_env's report, printed
    reward, status = proc.stdout.splitlines()[-1].split()[:2]
    assert status == "incorrect" and float(reward) == pytest.approx(0.2 / 1.2)
