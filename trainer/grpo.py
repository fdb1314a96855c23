"""`GRPOTrainer`: GRPO (DeepSeekMath) on torch + transformers, for any text environment.

One step, top to bottom: sample ``prompts_per_step`` task seeds -> generate ``num_generations``
completions per task (batched, left padding, sampling, stop at EOS) -> rewards from the environment
(a group of a single-turn `ReasoningEnv` is verified in parallel; other envs are stepped, multi-turn
envs alternating generate and step with the environment's tokens masked out) -> `group_advantages`
-> old and reference log-probs -> `grpo_loss` over micro-batches with gradient accumulation -> clip
-> AdamW step.

Deliberate deviations from the paper (each is a config switch where it matters):
- No critic, as in the paper; the KL term uses the k3 estimator per token, also as in the
  paper, but ``beta=0`` (presets "dapo", "dr_grpo") loads no reference model at all.
- With ``num_iterations == 1`` the "old" policy is the current one detached (ratio 1, the
  gradient of the unclipped objective); with more iterations old log-probs are computed once.
- Log-probs are taken from logits divided by the sampling temperature, so the ratio compares
  the distribution that was sampled from.
- "dapo" and "dr_grpo" token-level reductions, the DAPO asymmetric clip (``epsilon = (0.2, 0.28)``), dynamic
  sampling with refill and overlong shaping (``sampling``, `trainer.sampling._dynamic`), truncated-completion masking;
  so are GSPO's sequence ratio and CISPO's clipped-weight REINFORCE (``loss_type``, `trainer.losses._surrogates`).
- With ``generator = "vllm"`` each token's term is weighted by pi_old / pi_vllm, by
  ``importance_sampling_mode`` (`trainer.losses._correction`); the clipped ratio stays pi_theta / pi_old.
- Multi-turn rewards are the episode's summed step rewards; a rollout's env tokens never enter the loss.

Scale: ``lora = {"r": 16}`` trains LoRA adapters (peft), the reference being the same weights with the
adapter disabled. Under ``torchrun`` each rank rolls out its share of the step's tasks and DDP (or
FSDP's ``fully_shard``, ``distributed="fsdp"``) averages the gradients; the loss is normalised by
global counts so N ranks make the same update as one process with the same global batch. Each group's
prompt runs through the model once, in generation and in every loss forward (policy, old, reference),
and its KV cache is copied to the G rows (where the model takes a cache).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import gymnasium
import torch

from grpo_envs import ReasoningEnv, stable_seed
from trainer._batch import Batch, loss_mask, loss_rows, make_batch, sequence_logps
from trainer._distributed import Dist, init_distributed, pad_ranks, unwrap
from trainer.config import GRPOConfig
from trainer.generation._generator import Timed, timed
from trainer.generation._transformers import TransformersGenerator
from trainer.generation._vllm import ColocatedVLLM
from trainer.losses._correction import configured_weights
from trainer.losses._math import grpo_loss, loss_settings, lr_factor, sampler_mismatch
from trainer.policy._lora import adapter_disabled, is_lora
from trainer.policy._model import env_alphabet, pick_device
from trainer.policy._policy import build_policy, export_final, no_update, optimizer_step, restore, save_run
from trainer.rollouts._envs import env_factory, told_opened_thought
from trainer.rollouts._executor import open_executor
from trainer.rollouts._rollout import Rollout, envs_needed, is_single_turn, rollout
from trainer.run._logging import RunLog, UpdateTotals, eval_metrics, peak_memory_mb, perf_row, rollout_metrics
from trainer.run._rollout_log import RolloutLog
from trainer.run._rundir import RunPlan, open_run_ranked, released
from trainer.run._signal import SignalWatch
from trainer.sampling._dynamic import DynamicSampler, StepSample
from trainer.sampling._shaping import shape
from trainer.workers._async_dist import open_rollouts
from verifiers.executors import Executor

__all__ = ["GRPOTrainer"]

log = logging.getLogger("trainer")
EnvLike = str | gymnasium.Env[Any, Any] | Callable[[], gymnasium.Env[Any, Any]] | None


class GRPOTrainer:
    """GRPO for a causal LM on any Gymnasium env with text observations and actions.

    ``model`` may be a hub name, a local path, a module (then pass ``tokenizer``) or "demo";
    ``env`` an id, an instance or a factory (default: ``config.env``). A run never overwrites
    another: an ``output_dir`` that holds a run is refused unless ``resume=True`` (continue from
    this run's newest checkpoint, same config, ``steps`` may grow) or ``overwrite=True`` (move
    the old run aside to ``NAME.old-<timestamp>`` first). Launched by ``torchrun``, every rank
    builds a trainer with the same config; rank 0 writes the run directory. ``rollout_log=True``
    keeps every rollout in ``rollouts.jsonl`` (prompt, reference, completion, verdict) for
    ``grpo-envs audit``.

    Examples:
        >>> from trainer.config import GRPOConfig
        >>> cfg = GRPOConfig(steps=2, prompts_per_step=2, num_generations=2, max_new_tokens=1,
        ...                  output_dir="/tmp/grpo-doc", save_every=0)
        >>> metrics = GRPOTrainer(cfg, show_progress=False).train()  # doctest: +SKIP
    """

    _taken: list[Any]  # async: this step's batches (its first, then its refills)

    def __init__(
        self,
        config: GRPOConfig,
        model: Any = None,
        tokenizer: Any = None,
        env: EnvLike = None,
        *,
        resume: bool = False,
        overwrite: bool = False,
        show_progress: bool = True,
        rollout_log: bool = False,
    ) -> None:
        self.config = config
        self.dist: Dist = init_distributed(config.distributed, config.device)
        self.run_dir = Path(config.output_dir)
        self.run: RunPlan = open_run_ranked(
            self.dist, self.run_dir, config.to_dict(), resume=resume, overwrite=overwrite
        )
        with released(self.run_dir, self.run, self.dist.main):  # refused in set-up: no run.json left behind
            self._set_up(model, tokenizer, env, show_progress=show_progress, rollout_log=rollout_log)

    def _set_up(self, model: Any, tokenizer: Any, env: EnvLike, *, show_progress: bool, rollout_log: bool) -> None:
        config = self.config
        self.device = pick_device(config.device) if not self.dist.enabled else self.dist.device_for(config.device)
        torch.manual_seed(config.seed)
        if self.device.type == "cpu":
            torch.use_deterministic_algorithms(True, warn_only=True)
        self.make_env = env_factory(env if env is not None else config.env, config.env_kwargs, config.judge)
        probe = self.make_env()
        self.env_id = getattr(probe.unwrapped, "env_id", type(probe.unwrapped).__name__)
        alphabet = env_alphabet(probe) if (model or config.model) == "demo" and tokenizer is None else None
        self._envs: list[gymnasium.Env[Any, Any]] = [probe]
        self._eval_envs: list[gymnasium.Env[Any, Any]] = []
        self.dist.check(single_turn=self._single_turn(), generator=config.generator)
        self.model, self.ref_model, self.tokenizer = build_policy(
            config, model, tokenizer, alphabet=alphabet, device=self.device, dist=self.dist
        )
        self.make_env = told_opened_thought(self.make_env, self.tokenizer, probe, say=self.dist.main)
        params = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(params, lr=config.learning_rate, weight_decay=0.0)
        schedule = partial(lr_factor, warmup=config.warmup_steps, total=config.steps, kind=config.lr_scheduler)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, schedule)
        self.step_count = 0
        sampling: dict[str, Any] = dict(seed=config.seed, world=self.dist.world, env=probe, saved=self.run.checkpoint)
        self.sampler = DynamicSampler(config.sampling, **sampling)  # which tasks: refill, curriculum, pass rates
        self.watch = SignalWatch()  # steps without signal, unjudged completions: said in words
        self.share_prefix = True  # a group's prompt runs once (where the model takes a cache); off: to compare
        if self.run.checkpoint is not None:
            self.step_count = restore(self.run.checkpoint, self.model, self.optimizer, self.scheduler, self.dist)
        self.engine: ColocatedVLLM | None = None  # generator="vllm": built from the (restored) policy
        if config.generator == "vllm" and config.asynchronous.level == 0:  # async: an engine in each worker
            seed = stable_seed(config.seed, "vllm", self.dist.rank) % (2**31)
            self.engine = ColocatedVLLM(self.model, self.tokenizer, seed=seed, device=self.device)
        self._plan_ahead(range(self.step_count + 1, self.step_count + config.asynchronous.level + 2))
        self.workers = open_rollouts(  # async_level > 0: rollout worker processes (torchrun: rank 0's, shared)
            config, env if env is not None else config.env, self.model, self.tokenizer, self.dist,
            seeds=lambda t: self._plan(t + 1).seeds, level=lambda t: self._plan(t + 1).level,
            start=self.step_count, saved=self.run.checkpoint,
        )  # fmt: skip
        self._generate_s, self._taken = 0.0, []  # this step's seconds in the generator; async: its batches
        # verifier_executor="ray": a RayExecutor (its actors start at the first rollout); under torchrun
        # every rank joins one cluster
        self.executor: Executor | None = open_executor(config.verifier_executor, self.dist)
        shown: dict[str, Any] = dict(total_steps=config.steps, resume_step=self.step_count, show_progress=show_progress)
        self.log = RunLog(self.run_dir, run_id=self.run.run_id, **shown) if self.dist.main else None
        keep = rollout_log and self.dist.main  # every rollout in rollouts.jsonl, for `grpo-envs audit`
        self.rollouts = RolloutLog(self.run_dir / "rollouts.jsonl", self.make_env, self.step_count) if keep else None

    # -- set-up helpers --------------------------------------------------------------------------
    def _pool(self, envs: list[gymnasium.Env[Any, Any]], n: int, **extra: Any) -> list[gymnasium.Env[Any, Any]]:
        while len(envs) < n:
            envs.append(self.make_env(**extra))
        return envs[:n]

    def _single_turn(self) -> bool:
        return is_single_turn(self._envs[0])

    # -- rollouts and log-probs ------------------------------------------------------------------
    def _generator(self) -> Timed:
        """The colocated vLLM engine, or transformers' generate over the policy; timed."""
        if self.engine is not None:
            return timed(self.engine)
        return timed(
            TransformersGenerator(
                unwrap(self.model),
                self.tokenizer,
                self.device,
                share_prefix=self.share_prefix,
                synced=self.dist.collective_forwards,
            )
        )

    def _rollouts(self, seeds: list[int], envs: list[gymnasium.Env[Any, Any]], stream: int = 0) -> list[list[Rollout]]:
        """This rank's share of ``seeds`` rolled out; every rank gets all groups, in seed order.
        ``stream`` seeds vLLM's requests (one seed per task, sample and turn; torch's RNG seeds HF's)."""
        cfg = self.config
        mine = self.dist.shard(seeds)
        generator = self._generator()
        groups = rollout(
            generator,
            self.tokenizer,
            envs[: len(envs) * len(mine) // len(seeds)],
            mine,
            cfg.num_generations,
            max_new_tokens=cfg.max_new_tokens,
            temperature=cfg.temperature,
            make_env=self.make_env,
            sample_seed=stream if self.engine is not None else None,
            executor=self.executor,
        )
        self._generate_s += generator.seconds
        return [g for part in self.dist.gather(groups) for g in part]

    def _logps(self, model: Any, batch: Batch, rows: slice) -> torch.Tensor:
        return sequence_logps(
            model, batch, rows, device=self.device, temperature=self.config.temperature,
            share_prefix=self.share_prefix, force=self.dist.collective_forwards,
        )  # fmt: skip

    def _ref_logps(self, batch: Batch, rows: slice) -> torch.Tensor | None:
        base = unwrap(self.model)
        if is_lora(base) and self.config.beta > 0:
            with adapter_disabled(base):
                return self._logps(self.dist.frozen(self.model), batch, rows)
        if self.ref_model is not None:
            return self._logps(self.ref_model, batch, rows)
        return None

    # -- one step --------------------------------------------------------------------------------
    def step(self) -> dict[str, Any]:
        """Generate, score and update once; returns the step's metrics (also written to disk)."""
        step = self.step_count + 1
        started = time.perf_counter()
        sample, generate_s, rollout_s, extra = self._step_rollouts(step)
        groups = sample.sampled  # every group rolled out; the update sees sample.trained
        rolled = time.perf_counter()
        rollout_s = rollout_s if rollout_s is not None else rolled - started
        update = self._update(self.dist.shard(sample.trained))
        trained = time.perf_counter()
        metrics = {"step": step, **rollout_metrics(groups), **update, "lr": self.scheduler.get_last_lr()[0], **extra}
        metrics.update(sample.metrics, **self.sampler.observe(metrics["correct_rate"]))
        self._plan_ahead([step + self.config.asynchronous.level + 1])  # the job `advance` sends, planned now
        synced = self.engine.sync(self.model) if self.engine is not None else 0.0
        synced += self.workers.advance(unwrap(self.model), step) if self.workers is not None else 0.0
        self.step_count = step
        self.watch.step(groups)
        generated = sum(r.generated for g in groups for r in g)
        times = {"rollout": rolled - started, "generate": generate_s, "score": rollout_s - generate_s}
        perf = perf_row(step, {**times, "train": trained - rolled, "sync": synced}, generated / max(rollout_s, 1e-9))
        perf["peak_memory_mb"] = peak_memory_mb(self.device)
        if self.log is not None:
            self.log.step(metrics, perf)
        if self.rollouts is not None:
            self.rollouts.write(step, sample.seeds, groups, level=metrics.get("sampling/level"))
        return metrics

    def _seeds(self, step: int) -> list[int]:
        return [stable_seed(self.config.seed, "train", step, k) % (2**31) for k in range(self.config.prompts_per_step)]

    def _plan(self, step: int) -> Any:
        """Step ``step``'s first round: its seeds and level (`DynamicSampler.plan`)."""
        return self.sampler.plan(step, self._seeds(step))

    def _plan_ahead(self, steps: Any) -> None:
        """With rollout workers, plan ``steps`` now on every rank (rank 0 sends their jobs now), so every
        rank's level and table stay rank 0's."""
        for t in steps if self.config.asynchronous.level else ():
            self._plan(t)

    def _step_rollouts(self, step: int) -> tuple[StepSample, float, float | None, dict[str, Any]]:
        """Step ``step``'s groups (shaped; ``sampling.dynamic``: refilled), the generator's seconds, the
        rollout's (None: measured here), the async metrics: from rollout workers, or rolled out here."""
        self._generate_s, self._taken = 0.0, []
        sample = self.sampler.step(partial(self._take if self.workers else self._roll, step), self._seeds(step), step)
        if self.workers is None:
            return sample, self._generate_s, None, {}
        got, seconds = self._taken[0], sum(t.rollout_s for t in self._taken)  # the step's batch, then its refills
        return sample, sum(t.generate_s for t in self._taken), seconds, self.workers.metrics(step - 1, got)

    def _take(self, step: int, seeds: list[int], round_: int) -> list[list[Rollout]]:
        """Round ``round_`` of step ``step`` from the rollout workers (a refill: one more job, same weights)."""
        assert self.workers is not None
        got = self.workers.take(step - 1, round_, seeds, self.sampler.level) if round_ else self.workers.take(step - 1)
        self._taken.append(got)
        return shape(self._taken[-1].groups, self.config.sampling, self.config.max_new_tokens)

    def _roll(self, step: int, seeds: list[int], round_: int) -> list[list[Rollout]]:
        """Round ``round_`` of step ``step`` (0: the step's seeds; more: a refill), rolled out here, shaped."""
        cfg, again = self.config, (round_,) if round_ else ()
        n_envs = envs_needed(self._envs[0], len(seeds), cfg.num_generations)
        if self.dist.enabled:  # each rank samples its own stream, reproducibly (resume included)
            torch.manual_seed(stable_seed(cfg.seed, "sampling", step, self.dist.rank, *again) % (2**31))
        stream, envs = stable_seed(cfg.seed, "vllm-train", step, *again), self._pool(self._envs, n_envs)
        if self.sampler.curriculum is not None:  # sampling.curriculum: the tasks at the level in use
            self.sampler.curriculum.apply(envs)
        return shape(self._rollouts(seeds, envs, stream), cfg.sampling, cfg.max_new_tokens)

    def _update(self, groups: list[list[Rollout]]) -> dict[str, float]:
        """One policy update from this rank's ``groups``; with N ranks, normalised by global counts
        (rows, tokens) and scaled by N against DDP/FSDP's gradient averaging."""
        cfg = self.config
        rows, advantages = loss_rows(groups, scale=cfg.scale, skip_zero_variance=cfg.skip_zero_variance_groups)
        n = int(self.dist.sum(len(rows)))
        if not n:  # every group had equal rewards: nothing to learn, the schedule still advances
            return no_update(self.scheduler)
        share = pad_ranks(self.dist, rows, advantages, groups[0][0], cfg.micro_batch_size)
        width = self.dist.completion_width(max(len(r.ids) for r in share.rows))
        batch = make_batch(share.rows, self.tokenizer.pad_token_id, completion_width=width)
        mask = loss_mask(batch, share, mask_truncated=cfg.mask_truncated_completions).to(self.device)
        adv = share.advantages.to(self.device)
        args = loss_settings(cfg, n, tokens=max(self.dist.sum(float(mask.sum())), 1.0))
        with torch.no_grad():
            frozen = self.dist.frozen(self.model)
            old = [self._logps(frozen, batch, c) for c in share.chunks] if cfg.num_iterations > 1 else None
            ref = [self._ref_logps(batch, c) for c in share.chunks]
        sampled = batch.sampler_logps  # the generator's own log-probs (vLLM), else None
        totals = UpdateTotals(n, args["num_tokens"], cfg.num_iterations, sampler=sampled is not None,
                              corrected=sampled is not None and cfg.importance_sampling_clip_max > 0)  # fmt: skip
        grad_norm = 0.0
        for iteration in range(cfg.num_iterations):
            self.optimizer.zero_grad(set_to_none=True)
            for i, (c, counted) in enumerate(zip(share.chunks, share.counted, strict=True)):
                live = mask[c] if counted else torch.zeros_like(mask[c])
                with self.dist.grad_sync(self.model, last=i == len(share.chunks) - 1):
                    logps = self._logps(self.model, batch, c)
                    before = old[i] if old is not None else logps.detach()  # the policy that sampled
                    sampler = sampled[c].to(self.device) if sampled is not None else None
                    w = configured_weights(cfg, sampler, before, live)
                    weights = w.weights if w is not None else None
                    loss, metrics = grpo_loss(logps, before, ref[i], adv[c], live, is_weights=weights, **args)
                    (loss * self.dist.world).backward()  # DDP and FSDP average gradients; we want the sum
                counts = dict(rows=c.stop - c.start, tokens=float(live.sum()))
                if counted:
                    totals.add(float(loss.detach()), metrics, **counts)
                if counted and iteration == 0 and sampler is not None:
                    mismatch = sampler_mismatch(before, sampler, live)
                    totals.add_once(mismatch, w.metrics(live) if w is not None else {}, **counts)
            grad_norm = optimizer_step(self.model, self.optimizer, cfg.max_grad_norm)
        self.scheduler.step()
        return {**{k: self.dist.sum(v) for k, v in totals.values.items()}, "grad_norm": grad_norm}

    # -- evaluation ------------------------------------------------------------------------------
    def evaluate(self) -> dict[str, Any]:
        """Accuracy, pass@1 and pass@G and mean reward on fixed eval seeds (the eval split)."""
        cfg = self.config
        g = cfg.num_generations
        seeds = [stable_seed(cfg.seed, "eval", k) % (2**31) for k in range(cfg.eval_prompts)]
        split = {"split": "eval"} if isinstance(self._envs[0].unwrapped, ReasoningEnv) else {}
        n_envs = envs_needed(self._envs[0], cfg.eval_prompts, g)
        envs = self._pool(self._eval_envs, n_envs, **split)
        with torch.random.fork_rng(devices=[self.device] if self.device.type == "cuda" else []):
            torch.manual_seed(stable_seed(cfg.seed, "eval-sampling", self.step_count, self.dist.rank) % (2**31))
            groups = self._rollouts(seeds, envs, stable_seed(cfg.seed, "vllm-eval", self.step_count))
        row = {"step": self.step_count, **eval_metrics(groups)}
        if self.log is not None:
            self.log.eval(row)
        return row

    # -- the run ---------------------------------------------------------------------------------
    def save(self) -> Path:
        """Write a checkpoint (rank 0 writes; with FSDP every rank helps gather the weights)."""
        extra = {"env": self.env_id, "world_size": self.dist.world}
        extra.update(self.sampler.state())
        return save_run(
            self.run_dir / "checkpoints",
            self.step_count,
            self.model,
            self.tokenizer,
            self.optimizer,
            self.scheduler,
            config=self.config,
            extra=extra,
            run_id=self.run.run_id,
            dist=self.dist,
            extra_files=partial(self.workers.save_into, updates=self.step_count) if self.workers else None,
        )

    def close(self) -> None:
        """Stop the rollout workers (async_level > 0) and free their weights files; idempotent."""
        if self.workers is not None:
            self.workers.close()

    def save_final(self, directory: Path) -> None:
        """A plain transformers model (LoRA merged in) and the tokenizer, loadable with from_pretrained."""
        export_final(self.model, self.tokenizer, self.dist, directory)

    def train(self) -> dict[str, Any]:
        """Run to ``config.steps``; checkpoint every ``save_every`` steps and on Ctrl-C. Returns the last
        step's metrics, the final ``eval``, the ``summary`` table and ``unjudged_frac`` (the share of
        this process's completions nobody judged; above one half, a warning says why)."""
        cfg = self.config
        last: dict[str, Any] = {}
        final_eval: dict[str, Any] | None = None
        try:
            while self.step_count < cfg.steps:
                last = self.step()
                if cfg.eval_every and self.step_count % cfg.eval_every == 0:
                    final_eval = self.evaluate()  # at the last step, this is the final eval too
                if cfg.save_every and self.step_count % cfg.save_every == 0:
                    self.save()
        except KeyboardInterrupt:
            log.warning("interrupted at step %d: saving a checkpoint", self.step_count)
            if not self.dist.enabled:  # ranks interrupted at different points cannot agree on a save
                self.save()
            self.close()
            if self.log is not None:
                self.log.close()
            raise
        if final_eval is None or self.step_count % max(cfg.eval_every, 1) != 0:
            final_eval = self.evaluate()
        self.save()
        self.save_final(self.run_dir / "final")
        self.close()
        table, unjudged = "", self.watch.summary()
        if self.log is not None:
            self.log.close()
            table = self.log.finish()
            print(table)
        if unjudged is not None:
            log.warning(unjudged)
        nobody: dict[str, Any] = {"unjudged_frac": self.watch.unjudged_frac, "unjudged_reason": self.watch.first_reason}
        return {**last, "eval": final_eval, "summary": table, **nobody}
