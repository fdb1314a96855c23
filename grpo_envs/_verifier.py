"""`Verifier`: how an environment's answers are judged, as a value (math, code, or yours).

A verifier judges a batch of (reference, answer, prompt) items, the shape `verifiers.Workload`s
and executors take: items of many tasks go in one batch (`grpo_envs.score_groups`), on an
executor when one is given. A function of yours is wrapped once, by the constructor that says
what it takes: `Verifier.from_fn` (``fn(reference, answer)``, what `verifiers.testing` takes),
`Verifier.from_prompted_fn` (``fn(reference, answer, prompt)``) or the batch itself
(``Verifier(name, batch)``).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import math
import weakref
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from grpo_envs._logonce import log_error_once
from verifiers import VerifyResult
from verifiers.executors import Executor

__all__ = ["Verifier", "VerifyValue", "code_verifier", "judge_verifier", "math_verifier"]

VerifyValue = VerifyResult | bool | float
"""What a verify function returns: a `VerifyResult`, a bool (correct or not) or a float (the reward)."""
BatchFn = Callable[[list[Any], list[str], list[str | None], Executor | None], Sequence[VerifyValue | Exception]]
"""``batch(references, answers, prompts, executor)``: one value per answer, in order (on
``executor`` when it is not None and the batch can run there; here otherwise); an exception in
place of a value is that answer's failure (an error verdict)."""


