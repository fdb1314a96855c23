"""Run by tests/trainer/test_scale.py, alone or under torchrun: one GRPO update per case on a
fixed global batch of rollouts; rank 0 writes the gradients and weights after the update. Mode
"async" (tests/trainer/test_async.py): learners under torchrun sharing rank 0's rollout workers."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

CASES: dict[str, dict[str, Any]] = {
    # micro-batches of 3 over 8 rows per rank: gradient accumulation across no_sync passes
    "grpo": {"loss_type": "grpo", "beta": 0.04, "micro_batch_size": 3},
    # rank 1's groups all have equal rewards: it has no rows and joins with a zero-weight row
    "dapo_skip": {"loss_type": "dapo", "beta": 0.0, "skip_zero_variance_groups": True, "micro_batch_size": 4},
    "dr_grpo": {"loss_type": "dr_grpo", "beta": 0.04, "micro_batch_size": 16, "scale": "none"},
    # two iterations (the second off-policy, so the clips act), and the rows carry sampler log-probs: the
    # importance weights (a sequence mode, a token mode with both bounds) enter the update
    "gspo": {
        "loss_type": "gspo",
        "epsilon": (3e-4, 4e-4),
        "beta": 0.0,
        "micro_batch_size": 3,
        "num_iterations": 2,
        "importance_sampling_mode": "sequence_mask",
        "importance_sampling_clip_min": 0.5,
    },
    "cispo": {
        "loss_type": "cispo",
        "epsilon": (1.0, 4.0),
        "beta": 0.04,
        "micro_batch_size": 5,
        "num_iterations": 2,
        "importance_sampling_mode": "token_truncate",
        "importance_sampling_clip_min": 0.8,
        "importance_sampling_clip_max": 1.25,
    },
}


def groups(vocab: int, case: str) -> list[list[Any]]:
    """4 groups x 4 completions of different lengths; the same on every rank."""
    from trainer.rollouts._rollout import Rollout

    rng = random.Random(7)
    out = []
    for p in range(4):
        prompt = [rng.randrange(4, vocab) for _ in range(rng.randint(2, 5))]
        group = []
        for _ in range(4):
            ids = [rng.randrange(4, vocab) for _ in range(rng.randint(1, 4))]
            reward = float(rng.random() < 0.5) if not (case == "dapo_skip" and p >= 2) else 1.0
            row = Rollout(prompt_ids=prompt, ids=ids, mask=[1] * len(ids), reward=reward)
            if "importance_sampling_mode" in CASES[case]:  # near the tiny model's own ~-log(vocab)
                row.sampler_logps = [-2.8 + rng.uniform(-0.6, 0.6) for _ in ids]
            group.append(row)
        group[0].reward = 1.0 if case != "dapo_skip" or p < 2 else group[0].reward
        group[1].reward = 0.0 if case != "dapo_skip" or p < 2 else group[1].reward
        out.append(group)
    return out


def main(out_dir: str, mode: str, cases: list[str]) -> None:
    import torch

    from trainer._distributed import unwrap
    from trainer.config import GRPOConfig
    from trainer.grpo import GRPOTrainer

    torch.set_num_threads(1)
    for case in cases:
        cfg = GRPOConfig(
            steps=1,
            prompts_per_step=4,
            num_generations=4,
            max_new_tokens=4,
            learning_rate=1e-3,
            device="cpu",
            output_dir=str(Path(out_dir) / f"run-{case}-{mode}"),
            save_every=0,
            distributed=mode,
            **CASES[case],
        )
        trainer = GRPOTrainer(cfg, env="grpo_envs/Digits-v0", show_progress=False)
        batch = groups(len(trainer.tokenizer), case)
        metrics = trainer._update(trainer.dist.shard(batch))
        grads, weights = {}, {}
        for name, param in unwrap(trainer.model).named_parameters():
            grad, value = param.grad, param.detach()
            if hasattr(value, "full_tensor"):  # FSDP: gather the shards (every rank takes part)
                grad = grad.full_tensor() if grad is not None else None
                value = value.full_tensor()
            grads[name] = grad.clone() if grad is not None else None
            weights[name] = value.clone()
        if trainer.dist.main:
            world = trainer.dist.world
            torch.save({"grads": grads, "weights": weights}, Path(out_dir) / f"{case}-{mode}-{world}.pt")
            (Path(out_dir) / f"{case}-{mode}-{world}.json").write_text(json.dumps(metrics))


def generate_fsdp(out_dir: str) -> None:
    """Train 3 steps with FSDP and variable-length sampling: a model that often says EOS, so the
    ranks' generations stop at different lengths (each rank records its own)."""
    import torch

    from trainer.config import GRPOConfig
    from trainer.generation import _transformers as _generation
    from trainer.grpo import GRPOTrainer
    from trainer.policy._model import demo_model, demo_tokenizer

    torch.set_num_threads(1)
    tok = demo_tokenizer("0123456789csmp=")
    model = demo_model(len(tok), seed=1)
    with torch.no_grad():  # tied embeddings: a long EOS row makes EOS likely after many contexts
        emb = model.get_input_embeddings().weight
        emb[tok.eos_token_id] = emb[tok.eos_token_id] / emb[tok.eos_token_id].norm() * 2
    lengths: list[int] = []
    real = _generation.TransformersGenerator._call

    def record(self: Any, chunk: list[list[int]], max_new_tokens: int, sampling: dict[str, Any]) -> list[list[int]]:
        rows = real(self, chunk, max_new_tokens, sampling)
        stopped = [next((k + 1 for k, t in enumerate(r) if t in self.eos), len(r)) for r in rows]
        lengths.append(max(stopped))
        return rows

    _generation.TransformersGenerator._call = record  # type: ignore[method-assign]
    cfg = GRPOConfig(
        steps=3,
        prompts_per_step=4,
        num_generations=4,
        max_new_tokens=24,
        learning_rate=1e-3,
        device="cpu",
        output_dir=str(Path(out_dir) / "run-fsdp-generate"),
        save_every=0,
        distributed="fsdp",
        beta=0.04,
        eval_prompts=4,
    )
    trainer = GRPOTrainer(cfg, model=model, tokenizer=tok, env="grpo_envs/Digits-v0", show_progress=False)
    for _ in range(cfg.steps):
        trainer.step()
    trainer.evaluate()
    rank = trainer.dist.rank
    (Path(out_dir) / f"fsdp-generate-{rank}.json").write_text(json.dumps(lengths))


