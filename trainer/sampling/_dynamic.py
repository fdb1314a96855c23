"""Dynamic sampling that keeps the batch full (DAPO, arXiv 2503.14476, section 3.2).

A group teaches GRPO something only when its verdicts differ: a group all solved or all failed
has zero advantages. With ``sampling.dynamic`` a step keeps the *informative* groups — judged
rewards before any shaping (`Rollout.verdict_reward`: an overlong penalty must not make a group
of wrong answers of different lengths look informative) that span more than ``tolerance`` (a
constant continuous reward with floating-point noise is constant) — and samples more groups
until it has ``prompts_per_step`` of them, or ``max_rounds`` rounds have run; then it trains on
what it has, says so once in the log, and counts it in ``sampling/short``. Never an error.

Each round's task seeds follow from (seed, step, round) alone, so a run repeats and resumes
exactly with nothing more in the checkpoint than the step. With the curriculum or the pass-rate
filter, a step's first round is a `Plan` (its level and its picked seeds), made from the state the
learner has when the step is planned: at the step itself, or, with rollout workers
(``async_level = k``), when its job is sent, after step ``t - k - 1`` (`DynamicSampler.plan`); the
plans of the jobs in flight are part of a checkpoint, so a resumed run sends the same jobs. The
level and the table then move with each batch as it comes back, in step order. The decision is made on the gathered
groups (every rank of a torchrun job holds all of them), so every rank keeps the same groups;
round sizes and the kept count are multiples of the world size (each rank trains its share).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grpo_envs import stable_seed
from trainer.rollouts._rollout import Rollout
from trainer.sampling._config import SamplingConfig
from trainer.sampling._curriculum import open_curriculum
from trainer.sampling._pass_rates import PassRates, task_id_of

__all__ = ["DynamicSampler", "Plan", "StepSample", "informative", "round_seeds"]

log = logging.getLogger("trainer")

Groups = list[list[Rollout]]


def informative(group: list[Rollout], tolerance: float = 0.0) -> bool:
    """True when at least two rollouts were judged and their rewards before shaping span more
    than ``tolerance``.

    Examples:
        >>> def r(x):
        ...     return Rollout([1], reward=x)
        >>> informative([r(1.0), r(0.0)]), informative([r(0.5), r(0.5 + 1e-12)], 1e-6)
        (True, False)
    """
    values = [v for r in group if r.judged and (v := r.verdict_reward) is not None]
    return len(values) >= 2 and max(values) - min(values) > tolerance


def _solved(group: list[Rollout]) -> bool:
    judged = [r for r in group if r.judged]
    return bool(judged) and all(r.correct is True for r in judged)


def _failed(group: list[Rollout]) -> bool:
    judged = [r for r in group if r.judged]
    return bool(judged) and not any(r.correct is True for r in judged)


@dataclass(frozen=True)
class Plan:
    """A step's first round as planned: its task ``seeds`` (the pass-rate filter's picks), the
    curriculum's ``level`` (None: none) and how many seeds the filter replaced."""

    seeds: list[int]
    level: int | None = None
    skipped: int = 0


@dataclass
class StepSample:
    """A step's groups: ``sampled`` (every group rolled out, with its task ``seeds``) and
    ``trained`` (the ones the update sees), with the ``sampling/*`` metrics."""

    sampled: Groups
    seeds: list[int]
    trained: Groups
    metrics: dict[str, Any] = field(default_factory=dict)


def round_seeds(seed: int, step: int, round_: int, count: int) -> list[int]:
    """Round ``round_`` (from 1; round 0 is the step's usual seeds) of step ``step``'s refill."""
    return [stable_seed(seed, "refill", step, round_, k) % (2**31) for k in range(count)]