@dataclass(frozen=True)
class Verifier:
    """``batch(references, answers, prompts, executor)``, one `VerifyValue` per answer: the items
    may come from many tasks. `from_fn` and `from_prompted_fn` make one from a function of one item.

    A bool is correct or incorrect; a float is the reward, correct when it is 1.0 (the kit's
    default ``reward_range`` top). A function that raises, or returns anything else, gives that
    answer a ``status="error"`` verdict (masked in training); its traceback is logged once per
    distinct error (`verify_many` never raises on a verifier's failure; a batch that raises on an
    executor is that executor's failure, the caller's).

    ``config`` is what else decides the verdict (shown in the provenance hash with the
    function's source, so a changed reward is visible in every step's ``info``).
    ``equivalent(a, b)``, optional, says whether two extracted answers are the same answer
    (maj@k groups votes with it, in both directions; without it, exact strings). A batch given
    an executor (e.g. a `RayExecutor`) sends its `verifiers.Workload` there, as the math and code
    verifiers do; one made from a function of one item runs in this process whatever the
    executor. ``spans``, optional, is the verifier an env uses when its answer format hands over
    the answer itself (``<answer>`` tags): the math verifier's judges it without looking for an
    answer inside it again.

    Examples:
        >>> v = Verifier.from_fn("exact", lambda ref, ans: ans.strip() == ref)
        >>> [r.status for r in v.verify_many(["4", "4"], [" 4 ", "5"])]
        ['correct', 'incorrect']
        >>> half = Verifier.from_prompted_fn("half", lambda ref, ans, prompt: 0.5)
        >>> half.verify_many(["4"], ["4"], ["2+2?"])[0].reward
        0.5
    """

    name: str
    batch: BatchFn
    config: Any = None
    digest: str = field(init=False, compare=False)
    equivalent: Callable[[str, str], bool] | None = field(default=None, compare=False)
    spans: Verifier | None = field(default=None, compare=False)
    """The verifier for answer spans an answer format already found (`AnswerFormat.span`):
    it judges the span as the answer, never extracting again. None: spans go to this one."""

    def __post_init__(self) -> None:  # also after dataclasses.replace: the digest follows the fields
        try:
            source = inspect.getsource(self.batch)  # a wrapped function's own (`from_fn`)
        except (OSError, TypeError):
            source = getattr(self.batch, "__qualname__", repr(self.batch))
        text = "\n".join([self.name, repr(self.config), source])
        object.__setattr__(self, "digest", hashlib.blake2b(text.encode(), digest_size=8).hexdigest())

    @classmethod
    def from_fn(
        cls,
        name: str,
        fn: Callable[[Any, str], VerifyValue],
        *,
        config: Any = None,
        equivalent: Callable[[str, str], bool] | None = None,
        spans: Verifier | None = None,
    ) -> Verifier:
        """A verifier of ``fn(reference, answer)`` (what `verifiers.testing` checks), item by item
        in this process."""

        def batch(
            references: list[Any], answers: list[str], prompts: list[str | None], executor: Executor | None
        ) -> list[VerifyValue | Exception]:
            return [_called(fn, reference, answer) for reference, answer in zip(references, answers, strict=True)]

        wrapped = functools.update_wrapper(batch, fn)  # its digest shows fn's source
        key = ("fn", name, fn, config, equivalent, spans)
        return _shared(key, lambda: cls(name, wrapped, config=config, equivalent=equivalent, spans=spans), _WRAPPED)

    @classmethod
    def from_prompted_fn(
        cls,
        name: str,
        fn: Callable[[Any, str, str | None], VerifyValue],
        *,
        config: Any = None,
        equivalent: Callable[[str, str], bool] | None = None,
        spans: Verifier | None = None,
    ) -> Verifier:
        """A verifier of ``fn(reference, answer, prompt)`` (a reward model needs the task's
        prompt; None where there is none), item by item in this process."""

        def batch(
            references: list[Any], answers: list[str], prompts: list[str | None], executor: Executor | None
        ) -> list[VerifyValue | Exception]:
            items = zip(references, answers, prompts, strict=True)
            return [_called(fn, reference, answer, prompt) for reference, answer, prompt in items]

        wrapped = functools.update_wrapper(batch, fn)
        key = ("prompted", name, fn, config, equivalent, spans)
        return _shared(key, lambda: cls(name, wrapped, config=config, equivalent=equivalent, spans=spans), _WRAPPED)

    def verify_many(
        self,
        references: Sequence[Any],
        answers: Sequence[str],
        prompts: Sequence[str | None] | None = None,
        *,
        executor: Executor | None = None,
    ) -> list[VerifyResult]:
        """Judge (reference, answer, prompt) items, of one task or many (on ``executor``, e.g. a
        `RayExecutor`, when the batch can run there). Never raises on the verifier's failures;
        an executor's own (no cluster, no worker) are the caller's."""
        asked: list[str | None] = list(prompts) if prompts is not None else [None] * len(answers)
        if not len(references) == len(answers) == len(asked):
            raise ValueError(f"{len(references)} references, {len(answers)} answers and {len(asked)} prompts")
        if not answers:
            return []
        try:
            values = list(self.batch(list(references), list(answers), asked, executor))
            if len(values) != len(answers):
                raise ValueError(f"the batch returned {len(values)} verdicts for {len(answers)} answers")
        except Exception as exc:
            if executor is not None:
                raise  # the executor's failure (a batch's own is judged here, without one)
            return [self._failed(exc)] * len(answers)
        return [self._failed(value) if isinstance(value, Exception) else self._result(value) for value in values]

    def _result(self, value: Any) -> VerifyResult:
        """``value`` as a `VerifyResult` (the kit's reading of a bool or a float)."""
        if isinstance(value, VerifyResult):
            return value
        if isinstance(value, bool):
            return VerifyResult.judged("correct" if value else "incorrect", f"The verifier {self.name} said {value}.")
        if isinstance(value, int | float) and not math.isnan(value):
            reason = f"The verifier {self.name} gave {value:g}."
            return VerifyResult.judged("correct" if value == 1.0 else "incorrect", reason, reward=float(value))
        return self._failed(TypeError(f"it returned {value!r}, not a VerifyResult, a bool or a float"))

    def _failed(self, exc: Exception) -> VerifyResult:
        log_error_once(exc, "the verifier %s failed: %s: %s", self.name, type(exc).__name__, exc)
        return VerifyResult.judged("error", f"The verifier {self.name} failed: {type(exc).__name__}: {exc}.")


def _called(fn: Callable[..., VerifyValue], *args: Any) -> VerifyValue | Exception:
    """``fn(*args)``, or the exception it raised (that item's error verdict, the others judged)."""
    try:
        return fn(*args)
    except Exception as exc:
        return exc


_SHARED: dict[tuple[Any, ...], Verifier] = {}
"""Verifiers made once per setting (``math_verifier``, ``code_verifier`` on the shared pool):
one value for every env that uses it, so the items of all their tasks go in one batch."""


_WRAPPED: weakref.WeakValueDictionary[tuple[Any, ...], Verifier] = weakref.WeakValueDictionary()
"""`Verifier.from_fn`'s verifiers by their arguments, while something holds them: the envs made
with one function (every Countdown env's, say) share one verifier, so their tasks' items go in
one batch (and, with a judge, to one judge verifier)."""


