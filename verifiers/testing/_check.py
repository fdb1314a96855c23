"""`check_verifier`: every law of `verifiers.testing.laws`, each run by Hypothesis on its own
kinds of examples (renderings, near misses, gaming completions, garbage), into a report.

A call that times out counts against the latency law only (the other laws skip that example);
a latency failure is reported without shrinking, so a verifier that sleeps cannot eat the budget.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky, HypothesisWarning

from verifiers.errors import VerifierInputError
from verifiers.testing import laws as _laws
from verifiers.testing._code import CODE_GAMING, code_problems
from verifiers.testing._gaming import HUGE, gaming_completions, garbage
from verifiers.testing._problems import Problem, math_problems

__all__ = [
    "LAWS",
    "Domain",
    "LawResult",
    "VerifierReport",
    "assert_verifier_laws",
    "check_verifier",
    "from_batch_reward",
]

Verify = Callable[[Any, str], Any]


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


def _domain(domain: str | Domain) -> Domain:
    if isinstance(domain, Domain):
        return domain
    if domain == "math":
        return Domain("math", math_problems(), gaming_completions, garbage())
    if domain == "code":
        return Domain("code", code_problems(), lambda gold: st.sampled_from(CODE_GAMING),
                      st.one_of(st.text(max_size=100), st.sampled_from(["", "x" * HUGE, "```python\n" * 50])),
                      reference=json.loads, default_examples=8)  # fmt: skip
    raise VerifierInputError(f"domain must be 'math', 'code' or a verifiers.testing.Domain, got {domain!r}")


@dataclass(frozen=True)
class LawResult:
    """One law's verdict, with the counterexample (reference, completion) when it failed."""

    law: str
    ok: bool
    examples: int
    counterexample: tuple[str, str] | None = None
    detail: str = ""


@dataclass(frozen=True)
class VerifierReport:
    """Every law's result; ``ok`` when all held. ``str(report)`` is a table."""

    ok: bool
    laws: tuple[LawResult, ...] = field(default_factory=tuple)

    def table(self) -> str:
        lines = [f"{'law':<22}{'examples':>9}  {'result':<7} counterexample / detail"]
        for r in self.laws:
            line = f"{r.law:<22}{r.examples:>9}  {'passed' if r.ok else 'FAILED':<7}"
            if not r.ok:
                ref, comp = r.counterexample or ("", "")
                line += f" reference={ref[:60]!r} completion={comp[:80]!r}: {r.detail[:200]}"
            lines.append(line.rstrip())
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _run_law(
    law: str,
    strategy: st.SearchStrategy[tuple[str, Any, str]],
    check: Callable[[Any, str], None],
    max_examples: int,
    *,
    explicit: Sequence[tuple[str, Any, str]] = (),
    shrink: bool = True,
) -> LawResult:
    seen = {"n": 0}
    failures: list[tuple[str, str, str]] = []

    def body(case: tuple[str, Any, str]) -> None:
        gold, reference, completion = case
        seen["n"] += 1
        try:
            check(reference, completion)
        except _laws.LawBroken as broken:
            failures.append((gold, completion, broken.detail))
            raise

    phases = (Phase.explicit, Phase.reuse, Phase.generate) + ((Phase.shrink,) if shrink else ())
    test = given(strategy)(body)
    for case in explicit:
        test = example(case)(test)
    test = settings(
        max_examples=max_examples, deadline=None, database=None, derandomize=True, phases=phases,
        suppress_health_check=list(HealthCheck), report_multiple_bugs=False, print_blob=False,
    )(test)  # fmt: skip
    try:
        with warnings.catch_warnings():  # we report the counterexample ourselves, not Hypothesis' repr of it
            warnings.simplefilter("ignore", HypothesisWarning)
            test()
    except Flaky as exc:
        gold, completion, _ = failures[-1] if failures else ("", "", "")
        return LawResult(
            law, False, seen["n"], (gold, completion), f"non-deterministic verdicts ({type(exc).__name__})"
        )
    except _laws.LawBroken:
        gold, completion, problem = failures[-1]
        return LawResult(law, False, seen["n"], (gold, completion), problem)
    return LawResult(law, True, seen["n"])


def _cases(d: Domain, kinds: Sequence[str]) -> st.SearchStrategy[tuple[str, Any, str]]:
    @st.composite
    def draw_case(draw: st.DrawFn) -> tuple[str, Any, str]:
        problem = draw(d.problems)
        kind = draw(st.sampled_from(list(kinds)))
        completion = draw(
            {
                "rendering": problem.renderings,
                "near_miss": problem.near_misses,
                "gaming": d.gaming(problem.gold),
                "garbage": d.garbage,
            }[kind]  # fmt: skip
        )
        return problem.gold, d.reference(problem.gold), completion

    return draw_case()


ALL_KINDS = ("rendering", "near_miss", "gaming", "garbage")


