"""Math answers judged by mathematics: extraction, a safe parser, sympy equivalence.

The grading policy is a careful MATH grader's; each rule is a `MathConfig` field:

- **Which answer.** The *final* answer statement or the *final run* of boxes (grammar in
  `verifiers.math._statements`): ``\\boxed{}``/``\\fbox{}``; "the answer is", "The final
  answer is", ``A: 42``, ``**Answer:** 42``, "Answer (in digits): 42", a ``**Final Answer**``
  heading, ``####``; else a whole completion that is one short line; else the value the last
  complete sentence asserts ("..., so the probability is 2/3."); with ``last_number_fallback``
  the last number. Only text after ``</think>`` and before chat-template tokens counts;
  courtesy sentences ("I hope it is correct.") are ignored. Earlier answers are reasoning and
  the last one stands (self-correction). Boxes side by side (``\\boxed{1}, \\boxed{2}``) are
  one collection answer, correct only for a gold collection (in a *gold*, boxes apart by a short
  label are one list too: ``\\boxed{3} apples and \\boxed{7} pears``; in a completion the last
  box stands); several values where the gold
  has one ("3 or 4", ``\\boxed{3, 4}``, ``\\boxed{3} \\boxed{4}``) are incorrect. An explicit
  answer that does not parse is "unparseable"; nothing committed (or a cut-off output) is
  "no_answer".
- **Formatting never matters**: ``$``, ``\\(\\)``, ``\\left``, ``\\dfrac``, ``\\text{}``, ``\\quad``
  (also glued: ``x_1=4,\\quadx_2=9``), thousands separators (``11,\\! 111``), unicode minus,
  trailing units, case of text and choice letters. "$5$ is the answer" states 5.
- **Numbers**: exact. Integers are never approximate; an exact gold equals a decimal only if
  it is the same number (``0.375 = 3/8``, ``0.\\overline{3} = 1/3``, but ``3.14 != \\pi``); a
  decimal gold equals a more precise prediction that rounds to it (``decimal_rounding``).
  ``25\\%`` equals ``25`` (and ``0.25`` only with ``percent_as_fraction``); degrees are
  dropped. An exact value followed by its approximation is the exact value (``x = 2/7 \\approx
  0.29`` is 2/7, whatever the approximation); ``x \\approx 0.29`` states 0.29. Mixed numbers,
  scientific notation, ``i``, ``e`` and principal roots are read. A decimal comma (``3,5`` =
  3.5) is read only with ``decimal_comma`` (off: it conflicts with thousands separators and
  with lists written without spaces).
- **Reflexivity**: the gold, stated as the answer, is always correct, read or not (an answer
  written exactly as the gold, up to formatting and spacing, equals it).
- **Structures**: ordered tuples (``(0;-2;6)`` too); unordered sets and lists by ``,``, ``;``,
  "or", "and" (complete matches only; ``p=5, q=2; p=7, q=2`` is two solutions, equal to ``(5, 2), (7, 2)``);
  ``\\pm``; intervals with their ends, unions and one-variable inequalities (either way round:
  ``-x > -1`` is ``x < 1``; ``x \\neq 1``; ``1 \\le |z| \\le 2`` is two intervals; a finite set
  among intervals is its points; the variable may be a function's value: ``0 < f(x) < 1`` is
  ``(0, 1)``); matrices in any bracket; ``x = v`` equals ``v`` (``equation_as_value``; also a
  quantity of names equal to a constant, ``AB = 4``, ``|AB| = 2\\sqrt{3}``, ``S_{ABC} = 12``,
  ``\\frac{AM}{MB} = \\frac{2}{3}``, but not ``2x = 4``; and ``(p, q) = (3, 2)``;
  two or more values named on both sides must match by name: ``q = 2, p = 3`` is ``(p, q) = (3, 2)``,
  ``k = 2, n = 45`` is not ``k = 45, n = 2``);
  equations equal up to a factor; ratios ``7:32`` (also ``S_1:S_2 = 7:32``) equal proportional ratios
  with the terms in order, never a number.
  Other comparisons are compared term by term (``f(2) < f(1) < f(4)`` = ``f(4) > f(1) > f(2)``);
  ``AB \\perp CD`` and ``AB \\parallel CD`` either way round.
- **Symbolic**: expansion, factoring, trig identities (sympy, then random-point sampling);
  towers like ``4^{2^{99}}`` compared exactly without being computed.

Safety: model text is parsed by our own recursive-descent parser; no string ever reaches
``sympify``/``parse_expr``/``eval``. Plain numeric answers are judged in-process (the fast
path); anything needing sympy runs in a worker process killed at ``timeout_s``.

Example:
    >>> from verifiers import math as vm
    >>> r = vm.verify("\\\\frac{1}{2}", "Half of them, so the answer is $0.5$.")
    >>> r.correct, r.status, r.extracted
    (True, 'correct', '$0.5$')
    >>> vm.equivalent("(x+1)^2", "x^2 + 2x + 1")
    True
"""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Sequence

from verifiers._pool import WorkerCrashed, cpu_count, default_pool
from verifiers.errors import VerifierInputError, VerifyTimeout
from verifiers.math._config import MathConfig
from verifiers.math._core import Outcome, parse_answer, verify_core
from verifiers.math._extract import commitments
from verifiers.math._judge import NeedSympy, Scalars, judge
from verifiers.result import VerifyResult

__all__ = ["MathConfig", "VerifyTimeout", "equivalent", "extract_answer", "verify", "verify_many"]

log = logging.getLogger("verifiers.math")

