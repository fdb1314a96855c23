"""What a run's rollouts say about its learning signal, in words that say what happened.

A step in which every group's judged completions scored the same teaches nothing, for different
reasons: every group solved (the tasks are learned: good news), no group solved (too hard, or an
answer format the model does not write), each task always solved or always failed (the policy no
longer varies within a task), no completion judged at all, or equal rewards with no verdicts to
say why. Each is said once per run, after `FLAT_STEPS` such steps in a row. At the end, a run
whose completions were mostly (more than half) unjudged gets one line naming the share and the first reason.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from typing import Any

__all__ = ["FLAT_STEPS", "SignalWatch", "describe", "flat_kind"]

log = logging.getLogger("trainer")
FLAT_STEPS = 5
_ADVICE = {
    "solved": (
        logging.INFO,
        "all groups solved for %d steps in a row (every completion correct; last step: %s): these tasks have "
        "nothing left to teach; stop here, or make them harder (env_kwargs).",
    ),
    "unsolved": (
        logging.WARNING,
        "no group solved for %d steps in a row (every completion wrong; last step: %s): no signal to learn "
        "from. Are the tasks too hard for the model, or is the answer format one it does not write? Try "
        "easier tasks, a larger max_new_tokens, or a model that follows the format.",
    ),
    "split": (
        logging.WARNING,
        "for %d steps in a row each task's completions all scored the same (last step: %s): each task is "
        "always solved or never, so no group has a signal. A higher temperature or a larger num_generations "
        "makes a task's samples differ.",
    ),
    "unjudged": (
        logging.WARNING,
        "no completion was judged for %d steps in a row (first reason: %s): nothing is being learned. Fix "
        "the verifier or its infrastructure (timeouts, the Docker engine).",
    ),
    "flat": (
        logging.WARNING,
        "for %d steps in a row every group's completions scored the same (zero reward variance; last step: "
        "%s): nothing is being learned. Can the env's rewards differ (does its reference completion score "
        "more than a wrong one)? Try a higher temperature, a larger num_generations, or easier tasks.",
    ),
}
_SOLVED_OR_NOT = {"solved", "unsolved", "split"}


def flat_kind(groups: Sequence[Sequence[Any]]) -> str | None:
    """None when some group's judged rewards differ; else why none does: "solved" (every judged
    completion correct), "unsolved" (every one wrong), "split" (each group all correct or all
    wrong, both kinds present), "unjudged" (nothing judged) or "flat" (equal rewards, no verdicts)."""
    if any(len({r.reward for r in g if r.judged}) > 1 for g in groups):
        return None
    judged = [r for g in groups for r in g if r.judged]
    if not judged:
        return "unjudged"
    if all(r.correct is True for r in judged):
        return "solved"
    if all(r.correct is False for r in judged):
        return "unsolved"
    return "split" if all(r.correct is not None for r in judged) else "flat"


def describe(kind: str, groups: Sequence[Sequence[Any]]) -> str:
    """The step's detail behind ``kind``: the first reason nothing was judged, how many groups were
    solved, or the statuses."""
    if kind == "unjudged":
        return next((r.reason or r.status for g in groups for r in g if not r.judged), "none")
    if kind == "split":
        solved = sum(all(r.correct for r in g if r.judged) for g in groups if any(r.judged for r in g))
        return f"{solved} of {len(groups)} groups all solved, the rest none"
    return f"statuses {dict(Counter(r.status for g in groups for r in g if r.judged))}"


class SignalWatch:
    """Counts a run's steps without signal and its unjudged completions; says each kind once."""

    def __init__(self) -> None:
        self.streak: list[str] = []  # the kinds of the steps without signal since the last with one
        self.said: set[str] = set()
        self.steps = 0
        self.completions = 0
        self.unjudged = 0
        self.first_reason: str | None = None

    def step(self, groups: Sequence[Sequence[Any]]) -> str | None:
        """Take a step's rollouts; returns the kind said now (logged), if any. The kind of a streak
        of `FLAT_STEPS` is theirs when they agree; solved, unsolved and split steps mixed are
        "split"; any other mix is "flat"."""
        flat = [r for g in groups for r in g]
        self.steps += 1
        self.completions += len(flat)
        unjudged = [r for r in flat if not r.judged]
        self.unjudged += len(unjudged)
        if unjudged and self.first_reason is None:
            self.first_reason = unjudged[0].reason or unjudged[0].status
        found = flat_kind(groups)
        self.streak = [*self.streak, found] if found else []
        if len(self.streak) < FLAT_STEPS:
            return None
        kinds = set(self.streak[-FLAT_STEPS:])
        kind = kinds.pop() if len(kinds) == 1 else ("split" if kinds <= _SOLVED_OR_NOT else "flat")
        if kind in self.said:
            return None
        self.said.add(kind)
        level, text = _ADVICE[kind]
        log.log(level, text, FLAT_STEPS, describe(kind, groups))
        return kind

    @property
    def unjudged_frac(self) -> float:
        return self.unjudged / self.completions if self.completions else 0.0

    def summary(self) -> str | None:
        """One line when more than half of the completions were not judged, else None."""
        if not self.completions or self.unjudged_frac <= 0.5:
            return None
        return (
            f"{self.unjudged} of {self.completions} completions ({self.unjudged_frac:.0%}) in {self.steps} steps were "
            f"not judged (masked out of the loss); the first: {self.first_reason}"
        )
