"""A property-based testing kit for verifiers: Hypothesis strategies and laws for *your* verifier.

Reward bugs silently ruin training runs: a verifier that rejects ``0.5`` for ``1/2`` starves
learning; one that accepts any superset teaches the model to spray answers. The laws:

- determinism, reward in range, totality (never raises, also on every family's cut-off thought),
  latency (every call killed at a bound; a slow verifier is reported within a few bounds, and
  laws that lost calls are "not checked");
- rendering invariance (equivalent forms, in the final-answer statements real models write,
  all score correct), reflexivity (the gold itself, stated as the answer, and every gold of
  ``check_verifier(..., golds=[...])``, is correct), discrimination (near misses do
  not), gaming resistance (format-only shells, sprays, several values in one box, tag
  injection, huge outputs never score correct), injections never pay (a completion talking to an
  LLM judge, a fake verdict, role tags, the "One Token to Fool" master keys), thinking never
  counts (a right answer only in a thinking section, in any reasoning-model family's format,
  with a wrong or no final answer or cut off, never scores correct), consistency (``correct`` agrees with ``status``).

Examples:
    >>> from verifiers import math as vm
    >>> from verifiers.testing import check_verifier
    >>> report = check_verifier(vm.verify, "math", max_examples=5)  # doctest: +SKIP
    >>> print(report)  # doctest: +SKIP
    law                    examples  result  counterexample / detail
    determinism                   5  passed
    ...

Each law is also a function in `verifiers.testing.laws` (``laws.totality(verify, reference,
completion)`` raises `LawBroken`), for use inside your own ``@given`` tests.

Strategies compose with your own tests: ``math_problems()`` draws a `Problem` (a gold answer
with ``renderings`` and ``near_misses`` strategies); ``numbers()``, ``expression_problems()``,
``answer_sets()``, ``intervals()``, ``matrices()``, ``pairs()`` draw one kind;
``expressions``/``renderings``/``near_misses`` work on sympy expressions;
``answer_statements(answer)`` and ``as_the_answer(gold)`` state an answer the ways models do;
``gaming_completions(gold)``, ``judge_injections(gold)``, ``thinking_completions(problem)``, ``garbage()`` and
``unbalanced_latex()`` draw hostile completions; ``programs_with_known_output()``,
``wrong_programs(n, k)``, ``test_suites(n, k)`` and ``code_problems()`` are the code counterparts.

Agentic tasks have a gaming suite: ``attack_tasks(tasks)`` runs scripted attack agents
(`ATTACKS`: planted reward files, tampered tests, ``PATH`` and workspace shims, ``sitecustomize``
and ``conftest.py`` hijacks, a background rewriter, a verifier killer, broken collection, links
out of the workspace, ``/proc`` snooping, a fork bomb, a full disk) against each task and reports
every attack judged correct and anything that reached the host or another session
(``grpo-envs tasks attack DIR...``).
"""

from __future__ import annotations

from verifiers.testing import laws
from verifiers.testing._agentic import AttackReport, AttackResult, attack_tasks
from verifiers.testing._answers import answer_statements, as_the_answer
from verifiers.testing._attacks import ATTACKS, Attack, output_paths
from verifiers.testing._check import (
    LAWS,
    Domain,
    LawResult,
    VerifierReport,
    assert_verifier_laws,
    check_verifier,
    from_batch_reward,
)
from verifiers.testing._code import code_problems, programs_with_known_output, test_suites, wrong_programs
from verifiers.testing._gaming import MASTER_KEYS, gaming_completions, garbage, judge_injections, unbalanced_latex
from verifiers.testing._laws import LawBroken
from verifiers.testing._math import expressions, near_misses, renderings
from verifiers.testing._problems import (
    Problem,
    answer_sets,
    expression_problems,
    intervals,
    math_problems,
    matrices,
    numbers,
    pairs,
)
from verifiers.testing._thinking import thinking_completions

__all__ = [
    "ATTACKS",
    "LAWS",
    "MASTER_KEYS",
    "Domain",
    "LawBroken",
    "LawResult",
    "Problem",
    "VerifierReport",
    "Attack",
    "AttackReport",
    "AttackResult",
    "answer_sets",
    "answer_statements",
    "as_the_answer",
    "assert_verifier_laws",
    "attack_tasks",
    "check_verifier",
    "code_problems",
    "expression_problems",
    "expressions",
    "from_batch_reward",
    "garbage",
    "judge_injections",
    "gaming_completions",
    "intervals",
    "laws",
    "math_problems",
    "matrices",
    "near_misses",
    "numbers",
    "output_paths",
    "pairs",
    "programs_with_known_output",
    "renderings",
    "test_suites",
    "thinking_completions",
    "unbalanced_latex",
    "wrong_programs",
]