def check_verifier(
    verify: Verify,
    domain: str | Domain = "math",
    *,
    max_examples: int | None = None,
    latency_s: float = 3.0,
    reward_range: tuple[float, float] = (0.0, 1.0),
    laws: Sequence[str] | None = None,
) -> VerifierReport:
    """Run the laws on ``verify(reference, completion)``; returns a `VerifierReport`.

    Laws: ``determinism``, ``reward_range``, ``totality``, ``latency``, ``rendering_invariance``,
    ``discrimination``, ``gaming_resistance``, ``consistency`` (see `LAWS`). ``domain`` is
    "math", "code" or a `Domain` of your own strategies.

    Example:
        >>> from verifiers import math as vm
        >>> report = check_verifier(vm.verify, "math", max_examples=10)  # doctest: +SKIP
        >>> report.ok  # doctest: +SKIP
        True
    """
    d = _domain(domain)
    n = d.default_examples if max_examples is None else max_examples
    chosen = list(laws or LAWS)
    unknown = set(chosen) - set(LAWS)
    if unknown:
        raise VerifierInputError(f"unknown laws {sorted(unknown)}; pass some of {list(LAWS)}")
    if not reward_range[0] < reward_range[1]:
        raise VerifierInputError(f"reward_range must be (low, high) with low < high, got {reward_range}")
    if n < 1:
        raise VerifierInputError(f"max_examples must be at least 1, got {max_examples}")

    huge = [("0", d.reference(g), c) for g, c in _explicit_garbage(d)]
    plan: dict[str, tuple[Sequence[str], dict[str, Any]]] = {
        "determinism": (ALL_KINDS, {}),
        "reward_range": (ALL_KINDS, {}),
        "totality": (("garbage", "gaming", "near_miss", "rendering"), {"explicit": huge}),
        "latency": (("garbage", "gaming"), {"explicit": huge, "shrink": False}),
        "rendering_invariance": (("rendering",), {}),
        "discrimination": (("near_miss",), {}),
        "gaming_resistance": (("gaming",), {}),
        "consistency": (ALL_KINDS, {}),
    }
    results = []
    for law in chosen:
        kinds, extra = plan[law]
        law_fn = _laws.LAWS[law]

        def check(reference: Any, completion: str, law_fn: Callable[..., None] = law_fn) -> None:
            law_fn(verify, reference, completion, latency_s=latency_s, reward_range=reward_range)

        results.append(_run_law(law, _cases(d, kinds), check, n, **extra))
    return VerifierReport(all(r.ok for r in results), tuple(results))


LAWS = tuple(_laws.LAWS)
"""The law names, in the order `check_verifier` runs them."""


def _explicit_garbage(d: Domain) -> list[tuple[str, str]]:
    """Long inputs every run tries first (so a verifier slow on long text is caught at once)."""
    gold = "0" if d.name != "code" else json.dumps({"stdin_stdout": [{"input": "", "output": "0\n"}]})
    long = [(gold, "x" * HUGE), (gold, "1 " * 15_000), (gold, "\\boxed{" + "9" * 5000 + "}")]
    return long if d.name == "code" else long + [(gold, text) for text in MALFORMED]


MALFORMED = (
    "(1, 2", "[0, 1", "1, 2)", "\\frac{1}{", "\\frac{", "{{{", "}}}", "\\sqrt{2", "x^{",
    "\\begin{pmatrix} 1 & 2", "\\end{pmatrix}", "\\left( 1", "\\boxed{(1, 2}", "\\boxed{", "$", "$$ 1",
    "\\{1, 2", "\\infty)", "1/0", "0/0", "10^{10^{10}}", "\x00\n\t", "\\boxed{\\boxed{}}",
)  # fmt: skip
"""Malformed answers every math run tries first (unbalanced brackets, cut LaTeX, x/0)."""


def assert_verifier_laws(verify: Verify, domain: str | Domain = "math", **kwargs: Any) -> VerifierReport:
    """`check_verifier`, raising ``AssertionError`` with the report's table when a law fails.

    Example (inside a test):
        >>> def test_my_verifier():  # doctest: +SKIP
        ...     assert_verifier_laws(my_verify, "math")
    """
    report = check_verifier(verify, domain, **kwargs)
    if not report.ok:
        raise AssertionError("the verifier broke a law:\n" + report.table())
    return report


def from_batch_reward(fn: Callable[..., Sequence[float | None]], *, reference_column: str = "reference",
                      conversational: bool = False) -> Verify:  # fmt: skip
    """Wrap a TRL-style batch reward function ``fn(prompts, completions, **columns)`` as a
    ``verify(reference, completion) -> float`` for the laws (the reference goes in
    ``reference_column``)."""

    def verify(reference: Any, completion: str) -> float:
        completions: list[Any] = [[{"role": "assistant", "content": completion}]] if conversational else [completion]
        value = fn(prompts=[""], completions=completions, completion_ids=[[]], **{reference_column: [reference]})[0]
        return 0.0 if value is None else float(value)

    return verify
