"""`Verifier`: the correctness judge an environment uses, as a value (math, code, or yours).

One contract with the testing kit (`verifiers.testing`): ``fn(reference, answer)`` returns a
`VerifyResult`, a bool or a float, and may take the task's prompt as a ``prompt=`` keyword. A
batched ``verify_many`` that takes an ``executor`` keyword judges on it (`verifiers.executors`).
"""

from __future__ import annotations

import hashlib
import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from grpo_envs._logonce import log_error_once
from verifiers import VerifyResult
from verifiers.executors import Executor

__all__ = ["Verifier", "code_verifier", "judge_verifier", "math_verifier"]

Verdict = VerifyResult | bool | float
VerifyFn = Callable[..., Verdict]
VerifyManyFn = Callable[..., Sequence[Verdict]]


@dataclass(frozen=True)
class Verifier:
    """``verify(reference, answer)`` returning a `VerifyResult`, a bool or a float (what
    `verifiers.testing` takes) and, optionally, a batched ``verify_many(reference, answers)``.

    A bool is correct or incorrect; a float is the reward, correct when it is 1.0 (the kit's
    default ``reward_range`` top). A function with a ``prompt`` parameter (or ``**kwargs``) also
    gets the task's prompt as ``prompt=`` (what a reward model needs). A function that raises, or
    returns anything else, gives that answer a ``status="error"`` verdict (masked in training);
    its traceback is logged once per distinct error (`verify_all` never raises).

    ``config`` is what else decides the verdict (shown in the provenance hash with the
    functions' source, so a changed reward is visible in every step's ``info``).
    ``equivalent(a, b)``, optional, says whether two extracted answers are the same answer
    (maj@k groups votes with it, in both directions; without it, exact strings). A
    ``verify_many`` with an ``executor`` parameter is given the executor a batch should run on
    (e.g. a `RayExecutor`; it sends its `verifiers.Workload` there, as the math and code
    verifiers do); any other verifier runs in this process whatever the executor. ``spans``, optional,
    is the verifier an env uses when its answer format hands over the answer itself (``<answer>``
    tags): the math verifier's judges it without looking for an answer inside it again.

    Examples:
        >>> v = Verifier("exact", lambda ref, ans: ans.strip() == ref)
        >>> [r.status for r in v.verify_all("4", [" 4 ", "5"])]
        ['correct', 'incorrect']
        >>> Verifier("half", lambda ref, ans, prompt: 0.5).verify_all("4", ["4"], prompt="2+2?")[0].reward
        0.5
    """

    name: str
    verify: VerifyFn
    verify_many: VerifyManyFn | None = None
    config: Any = None
    digest: str = field(default="", compare=False)
    equivalent: Callable[[str, str], bool] | None = field(default=None, compare=False)
    spans: Verifier | None = field(default=None, compare=False)
    """The verifier for answer spans an answer format already found (`AnswerFormat.span`):
    it judges the span as the answer, never extracting again. None: spans go to this one."""

    def __post_init__(self) -> None:
        parts = [self.name, repr(self.config)]
        for fn in (self.verify, self.verify_many):
            if fn is None:
                continue
            try:
                parts.append(inspect.getsource(fn))
            except (OSError, TypeError):
                parts.append(getattr(fn, "__qualname__", repr(fn)))
        digest = hashlib.blake2b("\n".join(parts).encode(), digest_size=8).hexdigest()
        object.__setattr__(self, "digest", digest)

    def verify_all(
        self,
        reference: Any,
        answers: Sequence[str],
        *,
        executor: Executor | None = None,
        prompt: str | None = None,
    ) -> list[VerifyResult]:
        """Judge many answers to one reference (in parallel when the verifier supports it; on
        ``executor``, e.g. a `RayExecutor`, when its ``verify_many`` takes one). Never raises on
        the verifier's failures; an executor's own (no cluster, no worker) are the caller's."""
        if executor is not None and self.verify_many is not None and _takes(self.verify_many, "executor"):
            asked = _prompt_for(self.verify_many, prompt)
            return [self._result(value) for value in self.verify_many(reference, answers, executor=executor, **asked)]
        if self.verify_many is not None:
            try:
                many = list(self.verify_many(reference, answers, **_prompt_for(self.verify_many, prompt)))
                if len(many) != len(answers):
                    raise ValueError(f"verify_many returned {len(many)} verdicts for {len(answers)} answers")
            except Exception as exc:
                return [self._failed(exc)] * len(answers)
            return [self._result(value) for value in many]
        return [self._one(reference, a, prompt) for a in answers]

    def _one(self, reference: Any, answer: str, prompt: str | None) -> VerifyResult:
        try:
            value = self.verify(reference, answer, **_prompt_for(self.verify, prompt))
        except Exception as exc:
            return self._failed(exc)
        return self._result(value)

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


