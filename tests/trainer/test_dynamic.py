"""Dynamic sampling with refill (`trainer.sampling._dynamic`), overlong shaping (`trainer.sampling._shaping`) and their
typed config part (`trainer.sampling._config.SamplingConfig`)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from grpo_envs import Judgement
from trainer import TrainerError
from trainer._batch import loss_rows
from trainer.config import GRPOConfig, load_config
from trainer.rollouts._rollout import Rollout
from trainer.sampling._config import SamplingConfig
from trainer.sampling._dynamic import DynamicSampler, informative
from trainer.sampling._shaping import overlong_penalty, shape_overlong

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def judged(reward: float, *, length: int = 1, correct: bool | None = None) -> Rollout:
    status = "correct" if (correct if correct is not None else reward >= 1.0) else "incorrect"
    r = Rollout([1], ids=[2] * length, mask=[1] * length, reward=reward)
    r.judgements.append(Judgement.of_step(reward, {"status": status}))
    return r


# -- the filter ---------------------------------------------------------------------------------
def test_constant_continuous_rewards_are_dropped_with_a_tolerance() -> None:
    noisy = [judged(0.3), judged(0.3 + 1e-12), judged(0.3 - 1e-13)]  # e.g. a mean of floats, summed two ways
    assert not informative(noisy, SamplingConfig().tolerance)
    rows, _ = loss_rows([noisy], skip_zero_variance=True)
    assert len(rows) == 3, "equality by value lets it through: the tolerance is what drops it"
    assert informative([judged(0.3), judged(0.31)], SamplingConfig().tolerance)


def test_the_filter_reads_the_verdict_before_shaping() -> None:
    """All wrong, of different lengths: the overlong penalty makes the rewards differ, the verdicts do not."""
    wrong = [judged(0.0, length=n) for n in (2, 7, 8)]
    shape_overlong([wrong], max_len=8, buffer=4)
    assert [r.reward for r in wrong] == [0.0, -0.75, -1.0]
    assert [r.verdict_reward for r in wrong] == [0.0, 0.0, 0.0]
    assert not informative(wrong)
    rows, _ = loss_rows([wrong], skip_zero_variance=True)
    assert rows == [], "skip_zero_variance_groups reads the verdicts too"


def test_the_overlong_penalty_is_a_reward_part_the_verdict_shows() -> None:
    assert [overlong_penalty(n, max_len=20, buffer=4) for n in (16, 17, 18, 20, 21)] == [0.0, -0.25, -0.5, -1.0, -1.0]
    r = judged(1.0, length=19)
    unjudged = Rollout([1], ids=[2] * 30, mask=[1] * 30, reward=None)
    shape_overlong([[r, unjudged]], max_len=20, buffer=4)
    assert r.reward == pytest.approx(0.25) and r.judgement is not None
    assert r.judgement.reward == pytest.approx(0.25) and r.judgement.reward_parts["overlong"] == pytest.approx(-0.75)
    assert r.reward_parts["overlong"] == pytest.approx(-0.75) and r.correct is True  # the verdict itself stands
    assert unjudged.reward is None and unjudged.shaping == 0.0
    assert SamplingConfig().overlong_lengths(256) == (256, 51)
    assert SamplingConfig(overlong_max=100, overlong_buffer=10).overlong_lengths(256) == (100, 10)


# -- refill ---------------------------------------------------------------------------------------
def _roll(informative_seeds: Any) -> Any:
    calls: list[tuple[list[int], int]] = []

    def roll(seeds: list[int], round_: int) -> list[list[Rollout]]:
        calls.append((list(seeds), round_))
        return [[judged(1.0), judged(0.0 if informative_seeds(s) else 1.0)] for s in seeds]

    return roll, calls


def test_refill_reaches_the_full_count() -> None:
    roll, calls = _roll(lambda s: s % 3 == 0)  # about a third of the groups teach
    sampler = DynamicSampler(SamplingConfig(dynamic=True, max_rounds=10), seed=0)
    first = list(range(1, 9))  # 8 seeds, 2 of them informative (3, 6)
    got = sampler.step(roll, first, step=1)
    assert len(got.trained) == 8 and all(informative(g) for g in got.trained)
    m = got.metrics
    assert m["sampling/groups_kept"] == 8 and m["sampling/rounds"] > 1 and m["sampling/short"] == 0
    assert m["sampling/groups_sampled"] == len(got.sampled) == len(got.seeds) > 8
    assert m["sampling/all_solved_frac"] == pytest.approx(
        1 - sum(informative(g) for g in got.sampled) / len(got.sampled)
    )
    assert m["sampling/all_failed_frac"] == 0.0
    assert calls[0] == (first, 0) and [c[1] for c in calls] == list(range(len(calls)))
    # the next rounds' seeds follow from (seed, step, round): the same again, another step differs
    again, _ = _roll(lambda s: s % 3 == 0)
    assert DynamicSampler(SamplingConfig(dynamic=True, max_rounds=10), seed=0).step(again, first, 1).seeds == got.seeds
    other = DynamicSampler(SamplingConfig(dynamic=True, max_rounds=10), seed=0).step(
        _roll(lambda s: s % 3 == 0)[0], first, 2
    )
    assert other.seeds[8:] != got.seeds[8:]
    # off: one round, everything trains, no sampling/* metrics
    plain = DynamicSampler(SamplingConfig(), seed=0).step(roll, first, step=1)
    assert len(plain.trained) == 8 and plain.metrics == {}


def test_the_rounds_limit_trains_on_what_there_is_and_says_so_once(caplog: pytest.LogCaptureFixture) -> None:
    roll, calls = _roll(lambda s: s == 5)  # one informative group in the first round, none after
    sampler = DynamicSampler(SamplingConfig(dynamic=True, max_rounds=3), seed=0, world=1)
    with caplog.at_level(logging.WARNING, logger="trainer"):
        got = sampler.step(roll, list(range(1, 9)), step=1)
        again = sampler.step(roll, list(range(1, 9)), step=2)
    assert len(calls) == 6 and got.metrics["sampling/rounds"] == 3 and got.metrics["sampling/short"] == 1
    assert len(got.trained) == 1 and again.metrics["sampling/groups_kept"] == 1
    assert sum("informative groups after 3 sampling rounds" in r.getMessage() for r in caplog.records) == 1
    # under torchrun the kept count is a multiple of the world (every rank trains the same share)
    two = DynamicSampler(SamplingConfig(dynamic=True, max_rounds=3), seed=0, world=2).step(roll, list(range(1, 9)), 1)
    assert two.trained == [] and all(len(c[0]) % 2 == 0 for c in calls[6:])


# -- the config part ------------------------------------------------------------------------------
def test_sampling_is_one_typed_part_with_a_table_and_flags(tmp_path: Path) -> None:
    import argparse

    from trainer.config import add_config_flags, config_from_args

    assert GRPOConfig(sampling={"dynamic": True}).sampling == SamplingConfig(dynamic=True)
    dapo = load_config(preset="dapo")
    assert dapo.sampling.dynamic and dapo.sampling.overlong and dapo.mask_truncated_completions
    assert GRPOConfig().sampling == SamplingConfig() and not GRPOConfig().sampling.dynamic
    file = tmp_path / "c.toml"
    file.write_text('preset = "dapo"\n[sampling]\nmax_rounds = 8\n')
    cfg = load_config(file)
    assert cfg.sampling == SamplingConfig(dynamic=True, overlong=True, max_rounds=8), (
        "the table merges over the preset's"
    )
    parser = argparse.ArgumentParser()
    add_config_flags(parser)
    args = parser.parse_args(["--config", str(file), "--sampling-tolerance", "0.01", "--sampling-overlong", "false"])
    cfg = config_from_args(args)
    assert (cfg.sampling.max_rounds, cfg.sampling.tolerance, cfg.sampling.overlong) == (8, 0.01, False)
    assert json.loads(json.dumps(cfg.to_dict()))["sampling"]["max_rounds"] == 8
    with pytest.raises(TrainerError, match="sampling has unknown key 'max_round' .did you mean 'max_rounds'"):
        GRPOConfig(sampling={"max_round": 2})
    with pytest.raises(TrainerError, match="max_rounds must be >= 1"):
        load_config(overrides={"sampling": '{"max_rounds": 0}'})


# -- the trainer ----------------------------------------------------------------------------------
def _config(tmp_path: Path, name: str, **overrides: Any) -> GRPOConfig:
    values: dict[str, Any] = dict(
        env="grpo_envs/Digits-v0",
        steps=2,
        prompts_per_step=4,
        num_generations=4,
        max_new_tokens=2,
        learning_rate=1e-2,
        beta=0.0,
        output_dir=str(tmp_path / name),
        save_every=1,
        eval_prompts=2,
        device="cpu",
        sampling={"dynamic": True, "max_rounds": 8, "overlong": True, "overlong_max": 2, "overlong_buffer": 1},
    )
    return GRPOConfig.from_dict({**values, **overrides})


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_the_trainer_refills_shapes_and_resumes_exactly(tmp_path: Path) -> None:
    from trainer.grpo import GRPOTrainer

    cfg = _config(tmp_path, "straight")
    GRPOTrainer(cfg, show_progress=False, rollout_log=True).train()
    log = _rows(tmp_path / "straight" / "metrics.jsonl")
    for row in log:
        assert row["sampling/groups_kept"] == 4 and row["sampling/short"] == 0, row
        assert row["sampling/groups_sampled"] > 4 and row["sampling/rounds"] > 1, "Digits at 2 tokens needs refills"
        assert row["reward/overlong"] < 0 and row["grad_norm"] > 0
    logged = _rows(tmp_path / "straight" / "rollouts.jsonl")
    assert len(logged) == sum(r["sampling/groups_sampled"] for r in log) * 4, "every sampled group is in the log"
    assert len({(r["step"], r["task_seed"]) for r in logged}) == len(logged) // 4
    # a checkpoint after step 1, then --resume to step 2: the same step 2, bit for bit
    GRPOTrainer(cfg.replace(output_dir=str(tmp_path / "resumed"), steps=1), show_progress=False).train()
    GRPOTrainer(cfg.replace(output_dir=str(tmp_path / "resumed")), resume=True, show_progress=False).train()
    assert _rows(tmp_path / "resumed" / "metrics.jsonl")[1:] == [{k: v for k, v in log[1].items() if k != "run_id"}]


def test_a_run_written_before_the_sampling_part_still_resumes(tmp_path: Path) -> None:
    from trainer.run._rundir import open_run

    saved = GRPOConfig(output_dir=str(tmp_path / "run")).to_dict()
    del saved["sampling"]  # as runs were written before it existed
    state = tmp_path / "run" / "checkpoints" / "step-000002"
    state.mkdir(parents=True)
    (state / "trainer_state.json").write_text(json.dumps({"config": saved, "run_id": "abc", "step": 2}))
    now = GRPOConfig(output_dir=str(tmp_path / "run"), steps=5).to_dict()
    plan = open_run(tmp_path / "run", config=now, resume=True)
    assert plan.run_id == "abc" and plan.checkpoint == state
    with pytest.raises(TrainerError, match="sampling differ"):  # but not with other sampling settings
        open_run(tmp_path / "run", config={**now, "sampling": {**now["sampling"], "dynamic": True}}, resume=True)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["ddp", "fsdp"])
def test_ddp_ranks_agree_on_the_kept_groups(tmp_path: Path, mode: str) -> None:
    """2 DDP (or FSDP) ranks, each sampling its own share of every round: the decision is made on the
    gathered groups, so both ranks keep the same count and each trains half of it (no rank waits on
    a collective the other skips)."""
    from tests.trainer.test_scale import WORKER, _torchrun

    _torchrun(str(WORKER), str(tmp_path), f"dynamic-{mode}", timeout=300)
    ranks = [json.loads((tmp_path / f"dynamic-{mode}-{r}.json").read_text()) for r in (0, 1)]
    assert ranks[0]["decided"] == ranks[1]["decided"] and len(ranks[0]["decided"]) == 2
    for decided in ranks[0]["decided"]:
        assert decided["sampling/groups_kept"] == 4 and decided["sampling/rounds"] > 1, decided
        assert len(decided["seeds"]) == decided["sampling/groups_sampled"]
    assert ranks[0]["share"] == ranks[1]["share"] == [2, 2]
    assert len((tmp_path / f"dynamic-{mode}" / "metrics.jsonl").read_text().splitlines()) == 2


@pytest.mark.slow
def test_async_refills_are_more_jobs_from_the_same_weights_version(tmp_path: Path) -> None:
    """k = 1: a refill of step t is one more job, sampled from weights version t - 1 like the step's
    first batch (the behaviour log-probs say which weights sampled), and the run does not depend on
    how many workers share the jobs: 1 or 2 workers give the same numbers, bit for bit."""
    from tests.trainer.test_async import _behaviour_matches, config
    from trainer.grpo import GRPOTrainer
    from trainer.workers._async import version_for

    def run(name: str, workers: int) -> tuple[list[dict[str, Any]], list[Any], list[Any], GRPOTrainer]:
        cfg = config(tmp_path, name, steps=3, async_workers=workers, sampling={"dynamic": True, "max_rounds": 8})
        trainer = GRPOTrainer(cfg, show_progress=False)
        assert trainer.workers is not None
        take, batches = trainer.workers.take, []
        versions = [{k: v.clone() for k, v in trainer.model.state_dict().items()}]
        trainer.workers.take = lambda *a: batches.append(take(*a)) or batches[-1]  # type: ignore[method-assign]
        metrics = []
        try:
            for _ in range(cfg.steps):
                metrics.append(trainer.step())
                versions.append({k: v.clone() for k, v in trainer.model.state_dict().items()})
        finally:
            trainer.close()
        return metrics, batches, versions, trainer

    metrics, batches, versions, trainer = run("one", 1)
    assert [m["sampling/groups_kept"] for m in metrics] == [4, 4, 4]
    refills = [b for b in batches if b.round > 0]
    assert refills and sum(m["sampling/rounds"] for m in metrics) == len(batches)
    for b in batches:
        assert b.version == version_for(b.step, 1)
        assert _behaviour_matches(trainer, b, versions[b.version]), (b.step, b.round)
    moved = [b for b in refills if b.step >= 2]  # the learner's weights had moved on by then
    assert all(not _behaviour_matches(trainer, b, versions[b.step]) for b in moved)
    two, _, _, _ = run("two", 2)
    assert two == metrics


# -- the curriculum -------------------------------------------------------------------------------
def test_the_curriculum_raises_and_lowers_on_the_windows_correct_rate() -> None:
    from trainer.sampling._curriculum import Curriculum

    c = Curriculum(SamplingConfig(curriculum=True, level_window=3, level_up=0.8, level_down=0.2), levels=3)
    seen = [c.observe(rate)["sampling/level"] for rate in (0.9, 0.9, 0.5, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9)]
    assert seen == [0, 0, 0, 0, 0, 0, 1, 1, 1] and c.level == 2, "a full window at 0.8 or more raises it"
    for rate in (1.0,) * 6:
        c.observe(rate)
    assert c.level == 2, "never above the hardest level"
    for rate in (0.3, 0.1, 0.1, 0.1):
        c.observe(rate)
    assert c.level == 1 and c.history == [1, 2, 1] and c.window == [0.1], "a window under 0.2 lowers it"
    resumed = Curriculum(c.cfg, levels=3)
    c.observe(0.5)
    resumed.load(json.loads(json.dumps(c.state())))
    assert (resumed.level, resumed.window) == (1, [0.1, 0.5])


def test_envs_declare_their_levels() -> None:
    import gymnasium

    import grpo_envs  # noqa: F401
    from grpo_envs import EnvConfigError

    for name in ("Digits", "Arithmetic", "Countdown", "LinearEquations", "Sorting", "ModularArithmetic"):
        env = gymnasium.make(f"grpo_envs/{name}-v0").unwrapped
        assert len(env.levels) >= 3, name
        prompts = []
        for level in range(len(env.levels)):
            env.set_level(level)
            prompts.append(tuple(env.reset(seed=s)[0] for s in range(4)))
        assert len(set(prompts)) == len(prompts), f"{name}: each level makes other tasks"
        with pytest.raises(EnvConfigError, match="level must be an index into its"):
            env.set_level(len(env.levels))
    digits = gymnasium.make("grpo_envs/Digits-v0", ops="csmp").unwrapped
    digits.set_level(0)
    assert {digits.reset(seed=s)[0][0] for s in range(20)} == {"c"}


def test_the_trainer_follows_the_curriculum_and_resumes_it(tmp_path: Path) -> None:
    from tests.trainer.test_trainer import EchoDigit
    from trainer.grpo import GRPOTrainer

    curriculum = {"curriculum": True, "level_window": 1, "level_up": 0.05, "level_down": 0.0}
    cfg = _config(tmp_path, "straight", steps=3, env_kwargs={"ops": "csmp"}, sampling=curriculum)
    GRPOTrainer(cfg, show_progress=False, rollout_log=True).train()
    log = _rows(tmp_path / "straight" / "metrics.jsonl")
    levels = [r["sampling/level"] for r in log]
    assert levels[0] == 0 and levels != [0, 0, 0], "a correct rate of 5% or more raises the level"
    ops = ("c", "cs", "csm", "csmp")  # Digits' levels
    for row in _rows(tmp_path / "straight" / "rollouts.jsonl"):  # the log shows the tasks of each step's level
        assert row["prompt"][0] in ops[levels[row["step"] - 1]], row
    GRPOTrainer(cfg.replace(output_dir=str(tmp_path / "resumed"), steps=2), show_progress=False).train()
    state = json.loads((tmp_path / "resumed" / "checkpoints" / "step-000002" / "trainer_state.json").read_text())
    assert state["sampling"]["curriculum"]["level"] == levels[2], "the checkpoint holds the level of the next step"
    GRPOTrainer(cfg.replace(output_dir=str(tmp_path / "resumed")), resume=True, show_progress=False).train()
    assert _rows(tmp_path / "resumed" / "metrics.jsonl")[2:] == [{k: v for k, v in log[2].items() if k != "run_id"}]
    with pytest.raises(TrainerError, match="declares no difficulty levels"):
        GRPOTrainer(_config(tmp_path, "plain", sampling=curriculum), env=lambda: EchoDigit(), show_progress=False)


# -- the pass-rate filter -------------------------------------------------------------------------
def test_the_pass_rate_filter_replaces_always_and_never_solved_tasks() -> None:
    from trainer.sampling._pass_rates import PassRates

    cfg = SamplingConfig(pass_rate_filter=True, skip_above=0.9, skip_below=0.1, revisit_after=5)
    rates = PassRates(cfg, task_of=lambda s: f"t{s % 10}", seed=0)  # 10 tasks that recur
    groups = [[judged(1.0), judged(1.0)], [judged(0.0), judged(0.0)], [judged(1.0), judged(0.0)]]
    rates.record([1, 2, 3], groups, step=1)
    assert rates.table == {"t1": (1.0, 1), "t2": (0.0, 1), "t3": (0.5, 1)}
    picked = rates.pick([11, 12, 13, 14], step=2, round_=0)
    assert picked[2:] == [13, 14] and picked[0] % 10 not in (1, 2) and picked[1] % 10 not in (1, 2)
    rates.skipped += sum(a != b for a, b in zip(picked, [11, 12, 13, 14], strict=True))  # the step counts them
    assert rates.metrics() == {"sampling/tasks_skipped": 2, "sampling/tasks_tracked": 3}
    assert rates.pick([11, 12], step=6, round_=0) == [11, 12], "revisited after 5 steps"
    again = PassRates(cfg, task_of=lambda s: f"t{s % 10}", seed=0)
    again.load(json.loads(json.dumps(rates.state())))
    assert again.table == rates.table and again.pick([11, 12, 13, 14], step=2, round_=0) == picked


def test_the_trainer_skips_tasks_it_never_solves_and_resumes_the_table(tmp_path: Path) -> None:
    from trainer.grpo import GRPOTrainer

    edge = {"pass_rate_filter": True, "skip_above": 1.0, "skip_below": 0.0, "revisit_after": 50}
    cfg = _config(tmp_path, "straight", steps=3, env_kwargs={"ops": "c"}, sampling=edge)  # 10 tasks: c0..c9
    GRPOTrainer(cfg, show_progress=False, rollout_log=True).train()
    log = _rows(tmp_path / "straight" / "metrics.jsonl")
    assert sum(r["sampling/tasks_skipped"] for r in log) > 0 and log[0]["sampling/tasks_skipped"] == 0
    rates: dict[tuple[int, str], list[bool]] = {}
    for row in _rows(tmp_path / "straight" / "rollouts.jsonl"):
        rates.setdefault((row["step"], row["task_id"]), []).append(row["correct"] is True)
    for (step, task), _ in rates.items():  # a task never solved when last seen is not drawn again
        before = [any(v) for (t, name), v in sorted(rates.items()) if name == task and t < step]
        assert not before or before[-1], (step, task)
    GRPOTrainer(cfg.replace(output_dir=str(tmp_path / "resumed"), steps=2), show_progress=False).train()
    state = json.loads((tmp_path / "resumed" / "checkpoints" / "step-000002" / "trainer_state.json").read_text())
    assert state["sampling"]["pass_rates"], "the checkpoint holds the table"
    GRPOTrainer(cfg.replace(output_dir=str(tmp_path / "resumed")), resume=True, show_progress=False).train()
    assert _rows(tmp_path / "resumed" / "metrics.jsonl")[2:] == [{k: v for k, v in log[2].items() if k != "run_id"}]


def test_task_ids_are_read_at_the_level_in_use() -> None:
    import gymnasium

    import grpo_envs  # noqa: F401
    from trainer.sampling._pass_rates import task_id_of

    env = gymnasium.make("grpo_envs/Digits-v0", ops="csmp")
    task_of = task_id_of(env)
    env.unwrapped.set_level(0)
    assert all(task_of(s) == task_of(s) and task_of(s).startswith("digits-c") for s in range(20))
    env.unwrapped.set_level(3)
    assert any(not task_of(s).startswith("digits-c") for s in range(20)), "a level is a new key, not the old id"
    for s in range(20):
        env.reset(seed=s)
        assert task_of(s) == env.unwrapped.task.task_id


def test_the_reasoning_gym_wrapper_takes_its_datasets_curriculum_levels() -> None:
    pytest.importorskip("reasoning_gym")
    import gymnasium

    import grpo_envs  # noqa: F401

    env = gymnasium.make("grpo_envs/ReasoningGym-v0", dataset="leg_counting", size=50).unwrapped
    plain = [env.reset(seed=s)[0] for s in range(6)]
    assert len(env.levels) >= 10, "leg_counting's curriculum: up to 36 animals"
    env.set_level(0)
    easy = [env.reset(seed=s)[0] for s in range(6)]
    assert env.task.task_id.startswith("rg-leg_counting-train-L0-")
    env.set_level(len(env.levels) - 1)
    hard = [env.reset(seed=s)[0] for s in range(6)]
    assert len(set(easy) | set(hard)) == 12 and hard != plain
    assert sum(map(len, hard)) > sum(map(len, easy)), "more animals: longer questions"
    assert env.step(f"\\boxed{{{env.reference_answer(env.task)}}}")[1] == 1.0, "the level's own answers are right"
    fresh = gymnasium.make("grpo_envs/ReasoningGym-v0", dataset="leg_counting", size=50).unwrapped
    fresh.reset(seed=0)
    assert re.fullmatch(r"rg-leg_counting-train-\d+", fresh.task.task_id), "no level set: the ids as before"