# async_level = 1, 3 steps: each run's metrics.jsonl and final/ match one process's (test_async.py)
ASYNC: dict[str, Any] = {
    "steps": 3,
    "prompts_per_step": 4,
    "num_generations": 4,
    "max_new_tokens": 2,
    "learning_rate": 1e-3,
    "beta": 0.0,
    "eval_prompts": 2,
    "device": "cpu",
    "env": "grpo_envs/Digits-v0",
    "async_level": 1,
}


def async_runs(out_dir: str) -> None:
    """DDP learners: 2 steps (a checkpoint holding weights version 1), then resumed to 3; FSDP
    learners: 3 steps straight. Rank 0's one rollout worker serves both ranks."""
    from trainer.config import GRPOConfig
    from trainer.grpo import GRPOTrainer

    ddp = GRPOConfig.from_dict({**ASYNC, "steps": 2, "save_every": 2, "output_dir": str(Path(out_dir) / "ddp")})
    trainer = GRPOTrainer(ddp, show_progress=False)
    assert trainer.workers is not None
    seen: dict[str, list[Any]] = {"batch": [], "share": []}  # each step's prompts: rank 0's batch, this rank's share
    take, update = trainer.workers.take, trainer._update

    def took(step: int) -> Any:
        got = take(step)
        seen["batch"].append([g[0].prompt_ids for g in got.groups])
        return got

    def updated(groups: list[list[Any]]) -> dict[str, float]:
        seen["share"].append([g[0].prompt_ids for g in groups])
        return update(groups)

    trainer.workers.take, trainer._update = took, updated  # type: ignore[method-assign]
    trainer.train()
    (Path(out_dir) / f"ddp-seen-{trainer.dist.rank}.json").write_text(json.dumps(seen))
    GRPOTrainer(ddp.replace(steps=3), show_progress=False, resume=True).train()
    fsdp = GRPOConfig.from_dict(
        {**ASYNC, "save_every": 0, "distributed": "fsdp", "output_dir": str(Path(out_dir) / "fsdp")}
    )
    GRPOTrainer(fsdp, show_progress=False).train()


