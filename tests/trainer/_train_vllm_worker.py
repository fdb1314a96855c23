"""Run by test_train_vllm.py with the vLLM virtualenv's python (the checkout on PYTHONPATH): the
trainer with ``generator="vllm"``. Prints one ``RESULT {json}`` line.

    python _train_vllm_worker.py sync MODEL_DIR OUT         # exact weight sync, with and without LoRA
    python _train_vllm_worker.py resume MODEL_DIR OUT       # 4 steps straight == 2 steps + resume
    python _train_vllm_worker.py learn MODEL_DIR OUT        # the demo's task (model "demo") learns
    python _train_vllm_worker.py sync,resume,... MODEL_DIR OUT  # several, one process (vLLM imports once)
    python _train_vllm_worker.py single MODEL_DIR OUT       # 2 steps in one process ...
    torchrun --nproc_per_node 2 _train_vllm_worker.py ddp MODEL_DIR OUT  # ... and on 2 ranks, an engine each
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import gymnasium
import torch
from gymnasium.spaces import Text

from trainer import GRPOTrainer
from trainer._batch import make_batch, sequence_logps
from trainer.config import GRPOConfig, load_config
from trainer.generation._generator import SamplingParams
from trainer.rollouts._rollout import Rollout

ROOT = Path(__file__).resolve().parents[2]


class Retry(gymnasium.Env[str, str]):
    """Multi-turn: echo the digit after "e"; a wrong reply gets the prompt again, up to 3 turns."""

    def __init__(self) -> None:
        self.observation_space = self.action_space = Text(100, charset="0123456789e=")
        self.digit, self.turn = "0", 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        self.digit, self.turn = str(int(self.np_random.integers(10))), 0
        return f"e{self.digit}=", {}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        self.turn += 1
        ok = action.strip()[:1] == self.digit
        done = ok or self.turn >= 3
        return ("" if done else f"e{self.digit}="), float(ok), done, False, {"correct": ok}


def close(trainer: GRPOTrainer) -> None:
    """Free the trainer's engine (its KV cache) before the next one starts in this process."""
    assert trainer.engine is not None
    trainer.engine.close()


def config(model: str, out: Path, **changes: Any) -> GRPOConfig:
    base: dict[str, Any] = dict(
        model=model,
        env="grpo_envs/Digits-v0",
        env_kwargs={"ops": "cs"},
        output_dir=str(out),
        generator="vllm",
        steps=3,
        prompts_per_step=8,
        num_generations=8,
        max_new_tokens=4,
        learning_rate=1e-2,
        beta=0.0,
        save_every=0,
        eval_prompts=4,
        device="cpu",
    )
    return GRPOConfig(**{**base, **changes})


def fixed_sequence_gap(trainer: GRPOTrainer, prompt: list[int]) -> tuple[float, tuple[list[int], list[float]]]:
    """vLLM samples up to 8 tokens after ``prompt`` (same seed every time; no ``min_new_tokens``:
    vLLM's log-probs would then be of a distribution without EOS); the largest gap between its
    log-probs of them and the trainer's forward, and (the tokens, vLLM's log-probs)."""
    assert trainer.engine is not None
    temperature = trainer.config.temperature
    [c] = trainer.engine.generate([prompt], SamplingParams(8, temperature, 1.0, seeds=(1,)))
    ids, logps = list(c.ids), list(c.logps or ())
    batch = make_batch([Rollout(prompt_ids=prompt, ids=ids, mask=[1] * len(ids))], trainer.tokenizer.pad_token_id)
    with torch.no_grad():
        ours = sequence_logps(trainer.model, batch, slice(0, 1), device=trainer.device, temperature=temperature)[0]
    gap = max(abs(a - b) for a, b in zip(ours.tolist(), logps, strict=True))
    return gap, (ids, logps)


def change(before: tuple[list[int], list[float]], after: tuple[list[int], list[float]]) -> float:
    """How much vLLM's samples moved: the largest log-prob change of the same tokens (99: other tokens)."""
    if before[0] != after[0]:
        return 99.0
    return max(abs(a - b) for a, b in zip(before[1], after[1], strict=True))