def _shared(
    key: tuple[Any, ...], make: Callable[[], Verifier], table: MutableMapping[tuple[Any, ...], Verifier] = _SHARED
) -> Verifier:
    try:
        found = table.get(key)
    except TypeError:  # a setting that cannot be a key (an unhashable config): a verifier of its own
        return make()
    if found is None:
        found = table.setdefault(key, make())
    return found


def math_verifier(config: Any = None, *, timeout_s: float = 5.0, answer_only: bool = False) -> Verifier:
    """`verifiers.math` with ``config`` (a `MathConfig`); batches run in worker processes, or as
    its workload on an executor. ``answer_only``: the answers are spans an answer format found
    (see `Verifier.spans`). The same settings give the same verifier."""
    from verifiers import math as vm

    cfg = config or vm.MathConfig()
    return _shared(("math", cfg, timeout_s, answer_only), lambda: _math_verifier(cfg, timeout_s, answer_only))


def _math_verifier(cfg: Any, timeout_s: float, answer_only: bool) -> Verifier:
    from verifiers import math as vm

    only = answer_only

    def batch(
        references: list[Any], answers: list[str], prompts: list[str | None], executor: Executor | None
    ) -> list[VerifyResult]:
        golds = [str(reference) for reference in references]
        return vm.verify_many(golds, answers, config=cfg, timeout_s=timeout_s, answer_only=only, executor=executor)

    def equivalent(a: str, b: str) -> bool:
        try:
            return vm.equivalent(a, b, config=cfg, timeout_s=timeout_s)
        except Exception:  # an answer that cannot be read as a gold, or a timeout: not shown equal
            return False

    spans = None if answer_only else math_verifier(cfg, timeout_s=timeout_s, answer_only=True)
    return Verifier(
        "math",
        batch,
        config=(cfg, timeout_s, answer_only) if answer_only else (cfg, timeout_s),
        equivalent=equivalent,
        spans=spans,
    )


def code_verifier(*, sandbox: Any = None, timeout_s: float = 5.0, partial_credit: bool = True) -> Verifier:
    """`verifiers.code` against each item's tests dict; a batch runs concurrently over the
    sandbox pool, or as its workload on an executor.

    ``sandbox=None`` uses the process-wide pool, started on first use (not at construction);
    then the same settings give the same verifier.
    """
    if sandbox is None:
        key = ("code", timeout_s, partial_credit)
        return _shared(key, lambda: _code_verifier(None, timeout_s=timeout_s, partial_credit=partial_credit))
    return _code_verifier(sandbox, timeout_s=timeout_s, partial_credit=partial_credit)


def _code_verifier(sandbox: Any, *, timeout_s: float, partial_credit: bool) -> Verifier:
    from grpo_envs._task import thaw
    from verifiers import code as vc

    def batch(
        references: list[Any], answers: list[str], prompts: list[str | None], executor: Executor | None
    ) -> list[VerifyResult]:
        box = sandbox if executor is None else None  # an executor brings its own sandboxes
        suites = [thaw(tests) for tests in references]
        return vc.verify_many(
            suites, answers, sandbox=box, timeout_s=timeout_s, partial_credit=partial_credit, executor=executor
        )

    return Verifier("code", batch, config=(timeout_s, partial_credit))


def judge_verifier(judge: Any, *, name: str | None = None) -> Verifier:
    """A judge of `verifiers.judges` (an `LLMJudge`, a `RewardModel`, a rule-then-judge made by
    `with_judge`) as an env's verifier: it gets each task's prompt as the question, and a batch's
    answers as one batch (on an executor when given).

    Examples:
        >>> from verifiers import math
        >>> from verifiers.judges import LLMJudge, with_judge
        >>> judge = LLMJudge(base_url="http://127.0.0.1:9/v1", model="judge")
        >>> judge_verifier(with_judge(math.verify, judge)).name
        'rule_then_judge'
    """
    if not callable(getattr(judge, "verify", None)) or not callable(getattr(judge, "verify_many", None)):
        raise TypeError(f"judge must have verify and verify_many (verifiers.judges), got {type(judge).__name__}")
    kind = {"LLMJudge": "llm_judge", "RewardModel": "reward_model", "RuleThenJudge": "rule_then_judge"}

    def batch(
        references: list[Any], answers: list[str], prompts: list[str | None], executor: Executor | None
    ) -> list[VerifyResult]:
        return judge.verify_many(references, answers, prompts=prompts, executor=executor)  # type: ignore[no-any-return]

    config = (repr(judge), repr(getattr(judge, "template", None)))
    return Verifier(name or kind.get(type(judge).__name__, type(judge).__name__.lower()), batch, config)