MAX_GOLD_CHARS = 10_000
_DEFAULT = MathConfig()


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def _check(gold: object, config: object, timeout_s: object) -> None:
    if not isinstance(gold, str):
        raise VerifierInputError(f"gold must be a str, got {type(gold).__name__}")
    if not gold.strip():
        raise VerifierInputError("gold is empty: pass the reference answer, e.g. '42'")
    if len(gold) > MAX_GOLD_CHARS:
        raise VerifierInputError(
            f"gold is {len(gold)} characters; at most {MAX_GOLD_CHARS} (pass the answer, not a document)"
        )
    if not isinstance(config, MathConfig):
        raise VerifierInputError(f"config must be a MathConfig, got {type(config).__name__}")
    if not isinstance(timeout_s, (int, float)) or not timeout_s > 0:
        raise VerifierInputError(f"timeout_s must be a positive number, got {timeout_s!r}")


def extract_answer(completion: str, *, config: MathConfig = _DEFAULT) -> str | None:
    """The answer ``completion`` commits to (the last one), or None.

    Example:
        >>> extract_answer("2 + 2 = 4, so the answer is 4.")
        '4'
    """
    if not _is_str(completion):
        return None
    found = commitments(completion, config)
    return ", ".join(a.strip() for a in found.answers) if found.answers else None


def _result(outcome: Outcome) -> VerifyResult:
    status, reason, extracted = outcome
    return VerifyResult.judged(status, reason, extracted=extracted)  # type: ignore[arg-type]


def verify(gold: str, completion: str, *, config: MathConfig = _DEFAULT, timeout_s: float = 5.0) -> VerifyResult:
    """Judge a whole model ``completion`` against the ``gold`` answer.

    Never raises on model output: any ``completion`` gives a `VerifyResult` (status
    "timeout" when sympy did not finish in ``timeout_s``). Raises `VerifierInputError` for a
    non-str, empty or over-long ``gold`` or a bad ``config``.

    Example:
        >>> verify("72", "48 + 24 = 72\\n#### 72").correct
        True
        >>> verify("3", "The answer is 3 or 4.").status
        'incorrect'
    """
    _check(gold, config, timeout_s)
    if not _is_str(completion):
        return VerifyResult.judged(
            "no_answer", f"No answer: the completion is a {type(completion).__name__}, not text."
        )
    try:
        return _result(verify_core(gold, completion, config, Scalars(config)))
    except NeedSympy:
        pass
    except RecursionError:
        return VerifyResult.judged("unparseable", "The answer is nested too deeply to read.")
    except Exception as exc:  # a bug of ours must not crash a training loop
        log.exception("verifiers.math failed on gold=%r completion=%r", gold[:200], completion[:200])
        return VerifyResult.judged("error", f"The verifier failed: {type(exc).__name__}: {exc}.")
    try:
        outcome = default_pool().call(
            "verifiers.math._core", "run_core", (gold, completion, config), timeout_s=timeout_s
        )
    except VerifyTimeout:
        return VerifyResult.judged("timeout", f"The comparison did not finish within {timeout_s:g} s.")
    except WorkerCrashed as exc:
        return VerifyResult.judged("error", f"The verifier failed: {exc}.")
    return _result(outcome)


def equivalent(a: str, b: str, *, config: MathConfig = _DEFAULT, timeout_s: float = 5.0) -> bool:
    """Whether two already-extracted answers are equal (``a`` is read as the gold).

    False when either does not parse. Raises `VerifyTimeout` when the comparison does not
    finish within ``timeout_s``.

    Example:
        >>> equivalent("\\\\frac{1}{2}", "0.5"), equivalent("(1, 2)", "[1, 2]")
        (True, False)
    """
    _check(a, config, timeout_s)
    if not _is_str(b):
        return False
    na, nb = parse_answer(a, config), parse_answer(b, config)
    if na is None or nb is None:
        return False
    try:
        return judge(na, nb, Scalars(config))[0]
    except NeedSympy:
        pass
    try:
        return bool(default_pool().call("verifiers.math._core", "run_equivalent", (a, b, config), timeout_s=timeout_s))
    except WorkerCrashed:
        return False


def verify_many(
    golds: Sequence[str],
    completions: Sequence[str],
    *,
    config: MathConfig = _DEFAULT,
    workers: int | None = None,
    timeout_s: float = 5.0,
) -> list[VerifyResult]:
    """`verify` over pairs, in parallel (``workers`` processes; default one per CPU).

    Example:
        >>> [r.correct for r in verify_many(["1", "2"], ["\\\\boxed{1}", "\\\\boxed{3}"])]
        [True, False]
    """
    if len(golds) != len(completions):
        raise VerifierInputError(
            f"golds and completions must have the same length, got {len(golds)} and {len(completions)}"
        )
    for gold in golds:
        _check(gold, config, timeout_s)
    n = workers or cpu_count()
    if n < 1:
        raise VerifierInputError(f"workers must be >= 1, got {workers}")
    results: list[VerifyResult | None] = [None] * len(golds)
    slow: list[int] = []
    for k, (gold, completion) in enumerate(zip(golds, completions, strict=True)):
        if not _is_str(completion):
            results[k] = verify(gold, completion, config=config, timeout_s=timeout_s)
            continue
        try:
            results[k] = _result(verify_core(gold, completion, config, Scalars(config)))
        except Exception:  # NeedSympy, or anything else: verify() handles and reports it
            slow.append(k)
    if slow:
        default_pool(n)
        with concurrent.futures.ThreadPoolExecutor(max_workers=n) as threads:
            done = threads.map(lambda k: verify(golds[k], completions[k], config=config, timeout_s=timeout_s), slow)
            for k, result in zip(slow, done, strict=True):
                results[k] = result
    return [r for r in results if r is not None]