def _takes(fn: Callable[..., Any], name: str) -> bool:
    """Whether ``fn`` has a parameter ``name`` that can be passed by keyword."""
    try:
        param = inspect.signature(fn).parameters.get(name)
    except (TypeError, ValueError):
        return False
    return param is not None and param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY)


def _prompt_for(fn: Callable[..., Any], prompt: str | None) -> dict[str, Any]:
    """``{"prompt": prompt}`` when ``fn`` takes a ``prompt`` keyword (or ``**kwargs``), else {}."""
    if prompt is None:
        return {}
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    takes = "prompt" in params and params["prompt"].kind is not inspect.Parameter.POSITIONAL_ONLY
    return {"prompt": prompt} if takes or any(p.kind is p.VAR_KEYWORD for p in params.values()) else {}


def math_verifier(config: Any = None, *, timeout_s: float = 5.0, answer_only: bool = False) -> Verifier:
    """`verifiers.math` with ``config`` (a `MathConfig`); batches run in worker processes.
    ``answer_only``: the answers are spans an answer format found (see `Verifier.spans`)."""
    from verifiers import math as vm

    cfg = config or vm.MathConfig()
    only = answer_only

    def verify(reference: Any, answer: str) -> VerifyResult:
        return vm.verify(str(reference), answer, config=cfg, timeout_s=timeout_s, answer_only=only)

    def verify_many(reference: Any, answers: Sequence[str], executor: Executor | None = None) -> list[VerifyResult]:
        golds = [str(reference)] * len(answers)
        return vm.verify_many(
            golds, list(answers), config=cfg, timeout_s=timeout_s, answer_only=only, executor=executor
        )

    def equivalent(a: str, b: str) -> bool:
        try:
            return vm.equivalent(a, b, config=cfg, timeout_s=timeout_s)
        except Exception:  # an answer that cannot be read as a gold, or a timeout: not shown equal
            return False

    spans = None if answer_only else math_verifier(cfg, timeout_s=timeout_s, answer_only=True)
    return Verifier(
        "math",
        verify,
        verify_many,
        config=(cfg, timeout_s, answer_only) if answer_only else (cfg, timeout_s),
        equivalent=equivalent,
        spans=spans,
    )


def code_verifier(*, sandbox: Any = None, timeout_s: float = 5.0, partial_credit: bool = True) -> Verifier:
    """`verifiers.code` against a tests dict; a group runs concurrently over the sandbox pool.

    ``sandbox=None`` uses the process-wide pool, started on first use (not at construction).
    """
    from verifiers import code as vc

    def plain(tests: Any) -> Any:
        from grpo_envs._task import thaw

        return thaw(tests)

    def verify(tests: Any, completion: str) -> VerifyResult:
        return vc.verify(plain(tests), completion, sandbox=sandbox, timeout_s=timeout_s, partial_credit=partial_credit)

    def verify_many(tests: Any, completions: Sequence[str], executor: Executor | None = None) -> list[VerifyResult]:
        box = sandbox if executor is None else None  # an executor brings its own sandboxes
        return vc.verify_many(
            plain(tests),
            list(completions),
            sandbox=box,
            timeout_s=timeout_s,
            partial_credit=partial_credit,
            executor=executor,
        )

    return Verifier("code", verify, verify_many, config=(timeout_s, partial_credit))


def judge_verifier(judge: Any, *, name: str | None = None) -> Verifier:
    """A judge of `verifiers.judges` (an `LLMJudge`, a `RewardModel`, a rule-then-judge made by
    `with_judge`) as an env's verifier: it gets the task's prompt as the question, and a group's
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

    def verify(reference: Any, answer: str, prompt: str | None = None) -> VerifyResult:
        return judge.verify(reference, answer, prompt=prompt)  # type: ignore[no-any-return]

    def verify_many(
        reference: Any, answers: Sequence[str], executor: Executor | None = None, prompt: str | None = None
    ) -> list[VerifyResult]:
        n = len(answers)
        return judge.verify_many([reference] * n, list(answers), prompts=[prompt] * n, executor=executor)  # type: ignore[no-any-return]

    config = (repr(judge), repr(getattr(judge, "template", None)))
    return Verifier(name or kind.get(type(judge).__name__, type(judge).__name__.lower()), verify, verify_many, config)
