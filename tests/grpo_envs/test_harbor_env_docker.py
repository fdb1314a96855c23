"""The rewarded path, end to end, on Harbor task folders in real containers: a scripted agent
replaying each task's reference solution as Qwen tool calls reaches reward 1 through env.step,
the trainer's rollout, its batch and its loss; a few GRPO steps of the tiny model run on the
tasks; eval reports pass@k on them; a task whose tests write no reward is a masked error.

Each test runs twice: on three tiny tasks written here (their images build ``FROM
grpo-envs-task-base`` mapped to the sandbox image, or ``GRPO_ENVS_TASK_BASE_IMAGE``; or the folder
``GRPO_ENVS_TASKS_DIR``), on two of the tasks shipped with the package
(`verifiers.agentic.shipped_tasks_dir`, on `build_task_base_image`'s image), and on two of the
repair tasks shipped from real projects (`grpo_envs.repotasks.repo_tasks_dir`)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import pytest

from grpo_envs import Judgement
from grpo_envs.tools import ToolCall, tool_format
from verifiers.agentic import AgenticTask, Environment, Limits, Verifier, write_task
from verifiers.sandbox import image_tag

pytestmark = [pytest.mark.docker, pytest.mark.filterwarnings("ignore::DeprecationWarning")]
QWEN = tool_format("qwen")
ENV_ID = "grpo_envs/Terminal-v0"
LIMITS = Limits(agent_timeout_s=60.0, verifier_timeout_s=60.0, memory_mb=256, network_mode="none")
DOCKERFILE = "FROM grpo-envs-task-base\nWORKDIR /work\n"


def _reward_if(condition: str) -> bytes:
    return f"#!/bin/bash\nif {condition}; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n".encode()


def tiny_tasks() -> list[AgenticTask]:
    """Two tasks to solve (one with a multi-line solution and a helper file) and one whose
    tests never write a reward."""
    common: dict[str, Any] = {"environment": Environment(dockerfile=DOCKERFILE), "limits": LIMITS}
    return [
        AgenticTask(
            name="greeting",
            instruction="Write the word hello (and a newline) to /work/hello.txt.\n",
            verifier=Verifier(
                tests={"test.sh": _reward_if('[ "$(cat /work/hello.txt)" = hello ]')}, artifacts=("/work/hello.txt",)
            ),
            solution={"solve.sh": b"#!/bin/bash\necho hello > /work/hello.txt\n"},
            metadata={"category": "shell"},
            **common,
        ),
        AgenticTask(
            name="squares",
            instruction="Write the squares of 1 to 5, one a line, to /work/squares.txt.\n",
            verifier=Verifier(
                tests={"test.sh": _reward_if('[ "$(tr "\\n" , < /work/squares.txt)" = 1,4,9,16,25, ]')},
                artifacts=("/work/squares.txt",),
            ),
            solution={
                "solve.sh": b"#!/bin/bash\nfor i in 1 2 3 4 5; do\n  python3 square.py $i\ndone > /work/squares.txt\n",
                "square.py": b"import sys\nprint(int(sys.argv[1]) ** 2)\n",
            },
            metadata={"category": "python"},
            **common,
        ),
        AgenticTask(
            name="no-reward",
            instruction="Write anything to /work/x.txt.\n",
            verifier=Verifier(tests={"test.sh": b"#!/bin/bash\necho judged\n"}, artifacts=("/work/x.txt",)),
            solution={"solve.sh": b"#!/bin/bash\necho x > /work/x.txt\n"},
            **common,
        ),
    ]


SHIPPED = ("word-frequency", "fix-median")  # two of the shipped tasks: a script, a bug fix under tests
_BASES: dict[str, str] = {}  # tasks folder -> the image its tasks' FROM grpo-envs-task-base means


REPO = ("toolz.functoolz.apply.001", "six.add_move.001")  # two shipped repair tasks (grpo_envs.repotasks)


@pytest.fixture(scope="module", params=["tiny", "shipped", "repo"])
def tasks_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp(f"tasks-{request.param}")
    if request.param == "shipped":
        from verifiers.agentic import build_task_base_image, shipped_tasks_dir

        for name in SHIPPED:
            shutil.copytree(shipped_tasks_dir() / name, root / name)
        _BASES[str(root)] = build_task_base_image()
        return root
    if request.param == "repo":
        from grpo_envs.repotasks import repo_tasks_dir
        from verifiers.agentic import build_task_base_image

        for name in REPO:
            shutil.copytree(repo_tasks_dir() / name, root / name)
        _BASES[str(root)] = build_task_base_image()
        return root
    return _tiny(root)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tiny(tmp_path_factory.mktemp("tasks-tiny"))


def _tiny(root: Path) -> Path:
    given = os.environ.get("GRPO_ENVS_TASKS_DIR")
    if given:
        return Path(given)
    for task in tiny_tasks():
        write_task(task, root)
    return root


def _kwargs(tasks_dir: Path) -> dict[str, Any]:
    base = _BASES.get(str(tasks_dir)) or os.environ.get("GRPO_ENVS_TASK_BASE_IMAGE") or image_tag()
    return {"tasks_dir": str(tasks_dir), "split": "all", "base_images": {"grpo-envs-task-base": base}}


def _call(command: str) -> str:
    return QWEN.write(ToolCall("bash", {"command": command}))


def test_each_tasks_reference_replayed_as_tool_calls_scores_one_and_a_nop_zero(tasks_dir: Path) -> None:
    env = gymnasium.make(ENV_ID, **_kwargs(tasks_dir))
    tasks = env.unwrapped.tasks
    for seed, task in enumerate(tasks):
        if task.task_id == "no-reward":
            continue
        env.reset(seed=seed)
        for command in task.reference:
            observation, reward, terminated, truncated, _ = env.step(_call(command))
            assert (reward, terminated, truncated) == (0.0, False, False), (task.task_id, command, observation)
        _, reward, terminated, _, info = env.step("Done.")
        assert (reward, terminated, info["status"]) == (1.0, True, "correct"), (task.task_id, info["reason"])
        assert [c["command"] for c in info["commands"]] == list(task.reference)
        assert all(c["exit_code"] == 0 and c["seconds"] >= 0 for c in info["commands"])
        env.reset(seed=seed)
        _, reward, _, _, info = env.step("I give up.")
        assert (reward, info["status"]) == (0.0, "incorrect"), (task.task_id, info["reason"])
    env.close()


def test_a_task_whose_tests_write_no_reward_is_a_masked_error_with_its_reason(tiny_dir: Path) -> None:
    env = gymnasium.make(ENV_ID, **_kwargs(tiny_dir))
    names = [t.task_id for t in env.unwrapped.tasks]
    if "no-reward" not in names:
        pytest.skip("the tasks folder has no task named no-reward")
    env.reset(seed=names.index("no-reward"))
    env.step(_call("echo x > /work/x.txt"))
    _, reward, _, _, info = env.step("Done.")
    assert Judgement.of_step(reward, info).judged is False and info["status"] == "error"
    assert "no /logs/verifier/reward.txt" in info["reason"] and "masked" in info["reason"]


class Replay:
    """A generator that writes, in each context's turn t, the t-th reference command of the task
    whose instruction the context holds as a Qwen tool call (then the end of the turn); after the
    last command, "Done." ends the episode. With ``wrong`` set, odd contexts run ``true`` as
    often instead (their episodes are not solved; a group's episodes end together, so an even
    group size keeps each episode's parity); with ``model_gen``, the model samples the rest of
    each turn."""

    def __init__(self, tokenizer: Any, tasks: Sequence[Any], *, wrong: bool = False, model_gen: Any = None) -> None:
        self.tokenizer, self.tasks, self.wrong, self.model_gen = tokenizer, tasks, wrong, model_gen

    def generate(self, contexts: Sequence[list[int]], params: Any) -> list[Any]:
        from trainer.generation._generator import Continuation

        end = self.tokenizer.convert_tokens_to_ids("<|im_end|>")
        heads = []
        for k, context in enumerate(contexts):
            text = self.tokenizer.decode(context)
            task = next(t for t in self.tasks if t.instruction.strip() in text)
            turn = text.split(task.instruction.strip(), 1)[1].count("<tool_response>")
            script = ["true"] * len(task.reference) if self.wrong and k % 2 else task.reference
            reply = _call(script[turn]) if turn < len(script) else "Done."
            heads.append(self.tokenizer(reply, add_special_tokens=False)["input_ids"])
        if self.model_gen is None:
            return [Continuation((*h, end), False) for h in heads]
        tails = self.model_gen.generate([[*c, *h] for c, h in zip(contexts, heads, strict=True)], params)
        return [Continuation((*h, *t.ids), t.truncated) for h, t in zip(heads, tails, strict=True)]


@pytest.mark.slow
def test_a_few_grpo_steps_of_the_tiny_model_on_the_tasks_reward_the_replayed_reference(
    tasks_dir: Path, tmp_path: Path
) -> None:
    import torch

    from tests.grpo_envs.test_tool_formats import family_tokenizer
    from trainer._batch import make_batch
    from trainer.config import GRPOConfig
    from trainer.generation._generator import timed
    from trainer.generation._transformers import TransformersGenerator
    from trainer.grpo import GRPOTrainer
    from trainer.policy._model import demo_model

    tokenizer = family_tokenizer("qwen")
    kwargs = _kwargs(tasks_dir)
    solvable = [t.task_id for t in gymnasium.make(ENV_ID, **kwargs).unwrapped.tasks]
    seed = solvable.index("greeting") if "greeting" in solvable else 0
    cfg = GRPOConfig(
        steps=2,
        prompts_per_step=1,
        num_generations=2,
        max_new_tokens=3,
        learning_rate=1e-2,
        beta=0.0,
        output_dir=str(tmp_path / "run"),
        save_every=0,
        eval_prompts=1,
        device="cpu",
        mask_truncated_completions=False,
        env=ENV_ID,
        env_kwargs=kwargs,
    )
    model = demo_model(len(tokenizer))
    trainer = GRPOTrainer(cfg, model=model, tokenizer=tokenizer, show_progress=False)
    tasks = trainer._envs[0].unwrapped.tasks
    gen = Replay(tokenizer, tasks, wrong=True, model_gen=TransformersGenerator(model, tokenizer, torch.device("cpu")))
    trainer._generator = lambda: timed(gen)  # type: ignore[method-assign]
    groups = trainer._rollouts([seed], trainer._pool(trainer._envs, cfg.num_generations))
    rewards = [r.reward for r in groups[0]]
    assert rewards == [1.0, 0.0], [r.reason for r in groups[0]]  # the reference solves it; `true` does not
    assert all(r.judged for r in groups[0])
    batch = make_batch(groups[0], tokenizer.pad_token_id)
    assert int(batch.mask.sum()) == sum(r.generated for r in groups[0]) < sum(len(r.ids) for r in groups[0])
    before = [p.detach().clone() for p in trainer.model.parameters()]
    trainer.train()
    assert any(not torch.equal(a, b) for a, b in zip(before, trainer.model.parameters(), strict=True))


def test_eval_reports_pass_at_k_on_the_tasks(tasks_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import trainer.eval._backends as backends
    from tests.grpo_envs.test_tool_formats import family_tokenizer
    from trainer.eval import evaluate
    from trainer.rollouts._rollout import rollout

    tokenizer = family_tokenizer("qwen")

    def scripted(name: str, model: Any, probe: Any, opts: Any) -> Any:
        gen = Replay(tokenizer, probe.unwrapped.tasks, wrong=True)

        def run(envs: list[Any], seeds: Sequence[int], make_env: Any, chunk_seed: int) -> list[list[Any]]:
            return rollout(
                gen, tokenizer, envs, seeds, opts.samples, max_new_tokens=64, temperature=1.0, make_env=make_env
            )

        return backends.Backend("scripted", run, "per sample")

    import trainer.eval._run as run_module

    monkeypatch.setattr(run_module, "open_backend", scripted)  # evaluate's own name for it
    names = [t.task_id for t in gymnasium.make(ENV_ID, **_kwargs(tasks_dir)).unwrapped.tasks]
    kwargs = {"env_kwargs": _kwargs(tasks_dir), "out": tmp_path, "show_progress": False}
    summary = evaluate(ENV_ID, "scripted", n=len(names), samples=2, **kwargs)  # each task once
    rows = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    assert sorted(row["task_id"] for row in rows) == sorted(names * 2)
    unjudged = 2 * names.count("no-reward")  # its tests write no reward: masked, left out of pass@k
    assert summary["samples"] == 2 * len(names) and summary["unjudged"] == unjudged
    assert summary["statuses"]["correct"] == summary["statuses"]["incorrect"] == len(names) - unjudged // 2
    assert summary["pass@1"]["value"] == pytest.approx(0.5) and summary["pass@2"]["value"] == pytest.approx(1.0)
    assert summary["pass@1"]["left_out"] == unjudged // 2 and summary["pass@1"]["tasks"] == len(names) - unjudged // 2


@pytest.mark.slow
def test_rollout_workers_run_the_task_folder_env_and_its_tests_judge_every_episode(
    tiny_dir: Path, tmp_path: Path
) -> None:
    """async_level = 1: worker processes make the env by id, run its episodes in the tasks'
    containers and the tasks' tests judge each one (the demo model never solves a task: every
    episode is judged incorrect, none is an unjudged error); the schedule's staleness holds."""
    from tests.trainer.test_async import config
    from trainer.grpo import GRPOTrainer

    kwargs = {**_kwargs(tiny_dir), "split": "all"}
    kwargs["tasks_dir"] = str(tmp_path / "two")
    for name in ("greeting", "squares"):
        shutil.copytree(tiny_dir / name, tmp_path / "two" / name)
    overrides = {"steps": 2, "prompts_per_step": 1, "num_generations": 2, "max_new_tokens": 8, "eval_prompts": 1}
    cfg = config(tmp_path, env=ENV_ID, env_kwargs=kwargs, **overrides)
    GRPOTrainer(cfg, show_progress=False).train()
    metrics = [json.loads(line) for line in (Path(cfg.output_dir) / "metrics.jsonl").read_text().splitlines()]
    assert [m["status/incorrect"] for m in metrics] == [2, 2] and not any("status/error" in m for m in metrics)
    assert [m["staleness"] for m in metrics] == [0, 1]
