"""`RewardModel`: a transformers sequence-classification model (one logit) as a verifier,
tokenised as TRL's GRPOTrainer tokenises for its reward models."""

from __future__ import annotations

import dataclasses
import logging
import math
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from verifiers._workload import Needs, Workload
from verifiers.errors import VerifierInputError
from verifiers.result import Status, VerifyResult

if TYPE_CHECKING:
    from verifiers._workload import Executor

__all__ = ["RM_WORKLOAD", "RewardModel"]

log = logging.getLogger("verifiers.judges")
Prompt = str | Sequence[dict[str, str]] | None


class RewardModel:
    """Score (prompt, completion) pairs with a sequence-classification model that has one logit.

    Tokenised as TRL does: a conversation (``prompt`` a list of messages) through the chat
    template with the completion as the assistant's turn, else ``prompt + completion`` as text;
    ``add_special_tokens=False``, right padding, batches of ``batch_size``, the raw logit.
    ``reward``: ``"sigmoid"`` (the default, in [0, 1]) or ``"raw"`` (the logit). ``correct``:
    sigmoid(logit) >= ``threshold``. On ``device`` (default: CUDA when present, else CPU). A
    model that cannot be loaded raises `VerifierInputError` here, at construction; a batch that
    fails on the device gives its items status "error" (masked).

    Examples:
        >>> RewardModel("/no/such/model")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        verifiers.errors.VerifierInputError: cannot load the reward model '/no/such/model' ...
    """

    def __init__(
        self,
        model: str | os.PathLike[str],
        *,
        reward: Literal["sigmoid", "raw"] = "sigmoid",
        threshold: float = 0.5,
        batch_size: int = 16,
        max_length: int = 2048,
        device: str | None = None,
    ) -> None:
        if reward not in ("sigmoid", "raw"):
            raise VerifierInputError(f"reward must be 'sigmoid' or 'raw', got {reward!r}")
        if not 0.0 < threshold < 1.0:
            raise VerifierInputError(f"threshold is on the sigmoid and must be in (0, 1), got {threshold!r}")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise VerifierInputError(f"batch_size must be an int >= 1, got {batch_size!r}")
        self.settings: dict[str, Any] = dict(
            model=os.fspath(model), reward=reward, threshold=threshold, batch_size=batch_size,
            max_length=max_length, device=device,
        )  # fmt: skip
        self.model, self.tokenizer, self.device = _load(self.settings["model"], device)
        self._lock = threading.Lock()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as the settings (workers load the model themselves)."""
        return (_made, (self.settings,))

    def __repr__(self) -> str:
        return f"RewardModel({self.settings['model']!r})"

    def verify(self, reference: Any, completion: Any, *, prompt: Prompt = None) -> VerifyResult:
        """Score one completion (``reference`` is not read: the model judges alone)."""
        return self.verify_many([reference], [completion], prompts=[prompt])[0]

    def verify_many(
        self,
        references: Sequence[Any],
        completions: Sequence[Any],
        *,
        prompts: Sequence[Prompt] | None = None,
        executor: Executor | None = None,
        answer_only: bool = False,
    ) -> list[VerifyResult]:
        """`verify` over pairs, in batches (on ``executor`` when given: its workers load the model)."""
        if len(references) != len(completions) or (prompts is not None and len(prompts) != len(completions)):
            raise VerifierInputError("references, completions and prompts must have the same length")
        asked = list(prompts) if prompts is not None else [None] * len(completions)
        if executor is not None:
            work = dataclasses.replace(RM_WORKLOAD, needs=Needs(cpu=1, gpu=0 if self.device == "cpu" else 1))
            items = list(zip(references, asked, strict=True))
            return executor.map(work.with_settings(**self.settings), items, list(completions), {})
        out: list[VerifyResult | None] = [None] * len(completions)
        texts = [k for k, c in enumerate(completions) if isinstance(c, str)]
        for k in set(range(len(completions))) - set(texts):
            out[k] = VerifyResult.judged("no_answer", "No answer: the completion is not text.")
        size = self.settings["batch_size"]
        for start in range(0, len(texts), size):
            chunk = texts[start : start + size]
            scored = self._score([asked[k] for k in chunk], [completions[k] for k in chunk])
            for k, result in zip(chunk, scored, strict=True):
                out[k] = result
        return [r for r in out if r is not None]

    def _score(self, prompts: list[Prompt], completions: list[str]) -> list[VerifyResult]:
        try:
            logits = self._logits([self._text(p, c) for p, c in zip(prompts, completions, strict=True)])
        except Exception as exc:  # a fault on the device must not crash a training loop
            log.exception("the reward model %s failed on a batch", self.settings["model"])
            return [VerifyResult.judged("error", f"The reward model failed: {type(exc).__name__}: {exc}.")] * len(
                prompts
            )
        return [self._result(x) for x in logits]

    def _text(self, prompt: Prompt, completion: str) -> str:
        if prompt is None or isinstance(prompt, str):
            return (prompt or "") + completion
        messages = [*prompt, {"role": "assistant", "content": completion}]
        return str(self.tokenizer.apply_chat_template(messages, tokenize=False))

    def _logits(self, texts: list[str]) -> list[float]:
        import torch

        with self._lock, torch.inference_mode():
            batch = self.tokenizer(
                text=texts, return_tensors="pt", padding=True, padding_side="right", add_special_tokens=False,
                truncation=True, max_length=self.settings["max_length"],
            )  # fmt: skip
            batch = {name: value.to(self.device) for name, value in batch.items()}
            return [float(x) for x in self.model(**batch).logits[:, 0].float().cpu()]

    def _result(self, logit: float) -> VerifyResult:
        if not math.isfinite(logit):
            return VerifyResult.judged("error", f"The reward model gave a logit of {logit}.")
        p = 1.0 / (1.0 + math.exp(-logit)) if logit > -700 else 0.0
        correct = p >= self.settings["threshold"]
        status: Status = "correct" if correct else "incorrect"
        reward = p if self.settings["reward"] == "sigmoid" else logit
        parts = {"correct": float(correct), "logit": logit, "sigmoid": p}
        return VerifyResult.judged(
            status, f"The reward model gave {logit:.4g} (sigmoid {p:.3f}).", reward=reward, components=parts
        )


def _load(name: str, device: str | None) -> tuple[Any, Any, str]:
    try:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
    except ImportError as exc:
        raise VerifierInputError(
            f"RewardModel needs torch and transformers: pip install 'grpo-envs[train]' ({exc})"
        ) from None
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    try:
        tokenizer = AutoTokenizer.from_pretrained(name)
        model = AutoModelForSequenceClassification.from_pretrained(name).to(device).eval()
    except Exception as exc:
        raise VerifierInputError(
            f"cannot load the reward model {name!r} ({type(exc).__name__}: {str(exc)[:200]}); pass a directory saved "
            "by save_pretrained or a model name in the local Hugging Face cache"
        ) from None
    if model.config.num_labels != 1:
        raise VerifierInputError(
            f"the reward model {name!r} has {model.config.num_labels} labels; a reward model has one logit "
            "(num_labels=1)"
        )
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if model.config.pad_token_id is None:
        model.config.pad_token_id = tokenizer.pad_token_id
    return model, tokenizer, device


def _made(settings: dict[str, Any]) -> RewardModel:
    return RewardModel(**settings)


def _open(cpus: int, **settings: Any) -> RewardModel:
    return RewardModel(**settings)


def _batch(
    rm: RewardModel | None, items: list[Any], completions: list[Any], options: dict[str, Any]
) -> list[VerifyResult]:
    if rm is None:
        return [VerifyResult.judged("no_answer", "No answer: the completion is not text.") for _ in completions]
    return rm.verify_many([r for r, _ in items], completions, prompts=[p for _, p in items])


RM_WORKLOAD = Workload("reward_model", _batch, open=_open, needs=Needs(cpu=1, gpu=1))
"""Reward-model scoring as a `verifiers.Workload`: one GPU per worker (one CPU when the model
runs on the CPU), the model loaded once per worker; settings: the `RewardModel`'s keywords."""
