"""The curriculum and the pass-rate filter with rollout workers (``async_level = k``): a job's level
and task seeds are fixed when it is sent (`trainer.sampling._dynamic.DynamicSampler.plan`), both move with
each batch as it comes back, and a checkpoint holds the plans of the jobs in flight."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.trainer.test_async import config
from trainer.grpo import GRPOTrainer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
OPS = ("c", "cs", "csm", "csmp")  # Digits' levels


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _run(cfg: Any) -> tuple[list[dict[str, Any]], list[Any], GRPOTrainer]:
    """Step ``cfg`` through, keeping every batch the workers sent back."""
    trainer = GRPOTrainer(cfg, show_progress=False, rollout_log=True)
    assert trainer.workers is not None
    take, batches = trainer.workers.take, []
    trainer.workers.take = lambda *a: batches.append(take(*a)) or batches[-1]  # type: ignore[method-assign]
    try:
        metrics = [trainer.step() for _ in range(cfg.steps)]
    finally:
        trainer.close()
    return metrics, batches, trainer


@pytest.mark.slow
def test_async_the_curriculum_raises_and_lowers_its_level_from_the_batches_that_come_back(tmp_path: Path) -> None:
    """k = 1: a step's level is the one the learner had when its job was sent, after step t - 2; a
    move is seen one step later, and a batch sampled at a level since left does not count."""
    up = {"curriculum": True, "level_window": 1, "level_up": 0.0, "level_down": 0.0}  # every counted step raises it
    metrics, batches, trainer = _run(config(tmp_path, "up", env_kwargs={"ops": "csmp"}, sampling=up))
    assert [m["sampling/level"] for m in metrics] == [0, 0, 1, 1]
    prompts = [trainer.tokenizer.decode(b.groups[0][0].prompt_ids) for b in batches]
    for b in batches:  # the workers rolled out at the job's level
        level = metrics[b.step]["sampling/level"]
        assert all(trainer.tokenizer.decode(g[0].prompt_ids)[0] in OPS[level] for g in b.groups), (b.step, prompts)
    assert any(trainer.tokenizer.decode(g[0].prompt_ids)[0] == "s" for b in batches[2:] for g in b.groups)
    for row in _rows(tmp_path / "up" / "rollouts.jsonl"):
        assert row["prompt"][0] in OPS[metrics[row["step"] - 1]["sampling/level"]], row
    down = {"curriculum": True, "level_window": 1, "level_up": 1.0, "level_down": 1.0, "start_level": 3}
    metrics, _, _ = _run(config(tmp_path, "down", env_kwargs={"ops": "csmp"}, sampling=down))
    assert all(m["correct_rate"] < 1.0 for m in metrics), "an untrained model: every counted step lowers it"
    assert [m["sampling/level"] for m in metrics] == [3, 3, 2, 2]


@pytest.mark.slow
def test_async_the_pass_rate_filter_skips_tasks_by_the_table_the_learner_had_when_it_sent_the_job(
    tmp_path: Path,
) -> None:
    """k = 1 on Digits' 10 copy tasks: a task solved at least half the time, or never, when last seen
    in a batch that had come back when the job was sent (steps up to t - 2) is not drawn."""
    edge = {"pass_rate_filter": True, "skip_above": 0.5, "skip_below": 0.0, "revisit_after": 50}
    metrics, _, _ = _run(config(tmp_path, "edge", steps=5, env_kwargs={"ops": "c"}, sampling=edge))
    skipped = [m["sampling/tasks_skipped"] for m in metrics]
    assert skipped[:2] == [0, 0] and sum(skipped) > 0, "steps 1 and 2 were planned before any batch came back"
    seen: dict[tuple[int, str], float] = {}
    for row in _rows(tmp_path / "edge" / "rollouts.jsonl"):
        seen.setdefault((row["step"], row["task_id"]), 0.0)
        seen[row["step"], row["task_id"]] += (row["correct"] is True) / 4
    for step, task in seen:
        known = [rate for (t, name), rate in sorted(seen.items()) if name == task and t <= step - 2]
        assert not known or 0.0 < known[-1] < 0.5, (step, task, known)
    assert metrics[-1]["sampling/tasks_tracked"] == len({task for _, task in seen})


@pytest.mark.slow
def test_async_resume_continues_the_curriculum_the_table_and_the_jobs_in_flight_bit_for_bit(tmp_path: Path) -> None:
    """k = 2, both on: the checkpoint after step 2 holds the plans of steps 3-5 (step 3's made before
    the level moved), so the resumed run sends the same jobs and logs the same numbers."""
    sampling = {"curriculum": True, "level_window": 1, "level_up": 0.0, "level_down": 0.0, "pass_rate_filter": True,
                "skip_above": 0.5, "skip_below": 0.0}  # fmt: skip
    cfg = config(tmp_path, "straight", async_level=2, save_every=1, env_kwargs={"ops": "csmp"}, sampling=sampling)
    GRPOTrainer(cfg, show_progress=False).train()
    straight = _rows(tmp_path / "straight" / "metrics.jsonl")
    assert [r["sampling/level"] for r in straight] == [0, 0, 0, 1]
    GRPOTrainer(cfg.replace(output_dir=str(tmp_path / "resumed"), steps=2), show_progress=False).train()
    state = json.loads((tmp_path / "resumed" / "checkpoints" / "step-000002" / "trainer_state.json").read_text())
    GRPOTrainer(cfg.replace(output_dir=str(tmp_path / "resumed")), resume=True, show_progress=False).train()
    resumed = _rows(tmp_path / "resumed" / "metrics.jsonl")
    assert resumed[2:] == [{k: v for k, v in row.items() if k != "run_id"} for row in straight[2:]]
    plans = state["sampling"]["plans"]
    assert sorted(plans) == ["3", "4", "5"] and [plans[t][1] for t in ("3", "4", "5")] == [0, 1, 1]
    assert state["sampling"]["curriculum"]["level"] == 1


@pytest.mark.slow
def test_ddp_ranks_sharing_rank_0s_worker_hold_the_same_level_table_and_plans(tmp_path: Path) -> None:
    """2 DDP ranks, k = 1: every rank plans the same steps at the same points, so after each step both
    hold rank 0's level, table and plans, and the run logs what one process logs."""
    from tests.trainer._dist_worker import ASYNC, EDGE
    from tests.trainer.test_scale import WORKER, _torchrun
    from trainer.config import GRPOConfig

    _torchrun(str(WORKER), str(tmp_path), "async-edge", timeout=400)
    ranks = [json.loads((tmp_path / f"edge-{rank}.json").read_text()) for rank in (0, 1)]
    assert ranks[0] == ranks[1] and len(ranks[0]) == 3
    assert [s["sampling"]["curriculum"]["level"] for s in ranks[0]] == [1, 1, 2]
    cfg = GRPOConfig.from_dict({**ASYNC, "save_every": 0, "env_kwargs": {"ops": "csmp"}, "sampling": EDGE,
                                "output_dir": str(tmp_path / "one")})  # fmt: skip
    GRPOTrainer(cfg, show_progress=False).train()
    keys = ("sampling/level", "sampling/tasks_skipped", "sampling/tasks_tracked", "correct_rate")
    one, ddp = _rows(tmp_path / "one" / "metrics.jsonl"), _rows(tmp_path / "edge" / "metrics.jsonl")
    assert [[r[k] for k in keys] for r in ddp] == [[r[k] for k in keys] for r in one]
    assert [r["sampling/level"] for r in one] == [0, 0, 1]


def test_the_pass_rate_filter_reads_verdicts_before_shaping() -> None:
    """Shaped right answers (overlong: reward 0 after the penalty) are still solved for the table."""
    from tests.trainer.test_dynamic import judged
    from trainer.sampling._config import SamplingConfig
    from trainer.sampling._pass_rates import PassRates
    from trainer.sampling._shaping import shape_overlong

    groups = [[judged(1.0, length=9), judged(1.0, length=9)], [judged(0.0, length=1), judged(1.0, length=1)]]
    shape_overlong(groups, max_len=4, buffer=2)
    assert [r.reward for r in groups[0]] == [0.0, 0.0]
    rates = PassRates(SamplingConfig(pass_rate_filter=True), task_of=str, seed=0)
    rates.record([1, 2], groups, step=1)
    assert rates.table == {"1": (1.0, 1), "2": (0.5, 1)} and rates.skip("1", step=2) and not rates.skip("2", step=2)
