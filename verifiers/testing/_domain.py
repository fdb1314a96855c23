"""What `check_verifier` tests with (`Domain`: the built-in "math" and "code" ones, or yours)
and what it reports (`LawResult`, `VerifierReport`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from verifiers.errors import VerifierInputError
from verifiers.testing._answers import as_the_answer
from verifiers.testing._code import CODE_GAMING, code_problems
from verifiers.testing._gaming import HUGE, gaming_completions, garbage, judge_injections
from verifiers.testing._problems import Problem, math_problems
from verifiers.testing._thinking import cut_off_thinking, thinking_completions

__all__ = ["Domain", "LawResult", "VerifierReport", "domain_of"]


@dataclass(frozen=True)
class Domain:
    """What to test a verifier with: problems (gold + renderings + near misses), gaming
    completions for a gold, garbage, and how a problem's gold becomes the verifier's reference."""

    name: str
    problems: st.SearchStrategy[Problem]
    gaming: Callable[[str], st.SearchStrategy[str]]
    garbage: st.SearchStrategy[str]
    reference: Callable[[str], Any] = lambda gold: gold
    default_examples: int = 60
    as_answer: Callable[[str], st.SearchStrategy[str]] | None = as_the_answer
    """The gold stated as the answer, for the reflexivity law (None: the law does not apply)."""
    isolation: str = "process"
    """How `check_verifier` bounds each call: "process" (killable) or "thread" (see `Guard`)."""
    thinking: Callable[[Problem], st.SearchStrategy[str]] | None = thinking_completions
    """A right answer only in a thinking section, for the thinking_never_counts law (None: off)."""
    injections: Callable[[str], st.SearchStrategy[str]] | None = judge_injections
    """Completions aimed at an LLM judge, for the injections_never_pay law (None: off)."""
    cut_off: Callable[[Problem], st.SearchStrategy[str]] | None = cut_off_thinking
    """Thinking sections that never closed (cut off, or the turn ended inside), for the totality
    law, which also tries one of each family first (None: text without thinking, such as code)."""


def domain_of(domain: str | Domain) -> Domain:
    """A `Domain` given as itself or by name ("math", "code")."""
    if isinstance(domain, Domain):
        return domain
    if domain == "math":
        return Domain("math", math_problems(), gaming_completions, garbage())
    if domain == "code":
        return Domain(
            "code",
            code_problems(),
            lambda gold: st.sampled_from(CODE_GAMING),
            st.one_of(st.text(max_size=100), st.sampled_from(["", "x" * HUGE, "```python\n" * 50])),
            reference=json.loads,
            default_examples=8,
            as_answer=None,
            isolation="thread",
            injections=None,
            cut_off=None,
        )
    raise VerifierInputError(f"domain must be 'math', 'code' or a verifiers.testing.Domain, got {domain!r}")


@dataclass(frozen=True)
class LawResult:
    """One law's verdict, with the counterexample (reference, completion) when it failed."""

    law: str
    ok: bool
    examples: int
    counterexample: tuple[str, str] | None = None
    detail: str = ""
    checked: bool = True
    """False when calls were lost to the latency bound: the law was not checked (and not ok)."""
    failures: tuple[tuple[str, str, str], ...] = ()
    """Every (gold, completion, detail) that failed, for laws run over a list (``golds=``)."""


_ROW = (60, 80)
"""A counterexample this short (reference, completion) stays on its law's row."""
WHOLE = 4000
"""Longer counterexamples show their first and last ``WHOLE // 2`` characters and how many lie between."""


def _whole(text: str) -> str:
    """``text`` as a repr, whole up to `WHOLE` characters; else its two ends and the count elided."""
    if len(text) <= WHOLE:
        return repr(text)
    half = WHOLE // 2
    return f"{text[:half]!r} ...[{len(text) - 2 * half} characters]... {text[-half:]!r}"


@dataclass(frozen=True)
class VerifierReport:
    """Every law's result; ``ok`` when all held. ``str(report)`` is a table."""

    ok: bool
    laws: tuple[LawResult, ...] = field(default_factory=tuple)
    note: str = ""
    """What the run's budget did to a slow verifier (empty when nothing was abandoned)."""

    def table(self) -> str:
        lines = [f"{'law':<22}{'examples':>9}  {'result':<11} counterexample / detail"]
        for r in self.laws:
            verdict = "passed" if r.ok else ("FAILED" if r.checked else "NOT CHECKED")
            line = f"{r.law:<22}{r.examples:>9}  {verdict:<11}"
            if not r.checked:
                line += f" {r.detail[:200]}"
            elif not r.ok:
                ref, comp = r.counterexample or ("", "")
                if len(ref) <= _ROW[0] and len(comp) <= _ROW[1]:
                    line += f" reference={ref!r} completion={comp!r}: {r.detail}"
                else:  # whole, on lines of its own: the decisive part is often the tail
                    line += f" {r.detail}\n{'':<4}reference:  {_whole(ref)}\n{'':<4}completion: {_whole(comp)}"
            lines.append(line.rstrip())
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()
