"""`GRPOTrainer`: GRPO (DeepSeekMath) on torch + transformers, for any text environment.

One step, top to bottom: sample ``prompts_per_step`` task seeds -> generate
``num_generations`` completions per task (batched, left padding, sampling, stop at EOS) ->
rewards from the environment (a group of a single-turn `ReasoningEnv` is verified in
parallel; other envs are stepped, multi-turn envs alternating generate and step with the
environment's tokens masked out) -> `group_advantages` -> old and reference log-probs ->
`grpo_loss` over micro-batches with gradient accumulation -> clip -> AdamW step.

Deliberate deviations from the paper (each is a config switch where it matters):
- No critic, as in the paper; the KL term uses the k3 estimator per token, also as in the
  paper, but ``beta=0`` (presets "dapo", "dr_grpo") loads no reference model at all.
- With ``num_iterations == 1`` the "old" policy is the current one detached (ratio 1, the
  gradient of the unclipped objective); with more iterations old log-probs are computed once.
- Log-probs are taken from logits divided by the sampling temperature, so the ratio compares
  the distribution that was sampled from.
- "dapo" and "dr_grpo" token-level reductions and the DAPO asymmetric clip (``epsilon_high``),
  dynamic sampling (``skip_zero_variance_groups``) and truncated-completion masking are options.
- Multi-turn rewards are the episode's summed step rewards; a rollout's env tokens never
  enter the loss.
"""

from __future__ import annotations

import copy
import logging
import math
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import torch

from grpo_envs import ReasoningEnv
from grpo_envs._task import stable_seed
from trainer._checkpoint import latest_checkpoint, load_checkpoint, save_checkpoint
from trainer._logging import RunLog
from trainer._math import group_advantages, grpo_loss, pass_at_k, token_logprobs
from trainer._model import load_policy, pick_device
from trainer._rollout import Rollout, rollout
from trainer.config import GRPOConfig
from trainer.errors import TrainerError

__all__ = ["GRPOTrainer"]

log = logging.getLogger("trainer")
EnvLike = str | gymnasium.Env[Any, Any] | Callable[[], gymnasium.Env[Any, Any]] | None


