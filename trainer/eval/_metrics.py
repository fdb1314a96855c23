"""The numbers of an evaluation, as pure functions over judged samples: pass@k (the unbiased
estimator, from ``correct``), maj@k (majority vote over extracted answers), 95% bootstrap
intervals over tasks, the status table, lengths and truncation, a breakdown by task attribute.

Samples nobody could judge (``correct is None``: timeouts, verifier or engine errors) are counted
apart and left out: a task's pass@k uses its judged samples, and a task with fewer judged samples
than k is left out of that k (and counted in ``left_out``).

maj@k, defined: the candidates are the samples' ``extracted`` answers; samples without an answer
(status ``no_answer`` or ``unparseable``) and unjudged samples do not vote. Candidates are grouped
by exact string, then groups are merged when ``equivalent(a, b)`` holds in both directions
(without the hook: exact strings only). The largest group wins; a tie goes to the group whose first
member came first. maj@k is correct when a member of the winning group was judged correct. It is
estimated like pass@k, as an expectation over subsets of k of a task's judged samples (each in
sample order): exactly, over all of them, when there are at most `DRAWS`; else over `DRAWS`
seeded draws.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trainer._metrics import pass_at_k

__all__ = [
    "DRAWS",
    "NO_VOTE",
    "Sample",
    "bootstrap_interval",
    "majority_correct",
    "maj_at_k",
    "pass_at_k_over_tasks",
    "summarize",
]

DRAWS = 64
"""At most this many subsets of k samples per task for maj@k (all of them when there are fewer)."""
NO_VOTE = frozenset({"no_answer", "unparseable"})
"""Statuses whose samples do not vote in maj@k."""
Equivalent = Callable[[str, str], bool]


@dataclass(frozen=True)
class Sample:
    """One judged completion of one task."""

    task_id: str
    correct: bool | None
    status: str
    extracted: str | None = None
    reward: float = 0.0
    tokens: int = 0
    truncated: bool = False
    attributes: Mapping[str, Any] = field(default_factory=dict)
    overlong: float | None = None  # the overlong penalty inside ``reward`` (None: not shaped)


def _judged(samples: Sequence[Sample]) -> list[Sample]:
    return [s for s in samples if s.correct is not None]


def pass_at_k_over_tasks(tasks: Mapping[str, Sequence[Sample]], k: int) -> tuple[dict[str, float], int]:
    """Each task's pass@k over its judged samples, and how many tasks were left out (fewer
    judged samples than k).

    Examples:
        >>> t = {"a": [Sample("a", True, "correct"), Sample("a", False, "incorrect")],
        ...      "b": [Sample("b", None, "timeout"), Sample("b", False, "incorrect")]}
        >>> pass_at_k_over_tasks(t, 1), pass_at_k_over_tasks(t, 2)
        (({'a': 0.5, 'b': 0.0}, 0), ({'a': 1.0}, 1))
    """
    return _per_task(
        tasks, k, lambda task_id, judged: pass_at_k(len(judged), sum(s.correct is True for s in judged), k)
    )


def _per_task(
    tasks: Mapping[str, Sequence[Sample]], k: int, value: Callable[[str, list[Sample]], float]
) -> tuple[dict[str, float], int]:
    """``value(task_id, judged samples)`` for each task with at least k judged samples, and how
    many tasks had fewer (left out)."""
    values, left_out = {}, 0
    for task_id, samples in tasks.items():
        judged = _judged(samples)
        if len(judged) < k:
            left_out += 1
        else:
            values[task_id] = value(task_id, judged)
    return values, left_out


def majority_correct(samples: Sequence[Sample], equivalent: Equivalent | None = None) -> bool:
    """Whether the majority answer of ``samples`` (in their order) was judged correct.

    Examples:
        >>> votes = [Sample("t", False, "incorrect", "3"), Sample("t", True, "correct", "4"),
        ...          Sample("t", True, "correct", "4.0"), Sample("t", False, "no_answer")]
        >>> majority_correct(votes), majority_correct(votes, lambda a, b: float(a) == float(b))
        (False, True)
    """
    groups: list[list[Sample]] = []
    for s in samples:
        if s.correct is None or s.status in NO_VOTE or s.extracted is None:
            continue
        home = next((g for g in groups if g[0].extracted == s.extracted), None)
        if home is None and equivalent is not None:
            home = next((g for g in groups if _both_ways(equivalent, str(g[0].extracted), s.extracted)), None)
        if home is None:
            groups.append([s])
        else:
            home.append(s)
    if not groups:
        return False
    winner = max(groups, key=len)  # max keeps the first of equal lengths: the group that came first
    return any(s.correct is True for s in winner)


def _both_ways(equivalent: Equivalent, a: str, b: str) -> bool:
    try:
        return bool(equivalent(a, b) and equivalent(b, a))
    except Exception:  # an equivalence that cannot decide does not merge
        return False


def maj_at_k(
    tasks: Mapping[str, Sequence[Sample]], k: int, equivalent: Equivalent | None = None, *, seed: int = 0
) -> tuple[dict[str, float], int]:
    """Each task's maj@k (the mean over its subsets of k judged samples: all of them, or `DRAWS`
    seeded ones), and how many tasks were left out (fewer judged samples than k)."""
    same = _memo(equivalent) if equivalent is not None else None

    def value(task_id: str, judged: list[Sample]) -> float:
        draws: list[Sequence[int]]
        if math.comb(len(judged), k) <= DRAWS:  # every subset: the exact expectation
            draws = list(itertools.combinations(range(len(judged)), k))
        else:
            rng = random.Random(f"{seed}:{task_id}:{k}")
            draws = [sorted(rng.sample(range(len(judged)), k)) for _ in range(DRAWS)]
        return statistics.fmean(majority_correct([judged[i] for i in d], same) for d in draws)

    return _per_task(tasks, k, value)


def _memo(equivalent: Equivalent) -> Equivalent:
    """``equivalent`` asked once per pair of answers (the draws ask the same pairs again, and a
    math equivalence may run sympy); a memo passed in again is kept as it is."""
    if getattr(equivalent, "memo", None) is not None:
        return equivalent
    memo: dict[tuple[str, str], bool] = {}

    def cached(a: str, b: str) -> bool:
        if (a, b) not in memo:
            memo[a, b] = bool(equivalent(a, b))
        return memo[a, b]

    cached.memo = memo  # type: ignore[attr-defined]
    return cached


def bootstrap_interval(values: Sequence[float], *, resamples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """The 95% percentile bootstrap interval of the mean of ``values`` (tasks resampled with
    replacement, seeded).

    Examples:
        >>> bootstrap_interval([1.0] * 10), bootstrap_interval([])
        ((1.0, 1.0), (0.0, 0.0))
    """
    if not values:
        return 0.0, 0.0
    rng = random.Random(seed)
    n = len(values)
    means = sorted(statistics.fmean(rng.choices(values, k=n)) for _ in range(resamples))
    return means[int(0.025 * (resamples - 1))], means[int(math.ceil(0.975 * (resamples - 1)))]


def _metric(values: dict[str, float], left_out: int, seed: int) -> dict[str, Any]:
    low, high = bootstrap_interval(list(values.values()), seed=seed)
    mean = statistics.fmean(values.values()) if values else 0.0
    return {"value": mean, "ci95": [low, high], "tasks": len(values), "left_out": left_out}


def summarize(
    samples: Sequence[Sample], ks: Sequence[int], equivalent: Equivalent | None = None, *, seed: int = 0
) -> dict[str, Any]:
    """The summary of an evaluation: pass@k and maj@k for each k (with intervals), mean reward (and
    its ``reward/overlong`` part, when samples were shaped), statuses, completion tokens (mean,
    p95), truncation rate, and the same by task attribute."""
    tasks: dict[str, list[Sample]] = {}
    for s in samples:
        tasks.setdefault(s.task_id, []).append(s)
    out: dict[str, Any] = {"tasks": len(tasks), "samples": len(samples)}
    equivalent = _memo(equivalent) if equivalent is not None else None  # shared by every k
    for k in ks:
        out[f"pass@{k}"] = _metric(*pass_at_k_over_tasks(tasks, k), seed)
        out[f"maj@{k}"] = _metric(*maj_at_k(tasks, k, equivalent, seed=seed), seed)
    rewards = {t: statistics.fmean(s.reward for s in group) for t, group in tasks.items()}
    out["reward_mean"] = _metric(rewards, 0, seed)
    shaped = {t: [s.overlong for s in group if s.overlong is not None] for t, group in tasks.items()}
    if any(shaped.values()):  # the overlong part of reward_mean (the verdict's correct rate is pass@1)
        out["reward/overlong"] = _metric({t: statistics.fmean(v) for t, v in shaped.items() if v}, 0, seed)
    out["statuses"] = dict(sorted(Counter(s.status for s in samples).items()))
    out["unjudged"] = sum(s.correct is None for s in samples)
    tokens = sorted(s.tokens for s in samples)
    out["tokens_mean"] = statistics.fmean(tokens) if tokens else 0.0
    out["tokens_p95"] = tokens[min(len(tokens) - 1, int(math.ceil(0.95 * len(tokens))) - 1)] if tokens else 0
    out["truncated_rate"] = sum(s.truncated for s in samples) / len(samples) if samples else 0.0
    out["by"] = _breakdown(tasks, ks, seed)
    return out


def _breakdown(tasks: Mapping[str, Sequence[Sample]], ks: Sequence[int], seed: int) -> dict[str, Any]:
    """pass@k by each task attribute (difficulty, source, ...) that the tasks carry."""
    by: dict[str, dict[str, dict[str, list[Sample]]]] = {}
    for task_id, samples in tasks.items():
        for name, value in samples[0].attributes.items():
            by.setdefault(name, {}).setdefault(str(value), {})[task_id] = list(samples)
    return {
        name: {
            value: {f"pass@{k}": _metric(*pass_at_k_over_tasks(sub, k), seed) for k in ks}
            for value, sub in groups.items()
        }
        for name, groups in by.items()
    }
