"""`check_verifier`: every law of `verifiers.testing.laws`, each run by Hypothesis on its own
kinds of examples (renderings, the gold as the answer, near misses, gaming completions,
garbage), into a report.

Every call goes through one `Guard` for the whole run (`_runner`): killed at ``latency_s`` in a
forked worker process, and once the verifier has been abandoned twice, inputs as long as the
shortest one that timed out are no longer sent; after four, nothing is. A call that times out
fails the latency law; any other law that lost calls to the bound reports "not checked", never
"passed". A latency failure is reported without shrinking.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky, HypothesisWarning, Unsatisfiable, UnsatisfiedAssumption

from verifiers.errors import VerifierInputError
from verifiers.testing import _laws
from verifiers.testing._domain import Domain, LawResult, VerifierReport, domain_of
from verifiers.testing._gaming import HUGE
from verifiers.testing._runner import STOP_AFTER, Abandon, Guard
from verifiers.testing._thinking import OPENED_BY_TEMPLATE, every_cut_off, opened_thinking

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


def _run_law(
    law: str,
    strategy: st.SearchStrategy[tuple[str, Any, str]],
    check: Callable[[Any, str], None],
    max_examples: int,
    *,
    explicit: Sequence[tuple[str, Any, str]] = (),
    shrink: bool = True,
    seed: int | None = None,
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
    if seed is not None:
        test = hypothesis_seed(seed)(test)
    test = settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=seed is None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        print_blob=False,
    )(test)
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
    except (Unsatisfiable, Abandon):  # calls lost to the latency bound: `check_verifier` says why
        return LawResult(law, False, seen["n"], checked=False, detail="not checked: no call finished in time")
    return LawResult(law, True, seen["n"])


def _cases(d: Domain, kinds: Sequence[str]) -> st.SearchStrategy[tuple[str, Any, str]]:
    @st.composite
    def draw_case(draw: st.DrawFn) -> tuple[str, Any, str]:
        problem = draw(d.problems)
        kind = draw(st.sampled_from([k for k in kinds if k != "cut_off" or d.cut_off is not None]))
        completion = draw(
            {
                "rendering": problem.renderings,
                "near_miss": problem.near_misses,
                "gaming": d.gaming(problem.gold),
                "garbage": d.garbage,
                "gold": d.as_answer(problem.gold) if d.as_answer is not None else st.nothing(),
                "thinking": d.thinking(problem) if d.thinking is not None else st.nothing(),
                "injection": d.injections(problem.gold) if d.injections is not None else st.nothing(),
                "cut_off": d.cut_off(problem) if d.cut_off is not None else st.nothing(),
            }[kind]
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
    golds: Sequence[str] = (),
    isolation: str | None = None,
    seed: int | None = None,
    opened_thought: Callable[[str], Verify] | None = None,
) -> VerifierReport:
    """Run the laws on ``verify(reference, completion)``; returns a `VerifierReport`.

    Laws: ``determinism``, ``reward_range``, ``totality``, ``latency``, ``rendering_invariance``,
    ``reflexivity``, ``discrimination``, ``gaming_resistance``, ``injections_never_pay``,
    ``thinking_never_counts``, ``consistency`` (see `LAWS`); leave any out with ``laws=[...]``.
    ``domain`` is "math", "code" or a `Domain` of your own strategies. ``golds``: your own
    dataset's gold answers; reflexivity then also checks each of them, stated as the answer, and
    the report lists every one that fails. The draws are the same on every run (derandomized);
    ``seed=N`` draws another sample (a test sweeping seeds finds what one sample misses).
    ``opened_thought``: given a thinking format's name, the verifier told that the chat template
    opened that thought in the prompt (``lambda name: partial(vm.verify,
    config=vm.MathConfig(thought_opened=name))``); the thinking law then also draws thoughts the
    template opened (cut off with no delimiter at all, ended inside, closed with a wrong final
    answer) for each family of `OPENED_BY_TEMPLATE`, and judges them with it.

    Bounded: each call is killed at ``latency_s`` (``isolation="process"``, the math default: a
    forked worker, so a busy loop is stopped too; ``"thread"`` abandons it instead), and a slow
    verifier costs at most about ``4 x latency_s`` more than a fast one: after two abandoned
    calls, inputs at least as long as the shortest that timed out are skipped, after four the
    remaining laws make no call; laws that lost calls say "not checked".

    Examples:
        >>> from verifiers import math as vm
        >>> report = check_verifier(vm.verify, "math", max_examples=10)  # doctest: +SKIP
        >>> report.ok  # doctest: +SKIP
        True
    """
    d = domain_of(domain)
    n = d.default_examples if max_examples is None else max_examples
    chosen = list(laws or [law for law in LAWS if _applies(law, d)])
    if golds and "reflexivity" not in chosen:
        chosen.append("reflexivity")
    _validate(d, chosen, reward_range, n, golds, isolation or d.isolation)
    guard = Guard(verify, top=reward_range[1], isolation=isolation or d.isolation)
    results = []
    try:
        for law in chosen:
            guard.law = law
            result = _one_law(law, d, guard, n, latency_s, reward_range, golds, seed)
            if law == "thinking_never_counts" and opened_thought is not None and result.ok:
                result = _opened_by_template(opened_thought, d, n, latency_s, reward_range, seed, isolation) or result
            results.append(result)
    finally:
        guard.close()
    return VerifierReport(all(r.ok for r in results), tuple(results), _budget_note(guard, latency_s))


def _opened_thinking(problem: Any, name: str) -> st.SearchStrategy[str]:
    return opened_thinking(problem, name)


def _opened_by_template(
    opened: Callable[[str], Verify],
    d: Domain,
    n: int,
    latency_s: float,
    reward_range: tuple[float, float],
    seed: int | None,
    isolation: str | None,
) -> LawResult | None:
    """The thinking law again on thoughts a chat template opened, each family's verifier told so
    (``opened(name)``): the first failing result (its detail naming the family), else None."""
    for name in OPENED_BY_TEMPLATE:
        told = Guard(opened(name), top=reward_range[1], isolation=isolation or d.isolation)
        told.law = "thinking_never_counts"
        try:
            drawn = replace(d, thinking=partial(_opened_thinking, name=name))
            result = _one_law("thinking_never_counts", drawn, told, n, latency_s, reward_range, (), seed)
        finally:
            told.close()
        if not result.ok:
            why = f"the chat template opened the thought ({name!r}): {result.detail}".rstrip(": ")
            return replace(result, detail=why)
    return None


def _applies(law: str, d: Domain) -> bool:
    """Whether ``law`` runs by default on ``d`` (a law needs the strategy it draws from)."""
    needs = {"reflexivity": d.as_answer, "thinking_never_counts": d.thinking, "injections_never_pay": d.injections}
    return needs.get(law, True) is not None


def _validate(
    d: Domain, chosen: Sequence[str], reward_range: tuple[float, float], n: int, golds: Sequence[str], isolation: str
) -> None:
    unknown = set(chosen) - set(LAWS)
    if unknown:
        raise VerifierInputError(f"unknown laws {sorted(unknown)}; pass some of {list(LAWS)}")
    if not reward_range[0] < reward_range[1]:
        raise VerifierInputError(f"reward_range must be (low, high) with low < high, got {reward_range}")
    if n < 1:
        raise VerifierInputError(f"max_examples must be at least 1, got {n}")
    if "reflexivity" in chosen and d.as_answer is None:
        raise VerifierInputError(f"the reflexivity law does not apply to the {d.name!r} domain (no as_answer)")
    if "injections_never_pay" in chosen and d.injections is None:
        raise VerifierInputError(
            f"the injections_never_pay law does not apply to the {d.name!r} domain (no injections)"
        )
    if "thinking_never_counts" in chosen and d.thinking is None:
        raise VerifierInputError(f"the thinking_never_counts law does not apply to the {d.name!r} domain (no thinking)")
    if isinstance(golds, str) or not all(isinstance(g, str) and g.strip() for g in golds):
        raise VerifierInputError("golds must be a list of non-empty strings (a dataset's answer column)")
    if isolation not in ("process", "thread"):
        raise VerifierInputError(f"isolation must be 'process' or 'thread', got {isolation!r}")


_PLAN: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "determinism": (ALL_KINDS, {}),
    "reward_range": (ALL_KINDS, {}),
    "totality": (("garbage", "gaming", "near_miss", "rendering", "cut_off"), {"explicit": "huge"}),
    "latency": (("garbage", "gaming"), {"explicit": "huge", "shrink": False}),
    "rendering_invariance": (("rendering",), {}),
    "reflexivity": (("gold",), {}),
    "discrimination": (("near_miss",), {}),
    "gaming_resistance": (("gaming",), {}),
    "injections_never_pay": (("injection",), {}),
    "thinking_never_counts": (("thinking",), {}),
    "consistency": (ALL_KINDS, {}),
}


def _one_law(
    law: str,
    d: Domain,
    guard: Guard,
    n: int,
    latency_s: float,
    reward_range: tuple[float, float],
    golds: Sequence[str],
    seed: int | None = None,
) -> LawResult:
    if guard.stopped:
        return LawResult(
            law,
            False,
            0,
            guard.slow_case if law == "latency" else None,
            _lost(guard, law, latency_s),
            checked=law == "latency",
        )
    kinds, extra = _PLAN[law]
    law_fn = _laws.LAWS[law]

    def check(reference: Any, completion: str) -> None:
        law_fn(guard, reference, completion, latency_s=latency_s, reward_range=reward_range)

    options = dict(extra)
    if options.get("explicit") == "huge":
        options["explicit"] = [("0", d.reference(g), c) for g, c in _explicit_garbage(d)]
    result = _run_law(law, _cases(d, kinds), check, n, seed=seed, **options)
    if law == "reflexivity" and golds and result.checked:
        result = _check_golds(result, d, guard, golds, check)
    if law == "latency" and guard.total_abandoned and (result.ok or not result.checked):
        return LawResult(law, False, result.examples, guard.slow_case, _lost(guard, law, latency_s))
    if law != "latency" and (guard.abandoned[law] or guard.skipped[law]):
        return LawResult(
            law, False, result.examples, result.counterexample, _lost(guard, law, latency_s), checked=False
        )
    return result


def _lost(guard: Guard, law: str, latency_s: float) -> str:
    if law == "latency":
        return (
            f"took longer than {latency_s:g} s on {guard.total_abandoned} call(s) (abandoned); shortest input "
            f"{guard.shortest} characters"
        )
    if not guard.abandoned[law] and not guard.skipped[law]:
        return f"not checked: the verifier was abandoned {guard.total_abandoned} times before; no call was made"
    return (
        f"not checked: the verifier exceeded the latency bound ({guard.abandoned[law]} call(s) abandoned, "
        f"{guard.skipped[law]} skipped)"
    )


def _budget_note(guard: Guard, latency_s: float) -> str:
    if not guard.total_abandoned:
        return ""
    note = (
        f"the verifier was abandoned at {latency_s:g} s on {guard.total_abandoned} call(s); after 2, inputs "
        f"of >= {guard.shortest} characters were skipped"
    )
    return note + (f"; after {STOP_AFTER}, no more calls were made" if guard.stopped else "")


def _check_golds(
    result: LawResult, d: Domain, guard: Guard, golds: Sequence[str], check: Callable[[Any, str], None]
) -> LawResult:
    """Each user gold, in each form `as_the_answer` gives it, outside Hypothesis: every failure listed."""
    assert d.as_answer is not None
    failures: list[tuple[str, str, str]] = []
    examples = result.examples
    for gold in golds:
        for completion in _forms(d.as_answer(gold)):
            examples += 1
            try:
                check(d.reference(gold), completion)
            except _laws.LawBroken as broken:
                failures.append((gold, completion, broken.detail))
                break  # one form is enough to list this gold
            except UnsatisfiedAssumption:  # hypothesis.reject(): the call was lost to the bound
                pass
    if not failures:
        return LawResult(result.law, result.ok, examples, result.counterexample, result.detail)
    first = failures[0]
    detail = f"{len(failures)} of your {len(golds)} golds are not judged equal to themselves; first: {first[2]}"
    if not result.ok:
        detail += f" (and a drawn gold failed too: {result.counterexample})"
    return LawResult(result.law, False, examples, (first[0], first[1]), detail, failures=tuple(failures))


def _forms(strategy: st.SearchStrategy[str]) -> list[str]:
    """The values of a ``sampled_from`` strategy (the forms of the gold as the answer)."""
    elements = getattr(getattr(strategy, "wrapped_strategy", strategy), "elements", None)
    return list(elements) if elements is not None else [strategy.example()]


LAWS = tuple(_laws.LAWS)
"""The law names, in the order `check_verifier` runs them."""


def _explicit_garbage(d: Domain) -> list[tuple[str, str]]:
    """Long inputs every run tries first (so a verifier slow on long text is caught at once)."""
    gold = "0" if d.name != "code" else json.dumps({"stdin_stdout": [{"input": "", "output": "0\n"}]})
    long = [(gold, "x" * HUGE), (gold, "1 " * 15_000), (gold, "\\boxed{" + "9" * 5000 + "}")]
    thoughts = [(gold, text) for text in every_cut_off(gold)] if d.cut_off is not None else []
    return long + thoughts if d.name == "code" else long + [(gold, text) for text in MALFORMED] + thoughts


MALFORMED = (
    "(1, 2",
    "[0, 1",
    "1, 2)",
    "\\frac{1}{",
    "\\frac{",
    "{{{",
    "}}}",
    "\\sqrt{2",
    "x^{",
    "\\begin{pmatrix} 1 & 2",
    "\\end{pmatrix}",
    "\\left( 1",
    "\\boxed{(1, 2}",
    "\\boxed{",
    "$",
    "$$ 1",
    "\\{1, 2",
    "\\infty)",
    "1/0",
    "0/0",
    "10^{10^{10}}",
    "\x00\n\t",
    "\\boxed{\\boxed{}}",
)
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


def from_batch_reward(
    fn: Callable[..., Sequence[float | None]], *, reference_column: str = "reference", conversational: bool = False
) -> Verify:
    """Wrap a TRL-style batch reward function ``fn(prompts, completions, **columns)`` as a
    ``verify(reference, completion) -> float`` for the laws (the reference goes in
    ``reference_column``)."""

    def verify(reference: Any, completion: str) -> float:
        completions: list[Any] = [[{"role": "assistant", "content": completion}]] if conversational else [completion]
        value = fn(prompts=[""], completions=completions, completion_ids=[[]], **{reference_column: [reference]})[0]
        return 0.0 if value is None else float(value)

    return verify
