"""Rewards from models: LLM judges over any OpenAI-compatible server, and rule-then-judge.

- `LLMJudge(base_url=..., model=...)` asks a served model whether a completion's final answer
  equals the reference (`Template`: the messages and the strict reply format). A call that
  fails (server down, timeout, a reply that is not a verdict) is status "timeout" or "error"
  with ``correct`` None: masked in training, never a 0.
- `RewardModel(model)` scores (prompt, completion) with a sequence-classification model (one
  logit), tokenised as TRL does; reward the sigmoid (or the raw logit), correct from a threshold.
- `with_judge(rule, judge)` trusts the rule (e.g. `verifiers.math.verify`) and asks the judge
  only about the rule's rejections that hold an extracted, non-trivial answer (TinyV's addon
  mode): the judge recovers right answers the rule missed and never sees a ``no_answer``.

Every judge has ``verify(reference, completion, *, prompt=None)`` and ``verify_many(references,
completions, *, prompts=None, executor=None)``, as `verifiers.math` and `verifiers.code` do.

What a judge cannot stop: a judge model that is simply wrong, or one a cleverly written answer
still persuades. The template quotes the answer as data and the reply is read strictly, but the
stronger guard is `with_judge`: a rule first, the judge only on the rule's rejections that hold
an extracted answer.

Examples:
    >>> from verifiers.judges import LLMJudge
    >>> judge = LLMJudge(base_url="http://127.0.0.1:8000/v1", model="Qwen/Qwen2.5-7B-Instruct")
    >>> judge.template.reply
    'verdict'
"""

from __future__ import annotations

from verifiers.judges._hybrid import Judge, RuleThenJudge, not_worth_judging, with_judge
from verifiers.judges._llm import LLMJudge, Usage
from verifiers.judges._reward_model import RewardModel
from verifiers.judges._template import DEFAULT_TEMPLATE, SCORE_TEMPLATE, Template, quote

__all__ = [
    "DEFAULT_TEMPLATE",
    "SCORE_TEMPLATE",
    "Judge",
    "LLMJudge",
    "RewardModel",
    "RuleThenJudge",
    "Template",
    "Usage",
    "not_worth_judging",
    "quote",
    "with_judge",
]