class GRPOTrainer:
    """GRPO for a causal LM on any Gymnasium env with text observations and actions.

    ``model`` may be a hub name, a local path, a module (then pass ``tokenizer``) or "demo";
    ``env`` an id, an instance or a factory (default: ``config.env``). ``resume=True``
    continues from the newest checkpoint in ``config.output_dir``.

    Example:
        >>> from trainer.config import GRPOConfig
        >>> cfg = GRPOConfig(steps=2, prompts_per_step=2, num_generations=2, max_new_tokens=1,
        ...                  output_dir="/tmp/grpo-doc", save_every=0)
        >>> metrics = GRPOTrainer(cfg, show_progress=False).train()  # doctest: +SKIP
    """

    def __init__(
        self,
        config: GRPOConfig,
        model: Any = None,
        tokenizer: Any = None,
        env: EnvLike = None,
        *,
        resume: bool = False,
        show_progress: bool = True,
    ) -> None:
        self.config = config
        self.device = pick_device(config.device)
        torch.manual_seed(config.seed)
        if self.device.type == "cpu":
            torch.use_deterministic_algorithms(True, warn_only=True)
        self.make_env = self._env_factory(env if env is not None else config.env)
        probe = self.make_env()
        self.env_id = getattr(probe.unwrapped, "env_id", type(probe.unwrapped).__name__)
        alphabet = getattr(probe.unwrapped, "alphabet", None)
        self._envs: list[gymnasium.Env[Any, Any]] = [probe]
        self._eval_envs: list[gymnasium.Env[Any, Any]] = []
        self.model, self.tokenizer = load_policy(model or config.model, tokenizer, alphabet=alphabet, seed=config.seed)
        if self.device.type == "cuda" and config.bf16:
            self.model.to(torch.bfloat16)
        self.model.to(self.device)
        if config.gradient_checkpointing:
            self.model.gradient_checkpointing_enable()
        self.model.train()
        self.ref_model = None
        if config.beta > 0:
            self.ref_model = copy.deepcopy(self.model).eval()
            self.ref_model.requires_grad_(False)
        self.optimizer = torch.optim.AdamW(
            [p for p in self.model.parameters() if p.requires_grad], lr=config.learning_rate,
            weight_decay=config.weight_decay,
        )  # fmt: skip
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, self._lr_factor)
        self.run_dir = Path(config.output_dir)
        self.step_count = 0
        if resume:
            found = latest_checkpoint(self.run_dir / "checkpoints")
            if found is None:
                raise TrainerError(f"--resume: no checkpoint in {self.run_dir / 'checkpoints'}")
            state = load_checkpoint(found, model=self.model, optimizer=self.optimizer, scheduler=self.scheduler)
            if state["config"] != config.to_dict():
                raise TrainerError(f"--resume: {found} was written with another config; resume with the same one")
            self.step_count = int(state["step"])
            log.info("resumed from %s (step %d)", found, self.step_count)
        self.log = RunLog(self.run_dir, total_steps=config.steps, resume_step=self.step_count,
                          show_progress=show_progress)  # fmt: skip

    # -- set-up helpers --------------------------------------------------------------------------
    def _env_factory(self, env: Any) -> Callable[..., gymnasium.Env[Any, Any]]:
        kwargs = dict(self.config.env_kwargs)
        if isinstance(env, str):
            return lambda **extra: gymnasium.make(env, **{**kwargs, **extra})
        if isinstance(env, gymnasium.Env):
            first = [env]

            def again(**extra: Any) -> gymnasium.Env[Any, Any]:
                if first and not extra:
                    return first.pop()
                if env.spec is None:
                    raise TrainerError("this env instance has no spec: pass an id or a factory to make more copies")
                return gymnasium.make(env.spec, **extra)

            return again
        if callable(env):
            return lambda **extra: env(**extra) if extra else env()
        raise TrainerError(f"env must be an id, an Env or a factory, got {type(env).__name__}")

    def _lr_factor(self, step: int) -> float:
        cfg = self.config
        if cfg.warmup_steps and step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        if cfg.lr_scheduler == "constant":
            return 1.0
        progress = (step - cfg.warmup_steps) / max(1, cfg.steps - cfg.warmup_steps)
        progress = min(1.0, max(0.0, progress))
        return 1.0 - progress if cfg.lr_scheduler == "linear" else 0.5 * (1 + math.cos(math.pi * progress))

    def _pool(self, envs: list[gymnasium.Env[Any, Any]], n: int, **extra: Any) -> list[gymnasium.Env[Any, Any]]:
        while len(envs) < n:
            envs.append(self.make_env(**extra))
        return envs[:n]

    def _single_turn(self) -> bool:
        base = self._envs[0].unwrapped
        return isinstance(base, ReasoningEnv) and base.max_turns == 1

    # -- rollouts and log-probs ------------------------------------------------------------------
    def _rollouts(self, seeds: list[int], envs: list[gymnasium.Env[Any, Any]]) -> list[list[Rollout]]:
        cfg = self.config
        return rollout(
            self.model, self.tokenizer, envs, seeds, cfg.num_generations, max_new_tokens=cfg.max_new_tokens,
            temperature=cfg.temperature, top_p=cfg.top_p, device=self.device, make_env=self.make_env,
        )  # fmt: skip

    def _batch(self, rows: list[Rollout]) -> dict[str, torch.Tensor]:
        pad = self.tokenizer.pad_token_id
        width_p = max(len(r.prompt_ids) for r in rows)
        width_c = max(max(len(r.ids) for r in rows), 1)
        n = len(rows)
        ids = torch.full((n, width_p + width_c), pad, dtype=torch.long)
        attention = torch.zeros((n, width_p + width_c), dtype=torch.long)
        completion = torch.full((n, width_c), pad, dtype=torch.long)
        mask = torch.zeros((n, width_c), dtype=torch.float32)
        for k, r in enumerate(rows):
            p, c = len(r.prompt_ids), len(r.ids)
            ids[k, width_p - p : width_p] = torch.tensor(r.prompt_ids)
            attention[k, width_p - p : width_p + c] = 1
            if c:
                ids[k, width_p : width_p + c] = torch.tensor(r.ids)
                completion[k, :c] = torch.tensor(r.ids)
                mask[k, :c] = torch.tensor(r.mask, dtype=torch.float32)
        positions = (attention.cumsum(-1) - 1).clamp(min=0)
        return {"ids": ids, "attention": attention, "positions": positions, "completion": completion, "mask": mask}

    def _logps(self, model: Any, batch: dict[str, torch.Tensor], rows: slice) -> torch.Tensor:
        width_c = batch["completion"].shape[1]
        inputs = {
            "input_ids": batch["ids"][rows].to(self.device),
            "attention_mask": batch["attention"][rows].to(self.device),
            "position_ids": batch["positions"][rows].to(self.device),
        }
        try:
            logits = model(**inputs, logits_to_keep=width_c + 1).logits
        except TypeError:  # a model without logits_to_keep
            logits = model(**inputs).logits[:, -(width_c + 1) :]
        logits = logits[:, :-1] / self.config.temperature
        return token_logprobs(logits, batch["completion"][rows].to(self.device))

    # -- one step --------------------------------------------------------------------------------
    def step(self) -> dict[str, Any]:
        """Generate, score and update once; returns the step's metrics (also written to disk)."""
        cfg = self.config
        step = self.step_count + 1
        seeds = [stable_seed(cfg.seed, "train", step, k) % (2**31) for k in range(cfg.prompts_per_step)]
        n_envs = cfg.prompts_per_step * (1 if self._single_turn() else cfg.num_generations)
        started = time.perf_counter()
        groups = self._rollouts(seeds, self._pool(self._envs, n_envs))
        rolled = time.perf_counter()
        update = self._update(groups)
        trained = time.perf_counter()
        self.step_count = step
        metrics = {"step": step, **self._rollout_metrics(groups), **update, "lr": self.scheduler.get_last_lr()[0]}
        generated = sum(r.generated for g in groups for r in g)
        perf = {
            "step": step, "time_rollout_s": rolled - started, "time_train_s": trained - rolled,
            "tokens_per_s": generated / max(rolled - started, 1e-9), "peak_memory_mb": _peak_memory_mb(self.device),
        }  # fmt: skip
        self.log.step(metrics, perf)
        return metrics

    def _rollout_metrics(self, groups: list[list[Rollout]]) -> dict[str, Any]:
        flat = [r for g in groups for r in g]
        rewards = [r.reward for r in flat if r.reward is not None]
        mean = sum(rewards) / max(1, len(rewards))
        std = math.sqrt(sum((x - mean) ** 2 for x in rewards) / max(1, len(rewards)))
        statuses = Counter(r.status for r in flat)
        parts: dict[str, list[float]] = {}
        for r in flat:
            for name, value in r.components.items():
                parts.setdefault(name, []).append(value)
        zero_var = sum(len({r.reward for r in g}) == 1 for g in groups) / len(groups)
        errors = [r.reason for r in flat if r.status in ("error", "timeout")][:3]
        lengths = [r.generated for r in flat]
        out: dict[str, Any] = {
            "reward_mean": mean,
            "reward_std": std,
            "correct_rate": sum(r.correct is True for r in flat) / len(flat),
            "completion_len_mean": sum(lengths) / len(lengths),
            "completion_len_max": max(lengths),
            "truncated_frac": sum(r.truncated for r in flat) / len(flat),
            "zero_variance_frac": zero_var,
            **{f"status/{s}": n for s, n in sorted(statuses.items())},
            **{f"reward/{name}": sum(v) / len(v) for name, v in sorted(parts.items())},
        }
        if errors:
            out["errors"] = errors
        return out

    def _update(self, groups: list[list[Rollout]]) -> dict[str, float]:
        cfg = self.config
        adv = group_advantages([[r.reward for r in g] for g in groups], scale=cfg.scale)
        rows: list[Rollout] = []
        advantages: list[float] = []
        for p, g in enumerate(groups):
            if cfg.skip_zero_variance_groups and len({r.reward for r in g}) == 1:
                continue
            for j, r in enumerate(g):
                rows.append(r)
                advantages.append(float(adv[p, j]))
        if not rows:  # every group had equal rewards: nothing to learn, the schedule still advances
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # "scheduler.step() before optimizer.step()"
                self.scheduler.step()
            return {"loss": 0.0, "kl": 0.0, "clip_low": 0.0, "clip_high": 0.0, "ratio": 1.0, "grad_norm": 0.0}
        batch = self._batch(rows)
        if cfg.mask_truncated_completions:
            for k, r in enumerate(rows):
                if r.truncated:
                    batch["mask"][k] = 0.0
        n = len(rows)
        chunks = [slice(s, min(s + cfg.micro_batch_size, n)) for s in range(0, n, cfg.micro_batch_size)]
        adv_t = torch.tensor(advantages, dtype=torch.float32, device=self.device)
        mask = batch["mask"].to(self.device)
        tokens = float(mask.sum().clamp(min=1.0))
        old = ref = None
        with torch.no_grad():
            if cfg.num_iterations > 1:
                old = torch.cat([self._logps(self.model, batch, c) for c in chunks])
            if self.ref_model is not None:
                ref = torch.cat([self._logps(self.ref_model, batch, c) for c in chunks])
        totals: dict[str, float] = dict.fromkeys(("loss", "kl", "clip_low", "clip_high", "ratio"), 0.0)
        grad_norm = 0.0
        for _ in range(cfg.num_iterations):
            self.optimizer.zero_grad(set_to_none=True)
            for c in chunks:
                logps = self._logps(self.model, batch, c)
                normalizer = {"dapo": tokens, "dr_grpo": float(n * cfg.max_new_tokens)}.get(cfg.loss_type)
                loss, metrics = grpo_loss(
                    logps, old[c] if old is not None else logps.detach(), ref[c] if ref is not None else None,
                    adv_t[c], mask[c], epsilon=cfg.epsilon, epsilon_high=cfg.epsilon_high, beta=cfg.beta,
                    loss_type=cfg.loss_type, max_completion_length=cfg.max_new_tokens, normalizer=normalizer,
                )  # fmt: skip
                if cfg.loss_type == "grpo":
                    loss = loss * (c.stop - c.start) / n
                loss.backward()
                weight = (c.stop - c.start) / (n * cfg.num_iterations)
                totals["loss"] += float(loss.detach()) / cfg.num_iterations
                for key, value in metrics.items():
                    totals[key] += value * weight
            if cfg.max_grad_norm > 0:
                grad_norm = float(torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_grad_norm))
            self.optimizer.step()
        self.scheduler.step()
        return {**{k: float(v) for k, v in totals.items()}, "grad_norm": grad_norm}

    # -- evaluation ------------------------------------------------------------------------------
    def evaluate(self) -> dict[str, Any]:
        """Accuracy, pass@1 and pass@G and mean reward on fixed eval seeds (the eval split)."""
        cfg = self.config
        g = cfg.num_generations
        seeds = [stable_seed(cfg.seed, "eval", k) % (2**31) for k in range(cfg.eval_prompts)]
        split = {"split": "eval"} if isinstance(self._envs[0].unwrapped, ReasoningEnv) else {}
        n_envs = cfg.eval_prompts * (1 if self._single_turn() else g)
        envs = self._pool(self._eval_envs, n_envs, **split)
        with torch.random.fork_rng(devices=[self.device] if self.device.type == "cuda" else []):
            torch.manual_seed(stable_seed(cfg.seed, "eval-sampling", self.step_count) % (2**31))
            groups = self._rollouts(seeds, envs)
        correct = [[r.correct is True for r in grp] for grp in groups]
        flat_rewards = [r.reward or 0.0 for grp in groups for r in grp]
        row: dict[str, Any] = {
            "step": self.step_count,
            "accuracy": sum(map(sum, correct)) / (len(correct) * g),
            "pass@1": sum(pass_at_k(g, sum(c), 1) for c in correct) / len(correct),
            f"pass@{g}": sum(pass_at_k(g, sum(c), g) for c in correct) / len(correct),
            "reward_mean": sum(flat_rewards) / len(flat_rewards),
        }
        self.log.eval(row)
        return row

    # -- the run ---------------------------------------------------------------------------------
    def save(self) -> Path:
        return save_checkpoint(
            self.run_dir / "checkpoints", self.step_count, model=self.model, tokenizer=self.tokenizer,
            optimizer=self.optimizer, scheduler=self.scheduler, config=self.config.to_dict(),
            extra={"env": self.env_id}, keep=self.config.keep_checkpoints,
        )  # fmt: skip

    def train(self) -> dict[str, Any]:
        """Run to ``config.steps``; checkpoint every ``save_every`` steps and on Ctrl-C."""
        cfg = self.config
        last: dict[str, Any] = {}
        try:
            while self.step_count < cfg.steps:
                last = self.step()
                if cfg.eval_every and self.step_count % cfg.eval_every == 0:
                    self.evaluate()
                if cfg.save_every and self.step_count % cfg.save_every == 0:
                    self.save()
        except KeyboardInterrupt:
            log.warning("interrupted at step %d: saving a checkpoint", self.step_count)
            self.save()
            self.log.close()
            raise
        final_eval = self.evaluate()
        self.save()
        final = self.run_dir / "final"
        self.model.save_pretrained(final, safe_serialization=True)
        self.tokenizer.save_pretrained(final)
        self.log.close()
        table = self.log.finish()
        print(table)
        return {**last, "eval": final_eval, "summary": table}


def _peak_memory_mb(device: torch.device) -> float:
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