def dynamic_runs(out_dir: str, mode: str) -> None:
    """Dynamic sampling with refill under torchrun (tests/trainer/test_dynamic.py): 2 steps; each rank
    records, per step, the sampling metrics it decided on and the groups of its share of the update."""
    import torch

    from trainer.config import GRPOConfig
    from trainer.grpo import GRPOTrainer

    torch.set_num_threads(1)
    cfg = GRPOConfig.from_dict({
        **ASYNC, "async_level": 0, "steps": 2, "save_every": 0, "distributed": mode,
        "output_dir": str(Path(out_dir) / f"dynamic-{mode}"), "sampling": {"dynamic": True, "max_rounds": 8},
    })  # fmt: skip
    trainer = GRPOTrainer(cfg, show_progress=False)
    seen: dict[str, list[Any]] = {"decided": [], "share": []}
    rollouts, update = trainer._step_rollouts, trainer._update

    def rolled(step: int) -> Any:
        got = rollouts(step)
        seen["decided"].append({**got[0].metrics, "seeds": got[0].seeds})
        return got

    def updated(groups: list[list[Any]]) -> dict[str, float]:
        seen["share"].append(len(groups))
        return update(groups)

    trainer._step_rollouts, trainer._update = rolled, updated  # type: ignore[method-assign]
    trainer.train()
    (Path(out_dir) / f"dynamic-{mode}-{trainer.dist.rank}.json").write_text(json.dumps(seen))


EDGE: dict[str, Any] = {"curriculum": True, "level_window": 1, "level_up": 0.0, "level_down": 0.0,
                        "pass_rate_filter": True, "skip_above": 0.5, "skip_below": 0.0}  # fmt: skip


def async_edge_runs(out_dir: str) -> None:
    """The curriculum and the pass-rate filter with rank 0's rollout worker (tests/trainer/test_dynamic_async.py):
    3 steps; each rank records its sampler's state (level, table, plans) after each step."""
    from trainer.config import GRPOConfig
    from trainer.grpo import GRPOTrainer

    cfg = GRPOConfig.from_dict({**ASYNC, "save_every": 0, "env_kwargs": {"ops": "csmp"}, "sampling": EDGE,
                                "output_dir": str(Path(out_dir) / "edge")})  # fmt: skip
    trainer = GRPOTrainer(cfg, show_progress=False)
    states: list[Any] = []
    step = trainer.step

    def stepped() -> dict[str, Any]:
        metrics = step()
        states.append(json.loads(json.dumps(trainer.sampler.state())))
        return metrics

    trainer.step = stepped  # type: ignore[method-assign]
    trainer.train()
    (Path(out_dir) / f"edge-{trainer.dist.rank}.json").write_text(json.dumps(states))


if __name__ == "__main__":
    if sys.argv[2] == "fsdp-generate":
        generate_fsdp(sys.argv[1])
    elif sys.argv[2].startswith("dynamic-"):
        dynamic_runs(sys.argv[1], sys.argv[2].removeprefix("dynamic-"))
    elif sys.argv[2] == "async":
        async_runs(sys.argv[1])
    elif sys.argv[2] == "async-edge":
        async_edge_runs(sys.argv[1])
    else:
        main(sys.argv[1], sys.argv[2], sys.argv[3].split(","))