def sync(model: str, out: Path) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, lora in (("full", {}), ("lora", {"r": 4, "alpha": 16})):
        trainer = GRPOTrainer(config(model, out / name, lora=lora), show_progress=False)
        assert trainer.engine is not None
        vocab = [i for i in range(len(trainer.tokenizer)) if i not in (trainer.tokenizer.eos_token_id, 0)]
        prompt = random.Random(0).choices(vocab, k=150)  # >= 128 tokens: a stale prefix cache would show
        gaps, changes, syncs = [], [], []
        gap, before = fixed_sequence_gap(trainer, prompt)
        gaps.append(gap)
        for _ in range(3):
            metrics = trainer.step()
            gap, after = fixed_sequence_gap(trainer, prompt)
            gaps.append(gap)
            changes.append(change(before, after))
            syncs.append(json.loads((out / name / "perf.jsonl").read_text().splitlines()[-1])["time_sync_s"])
            before = after
        result[name] = {"gaps": gaps, "changes": changes, "sync_s": syncs, "sampler_kl": metrics["sampler_kl"]}
        if name == "full":
            # The control, on the same engine (no second one to start): its cache now holds the prompt's
            # blocks under the current weights (gap < tolerance); 3 more syncs without dropping the prefix
            # cache serve those stale blocks.
            trainer.engine.llm.reset_prefix_cache = lambda: None
            stale = [gap]
            for _ in range(3):
                trainer.step()
                stale.append(fixed_sequence_gap(trainer, prompt)[0])
            result["no_reset"] = {"gaps": stale}
            # one call of more prompt tokens than a step takes (4,096): seeded, whole prefills
            long = [random.Random(k).choices(vocab, k=150) for k in range(40)]
            samples = trainer.engine.generate(long, SamplingParams(2, seeds=tuple(range(40))))
            result["long_batch"] = len(samples)
        close(trainer)
    return result


def learn(model: str, out: Path) -> dict[str, Any]:
    """The demo (``model="demo"`` whatever MODEL_DIR says), 100 steps."""
    overrides = {"steps": 100, "output_dir": str(out), "save_every": 0, "eval_every": 0, "generator": "vllm"}
    trainer = GRPOTrainer(load_config(ROOT / "configs" / "demo.toml", overrides=overrides), show_progress=False)
    trainer.train()
    close(trainer)
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    perf = [json.loads(line) for line in (out / "perf.jsonl").read_text().splitlines()]
    return {
        "first": sum(r["correct_rate"] for r in rows[:10]) / 10,
        "last": sum(r["correct_rate"] for r in rows[-10:]) / 10,
        "sampler_kl_max": max(r["sampler_kl"] for r in rows),
        "sampler_logp_diff_max": max(r["sampler_logp_diff"] for r in rows),
        "sync_s_max": max(p["time_sync_s"] for p in perf),
    }


def resume(model: str, out: Path) -> dict[str, Any]:
    """A multi-turn env (`Retry`), 4 steps straight vs 2 + resume."""
    cfg = config(model, out / "straight", env="Retry", env_kwargs={}, steps=4, save_every=2, prompts_per_step=4)
    straight = GRPOTrainer(cfg, env=Retry, show_progress=False)
    straight.train()
    close(straight)
    half = GRPOTrainer(cfg.replace(output_dir=str(out / "halves")), env=Retry, show_progress=False)
    for _ in range(2):
        half.step()
    half.save()
    close(half)
    resumed = GRPOTrainer(cfg.replace(output_dir=str(out / "halves")), env=Retry, resume=True, show_progress=False)
    resumed.train()
    close(resumed)

    def rows(run: str) -> list[dict[str, Any]]:
        lines = (out / run / "metrics.jsonl").read_text().splitlines()
        return [{k: v for k, v in json.loads(line).items() if k != "run_id"} for line in lines]

    from safetensors.torch import load_file

    a = load_file(out / "straight" / "final" / "model.safetensors")
    b = load_file(out / "halves" / "final" / "model.safetensors")
    return {
        "straight": rows("straight"),
        "halves": rows("halves"),
        "weights_equal": a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a),
        "max_new_tokens": cfg.max_new_tokens,
    }


def two_steps(model: str, out: Path) -> dict[str, Any]:
    """`single` and `ddp`: the same run in one process and on two ranks (each with its own engine)."""
    trainer = GRPOTrainer(config(model, out, steps=2, eval_prompts=2), show_progress=False)
    trainer.train()
    close(trainer)
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()] if trainer.dist.main else []
    return {"rows": rows, "world": trainer.dist.world}


def main() -> None:
    mode, model, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    modes = {"sync": sync, "learn": learn, "resume": resume, "single": two_steps, "ddp": two_steps}
    result = {name: modes[name](model, out / name) for name in mode.split(",")}
    if mode != "ddp" or result["ddp"]["rows"]:  # rank 0 reports
        print("RESULT " + json.dumps(result))


if __name__ == "__main__":  # vLLM's engine core starts with spawn
    main()
