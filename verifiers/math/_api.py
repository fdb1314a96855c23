"""The public functions of `verifiers.math` (re-exported by its ``__init__``): `verify`,
`verify_many`, `equivalent`, `extract_answer`, `final_answers`; the grading policy is in the
package docstring.
"""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from verifiers._pool import cpu_count, default_pool
from verifiers._workload import Needs, Workload
from verifiers.errors import VerifierInputError, VerifyTimeout, WorkerCrashed
from verifiers.math._compare import NeedSympy, Scalars
from verifiers.math._config import MathConfig
from verifiers.math._core import MAX_PARSED, Outcome, compare_texts, parse_answer, run_core, run_equivalent, verify_core
from verifiers.math._extract import commitments
from verifiers.result import VerifyResult

if TYPE_CHECKING:
    from verifiers._workload import Executor

__all__ = ["WORKLOAD", "equivalent", "extract_answer", "final_answers", "verify", "verify_many"]

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

    Examples:
        >>> extract_answer("2 + 2 = 4, so the answer is 4.")
        '4'
    """
    if not _is_str(completion):
        return None
    found = commitments(completion, config, whole=True)
    return ", ".join(a.strip() for a in found.answers) if found.answers else None


def final_answers(completion: str, *, config: MathConfig = _DEFAULT) -> tuple[str, ...] | None:
    """Every answer of the final commitment (a run of boxes gives several; none: ``()``), or
    None when the completion sprays answers (more boxes or statements than anyone writes).

    Examples:
        >>> final_answers(r"It is $\\boxed{2}$ or $\\boxed{3}$."), final_answers("")
        (('2', '3'), ())
    """
    if not _is_str(completion):
        return ()
    found = commitments(completion, config, whole=True)
    return None if found.spray else tuple(a.strip() for a in found.answers)


def _result(outcome: Outcome) -> VerifyResult:
    status, reason, extracted = outcome
    if extracted is not None and len(extracted) > MAX_PARSED:  # shown in logs: not a whole document
        extracted = extracted[:MAX_PARSED] + "..."
    return VerifyResult.judged(status, reason, extracted=extracted)  # type: ignore[arg-type]


def verify(
    gold: str, completion: str, *, config: MathConfig = _DEFAULT, timeout_s: float = 5.0, answer_only: bool = False
) -> VerifyResult:
    """Judge a whole model ``completion`` against the ``gold`` answer.

    Never raises on model output: any ``completion`` gives a `VerifyResult` (status
    "timeout" when sympy did not finish in ``timeout_s``). Raises `VerifierInputError` for a
    non-str, empty or over-long ``gold`` or a bad ``config``. With ``answer_only``, the
    ``completion`` is an answer an answer format already found (an ``<answer>`` tag's content):
    judged as that answer, never searched for one again, whatever its length or lines.

    Examples:
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
        return _result(verify_core(gold, completion, config, Scalars(config), answer_only))
    except NeedSympy:
        pass
    except RecursionError:
        return VerifyResult.judged("unparseable", "The answer is nested too deeply to read.")
    except Exception as exc:  # a bug of ours must not crash a training loop
        log.exception("verifiers.math failed on gold=%r completion=%r", gold[:200], completion[:200])
        return VerifyResult.judged("error", f"The verifier failed: {type(exc).__name__}: {exc}.")
    try:
        outcome = default_pool().call(run_core, (gold, completion, config, answer_only), timeout_s=timeout_s)
    except VerifyTimeout:
        return VerifyResult.judged("timeout", f"The comparison did not finish within {timeout_s:g} s.")
    except WorkerCrashed as exc:
        return VerifyResult.judged("error", f"The verifier failed: {exc}.")
    return _result(outcome)


def equivalent(a: str, b: str, *, config: MathConfig = _DEFAULT, timeout_s: float = 5.0) -> bool:
    """Whether two already-extracted answers are equal (``a`` is read as the gold).

    False when either does not parse. Raises `VerifyTimeout` when the comparison does not
    finish within ``timeout_s``.

    Examples:
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
        return compare_texts(a, na, b, nb, Scalars(config))[0]
    except NeedSympy:
        pass
    try:
        return bool(default_pool().call(run_equivalent, (a, b, config), timeout_s=timeout_s))
    except WorkerCrashed as exc:  # not a verdict: say so, and answer "not shown equal"
        log.warning(
            "verifiers.math.equivalent: the worker crashed on a=%r b=%r (%s); returning False", a[:80], b[:80], exc
        )
        return False


def verify_many(
    golds: Sequence[str],
    completions: Sequence[str],
    *,
    config: MathConfig = _DEFAULT,
    workers: int | None = None,
    timeout_s: float = 5.0,
    executor: Executor | None = None,
    answer_only: bool = False,
) -> list[VerifyResult]:
    """`verify` over pairs, in parallel (``workers`` processes; default one per CPU).

    ``executor`` judges elsewhere, e.g. ``RayExecutor()`` on a Ray cluster (see
    `verifiers.executors`; its workers' pools replace ``workers``); results are in input order
    either way, and a gold that is not a valid gold raises here, before anything is sent.

    Examples:
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
    if executor is not None:
        options = {"config": config, "timeout_s": timeout_s, "answer_only": answer_only}
        return executor.map(WORKLOAD, list(golds), list(completions), options)
    results: list[VerifyResult | None] = [None] * len(golds)
    slow: list[int] = []
    for k, (gold, completion) in enumerate(zip(golds, completions, strict=True)):
        if not _is_str(completion):
            results[k] = verify(gold, completion, config=config, timeout_s=timeout_s)
            continue
        try:
            results[k] = _result(verify_core(gold, completion, config, Scalars(config), answer_only))
        except Exception:  # NeedSympy, or anything else: verify() handles and reports it
            slow.append(k)
    if slow:
        default_pool(n)
        with concurrent.futures.ThreadPoolExecutor(max_workers=n) as threads:
            done = threads.map(
                lambda k: verify(golds[k], completions[k], config=config, timeout_s=timeout_s, answer_only=answer_only),
                slow,
            )
            for k, result in zip(slow, done, strict=True):
                results[k] = result
    return [r for r in results if r is not None]


def _open_pool(cpus: int) -> int:
    """A worker's state: the width of its sympy pool (the process's pool, started at the first
    answer that needs sympy, as without an executor: most never do)."""
    return cpus


def _verify_on(
    workers: int | None, golds: list[str], completions: list[str], options: dict[str, Any]
) -> list[VerifyResult]:
    return verify_many(golds, completions, workers=workers, **options)


WORKLOAD = Workload("math", _verify_on, open=_open_pool, needs=Needs(cpu=1))
"""Math judging as a `verifiers.Workload` (what ``verify_many(..., executor=...)`` sends): each
worker holds one CPU on a cluster (every CPU here, in a `LocalExecutor`) and a sympy pool that
wide; options: ``config``, ``timeout_s``, ``answer_only``."""