class DynamicSampler:
    """Step by step: roll out the step's seeds with ``roll(seeds, round)``; with ``cfg.dynamic``,
    keep the informative groups and refill (more seeds, `round_seeds`) until there are as many as
    the step's seeds or ``cfg.max_rounds`` rounds ran. A short step is said once per sampler."""

    def __init__(
        self, cfg: SamplingConfig, *, seed: int, world: int = 1, env: Any = None, saved: Path | None = None
    ) -> None:
        self.cfg, self.seed, self.world, self.env = cfg, seed, world, env
        self.said_short = False
        self.plans: dict[int, Plan] = {}  # steps planned ahead (rollout workers), not yet run
        self.level: int | None = None  # the level of the step in progress
        self.curriculum = open_curriculum(cfg, env) if env is not None else None
        self.pass_rates = PassRates(cfg, task_of=task_id_of(env), seed=seed) if cfg.pass_rate_filter else None
        if saved is not None:  # a resumed run: the level, its window and the table where the checkpoint left them
            self.load(json.loads((saved / "trainer_state.json").read_text()).get("sampling", {}))

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps (trainer_state.json's ``sampling``; nothing when neither is on):
        the level and its window, the table, and the plans of the steps sent ahead."""
        state: dict[str, Any] = {"curriculum": self.curriculum.state() if self.curriculum else None}
        state["pass_rates"] = self.pass_rates.state() if self.pass_rates else None
        state["plans"] = {str(t): [p.seeds, p.level, p.skipped] for t, p in sorted(self.plans.items())}
        return {"sampling": state} if self.curriculum or self.pass_rates else {}

    def load(self, state: dict[str, Any]) -> None:
        if self.curriculum is not None:
            self.curriculum.load(state["curriculum"])
        if self.pass_rates is not None:
            self.pass_rates.load(state["pass_rates"])
        self.plans = {int(t): Plan([int(s) for s in p[0]], p[1], int(p[2])) for t, p in state.get("plans", {}).items()}

    def observe(self, correct_rate: float) -> dict[str, Any]:
        """After a step: the curriculum's move and the filter's counts (their metrics)."""
        out = self.curriculum.observe(correct_rate, self.level) if self.curriculum else {}
        return {**out, **(self.pass_rates.metrics() if self.pass_rates else {})}

    def plan(self, step: int, seeds: list[int]) -> Plan:
        """Step ``step``'s first round (``seeds``: its usual seeds), planned now from the level and
        the table as they are, unless it was planned already (rollout workers plan a step when its
        job is sent; a resumed run has the plans of the jobs in flight)."""
        if step not in self.plans:
            level = self.curriculum.level if self.curriculum is not None else None
            self._at_level(level)
            picked = self.pass_rates.pick(seeds, step, 0) if self.pass_rates is not None else list(seeds)
            self.plans[step] = Plan(picked, level, sum(a != b for a, b in zip(picked, seeds, strict=True)))
        return self.plans[step]

    def _at_level(self, level: int | None) -> None:
        """The env that reads task ids, at ``level`` (the task ids of the level in use)."""
        if level is not None and self.env is not None:
            self.env.unwrapped.set_level(level)

    def _roll(self, roll: Callable[[list[int], int], Groups], seeds: list[int], round_: int, step: int) -> Any:
        if self.pass_rates is not None and round_:  # round 0's seeds were picked by its plan
            self._at_level(self.level)
            picked = self.pass_rates.pick(seeds, step, round_)
            self.pass_rates.skipped += sum(a != b for a, b in zip(picked, seeds, strict=True))
            seeds = picked
        groups = roll(seeds, round_)
        if self.pass_rates is not None:
            self._at_level(self.level)
            self.pass_rates.record(seeds, groups, step)
        return seeds, groups

    def step(self, roll: Callable[[list[int], int], Groups], first: list[int], step: int) -> StepSample:
        cfg = self.cfg
        plan = self.plan(step, first)
        del self.plans[step]
        self.level = plan.level
        if self.pass_rates is not None:
            self.pass_rates.skipped += plan.skipped
        first, groups = self._roll(roll, plan.seeds, 0, step)
        if not cfg.dynamic:
            return StepSample(groups, list(first), groups)
        want = len(first)
        sampled, seeds = list(groups), list(first)
        kept = [g for g in groups if informative(g, cfg.tolerance)]
        rounds = 1
        while len(kept) < want and rounds < cfg.max_rounds:
            rate = max(len(kept) / len(sampled), 1 / 8)  # the share kept so far, at least one in eight
            count = _multiple(math.ceil((want - len(kept)) / rate), self.world)
            more_seeds, more = self._roll(roll, round_seeds(self.seed, step, rounds, count), rounds, step)
            sampled += more
            seeds += more_seeds
            kept += [g for g in more if informative(g, cfg.tolerance)]
            rounds += 1
        short = len(kept) < want
        if short and not self.said_short:
            self.said_short = True
            log.warning(
                "step %d: %d of %d informative groups after %d sampling rounds (sampling.max_rounds); the step "
                "trains on those (sampling/short counts such steps; this is said once)",
                step, len(kept), want, rounds,
            )  # fmt: skip
        trained = kept[:want] if not short else kept[: len(kept) - len(kept) % self.world]
        return StepSample(sampled, seeds, trained, _metrics(sampled, trained, rounds, short))


def _metrics(sampled: Groups, trained: Groups, rounds: int, short: bool) -> dict[str, Any]:
    """The ``sampling/*`` metrics of a step (fixed names)."""
    return {
        "sampling/groups_sampled": len(sampled),
        "sampling/groups_kept": len(trained),
        "sampling/rounds": rounds,
        "sampling/short": int(short),
        "sampling/all_solved_frac": sum(map(_solved, sampled)) / len(sampled),
        "sampling/all_failed_frac": sum(map(_failed, sampled)) / len(sampled),
    }


def _multiple(n: int, world: int) -> int:
    return max(world, math.ceil(n / world) * world)
